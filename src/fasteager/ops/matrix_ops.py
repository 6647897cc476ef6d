"""Matrix structure, LU, solvers and matrix functions of ``fe.linalg`` beyond the core
ops of ``linalg_ops``: band parts and diagonals, cross products, ``lu`` (an op of its own:
TensorFlow records no gradient for it, so a tape through it raises LookupError) and the
solves built on it, least squares, tridiagonal and banded systems, ``expm``, ``sqrtm``,
``logm``, ``matrix_rank`` and ``eigh_tridiagonal``.

Except ``lu``, each is a composite of the op table's ops, so it is differentiable.
"""
import collections as _collections

import numpy as _np

from .. import _core
from ..dtypes import as_dtype
from ..errors import FailedPreconditionError as _FailedPrecondition
from ..errors import InvalidArgumentError as _InvalidArgument
from . import registry as _registry
from .array_ops import _index_backward, getitem as _getitem
from .array_ops import expand_dims as _expand_dims
from .array_ops import reshape as _reshape, stack as _stack
from .array_ops import zeros_like as _zeros_like
from .elementwise_ops import cast as _cast, conj as _conj, log as _log
from .elementwise_ops import (convert_same as _convert_same, real as _real, sqrt as _sqrt,
                              where as _where)
from .indexing_ops import invert_permutation
from .decomposition_ops import cholesky, eig, eigh, inv, pinv, solve, triangular_solve
from .linalg_ops import diag, diag_part, matmul, matrix_transpose, norm
from .reduction_ops import reduce_sum as _reduce_sum

_to_tensor = _core.convert_to_tensor


def adjoint(matrix, name=None):
    """The conjugate transpose of each matrix (the transpose for real dtypes)."""
    return _conj(matrix_transpose(matrix))


def _matrices(fname, x):
    x = _to_tensor(x)
    if x._value.ndim < 2:
        raise _InvalidArgument("%s: input must have rank >= 2 (expected a matrix, got shape "
                               "%s)" % (fname, list(x._value.shape)))
    return x


def band_part(input, num_lower, num_upper, name=None):
    """Each matrix with everything outside its band zeroed: ``num_lower`` subdiagonals and
    ``num_upper`` superdiagonals kept (a negative count keeps that whole triangle)."""
    x = _matrices("band_part", input)
    m, n = x._value.shape[-2:]
    lo, up = int(_np.asarray(num_lower)), int(_np.asarray(num_upper))
    if lo > m or up > n:
        raise _InvalidArgument("band_part: num_lower must be <= %d and num_upper <= %d (got "
                               "%d and %d)" % (m, n, lo, up))
    offset = _np.arange(m)[:, None] - _np.arange(n)[None, :]    # row - column
    keep = ((lo < 0) | (offset <= lo)) & ((up < 0) | (-offset <= up))
    return _where(_core.wrap(keep), x, _zeros_like(x))


def cross(a, b, name=None):
    """The cross product of 3-vectors along the last axis."""
    a, b = _convert_same(a, b)
    if a._value.shape[-1:] != (3,) or b._value.shape[-1:] != (3,):
        raise _FailedPrecondition("cross: cross-products are only defined for 3-element "
                                  "vectors (got shapes %s and %s)"
                                  % (list(a._value.shape), list(b._value.shape)))
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    return _stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """``a @ b`` for matrices ``a`` [..., m, n] and vectors ``b`` [..., n]."""
    a, b = _convert_same(a, b)
    b_col = _reshape(b, tuple(b._value.shape) + (1,))
    out = matmul(a, b_col, transpose_a=transpose_a, adjoint_a=adjoint_a)
    return _reshape(out, tuple(out._value.shape[:-1]))


def normalize(tensor, ord="euclidean", axis=None, name=None):
    """``(tensor / norm, norm)``, with the norm kept over ``axis`` (as ``fe.norm``)."""
    x = _to_tensor(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return x / n, n


def global_norm(t_list, name=None):
    """``sqrt(sum of every tensor's squared entries)``; None entries are skipped."""
    if isinstance(t_list, (_core.Tensor, str)) or not hasattr(t_list, "__iter__"):
        raise TypeError("global_norm: t_list should be a sequence of tensors (got %s)"
                        % type(t_list).__name__)
    parts = [_reduce_sum(_to_tensor(t) * _to_tensor(t)) for t in t_list if t is not None]
    if not parts:
        return _core.wrap(_np.array(0.0, _np.float32))
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return _sqrt(total)


def _diagonal_positions(fname, shape, k, align):
    """For ``set_diag``: (row, column, diagonal index, position) of every entry written."""
    m, n = shape
    k = [int(v) for v in _np.asarray(k).reshape(-1)]
    if len(k) == 1:
        k = k * 2
    if len(k) != 2 or k[0] > k[1]:
        raise _InvalidArgument("%s: k must be an int or a pair (low, high) with low <= high "
                               "(got %r)" % (fname, k))
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise _InvalidArgument("%s: align must be one of RIGHT_LEFT, LEFT_RIGHT, LEFT_LEFT, "
                               "RIGHT_RIGHT (got %r)" % (fname, align))
    lengths = {d: min(m + min(0, d), n - max(0, d)) for d in range(k[0], k[1] + 1)}
    if min(lengths.values()) <= 0:
        raise _InvalidArgument("%s: diagonal %d is outside a %dx%d matrix"
                               % (fname, min(lengths, key=lengths.get), m, n))
    max_len = max(lengths.values())
    rows, cols, which, pos = [], [], [], []
    for idx, d in enumerate(range(k[1], k[0] - 1, -1)):     # top diagonal first
        length = lengths[d]
        right = align.split("_")[0 if d >= 0 else 1] == "RIGHT"
        offset = max_len - length if right else 0
        j = _np.arange(length)
        rows.append(j - min(0, d))
        cols.append(j + max(0, d))
        which.append(_np.full(length, idx))
        pos.append(j + offset)
    return (_np.concatenate(rows), _np.concatenate(cols), _np.concatenate(which),
            _np.concatenate(pos), k[0] == k[1], max_len)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """``input`` with diagonal ``k`` (or the band of diagonals ``k = (low, high)``)
    replaced by ``diagonal``; bands follow TensorFlow's ``align`` packing."""
    x, d = _convert_same(_matrices("set_diag", input), diagonal)
    batch = tuple(x._value.shape[:-2])
    rows, cols, which, pos, single, max_len = _diagonal_positions(
        "set_diag", x._value.shape[-2:], k, align)
    want = batch + ((max_len,) if single else (len(set(which.tolist())), max_len))
    if tuple(d._value.shape) != want:
        raise _InvalidArgument("set_diag: diagonal must have shape %s (got %s)"
                               % (list(want), list(d._value.shape)))
    key = (Ellipsis, pos) if single else (Ellipsis, which, pos)
    values = _registry.execute(_getitem, d, key=key)
    mask = _np.zeros(x._value.shape[-2:], bool)
    mask[rows, cols] = True
    placed = _registry.execute(_index_backward, values, key=(Ellipsis, rows, cols),
                      shape=tuple(x._value.shape))
    return _where(_core.wrap(mask), placed, x)


def tensor_diag(diagonal, name=None):
    """The tensor of shape ``s + s`` holding ``diagonal`` (shape ``s``) at ``[i, i]``."""
    d = _to_tensor(diagonal)
    shape = tuple(d._value.shape)
    if not shape:
        raise _InvalidArgument("tensor_diag: diagonal must have rank >= 1 (got a scalar)")
    return _reshape(diag(_reshape(d, [-1])), shape + shape)


def tensor_diag_part(input, name=None):
    """The diagonal ``out[i] = input[i, i]`` of a tensor of shape ``s + s``."""
    x = _to_tensor(input)
    shape = tuple(x._value.shape)
    half = len(shape) // 2
    if len(shape) % 2 or not shape or shape[:half] != shape[half:]:
        raise _InvalidArgument("tensor_diag_part: input must have shape s + s, rank even "
                               "and >= 2 (got %s)" % list(shape))
    size = int(_np.prod(shape[:half]))
    return _reshape(diag_part(_reshape(x, [size, size])), shape[:half])


# ---- LU (TensorFlow records no gradient for it: a tape through it raises LookupError) ----

def _lu_fwd(a, output_idx_type):
    # partial pivoting (the largest |entry| in the column), batched over leading axes
    lu = _np.array(a, copy=True)
    n = lu.shape[-1]
    batch = lu.shape[:-2]
    perm = _np.broadcast_to(_np.arange(n), batch + (n,)).copy()
    flat_lu, flat_perm = lu.reshape((-1, n, n)), perm.reshape((-1, n))
    rows = _np.arange(flat_lu.shape[0])
    for j in range(n):
        p = j + _np.argmax(_np.abs(flat_lu[:, j:, j]), axis=1)
        swap_j, swap_p = flat_lu[rows, j].copy(), flat_lu[rows, p].copy()
        flat_lu[rows, j], flat_lu[rows, p] = swap_p, swap_j
        flat_perm[rows, j], flat_perm[rows, p] = flat_perm[rows, p], flat_perm[rows, j].copy()
        pivot = flat_lu[:, j, j][:, None]
        with _np.errstate(divide="ignore", invalid="ignore"):
            flat_lu[:, j + 1:, j] = flat_lu[:, j + 1:, j] / pivot
        flat_lu[:, j + 1:, j + 1:] -= flat_lu[:, j + 1:, j:j + 1] * flat_lu[:, j:j + 1, j + 1:]
    return flat_lu.reshape(lu.shape), flat_perm.reshape(perm.shape).astype(output_idx_type)


lu_op = _registry.defop("lu", _lu_fwd, kinds="fc", multi=True, same_dtype=False, nin=1,
                        joint_grad=_registry.unregistered_gradient("lu", "Lu"))

Lu = _collections.namedtuple("Lu", ["lu", "p"])


def lu(input, output_idx_type=_np.int32, name=None):
    """``(lu, p)``: the unit-lower ``L`` (below the diagonal) and ``U`` of ``A[p] = L U``,
    with partial pivoting, as ``tf.linalg.lu``."""
    x = _matrices("lu", input)
    if x._value.shape[-1] != x._value.shape[-2]:
        raise _InvalidArgument("lu: input must be square matrices (got shape %s)"
                               % list(x._value.shape))
    out = _registry.execute(lu_op, x, output_idx_type=as_dtype(output_idx_type)._np)
    return Lu(out[0], out[1])


def _lu_factors(lower_upper):
    n = lower_upper._value.shape[-1]
    unit = _core.wrap(_np.eye(n, dtype=lower_upper._value.dtype))
    lower = band_part(lower_upper, -1, 0) * (1 - unit) + unit
    return lower, band_part(lower_upper, 0, -1)


def _gather_rows(x, perm):
    p = _np.asarray(_core.data_of(_to_tensor(perm), "lu"))
    batch = _np.indices(p.shape)[:-1]
    return _registry.execute(_getitem, x, key=tuple(batch) + (p,))


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix ``A`` whose ``lu`` is ``(lower_upper, perm)``."""
    lower, upper = _lu_factors(_matrices("lu_reconstruct", lower_upper))
    p = _np.asarray(_core.data_of(_to_tensor(perm), "lu_reconstruct"))
    inverse = _np.apply_along_axis(lambda r: invert_permutation(r).numpy(), -1, p) \
        if p.ndim > 1 else invert_permutation(p).numpy()
    return _gather_rows(matmul(lower, upper), inverse)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """``x`` with ``A x = rhs`` from ``A``'s ``lu`` factors (two triangular solves)."""
    lu_t, b = _convert_same(_matrices("lu_solve", lower_upper), rhs)
    lower, upper = _lu_factors(lu_t)
    y = triangular_solve(lower, _gather_rows(b, perm), lower=True)
    return triangular_solve(upper, y, lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of the matrix whose ``lu`` is ``(lower_upper, perm)``."""
    lu_t = _matrices("lu_matrix_inverse", lower_upper)
    shape = tuple(lu_t._value.shape)
    ident = _core.wrap(_np.broadcast_to(_np.eye(shape[-1], dtype=lu_t._value.dtype),
                                        shape).copy())
    return lu_solve(lu_t, perm, ident)


def cholesky_solve(chol, rhs, name=None):
    """``x`` with ``A x = rhs`` given ``chol``, the lower Cholesky factor of ``A``."""
    chol, rhs = _convert_same(_matrices("cholesky_solve", chol), rhs)
    y = triangular_solve(chol, rhs, lower=True)
    return triangular_solve(chol, y, lower=True, adjoint=True)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solution of ``matrix @ x = rhs`` (regularized by
    ``l2_regularizer``): the normal equations through Cholesky (``fast=True``, as
    TensorFlow), or the pseudo-inverse (``fast=False``, unregularized)."""
    a, b = _convert_same(_matrices("lstsq", matrix), rhs)
    m, n = a._value.shape[-2:]
    lam = float(_np.asarray(l2_regularizer))
    if not fast:
        if lam:
            raise _InvalidArgument("lstsq: fast=False supports only l2_regularizer=0 (got %g)"
                                   % lam)
        return matmul(pinv(a), b)
    ridge = _core.wrap((lam * _np.eye(min(m, n))).astype(a._value.dtype))
    if m >= n:
        gram = matmul(a, a, adjoint_a=True) + ridge
        return cholesky_solve(cholesky(gram), matmul(a, b, adjoint_a=True))
    gram = matmul(a, a, adjoint_b=True) + ridge
    return matmul(a, cholesky_solve(cholesky(gram), b), adjoint_a=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above ``tol`` (default ``max(s) * max(m, n) * eps``),
    as int32."""
    x = _matrices("matrix_rank", a)
    s = _np.linalg.svd(_core.data_of(x, "matrix_rank"), compute_uv=False)
    if tol is None:
        eps = _np.finfo(x._value.dtype).eps
        tol_v = s.max(axis=-1, keepdims=True, initial=0) * max(x._value.shape[-2:]) * eps
    else:
        tol_v = _np.asarray(tol)[..., None] if _np.ndim(tol) else _np.asarray(tol)
    return _core.wrap(_np.sum(s > tol_v, axis=-1).astype(_np.int32))


# Pade [13/13] coefficients and the 1-norm bound below which scaling is not needed, from
# Higham, "The scaling and squaring method for the matrix exponential revisited" (2005).
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def expm(input, name=None):
    """The matrix exponential, by scaling and squaring with a [13/13] Pade approximant
    (matmuls and one solve: differentiable)."""
    x = _matrices("expm", input)
    n = x._value.shape[-1]
    if x._value.shape[-2] != n:
        raise _InvalidArgument("expm: input must be square matrices (got shape %s)"
                               % list(x._value.shape))
    norm1 = _np.abs(_core.data_of(x, "expm")).sum(axis=-2).max(initial=0)
    squarings = max(0, int(_np.ceil(_np.log2(norm1 / _THETA13)))) if norm1 > 0 else 0
    a = x * (0.5 ** squarings)
    ident = _core.wrap(_np.broadcast_to(_np.eye(n, dtype=x._value.dtype),
                                        x._value.shape).copy())
    b = _PADE13
    a2 = matmul(a, a)
    a4 = matmul(a2, a2)
    a6 = matmul(a4, a2)
    u = matmul(a, matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
               + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = (matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2)
         + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident)
    r = solve(v - u, v + u)
    for _ in range(squarings):
        r = matmul(r, r)
    return r


def sqrtm_matrix(t):
    """The principal square root of one square matrix (``fasteager.scipy.linalg.sqrtm``
    and each matrix of ``fe.linalg.sqrtm``), through the eigendecomposition (``eigh`` for a
    symmetric input, ``eig`` otherwise, real when the result is), so it is differentiable
    where the eigenvalues are distinct; integers become float64, as SciPy."""
    if t._value.dtype.kind != "f":
        t = _cast(t, _np.float64)
    v = t._value
    if _np.array_equal(v, v.T):
        w, q = eigh(t)
        if _np.all(w._value >= 0):
            return matmul(q * _expand_dims(_sqrt(w), 0), q, transpose_b=True)
    e, q = eig(t)
    root = matmul(q * _expand_dims(_sqrt(e), 0), inv(q))
    if _np.allclose(_np.imag(root._value), 0, atol=1e3 * _np.finfo(v.dtype).eps
                    * max(1.0, _np.abs(v).max())):
        return _real(root)
    return root


def sqrtm(input, name=None):
    """The principal square root of each matrix, through its eigendecomposition
    (``fasteager.scipy.linalg.sqrtm``): differentiable where the eigenvalues are distinct.
    TensorFlow uses a Schur method, more accurate for ill-conditioned non-normal input."""
    x = _matrices("sqrtm", input)
    shape = tuple(x._value.shape)
    if shape[-1] != shape[-2]:
        raise _InvalidArgument("sqrtm: input must be square matrices (got shape %s)"
                               % list(shape))
    if len(shape) == 2:
        return sqrtm_matrix(x)
    flat = _reshape(x, (-1,) + shape[-2:])
    roots = [sqrtm_matrix(flat[i]) for i in range(flat._value.shape[0])]
    return _reshape(_stack(roots), shape)


# ---- tridiagonal and banded matrices: dense composites (exact, differentiable) -----------

def _tridiagonal_dense(fname, diagonals, diagonals_format):
    """The dense [..., M, M] matrix of TensorFlow's three tridiagonal formats."""
    if diagonals_format == "matrix":
        return _matrices(fname, diagonals)
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("%s: diagonals_format='sequence' takes (superdiagonal, "
                             "diagonal, subdiagonal) (got %r)" % (fname, type(diagonals)))
        sup, main, sub = _convert_same(*diagonals)
    elif diagonals_format == "compact":
        d = _to_tensor(diagonals)
        if d._value.ndim < 2 or d._value.shape[-2] != 3:
            raise ValueError("%s: compact diagonals must have shape [..., 3, M] (got %s)"
                             % (fname, list(d._value.shape)))
        sup, main, sub = (d[..., i, :] for i in range(3))
    else:
        raise ValueError("%s: unrecognized diagonals_format %r (expected 'compact', "
                         "'sequence' or 'matrix')" % (fname, diagonals_format))
    m = main._value.shape[-1]
    shape = tuple(main._value.shape) + (m,)
    i = _np.arange(m)
    # superdiagonal: a[j, j+1] = sup[j] (its last entry unused); subdiagonal:
    # a[j, j-1] = sub[j] (its first entry unused)
    out = _registry.execute(_index_backward, main, key=(Ellipsis, i, i), shape=shape)
    if m > 1:
        up = _registry.execute(_getitem, sup, key=(Ellipsis, slice(0, m - 1)))
        low = _registry.execute(_getitem, sub, key=(Ellipsis, slice(1, m)))
        out = out + _registry.execute(_index_backward, up, key=(Ellipsis, i[:-1], i[1:]),
                                      shape=shape)
        out = out + _registry.execute(_index_backward, low, key=(Ellipsis, i[1:], i[:-1]),
                                      shape=shape)
    return out


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``A @ rhs`` for a tridiagonal ``A`` given by its diagonals ('compact' [..., 3, M]:
    superdiagonal, diagonal, subdiagonal; 'sequence': those three; 'matrix')."""
    a = _tridiagonal_dense("tridiagonal_matmul", diagonals, diagonals_format)
    return matmul(a, _convert_same(a, rhs)[1])


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """``x`` with ``A x = rhs`` for a tridiagonal ``A`` (formats as ``tridiagonal_matmul``;
    a [..., M] ``rhs`` with 'compact' is one right-hand side), through a dense LU solve
    with partial pivoting. ``perturb_singular`` is not supported."""
    if perturb_singular:
        raise NotImplementedError("tridiagonal_solve: perturb_singular=True is not "
                                  "supported")
    a = _tridiagonal_dense("tridiagonal_solve", diagonals, diagonals_format)
    b = _convert_same(a, rhs)[1]
    if transpose_rhs:
        b = matrix_transpose(b)
    if conjugate_rhs:
        b = _conj(b)
    vector = b._value.ndim == a._value.ndim - 1
    if vector:
        b = _reshape(b, tuple(b._value.shape) + (1,))
    x = solve(a, b)
    return _reshape(x, tuple(x._value.shape[:-1])) if vector else x


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """``x`` with ``T x = rhs`` for a triangular ``T`` given by its ``K`` bands: lower, band
    ``d`` holds ``T[j, j - d]`` at position ``j`` (band 0 the diagonal); upper, band
    ``K - 1 - d`` holds ``T[j, j + d]`` at position ``j`` (the last band the diagonal)."""
    b = _to_tensor(bands)
    if b._value.ndim < 2:
        raise _InvalidArgument("banded_triangular_solve: bands must have rank >= 2 (got "
                               "shape %s)" % list(b._value.shape))
    k, m = b._value.shape[-2:]
    if k > m:
        raise _InvalidArgument("banded_triangular_solve: more bands (%d) than columns (%d)"
                               % (k, m))
    shape = tuple(b._value.shape[:-2]) + (m, m)
    dense = None
    for d in range(k):
        rows = _np.arange(d, m) if lower else _np.arange(0, m - d)
        cols = rows - d if lower else rows + d
        band = _registry.execute(_getitem, b, key=(Ellipsis, d if lower else k - 1 - d, rows))
        part = _registry.execute(_index_backward, band, key=(Ellipsis, rows, cols), shape=shape)
        dense = part if dense is None else dense + part
    return triangular_solve(dense, _convert_same(dense, rhs)[1], lower=bool(lower),
                            adjoint=bool(adjoint))


def logm(input, name=None):
    """The principal matrix logarithm of complex matrices (TensorFlow takes complex64 and
    complex128 only), through the eigendecomposition ``V diag(log w) V^-1``: exact for
    diagonalizable input; TensorFlow uses an inverse scaling-and-squaring method, more
    accurate for nearly defective matrices."""
    x = _matrices("logm", input)
    if x._value.dtype.kind != "c":
        raise _InvalidArgument("logm: input must be complex64 or complex128 (got %s)"
                               % x._value.dtype)
    if x._value.shape[-1] != x._value.shape[-2]:
        raise _InvalidArgument("logm: input must be square matrices (got shape %s)"
                               % list(x._value.shape))
    w, v = eig(x)
    logs = _reshape(_log(w), tuple(w._value.shape[:-1]) + (1, w._value.shape[-1]))
    return matrix_transpose(solve(matrix_transpose(v), matrix_transpose(v * logs)))


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None,
                     name=None):
    """Eigenvalues (ascending), and with ``eigvals_only=False`` eigenvectors (columns), of
    the Hermitian tridiagonal matrix with diagonal ``alpha`` and superdiagonal ``beta``:
    through the dense matrix's ``eigh``. ``select``: 'a' all, 'i' the inclusive index
    range, 'v' the values in ``(lo, hi]``."""
    a, b = _convert_same(alpha, beta)
    if a._value.ndim != 1 or b._value.shape != (max(a._value.shape[0] - 1, 0),):
        raise _InvalidArgument("eigh_tridiagonal: alpha must be [n] and beta [n - 1] (got %s "
                               "and %s)" % (list(a._value.shape), list(b._value.shape)))
    if select not in ("a", "i", "v"):
        raise ValueError("eigh_tridiagonal: select must be 'a', 'i' or 'v' (got %r)"
                         % (select,))
    n = a._value.shape[0]
    i = _np.arange(n)
    dense = _registry.execute(_index_backward, a, key=(i, i), shape=(n, n))
    if n > 1:
        dense = dense + _registry.execute(_index_backward, b, key=(i[:-1], i[1:]),
                                          shape=(n, n))
        dense = dense + _registry.execute(_index_backward, _conj(b), key=(i[1:], i[:-1]),
                                          shape=(n, n))
    w, v = eigh(dense)
    keep = _np.arange(n)
    if select == "i":
        lo, hi = (int(t) for t in _np.asarray(select_range).reshape(-1))
        keep = keep[lo:hi + 1]
    elif select == "v":
        lo, hi = (float(t) for t in _np.asarray(select_range).reshape(-1))
        vals = _core.data_of(w, "eigh_tridiagonal")
        keep = keep[(vals > lo) & (vals <= hi)]
    if len(keep) != n:
        w = _registry.execute(_getitem, w, key=(keep,))
        v = _registry.execute(_getitem, v, key=(slice(None), keep))
    return w if eigvals_only else (w, v)


# these were defined in fasteager.linalg, the public module that re-exports them: they keep
# that module name (printed and pickled by reference as before)
for _public in (adjoint, band_part, cross, matvec, normalize, global_norm, set_diag, tensor_diag,
                tensor_diag_part, lu, lu_reconstruct, lu_solve, lu_matrix_inverse,
                cholesky_solve, lstsq, matrix_rank, expm, sqrtm, tridiagonal_matmul,
                tridiagonal_solve, banded_triangular_solve, logm, eigh_tridiagonal, Lu):
    _public.__module__ = "fasteager.linalg"
del _public
