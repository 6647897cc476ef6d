"""Reading and writing safetensors files with NumPy only (the checkpoint file format).

Layout (https://github.com/huggingface/safetensors, "Format"): an unsigned 64-bit
little-endian header size N, N bytes of UTF-8 JSON, then the data area. The JSON maps
each tensor name to ``{"dtype", "shape", "data_offsets": [begin, end]}`` (offsets
relative to the data area) plus an optional ``"__metadata__"`` of string -> string.
Data is little-endian and C-ordered; the tensors cover the data area exactly.

Writing: tensors are laid out by decreasing item size and then name, and the header is
padded with spaces to a multiple of 8, so every tensor starts aligned to its item size;
the file is replaced atomically (``fasteager._atomic``).

Reading validates everything before returning anything; each problem raises
``DataLossError("safetensors: <file>: <entry>: <problem> (expected X, got Y)")`` (a
``ValueError``); a missing file raises ``NotFoundError`` and other failures to read it
the typed errors of :func:`os_error`. No shape the header declares makes the reader
allocate more than the file holds.
``load_file`` reads the file with one ``readinto`` into a private uninitialized buffer and
returns **writable views** into it (no per-tensor copy); a tensor is copied only when
it is misaligned in the file or the machine is big-endian. Keeping any one array alive
keeps that whole buffer alive.
"""

import json
import math
import os

import numpy as np

from .._src.io import atomic as _atomic
from ..errors import DataLossError, NotFoundError, PermissionDeniedError

__all__ = ["DTYPES", "load_file", "os_error", "read_header", "save_file"]

# safetensors dtype name -> little-endian NumPy dtype. BF16 and the F8 types have no
# NumPy equivalent and are refused with a clear error.
DTYPES = {
    "BOOL": np.dtype("|b1"),
    "U8": np.dtype("|u1"), "I8": np.dtype("|i1"),
    "U16": np.dtype("<u2"), "I16": np.dtype("<i2"), "F16": np.dtype("<f2"),
    "U32": np.dtype("<u4"), "I32": np.dtype("<i4"), "F32": np.dtype("<f4"),
    "U64": np.dtype("<u8"), "I64": np.dtype("<i8"), "F64": np.dtype("<f8"),
}
_NAMES = {dt.newbyteorder("="): name for name, dt in DTYPES.items()}
_UNSUPPORTED = {"BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2",
                "C64", "C128"}
_METADATA_KEY = "__metadata__"
_ENTRY_KEYS = {"dtype", "shape", "data_offsets"}
_MAX_HEADER = 100_000_000  # the reference implementation's limit
_MAX_DIMS = 64              # NumPy's limit on ndim


def _fail(path, entry, problem, expected=None, got=None):
    detail = f" (expected {expected}, got {got})" if expected is not None else ""
    raise DataLossError(f"safetensors: {path}: {entry}: {problem}{detail}")


def os_error(op, path, exc):
    """The typed error for the OSError ``exc`` met while reading ``path`` (to raise).

    >>> raise os_error("load_weights", path, exc) from None
    """
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        return NotFoundError(f"{op}: {path}: no such file (expected an existing file)")
    if isinstance(exc, PermissionError):
        return PermissionDeniedError(f"{op}: {path}: permission denied")
    if isinstance(exc, IsADirectoryError):
        return DataLossError(f"{op}: {path}: is a directory (expected a file)")
    return DataLossError(f"{op}: {path}: cannot read the file ({exc.strerror or exc})")


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def _prepare(tensors):
    """Validate the inputs and return [(name, dtype_name, shape, contiguous LE array)]."""
    if not isinstance(tensors, dict):
        raise TypeError(f"safetensors.save_file: tensors must be a dict "
                        f"(expected dict[str, array], got {type(tensors).__name__})")
    items = []
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"safetensors.save_file: tensor names must be str "
                            f"(expected str, got {type(name).__name__} {name!r})")
        if name == _METADATA_KEY:
            raise ValueError(f"safetensors.save_file: {name!r} is reserved for metadata "
                             f"(expected another tensor name, got {name!r})")
        arr = np.asarray(value)
        native = arr.dtype.newbyteorder("=") if arr.dtype.byteorder in "<>" else arr.dtype
        dtype_name = _NAMES.get(native)
        if dtype_name is None:
            raise TypeError(f"safetensors.save_file: {name}: unsupported dtype (expected one "
                            f"of {', '.join(DTYPES)}, got {arr.dtype})")
        # np.array keeps 0-d arrays 0-d (np.ascontiguousarray would make them 1-d).
        data = np.array(arr, dtype=DTYPES[dtype_name], order="C", copy=None)
        items.append((name, dtype_name, tuple(int(d) for d in arr.shape), data))
    # Larger items first so that each tensor is aligned to its item size in the file.
    items.sort(key=lambda it: (-it[3].itemsize, it[0]))
    return items


def _header_bytes(items, metadata):
    header = {}
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError(f"safetensors.save_file: metadata must map str to str "
                            f"(expected dict[str, str], got {metadata!r:.200})")
        header[_METADATA_KEY] = dict(metadata)
    offset = 0
    for name, dtype_name, shape, data in items:
        header[name] = {"dtype": dtype_name, "shape": list(shape),
                        "data_offsets": [offset, offset + data.nbytes]}
        offset += data.nbytes
    raw = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    # Spaces, not NULs: the padding must stay valid JSON whitespace.
    return raw + b" " * (-len(raw) % 8)


def save_file(tensors, path, metadata=None):
    """Write ``tensors`` (a dict of name -> array-like) to ``path`` atomically.

    ``metadata`` is an optional dict of str -> str stored as ``__metadata__``. Accepted
    dtypes: bool, uint8/16/32/64, int8/16/32/64, float16/32/64.

    >>> save_file({"w": np.ones((2, 3), np.float32)}, "model.safetensors", {"step": "10"})
    """
    items = _prepare(tensors)
    header = _header_bytes(items, metadata)

    def chunks():
        yield len(header).to_bytes(8, "little") + header
        for _, _, _, data in items:
            if data.nbytes:
                yield data.reshape(-1).view(np.uint8)

    _atomic.atomic_write(path, chunks())


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def _is_uint(x):
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _no_duplicates(path):
    def hook(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                _fail(path, key, "duplicate key in header")
            seen[key] = value
        return seen
    return hook


def _parse_header(path, header, data_size):
    """Validate the JSON header against a data area of ``data_size`` bytes.

    Returns (entries, metadata): entries maps name -> (dtype, shape, begin, end).
    """
    try:
        text = header.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail(path, "header", f"header is not valid UTF-8 ({e.reason} at byte {e.start})")
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates(path))
    except DataLossError:
        raise
    except json.JSONDecodeError as e:
        _fail(path, "header", f"invalid JSON ({e.msg} at line {e.lineno} column {e.colno})")
    except (ValueError, RecursionError) as e:
        # nesting deeper than the parser's stack, an integer of more than 4300 digits
        _fail(path, "header", f"invalid JSON ({type(e).__name__}: {str(e):.100})")
    if not isinstance(obj, dict):
        _fail(path, "header", "header must be a JSON object", "object", type(obj).__name__)

    metadata = obj.pop(_METADATA_KEY, None)
    if metadata is None:
        metadata = {}
    elif not isinstance(metadata, dict):
        _fail(path, _METADATA_KEY, "metadata must be an object", "object of strings",
              type(metadata).__name__)
    for key, value in metadata.items():
        if not isinstance(value, str):
            _fail(path, f"{_METADATA_KEY}.{key}", "metadata values must be strings",
                  "string", f"{type(value).__name__} {value!r:.50}")

    entries = {}
    for name, info in obj.items():
        if not isinstance(info, dict):
            _fail(path, name, "entry must be an object", "object", type(info).__name__)
        if set(info) != _ENTRY_KEYS:
            _fail(path, name, "wrong keys", sorted(_ENTRY_KEYS), sorted(info))
        dtype_name, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if not isinstance(dtype_name, str) or dtype_name not in DTYPES:
            problem = ("dtype not supported by NumPy" if dtype_name in _UNSUPPORTED
                       else "unknown dtype") if isinstance(dtype_name, str) else "bad dtype"
            _fail(path, name, problem, f"one of {', '.join(DTYPES)}", f"{dtype_name!r:.100}")
        if not isinstance(shape, list) or not all(_is_uint(d) for d in shape):
            _fail(path, name, "bad shape", "list of non-negative integers", f"{shape!r:.100}")
        # An empty tensor may declare any dims: keep them within what NumPy can represent
        # (the data size check below bounds the others by the file size).
        if len(shape) > _MAX_DIMS or math.prod(d for d in shape if d) >= 2 ** 62:
            _fail(path, name, "shape too large for an array",
                  f"<= {_MAX_DIMS} dims of < 2**62 elements", f"{shape!r:.100}")
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(_is_uint(o) for o in offsets) or offsets[0] > offsets[1]):
            _fail(path, name, "bad data_offsets", "[begin, end] with 0 <= begin <= end",
                  f"{offsets!r:.100}")
        dtype = DTYPES[dtype_name]
        nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        begin, end = offsets
        if end - begin != nbytes:
            _fail(path, name, f"size of dtype {dtype_name} x shape {shape} does not match "
                  f"data_offsets {offsets}", f"{nbytes} bytes", f"{end - begin} bytes")
        entries[name] = (dtype, tuple(shape), begin, end)

    # The tensors must tile [0, data_size) exactly: sorted by offsets, each must start
    # where the previous one ended.
    position, previous = 0, None
    for name, (_, _, begin, end) in sorted(entries.items(), key=lambda e: e[1][2:]):
        if begin != position:
            where = f"after {previous!r}" if previous is not None else "at start of data"
            problem = "overlaps previous tensor" if begin < position else "gap in data area"
            _fail(path, name, f"{problem} ({where})", f"begin {position}", f"begin {begin}")
        position, previous = end, name
    if position > data_size:
        _fail(path, previous or "data", "data area truncated (file too short)",
              f"{position} bytes of data", f"{data_size}")
    if position < data_size:
        _fail(path, "data", "trailing bytes after the last tensor",
              f"{position} bytes of data", f"{data_size}")
    return entries, metadata


def _header_size(path, prefix, size):
    """Validate the 8-byte header size against the file size and return it."""
    if size < 8:
        _fail(path, "header", "file truncated before header size", ">= 8 bytes",
              f"{size} bytes")
    n = int.from_bytes(prefix[:8], "little")
    if n > size - 8:
        _fail(path, "header", "header size larger than file", f"<= {size - 8}", n)
    if n > _MAX_HEADER:
        _fail(path, "header", "header too large", f"<= {_MAX_HEADER}", n)
    return n


def read_header(path):
    """Return (entries, metadata) of a safetensors file without reading tensor data.

    ``entries`` maps each name to ``{"dtype", "shape", "data_offsets"}``; the whole
    header and its offsets are validated against the file size.

    >>> entries, meta = read_header("model.safetensors")
    >>> entries["w"]["shape"]
    [2, 3]
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            n = _header_size(path, f.read(8), size)
            header = f.read(n)
    except OSError as e:
        raise os_error("safetensors", path, e) from None
    if len(header) < n:
        _fail(path, "header", "file shrank while being read", f"{n} header bytes", len(header))
    entries, metadata = _parse_header(path, header, size - 8 - n)
    names = {v: k for k, v in DTYPES.items()}
    return ({name: {"dtype": names[dt], "shape": list(shape), "data_offsets": [b, e]}
             for name, (dt, shape, b, e) in entries.items()}, metadata)


def load_file(path, mmap=False):
    """Read a safetensors file; return (dict of name -> np.ndarray, metadata dict).

    Arrays are native-endian and C-ordered views into one buffer holding the file (see the
    module docstring): writable copies of its bytes by default, or, with ``mmap=True``,
    read-only views of the file mapped into memory (nothing is read until used; but
    reading an array after the file was truncated kills the process with SIGBUS, so
    checkpoints never use it). Raises NotFoundError (a FileNotFoundError) if ``path``
    does not exist and DataLossError (a ValueError) naming the file and entry if it is
    malformed.

    >>> tensors, meta = load_file("model.safetensors")
    """
    path = os.fspath(path)
    try:
        if mmap:
            size = os.stat(path).st_size
            if size < 8:
                _header_size(path, b"", size)          # raises: truncated before the header size
            buf = np.memmap(path, dtype=np.uint8, mode="r")
            return _entries(path, buf, memoryview(buf), size)
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            # np.empty, not bytearray(size): no zero-fill pass over the whole file
            buf = np.empty(size, dtype=np.uint8)
            view = memoryview(buf)
            got = 0
            while got < size:  # readinto may return short counts (pipes, network FSs)
                n = f.readinto(view[got:])
                if not n:
                    break
                got += n
    except OSError as e:
        raise os_error("safetensors", path, e) from None
    if got < size:
        _fail(path, "file", "file shrank while being read", f"{size} bytes", got)
    return _entries(path, buf, view, size)


def _entries(path, buf, view, size):
    """Parse the header in ``buf`` (the whole file) and make one view per tensor."""
    n = _header_size(path, bytes(view[:8]), size)
    entries, metadata = _parse_header(path, bytes(view[8:8 + n]), size - 8 - n)

    start = 8 + n
    out = {}
    for name, (dtype, shape, begin, end) in entries.items():
        if begin == end:
            out[name] = np.zeros(shape, dtype=dtype.newbyteorder("="))
            continue
        arr = np.frombuffer(buf, dtype=dtype, count=(end - begin) // dtype.itemsize,
                            offset=start + begin).reshape(shape)
        if dtype.kind == "b" and np.any(arr.view(np.uint8) > 1):
            _fail(path, name, "BOOL tensor holds a byte other than 0 or 1", "0 or 1",
                  int(arr.view(np.uint8).max()))
        if not dtype.isnative:
            arr = arr.astype(dtype.newbyteorder("="))
        elif not arr.flags.aligned:
            arr = arr.copy()
        out[name] = arr
    return out, metadata
