"""Ufunc-style functions: NumPy's names and keywords, each one op of the table.

Every entry casts its operands to the loop NumPy would use (``_promotion``) and calls the
op; composites (``log2``, ``log10``) are compositions of ops, so gradients come from the
table as well.
"""
import numpy as np

from .. import _core

from ..errors import InvalidArgumentError
from ..ops import elementwise_ops as ew_ops
from ..ops import registry
from ..ops.nn_ops import softplus
from ._promotion import check_out, promote, tensor, ufunc_operands

_UNARY = {
    # numpy name: (NumPy ufunc, fe op)
    "negative": (np.negative, ew_ops.negative),
    "positive": (np.positive, lambda x: x),
    "abs": (np.absolute, ew_ops.abs),
    "absolute": (np.absolute, ew_ops.abs),
    "fabs": (np.fabs, ew_ops.abs),
    "sign": (np.sign, ew_ops.sign),
    "exp": (np.exp, ew_ops.exp),
    "expm1": (np.expm1, ew_ops.expm1),
    "log": (np.log, ew_ops.log),
    "log1p": (np.log1p, ew_ops.log1p),
    "sqrt": (np.sqrt, ew_ops.sqrt),
    "square": (np.square, ew_ops.square),
    "reciprocal": (np.reciprocal, ew_ops.reciprocal),
    "sin": (np.sin, ew_ops.sin),
    "cos": (np.cos, ew_ops.cos),
    "tan": (np.tan, ew_ops.tan),
    "tanh": (np.tanh, ew_ops.tanh),
    "sinh": (np.sinh, ew_ops.sinh),
    "cosh": (np.cosh, ew_ops.cosh),
    "arcsinh": (np.arcsinh, ew_ops.asinh),
    "arccosh": (np.arccosh, ew_ops.acosh),
    "arctanh": (np.arctanh, ew_ops.atanh),
    "arcsin": (np.arcsin, ew_ops.asin),
    "arccos": (np.arccos, ew_ops.acos),
    "arctan": (np.arctan, ew_ops.atan),
    "exp2": (np.exp2, ew_ops.exp2),
    "floor": (np.floor, ew_ops.floor),
    "ceil": (np.ceil, ew_ops.ceil),
    "rint": (np.rint, ew_ops.round),
    "isnan": (np.isnan, ew_ops.is_nan),
    "isinf": (np.isinf, ew_ops.is_inf),
    "isfinite": (np.isfinite, ew_ops.is_finite),
    "logical_not": (np.logical_not, ew_ops.logical_not),
    "invert": (np.invert, ew_ops.invert),
    "bitwise_not": (np.invert, ew_ops.invert),
}

_BINARY = {
    "add": (np.add, ew_ops.add),
    "subtract": (np.subtract, ew_ops.subtract),
    "multiply": (np.multiply, ew_ops.multiply),
    "divide": (np.true_divide, ew_ops.truediv),
    "true_divide": (np.true_divide, ew_ops.truediv),
    "floor_divide": (np.floor_divide, ew_ops.floordiv),
    "mod": (np.remainder, ew_ops.floormod),
    "remainder": (np.remainder, ew_ops.floormod),
    "power": (np.power, ew_ops.pow),
    "pow": (np.power, ew_ops.pow),
    "maximum": (np.maximum, ew_ops.maximum),
    "minimum": (np.minimum, ew_ops.minimum),
    "equal": (np.equal, ew_ops.equal),
    "not_equal": (np.not_equal, ew_ops.not_equal),
    "less": (np.less, ew_ops.less),
    "less_equal": (np.less_equal, ew_ops.less_equal),
    "greater": (np.greater, ew_ops.greater),
    "greater_equal": (np.greater_equal, ew_ops.greater_equal),
    "logical_and": (np.logical_and, ew_ops.logical_and),
    "logical_or": (np.logical_or, ew_ops.logical_or),
    "logical_xor": (np.logical_xor, ew_ops.logical_xor),
    "bitwise_and": (np.bitwise_and, ew_ops.bitwise_and),
    "bitwise_or": (np.bitwise_or, ew_ops.bitwise_or),
    "bitwise_xor": (np.bitwise_xor, ew_ops.bitwise_xor),
    "arctan2": (np.arctan2, ew_ops.atan2_op),
    "hypot": (np.hypot, ew_ops.hypot_op),
}


def _unary(name, ufunc, op):
    if isinstance(op, _core.Op):
        run = _core.execute        # straight to dispatch: no keyword parsing per call

        def f(x, /, out=None, *, dtype=None):
            if out is not None:
                check_out(name, out)
            (a,) = ufunc_operands(ufunc, (x,), dtype)
            return run(op, (a,), None)
    else:
        def f(x, /, out=None, *, dtype=None):
            check_out(name, out)
            (a,) = ufunc_operands(ufunc, (x,), dtype)
            return op(a)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "NumPy's ``%s`` (the op ``%s``), with NumPy's dtype rules." % (
        name, getattr(op, "__name__", name))
    return f


def _binary(name, ufunc, op):
    if isinstance(op, _core.Op):
        run = _core.execute

        def f(x1, x2, /, out=None, *, dtype=None):
            if out is not None:
                check_out(name, out)
            a, b = ufunc_operands(ufunc, (x1, x2), dtype)
            return run(op, (a, b), None)
    else:
        def f(x1, x2, /, out=None, *, dtype=None):
            check_out(name, out)
            a, b = ufunc_operands(ufunc, (x1, x2), dtype)
            return op(a, b)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "NumPy's ``%s`` (the op ``%s``), broadcasting, with NumPy's dtype rules." % (
        name, getattr(op, "__name__", name))
    return f


FUNCTIONS = {}
for _name, (_uf, _op) in _UNARY.items():
    FUNCTIONS[_name] = _unary(_name, _uf, _op)
for _name, (_uf, _op) in _BINARY.items():
    FUNCTIONS[_name] = _binary(_name, _uf, _op)


def _log_base(name, ufunc, base):
    def f(x, /, out=None, *, dtype=None):
        check_out(name, out)
        (a,) = ufunc_operands(ufunc, (x,), dtype)
        # log_b(x) = log(x) / log(b), in the input's float dtype
        return ew_ops.log(a) / np.asarray(np.log(base), dtype=a._value.dtype)[()]
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "NumPy's ``%s``: log(x) / log(%d) (a composite)." % (name, base)
    return f


FUNCTIONS["log2"] = _log_base("log2", np.log2, 2)
FUNCTIONS["log10"] = _log_base("log10", np.log10, 10)


def _scale(name, ufunc, factor):
    def f(x, /, out=None, *, dtype=None):
        check_out(name, out)
        (a,) = ufunc_operands(ufunc, (x,), dtype)
        return a * np.asarray(factor, dtype=a._value.dtype)[()]
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "NumPy's ``%s``: x * %r (a composite)." % (name, factor)
    return f


for _name, _uf, _factor in (("deg2rad", np.deg2rad, np.pi / 180), ("radians", np.radians,
                                                                     np.pi / 180),
                            ("rad2deg", np.rad2deg, 180 / np.pi), ("degrees", np.degrees,
                                                                   180 / np.pi)):
    FUNCTIONS[_name] = _scale(_name, _uf, _factor)


def _logaddexp(a, b):
    # log(e^a + e^b) = a + softplus(b - a) for a >= b, else b + softplus(a - b): no overflow,
    # and each branch is smooth, so derivatives of every order hold, also at a tie (where
    # the two agree; |a - b| would make the second derivative 0 there). At a tie the
    # gradient splits evenly (sigmoid(0) = 1/2 each).
    with np.errstate(invalid="ignore"):     # inf - inf: NaN in the branch not taken
        out = ew_ops.where(ew_ops.greater_equal(a, b), a + softplus(b - a), b + softplus(a - b))
    same_inf = ew_ops.logical_and(ew_ops.is_inf(a), ew_ops.equal(a, b))     # -inf, -inf gives -inf
    return ew_ops.where(same_inf, a, out) if np.any(same_inf._value) else out


def logaddexp(x1, x2, /, out=None, *, dtype=None):
    """NumPy's ``logaddexp``: ``log(exp(x1) + exp(x2))`` without overflow (a composite)."""
    check_out("logaddexp", out)
    a, b = ufunc_operands(np.logaddexp, (x1, x2), dtype)
    return _logaddexp(a, b)


def logaddexp2(x1, x2, /, out=None, *, dtype=None):
    """NumPy's ``logaddexp2``: ``log2(2**x1 + 2**x2)`` (logaddexp in units of log 2)."""
    check_out("logaddexp2", out)
    a, b = ufunc_operands(np.logaddexp2, (x1, x2), dtype)
    ln2 = np.asarray(np.log(2.0), dtype=a._value.dtype)[()]
    return _logaddexp(a * ln2, b * ln2) / ln2


def _fextreme(name, ufunc, op):
    def f(x1, x2, /, out=None, *, dtype=None):
        check_out(name, out)
        a, b = ufunc_operands(ufunc, (x1, x2), dtype)
        r = op(a, b)
        if a._value.dtype.kind == "f":    # NaNs are ignored: the other operand wins
            r = ew_ops.where(ew_ops.is_nan(b), a, r)
            r = ew_ops.where(ew_ops.is_nan(a), b, r)
        return r
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "NumPy's ``%s``: %s, ignoring NaNs (a composite)." % (name, op.name)
    return f


FUNCTIONS["logaddexp"] = logaddexp
FUNCTIONS["logaddexp2"] = logaddexp2
FUNCTIONS["fmax"] = _fextreme("fmax", np.fmax, ew_ops.maximum)
FUNCTIONS["fmin"] = _fextreme("fmin", np.fmin, ew_ops.minimum)


def real(val):
    """NumPy's ``real``: the real part (a real array as it is)."""
    return ew_ops.real(tensor(val))


def imag(val):
    """NumPy's ``imag``: the imaginary part (zeros for a real array)."""
    return ew_ops.imag(tensor(val))


def conjugate(x, /, out=None):
    """NumPy's ``conjugate`` (and ``conj``)."""
    check_out("conjugate", out)
    return ew_ops.conj(tensor(x))


def angle(z, deg=False):
    """NumPy's ``angle``: ``arctan2(imag, real)`` in radians (degrees with ``deg``); real
    input is made float as NumPy does."""
    x = tensor(z)
    if x._value.dtype.kind not in "fc":
        x = ew_ops.cast(x, np.float64)
    # real input: NumPy's arctan2(+0, x) (pi for -0.0, NaN for NaN; TF's angle gives 0 there)
    a = ew_ops.angle(x) if x._value.dtype.kind == "c" else ew_ops.atan2(
        tensor(np.zeros((), x._value.dtype)), x)
    return a * np.asarray(180 / np.pi, dtype=a._value.dtype)[()] if deg else a


FUNCTIONS["conjugate"] = FUNCTIONS["conj"] = conjugate


def sinc(x):
    """NumPy's ``sinc``: ``sin(pi x) / (pi x)``, 1 at 0 (a composite). Near 0 (|pi x| <
    1e-3) it is the series 1 - y^2/6 + y^4/120, equal to sin(y)/y in float64 there, so its
    derivatives are exact at 0 too (sin(y)/y alone has none there)."""
    (a,) = ufunc_operands(np.sin, (x,))
    dt = a._value.dtype
    y = a * np.asarray(np.pi, dtype=dt)[()]
    small = ew_ops.less(ew_ops.abs(y), np.asarray(1e-3, dtype=dt)[()])
    one = _core.wrap(np.ones((), dt))
    safe = ew_ops.where(small, one, y)
    y2 = y * y
    series = 1 - y2 * np.asarray(1 / 6, dtype=dt)[()] + y2 * y2 * np.asarray(1 / 120, dtype=dt)[()]
    return ew_ops.where(small, series, ew_ops.sin(safe) / safe)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NumPy's ``nan_to_num``: NaN -> ``nan``, +-inf -> ``posinf``/``neginf`` (the dtype's
    largest finite values by default); the gradient passes where the input was finite."""
    a = tensor(x)
    dt = a._value.dtype
    if dt.kind != "f":
        return a
    info = np.finfo(dt)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    const = lambda v: _core.wrap(np.asarray(v, dtype=dt))   # noqa: E731
    r = ew_ops.where(ew_ops.is_nan(a), const(nan), a)
    r = ew_ops.where(ew_ops.logical_and(ew_ops.is_inf(a), ew_ops.greater(a, 0)), const(big), r)
    return ew_ops.where(ew_ops.logical_and(ew_ops.is_inf(a), ew_ops.less(a, 0)), const(small), r)


def round(a, decimals=0, out=None):  # noqa: A001 - NumPy's name
    """NumPy's ``round`` (half to even); ``decimals`` scales by 10**decimals around it."""
    check_out("round", out)
    x = tensor(a)
    if x._value.dtype.kind != "f":
        return x if decimals >= 0 else FUNCTIONS["multiply"](
            FUNCTIONS["floor_divide"](x, 10 ** -decimals), 10 ** -decimals)
    if decimals == 0:
        return ew_ops.round(x)
    scale = np.asarray(10.0 ** decimals, dtype=x._value.dtype)[()]
    return ew_ops.round(x * scale) / scale


def where(condition, x=None, y=None, /):
    """NumPy's ``where``: ``x`` where ``condition`` holds, else ``y`` (promoted to one dtype);
    with only ``condition``, a tuple of index arrays (one per axis), as ``np.nonzero``."""
    c = tensor(condition)
    if c._value.dtype != np.bool_:
        c = ew_ops.cast(c, np.bool_)
    if x is None and y is None:
        return nonzero(c)
    if x is None or y is None:
        raise InvalidArgumentError("fasteager.numpy.where: give both x and y, or neither")
    a, b = promote((x, y))
    return ew_ops.where(c, a, b)


def nonzero(a):
    """NumPy's ``nonzero``: a tuple of int64 index arrays, one per axis."""
    x = tensor(a)
    if x._value.dtype != np.bool_:
        x = ew_ops.cast(x, np.bool_)
    idx = ew_ops.where(x)
    return tuple(idx[:, i] for i in range(x._value.ndim))


def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):  # noqa: A002
    """NumPy's ``clip`` into ``[a_min, a_max]`` (either may be None), NumPy's dtype rules."""
    check_out("clip", out)
    lo = a_min if a_min is not None else min
    hi = a_max if a_max is not None else max
    if lo is None and hi is None:
        raise InvalidArgumentError("fasteager.numpy.clip: give a_min or a_max (got neither)")
    if lo is None:
        return FUNCTIONS["minimum"](a, hi)
    if hi is None:
        return FUNCTIONS["maximum"](a, lo)
    x, lo, hi = promote((a, lo, hi))
    return registry.execute(ew_ops.clip_by_value_op, x, lo, hi)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's ``isclose``: ``|a - b| <= atol + rtol * |b|`` (a composite, bool result)."""
    a, b = promote((a, b))
    if a._value.dtype.kind not in "fc":
        a, b = ew_ops.cast(a, np.float64), ew_ops.cast(b, np.float64)
    close = ew_ops.less_equal(ew_ops.abs(a - b), atol + rtol * ew_ops.abs(b))
    close = ew_ops.logical_or(close, ew_ops.equal(a, b))   # infinities of the same sign
    if equal_nan:
        close = ew_ops.logical_or(close, ew_ops.logical_and(ew_ops.is_nan(a), ew_ops.is_nan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's ``allclose``: a Python bool."""
    return bool(np.all(isclose(a, b, rtol, atol, equal_nan)._value))


def array_equal(a1, a2, equal_nan=False):
    """NumPy's ``array_equal``: a Python bool (shapes and values; no gradient)."""
    return bool(np.array_equal(np.asarray(tensor(a1)), np.asarray(tensor(a2)),
                               equal_nan=equal_nan))
