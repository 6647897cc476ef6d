"""``fasteager.scipy.special``: SciPy's special functions over the op table.

The gamma family (``gammaln``, ``digamma``/``psi``, ``polygamma``) and ``erf``/``erfc`` are
ops with their gradients; the rest are compositions of them (``gamma``, ``beta``,
``betaln``, ``multigammaln``, ``logit``, ``xlogy`` ...), so gradients come from the table.
"""
import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from ..numpy._promotion import promote, tensor
from ..ops import elementwise_ops as ew_ops, nn_ops, reduction_ops as rd_ops
from ..ops.array_ops import squeeze
from ..ops import special_ops as sp


def _float(*xs):
    """Operands promoted to one float dtype (integers become float64, as SciPy)."""
    ts = promote(xs) if len(xs) > 1 else [tensor(xs[0])]
    if ts[0]._value.dtype.kind != "f":
        ts = [ew_ops.cast(t, np.float64) for t in ts]
    return ts


def _const(like, value):
    return _core.wrap(np.asarray(value, dtype=like._value.dtype))


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def expit(x):
    """SciPy's ``expit``: the logistic sigmoid."""
    return ew_ops.sigmoid(_float(x)[0])


def logit(x):
    """SciPy's ``logit``: ``log(p / (1 - p))``."""
    (p,) = _float(x)
    return ew_ops.log(p) - ew_ops.log1p(-p)


def log_expit(x):
    """SciPy's ``log_expit``: ``log(expit(x))`` without overflow."""
    return nn_ops.log_sigmoid(_float(x)[0])


def erf(x):
    """SciPy's ``erf``."""
    return sp.erf(_float(x)[0])


def erfc(x):
    """SciPy's ``erfc``: ``1 - erf(x)``, accurate in the right tail."""
    return sp.erfc(_float(x)[0])


def gammaln(x):
    """SciPy's ``gammaln``: ``log|Gamma(x)|``."""
    return sp.lgamma(_float(x)[0])


def digamma(x):
    """SciPy's ``digamma``."""
    return sp.digamma(_float(x)[0])


psi = digamma


def polygamma(n, x):
    """SciPy's ``polygamma`` for an integer order ``n >= 0``."""
    return sp.polygamma(n, _float(x)[0])


def _sign_gamma(t):
    # the sign of Gamma(x): -1 exactly for x in (-1, 0), (-3, -2), ... (and at -0.0)
    v = t._value
    neg = (v < 0) | ((v == 0) & np.signbit(v))
    odd = (np.ceil(v) % 2 == 0) & (v != np.floor(v))      # (-1, 0): ceil 0, (-3, -2): -2
    sign = np.where(neg & (odd | (v == 0)), -1.0, 1.0)
    sign = np.where((v < 0) & (v == np.floor(v)), np.nan, sign)    # the poles -1, -2, ...
    return _core.wrap(sign.astype(v.dtype))


def gammasgn(x):
    """SciPy's ``gammasgn``: the sign of Gamma(x) (nan at -1, -2, ...; a constant)."""
    return _sign_gamma(_float(x)[0])


def gamma(x):
    """SciPy's ``gamma``: ``gammasgn(x) * exp(gammaln(x))``."""
    (t,) = _float(x)
    return ew_ops.exp(sp.lgamma(t)) * _sign_gamma(t)


def rgamma(x):
    """SciPy's ``rgamma``: ``1 / Gamma(x)``."""
    (t,) = _float(x)
    sign = _sign_gamma(t)
    # at the poles exp(-inf) is the exact 0: a sign of 1 keeps it (nan * 0 would not)
    sign = _core.wrap(np.where(np.isnan(sign._value), 1, sign._value).astype(sign._value.dtype))
    return ew_ops.exp(-sp.lgamma(t)) * sign


def betaln(a, b):
    """SciPy's ``betaln``: ``log|B(a, b)|``."""
    a, b = _float(a, b)
    return sp.lgamma(a) + sp.lgamma(b) - sp.lgamma(a + b)


def beta(a, b):
    """SciPy's ``beta`` for positive arguments: ``exp(betaln(a, b))``."""
    return ew_ops.exp(betaln(a, b))


def multigammaln(a, d):
    """SciPy's ``multigammaln``: the log of the multivariate gamma function of dimension
    ``d``."""
    (t,) = _float(a)
    d = int(d)
    if d < 1:
        raise InvalidArgumentError("fasteager.scipy.special.multigammaln: d must be a positive "
                                   "integer (got %d)" % d)
    if np.any(t._value <= 0.5 * (d - 1)):
        raise InvalidArgumentError("fasteager.scipy.special.multigammaln: condition a (%s) > "
                                   "0.5 * (d-1) (%s) not met" % (t._value, 0.5 * (d - 1)))
    total = _const(t, d * (d - 1) / 4.0 * np.log(np.pi))
    for j in range(d):
        total = total + sp.lgamma(t - _const(t, j / 2.0))
    return total


def xlogy(x, y):
    """SciPy's ``xlogy``: ``x * log(y)``, 0 where ``x == 0``."""
    x, y = _float(x, y)
    zero = ew_ops.equal(x, 0)
    safe = ew_ops.where(zero, _const(y, 1.0), y)
    return ew_ops.where(zero, _const(x, 0.0), x * ew_ops.log(safe))


def xlog1py(x, y):
    """SciPy's ``xlog1py``: ``x * log1p(y)``, 0 where ``x == 0``."""
    x, y = _float(x, y)
    zero = ew_ops.equal(x, 0)
    safe = ew_ops.where(zero, _const(y, 0.0), y)
    return ew_ops.where(zero, _const(x, 0.0), x * ew_ops.log1p(safe))


def entr(x):
    """SciPy's ``entr``: ``-x log(x)`` (0 at 0, -inf below 0)."""
    (t,) = _float(x)
    out = -xlogy(t, t)
    return ew_ops.where(ew_ops.less(t, 0), _const(t, -np.inf), out)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """SciPy's ``logsumexp``: ``log(sum(b * exp(a)))`` over ``axis``, shifted by the max (no
    overflow); with ``return_sign``, ``(log|s|, sign(s))`` for weights of either sign."""
    (x,) = _float(a)
    ax = _axis(axis)
    if b is None and not return_sign:
        return rd_ops.reduce_logsumexp(x, ax, keepdims=keepdims)
    x, w = _float(x, 1.0 if b is None else b)
    shift = rd_ops.reduce_max(x, ax, keepdims=True)
    shift = _core.wrap(np.where(np.isfinite(shift._value), shift._value, 0))   # a constant
    s = rd_ops.reduce_sum(w * ew_ops.exp(x - shift), ax, keepdims=True)
    out = ew_ops.log(ew_ops.abs(s)) + shift
    sign = ew_ops.sign(s)
    if not keepdims:
        rank = x._value.ndim
        dims = list(range(rank)) if axis is None else [
            d % rank for d in np.atleast_1d(axis).tolist()]
        out, sign = squeeze(out, dims), squeeze(sign, dims)
    if return_sign:
        return out, sign
    return out


def softmax(x, axis=None):
    """SciPy's ``softmax`` (over all entries when ``axis`` is None, as SciPy)."""
    (t,) = _float(x)
    return ew_ops.exp(t - logsumexp(t, axis=axis, keepdims=True))


def log_softmax(x, axis=None):
    """SciPy's ``log_softmax`` (over all entries when ``axis`` is None)."""
    (t,) = _float(x)
    return t - logsumexp(t, axis=axis, keepdims=True)


__all__ = ["beta", "betaln", "digamma", "entr", "erf", "erfc", "expit", "gamma", "gammaln",
           "gammasgn", "log_expit", "log_softmax", "logit", "logsumexp", "multigammaln",
           "polygamma", "psi", "rgamma", "softmax", "xlog1py", "xlogy"]
