"""``fasteager.scipy.stats``: the distributions ``autograd.scipy.stats`` offers, as
namespaces of differentiable functions (``norm.logpdf(x, loc, scale)``, ...): ``norm``,
``multivariate_normal``, ``t``, ``gamma``, ``beta``, ``poisson``, ``dirichlet``. Each is a
composition of ops (log-densities in closed form, ``erfc`` for the normal cdf)."""
import types

import numpy as np

from ..ops import decomposition_ops as dec_ops
from ..ops import linalg_ops as l_ops
from ..ops.array_ops import reshape
from ..ops.linalg_ops import diag_part
from ..ops import elementwise_ops as ew_ops, reduction_ops as rd_ops
from ..ops import special_ops as sp
from .special import _const, _float, betaln, xlog1py, xlogy

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)
_SQRT2 = np.sqrt(2.0)


def _standard(x, loc, scale):
    x, loc, scale = _float(x, loc, scale)
    return (x - loc) / scale, scale


def _norm_logpdf(x, loc=0.0, scale=1.0):
    z, scale = _standard(x, loc, scale)
    return -0.5 * ew_ops.square(z) - ew_ops.log(scale) - _const(z, _LOG_SQRT_2PI)


def _norm_pdf(x, loc=0.0, scale=1.0):
    return ew_ops.exp(_norm_logpdf(x, loc, scale))


def _norm_cdf(x, loc=0.0, scale=1.0):
    # Phi(z) = erfc(-z / sqrt 2) / 2: accurate in the left tail, where 1 + erf is not
    z, _ = _standard(x, loc, scale)
    return 0.5 * sp.erfc(-z / _const(z, _SQRT2))


def _norm_logcdf(x, loc=0.0, scale=1.0):
    return ew_ops.log(_norm_cdf(x, loc, scale))


def _norm_sf(x, loc=0.0, scale=1.0):
    z, _ = _standard(x, loc, scale)
    return 0.5 * sp.erfc(z / _const(z, _SQRT2))


def _norm_logsf(x, loc=0.0, scale=1.0):
    return ew_ops.log(_norm_sf(x, loc, scale))


norm = types.SimpleNamespace(pdf=_norm_pdf, logpdf=_norm_logpdf, cdf=_norm_cdf,
                             logcdf=_norm_logcdf, sf=_norm_sf, logsf=_norm_logsf)
norm.__doc__ = "The normal distribution: pdf, logpdf, cdf, logcdf, sf, logsf (loc, scale)."


def _mvn_logpdf(x, mean=None, cov=1, allow_singular=False):
    # log N(x; mu, S) = -1/2 |L^-1 (x - mu)|^2 - sum log diag(L) - d/2 log(2 pi), S = L L^T
    (x,) = _float(x)
    d = x._value.shape[-1]
    mean = 0.0 if mean is None else mean
    x, mu, cov = _float(x, mean, cov)
    if cov._value.ndim < 2:
        cov = l_ops.diag(ew_ops.multiply(cov, _const(cov, np.ones(d))))
    chol = dec_ops.cholesky(cov)
    diff = x - mu
    flat = reshape(diff, [-1, d])
    sol = dec_ops.triangular_solve(chol, l_ops.matrix_transpose(flat))
    maha = rd_ops.reduce_sum(ew_ops.square(sol), 0)
    out = -0.5 * maha - rd_ops.reduce_sum(ew_ops.log(diag_part(chol)), -1) \
        - _const(x, d * _LOG_SQRT_2PI)
    return reshape(out, diff._value.shape[:-1])


def _mvn_pdf(x, mean=None, cov=1, allow_singular=False):
    return ew_ops.exp(_mvn_logpdf(x, mean, cov, allow_singular))


multivariate_normal = types.SimpleNamespace(logpdf=_mvn_logpdf, pdf=_mvn_pdf)
multivariate_normal.__doc__ = "The multivariate normal: logpdf, pdf (x, mean, cov)."


def _t_logpdf(x, df, loc=0.0, scale=1.0):
    x, df, loc, scale = _float(x, df, loc, scale)
    z = (x - loc) / scale
    half = _const(df, 0.5)
    return (sp.lgamma(half * (df + 1)) - sp.lgamma(half * df)
            - half * ew_ops.log(df * _const(df, np.pi)) - ew_ops.log(scale)
            - half * (df + 1) * ew_ops.log1p(ew_ops.square(z) / df))


t = types.SimpleNamespace(logpdf=_t_logpdf, pdf=lambda x, df, loc=0.0, scale=1.0:
                          ew_ops.exp(_t_logpdf(x, df, loc, scale)))
t.__doc__ = "Student's t: logpdf, pdf (x, df, loc, scale)."


def _gamma_logpdf(x, a, loc=0.0, scale=1.0):
    x, a, loc, scale = _float(x, a, loc, scale)
    z = (x - loc) / scale
    return xlogy(a - 1, z) - z - sp.lgamma(a) - ew_ops.log(scale)


gamma = types.SimpleNamespace(logpdf=_gamma_logpdf, pdf=lambda x, a, loc=0.0, scale=1.0:
                              ew_ops.exp(_gamma_logpdf(x, a, loc, scale)))
gamma.__doc__ = "The gamma distribution: logpdf, pdf (x, a, loc, scale)."


def _beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    x, a, b, loc, scale = _float(x, a, b, loc, scale)
    z = (x - loc) / scale
    return xlogy(a - 1, z) + xlog1py(b - 1, -z) - betaln(a, b) - ew_ops.log(scale)


beta = types.SimpleNamespace(logpdf=_beta_logpdf, pdf=lambda x, a, b, loc=0.0, scale=1.0:
                             ew_ops.exp(_beta_logpdf(x, a, b, loc, scale)))
beta.__doc__ = "The beta distribution: logpdf, pdf (x, a, b, loc, scale)."


def _poisson_logpmf(k, mu, loc=0):
    k, mu = _float(k, mu)
    k = k - loc
    return xlogy(k, mu) - mu - sp.lgamma(k + 1)


poisson = types.SimpleNamespace(logpmf=_poisson_logpmf, pmf=lambda k, mu, loc=0:
                                ew_ops.exp(_poisson_logpmf(k, mu, loc)))
poisson.__doc__ = "The Poisson distribution: logpmf, pmf (k, mu)."


def _dirichlet_logpdf(x, alpha):
    x, alpha = _float(x, alpha)
    return (rd_ops.reduce_sum(xlogy(alpha - 1, x), -1) + sp.lgamma(rd_ops.reduce_sum(alpha, -1))
            - rd_ops.reduce_sum(sp.lgamma(alpha), -1))


dirichlet = types.SimpleNamespace(logpdf=_dirichlet_logpdf,
                                  pdf=lambda x, alpha: ew_ops.exp(_dirichlet_logpdf(x, alpha)))
dirichlet.__doc__ = "The Dirichlet distribution: logpdf, pdf (x, alpha)."
