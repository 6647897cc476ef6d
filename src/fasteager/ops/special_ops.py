"""Special functions (erf, the gamma family, hyperbolic and inverse trigonometric functions)
and order statistics (sort, argsort, top_k).

erf runs in C (``_special.pyx``, libm's ``erf``/``erff``: float32 stays float32). lgamma,
digamma and polygamma are vectorized NumPy (a Lanczos sum, and the recurrence plus the
asymptotic series), computed in float64 and rounded once to the input's dtype; each one's
gradient is the next, so derivatives of any order exist. Sorting
ops compute a permutation with NumPy and gather values through ``getitem``, so their
gradients scatter back through the permutation and are differentiable again (order 2).
Indices are int32 (TensorFlow's ``argsort`` and ``top_k`` dtype).
"""
import collections
import math

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .array_ops import getitem
from .math_ops import FLOAT_C, _cj, convert_same, exp, rsqrt, sqrt, square
from .registry import FLOAT, NUMERIC, as_int, defop, execute, single_axis, unbroadcast

convert_to_tensor = _core.convert_to_tensor

try:
    from .._special import erf as _erf_c
except ImportError:  # not compiled (source checkout without build_ext): exact but slow
    _erf_scalar = np.vectorize(math.erf, otypes=[np.float64])

    def _erf_c(x):
        return _erf_scalar(x).astype(x.dtype, copy=False)


def _erf_kernel(x):
    # the C loops are float32 and float64: float16 runs in float32 and is rounded once
    if x.dtype == np.float16:
        return _erf_c(x.astype(np.float32)).astype(np.float16)
    return _erf_c(x)

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

# d erf(x) = 2/sqrt(pi) exp(-x^2) dx
erf_op = defop("erf", _erf_kernel, kinds=FLOAT,
               grads=[lambda g, ans, x: g * _TWO_OVER_SQRT_PI * exp(-(x * x))])


_erfc_scalar = np.vectorize(math.erfc, otypes=[np.float64])


def _erfc_kernel(x):
    # libm's erfc elementwise: 1 - erf(x) would lose every digit in the right tail
    return _erfc_scalar(x).astype(x.dtype, copy=False)


# d erfc(x) = -2/sqrt(pi) exp(-x^2) dx
erfc_op = defop("erfc", _erfc_kernel, kinds=FLOAT,
                grads=[lambda g, ans, x: g * -_TWO_OVER_SQRT_PI * exp(-(x * x))])


def erfc(x, name=None):
    """The complementary error function ``1 - erf(x)``, accurate in the right tail.

    >>> fe.math.erfc([0., 1.]).numpy()
    array([1.       , 0.1572992], dtype=float32)
    """
    return execute(erfc_op, x)


def erf(x, name=None):
    """The Gauss error function, elementwise (float16 computes in float32).

    >>> fe.math.erf([0., 1.]).numpy()
    array([0.       , 0.8427008], dtype=float32)
    """
    return execute(erf_op, x)


# ---- hyperbolic and inverse trigonometric functions --------------------------------------

# Complex inputs (as TensorFlow's): the gradient is g * conj(f'(z)) (see math_ops._cj).
# d sinh(x) = cosh(x) dx;  d cosh(x) = sinh(x) dx
sinh = defop("sinh", np.sinh, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(cosh(x))],
             quiet=True)
cosh = defop("cosh", np.cosh, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(sinh(x))],
             quiet=True)

# d asinh(x) = dx / sqrt(x^2 + 1)
asinh = defop("asinh", np.arcsinh, kinds=FLOAT_C,
              grads=[lambda g, ans, x: g / _cj(sqrt(square(x) + 1))])

# d acosh(x) = dx / (sqrt(x - 1) sqrt(x + 1))  (x > 1; the principal branch for complex x,
# where sqrt(x^2 - 1) would take the other sign left of the imaginary axis)
acosh = defop("acosh", np.arccosh, kinds=FLOAT_C,
              grads=[lambda g, ans, x: g / _cj(sqrt(x - 1) * sqrt(x + 1))], quiet=True)

# d atanh(x) = dx / (1 - x^2)
atanh = defop("atanh", np.arctanh, kinds=FLOAT_C,
              grads=[lambda g, ans, x: g / _cj(1 - square(x))], quiet=True)

# d asin(x) = dx / sqrt(1 - x^2);  d acos(x) = -dx / sqrt(1 - x^2)
asin = defop("asin", np.arcsin, kinds=FLOAT,
             grads=[lambda g, ans, x: g * rsqrt(1 - square(x))], quiet=True)
acos = defop("acos", np.arccos, kinds=FLOAT,
             grads=[lambda g, ans, x: -(g * rsqrt(1 - square(x)))], quiet=True)

# d atan(x) = dx / (1 + x^2)
atan = defop("atan", np.arctan, kinds=FLOAT, grads=[lambda g, ans, x: g / (1 + square(x))])


def _atan2_dy(g, ans, y, x):
    # d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
    return unbroadcast(g * x / (square(x) + square(y)), y)


def _atan2_dx(g, ans, y, x):
    return unbroadcast(-(g * y) / (square(x) + square(y)), x)


atan2_op = defop("atan2", np.arctan2, kinds=FLOAT, grads=[_atan2_dy, _atan2_dx], quiet=True)

# hypot(x, y) = sqrt(x^2 + y^2) without overflow: d/dx = x / hypot, d/dy = y / hypot
hypot_op = defop("hypot", np.hypot, kinds=FLOAT, quiet=True,
                 grads=[lambda g, ans, x, y: unbroadcast(g * x / ans, x),
                        lambda g, ans, x, y: unbroadcast(g * y / ans, y)])

_LN2 = math.log(2.0)

# d 2^x = 2^x log(2) dx  (exp2 is exact at integers, which exp(x log 2) is not)
exp2 = defop("exp2", np.exp2, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(ans) * _LN2],
             quiet=True)


def atan2(y, x, name=None):
    """The angle of the point ``(x, y)``, in ``[-pi, pi]`` (TensorFlow's argument order).

    >>> fe.math.atan2(1.0, 1.0).numpy()
    0.7853981
    """
    y, x = convert_same(y, x)
    return execute(atan2_op, y, x)


def hypot(x, y, name=None):
    """``sqrt(x**2 + y**2)`` elementwise, without overflow or underflow in between."""
    x, y = convert_same(x, y)
    return execute(hypot_op, x, y)


# ---- the gamma family -----------------------------------------------------------------------

# Lanczos (g = 7, 9 terms; Numerical Recipes 3rd ed., sec. 6.1): ~1e-15 relative for x >= 0.5
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
# Bernoulli numbers B_2 ... B_16 for the asymptotic series of digamma and Hurwitz zeta
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_SHIFT_TO = 15.0      # the series are used at x >= 15 (the recurrence brings x there)


def _in_float64(fn):
    # the kernels compute in float64 and round once to the input's dtype
    def kernel(x, *args):
        with np.errstate(all="ignore"):
            out = fn(np.asarray(x, dtype=np.float64), *args)
        return np.asarray(out, dtype=x.dtype)
    kernel.__wrapped__ = fn
    return kernel


def _lgamma_np(x):
    # log|Gamma(x)|; x < 0.5 through the reflection Gamma(x) Gamma(1 - x) = pi / sin(pi x)
    reflect = x < 0.5
    z = np.where(reflect, 1.0 - x, x) - 1.0
    total = np.full_like(z, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        total += c / (z + i)
    t = z + _LANCZOS_G + 0.5
    out = _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(total)
    out = np.where((x == 1) | (x == 2), 0.0, out)     # exact zeros, as libm's lgamma
    poles = (x <= 0) & (x == np.floor(x))
    refl = np.log(np.pi / np.abs(np.sin(np.pi * x))) - out
    # lgamma(+-inf) = +inf (C99); the series would give inf - inf there
    return np.where(poles | (x == np.inf), np.inf, np.where(reflect, refl, out))


def _digamma_np(x):
    # psi(x) = psi(x + n) - sum_{k<n} 1 / (x + k) up to x + n >= 15, then the asymptotic
    # series ln x - 1/(2x) - sum B_2k / (2k x^2k); x < 0 through the reflection
    # psi(1 - x) - psi(x) = pi / tan(pi x)
    reflect = x < 0
    z = np.where(reflect, 1.0 - x, x)
    acc = np.zeros_like(z)
    while True:
        low = z < _SHIFT_TO
        if not low.any():
            break
        acc -= np.where(low, 1.0 / np.where(low, z, 1.0), 0.0)
        z = np.where(low, z + 1.0, z)
    inv2 = 1.0 / (z * z)
    series = np.zeros_like(z)
    for k in range(len(_BERNOULLI), 0, -1):
        series = (series + _BERNOULLI[k - 1] / (2 * k)) * inv2
    out = acc + np.log(z) - 0.5 / z - series
    out = np.where(reflect, out - np.pi / np.tan(np.pi * x), out)
    return np.where((x <= 0) & (x == np.floor(x)), np.nan, out)


# the upward recurrence takes one step per unit below _SHIFT_TO: arguments below this
# would take millions of steps (and -inf forever); polygamma gives NaN there
_ZETA_LOWEST = -float(2 ** 20)


_HEAD_BLOCK = 256


def _zeta_head(s, z):
    """``sum_{k<m} (z + k)^-s`` and ``z + m``, with m the steps that bring each z to
    _SHIFT_TO or above. The terms go in blocks of _HEAD_BLOCK per element (NumPy loops,
    not one Python step per unit of the farthest z), only for the elements that need
    them."""
    s = np.broadcast_to(np.asarray(s, np.float64), z.shape)
    steps = np.where(z < _SHIFT_TO, np.ceil(_SHIFT_TO - np.where(z < _SHIFT_TO, z, 0.0)), 0.0)
    acc = np.zeros_like(z)
    if not steps.any():
        return acc, z
    most = int(steps.max())
    idx = np.flatnonzero(steps)
    zs, ss, ms = z.ravel()[idx], s.ravel()[idx], steps.ravel()[idx]
    total = np.zeros(idx.size)
    for k0 in range(0, most, _HEAD_BLOCK):
        live = ms > k0
        ks = k0 + np.arange(min(_HEAD_BLOCK, most - k0), dtype=np.float64)
        terms = (zs[live, None] + ks) ** -ss[live, None]
        total[live] += np.where(ks < ms[live, None], terms, 0.0).sum(axis=1)
    np.put(acc, idx, total)     # (acc.ravel() would be a copy for a Fortran-order z)
    return acc, z + steps


def _hurwitz_zeta_np(s, x):
    # zeta(s, x) = sum_{k<n} (x + k)^-s + zeta(s, x + n), and for x >= 15 Euler-Maclaurin:
    # x^(1-s)/(s-1) + x^-s/2 + sum_j B_2j/(2j)! s(s+1)...(s+2j-2) x^(-s-2j+1)
    out_of_reach = ~(x >= _ZETA_LOWEST)          # NaN and -inf included
    z = np.where(out_of_reach, np.inf, x)
    acc, z = _zeta_head(s, z)
    out = acc + z ** (1.0 - s) / (s - 1.0) + 0.5 * z ** -s
    # term_j = s (s+1) ... (s + 2j - 2) / (2j)! * z^(-s-2j+1), kept as one running
    # product: for a huge s the rising factorial alone overflows while z^-s underflows,
    # and their product (0) must not become inf * 0
    term = s * z ** (-s - 1.0) / 2.0
    for j, b in enumerate(_BERNOULLI, start=1):
        out = out + b * term
        term = term * ((s + 2 * j - 1) * (s + 2 * j)
                       / ((2 * j + 1) * (2 * j + 2))) / (z * z)
    return np.where(out_of_reach, np.nan, out)


# n! is finite in float64 up to n = 170, in float32 up to n = 34
_MAX_FACTORIAL = 170


def _polygamma_np(x, n, dtype):
    # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1, in TensorFlow's (Eigen's)
    # arithmetic: n! and the product in the output dtype (float16 in float32), so n! past
    # that dtype's range is inf and the result inf or NaN (inf * 0) as TensorFlow gives,
    # at once; zeta in float64. No step depends on n's size.
    if n == 0:
        return _digamma_np(x)
    dt = np.dtype(np.float64 if dtype == np.float64 else np.float32)
    with np.errstate(over="ignore"):
        fact = dt.type(math.factorial(n) if n <= _MAX_FACTORIAL else np.inf)
        s = dt.type(n) + dt.type(1)             # n + 1 rounded as TensorFlow rounds it
    sign = dt.type(-1.0 if s % 2 == 1 else 1.0)
    zeta = _hurwitz_zeta_np(float(s), x).astype(dt)
    out = sign * fact * zeta
    # at the poles x = 0, -1, ... zeta(n + 1, x) is inf for even n + 1, NaN for odd
    poles = (x <= 0) & (x == np.floor(x))
    return np.where(poles, np.inf if s % 2 == 0 else np.nan, out)


# d lgamma(x) = digamma(x) dx
lgamma_op = defop("lgamma", _in_float64(_lgamma_np), kinds=FLOAT, nin=1,
                  grads=[lambda g, ans, x: g * digamma(x)])

# d digamma(x) = polygamma(1, x) dx
digamma_op = defop("digamma", _in_float64(_digamma_np), kinds=FLOAT, nin=1,
                   grads=[lambda g, ans, x: g * polygamma(1, x)])


def _polygamma_fwd(x, n):
    with np.errstate(all="ignore"):
        return np.asarray(_polygamma_np(np.asarray(x, np.float64), n, x.dtype), x.dtype)


# d psi^(n)(x) = psi^(n+1)(x) dx
polygamma_op = defop("polygamma", _polygamma_fwd, kinds=FLOAT,
                     grads=[lambda g, ans, x, n: g * polygamma(n + 1, x)])


def lgamma(x, name=None):
    """``log|Gamma(x)|`` elementwise (inf at the poles 0, -1, -2, ...).

    >>> fe.math.lgamma([1.0, 3.0]).numpy()
    array([0.       , 0.6931472], dtype=float32)
    """
    return execute(lgamma_op, x)


def digamma(x, name=None):
    """The digamma function ``psi(x) = d/dx lgamma(x)`` elementwise (nan at the poles)."""
    return execute(digamma_op, x)


def polygamma(a, x, name=None):
    """The ``a``-th derivative of digamma, for an integer order ``a >= 0``.

    >>> fe.math.polygamma(1, 1.0).numpy()     # pi^2 / 6
    1.644934
    """
    n = as_int("polygamma", np.asarray(a).reshape(-1)[0] if np.size(a) == 1 else a, "a")
    if n < 0:
        raise InvalidArgumentError("polygamma: a must be a non-negative integer (expected "
                                   "a >= 0, got %d)" % n)
    x = convert_to_tensor(x)
    if n == 0:
        return execute(digamma_op, x)
    return execute(polygamma_op, x, n=n)


# ---- sorting ------------------------------------------------------------------------------

def _argsort_np(x, axis, descending):
    # stable both ways: ties keep their original order (TensorFlow's top_k rule); the
    # descending sort runs an ascending stable sort on the reversed axis and maps back
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(rev, axis)


def _check_direction(opname, direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise InvalidArgumentError("%s: direction must be 'ASCENDING' or 'DESCENDING' (got %r)"
                                   % (opname, direction))
    return direction == "DESCENDING"


argsort_op = defop("argsort", lambda x, axis, descending:
                   _argsort_np(x, axis, descending).astype(np.int32),
                   kinds=NUMERIC, nin=1, no_grad="returns integer indices")


def _along_axis_key(indices, axis):
    """A NumPy key that picks ``indices`` along ``axis`` (np.take_along_axis as a getitem key),
    so the gather is differentiable through getitem's scatter-add gradient."""
    key = []
    ndim = indices.ndim
    for d in range(ndim):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * ndim
            shape[d] = indices.shape[d]
            key.append(np.arange(indices.shape[d]).reshape(shape))
    return tuple(key)


def _sort_axis(opname, x, axis):
    if x._value.ndim == 0:
        raise InvalidArgumentError("%s: input must have rank >= 1 (expected a vector or more, "
                                   "got a scalar)" % opname)
    return single_axis(opname, axis, x._value.ndim)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis`` (ties keep their order)."""
    x = convert_to_tensor(values)
    desc = _check_direction("argsort", direction)
    return execute(argsort_op, x, axis=_sort_axis("argsort", x, axis), descending=desc)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``; differentiable (the gradient follows the permutation).

    >>> fe.sort([3., 1., 2.], direction="DESCENDING").numpy()
    array([3., 2., 1.], dtype=float32)
    """
    x = convert_to_tensor(values)
    desc = _check_direction("sort", direction)
    ax = _sort_axis("sort", x, axis)
    idx = _argsort_np(_core.data_of(x, "sort"), ax, desc)
    return execute(getitem, x, key=_along_axis_key(idx, ax))


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None):
    """The ``k`` largest entries along the last axis and their int32 indices.

    Returns ``(values, indices)``; ties go to the lower index; ``values`` is differentiable.
    """
    x = convert_to_tensor(input)
    if x._value.ndim == 0:
        raise InvalidArgumentError("top_k: input must have rank >= 1 (expected a vector or "
                                   "more, got a scalar)")
    k = as_int("top_k", k, "k")
    n = x._value.shape[-1]
    if not 0 <= k <= n:
        raise InvalidArgumentError("top_k: k must be in [0, last dimension] (expected "
                                   "0 <= k <= %d, got %d)" % (n, k))
    ax = x._value.ndim - 1
    idx = _argsort_np(_core.data_of(x, "top_k"), ax, True)[..., :k]
    values = execute(getitem, x, key=_along_axis_key(idx, ax))
    return TopKV2(values, _core.wrap(idx.astype(np.int32)))
