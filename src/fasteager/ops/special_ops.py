"""Special functions: erf/erfc, the gamma family (lgamma, digamma, polygamma), and below
them the inverse error functions, the normal quantile, Hurwitz zeta, incomplete gamma and
beta, modified Bessel I0/I1, the ``xlogy`` family, ``lbeta`` and ``polyval``.

erf runs in C (``_special.pyx``, libm's ``erf``/``erff``: float32 stays float32). lgamma,
digamma and polygamma are vectorized NumPy (a Lanczos sum, and the recurrence plus the
asymptotic series), computed in float64 and rounded once to the input's dtype; each one's
gradient is the next, so derivatives of any order exist.

Beyond the gamma family, every kernel computes in float64 and rounds once to the input's
dtype (float32 stays float32), scipy-free:

- ``ndtri`` starts from Acklam's rational approximation (relative error 1.2e-9) and takes
  two Halley steps on libm's ``erfc``, which is accurate in both tails; ``erfinv`` and
  ``erfcinv`` reach it through ``p = (1 + y) / 2`` and ``q = (1 - y) / 2``, both exact, and
  for ``|y| < 0.5``, where ``p`` would round ``y`` away, Newton steps on ``erf`` itself;
- ``igamma``/``igammac``: the power series of P for ``x < a + 1``, Lentz's continued
  fraction of Q otherwise (Numerical Recipes, 6.2); ``betainc``: the continued fraction
  of I_x(a, b) on the side of ``(a + 1) / (a + b + 2)`` where it converges (NR 6.4);
- Bessel I0/I1: the power series for ``|x| <= 20`` and the asymptotic expansion beyond
  (terms there fall below e^-40 before they start growing); the scaled ``i0e``/``i1e``
  never form ``exp(|x|)``.

Gradients are TensorFlow's: ``zeta`` only in ``q``, ``betainc`` only in ``x`` (TF returns
None for the others), ``igamma``/``igammac`` in both, ``a`` through ``igamma_grad_a``
(the series of dP/da term by term), which, as TensorFlow's IgammaGradA, has no gradient
of its own.
"""
import math

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .array_ops import zeros_like
from .elementwise_ops import (_ones_of, _zeros_of, convert_same, equal, exp, log, log1p, sign,
                              truediv, where)
from .reduction_ops import reduce_sum
from .registry import as_int, defop, execute, FLOAT, moved_names, unbroadcast, unregistered_gradient

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

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_SQRT2 = math.sqrt(2.0)
_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


# ---- normal quantile and inverse error functions ------------------------------------------

_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00)


def _poly(coeffs, t):
    out = np.zeros_like(t)
    for c in coeffs:
        out = out * t + c
    return out


def _lower_quantile(p):
    """x with Phi(x) = p for 0 < p <= 0.5 (Acklam, then two Halley steps)."""
    central = p > 0.02425
    r = np.where(central, p - 0.5, 0.0)
    r2 = r * r
    x_central = _poly(_A, r2) * r / (_poly(_B, r2) * r2 + 1.0)
    t = np.sqrt(-2.0 * np.log(np.where(central, 0.5, p)))
    x_tail = _poly(_C, t) / (_poly(_D, t) * t + 1.0)
    x = np.where(central, x_central, x_tail)
    for _ in range(2):
        err = 0.5 * _erfc(-x / _SQRT2) - p
        u = err * _SQRT_2PI * np.exp(0.5 * x * x)
        step = x - u / (1.0 + 0.5 * x * u)
        # subnormal p: exp(x^2 / 2) overflows; Acklam's 1e-9 stands there
        x = np.where(np.isfinite(step), step, x)
    return x


def _quantile_pq(p, q):
    """x with Phi(x) = p, given p and q = 1 - p (each exact where it is small)."""
    lower = p <= 0.5
    small = np.where(lower, p, q)
    ok = small > 0
    z = _lower_quantile(np.where(ok, small, 0.25))
    z = np.where(ok, z, -np.inf)
    out = np.where(lower, z, -z)
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, out)


def _erfinv_small(y):
    # |y| < 0.5: Newton on erf from the first Taylor term (erf' = 2/sqrt(pi) exp(-x^2))
    x = 0.5 * _SQRT_PI * y
    for _ in range(4):
        x = x - (_erf(x) - y) * 0.5 * _SQRT_PI * np.exp(x * x)
    return x


def _erfinv_np(y):
    small = np.abs(y) < 0.5
    big = _quantile_pq((1.0 + y) / 2.0, (1.0 - y) / 2.0) / _SQRT2
    return np.where(small, _erfinv_small(np.where(small, y, 0.0)), big)


def _erfcinv_np(z):
    # erfcinv(z) = erfinv(1 - z); near z = 1 that difference is exact, in the tails z / 2 is
    y = 1.0 - z
    small = np.abs(y) < 0.5
    big = -_quantile_pq(z / 2.0, (2.0 - z) / 2.0) / _SQRT2
    return np.where(small, _erfinv_small(np.where(small, y, 0.0)), big)


def _ndtri_np(p):
    return _quantile_pq(p, 1.0 - p)


# d erfinv(y) = sqrt(pi)/2 exp(erfinv(y)^2) dy
erfinv_op = defop("erfinv", _in_float64(_erfinv_np), kinds=FLOAT, nin=1,
                  grads=[lambda g, ans, y: g * (0.5 * _SQRT_PI) * exp(ans * ans)])

# d erfcinv(z) = -sqrt(pi)/2 exp(erfcinv(z)^2) dz
erfcinv_op = defop("erfcinv", _in_float64(_erfcinv_np), kinds=FLOAT, nin=1,
                   grads=[lambda g, ans, z: g * (-0.5 * _SQRT_PI) * exp(ans * ans)])

# d ndtri(p) = sqrt(2 pi) exp(ndtri(p)^2 / 2) dp
ndtri_op = defop("ndtri", _in_float64(_ndtri_np), kinds=FLOAT, nin=1,
                 grads=[lambda g, ans, p: g * _SQRT_2PI * exp(0.5 * ans * ans)])


def erfinv(x, name=None):
    """The inverse error function: ``erf(erfinv(x)) = x`` on (-1, 1); +-inf at +-1.

    >>> fe.math.erfinv([0.5]).numpy()
    array([0.47693628], dtype=float32)
    """
    return execute(erfinv_op, convert_to_tensor(x))


def erfcinv(x, name=None):
    """The inverse complementary error function on (0, 2)."""
    return execute(erfcinv_op, convert_to_tensor(x))


def ndtri(x, name=None):
    """The standard normal quantile: ``x`` with ``P(N(0, 1) <= x) = p``."""
    return execute(ndtri_op, convert_to_tensor(x))


# ---- Hurwitz zeta -------------------------------------------------------------------------

def _zeta_np(x, q):
    # Cephes' domain: inf at x = 1 and at the poles q = 0, -1, ...; nan for x < 1 (and
    # for q < 0 with x not an integer, where (q + k)^-x is not real)
    x, q = np.broadcast_arrays(x, q)
    out = _hurwitz_zeta_np(np.where(x > 1, x, 2.0), q)
    # 64 terms of the sum itself are exact wherever (1 + 64/q)^-x is negligible: there
    # (large x, x = inf included) Euler-Maclaurin loses digits or overflows
    with np.errstate(all="ignore"):
        direct = (x > 1) & (q > 0) & (x * np.log1p(64.0 / np.where(q > 0, q, 1.0)) > 45)
        if direct.any():
            qd, xd = q[direct], x[direct]
            out[direct] = sum(np.power(qd + k, -xd) for k in range(64))
    # what is left NaN for large x is an underflow (0 times an overflowed factor)
    out = np.where((x > 60) & (q > 0) & np.isnan(out), 0.0, out)
    out = np.where(x > 1, out, np.where(x == 1, np.inf, np.nan))
    return np.where((x > 1) & (q <= 0) & (q == np.floor(q)), np.inf, out)


def _zeta_fwd(x, q):
    with np.errstate(all="ignore"):
        out = _zeta_np(np.asarray(x, np.float64), np.asarray(q, np.float64))
    return out.astype(np.result_type(x, q))


# d zeta(x, q) / dq = -x zeta(x + 1, q); TensorFlow has no derivative in x
zeta_op = defop("zeta", _zeta_fwd, kinds=FLOAT,
                grads=[None, lambda g, ans, x, q: unbroadcast(
                    g * -x * execute(zeta_op, x + 1, q), q)])


def zeta(x, q, name=None):
    """The Hurwitz zeta function ``sum_k (q + k)^-x`` (inf at x = 1, nan for x < 1).

    >>> fe.math.zeta(2.0, 1.0).numpy()     # pi^2 / 6
    1.644934
    """
    x, q = convert_same(x, q)
    return execute(zeta_op, x, q)


# ---- incomplete gamma ---------------------------------------------------------------------

_EPS = 1e-16
_TINY = 1e-300
_MAX_ITER = 2000


def _gamma_series(a, x):
    """P(a, x) by its power series (valid everywhere; used for x < a + 1)."""
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    for _ in range(_MAX_ITER):
        ap = ap + 1.0
        term = term * x / ap
        total = total + term
        if np.all(np.abs(term) <= np.abs(total) * _EPS):
            break
    return total * np.exp(-x + a * np.log(x) - _lgamma_np(a))


def _gamma_cf(a, x):
    """Q(a, x) by Lentz's continued fraction (used for x >= a + 1)."""
    b = x + 1.0 - a
    c = np.full_like(x, 1.0 / _TINY)
    d = 1.0 / np.where(b == 0, _TINY, b)
    h = d.copy()
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) <= _EPS):
            break
    return np.exp(-x + a * np.log(x) - _lgamma_np(a)) * h


def _igamma_pq(a, x, upper):
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    series = ok & (x < a + 1.0)
    cf = ok & ~series
    if series.any():
        p = _gamma_series(a[series], x[series])
        out[series] = 1.0 - p if upper else p
    if cf.any():
        q = _gamma_cf(a[cf], x[cf])
        out[cf] = q if upper else 1.0 - q
    # TensorFlow's (Eigen's) edges: P(a, 0) = 0 for every a, Q(a, 0) = 1 for a > 0;
    # x = inf gives P = 1, Q = 0; a = inf, x > 0 gives P = 0, Q = 1 (and both 0 at x = inf)
    if upper:
        out[(a > 0) & (x == 0)] = 1.0
        out[(a == np.inf) & (x > 0)] = 1.0
        out[(a > 0) & (x == np.inf)] = 0.0
    else:
        out[x == 0] = 0.0
        out[(a > 0) & (x == np.inf)] = 1.0
        out[(a == np.inf) & (x > 0)] = 0.0
    return out


def _round_to(out, a, x):
    return out.astype(np.result_type(a, x))


def _igamma_grad_a_np(a, x):
    """dP(a, x)/da: the series sum_n t_n (log x - psi(a + n + 1)), with
    t_n = x^(a+n) e^-x / Gamma(a + n + 1), term by term."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.zeros(a.shape)
    valid = (a > 0) & np.isfinite(a) & (x >= 0)      # x = 0 and x = inf: dP/da = 0
    ok = valid & (x > 0) & np.isfinite(x)
    if not ok.any():
        return np.where(valid, out, np.nan)
    # the series needs about (x - a) + 20 sqrt(x) terms: where that is more than
    # _SERIES_STEPS, a central difference of P (or Q, where P is near 1) instead, so the
    # work stays bounded by the output's size, never by the values
    steps = np.maximum(x - a, 0.0) + 20.0 * np.sqrt(np.where(ok, x, 0.0)) + 100.0
    far = ok & (steps > _SERIES_STEPS)
    if far.any():
        out[far] = _igamma_grad_a_by_difference(a[far], x[far])
        ok = ok & ~far
        if not ok.any():
            return np.where(valid, out, np.nan)
    av, xv = a[ok], x[ok]
    log_x = np.log(xv)
    t = np.exp(av * log_x - xv - _lgamma_np(av + 1.0))
    psi = _digamma_np(av + 1.0)
    total = t * (log_x - psi)
    n = 0
    limit = int(np.max(xv) + 20 * np.sqrt(np.max(xv)) + 100)
    peak = np.max(xv - av)          # the terms grow until n is about x - a
    while n < limit:
        n += 1
        psi = psi + 1.0 / (av + n)
        t = t * xv / (av + n)
        step = t * (log_x - psi)
        total = total + step
        if n > peak and np.all(np.abs(step) <= _EPS * (np.abs(total) + _TINY)):
            break
    out[ok] = total
    return np.where(valid, out, np.nan)


_SERIES_STEPS = 5000


def _igamma_grad_a_by_difference(a, x):
    """dP(a, x)/da from central differences (P(a + h) - P(a - h)) / 2h at h and h/2,
    Richardson-combined (Numerical Recipes 5.7), through Q where x >= a + 1 (there P is
    near 1 and Q keeps the digits). P varies in a on the scale sqrt(a); h is a small
    part of that, kept inside a > 0."""
    h = np.minimum(1e-2 * np.sqrt(np.maximum(a, 1.0)), 0.5 * a)
    upper = x >= a + 1.0

    def central(step):
        d_q = (_igamma_pq(a + step, x, True) - _igamma_pq(a - step, x, True)) / (2 * step)
        d_p = (_igamma_pq(a + step, x, False) - _igamma_pq(a - step, x, False)) / (2 * step)
        return np.where(upper, -d_q, d_p)
    return (4.0 * central(0.5 * h) - central(h)) / 3.0


igamma_grad_a_op = defop("igamma_grad_a",
                         lambda a, x: _round_to(_igamma_grad_a_np(a, x), a, x),
                         kinds=FLOAT, nin=2,
                         joint_grad=unregistered_gradient("igamma_grad_a", "IgammaGradA"))


def _dp_dx(a, x):
    # d P(a, x) / dx = x^(a-1) e^-x / Gamma(a)
    return exp((a - 1) * log(x) - x - lgamma(a))


def _gamma_grads(sign_):
    def d_a(g, ans, a, x):
        return unbroadcast(g * sign_ * execute(igamma_grad_a_op, a, x), a)

    def d_x(g, ans, a, x):
        return unbroadcast(g * sign_ * _dp_dx(a, x), x)
    return [d_a, d_x]


igamma_op = defop("igamma", lambda a, x: _round_to(_igamma_pq(a, x, False), a, x),
                  kinds=FLOAT, quiet=True, grads=_gamma_grads(1.0))
igammac_op = defop("igammac", lambda a, x: _round_to(_igamma_pq(a, x, True), a, x),
                   kinds=FLOAT, quiet=True, grads=_gamma_grads(-1.0))


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function ``P(a, x)``.

    >>> fe.math.igamma(1.0, 1.0).numpy()     # 1 - e^-1
    0.63212055
    """
    a, x = convert_same(a, x)
    return execute(igamma_op, a, x)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    a, x = convert_same(a, x)
    return execute(igammac_op, a, x)


# ---- incomplete beta ----------------------------------------------------------------------

def _beta_cf(a, b, x):
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    h = d.copy()
    for m in range(1, _MAX_ITER):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) <= _EPS):
            break
    return h


def _betainc_np(a, b, x):
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (b > 0) & (x > 0) & (x < 1)
    if ok.any():
        av, bv, xv = a[ok], b[ok], x[ok]
        front = np.exp(_lgamma_np(av + bv) - _lgamma_np(av) - _lgamma_np(bv)
                       + av * np.log(xv) + bv * np.log1p(-xv))
        direct = xv < (av + 1.0) / (av + bv + 2.0)
        res = np.empty_like(xv)
        res[direct] = front[direct] * _beta_cf(av[direct], bv[direct], xv[direct]) / av[direct]
        flip = ~direct
        res[flip] = 1.0 - front[flip] * _beta_cf(bv[flip], av[flip], 1.0 - xv[flip]) / bv[flip]
        out[ok] = res
    edge = (a > 0) & (b > 0)
    out[edge & (x == 0)] = 0.0
    out[edge & (x == 1)] = 1.0
    return out


def _betainc_dx(g, ans, a, b, x):
    # d I_x(a, b) / dx = x^(a-1) (1 - x)^(b-1) / B(a, b); TensorFlow has none for a and b
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    return unbroadcast(g * exp((a - 1) * log(x) + (b - 1) * log1p(-x) - log_beta), x)


betainc_op = defop("betainc", lambda a, b, x: _betainc_np(a, b, x).astype(
                       np.result_type(a, b, x)),
                   kinds=FLOAT, quiet=True, grads=[None, None, _betainc_dx])


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function ``I_x(a, b)``.

    >>> fe.math.betainc(1.0, 1.0, 0.5).numpy()
    0.5
    """
    a, b, x = convert_same(a, b, x)
    return execute(betainc_op, a, b, x)


# ---- modified Bessel functions of the first kind, orders 0 and 1 --------------------------

_SERIES_LIMIT = 20.0


def _bessel_series_scaled(x, order):
    # I_v(x) e^-|x| = e^-|x| sum_k (x/2)^(2k+v) / (k! (k+v)!), summed term by term
    half = x / 2.0
    term = np.exp(-np.abs(x)) * (half if order else np.ones_like(x))
    total = term.copy()
    sq = half * half
    for k in range(1, 90):
        term = term * sq / (k * (k + order))
        total = total + term
    return total


def _bessel_asymptotic_scaled(x, order):
    # I_v(x) e^-x ~ 1/sqrt(2 pi x) sum_k (-1)^k prod_j (4v^2 - (2j-1)^2) / (k! (8x)^k)
    mu = 4.0 * order * order
    term = np.ones_like(x)
    total = term.copy()
    for k in range(1, 40):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        total = total + term
    return total / np.sqrt(2.0 * math.pi * x)


def _bessel_scaled_np(x, order):
    ax = np.abs(x)
    near = ax <= _SERIES_LIMIT
    series = _bessel_series_scaled(np.where(near, x, 0.0), order)
    far = _bessel_asymptotic_scaled(np.where(near, _SERIES_LIMIT + 1.0, ax), order)
    if order:
        far = far * np.sign(x)      # I1 is odd
    return np.where(np.isnan(x), np.nan, np.where(near, series, far))


def _bessel_np(x, order):
    with np.errstate(over="ignore"):
        return _bessel_scaled_np(x, order) * np.exp(np.abs(x))


def _bessel_op(name, fn, order, grad):
    return defop(name, _in_float64(lambda x: fn(x, order)), kinds=FLOAT, nin=1, grads=[grad])


def _i1_over_x_grad(g, ans, x, i0, scaled):
    # d I1(x) = I0(x) - I1(x)/x, with the limit 1/2 at x = 0 (scaled: minus sign(x) I1e)
    zero = x == 0
    safe = where(zero, x * 0 + 1, x)
    inner = where(zero, x * 0 + 0.5, i0(x) - ans / safe)
    if scaled:
        inner = inner - sign(x) * ans
    return g * inner


bessel_i0_op = _bessel_op("bessel_i0", _bessel_np, 0,
                          lambda g, ans, x: g * bessel_i1(x))          # d I0 = I1
bessel_i0e_op = _bessel_op("bessel_i0e", _bessel_scaled_np, 0,
                           lambda g, ans, x: g * (bessel_i1e(x) - sign(x) * ans))
bessel_i1_op = _bessel_op("bessel_i1", _bessel_np, 1,
                          lambda g, ans, x: _i1_over_x_grad(g, ans, x, bessel_i0, False))
bessel_i1e_op = _bessel_op("bessel_i1e", _bessel_scaled_np, 1,
                           lambda g, ans, x: _i1_over_x_grad(g, ans, x, bessel_i0e, True))


def bessel_i0(x, name=None):
    """The modified Bessel function of the first kind, order 0."""
    return execute(bessel_i0_op, convert_to_tensor(x))


def bessel_i0e(x, name=None):
    """``exp(-|x|) I0(x)``, finite for every x."""
    return execute(bessel_i0e_op, convert_to_tensor(x))


def bessel_i1(x, name=None):
    """The modified Bessel function of the first kind, order 1."""
    return execute(bessel_i1_op, convert_to_tensor(x))


def bessel_i1e(x, name=None):
    """``exp(-|x|) I1(x)``, finite for every x."""
    return execute(bessel_i1e_op, convert_to_tensor(x))


def _zero_where_x_zero(fname, fn, x, y):
    # the 0 branch also guards fn's gradient: y is replaced by 1 wherever x is 0
    x, y = convert_same(x, y)
    if x._value.dtype.kind not in "fc":
        raise InvalidArgumentError("%s: x must be floating point or complex (got %s)"
                                   % (fname, x._value.dtype))
    zero = equal(x, _zeros_of(x))
    safe_y = where(zero, _ones_of(y) + zeros_like(y), y)
    return where(zero, zeros_like(x * safe_y), fn(x, safe_y))


def xlogy(x, y, name=None):
    """``x * log(y)``, and 0 wherever ``x`` is 0 (even where ``y`` is 0 or NaN).

    >>> fe.math.xlogy([0., 1.], [0., 2.]).numpy()
    array([0.       , 0.6931472], dtype=float32)
    """
    return _zero_where_x_zero("xlogy", lambda a, b: a * log(b), x, y)


def xlog1py(x, y, name=None):
    """``x * log1p(y)``, and 0 wherever ``x`` is 0."""
    return _zero_where_x_zero("xlog1py", lambda a, b: a * log1p(b), x, y)


def xdivy(x, y, name=None):
    """``x / y``, and 0 wherever ``x`` is 0."""
    return _zero_where_x_zero("xdivy", truediv, x, y)


def polyval(coeffs, x, name=None):
    """``coeffs[0] * x^(n-1) + ... + coeffs[n-1]`` by Horner's rule (0 for no coefficients).

    >>> fe.math.polyval([2., 3., 4.], 2.).numpy()
    18.0
    """
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("polyval: coeffs must be a list of tensors (got %s)"
                         % type(coeffs).__name__)
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    total = convert_same(x, coeffs[0])[1]
    for c in coeffs[1:]:
        total = total * x + convert_same(x, c)[1]
    return total + zeros_like(x) if total._value.shape != x._value.shape else total


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))``."""
    x = convert_to_tensor(x)
    if x._value.ndim == 0:
        raise InvalidArgumentError("lbeta: x must have rank >= 1 (got a scalar)")
    return reduce_sum(lgamma(x), -1) - lgamma(reduce_sum(x, -1))


# names that moved to other topic modules when ops/ was regrouped: the old paths warn for
# one release
__getattr__ = moved_names(__name__, {
    **dict.fromkeys(("acos", "acosh", "asin", "asinh", "atan", "atan2", "atan2_op", "atanh",
                     "cosh", "exp2", "hypot", "hypot_op", "sinh"), "elementwise_ops"),
    **dict.fromkeys(("TopKV2", "argsort", "argsort_op", "sort", "top_k"), "sort_ops"),
})
