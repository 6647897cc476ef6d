"""Reading and converting the values composite tensors are made of.

``as_tensor`` takes what users pass (strings included) as a tensor; ``np_value`` reads a
tensor's array for NumPy-level work on row partitions and sparse indices (telling an
``fe.function`` trace that its value escapes). Ragged, sparse and string code all build
on these, which is why they sit below all three.
"""
import numpy as np

from ... import _core
from ...errors import InvalidArgumentError
from ...ops.string_values import bytes_array, is_string_value



def _np(t, what="the row partition of a ragged tensor"):
    """The values of ``t`` for NumPy-level work (a row partition, sparse indices). Inside
    ``fe.function``, reading values computed from the function's inputs makes it run
    eagerly (with a warning): a replay of the graph could not recompute what NumPy did."""
    tracer = _core.get_tracer()
    if tracer is not None:
        tracer.escape(t, what)
    return t._value


def _encode(v, opname):
    """One string argument (a separator, a pattern) as bytes."""
    arr = _core.string_array(v, opname)
    if arr.ndim:
        raise InvalidArgumentError("%s: expected a string (str or bytes), got %s"
                                   % (opname, type(v).__name__))
    return arr[()]


def _object_array(r):
    # indexing an object array by an int gives the element itself, not a 0-d array
    if isinstance(r, np.ndarray):
        return r
    out = np.empty((), dtype=object)
    out[()] = r
    return out


def _as_tensor(value, opname):
    if isinstance(value, _core.Tensor):
        return value
    if isinstance(value, _core.VariableBase):
        return value._read()
    if is_string_value(value):
        return _core.wrap(bytes_array(value, opname))
    return _core.convert_to_tensor(value)


def _string_input(value, opname, argname="input"):
    t = _as_tensor(value, opname)
    if t._value.dtype.kind != "O":
        raise InvalidArgumentError("%s: %s must be a string tensor (expected dtype string, got "
                                   "%s)" % (opname, argname, t.dtype.name))
    return t
