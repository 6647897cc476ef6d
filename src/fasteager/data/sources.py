"""Datasets that read elements from outside: ``Dataset.from_generator`` (a Python
generator, checked against a declared signature: ``output_signature``, or
``output_types`` with ``output_shapes``), ``TextLineDataset`` (lines of text files) and
``TFRecordDataset`` (the records of TFRecord files)."""
import io
import os
import zlib

import numpy as np

from .. import _core
from .._src.io.gfile import filenames_list
from .._src.io.gfile import glob_files as matching_files
from .._src.io.tfrecord import read_records
from ..dtypes import as_dtype
from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from .._src.composite.extension_type import ExtensionTypeSpec
from ..ops.string_values import bytes_array
from . import structure as S
from .dataset import UNKNOWN, Dataset, register


def _zip_structure(template, other, what):
    """Pair each leaf of ``template`` with the matching part of ``other``."""
    if isinstance(template, dict):
        return {k: _zip_structure(v, other[k], what) for k, v in template.items()}
    if isinstance(template, tuple):
        if not isinstance(other, (tuple, list)) or len(other) != len(template):
            raise TypeError("from_generator: %s does not match output_types (expected %d "
                            "components, got %r)" % (what, len(template), other))
        return tuple(_zip_structure(t, o, what) for t, o in zip(template, other))
    return S.TensorSpec(other, template)


@register
class FromGenerator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("from_generator: generator must be callable (got %s)"
                            % type(generator).__name__)
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("from_generator: give output_signature or output_types/"
                                "output_shapes, not both")
            spec = S.map_structure(lambda s: s if isinstance(s, ExtensionTypeSpec) else
                                   S.TensorSpec(getattr(s, "shape", None), s.dtype),
                                   output_signature)
        elif output_types is not None:
            types = output_types
            if output_shapes is None:
                spec = S.map_structure(lambda t: S.TensorSpec(None, t), types)
            else:
                spec = _zip_structure(S.map_structure(as_dtype, types), output_shapes,
                                      "output_shapes")
        else:
            raise TypeError("from_generator: the element structure must be declared (expected "
                            "output_signature=..., got neither it nor output_types)")
        self._generator = generator
        self._args = tuple(args) if args is not None else ()
        self._spec = spec
        self._parse = output_signature is not None

    def _iter(self):
        spec = self._spec
        args = [np.asarray(S.to_array(a)) for a in self._args]
        for value in self._generator(*args):
            yield self._convert(value, spec)

    def _convert(self, value, spec):
        if isinstance(spec, dict):
            if not isinstance(value, dict):
                raise TypeError("from_generator: the generator yielded %s (expected a dict "
                                "with keys %s)" % (type(value).__name__, sorted(spec)))
            return {k: self._convert(value[k], s) for k, s in spec.items()}
        if isinstance(spec, tuple):
            if not isinstance(value, (tuple, list)) or len(value) != len(spec):
                raise TypeError("from_generator: the generator yielded %r (expected a tuple "
                                "of %d components)" % (value, len(spec)))
            items = [self._convert(v, s) for v, s in zip(value, spec)]
            return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)
        if isinstance(spec, ExtensionTypeSpec):
            if not spec.is_compatible_with(value):
                raise TypeError("from_generator: the generator yielded %r (expected a value "
                                "of %r)" % (value, spec))
            return S.to_arrays(value)
        want = spec.dtype._np
        if want == object:
            # a string output takes str, bytes, NumPy string arrays and lists of them,
            # as bytes (str is UTF-8 encoded), as TensorFlow does; anything else is refused
            arr = _core.string_array(value.numpy() if hasattr(value, "numpy") else value,
                                     "from_generator")
        else:
            arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        if arr.dtype != want:
            strings = arr.dtype.kind in "OUS"
            if arr.dtype.kind == "f" and want.kind in "iub" or strings and not self._parse:
                raise InvalidArgumentError(
                    "from_generator: yielded value has dtype %s (expected %s)"
                    % ("string" if strings else S.dtype_name(arr.dtype), spec.dtype.name))
            try:
                # with output_signature TensorFlow converts through NumPy, so "3" is an int
                arr = arr.astype(want)
            except (TypeError, ValueError):
                raise InvalidArgumentError(
                    "from_generator: cannot convert the yielded value %r to %s" % (
                        value, spec.dtype.name)) from None
        if spec.shape is not None and not spec.shape.is_compatible_with(arr.shape):
            raise InvalidArgumentError(
                "from_generator: yielded value has an incompatible shape (expected %s, got "
                "%s)" % (list(spec.shape), list(arr.shape)))
        return arr

    def _cardinality(self):
        return UNKNOWN

    def _element_spec(self):
        return self._spec


def compression_kind(compression_type, opname):
    kind = "" if compression_type is None else compression_type
    if kind not in ("", "GZIP", "ZLIB"):
        raise InvalidArgumentError("%s: compression_type must be None, '', 'GZIP' or 'ZLIB' "
                                   "(got %r)" % (opname, compression_type))
    return kind


# how much compressed input one step of _Inflater reads: the first record comes out after
# O(record + this) bytes, and no step holds more than this beside what the reader asked for
_CHUNK = 1 << 16


class _Inflater(io.RawIOBase):
    """The decompressed bytes of a ZLIB or GZIP file, inflated as they are read (never the
    whole file at once: a small file may inflate to gigabytes).

    As TensorFlow's ZlibInputStream: a stream cut short ends where its data ends (the
    record or line reader then sees a truncated record); after a ZLIB stream, anything
    else in the file is ignored; GZIP members follow each other (``cat a.gz b.gz``), and
    bytes after a member that are not another member are an error."""

    def __init__(self, raw, compression):
        self._raw, self._gzip = raw, compression == "GZIP"
        self._inflate = self._new()
        self._pending = b""             # compressed bytes read but not yet inflated
        self._done = False

    def _new(self):
        return zlib.decompressobj(31 if self._gzip else 15)

    def readable(self):
        return True

    def readinto(self, buf):
        want = len(buf)
        while not self._done and want:
            ended = False
            if not self._pending:
                self._pending = self._raw.read(_CHUNK)
                ended = not self._pending      # (still drain what zlib holds back)
            try:
                out = self._inflate.decompress(self._pending, want)
            except zlib.error as e:
                raise DataLossError("not %s data (inflate failed: %s)"
                                    % ("GZIP" if self._gzip else "ZLIB", e)) from None
            if self._inflate.eof:
                # (unused_data holds all input after the stream; unconsumed_tail may
                # repeat part of it)
                if self._gzip:        # another member may follow; read() finds out
                    self._pending = self._inflate.unused_data
                    self._inflate = self._new()
                else:
                    self._done = True
            else:
                self._pending = self._inflate.unconsumed_tail
                if ended and not out:           # cut short: the data ends here
                    self._done = True
            if out:
                buf[:len(out)] = out
                return len(out)
        return 0

    def close(self):
        self._raw.close()
        super().close()


def open_file(path, compression, opname):
    """A binary file object of ``path``'s bytes, decompressed as they are read."""
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError("%s: %s not found" % (opname, path)) from None
    except IsADirectoryError:
        raise InvalidArgumentError("%s: %s is a directory (expected a file)"
                                   % (opname, path)) from None
    if compression in ("GZIP", "ZLIB"):
        return io.BufferedReader(_Inflater(raw, compression), _CHUNK)
    return raw


class TextLineDataset(Dataset):
    """The lines of one or more text files, as scalar ``fe.string`` tensors without their
    ``\\n`` and with every ``\\r`` dropped (as TensorFlow's ReadLine), file after file
    (``tf.data.TextLineDataset``).

    ``compression_type``: None or ``''`` (plain), ``'GZIP'`` or ``'ZLIB'``. Files are read
    lazily, while iterating; a missing file raises ``NotFoundError`` then.

    >>> for line in fe.data.TextLineDataset("notes.txt").take(2):
    ...     print(line.numpy())
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        self._filenames = filenames_list(filenames, "TextLineDataset")
        self._compression = compression_kind(compression_type, "TextLineDataset")

    def _open(self, path):
        return open_file(path, self._compression, type(self).__name__)

    def _iter(self):
        for path in self._filenames:
            with self._open(path) as f:
                try:
                    for line in f:
                        # as TensorFlow's ReadLine: lines end at "\n", and every "\r"
                        # is dropped (so "\r\n" ends a line and a lone "\r" vanishes)
                        line = line.rstrip(b"\n").replace(b"\r", b"")
                        value = np.empty((), dtype=object)
                        value[()] = line
                        yield value
                except (OSError, DataLossError) as e:
                    raise DataLossError("TextLineDataset: cannot read %s as %s (%s)"
                                        % (path, self._compression or "text", e)) from None

    def _cardinality(self):
        return UNKNOWN

    def _element_spec(self):
        return S.TensorSpec([], "string")


class TFRecordDataset(TextLineDataset):
    """The records of one or more TFRecord files (``tf.data.TFRecordDataset``) as scalar
    ``fe.string`` tensors, file after file; both CRCs of every record are checked.
    ``compression_type`` as for ``TextLineDataset``. A truncated or corrupted file raises
    ``DataLossError`` naming it. ``fe.io.TFRecordWriter`` writes such files."""

    def _iter(self):
        for path in self._filenames:
            with self._open(path) as f:
                try:
                    for record in read_records(f):
                        value = np.empty((), dtype=object)
                        value[()] = record
                        yield value
                except DataLossError as e:
                    raise DataLossError("TFRecordDataset: %s: %s" % (path, e)) from None
                except OSError as e:
                    raise DataLossError("TFRecordDataset: cannot read %s as %s (%s)"
                                        % (path, self._compression or "TFRecords", e)) from None


@register
def list_files(file_pattern, shuffle, seed):
    names = matching_files(file_pattern, "Dataset.list_files")
    if not names:
        raise InvalidArgumentError("Dataset.list_files: no files matched pattern: %s"
                                   % ", ".join(filenames_list(file_pattern,
                                                              "Dataset.list_files")))
    dataset = Dataset.from_tensor_slices(bytes_array([os.fsencode(n) for n in names]))
    if shuffle is None or shuffle:
        dataset = dataset.shuffle(len(names), seed=seed)
    return dataset
