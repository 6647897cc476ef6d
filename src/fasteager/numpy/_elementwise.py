"""Ufunc-style functions: NumPy's names and keywords, each one op of the table.

Every entry casts its operands to the loop NumPy would use (``_promotion``) and calls the
op; composites (``log2``, ``log10``) are compositions of ops, so gradients come from the
table as well.
"""
import numpy as np

from .. import _core

from ..errors import InvalidArgumentError
from ..ops import elementwise_ops as m_elem
from ..ops import registry
from ..ops import elementwise_ops as sp_elem
from ._promotion import check_out, promote, tensor, ufunc_operands

_UNARY = {
    # numpy name: (NumPy ufunc, fe op)
    "negative": (np.negative, m_elem.negative),
    "positive": (np.positive, lambda x: x),
    "abs": (np.absolute, m_elem.abs),
    "absolute": (np.absolute, m_elem.abs),
    "fabs": (np.fabs, m_elem.abs),
    "sign": (np.sign, m_elem.sign),
    "exp": (np.exp, m_elem.exp),
    "expm1": (np.expm1, m_elem.expm1),
    "log": (np.log, m_elem.log),
    "log1p": (np.log1p, m_elem.log1p),
    "sqrt": (np.sqrt, m_elem.sqrt),
    "square": (np.square, m_elem.square),
    "reciprocal": (np.reciprocal, m_elem.reciprocal),
    "sin": (np.sin, m_elem.sin),
    "cos": (np.cos, m_elem.cos),
    "tan": (np.tan, m_elem.tan),
    "tanh": (np.tanh, m_elem.tanh),
    "sinh": (np.sinh, sp_elem.sinh),
    "cosh": (np.cosh, sp_elem.cosh),
    "arcsinh": (np.arcsinh, sp_elem.asinh),
    "arccosh": (np.arccosh, sp_elem.acosh),
    "arctanh": (np.arctanh, sp_elem.atanh),
    "arcsin": (np.arcsin, sp_elem.asin),
    "arccos": (np.arccos, sp_elem.acos),
    "arctan": (np.arctan, sp_elem.atan),
    "exp2": (np.exp2, sp_elem.exp2),
    "floor": (np.floor, m_elem.floor),
    "ceil": (np.ceil, m_elem.ceil),
    "rint": (np.rint, m_elem.round),
    "isnan": (np.isnan, m_elem.is_nan),
    "isinf": (np.isinf, m_elem.is_inf),
    "isfinite": (np.isfinite, m_elem.is_finite),
    "logical_not": (np.logical_not, m_elem.logical_not),
    "invert": (np.invert, m_elem.invert),
    "bitwise_not": (np.invert, m_elem.invert),
}

_BINARY = {
    "add": (np.add, m_elem.add),
    "subtract": (np.subtract, m_elem.subtract),
    "multiply": (np.multiply, m_elem.multiply),
    "divide": (np.true_divide, m_elem.truediv),
    "true_divide": (np.true_divide, m_elem.truediv),
    "floor_divide": (np.floor_divide, m_elem.floordiv),
    "mod": (np.remainder, m_elem.floormod),
    "remainder": (np.remainder, m_elem.floormod),
    "power": (np.power, m_elem.pow),
    "pow": (np.power, m_elem.pow),
    "maximum": (np.maximum, m_elem.maximum),
    "minimum": (np.minimum, m_elem.minimum),
    "equal": (np.equal, m_elem.equal),
    "not_equal": (np.not_equal, m_elem.not_equal),
    "less": (np.less, m_elem.less),
    "less_equal": (np.less_equal, m_elem.less_equal),
    "greater": (np.greater, m_elem.greater),
    "greater_equal": (np.greater_equal, m_elem.greater_equal),
    "logical_and": (np.logical_and, m_elem.logical_and),
    "logical_or": (np.logical_or, m_elem.logical_or),
    "logical_xor": (np.logical_xor, m_elem.logical_xor),
    "bitwise_and": (np.bitwise_and, m_elem.bitwise_and),
    "bitwise_or": (np.bitwise_or, m_elem.bitwise_or),
    "bitwise_xor": (np.bitwise_xor, m_elem.bitwise_xor),
    "arctan2": (np.arctan2, sp_elem.atan2_op),
    "hypot": (np.hypot, sp_elem.hypot_op),
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
        return m_elem.log(a) / np.asarray(np.log(base), dtype=a._value.dtype)[()]
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
    from ..ops.nn_ops import softplus
    with np.errstate(invalid="ignore"):     # inf - inf: NaN in the branch not taken
        out = m_elem.where(m_elem.greater_equal(a, b), a + softplus(b - a), b + softplus(a - b))
    same_inf = m_elem.logical_and(m_elem.is_inf(a), m_elem.equal(a, b))     # -inf, -inf gives -inf
    return m_elem.where(same_inf, a, out) if np.any(same_inf._value) else out


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
            r = m_elem.where(m_elem.is_nan(b), a, r)
            r = m_elem.where(m_elem.is_nan(a), b, r)
        return r
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "NumPy's ``%s``: %s, ignoring NaNs (a composite)." % (name, op.name)
    return f


FUNCTIONS["logaddexp"] = logaddexp
FUNCTIONS["logaddexp2"] = logaddexp2
FUNCTIONS["fmax"] = _fextreme("fmax", np.fmax, m_elem.maximum)
FUNCTIONS["fmin"] = _fextreme("fmin", np.fmin, m_elem.minimum)


def real(val):
    """NumPy's ``real``: the real part (a real array as it is)."""
    return m_elem.real(tensor(val))


def imag(val):
    """NumPy's ``imag``: the imaginary part (zeros for a real array)."""
    return m_elem.imag(tensor(val))


def conjugate(x, /, out=None):
    """NumPy's ``conjugate`` (and ``conj``)."""
    check_out("conjugate", out)
    return m_elem.conj(tensor(x))


def angle(z, deg=False):
    """NumPy's ``angle``: ``arctan2(imag, real)`` in radians (degrees with ``deg``); real
    input is made float as NumPy does."""
    x = tensor(z)
    if x._value.dtype.kind not in "fc":
        x = m_elem.cast(x, np.float64)
    a = m_elem.angle(x)
    return a * np.asarray(180 / np.pi, dtype=a._value.dtype)[()] if deg else a


FUNCTIONS["conjugate"] = FUNCTIONS["conj"] = conjugate


def sinc(x):
    """NumPy's ``sinc``: ``sin(pi x) / (pi x)``, 1 at 0 (a composite). Near 0 (|pi x| <
    1e-3) it is the series 1 - y^2/6 + y^4/120, equal to sin(y)/y in float64 there, so its
    derivatives are exact at 0 too (sin(y)/y alone has none there)."""
    (a,) = ufunc_operands(np.sin, (x,))
    dt = a._value.dtype
    y = a * np.asarray(np.pi, dtype=dt)[()]
    small = m_elem.less(m_elem.abs(y), np.asarray(1e-3, dtype=dt)[()])
    one = _core.wrap(np.ones((), dt))
    safe = m_elem.where(small, one, y)
    y2 = y * y
    series = 1 - y2 * np.asarray(1 / 6, dtype=dt)[()] + y2 * y2 * np.asarray(1 / 120, dtype=dt)[()]
    return m_elem.where(small, series, m_elem.sin(safe) / safe)


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
    r = m_elem.where(m_elem.is_nan(a), const(nan), a)
    r = m_elem.where(m_elem.logical_and(m_elem.is_inf(a), m_elem.greater(a, 0)), const(big), r)
    return m_elem.where(m_elem.logical_and(m_elem.is_inf(a), m_elem.less(a, 0)), const(small), r)


def round(a, decimals=0, out=None):  # noqa: A001 - NumPy's name
    """NumPy's ``round`` (half to even); ``decimals`` scales by 10**decimals around it."""
    check_out("round", out)
    x = tensor(a)
    if x._value.dtype.kind != "f":
        return x if decimals >= 0 else FUNCTIONS["multiply"](
            FUNCTIONS["floor_divide"](x, 10 ** -decimals), 10 ** -decimals)
    if decimals == 0:
        return m_elem.round(x)
    scale = np.asarray(10.0 ** decimals, dtype=x._value.dtype)[()]
    return m_elem.round(x * scale) / scale


def where(condition, x=None, y=None, /):
    """NumPy's ``where``: ``x`` where ``condition`` holds, else ``y`` (promoted to one dtype);
    with only ``condition``, a tuple of index arrays (one per axis), as ``np.nonzero``."""
    c = tensor(condition)
    if c._value.dtype != np.bool_:
        c = m_elem.cast(c, np.bool_)
    if x is None and y is None:
        return nonzero(c)
    if x is None or y is None:
        raise InvalidArgumentError("fasteager.numpy.where: give both x and y, or neither")
    a, b = promote((x, y))
    return m_elem.where(c, a, b)


def nonzero(a):
    """NumPy's ``nonzero``: a tuple of int64 index arrays, one per axis."""
    x = tensor(a)
    if x._value.dtype != np.bool_:
        x = m_elem.cast(x, np.bool_)
    idx = m_elem.where(x)
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
    return registry.execute(m_elem.clip_by_value_op, x, lo, hi)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's ``isclose``: ``|a - b| <= atol + rtol * |b|`` (a composite, bool result)."""
    a, b = promote((a, b))
    if a._value.dtype.kind not in "fc":
        a, b = m_elem.cast(a, np.float64), m_elem.cast(b, np.float64)
    close = m_elem.less_equal(m_elem.abs(a - b), atol + rtol * m_elem.abs(b))
    close = m_elem.logical_or(close, m_elem.equal(a, b))   # infinities of the same sign
    if equal_nan:
        close = m_elem.logical_or(close, m_elem.logical_and(m_elem.is_nan(a), m_elem.is_nan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's ``allclose``: a Python bool."""
    return bool(np.all(isclose(a, b, rtol, atol, equal_nan)._value))


def array_equal(a1, a2, equal_nan=False):
    """NumPy's ``array_equal``: a Python bool (shapes and values; no gradient)."""
    return bool(np.array_equal(np.asarray(tensor(a1)), np.asarray(tensor(a2)),
                               equal_nan=equal_nan))
