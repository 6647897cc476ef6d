"""CSV input: ``fe.data.experimental.CsvDataset`` (records of CSV files as tuples of
scalars) and ``make_csv_dataset`` (batches of feature dicts, with column names and types
read from the files), as ``tf.data.experimental`` defines them. Parsing uses Python's
``csv`` module (RFC 4180 quoting)."""
import csv
import io
import re

import numpy as np

from ..dtypes import DType, as_dtype
from ..errors import InvalidArgumentError
from . import structure as S
from .dataset import AUTOTUNE, UNKNOWN, Dataset
from .sources import compression_kind, filenames_list, matching_files, open_file

_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")
_INT = re.compile(r"^\s*[+-]?[0-9]+\s*$")
_LIMITS = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def _parse_int(text, name):
    if not _INT.match(text):
        return None
    value = int(text)
    lo, hi = _LIMITS[name]
    return value if lo <= value <= hi else None


def _parse_float(text, name):
    if "_" in text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    if np.isfinite(value) and abs(value) > np.finfo(name).max:
        return None
    return value


def _column_default(value, i):
    """(dtype name, default ndarray scalar or None for a required column)."""
    if isinstance(value, DType):
        dtype, default = value, None
    else:
        arr = np.asarray(S.to_array(value))
        dtype = as_dtype(arr.dtype)
        if arr.size == 0:
            default = None
        elif arr.size == 1 and arr.ndim <= 1:
            default = arr.reshape(())
        else:
            raise ValueError("CsvDataset: record_defaults[%d] must be a dtype, an empty "
                             "tensor (a required column) or one default value (got shape %s)"
                             % (i, list(arr.shape)))
    if dtype.name not in _CSV_TYPES:
        raise TypeError("CsvDataset: record_defaults[%d] has dtype %s (expected one of %s)"
                        % (i, dtype.name, ", ".join(_CSV_TYPES)))
    return dtype.name, default


def csv_rows(f, field_delim, use_quote_delim):
    """The records of a binary file object, as lists of str (a blank line is one empty
    field)."""
    text = io.TextIOWrapper(f, encoding="utf-8", newline="")
    reader = csv.reader(text, delimiter=field_delim,
                        quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)
    for row in reader:
        yield row or [""]


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
        if not isinstance(record_defaults, (list, tuple)) or not record_defaults:
            raise ValueError("CsvDataset: record_defaults must be a non-empty list (got %r)"
                             % (record_defaults,))
        self._columns = [_column_default(v, i) for i, v in enumerate(record_defaults)]
        if not isinstance(field_delim, str) or len(field_delim) != 1:
            raise InvalidArgumentError("CsvDataset: field_delim must be one character (got %r)"
                                       % (field_delim,))
        self._delim, self._quote = field_delim, bool(use_quote_delim)
        self._header, self._na = bool(header), na_value
        n = len(self._columns)
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("CsvDataset: give select_cols or exclude_cols, not both")
        if select_cols is not None:
            cols = [int(c) for c in np.asarray(S.to_array(select_cols)).reshape(-1)]
            if any(b <= a for a, b in zip(cols, cols[1:])) or (cols and cols[0] < 0):
                raise InvalidArgumentError("CsvDataset: select_cols must be increasing "
                                           "non-negative column indices (got %s)" % cols)
            if len(cols) != n:
                raise InvalidArgumentError("CsvDataset: select_cols and record_defaults must "
                                           "have the same length (expected %d, got %d)"
                                           % (n, len(cols)))
            self._select, self._width = cols, None
        elif exclude_cols is not None:
            excluded = {int(c) for c in np.asarray(S.to_array(exclude_cols)).reshape(-1)}
            width = n + len(excluded)
            if any(not 0 <= c < width for c in excluded):
                raise InvalidArgumentError("CsvDataset: exclude_cols must be column indices "
                                           "below %d (got %s)" % (width, sorted(excluded)))
            self._select = [c for c in range(width) if c not in excluded]
            self._width = width
        else:
            self._select, self._width = list(range(n)), n
        self._ignore_errors = False     # make_csv_dataset(ignore_errors=True) sets it

    def _records(self, path):
        with open_file(path, self._compression, "CsvDataset") as f:
            rows = csv_rows(f, self._delim, self._quote)
            try:
                if self._header:
                    next(rows, None)
                yield from enumerate(rows)
            except csv.Error as e:
                raise InvalidArgumentError("CsvDataset: %s is not valid CSV (%s)"
                                           % (path, e)) from None

    def _iter(self):
        for path in self._filenames:
            for number, row in self._records(path):
                try:
                    yield self._parse(row, number, path)
                except InvalidArgumentError:
                    if not self._ignore_errors:
                        raise

    def _parse(self, row, number, path):
        if self._width is not None and len(row) != self._width or \
                self._width is None and len(row) <= self._select[-1]:
            raise InvalidArgumentError(
                "CsvDataset: expect %d fields but have %d in record %d of %s"
                % (self._width or self._select[-1] + 1, len(row), number, path))
        out = []
        for k, ((dtype, default), col) in enumerate(zip(self._columns, self._select)):
            field = row[col]
            if field == "" or field == self._na:
                if default is None:
                    raise InvalidArgumentError(
                        "CsvDataset: field %d is required but missing in record %d of %s "
                        "(expected a value: the column has no default)" % (col, number, path))
                out.append(default)
                continue
            if dtype == "string":
                value = np.empty((), object)
                value[()] = field.encode("utf-8")
                out.append(value)
                continue
            value = (_parse_int if dtype.startswith("int") else _parse_float)(field, dtype)
            if value is None:
                raise InvalidArgumentError("CsvDataset: field %d in record %d of %s is not a "
                                           "valid %s: %r" % (col, number, path, dtype, field))
            out.append(np.asarray(value, dtype))
        return tuple(out)

    def _cardinality(self):
        return UNKNOWN

    def _element_spec(self):
        return tuple(S.TensorSpec([], dtype) for dtype, _ in self._columns)


# -- make_csv_dataset ---------------------------------------------------------------------
_INFERENCE_ORDER = ("int32", "int64", "float32", "float64", "string")


def _infer_type(text, na_value, previous):
    """The narrowest type of ``_INFERENCE_ORDER`` that parses ``text`` and is no narrower
    than ``previous`` (what the column's earlier values needed)."""
    if text in ("", na_value):
        return previous
    start = 0 if previous is None else _INFERENCE_ORDER.index(previous)
    for name in _INFERENCE_ORDER[start:]:
        if name == "string":
            return name
        parse = _parse_int if name.startswith("int") else _parse_float
        if parse(text, name) is not None:
            return name


def _file_rows(filenames, field_delim, use_quote_delim, compression):
    """(path, rows iterator) of each file, for reading headers and inferring types."""
    for path in filenames:
        with open_file(path, compression, "make_csv_dataset") as f:
            yield path, csv_rows(f, field_delim, use_quote_delim)


def _column_names(filenames, field_delim, use_quote_delim, compression):
    names = None
    for path, rows in _file_rows(filenames, field_delim, use_quote_delim, compression):
        header = next(rows, None)
        if header is None:
            raise ValueError("make_csv_dataset: %s has no header line (empty file?)" % path)
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
    for path, rows in _file_rows(filenames, field_delim, use_quote_delim, compression):
        if header:
            next(rows, None)
        for row in rows:
            if limit is not None and seen >= limit:
                break
            if len(row) != num_cols:
                raise ValueError("make_csv_dataset: problem inferring types: a row of %s has "
                                 "%d fields (expected %d)" % (path, len(row), num_cols))
            for j, col in enumerate(select):
                types[j] = _infer_type(row[col], na_value, types[j])
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
