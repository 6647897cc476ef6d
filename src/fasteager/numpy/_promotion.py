"""NumPy's type promotion, in front of the TF-style op table.

The op table refuses mixed dtypes (TensorFlow's rule). ``fasteager.numpy`` instead asks
NumPy which dtypes NumPy itself would compute in -- ``ufunc.resolve_dtypes`` for ufuncs,
``np.result_type`` elsewhere, with Python scalars "weak" as in NEP 50 -- casts the
operands to those dtypes with ``fe.cast`` (differentiable between float types) and then
calls the op. The answers are cached per dtype signature, so promotion costs one dict
lookup per call once warm.
"""
import functools

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError, UnimplementedError
from ..ops.array_ops import stack
from ..ops.elementwise_ops import cast

Tensor = _core.Tensor
_PY_SCALARS = (bool, int, float, complex)


def check_out(fname, out):
    """NumPy's ``out=``: only None (tensors are immutable)."""
    if out is not None:
        raise UnimplementedError("fasteager.numpy.%s: out= is not supported (tensors are "
                                 "immutable; expected out=None, got %s)"
                                 % (fname, type(out).__name__))


def tensor(x):
    """A tensor for ``x`` with NumPy's default dtypes (Python floats float64, ints int64)."""
    if type(x) is Tensor:
        return x
    if isinstance(x, (Tensor, _core.VariableBase)):
        return _core.convert_to_tensor(x)
    if isinstance(x, (np.ndarray, np.generic)):
        t = _core.convert_to_tensor(x)
        t._np_rules = True
        return t
    if isinstance(x, (list, tuple)) and _holds_tensor(x):
        # a (nested) list holding tensors is stacked, so gradients flow through it
        return stack([tensor(v) for v in x], axis=0)
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError("fasteager.numpy: cannot convert %s to an array (%s)"
                                   % (type(x).__name__, e)) from None
    if arr.dtype.kind in "OUSV":
        raise InvalidArgumentError("fasteager.numpy: cannot convert %s of %s to a numeric "
                                   "array" % (type(x).__name__, arr.dtype))
    t = _core.wrap(arr)
    t._np_rules = True
    return t


def _holds_tensor(x):
    if isinstance(x, (list, tuple)):
        return any(_holds_tensor(v) for v in x)
    return isinstance(x, (Tensor, _core.VariableBase))


def operands(values):
    """Tensors for array-likes; Python scalars stay Python (weak, as in NumPy)."""
    return [v if type(v) in _PY_SCALARS else tensor(v) for v in values]


_BOOL = np.dtype(np.bool_)


def _key(v):
    # resolve_dtypes takes int/float/complex as weak Python scalars; a Python bool is bool
    t = type(v)
    if t in _PY_SCALARS:
        return _BOOL if t is bool else t
    return v._value.dtype


@functools.lru_cache(maxsize=4096)
def _resolve(ufunc, key, dtype):
    # NumPy's dtype= fixes the output of the loop signature (np.add(a, b, dtype=f4))
    kw = {} if dtype is None else {"signature": (None,) * len(key) + (dtype,) * ufunc.nout}
    try:
        return ufunc.resolve_dtypes(key + (None,) * ufunc.nout, **kw)
    except TypeError as e:
        raise InvalidArgumentError("fasteager.numpy.%s: no loop for dtypes %s (%s)"
                                   % (ufunc.__name__, [getattr(k, "__name__", k) for k in key],
                                      e)) from None


def _to(v, dtype):
    if type(v) in _PY_SCALARS:
        return _core.convert_to_tensor(np.asarray(v, dtype=dtype))
    return cast(v, dtype) if v._value.dtype != dtype else v


def ufunc_operands(ufunc, values, dtype=None):
    """Operands cast to the dtypes of the loop NumPy's ``ufunc`` would pick."""
    if dtype is None and _same_float_tensors(values):
        return values          # one float dtype: NumPy's loop is that dtype's
    vs = operands(values)
    d = None if dtype is None else np.dtype(dtype)
    loop = _resolve(ufunc, tuple(_key(v) for v in vs), d)
    return [_to(v, t) for v, t in zip(vs, loop)]


# np.result_type treats a Python *type* as a strong dtype, but a Python *value* as weak
_WEAK = {bool: False, int: 0, float: 0.0, complex: 0j}


@functools.lru_cache(maxsize=4096)
def _result(key):
    return np.result_type(*[_WEAK.get(k, k) for k in key])


def result_dtype(values):
    """``np.result_type`` of tensors and (weak) Python scalars."""
    return _result(tuple(_key(v) for v in values))


def _same_float_tensors(values):
    """True when every value is a Tensor of one float dtype (the common, fast case)."""
    d = None
    for v in values:
        if type(v) is not Tensor:
            return False
        vd = v._value.dtype
        if d is None:
            if vd.kind != "f":
                return False
            d = vd
        elif vd != d:
            return False
    return d is not None


def promote(values, dtype=None):
    """Operands cast to one dtype: ``dtype`` if given, else ``np.result_type``."""
    if dtype is None and _same_float_tensors(values):
        return list(values)
    vs = operands(values)
    d = np.dtype(dtype) if dtype is not None else result_dtype(vs)
    return [_to(v, d) for v in vs]


@functools.lru_cache(maxsize=1024)
def reduce_dtype(fn, dtype, requested):
    """The dtype NumPy's reduction ``fn`` returns for input ``dtype`` (and ``dtype=``)."""
    return fn(np.zeros(1, dtype), dtype=requested).dtype
