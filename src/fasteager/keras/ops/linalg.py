"""``keras.ops.linalg``: decompositions, solves, norms, inverses and forward-mode ``jvp`` —
Keras 3.15's ``keras.src.ops.linalg`` with the TensorFlow backend's semantics (Keras's
input checks first: rank >= 2, square matrices), on fasteager's ops.
"""
import numpy as np

import fasteager as fe

from .. import backend as _backend
from ..backend import result_type, standardize_dtype
from .core import cast, convert_to_tensor

__all__ = [
    "cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq", "lu_factor",
    "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular", "svd",
]


def _assert_1d(*arrays):
    for a in arrays:
        if len(a.shape) < 1:
            raise ValueError("Expected input to have rank >= 1. Received scalar input %s."
                             % (a,))


def _assert_2d(*arrays):
    for a in arrays:
        if len(a.shape) < 2:
            raise ValueError("Expected input to have rank >= 2. Received input with shape %s."
                             % (tuple(a.shape),))


def _assert_square(*arrays):
    for a in arrays:
        m, n = a.shape[-2:]
        if m != n:
            raise ValueError("Expected a square matrix. Received non-square input with "
                             "shape %s" % (tuple(a.shape),))


def _assert_a_b_compat(a, b):
    if len(a.shape) == len(b.shape):
        if a.shape[-2] != b.shape[-2]:
            raise ValueError("Incompatible shapes between `a` and `b`. Expected `a.shape[-2] "
                             "== b.shape[-2]`. Received: a.shape=%s, b.shape=%s"
                             % (tuple(a.shape), tuple(b.shape)))
    elif len(a.shape) == len(b.shape) - 1 and a.shape[-1] != b.shape[-1]:
        raise ValueError("Incompatible shapes between `a` and `b`. Expected `a.shape[-1] == "
                         "b.shape[-1]`. Received: a.shape=%s, b.shape=%s"
                         % (tuple(a.shape), tuple(b.shape)))


def _square(x):
    x = convert_to_tensor(x)
    _assert_2d(x)
    _assert_square(x)
    return x


def cholesky(x, upper=False):
    """The Cholesky factor of Hermitian positive-definite ``x`` (lower, or upper)."""
    x = _square(x)
    try:
        out = fe.linalg.cholesky(x)
        out = fe.debugging.check_numerics(out, "Cholesky")
    except Exception as e:  # noqa: BLE001 - Keras reports any failure as a ValueError
        raise ValueError("Cholesky decomposition failed: %s" % (e,))
    return fe.linalg.adjoint(out) if upper else out


def cholesky_inverse(x, upper=False):
    """The inverse of ``A`` from its Cholesky factor ``x`` (``A = L L^H`` or ``U^H U``)."""
    x = _square(x)
    try:
        eye = fe.eye(x.shape[-1], dtype=x.dtype)
        inv_chol = fe.linalg.triangular_solve(x, eye, lower=not upper)
        if upper:
            return fe.matmul(inv_chol, inv_chol, transpose_b=True)
        return fe.matmul(inv_chol, inv_chol, transpose_a=True)
    except Exception as e:  # noqa: BLE001 - as Keras: any failure is a ValueError
        raise ValueError("Cholesky inverse failed: %s" % (e,))


def det(x):
    """The determinant of each square matrix in ``x``."""
    return fe.linalg.det(_square(x))


def eig(x):
    """Eigenvalues and eigenvectors of general square matrices (complex)."""
    return fe.linalg.eig(_square(x))


def eigh(x):
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices."""
    return fe.linalg.eigh(_square(x))


def inv(x):
    """The inverse of each square matrix in ``x``."""
    return fe.linalg.inv(_square(x))


def lu_factor(x):
    """``(lu, pivots)``: the packed LU factors and the row permutation of ``x``."""
    x = convert_to_tensor(x)
    _assert_2d(x)
    try:
        _assert_square(x)
    except ValueError as e:
        raise ValueError("LU decomposition failed: %s. LU decomposition is only supported "
                         "for square matrices in Tensorflow." % (e,))
    lu, p = fe.linalg.lu(x)
    return lu, fe.math.invert_permutation(p)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norm (one axis) or matrix norm (two axes) of ``x``; ints give floatx."""
    x = convert_to_tensor(x)
    ndim = len(x.shape)
    if axis is None:
        axis = tuple(range(ndim))
    elif isinstance(axis, int):
        axis = (axis,)
    if any(a < -ndim or a >= ndim for a in axis):
        raise ValueError("All `axis` values must be in the range [-ndim, ndim). Received "
                         "inputs with ndim=%d, while axis=%s" % (ndim, axis))
    axis = axis[0] if len(axis) == 1 else tuple(axis)
    num_axes = 1 if isinstance(axis, int) else len(axis)
    if standardize_dtype(x.dtype) == "int64":
        dtype = _backend.floatx()
    else:
        dtype = result_type(x.dtype, float)
    x = cast(x, dtype)
    absx = fe.abs(x)
    if num_axes == 1:
        if ord is None or ord == 2:
            return fe.sqrt(fe.reduce_sum(x * fe.math.conj(x), axis=axis, keepdims=keepdims))
        if ord == float("inf"):
            return fe.reduce_max(absx, axis=axis, keepdims=keepdims)
        if ord == float("-inf"):
            return fe.reduce_min(absx, axis=axis, keepdims=keepdims)
        if ord == 0:
            return fe.reduce_sum(fe.cast(fe.not_equal(x, 0), x.dtype), axis=axis,
                                 keepdims=keepdims)
        if isinstance(ord, str):
            raise ValueError("Invalid `ord` argument for vector norm. Received: ord=%s"
                             % (ord,))
        p = convert_to_tensor(ord, dtype=dtype)
        return fe.pow(fe.reduce_sum(fe.pow(absx, p), axis=axis, keepdims=keepdims), 1.0 / p)
    if num_axes == 2:
        row, col = axis
        row = row + ndim if row < 0 else row
        col = col + ndim if col < 0 else col
        if ord is None or ord == "fro":
            return fe.sqrt(fe.reduce_sum(x * fe.math.conj(x), axis=axis, keepdims=keepdims))
        if ord in (1, -1):
            if not keepdims and col > row:
                col -= 1
            sums = fe.reduce_sum(absx, axis=row, keepdims=keepdims)
            pick = fe.reduce_max if ord == 1 else fe.reduce_min
            return pick(sums, axis=col, keepdims=keepdims)
        if ord in (float("inf"), float("-inf")):
            if not keepdims and row > col:
                row -= 1
            sums = fe.reduce_sum(absx, axis=col, keepdims=keepdims)
            pick = fe.reduce_max if ord > 0 else fe.reduce_min
            return pick(sums, axis=row, keepdims=keepdims)
        if ord in ("nuc", 2, -2):
            s = fe.linalg.svd(_moveaxis(x, axis), compute_uv=False)
            if ord == -2:
                out = fe.reduce_min(s, axis=-1)
            elif ord == 2:
                out = fe.reduce_max(s, axis=-1)
            else:
                out = fe.reduce_sum(s, axis=-1)
            if keepdims:
                out = fe.expand_dims(fe.expand_dims(out, axis[0]), axis[1])
            return out
        raise ValueError("Invalid `ord` argument for matrix norm. Received: ord=%s" % (ord,))
    raise ValueError("Invalid axis values. Received: axis=%s" % (axis,))


def _moveaxis(x, axes):
    # The two matrix axes last, in the order given (NumPy's moveaxis(x, axes, (-2, -1))).
    ndim = len(x.shape)
    src = [a % ndim for a in axes]
    rest = [i for i in range(ndim) if i not in src]
    return fe.transpose(x, rest + src)


def qr(x, mode="reduced"):
    """``(q, r)`` of ``x``: 'reduced' (economy) or 'complete'."""
    if mode not in ("reduced", "complete"):
        raise ValueError("`mode` argument value not supported. Expected one of {'reduced', "
                         "'complete'}. Received: mode=%s" % (mode,))
    return fe.linalg.qr(convert_to_tensor(x), full_matrices=(mode == "complete"))


def _solve_with(fn, a, b):
    a = convert_to_tensor(a)
    b = convert_to_tensor(b)
    _assert_2d(a)
    _assert_square(a)
    _assert_1d(b)
    _assert_a_b_compat(a, b)
    if len(b.shape) == len(a.shape) - 1:
        return fe.squeeze(fn(a, fe.expand_dims(b, -1)), axis=-1)
    return fn(a, b)


def solve(a, b):
    """``x`` with ``a @ x = b`` (``b`` a vector or a matrix of right-hand sides)."""
    return _solve_with(fe.linalg.solve, a, b)


def solve_triangular(a, b, lower=False):
    """``x`` with ``a @ x = b`` for triangular ``a`` (upper by default, as Keras)."""
    return _solve_with(lambda m, r: fe.linalg.triangular_solve(m, r, lower=lower), a, b)


def svd(x, full_matrices=True, compute_uv=True):
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh``, or ``s`` alone."""
    x = convert_to_tensor(x)
    _assert_2d(x)
    if compute_uv is False:
        return fe.linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = fe.linalg.svd(x, full_matrices=full_matrices, compute_uv=True)
    return u, s, fe.linalg.adjoint(v)


def lstsq(a, b, rcond=None):
    """Least-squares ``x`` minimising ``|a @ x - b|`` (SVD-based, as NumPy's)."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_ndim = len(b.shape)
    if b_ndim == 1:
        b = b[:, None]
    if len(a.shape) != 2:
        raise TypeError("%d-dimensional array given. Array must be two-dimensional"
                        % len(a.shape))
    if len(b.shape) != 2:
        raise TypeError("%d-dimensional array given. Array must be one or two-dimensional"
                        % len(b.shape))
    m, n = a.shape
    eps = np.finfo(a.dtype.as_numpy_dtype).eps
    if rcond is None:
        rcond = eps * max(n, m)
    elif rcond < 0:
        rcond = eps
    u, s, vt = svd(a, full_matrices=False)
    mask = s >= fe.cast(rcond, s.dtype) * s[0]
    safe_s = fe.cast(fe.where(mask, s, fe.ones_like(s)), a.dtype)
    s_inv = fe.where(mask, 1 / safe_s, fe.zeros_like(safe_s))[:, None]
    u_t_b = fe.matmul(fe.transpose(fe.math.conj(u)), b)
    x = fe.matmul(fe.transpose(fe.math.conj(vt)), s_inv * u_t_b)
    if b_ndim == 1:
        x = fe.reshape(x, [-1])
    return x


def matrix_rank(x, tol=None):
    """The number of singular values of ``x`` above ``tol`` (default: eps * max dim * max s)."""
    return fe.linalg.matrix_rank(convert_to_tensor(x), tol=tol)


def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse of ``x``."""
    return fe.linalg.pinv(convert_to_tensor(x), rcond=rcond)


def jvp(fun, primals, tangents, has_aux=False):
    """``(fun(*primals), J @ tangents)`` by forward mode; with ``has_aux`` ``fun`` returns
    ``(out, aux)`` and ``aux`` comes back third."""
    primal_flat = [convert_to_tensor(p) for p in fe.nest.flatten(primals)]
    tangent_flat = [fe.cast(t, p.dtype) for t, p in zip(fe.nest.flatten(tangents),
                                                         primal_flat)]
    primals = fe.nest.pack_sequence_as(primals, primal_flat)
    with fe.autodiff.ForwardAccumulator(primal_flat, tangent_flat) as acc:
        if has_aux:
            out, aux = fun(*primals)
        else:
            out = fun(*primals)
        out_flat = fe.nest.flatten(out)
        tangents_out = [acc.jvp(o) for o in out_flat]
    tangents_out = fe.nest.pack_sequence_as(out, tangents_out)
    if has_aux:
        return out, tangents_out, aux
    return out, tangents_out
