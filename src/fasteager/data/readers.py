"""CSV input: ``fe.data.experimental.CsvDataset`` (records of CSV files as tuples of
scalars) and ``make_csv_dataset`` (batches of feature dicts, with column names and types
read from the files), as ``tf.data.experimental`` defines them. The grammar, the numbers
and the column defaults are ``fasteager._csv``'s, shared with ``fe.io.decode_csv``."""
import numpy as np

from .._src.io import csv as _csv
from ..errors import DataLossError, InvalidArgumentError
from . import structure as S
from .dataset import AUTOTUNE, UNKNOWN, Dataset
from .sources import compression_kind, filenames_list, matching_files, open_file


def _delim_byte(opname, field_delim):
    delim = field_delim.encode("utf-8") if isinstance(field_delim, str) else field_delim
    if not isinstance(delim, bytes) or len(delim) != 1:
        raise InvalidArgumentError("%s: field_delim should be only 1 char (got %r)"
                                   % (opname, field_delim))
    return delim


def _na_bytes(na_value):
    return na_value.encode("utf-8") if isinstance(na_value, str) else bytes(na_value)


def file_records(path, compression, opname, delim, use_quote, header, keep=None,
                 skip_malformed=False):
    """``(record number, fields)`` of each record of a CSV file (fields: bytes; those
    ``keep(i)`` accepts), after the header record when ``header``. With
    ``skip_malformed`` (make_csv_dataset's ignore_errors) a record whose quoting is
    malformed is dropped and reading goes on after its line, as TensorFlow does."""
    with open_file(path, compression, opname) as f:
        scanner = _csv.Scanner(opname, f, delim, use_quote, lines=True)
        try:
            if header:
                scanner.where = "the header of %s" % path
                if scanner.record(lambda i: False) is None:
                    raise InvalidArgumentError("%s: can't read the header of %s (the file "
                                               "is empty)" % (opname, path))
            number = 0
            while True:
                scanner.where = "record %d of %s" % (number, path)
                try:
                    fields = scanner.record(keep)
                except InvalidArgumentError:
                    if not skip_malformed:
                        raise
                    scanner.skip_line()
                    number += 1
                    continue
                if fields is None:
                    return
                yield number, fields
                number += 1
        except (DataLossError, OSError) as e:
            raise DataLossError("%s: cannot read %s as %s (%s)"
                                % (opname, path, compression or "CSV", e)) from None


class CsvDataset(Dataset):
    """The records of CSV files as tuples of scalars, one per column
    (``tf.data.experimental.CsvDataset``).

    ``record_defaults``: one entry per (selected) column: a dtype or an empty tensor for a
    required column, or a default value (its dtype is the column's: a Python int is
    int32, a float float32, a str a string). An empty field or ``na_value`` takes the
    default; in a required column it raises ``InvalidArgumentError``.

    >>> ds = fe.data.experimental.CsvDataset("data.csv", [fe.int32, 0.0, ""], header=True)
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        self._filenames = filenames_list(filenames, "CsvDataset")
        self._compression = compression_kind(compression_type, "CsvDataset")
        if buffer_size is not None and buffer_size <= 0:
            raise InvalidArgumentError("CsvDataset: buffer_size should be positive (got %r)"
                                       % (buffer_size,))
        self._columns = _csv.column_defaults("CsvDataset", record_defaults, S.to_array)
        self._delim = _delim_byte("CsvDataset", field_delim)
        self._quote, self._header = bool(use_quote_delim), bool(header)
        self._na = _na_bytes(na_value)
        n = len(self._columns)
        if select_cols is not None and exclude_cols is not None:
            raise InvalidArgumentError("CsvDataset: either select_cols or exclude_cols should "
                                       "be empty")
        self._keep = None
        if select_cols is not None:
            cols = [int(c) for c in np.asarray(S.to_array(select_cols)).reshape(-1)]
            if any(b <= a for a, b in zip(cols, cols[1:])) or (cols and cols[0] < 0):
                raise InvalidArgumentError("CsvDataset: select_cols must be increasing "
                                           "non-negative column indices (got %s)" % cols)
            if len(cols) != n:
                raise InvalidArgumentError("CsvDataset: select_cols and record_defaults must "
                                           "have the same length (expected %d, got %d)"
                                           % (n, len(cols)))
            self._keep = set(cols).__contains__
        elif exclude_cols is not None:
            excluded = {int(c) for c in np.asarray(S.to_array(exclude_cols)).reshape(-1)}
            if any(c < 0 for c in excluded):
                raise InvalidArgumentError("CsvDataset: exclude_cols must be non-negative "
                                           "column indices (got %s)" % sorted(excluded))
            self._keep = lambda i: i not in excluded
        self._ignore_errors = False     # make_csv_dataset(ignore_errors=True) sets it

    def _iter(self):
        for path in self._filenames:
            for number, fields in file_records(path, self._compression, "CsvDataset",
                                               self._delim, self._quote, self._header,
                                               self._keep, self._ignore_errors):
                try:
                    yield _csv.convert("CsvDataset", fields, self._columns, self._na,
                                       "record %d of %s" % (number, path))
                except InvalidArgumentError:
                    if not self._ignore_errors:
                        raise

    def _cardinality(self):
        return UNKNOWN

    def _element_spec(self):
        return tuple(S.TensorSpec([], dtype) for dtype, _ in self._columns)


# -- make_csv_dataset ---------------------------------------------------------------------
_INFERENCE_ORDER = ("int32", "int64", "float32", "float64", "string")


def _fits(field, name):
    if name != "float32":
        return _csv.parse_number(field, name) is not None
    # as TensorFlow's inference: float32 unless a finite value is beyond its range
    value = _csv.parse_number(field, "float64")
    return value is not None and not (np.isfinite(value) and
                                      abs(value) > np.finfo(np.float32).max)


def _infer_type(field, na_value, previous):
    """The narrowest type of ``_INFERENCE_ORDER`` that parses ``field`` (bytes) and is no
    narrower than ``previous`` (what the column's earlier values needed)."""
    if field in (b"", na_value):
        return previous
    start = 0 if previous is None else _INFERENCE_ORDER.index(previous)
    for name in _INFERENCE_ORDER[start:]:
        if name == "string" or _fits(field, name):
            return name


def _first_records(path, field_delim, use_quote_delim, compression):
    return file_records(path, compression, "make_csv_dataset",
                        _delim_byte("make_csv_dataset", field_delim), use_quote_delim,
                        header=False)


def _column_names(filenames, field_delim, use_quote_delim, compression):
    names = None
    for path in filenames:
        first = next(_first_records(path, field_delim, use_quote_delim, compression), None)
        if first is None:
            raise ValueError("make_csv_dataset: %s has no header line (empty file?)" % path)
        try:
            header = [f.decode("utf-8") for f in first[1]]
        except UnicodeDecodeError:
            raise ValueError("make_csv_dataset: the header line of %s is not UTF-8 text"
                             % path) from None
        if names is None:
            names = header
        elif header != names:
            raise ValueError("make_csv_dataset: files have different column names in the "
                             "header row (expected %s, got %s in %s)" % (names, header, path))
    return names


def _inferred_defaults(filenames, num_cols, select, field_delim, use_quote_delim, na_value,
                       header, limit, compression):
    types = [None] * len(select)
    seen = 0
    na = _na_bytes(na_value)
    for path in filenames:
        for number, row in _first_records(path, field_delim, use_quote_delim, compression):
            if header and number == 0:
                continue
            if limit is not None and seen >= limit:
                break
            if len(row) != num_cols:
                raise ValueError("make_csv_dataset: problem inferring types: a row of %s has "
                                 "%d fields (expected %d)" % (path, len(row), num_cols))
            for j, col in enumerate(select):
                types[j] = _infer_type(row[col], na, types[j])
            seen += 1
        if limit is not None and seen >= limit:
            break
    # as TensorFlow: inferred columns are optional, with 0 or "" as default
    return ["" if t in (None, "string") else np.asarray(0, t) for t in types]


def _selected_indices(select_columns, names):
    index = {n: i for i, n in enumerate(names)}
    out = []
    for v in select_columns:
        if isinstance(v, (int, np.integer)):
            if not 0 <= v < len(names):
                raise ValueError("make_csv_dataset: column index %d in select_columns is out "
                                 "of range (expected 0 <= index < %d)" % (v, len(names)))
            out.append(int(v))
        elif v in index:
            out.append(index[v])
        else:
            raise ValueError("make_csv_dataset: %r in select_columns is not a column index or "
                             "name (the columns are %s)" % (v, names))
    if len(set(out)) != len(out):
        raise ValueError("make_csv_dataset: select_columns contains duplicate columns (got %r)"
                         % (select_columns,))
    return sorted(out)


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """Batches of CSV records as ``{column name: batch}`` dicts, or ``(features, label)``
    with ``label_name`` (``tf.data.experimental.make_csv_dataset``).

    Column names come from the first file's header unless given; column types, unless
    ``column_defaults`` gives them, are inferred from the first ``num_rows_for_inference``
    records (int32, int64, float32, float64, else string; such columns default to 0 or
    ``""``). Files are read in turns (``num_parallel_reads`` at a time), records shuffled
    with a ``shuffle_buffer_size`` buffer, repeated ``num_epochs`` times (forever for
    None, then every batch is full) and batched by ``batch_size``."""
    if encoding != "utf-8":
        raise ValueError("make_csv_dataset: only utf-8 files are read (got encoding=%r)"
                         % (encoding,))
    filenames = matching_files(file_pattern, "make_csv_dataset")
    if not filenames:
        raise ValueError("make_csv_dataset: no files match file_pattern %r" % (file_pattern,))
    compression = compression_kind(compression_type, "make_csv_dataset")
    files = Dataset.from_tensor_slices(filenames)
    if shuffle:
        files = files.shuffle(len(filenames), shuffle_seed)

    if column_names is None:
        if not header:
            raise ValueError("make_csv_dataset: cannot infer column names without a header "
                             "line (expected column_names or header=True)")
        column_names = _column_names(filenames, field_delim, use_quote_delim, compression)
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("make_csv_dataset: column names must be unique (got %s)"
                         % column_names)
    select = None if select_columns is None else _selected_indices(select_columns,
                                                                    column_names)
    if column_defaults is None:
        column_defaults = _inferred_defaults(
            filenames, len(column_names), select or range(len(column_names)), field_delim,
            use_quote_delim, na_value, header, num_rows_for_inference, compression)
    column_defaults = list(column_defaults)
    if select is not None:
        if len(column_defaults) != len(select):
            raise ValueError("make_csv_dataset: column_defaults and select_columns must have "
                             "the same length (got %d and %d)"
                             % (len(column_defaults), len(select)))
        column_names = [column_names[i] for i in select]
    if label_name is not None and label_name not in column_names:
        raise ValueError("make_csv_dataset: label_name %r must be one of the columns %s"
                         % (label_name, column_names))

    def records(filename):
        ds = CsvDataset(filename, column_defaults, compression_type=compression,
                        header=header, field_delim=field_delim,
                        use_quote_delim=use_quote_delim, na_value=na_value, select_cols=select)
        ds._ignore_errors = bool(ignore_errors)
        return ds

    def to_features(*columns):
        features = dict(zip(column_names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    reads = 1 if num_parallel_reads is None else num_parallel_reads
    dataset = files.interleave(records, cycle_length=reads)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(to_features)
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
