"""``keras.ops`` NumPy-style math: elementwise functions, comparisons, logic, bitwise ops,
reductions (plain and NaN-ignoring), quantiles, ``histogram`` and ``correlate``.

Each function follows Keras 3.15's TensorFlow backend: the same argument names and
defaults, the same dtype rule (``keras.backend.result_type``; Python scalars are weak only where
Keras leaves them unconverted), and it composes fasteager's op table, so every float
result is differentiable by ``GradientTape``.
"""
import builtins
import math as _math

import numpy as np

from ... import _core
from ... import bitwise as _bitwise
from ... import linalg as _linalg
from ... import math as _fm
from ... import nn as _nn
from ...errors import InvalidArgumentError, NotFoundError
from ...ops import array_ops as _arr
from ...ops import elementwise_ops as _ew
from ...ops import indexing_ops as _idx
from ...ops import reduction_ops as _red
from ...ops import sort_ops as _sort
from .. import backend as _backend
from ..backend import result_type, standardize_dtype

__all__ = [
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "arccos",
    "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin",
    "average", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_not",
    "bitwise_or", "bitwise_right_shift", "bitwise_xor", "cbrt", "ceil", "clip", "conj",
    "conjugate", "corrcoef", "correlate", "cos", "cosh", "count_nonzero", "cumprod",
    "cumsum", "deg2rad", "divide", "divide_no_nan", "equal", "exp", "exp2", "expm1", "fabs",
    "floor", "floor_divide", "fmax", "fmin", "fmod", "gcd", "greater", "greater_equal",
    "heaviside", "histogram", "hypot", "i0", "imag", "isclose", "isfinite", "isinf",
    "isnan", "isneginf", "isposinf", "isreal", "lcm", "ldexp", "left_shift", "less",
    "less_equal", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and",
    "logical_not", "logical_or", "logical_xor", "max", "maximum", "mean", "median", "min",
    "minimum", "mod", "multiply", "nan_to_num", "nanargmax", "nanargmin", "nancumprod",
    "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile", "nanprod",
    "nanquantile", "nanstd", "nansum", "nanvar", "negative", "nextafter", "not_equal",
    "percentile", "power", "prod", "ptp", "quantile", "rad2deg", "real", "reciprocal",
    "right_shift", "round", "sign", "signbit", "sin", "sinc", "sinh", "sqrt", "square",
    "std", "subtract", "sum", "tan", "tanh", "true_divide", "trunc", "var",
]

_SMALL_INTS = ("int8", "int16", "int32", "uint8", "uint16", "uint32")
_UINTS = ("uint8", "uint16", "uint32", "uint64")


# ---- conversions (Keras's convert_to_tensor / cast on the TensorFlow backend) ---------------

def _is_tensor(x):
    return isinstance(x, (_core.Tensor, _core.VariableBase))


def _t(x, dtype=None):
    """Keras's ``convert_to_tensor``: TensorFlow's inference, then a cast to ``dtype``."""
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if not _is_tensor(x):
        if dtype == "bool" or (dtype is not None and "int" in dtype):
            return _arr.cast(_core.convert_to_tensor(x), dtype)
        return _core.convert_to_tensor(x, dtype=dtype)
    if dtype is not None and _dt(x) != dtype:
        return _arr.cast(x, dtype)
    return _core.convert_to_tensor(x)


def _dt(x):
    return standardize_dtype(x.dtype)


def _cast(x, dtype):
    x = _t(x)
    return x if _dt(x) == standardize_dtype(dtype) else _arr.cast(x, dtype)


def _weak_pair(x1, x2, *extra):
    """Binary ops whose Python scalars stay weak: (x1, x2) converted to their result type."""
    x1 = x1 if isinstance(x1, (int, float)) and not isinstance(x1, bool) else _t(x1)
    x2 = x2 if isinstance(x2, (int, float)) and not isinstance(x2, bool) else _t(x2)
    dtype = result_type(getattr(x1, "dtype", type(x1)), getattr(x2, "dtype", type(x2)),
                        *extra)
    return _t(x1, dtype), _t(x2, dtype), dtype


def _pair(x1, x2, *extra):
    """Binary ops that convert first (a Python int is int32 there): both cast to the result."""
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype, *extra)
    return _cast(x1, dtype), _cast(x2, dtype), dtype


def _float_input(x):
    # Keras's rule for transcendental functions: int64 -> floatx(), else result_type(x, float)
    x = _t(x)
    dtype = _backend.floatx() if _dt(x) == "int64" else result_type(x.dtype, float)
    return _cast(x, dtype)


def _int_to_floatx(x):
    x = _t(x)
    d = _dt(x)
    return _cast(x, _backend.floatx()) if ("int" in d or d == "bool") else x


def _int_to_float_wide(dtype):
    # heaviside, hypot, deg2rad: small ints -> floatx(), int64 -> float64
    if dtype in _SMALL_INTS or dtype == "bool":
        return _backend.floatx()
    if dtype == "int64":
        return "float64"
    return dtype


def _is_float(x):
    return x.dtype.is_floating


def _is_int_or_non_numeric(x):
    return x.dtype.is_integer or x.dtype.is_bool


def _axis_list(axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return list(axis)
    return [axis]


# ---- arithmetic -----------------------------------------------------------------------------

def add(x1, x2):
    x1, x2, _ = _weak_pair(x1, x2)
    return _ew.add(x1, x2)


def subtract(x1, x2):
    x1, x2, _ = _weak_pair(x1, x2)
    return _ew.subtract(x1, x2)


def multiply(x1, x2):
    x1, x2, _ = _weak_pair(x1, x2)
    return _ew.multiply(x1, x2)


def divide(x1, x2):
    x1, x2, _ = _weak_pair(x1, x2, float)
    return _ew.truediv(x1, x2)


def true_divide(x1, x2):
    return divide(x1, x2)


def divide_no_nan(x1, x2):
    x1, x2, _ = _weak_pair(x1, x2, float)
    return _fm.divide_no_nan(x1, x2)


def floor_divide(x1, x2):
    x1, x2, _ = _weak_pair(x1, x2)
    return _ew.floordiv(x1, x2)


def power(x1, x2):
    x1 = x1 if isinstance(x1, (int, float)) and not isinstance(x1, bool) else _t(x1)
    x2 = x2 if isinstance(x2, (int, float)) and not isinstance(x2, bool) else _t(x2)
    dtype = result_type(getattr(x1, "dtype", type(x1)), getattr(x2, "dtype", type(x2)))
    if "uint" in dtype:  # TensorFlow's pow has no unsigned kernels: compute in int32
        return _arr.cast(_ew.pow(_t(x1, "int32"), _t(x2, "int32")), dtype)
    return _ew.pow(_t(x1, dtype), _t(x2, dtype))


def maximum(x1, x2):
    x1, x2, _ = _weak_pair(x1, x2)
    return _ew.maximum(x1, x2)


def minimum(x1, x2):
    x1, x2, _ = _weak_pair(x1, x2)
    return _ew.minimum(x1, x2)


def _nan_aware(pick, x1, x2):
    x1, x2, dtype = _weak_pair(x1, x2)
    res = pick(x1, x2)
    if "float" not in dtype:
        return res
    nan1, nan2 = _ew.is_nan(x1), _ew.is_nan(x2)
    res = _arr.where(_ew.logical_and(nan1, _ew.logical_not(nan2)), x2, res)
    return _arr.where(_ew.logical_and(nan2, _ew.logical_not(nan1)), x1, res)


def fmax(x1, x2):
    return _nan_aware(_ew.maximum, x1, x2)


def fmin(x1, x2):
    return _nan_aware(_ew.minimum, x1, x2)


def mod(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    return _ew.floormod(_cast(x1, dtype), _cast(x2, dtype))


def fmod(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    compute = "int32" if dtype in ("uint8", "uint16", "uint32") else dtype
    x1, x2 = _cast(x1, compute), _cast(x2, compute)
    # C's fmod: the remainder takes the dividend's sign
    res = _ew.multiply(_ew.sign(x1), _ew.floormod(_ew.abs(x1), _ew.abs(x2)))
    return _cast(res, dtype)


def _no_kernel(op, x, error=InvalidArgumentError):
    raise error("%s: unsupported dtype (TensorFlow has no kernel for %s)" % (op, _dt(x)))


def negative(x):
    x = _t(x)
    if _dt(x) in _UINTS:
        _no_kernel("negative", x)
    return _ew.negative(x)


def absolute(x):
    x = _t(x)
    d = _dt(x)
    if "uint" in d or d == "bool":  # already non-negative
        return x
    return _ew.abs(x)


def abs(x):
    return absolute(x)


def fabs(x):
    x = _t(x)
    if "complex" in _dt(x):
        raise TypeError("fabs does not support complex inputs. Received: x.dtype=%s"
                        % _dt(x))
    return _ew.abs(_int_to_floatx(x))


def sign(x):
    x = _t(x)
    d = _dt(x)
    if d in ("uint8", "uint16", "uint32"):
        return _arr.cast(_ew.sign(_arr.cast(x, "int32")), d)
    return _ew.sign(x)


def square(x):
    x = _t(x)
    if _dt(x) == "bool":
        x = _arr.cast(x, "int32")
    return _ew.square(x)


def sqrt(x):
    return _ew.sqrt(_float_input(x))


def cbrt(x):
    x = _t(x)
    d = _dt(x)
    if d == "int64":
        x = _arr.cast(x, "float64")
    elif d not in ("bfloat16", "float16", "float64"):
        x = _cast(x, _backend.floatx())
    return _ew.multiply(_ew.sign(x), _ew.pow(_ew.abs(x), _t(1.0 / 3.0, x.dtype)))


def reciprocal(x):
    x = _t(x)
    if x.dtype.is_integer:  # TensorFlow: no int32/int64 kernel, other ints rejected
        _no_kernel("reciprocal", x,
                   NotFoundError if _dt(x) in ("int32", "int64") else InvalidArgumentError)
    return _ew.reciprocal(x)


def exp(x):
    return _ew.exp(_int_to_floatx(x))


def exp2(x):
    x = _int_to_floatx(x)
    return _ew.pow(_t(2.0, x.dtype), x)


def expm1(x):
    return _ew.expm1(_int_to_floatx(x))


def log(x):
    return _ew.log(_float_input(x))


def log1p(x):
    return _ew.log1p(_float_input(x))


def log2(x):
    x = _float_input(x)
    return _ew.truediv(_ew.log(x), _ew.log(_t(2, x.dtype)))


def log10(x):
    x = _float_input(x)
    return _ew.truediv(_ew.log(x), _ew.log(_t(10, x.dtype)))


def logaddexp(x1, x2):
    x1, x2, _ = _pair(x1, x2, float)
    delta = _ew.subtract(x1, x2)
    stable = _ew.add(_ew.maximum(x1, x2), _ew.log1p(_ew.exp(_ew.negative(_ew.abs(delta)))))
    return _arr.where(_ew.is_nan(delta), _ew.add(x1, x2), stable)


def logaddexp2(x1, x2):
    x1, x2, dtype = _pair(x1, x2, float)
    delta = _ew.subtract(x1, x2)
    ln2 = _cast(_ew.log(_t(2.0)), dtype)
    tail = _ew.truediv(
        _ew.log1p(_ew.exp(_ew.multiply(_ew.negative(_ew.abs(delta)), ln2))), ln2)
    return _arr.where(_ew.is_nan(delta), _ew.add(x1, x2), _ew.add(_ew.maximum(x1, x2), tail))


def hypot(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = dtype if dtype == "bool" else _int_to_float_wide(dtype)
    if dtype == "bool":
        _no_kernel("hypot", x1)
    a1, a2 = _ew.abs(_cast(x1, dtype)), _ew.abs(_cast(x2, dtype))
    hi, lo = _ew.maximum(a1, a2), _ew.minimum(a1, a2)
    # scaled by the larger magnitude so the square cannot overflow
    ratio = _fm.divide_no_nan(lo, hi)
    return _ew.multiply(hi, _ew.sqrt(_ew.add(_t(1.0, dtype), _ew.square(ratio))))


def heaviside(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    dtype = dtype if dtype == "bool" else _int_to_float_wide(dtype)
    if dtype == "bool":
        raise TypeError("heaviside: bool inputs cannot be ordered against 0 (expected "
                        "numeric x1, x2, got bool)")
    x1, x2 = _cast(x1, dtype), _cast(x2, dtype)
    return _arr.where(_ew.less(x1, _t(0, dtype)), _arr.zeros_like(x1),
                      _arr.where(_ew.greater(x1, _t(0, dtype)), _arr.ones_like(x1), x2))


def ldexp(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    if not x2.dtype.is_integer:
        raise TypeError("ldexp exponent must be an integer type. Received: x2 dtype=%s"
                        % _dt(x2))
    x1 = _cast(x1, dtype)
    x2 = _cast(x2, dtype)
    res = _ew.multiply(x1, _ew.pow(_t(2.0, dtype), x2))
    keep = _ew.logical_or(_ew.is_inf(x1), _ew.equal(x1, _t(0, dtype)))
    return _arr.where(keep, x1, res)


def nextafter(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    out = _fm.nextafter(_cast(x1, "float64"), _cast(x2, "float64"))
    return _cast(out, dtype)


def deg2rad(x):
    x = _t(x)
    dtype = _int_to_float_wide(_dt(x))
    x = _cast(x, dtype)
    return _ew.multiply(x, _ew.truediv(_t(_math.pi, dtype), _t(180.0, dtype)))


def rad2deg(x):
    x = _t(x)
    dtype = _int_to_float_wide(_dt(x))
    x = _cast(x, dtype)
    return _ew.multiply(x, _ew.truediv(_t(180.0, dtype), _t(_math.pi, dtype)))


def i0(x):
    x = _t(x)
    d = _dt(x)
    if d in ("int64", "float64"):
        d = "float64"
    elif d not in ("bfloat16", "float16"):
        d = _backend.floatx()
    return _fm.bessel_i0(_cast(x, d))


def sinc(x):
    x = _float_input(x)
    pi_x = _ew.multiply(x, _t(np.pi, x.dtype))
    return _arr.where(_ew.equal(x, _t(0, x.dtype)), _arr.ones_like(x),
                      _ew.truediv(_ew.sin(pi_x), pi_x))


def _make_float_unary(name, op):
    def fn(x):
        return op(_float_input(x))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "Keras's ``keras.ops.%s``: ints give floatx() (int64 too)." % name
    return fn


sin = _make_float_unary("sin", _ew.sin)
cos = _make_float_unary("cos", _ew.cos)
tan = _make_float_unary("tan", _ew.tan)
sinh = _make_float_unary("sinh", _ew.sinh)
cosh = _make_float_unary("cosh", _ew.cosh)
tanh = _make_float_unary("tanh", _ew.tanh)
arcsin = _make_float_unary("arcsin", _ew.asin)
arccos = _make_float_unary("arccos", _ew.acos)
arctan = _make_float_unary("arctan", _ew.atan)
arcsinh = _make_float_unary("arcsinh", _ew.asinh)
arccosh = _make_float_unary("arccosh", _ew.acosh)
arctanh = _make_float_unary("arctanh", _ew.atanh)
floor = _make_float_unary("floor", _ew.floor)
ceil = _make_float_unary("ceil", _ew.ceil)


def arctan2(x1, x2):
    x1, x2, _ = _pair(x1, x2, float)
    return _ew.atan2(x1, x2)


def round(x, decimals=0):
    x = _t(x)
    if x.dtype.is_integer:
        if decimals >= 0:
            return _ew.round(x)       # integers come back as they are, as TensorFlow's
        factor = _t(_math.pow(10, decimals), _backend.floatx())
        y = _ew.truediv(_ew.round(_ew.multiply(_cast(x, _backend.floatx()), factor)), factor)
        return _cast(y, x.dtype)
    if decimals == 0:
        return _ew.round(x)
    factor = _t(_math.pow(10, decimals), x.dtype)
    return _ew.truediv(_ew.round(_ew.multiply(x, factor)), factor)


def trunc(x):
    x = _t(x)
    if not x.dtype.is_floating:
        return x
    return _arr.where(_ew.less(x, _t(0, x.dtype)), _ew.ceil(x), _ew.floor(x))


def clip(x, x_min, x_max):
    x = _t(x)
    if _dt(x) == "bool":
        x = _arr.cast(x, "int32")
    return _arr.clip_by_value(x, x_min, x_max)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    x = _t(x)
    if _is_int_or_non_numeric(x):
        return x
    finfo = np.finfo(x.dtype.as_numpy_dtype)
    posinf = finfo.max if posinf is None else posinf
    neginf = finfo.min if neginf is None else neginf
    x = _arr.where(_ew.is_nan(x), _t(nan, x.dtype), x)
    x = _arr.where(_ew.logical_and(_ew.is_inf(x), _ew.greater(x, _t(0, x.dtype))),
                   _t(posinf, x.dtype), x)
    return _arr.where(_ew.logical_and(_ew.is_inf(x), _ew.less(x, _t(0, x.dtype))),
                      _t(neginf, x.dtype), x)


# ---- complex parts --------------------------------------------------------------------------

def _numeric_only(op, x):
    if _dt(x) == "bool":
        raise TypeError("%s: input must be a numeric tensor, but got tensor with dtype bool"
                        % op)
    return x


def real(x):
    return _fm.real(_numeric_only("real", _t(x)))


def imag(x):
    return _fm.imag(_t(x))


def conj(x):
    return _fm.conj(_numeric_only("conj", _t(x)))


def conjugate(x):
    return conj(x)


def angle(x):
    return _fm.angle(_float_input(x))


# ---- comparisons and predicates -------------------------------------------------------------

def _make_compare(name, op):
    def fn(x1, x2):
        x1, x2, _ = _pair(x1, x2)
        return op(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "Keras's ``keras.ops.%s``: both sides cast to their result type." % name
    return fn


equal = _make_compare("equal", _ew.equal)
not_equal = _make_compare("not_equal", _ew.not_equal)
less = _make_compare("less", _ew.less)
less_equal = _make_compare("less_equal", _ew.less_equal)
greater = _make_compare("greater", _ew.greater)
greater_equal = _make_compare("greater_equal", _ew.greater_equal)


def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    x1, x2, dtype = _pair(x1, x2)
    if "float" not in dtype:
        return _ew.equal(x1, x2)
    result = _ew.less_equal(_ew.abs(_ew.subtract(x1, x2)),
                            _ew.add(_t(atol, dtype), _ew.multiply(_t(rtol, dtype),
                                                                  _ew.abs(x2))))
    if equal_nan:
        result = _ew.logical_or(result, _ew.logical_and(_ew.is_nan(x1), _ew.is_nan(x2)))
    return result


def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    x1, x2, dtype = _pair(x1, x2)
    if "float" not in dtype:
        return _red.reduce_all(_ew.equal(x1, x2))
    finite = _ew.logical_and(_ew.is_finite(x1), _ew.is_finite(x2))
    close = _ew.less_equal(_ew.abs(_ew.subtract(x1, x2)),
                           _ew.add(_t(atol, dtype), _ew.multiply(_t(rtol, dtype),
                                                                 _ew.abs(x2))))
    result = _ew.logical_or(_ew.logical_and(finite, close), _ew.equal(x1, x2))
    if equal_nan:
        result = _ew.logical_or(result, _ew.logical_and(_ew.is_nan(x1), _ew.is_nan(x2)))
    return _red.reduce_all(result)


def isfinite(x):
    x = _t(x)
    if _is_int_or_non_numeric(x):
        return _arr.ones(x.shape, "bool")
    return _ew.is_finite(x)


def isinf(x):
    x = _t(x)
    if _is_int_or_non_numeric(x):
        return _arr.zeros(x.shape, "bool")
    return _ew.is_inf(x)


def isnan(x):
    x = _t(x)
    if _is_int_or_non_numeric(x):
        return _arr.zeros(x.shape, "bool")
    return _ew.is_nan(x)


def isposinf(x):
    x = _t(x)
    if _is_int_or_non_numeric(x):
        return _arr.zeros(x.shape, "bool")
    return _ew.equal(x, _t(float("inf"), x.dtype))


def isneginf(x):
    x = _t(x)
    if _is_int_or_non_numeric(x):
        return _arr.zeros(x.shape, "bool")
    return _ew.equal(x, _t(float("-inf"), x.dtype))


def isreal(x):
    x = _t(x)
    if x.dtype.is_complex:
        return _ew.equal(_fm.imag(x), _t(0, _fm.imag(x).dtype))
    return _arr.ones(x.shape, "bool")


def signbit(x):
    x = _t(x)
    d = _dt(x)
    if d == "bool":
        return _arr.zeros(x.shape, "bool")
    if "int" in d:
        return _ew.less(x, _t(0, d))
    x = _cast(x, "float32")
    zero = _t(0.0, "float32")
    # -0.0 is told from +0.0 by the sign of its reciprocal (-inf); a NaN's sign bit is
    # not observable through arithmetic and reads as False
    neg_zero = _ew.logical_and(_ew.equal(x, zero), _ew.less(_ew.reciprocal(x), zero))
    return _ew.logical_or(_ew.less(x, zero), neg_zero)


# ---- logic and bitwise ----------------------------------------------------------------------

def logical_and(x1, x2):
    return _ew.logical_and(_cast(x1, "bool"), _cast(x2, "bool"))


def logical_or(x1, x2):
    return _ew.logical_or(_cast(x1, "bool"), _cast(x2, "bool"))


def logical_xor(x1, x2):
    return _ew.logical_xor(_cast(x1, "bool"), _cast(x2, "bool"))


def logical_not(x):
    return _ew.logical_not(_cast(x, "bool"))


def bitwise_and(x, y):
    x, y, _ = _pair(x, y)
    return _bitwise.bitwise_and(x, y)


def bitwise_or(x, y):
    x, y, _ = _pair(x, y)
    return _bitwise.bitwise_or(x, y)


def bitwise_xor(x, y):
    x, y, _ = _pair(x, y)
    return _bitwise.bitwise_xor(x, y)


def bitwise_invert(x):
    x = _t(x)
    if _dt(x) == "bool":
        _no_kernel("bitwise_invert", x)
    return _bitwise.invert(x)


def bitwise_not(x):
    return bitwise_invert(x)


def _shift(op, x, y):
    x = _t(x)
    if isinstance(y, int) and not isinstance(y, bool):
        y = _t(y, x.dtype)
    else:
        x, y, _ = _pair(x, y)
    return op(x, y)      # the op clamps the shift to [0, bits - 1], as TensorFlow's


def bitwise_left_shift(x, y):
    return _shift(_bitwise.left_shift, x, y)


def left_shift(x, y):
    return bitwise_left_shift(x, y)


def bitwise_right_shift(x, y):
    return _shift(_bitwise.right_shift, x, y)


def right_shift(x, y):
    return bitwise_right_shift(x, y)


def gcd(x1, x2):
    x1, x2, dtype = _pair(x1, x2)
    if not x1.dtype.is_integer:
        raise TypeError("Arguments to gcd must be integers.")
    shape = _arr.broadcast_static_shape(x1.shape, x2.shape)
    a, b = _arr.broadcast_to(x1, shape), _arr.broadcast_to(x2, shape)
    if dtype not in _UINTS:
        a, b = _ew.abs(a), _ew.abs(b)
    zero = _arr.zeros_like(b)
    # Euclid's algorithm on every element at once; finished elements keep b == 0
    while bool(_red.reduce_any(_ew.not_equal(b, zero))):
        nonzero = _ew.not_equal(b, zero)
        b_safe = _arr.where(nonzero, b, _arr.ones_like(b))
        a, b = _arr.where(nonzero, b, a), _arr.where(nonzero, _ew.floormod(a, b_safe), zero)
    return a


def lcm(x1, x2):
    x1, x2 = _t(x1), _t(x2)
    if not (x1.dtype.is_integer and x2.dtype.is_integer):
        raise TypeError("Arguments to lcm must be integers. Received: x1.dtype=%s, "
                        "x2.dtype=%s" % (_dt(x1), _dt(x2)))
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = _cast(x1, dtype), _cast(x2, dtype)
    if dtype not in _UINTS:
        x1, x2 = _ew.abs(x1), _ew.abs(x2)
    divisor = gcd(x1, x2)
    is_zero = _ew.equal(divisor, _t(0, dtype))
    safe = _arr.where(is_zero, _arr.ones_like(divisor), divisor)
    result = _ew.multiply(x1, _ew.floordiv(x2, safe))
    return _arr.where(is_zero, _arr.zeros_like(result), result)


# ---- reductions -----------------------------------------------------------------------------

def _small_int_accumulator(dtype):
    # JAX's accumulation rule Keras follows: bool/int8/int16 -> int32, uint8/uint16 -> uint32
    if dtype in ("bool", "int8", "int16"):
        return "int32"
    if dtype in ("uint8", "uint16"):
        return "uint32"
    return dtype


def sum(x, axis=None, keepdims=False):
    x = _t(x)
    x = _cast(x, _small_int_accumulator(_dt(x)))
    return _red.reduce_sum(x, axis=axis, keepdims=keepdims)


def prod(x, axis=None, keepdims=False, dtype=None):
    x = _t(x)
    if dtype is None:
        x = _cast(x, _small_int_accumulator(_dt(x)))
    return _red.reduce_prod(x, axis=axis, keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    x = _t(x)
    ori = _dt(x)
    compute = result_type(x.dtype, "float32")
    # low-precision floats accumulate in float32 and are cast back
    out_dtype = compute if ("int" in ori or ori == "bool") else ori
    out = _red.reduce_mean(_cast(x, compute), axis=axis, keepdims=keepdims)
    return _cast(out, out_dtype)


def average(x, axis=None, weights=None):
    x = _t(x)
    if weights is None:
        x = _cast(x, result_type(x.dtype, float))
        return _red.reduce_mean(x, axis=axis)
    weights = _t(weights)
    dtype = result_type(x.dtype, weights.dtype, float)
    x, weights = _cast(x, dtype), _cast(weights, dtype)
    if axis is None or len(x.shape) == len(weights.shape):
        return _ew.truediv(_red.reduce_sum(_ew.multiply(x, weights), axis=axis),
                           _red.reduce_sum(weights, axis=axis))
    # 1-D weights along `axis`
    return _ew.truediv(_linalg.tensordot(x, weights, [[axis], [0]]),
                       _red.reduce_sum(weights))


def var(x, axis=None, keepdims=False):
    x = _t(x)
    compute = result_type(x.dtype, "float32")
    out_dtype = result_type(x.dtype, float)
    out = _fm.reduce_variance(_cast(x, compute), axis=axis, keepdims=keepdims)
    return _cast(out, out_dtype)


def std(x, axis=None, keepdims=False):
    return _fm.reduce_std(_int_to_floatx(x), axis=axis, keepdims=keepdims)


def _check_not_empty(x, what):
    if int(np.prod(x.shape)) == 0:
        raise InvalidArgumentError("Cannot compute the %s of an empty tensor." % what)


def max(x, axis=None, keepdims=False, initial=None):
    x = _t(x)
    is_bool = _dt(x) == "bool"
    if initial is not None:
        if is_bool:
            r = _red.reduce_any(x, axis=axis, keepdims=keepdims)
            r = _ew.maximum(_arr.cast(r, "int32"), _t(initial, "int32"))
            return _arr.cast(r, "bool")
        r = _red.reduce_max(x, axis=axis, keepdims=keepdims)
        return _ew.maximum(r, _t(initial, r.dtype))
    _check_not_empty(x, "max")
    if is_bool:
        return _red.reduce_any(x, axis=axis, keepdims=keepdims)
    return _red.reduce_max(x, axis=axis, keepdims=keepdims)


def min(x, axis=None, keepdims=False, initial=None):
    x = _t(x)
    is_bool = _dt(x) == "bool"
    if initial is not None:
        if is_bool:
            r = _red.reduce_all(x, axis=axis, keepdims=keepdims)
            r = _ew.minimum(_arr.cast(r, "int32"), _t(initial, "int32"))
            return _arr.cast(r, "bool")
        r = _red.reduce_min(x, axis=axis, keepdims=keepdims)
        return _ew.minimum(r, _t(initial, r.dtype))
    _check_not_empty(x, "min")
    if is_bool:
        return _red.reduce_all(x, axis=axis, keepdims=keepdims)
    return _red.reduce_min(x, axis=axis, keepdims=keepdims)


def amax(x, axis=None, keepdims=False):
    return max(x, axis=axis, keepdims=keepdims)


def amin(x, axis=None, keepdims=False):
    return min(x, axis=axis, keepdims=keepdims)


def ptp(x, axis=None, keepdims=False):
    x = _t(x)
    return _ew.subtract(_red.reduce_max(x, axis=axis, keepdims=keepdims),
                        _red.reduce_min(x, axis=axis, keepdims=keepdims))


def all(x, axis=None, keepdims=False):
    return _red.reduce_all(_cast(x, "bool"), axis=axis, keepdims=keepdims)


def any(x, axis=None, keepdims=False):
    return _red.reduce_any(_cast(x, "bool"), axis=axis, keepdims=keepdims)


def count_nonzero(x, axis=None):
    return _fm.count_nonzero(_t(x), axis=axis, dtype="int32")


def _keep_arg_dims(x, y, axis):
    shape = [1] * len(x.shape) if axis is None else list(x.shape)
    if axis is not None:
        for a in _axis_list(axis):
            shape[a] = 1
    return _arr.reshape(y, shape)


def _arg_reduce(op, x, axis, keepdims):
    if isinstance(axis, (tuple, list)):
        # TensorFlow's classes: argmax rejects the tuple as a type, argmin as a value
        error = TypeError if op is _red.argmax else InvalidArgumentError
        raise error("%s: `axis` must be an int or None (got %r)" % (op.__name__, axis))
    x = _t(x)
    if x.dtype.is_floating and len(x.shape) > 0:
        # -0.0 sorts below +0.0 (JAX's flush-to-zero fix Keras adopts)
        x = _cast(x, result_type(x.dtype, "float32"))
        neg_zero = _ew.logical_and(_ew.equal(x, _t(0.0, x.dtype)), signbit(x))
        tiny = np.finfo(x.dtype.as_numpy_dtype).tiny
        x = _arr.where(neg_zero, _t(-tiny, x.dtype), x)
    flat = _arr.reshape(x, [-1]) if axis is None else x
    y = op(flat, axis=0 if axis is None else axis, output_type="int32")
    return _keep_arg_dims(x, y, axis) if keepdims else y


def argmax(x, axis=None, keepdims=False):
    return _arg_reduce(_red.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return _arg_reduce(_red.argmin, x, axis, keepdims)


def _cumulative(op, x, axis, dtype):
    x = _t(x, dtype)
    if _dt(x) == "bool":
        x = _arr.cast(x, "int32")
    if axis is None:
        x, axis = _arr.reshape(x, [-1]), 0
    return op(x, axis=axis)


def cumsum(x, axis=None, dtype=None):
    return _cumulative(_fm.cumsum, x, axis, dtype)


def cumprod(x, axis=None, dtype=None):
    return _cumulative(_fm.cumprod, x, axis, dtype)


# ---- NaN-ignoring reductions ----------------------------------------------------------------

def nansum(x, axis=None, keepdims=False):
    x = _t(x)
    d = _dt(x)
    clean = _arr.where(_ew.is_nan(_cast(x, _backend.floatx())), _arr.zeros((), d), x)
    return _red.reduce_sum(_cast(clean, _small_int_accumulator(d)), axis=axis,
                           keepdims=keepdims)


def nanprod(x, axis=None, keepdims=False):
    x = _t(x)
    if not _is_float(x):
        return prod(x, axis=axis, keepdims=keepdims)
    return prod(_arr.where(_ew.is_nan(x), _arr.ones((), x.dtype), x), axis=axis,
                keepdims=keepdims)


def nanmax(x, axis=None, keepdims=False):
    return _nan_extreme(x, axis, keepdims, _red.reduce_max, _red.reduce_any, "-inf")


def nanmin(x, axis=None, keepdims=False):
    return _nan_extreme(x, axis, keepdims, _red.reduce_min, _red.reduce_all, "inf")


def _nan_extreme(x, axis, keepdims, reduce, bool_reduce, fill):
    x = _t(x)
    if not _is_float(x):
        if _dt(x) == "bool":
            return bool_reduce(x, axis=axis, keepdims=keepdims)
        return reduce(x, axis=axis, keepdims=keepdims)
    nan = _ew.is_nan(x)
    clean = _arr.where(nan, _t(float(fill), x.dtype), x)
    return _arr.where(_red.reduce_all(nan, axis=axis, keepdims=keepdims),
                      _t(float("nan"), x.dtype), reduce(clean, axis=axis, keepdims=keepdims))


def _nan_arg(op, fill, x, axis, keepdims):
    x = _t(x)
    if not _is_float(x):
        return op(x, axis=axis, keepdims=keepdims)
    nan = _ew.is_nan(x)
    idx = op(_arr.where(nan, _t(float(fill), x.dtype), x), axis=axis, keepdims=keepdims)
    return _arr.where(_red.reduce_all(nan, axis=axis, keepdims=keepdims),
                      _t(-1, "int32"), idx)


def nanargmax(x, axis=None, keepdims=False):
    return _nan_arg(argmax, "-inf", x, axis, keepdims)


def nanargmin(x, axis=None, keepdims=False):
    return _nan_arg(argmin, "inf", x, axis, keepdims)


def nanmean(x, axis=None, keepdims=False):
    x = _t(x)
    if axis == () or axis == []:
        return x
    if not _is_float(x):
        return _red.reduce_mean(_cast(x, "float32"), axis=axis, keepdims=keepdims)
    dtype = result_type(_dt(x), float)
    total = _cast(nansum(x, axis=axis, keepdims=keepdims), dtype)
    count = _red.reduce_sum(_cast(_ew.logical_not(_ew.is_nan(x)), dtype), axis=axis,
                            keepdims=keepdims)
    return _ew.truediv(total, count)


def nanvar(x, axis=None, keepdims=False):
    x = _t(x)
    x = _cast(x, result_type(x.dtype, float))
    centre = nanmean(x, axis=axis, keepdims=True)
    valid = _ew.logical_not(_ew.is_nan(x))
    centred = _arr.where(valid, _ew.subtract(x, centre), _arr.zeros_like(x))
    if centred.dtype.is_complex:
        centred = _fm.real(_ew.multiply(centred, _fm.conj(centred)))
    else:
        centred = _ew.square(centred)
    count = _red.reduce_sum(_cast(valid, centred.dtype), axis=axis, keepdims=keepdims)
    return _ew.truediv(_red.reduce_sum(centred, axis=axis, keepdims=keepdims), count)


def nanstd(x, axis=None, keepdims=False):
    return _ew.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def nancumsum(x, axis=None, dtype=None):
    return cumsum(nan_to_num(x), axis=axis, dtype=dtype)


def nancumprod(x, axis=None, dtype=None):
    return cumprod(nan_to_num(x, nan=1.0), axis=axis, dtype=dtype)


# ---- quantiles ------------------------------------------------------------------------------

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(x, q, axis, method, keepdims):
    # tfp.stats.percentile's algorithm, as Keras's TensorFlow backend runs it: sort the
    # reduced axes (moved last, flattened), gather the order statistics q points at.
    if method not in _METHODS:
        raise ValueError("quantile: invalid `method` %r (expected one of %s)"
                         % (method, ", ".join(_METHODS)))
    q = _cast(q, "float64")
    ndim = len(x.shape)
    if axis is None:
        y = _arr.reshape(x, [-1])
    else:
        axis = [a % ndim if ndim else a for a in axis]
        other = sorted(set(range(ndim)).difference(axis))
        shape = [x.shape[i] for i in other] + [int(np.prod([x.shape[i] for i in axis]))]
        y = _arr.reshape(_arr.transpose(x, other + list(axis)), shape)
    sorted_y = _sort.sort(y, axis=-1, direction="ASCENDING")
    n = int(y.shape[-1])
    d = _t(float(n), "float64")
    pos = _ew.multiply(_ew.subtract(d, _t(1.0, "float64")), q)

    def index(kind):
        idx = {"lower": _ew.floor, "higher": _ew.ceil, "nearest": _ew.round}[kind](pos)
        return _arr.clip_by_value(_arr.cast(idx, "int32"), 0, n - 1)

    if method in ("nearest", "lower", "higher"):
        out = _idx.gather(sorted_y, index(method), axis=-1)
    elif method == "midpoint":
        out = _ew.multiply(_t(0.5, y.dtype),
                           _ew.add(_idx.gather(sorted_y, index("lower"), axis=-1),
                                   _idx.gather(sorted_y, index("higher"), axis=-1)))
    else:
        hi = index("higher")
        lo = _ew.maximum(_ew.subtract(hi, _t(1, "int32")), _t(0, "int32"))
        hi = _ew.minimum(_ew.add(lo, _t(1, "int32")), _t(n - 1, "int32"))
        frac = _cast(_ew.subtract(_arr.cast(hi, "float64"), pos), y.dtype)
        out = _ew.add(_ew.multiply(_idx.gather(sorted_y, hi, axis=-1),
                                   _ew.subtract(_t(1, y.dtype), frac)),
                      _ew.multiply(_idx.gather(sorted_y, lo, axis=-1), frac))
    q_rank = len(q.shape)
    if x.dtype.is_floating:  # a NaN anywhere in a slice makes its quantiles NaN
        nan_rows = _red.reduce_any(_ew.is_nan(x), axis=axis)
        nan_rows = _arr.reshape(nan_rows, list(nan_rows.shape) + [1] * q_rank)
        out = _arr.where(nan_rows, _t(float("nan"), x.dtype), out)
    if keepdims:
        if axis is None:
            out = _arr.reshape(out, [1] * ndim + list(out.shape))
        else:
            for i in sorted(axis):
                out = _arr.expand_dims(out, axis=i)
    # move q's axes to the front
    rank = len(out.shape)
    if rank < 2 or q_rank % rank == 0:
        return out
    shift = q_rank % rank
    perm = list(range(rank))
    perm = perm[-shift:] + perm[:-shift]
    return _arr.transpose(out, perm)


def quantile(x, q, axis=None, method="linear", keepdims=False):
    x, q = _t(x), _t(q)
    axis = _axis_list(axis)
    x = _cast(x, result_type(x.dtype, float))
    return _quantile(x, q, axis, method, keepdims)


def percentile(x, q, axis=None, method="linear", keepdims=False):
    q = _ew.truediv(_t(q, _backend.floatx()), _t(100.0, _backend.floatx()))
    return quantile(x, q, axis=axis, method=method, keepdims=keepdims)


def median(x, axis=None, keepdims=False):
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    x = _t(x)
    q = _t(q, _backend.floatx())
    if axis is not None and not x.dtype.is_floating:
        # Keras's TensorFlow backend maps the slices with x's own dtype and fails there
        raise InvalidArgumentError("nanquantile: a non-float `x` (got %s) is reduced along "
                                   "an axis only as float; cast it first" % _dt(x))

    def one_slice(v):
        # each slice keeps its own count of non-NaN values
        valid = _idx.boolean_mask(v, _ew.logical_not(_ew.is_nan(_cast(v, _backend.floatx()))))
        if int(valid.shape[0]) == 0:
            return _arr.fill(list(q.shape), _t(float("nan"), result_type(x.dtype, float)))
        return quantile(valid, q, method=method)

    if axis is None:
        out = one_slice(_arr.reshape(x, [-1]))
        if keepdims:
            out = _arr.reshape(out, list(out.shape) + [1] * len(x.shape))
        return out
    axis = [a % len(x.shape) for a in _axis_list(axis)]
    other = [i for i in range(len(x.shape)) if i not in axis]
    xt = _arr.transpose(x, other + axis)
    other_shape = [x.shape[i] for i in other]
    rows = _arr.reshape(xt, [int(np.prod(other_shape)), -1])
    results = _arr.stack([one_slice(rows[i]) for i in range(int(rows.shape[0]))])
    q_rank = len(q.shape)
    if q_rank > 0:
        results = _arr.reshape(_arr.transpose(results), list(q.shape) + other_shape)
    else:
        results = _arr.reshape(results, other_shape)
    if keepdims:
        for a in sorted(axis):
            results = _arr.expand_dims(results, axis=a + q_rank)
    return results


def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    q = _ew.truediv(_t(q, _backend.floatx()), _t(100.0, _backend.floatx()))
    return nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)


def nanmedian(x, axis=None, keepdims=False):
    x = _t(x)
    if axis == () or axis == []:
        return x
    return nanquantile(x, q=0.5, axis=axis, keepdims=keepdims)


# ---- statistics of whole arrays -------------------------------------------------------------

def corrcoef(x):
    x = _t(x)
    d = _dt(x)
    if d in ("bool",) + _SMALL_INTS:
        x = _cast(x, _backend.floatx())
    if len(x.shape) == 0:
        return _t(float("nan"), _backend.floatx())
    centred = _ew.subtract(x, _red.reduce_mean(x, axis=-1, keepdims=True))
    n = _t(float(x.shape[-1]), x.dtype)
    cov = _ew.truediv(_linalg.matmul(centred, centred, adjoint_b=True),
                      _ew.subtract(n, _t(1.0, x.dtype)))
    stddev = _ew.sqrt(_fm.real(_linalg.diag_part(cov)))
    outer = _cast(_linalg.tensordot(stddev, stddev, axes=0), cov.dtype)
    corr = _ew.truediv(cov, outer)
    re = _arr.clip_by_value(_fm.real(corr), -1.0, 1.0)
    if corr.dtype.is_complex:
        return _ew.complex(re, _arr.clip_by_value(_fm.imag(corr), -1.0, 1.0))
    return re


def correlate(x1, x2, mode="valid"):
    x1, x2 = _t(x1), _t(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    if dtype == "int64":
        dtype = "float64"
    elif dtype not in ("bfloat16", "float16", "float64"):
        dtype = "float32"
    if mode not in ("full", "same", "valid"):
        raise ValueError("Invalid mode: '%s'. Mode must be one of: 'full', 'same', 'valid'."
                         % (mode,))
    x1, x2 = _cast(x1, dtype), _cast(x2, dtype)
    n, m = int(x1.shape[0]), int(x2.shape[0])
    if mode in ("full", "same"):
        x1 = _arr.pad(x1, [[builtins.max(m - 1, 0)] * 2])
    # cross-correlation is conv1d (which does not flip its filter) over [1, N, 1]
    out = _nn.conv1d(_arr.reshape(x1, [1, -1, 1]), _arr.reshape(x2, [m, 1, 1]), stride=1,
                     padding="VALID")
    out = _arr.squeeze(out, axis=[0, 2])
    if mode == "same":
        out_len = builtins.max(n, m)
        start = (n + m - 1 - out_len) // 2
        out = out[start:start + out_len]
    return out


def histogram(x, bins=10, range=None):
    if not isinstance(bins, int):
        raise TypeError("Argument `bins` must be of type `int`. Received: bins=%s" % (bins,))
    if bins < 0:
        raise ValueError("Argument `bins` should be a non-negative integer. Received: "
                         "bins=%s" % (bins,))
    if range:
        if len(range) < 2 or not isinstance(range, tuple):
            raise ValueError("Argument `range` must be a tuple of two elements. Received: "
                             "range=%s" % (range,))
        if range[1] < range[0]:
            raise ValueError("The second element of `range` must be greater than the "
                             "first. Received: range=%s" % (range,))
    x = _t(x)
    if len(x.shape) > 1:
        raise ValueError("Input tensor must be 1-dimensional. Received: input.shape=%s"
                         % (tuple(x.shape),))
    if range is None:
        lo, hi = _red.reduce_min(x), _red.reduce_max(x)
    else:
        lo, hi = range
    lo_t, hi_t = _t(lo), _t(hi)
    x = _idx.boolean_mask(x, _ew.logical_and(_ew.greater_equal(x, _cast(lo_t, x.dtype)),
                                             _ew.less_equal(x, _cast(hi_t, x.dtype))))
    edges = _cast(_arr.linspace(lo_t, hi_t, bins + 1), x.dtype)
    idx = _sort.searchsorted(edges[1:-1], x, side="right")
    counts = _idx.scatter_nd(_arr.expand_dims(idx, axis=-1), _arr.ones_like(idx, x.dtype),
                             [bins])
    return counts, edges
