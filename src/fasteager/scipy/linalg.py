"""``fasteager.scipy.linalg``: SciPy's ``cholesky`` (upper by default, as SciPy),
``solve_triangular`` and ``sqrtm``, plus NumPy's ``inv``/``det``/``solve``, over the op
table (differentiable)."""
import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from ..numpy import linalg as _nl
from ..ops import array_ops as a_ops
from ..ops import decomposition_ops as dec_ops
from ..ops import linalg_ops as l_ops
from ..ops.matrix_ops import sqrtm_matrix
from .special import _float

inv, det, solve = _nl.inv, _nl.det, _nl.solve


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """SciPy's ``cholesky``: the upper factor ``U`` with ``a = U^T U`` (the lower ``L`` with
    ``lower=True``)."""
    (t,) = _float(a)
    low = dec_ops.cholesky(t)
    return low if lower else l_ops.matrix_transpose(low)


_TRANS = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """SciPy's ``solve_triangular``: ``x`` with ``T x = b`` for the lower or upper triangle
    ``T`` of ``a`` (``T^T x = b`` for ``trans`` 1/'T'/2/'C'); a 1-D ``b`` is one
    right-hand side. ``unit_diagonal`` takes the diagonal as ones."""
    if trans not in _TRANS:
        raise InvalidArgumentError("fasteager.scipy.linalg.solve_triangular: trans must be "
                                   "0, 1, 2, 'N', 'T' or 'C' (got %r)" % (trans,))
    t, rhs = _float(a, b)
    if unit_diagonal:
        n = t._value.shape[-1]
        eye = _core.wrap(np.eye(n, dtype=t._value.dtype))
        t = t * (1 - eye) + eye
    vector = rhs._value.ndim == 1
    if vector:
        rhs = a_ops.reshape(rhs, [-1, 1])
    x = dec_ops.triangular_solve(t, rhs, lower=bool(lower), adjoint=_TRANS[trans])
    return a_ops.reshape(x, [-1]) if vector else x


def sqrtm(A, disp=True, blocksize=64):  # noqa: N803 - SciPy's name
    """SciPy's ``sqrtm``: the principal square root, through the eigendecomposition
    (``eigh`` for a symmetric input, ``eig`` otherwise, real when the result is), so it is
    differentiable where the eigenvalues are distinct. SciPy uses a Schur method instead,
    more accurate for ill-conditioned non-normal matrices."""
    (t,) = _float(A)
    v = t._value
    if v.ndim != 2 or v.shape[0] != v.shape[1]:
        raise InvalidArgumentError("fasteager.scipy.linalg.sqrtm: expected a square matrix "
                                   "(got shape %s)" % list(v.shape))
    return sqrtm_matrix(t)


