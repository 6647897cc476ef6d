"""``fe.io.TFRecordWriter`` and ``TFRecordOptions``: files of TFRecords, as TensorFlow
writes them (``uint64 length | masked CRC-32C of it | data | masked CRC-32C of data``,
the framing of ``fasteager.summary._events``), plain, GZIP or ZLIB compressed.
``fe.data.TFRecordDataset`` reads them back."""
import gzip
import zlib

from .errors import InvalidArgumentError

__all__ = ["TFRecordOptions", "TFRecordWriter"]

_KINDS = ("", "GZIP", "ZLIB")


class TFRecordOptions:
    """How a TFRecord file is compressed: ``compression_type`` None/'' , 'GZIP' or 'ZLIB'
    (``compression_level`` 0-9 for the compressed kinds)."""

    def __init__(self, compression_type=None, compression_level=None, **kwargs):
        kind = "" if compression_type is None else compression_type
        if kind not in _KINDS:
            raise InvalidArgumentError("TFRecordOptions: compression_type must be None, '', "
                                       "'GZIP' or 'ZLIB' (got %r)" % (compression_type,))
        self.compression_type = kind
        self.compression_level = -1 if compression_level is None else int(compression_level)


class TFRecordWriter:
    """Write records (bytes, e.g. ``example.SerializeToString()``) to a TFRecord file.

    >>> with fe.io.TFRecordWriter("data.tfrecord") as writer:
    ...     writer.write(example.SerializeToString())
    """

    def __init__(self, path, options=None):
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(options)
        self._options = options
        self._zlib = None
        if options.compression_type == "GZIP":
            level = 9 if options.compression_level < 0 else options.compression_level
            self._file = gzip.open(path, "wb", compresslevel=level)
        else:
            self._file = open(path, "wb")
            if options.compression_type == "ZLIB":
                self._zlib = zlib.compressobj(options.compression_level)

    def write(self, record):
        from .summary._events import frame_record
        if self._file is None:
            raise InvalidArgumentError("TFRecordWriter.write: the writer is closed")
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif hasattr(record, "numpy"):                # a scalar string tensor
            record = record.numpy()
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError("TFRecordWriter.write: record must be bytes (got %s)"
                            % type(record).__name__)
        data = frame_record(bytes(record))
        self._file.write(self._zlib.compress(data) if self._zlib is not None else data)

    def flush(self):
        if self._file is not None:
            if self._zlib is not None:
                self._file.write(self._zlib.flush(zlib.Z_SYNC_FLUSH))
            self._file.flush()

    def close(self):
        if self._file is None:
            return
        if self._zlib is not None:
            self._file.write(self._zlib.flush())
        self._file.close()
        self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
