"""``fasteager.numpy.linalg``: NumPy's ``linalg`` names over the table's linalg ops.

Results come in NumPy's forms: ``svd`` gives ``(U, S, Vh)``, ``eigh`` ``(eigenvalues,
eigenvectors)`` namedtuples as NumPy 2 does; ``eig`` returns real arrays when every
eigenvalue is real (as NumPy), else complex ones.
"""
import collections

import numpy as np

from ..errors import InvalidArgumentError, UnimplementedError
from ..ops import array_ops as a_ops
from ..ops import decomposition_ops as dec_ops
from ..ops import linalg_ops as l_ops
from ..ops import elementwise_ops as ew_ops, linalg_ops as la_ops, reduction_ops as rd_ops
from ._arrays import moveaxis
from ._promotion import promote, tensor
from ._reductions import dot
from ._reductions import matmul  # noqa: F401 - np.linalg.matmul


def _float(*xs):
    # integers become float64; complex stays complex (the ops that take it say so)
    xs = promote(xs)
    if xs[0]._value.dtype.kind not in "fc":
        xs = [ew_ops.cast(x, np.float64) for x in xs]
    return xs


def _vector_norm(t, ord, axis, keepdims):
    ax = list(axis) if isinstance(axis, (tuple, list)) else axis
    if ord is None or ord == 2:
        return l_ops.norm(t, ord="euclidean", axis=ax, keepdims=keepdims)
    if isinstance(ord, str):
        raise InvalidArgumentError("fasteager.numpy.linalg.norm: invalid norm order %r for "
                                   "vectors" % (ord,))
    a = ew_ops.abs(t)
    if ord == np.inf:
        return rd_ops.reduce_max(a, ax, keepdims=keepdims)
    if ord == -np.inf:
        return rd_ops.reduce_min(a, ax, keepdims=keepdims)
    if ord == 0:        # the count of non-zero entries (no gradient: it is a count)
        return rd_ops.reduce_sum(ew_ops.cast(ew_ops.not_equal(t, 0), t._value.dtype), ax,
                                 keepdims=keepdims)
    if ord == 1:
        return rd_ops.reduce_sum(a, ax, keepdims=keepdims)
    p = np.asarray(ord, dtype=t._value.dtype)[()]
    return ew_ops.pow(rd_ops.reduce_sum(ew_ops.pow(a, p), ax, keepdims=keepdims), 1 / p)


def _matrix_norm(t, ord, axis, keepdims):
    r = t._value.ndim
    rows, cols = axis[0] % r, axis[1] % r
    if rows == cols:
        raise InvalidArgumentError("fasteager.numpy.linalg.norm: duplicate axes given")
    if ord in (None, "fro"):
        return l_ops.norm(t, ord="euclidean", axis=[rows, cols], keepdims=keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        # the max (min) over columns of column sums of |x| (rows of row sums for inf)
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        s = rd_ops.reduce_sum(ew_ops.abs(t), summed, keepdims=True)
        pick = rd_ops.reduce_max if ord > 0 else rd_ops.reduce_min
        out = pick(s, over, keepdims=True)
    elif ord in (2, -2, "nuc"):
        # singular values of the planes (rows, cols), moved last
        sv = dec_ops.svd(moveaxis(t, [rows, cols], [-2, -1]), compute_uv=False)
        red = rd_ops.reduce_sum if ord == "nuc" else (rd_ops.reduce_max if ord == 2
                                                       else rd_ops.reduce_min)
        out = red(sv, -1)
        if keepdims:
            for ax in sorted((rows, cols)):
                out = a_ops.expand_dims(out, ax)
        return out
    else:
        raise InvalidArgumentError("fasteager.numpy.linalg.norm: invalid norm order %r for "
                                   "matrices" % (ord,))
    if keepdims:
        return out
    return a_ops.squeeze(out, sorted((rows, cols)))


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    """NumPy's ``norm``: vector norms (None/2, 1, inf, -inf, 0, any p) and matrix norms
    (None/'fro', 'nuc', 1, -1, 2, -2, inf, -inf; 'nuc' and +-2 through the singular
    values). As NumPy, ``axis=None`` on a 2-D input with an ``ord`` is the matrix norm,
    and without one the 2-norm of the flattened input."""
    t = tensor(x)
    if t._value.dtype.kind == "c":
        # complex: every norm but the spectral ones (singular values of x itself) is
        # that of |x|
        matrix = (axis is None and ord is not None and t._value.ndim == 2) or (
            isinstance(axis, (tuple, list)) and len(axis) == 2)
        if not (matrix and ord in ("nuc", 2, -2)):
            t = ew_ops.abs(t)
    else:
        (t,) = _float(t)
    r = t._value.ndim
    if axis is None:
        if ord is None:
            out = l_ops.norm(t, ord="euclidean", axis=None)
            return a_ops.reshape(out, (1,) * r) if keepdims else out
        if r == 2:
            axis = (0, 1)
        elif r == 1:
            axis = 0
        else:
            raise InvalidArgumentError("fasteager.numpy.linalg.norm: improper number of "
                                       "dimensions to norm (ord=%r needs 1-D or 2-D, got %d-D)"
                                       % (ord, r))
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        return _matrix_norm(t, ord, tuple(int(a) for a in axis), keepdims)
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise InvalidArgumentError("fasteager.numpy.linalg.norm: improper number of "
                                       "dimensions to norm (axis=%r)" % (axis,))
        axis = axis[0]
    return _vector_norm(t, ord, int(axis), keepdims)


def inv(a):
    """NumPy's ``inv`` of (a batch of) square matrices."""
    return dec_ops.inv(_float(a)[0])


def det(a):
    """NumPy's ``det`` of (a batch of) square matrices."""
    return dec_ops.det(_float(a)[0])


def slogdet(a):
    """NumPy's ``slogdet``: ``(sign, logabsdet)``."""
    sign, logabsdet = dec_ops.slogdet(_float(a)[0])
    return sign, logabsdet


def solve(a, b):
    """NumPy's ``solve``: ``x`` with ``a @ x = b``; a 1-D ``b`` is one right-hand side."""
    a, b = _float(a, b)
    if b._value.ndim == 1:
        return a_ops.reshape(dec_ops.solve(a, a_ops.reshape(b, [-1, 1])), [-1])
    return dec_ops.solve(a, b)


def cholesky(a):
    """NumPy's ``cholesky``: the lower-triangular factor."""
    return dec_ops.cholesky(_float(a)[0])


SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])
EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """NumPy's ``svd``: ``(U, S, Vh)`` with ``a = U @ diag(S) @ Vh`` (``S`` alone with
    ``compute_uv=False``). Gradients as ``fe.linalg.svd`` (``U``/``Vh`` need
    ``full_matrices=False`` or a square input, and distinct singular values)."""
    (t,) = _float(a)
    if not compute_uv:
        return dec_ops.svd(t, compute_uv=False)
    s, u, v = dec_ops.svd(t, full_matrices=bool(full_matrices))
    vh = l_ops.matrix_transpose(v)
    return SVDResult(u, s, ew_ops.conj(vh) if vh._value.dtype.kind == "c" else vh)


def eigh(a, UPLO="L"):  # noqa: N803 - NumPy's name
    """NumPy's ``eigh``: ascending eigenvalues and eigenvectors of symmetric matrices,
    reading the ``UPLO`` triangle."""
    (t,) = _float(a)
    if UPLO not in ("L", "U"):
        raise InvalidArgumentError("fasteager.numpy.linalg.eigh: UPLO argument must be 'L' or "
                                   "'U' (got %r)" % (UPLO,))
    if UPLO == "U":
        # the op reads the lower triangle: that of the adjoint is the upper one of t (its
        # gradient then lands on the upper triangle only)
        t = l_ops.matrix_transpose(t)
        if t._value.dtype.kind == "c":
            t = ew_ops.conj(t)
    w, v = dec_ops.eigh(t)
    if w._value.dtype.kind == "c":      # NumPy's eigenvalues of a Hermitian matrix are real
        w = ew_ops.real(w)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L"):  # noqa: N803
    """NumPy's ``eigvalsh``: the eigenvalues of ``eigh``."""
    return eigh(a, UPLO).eigenvalues


def _maybe_real(z):
    # NumPy's eig gives real arrays when every eigenvalue is real
    if np.all(np.imag(z[0]._value) == 0):
        return [ew_ops.real(v) for v in z]
    return list(z)


def eig(a):
    """NumPy's ``eig``: eigenvalues and unit-norm eigenvectors (real when every eigenvalue
    is real, complex otherwise). Differentiable for distinct eigenvalues."""
    (t,) = _float(a)
    w, v = _maybe_real(dec_ops.eig(t))
    return EigResult(w, v)


def eigvals(a):
    """NumPy's ``eigvals``."""
    return eig(a).eigenvalues


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """NumPy's ``pinv``: the pseudo-inverse (``rcond``/``rtol`` as NumPy's cut-off of small
    singular values); differentiable where the rank does not change."""
    (t,) = _float(a)
    cut = rcond if rcond is not None else rtol
    return dec_ops.pinv(t, rcond=cut)


def qr(a, mode="reduced"):
    """NumPy's ``qr`` (modes 'reduced' and 'complete'; ``(Q, R)``)."""
    if mode not in ("reduced", "complete"):
        raise UnimplementedError("fasteager.numpy.linalg.qr: mode=%r is not supported "
                                 "(expected 'reduced' or 'complete')" % (mode,))
    (t,) = _float(a)
    return dec_ops.qr(t, full_matrices=mode == "complete")


def matrix_power(a, n):
    """NumPy's ``matrix_power``: repeated squaring (a negative ``n`` inverts first)."""
    (t,) = _float(a) if int(n) < 0 else (tensor(a),)
    n = int(n)
    if n < 0:
        t, n = dec_ops.inv(t), -n
    size = t._value.shape[-1]
    result = None
    while n:
        if n & 1:
            result = t if result is None else la_ops.matmul(result, t)
        n >>= 1
        if n:
            t = la_ops.matmul(t, t)
    if result is None:
        eye = np.broadcast_to(np.eye(size, dtype=t._value.dtype), t._value.shape)
        return tensor(np.ascontiguousarray(eye))
    return result


def multi_dot(arrays, *, out=None):
    """NumPy's ``multi_dot``: the product of the matrices, left to right (1-D ends are a
    row and a column vector, as NumPy)."""
    arrays = list(arrays)
    if len(arrays) < 2:
        raise InvalidArgumentError("fasteager.numpy.linalg.multi_dot: expecting at least two "
                                   "arrays")
    result = arrays[0]
    for x in arrays[1:]:
        result = dot(result, x)
    return result
