"""TFRecord framing and ``fe.io.TFRecordWriter`` / ``TFRecordOptions``: files of
TFRecords, as TensorFlow writes them (``uint64 length | masked CRC-32C of it | data |
masked CRC-32C of data``, all little-endian), plain, GZIP or ZLIB compressed. The one
framing of the package: TensorBoard event files (``fasteager.summary``) use it too.
``read_records`` reads them back (``fe.data.TFRecordDataset`` and the summary tests use
it)."""
import gzip
import struct
import zlib

from ...errors import DataLossError, InvalidArgumentError

try:
    from ._crc32c import crc32c, masked_crc32c
except ImportError:  # extension not built: correct but ~100x slower pure-Python path
    crc32c = masked_crc32c = None

__all__ = ["TFRecordOptions", "TFRecordWriter", "crc32c", "frame_record", "masked_crc32c",
           "read_records"]


# ---- CRC-32C fallback (only used when the Cython extension is missing) ----------------

def _py_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_PY_TABLE = None


def py_crc32c(data, crc=0):
    """Pure-Python CRC-32C (bytewise table); reference for the Cython version."""
    global _PY_TABLE
    if _PY_TABLE is None:
        _PY_TABLE = _py_table()
    table = _PY_TABLE
    crc ^= 0xFFFFFFFF
    for b in memoryview(data).cast("B"):
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


def py_masked_crc32c(data):
    c = py_crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


if crc32c is None:
    crc32c, masked_crc32c = py_crc32c, py_masked_crc32c


def frame_record(data):
    """Wrap ``data`` (bytes) in a TFRecord frame: length, its CRC, data, data's CRC."""
    header = struct.pack("<Q", len(data))
    return b"".join((header, struct.pack("<I", masked_crc32c(header)), data,
                     struct.pack("<I", masked_crc32c(data))))


# a record's data is read in pieces of at most this many bytes, so that a length field
# claiming 2**40 (or 2**64 - 1) bytes costs what the file holds, not what it claims
_PIECE = 1 << 20

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


def _read_exactly(fileobj, n):
    """Up to ``n`` bytes of ``fileobj`` (fewer only at its end), read piece by piece."""
    if n <= _PIECE:
        return fileobj.read(n)
    out = bytearray()
    while len(out) < n:
        piece = fileobj.read(min(_PIECE, n - len(out)))
        if not piece:
            break
        out += piece
    return bytes(out)


def read_records(fileobj):
    """Yield the data of each TFRecord in a binary file object, checking both CRCs.

    A truncated record, a CRC mismatch or a length past the end of the file raises
    ``DataLossError`` with the offset of the record (in the decompressed stream)."""
    offset = 0
    while True:
        header = fileobj.read(12)
        if not header:
            return
        if len(header) < 12:
            raise DataLossError("tfrecord: truncated length header at offset %d (expected "
                                "12 bytes, got %d)" % (offset, len(header)))
        length, length_crc = struct.unpack("<QI", header)
        if masked_crc32c(header[:8]) != length_crc:
            raise DataLossError("tfrecord: length CRC mismatch (corrupted record at offset "
                                "%d)" % offset)
        body = _read_exactly(fileobj, length + 4)
        if len(body) < length + 4:
            raise DataLossError("tfrecord: truncated record at offset %d (its length field "
                                "says %d data bytes, the file has %d)"
                                % (offset, length, max(len(body) - 4, 0)))
        data = body[:length]
        if masked_crc32c(data) != struct.unpack_from("<I", body, length)[0]:
            raise DataLossError("tfrecord: data CRC mismatch (corrupted record at offset %d)"
                                % offset)
        offset += 12 + length + 4
        yield data
