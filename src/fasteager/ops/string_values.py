"""String values as tensors: what ``fe.constant`` does with Python/NumPy strings.

The op table's ``constant`` needs these, and so does every string-taking function above
it (``fe.strings``, ragged and sparse constructors, the file codecs): they live here, at
the bottom, so that nothing has to import upward to convert a string.
"""
import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .registry import as_shape

__all__ = ["bytes_array", "is_string_value", "string_constant"]


def is_string_value(value):
    """True for a Python/NumPy string value or a (nested) list of them, a string array, or
    a string tensor: what ``fe.constant`` turns into an ``fe.string`` tensor."""
    if isinstance(value, _core.Tensor):
        return value._value.dtype.kind == "O"
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "OSU"
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return True
    if isinstance(value, (list, tuple)):
        while isinstance(value, (list, tuple)) and value:
            value = value[0]
        return isinstance(value, (str, bytes, np.str_, np.bytes_))
    return False


def bytes_array(value, opname="constant"):
    """``value`` (str, bytes, nested lists of them, a string array or tensor) as a NumPy
    object array of bytes."""
    if isinstance(value, _core.Tensor):
        arr = value._value
        if arr.dtype.kind != "O":
            raise InvalidArgumentError("%s: expected a string tensor (got dtype %s)"
                                       % (opname, value.dtype.name))
        return arr
    if isinstance(value, _core.VariableBase):
        return bytes_array(value._read(), opname)
    return _core.string_array(value, opname)


def string_constant(value, shape=None):
    """A string tensor holding ``value`` (what ``fe.constant`` does for strings)."""
    arr = bytes_array(value)
    if shape is not None:
        dims = as_shape("constant", shape)
        n = int(np.prod(dims, dtype=np.int64))
        if arr.size == 1:
            arr = np.full(dims, arr.reshape(-1)[0], dtype=object)
        elif arr.size == n:
            arr = arr.reshape(dims)
        else:
            raise InvalidArgumentError("constant: value of %d elements does not fit shape %s"
                                       % (arr.size, list(dims)))
    return _core.wrap(arr)    # a new array (string_array copies), or a tensor's (immutable)
