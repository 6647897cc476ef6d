"""Argument checks shared by the summary ops and the file writers.

Every summary call validates all of its arguments before it queues anything or opens a
file, so a rejected call leaves the event file exactly as it was (TensorBoard still reads
it, and it holds only the events of accepted calls). As in TF, a value of the wrong kind
raises TypeError, and a value of the right kind outside its range raises
InvalidArgumentError (a ValueError); messages read ``"<op>: <problem> (expected X, got Y)"``.
"""

import numpy as np

from ..errors import InvalidArgumentError

__all__ = ["as_array", "integer", "string", "utf8"]

INT32_MAX = (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _short(value):
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def utf8(op, arg, value):
    """``value`` (str or bytes-like) as UTF-8 bytes.

    Protobuf ``string`` fields (tags, descriptions, plugin names) must hold valid UTF-8:
    TensorBoard's reader rejects the whole event file otherwise.
    """
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError as e:   # lone surrogates such as "\ud800"
            raise InvalidArgumentError(f"{op}: {arg} is not encodable as UTF-8 (expected a "
                                       f"valid Unicode string, got {_short(value)}: {e.reason})"
                                       ) from None
    if isinstance(value, (bytes, bytearray, memoryview, np.bytes_)):
        raw = bytes(value)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InvalidArgumentError(f"{op}: {arg} is not valid UTF-8 (expected UTF-8 bytes, "
                                       f"got {_short(raw)}: {e.reason} at byte {e.start})"
                                       ) from None
        return raw
    raise TypeError(f"{op}: {arg} must be a string (expected str or UTF-8 bytes, "
                    f"got {type(value).__name__} {_short(value)})")


def string(op, arg, value, default=None):
    """A string argument as UTF-8 bytes; None (and "" when ``default`` is given) -> default.

    Summary ops name their series as TF's ``summary_scope`` does: an empty or None name
    falls back to the op's default name ("scalar_summary", ...).
    """
    if value is None or (default is not None and isinstance(value, (str, bytes)) and not value):
        if default is None:
            raise TypeError(f"{op}: {arg} must be a string (expected str or UTF-8 bytes, "
                            f"got None)")
        return default.encode("utf-8")
    return utf8(op, arg, value)


def integer(op, arg, value, lo, hi):
    """An integer argument (Python int, NumPy integer or 0-d integer tensor) in [lo, hi].

    Floats are refused even when whole, as TF's conversion to an integer tensor does, and
    so are booleans; an int outside the range is refused rather than wrapped.
    """
    if type(value) is int:
        v = value
    elif isinstance(value, int) and not isinstance(value, bool):
        v = int(value)
    else:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{op}: {arg} must be an integer (expected int, got bool {value})")
        arr = as_array(op, arg, value)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{op}: {arg} must be an integer (expected int, got "
                            f"{arr.dtype} {_short(value)})")
        if arr.ndim != 0:
            raise InvalidArgumentError(f"{op}: {arg} must be a scalar (expected shape (), "
                                       f"got {arr.shape})")
        v = int(arr)
    if not lo <= v <= hi:
        raise InvalidArgumentError(f"{op}: {arg} is out of range (expected {lo} <= {arg} <= "
                                   f"{hi}, got {v})")
    return v


def as_array(op, arg, value):
    """``np.asarray(value)`` with NumPy's conversion errors turned into typed ones."""
    try:
        return np.asarray(value)
    except (TypeError, OverflowError) as e:
        raise TypeError(f"{op}: {arg} must be array-like (expected a number, array or tensor, "
                        f"got {type(value).__name__}: {e})") from None
    except ValueError as e:   # ragged nested sequences
        raise InvalidArgumentError(f"{op}: {arg} is not a rectangular array (expected "
                                   f"equal-length nested sequences, got {type(value).__name__}"
                                   f": {e})") from None
