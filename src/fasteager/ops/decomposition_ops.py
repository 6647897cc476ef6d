"""Matrix functions with gradients: inverse, determinants, solves, and the decompositions
(Cholesky, QR, SVD, symmetric and general eigendecomposition), the pseudo-inverse and
triangular solves.

Matrix ops act on the last two axes and batch over the leading ones (NumPy's
``np.linalg`` rules). Gradients are the standard matrix-calculus formulas written with
fasteager ops (so they are differentiable again); each cites its source. qr and svd have
gradients for full-rank inputs (their docstrings say which cases). Float dtypes only
(float32 stays float32); singular or non-positive-definite inputs raise
``InvalidArgumentError`` naming the op.
"""


import numpy as np

from .. import _core
from ..errors import InvalidArgumentError, UnimplementedError
from .array_ops import concat, expand_dims, eye
from .elementwise_ops import _cj, cast, convert_same, log, real, where
from .linalg_ops import _expand2, _mT, diag_part, matmul
from .reduction_ops import reduce_sum
from .registry import defop, execute, FLOAT, unbroadcast

convert_to_tensor = _core.convert_to_tensor


# ---- matrix functions with gradients --------------------------------------------------------

def _check_square(opname):
    def check(a, *rest, **attrs):
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise InvalidArgumentError("%s: input must be a (batch of) square matrices "
                                       "(expected shape [..., n, n], got %s)"
                                       % (opname, list(a.shape)))
    return check


def _linalg_call(opname, fn):
    def forward(*args, **attrs):
        try:
            return fn(*args, **attrs)
        except np.linalg.LinAlgError as e:
            raise InvalidArgumentError("%s: %s (expected an invertible%s matrix)"
                                       % (opname, e, " positive-definite"
                                          if opname == "cholesky" else "")) from None
    forward.__wrapped__ = fn   # defop reads the op's inputs and attrs from fn's signature
    return forward


def _inv_grad(g, ans, a):
    # d inv(A) = -inv(A) dA inv(A)  =>  dA = -inv(A)^T g inv(A)^T  (Giles 2008, sec. 2.2.3);
    # complex: the conjugate transposes (TensorFlow's convention, see elementwise_ops)
    c = _cj(ans)
    return -matmul(matmul(c, g, transpose_a=True), c, transpose_b=True)


inv_op = defop("inv", _linalg_call("inv", np.linalg.inv), kinds=FLOAT + "c",
               check=_check_square("inv"), grads=[_inv_grad])


def inv(input, adjoint=False, name=None):
    """The inverse of each square matrix in ``input`` (``adjoint``: of its transpose)."""
    out = execute(inv_op, input)
    return _mT(out) if adjoint else out


def _det_grad(g, ans, a):
    # d det(A) = det(A) tr(inv(A) dA)  =>  dA = g det(A) inv(A)^T  (Giles 2008, sec. 2.2.4);
    # complex: g conj(det(A) inv(A)^T)
    return _expand2(g * _cj(ans)) * _mT(_cj(inv(a)))


det_op = defop("det", _linalg_call("det", np.linalg.det), kinds=FLOAT + "c",
               check=_check_square("det"), grads=[_det_grad])


def det(input, name=None):
    """The determinant of each square matrix in ``input``."""
    return execute(det_op, input)


def _slogdet_fwd(a):
    sign, logabs = np.linalg.slogdet(a)
    return sign.astype(a.dtype), logabs.astype(a.dtype)


# d log|det(A)| = tr(inv(A) dA)  =>  dA = g inv(A)^T; the sign is piecewise constant
slogdet_op = defop("slogdet", _slogdet_fwd, kinds=FLOAT, multi=True,
                   check=_check_square("slogdet"),
                   grads=[lambda g, ans, a: _expand2(g[1]) * _mT(inv(a))])


def slogdet(input, name=None):
    """``(sign, log|det|)`` of each square matrix: the log-determinant without overflow."""
    return execute(slogdet_op, input)


def logdet(matrix, name=None):
    """log(det(matrix)) of a positive-definite matrix: 2 sum(log(diag(cholesky(matrix))))."""
    return 2.0 * reduce_sum(log(diag_part(cholesky(matrix))), -1)


def _check_solve(a, b, adjoint=False):
    _check_square("solve")(a)
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise InvalidArgumentError("solve: rhs must have shape [..., %d, k] to match matrix %s "
                                   "(got %s)" % (a.shape[-1], list(a.shape), list(b.shape)))


def _solve_fwd(a, b, adjoint=False):
    if adjoint:             # the conjugate transpose (TensorFlow's adjoint)
        a = np.conj(np.swapaxes(a, -1, -2))
    # NumPy >= 2 solves b of shape (..., n, k) batch-wise; broadcast the batches first
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    return np.linalg.solve(a, b)


def _solve_da(g, ans, a, b, adjoint=False):
    # A X = B: dB = solve(A^T, g), dA = -dB X^T; with adjoint (A^T X = B): dA = -X dB^T
    # (Giles 2008, sec. 2.3.1); complex: conjugate transposes (dA = -dB X^H, -X dB^H)
    gb = solve(a, g, adjoint=not adjoint)
    if adjoint:
        da = matmul(ans, _cj(gb), transpose_b=True)
    else:
        da = matmul(gb, _cj(ans), transpose_b=True)
    return unbroadcast(-da, a)


solve_op = defop("solve", _linalg_call("solve", _solve_fwd), kinds=FLOAT + "c",
                 check=_check_solve,
                 grads=[_solve_da, lambda g, ans, a, b, adjoint=False:
                        unbroadcast(solve(a, g, adjoint=not adjoint), b)])


def solve(matrix, rhs, adjoint=False, name=None):
    """``X`` with ``matrix @ X = rhs`` (``adjoint``: ``matrix^H @ X = rhs``, the conjugate
    transpose); rhs [..., n, k]."""
    matrix, rhs = convert_same(matrix, rhs)
    if adjoint:
        return execute(solve_op, matrix, rhs, adjoint=True)
    return execute(solve_op, matrix, rhs)


_PHI = {}


def _phi_mask(n, dtype):
    # Phi(X) keeps the lower triangle and halves the diagonal (Murray 2016, eq. 10)
    key = (n, np.dtype(dtype))
    if key not in _PHI:
        _PHI[key] = _core.wrap((np.tril(np.ones((n, n))) - 0.5 * np.eye(n)).astype(dtype))
    return _PHI[key]


def _cholesky_grad(g, ans, a):
    # A = L L^T: Abar = L^-T Phi(L^T Lbar) L^-1, symmetrised (Murray 2016, "Differentiation
    # of the Cholesky decomposition", eq. 10), the gradient for a symmetric A
    n = a._value.shape[-1]
    l_inv = inv(ans)
    mid = matmul(ans, g, transpose_a=True) * _phi_mask(n, a._value.dtype)
    abar = matmul(matmul(l_inv, mid, transpose_a=True), l_inv)
    return 0.5 * (abar + _mT(abar))


cholesky_op = defop("cholesky", _linalg_call("cholesky", np.linalg.cholesky), kinds=FLOAT,
                    check=_check_square("cholesky"), grads=[_cholesky_grad])


def cholesky(input, name=None):
    """The lower-triangular ``L`` with ``L @ L^T = input`` (symmetric positive-definite).

    Only the lower triangle of ``input`` is read; the gradient is for a symmetric input.
    """
    return execute(cholesky_op, input)


# ---- QR and SVD with gradients ---------------------------------------------------------------
# Their VJPs are the standard ones for full-rank inputs; cases outside them raise
# UnimplementedError (a NotImplementedError) naming the op and the case when the gradient
# is asked for (the forward works for every shape).

_MASKS = {}


def _masks(n, dtype):
    # (lower triangle with the diagonal, identity) as constant tensors, cached
    key = (n, np.dtype(dtype))
    if key not in _MASKS:
        _MASKS[key] = (_core.wrap(np.tril(np.ones((n, n), dtype))),
                       _core.wrap(np.eye(n, dtype=dtype)))
    return _MASKS[key]


def _negligible(v, scale=None):
    # v (>= 0) lost in rounding next to the largest of scale (v itself by default), per
    # matrix: what the QR/SVD gradients below cannot divide by
    scale = v if scale is None else scale
    top = np.max(scale, axis=-1, keepdims=True) if scale.shape[-1] else 0
    return v <= 64 * np.finfo(v.dtype).eps * top


def _copyltu(m):
    # the symmetric matrix with m's lower triangle: tril(m) + tril(m, -1)^T
    low, eye_ = _masks(m._value.shape[-1], m._value.dtype)
    lower = m * low
    return lower + _mT(lower) - m * eye_


def _qr_grad_square_r(q, r, gq, gr):
    # A = QR with R square (m >= n, reduced): Abar = (Qbar + Q copyltu(M)) R^-T with
    # M = R Rbar^T - Qbar^T Q (Seeger et al. 2017, "Auto-differentiating linear algebra";
    # Liao et al. 2019, eq. 6). R^-T through solve: X R^T = B <=> R X^T = B^T.
    if np.any(_negligible(np.abs(np.diagonal(r._value, axis1=-2, axis2=-1)))):
        raise InvalidArgumentError("qr: no gradient for a rank-deficient matrix (expected "
                                   "full column rank, got a zero on the diagonal of r)")
    m = matmul(r, gr, transpose_b=True) - matmul(gq, q, transpose_a=True)
    b = gq + matmul(q, _copyltu(m))
    return _mT(solve(r, _mT(b)))


def _qr_grad(g, ans, a, full_matrices=False):
    gq, gr = g
    q, r = ans
    rows, cols = a._value.shape[-2:]
    if rows >= cols:
        if full_matrices and rows > cols:
            raise UnimplementedError(
                "qr: no gradient with full_matrices=True for a tall matrix (the extra columns "
                "of q are not unique; expected full_matrices=False or rows <= cols, got shape "
                "%s)" % list(a._value.shape))
        return _qr_grad_square_r(q, r, gq, gr)
    # wide: A = [X | Y] with X = Q U square and Y = Q V, R = [U | V]: X's gradient is the
    # square case with Qbar + Y Vbar^T, Y's is Q Vbar (Liao et al. 2019, sec. 3.2)
    x, y = a[..., :rows], a[..., rows:]
    u, gu, gv = r[..., :rows], gr[..., :rows], gr[..., rows:]
    gx = _qr_grad_square_r(q, u, gq + matmul(y, gv, transpose_b=True), gu)
    return concat([gx, matmul(q, gv)], axis=-1)


qr_op = defop("qr", lambda a, full_matrices=False:
              np.linalg.qr(a, mode="complete" if full_matrices else "reduced"),
              kinds=FLOAT, multi=True, grads=[_qr_grad])


def qr(input, full_matrices=False, name=None):
    """``(q, r)`` with ``q`` orthonormal columns and ``r`` upper-triangular.

    Differentiable for full-rank inputs, tall (reduced, ``full_matrices=False``), square
    or wide; the gradient of a tall matrix with ``full_matrices=True`` is not defined
    (``UnimplementedError``).

    >>> q, r = fe.linalg.qr(fe.constant([[3.0, 1.0], [4.0, 2.0]]))
    """
    x = convert_to_tensor(input)
    if x._value.ndim < 2:
        raise InvalidArgumentError("qr: input must have rank >= 2 (expected a matrix, got "
                                   "shape %s)" % list(x._value.shape))
    return execute(qr_op, x, full_matrices=bool(full_matrices))


def _without_nonfinite(a):
    """(a with zeros for the matrices holding Inf/NaN, which matrices those were).

    LAPACK's gesdd (under svd and pinv) can loop forever on an Inf entry: the kernels
    decompose zeros instead and give those matrices all-NaN results, as TensorFlow does."""
    bad = ~np.isfinite(a).all(axis=(-2, -1))
    return (np.where(bad[..., None, None], 0, a) if bad.any() else a), bad


def _svd_fwd(a, full_matrices=False, compute_uv=True):
    a, bad = _without_nonfinite(a)
    if not compute_uv:
        out = (np.linalg.svd(a, compute_uv=False),)
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
        out = (s, u, np.conj(np.swapaxes(vh, -1, -2)))      # a = u diag(s) v^H
    if bad.any():
        for o in out:
            o[bad] = np.nan
    return out


def _check_distinct(s, what):
    # the u/v gradient has 1 / (s_j^2 - s_i^2): repeated singular values leave it undefined
    v = s._value
    if v.shape[-1] > 1:
        gaps = -np.diff(v, axis=-1)          # singular values come sorted, descending
        if np.any(_negligible(gaps, v)):
            raise UnimplementedError(
                "svd: no gradient of %s for repeated singular values (expected distinct "
                "values, got s = %s)" % (what, np.array2string(v, precision=4)))


def _adj(x):
    """The adjoint (conjugate transpose) of a batch of matrices; the transpose if real."""
    return _cj(_mT(x))


def _as(x, like):
    # a real tensor (singular values, their gradient) in a complex matrix's dtype
    dtype = like._value.dtype
    return x if x._value.dtype == dtype else cast(x, dtype)


def _svd_s_grad(gs, u, v):
    # d s_i = Re(u_i^H dA v_i): Abar = U diag(sbar) V^H, over the thin u and v (k columns)
    k = gs._value.shape[-1]
    return matmul(u[..., :k] * expand_dims(_as(gs, u), -2), _adj(v[..., :k]))


def _svd_grad(g, ans, a, full_matrices=False, compute_uv=True):
    rows, cols = a._value.shape[-2:]
    if not compute_uv:
        _, u, v = execute(svd_op, a, full_matrices=False, compute_uv=True)
        return _svd_s_grad(g[0], u, v)
    gs, gu, gv = g
    s, u, v = ans
    if not (np.any(gu._value) or np.any(gv._value)):
        return _svd_s_grad(gs, u, v)
    if full_matrices and rows != cols:
        raise UnimplementedError(
            "svd: no gradient of u and v with full_matrices=True for a non-square matrix "
            "(the extra singular vectors are not unique; expected full_matrices=False, got "
            "shape %s)" % list(a._value.shape))
    _check_distinct(s, "u and v")
    if rows != cols and np.any(_negligible(s._value)):
        raise InvalidArgumentError("svd: no gradient of u and v for a rank-deficient "
                                   "non-square matrix (expected singular values > 0, got 0)")
    # Townsend 2016, "Differentiating the singular value decomposition", eq. (27)-(28) for
    # A = U S V^H (thin): with F_ij = 1 / (s_j^2 - s_i^2) off the diagonal (0 on it),
    # Abar = U [(F o (U^H Ubar - Ubar^H U)) S + diag(sbar) + S (F o (V^H Vbar - Vbar^H V))] V^H
    #        + (I - U U^H) Ubar S^-1 V^H + U S^-1 Vbar^H (I - V V^H)
    # and for complex A the phase term U S^-1 (L^H - L) V^H / 2, L = I o (V^H Vbar)
    # (TensorFlow's SvdGrad; Wan and Zhang, "Automatic differentiation for complex valued
    # SVD", 2019)
    k = s._value.shape[-1]
    _, eye_ = _masks(k, s._value.dtype)
    s2 = s * s
    diff = expand_dims(s2, -2) - expand_dims(s2, -1)              # [i, j] = s_j^2 - s_i^2
    on_diag = _core.wrap(np.eye(k, dtype=bool))
    f = _as(where(on_diag, 0.0 * eye_, 1.0 / where(on_diag, eye_, diff)), u)
    eye_, s, gs = _as(eye_, u), _as(s, u), _as(gs, u)
    utgu = matmul(_adj(u), gu)
    vtgv = matmul(_adj(v), gv)
    row_s, col_s = expand_dims(s, -1), expand_dims(s, -2)        # S X scales rows, X S columns
    inner = (f * (utgu - _adj(utgu))) * col_s + eye_ * expand_dims(gs, -2) \
        + row_s * (f * (vtgv - _adj(vtgv)))
    if u._value.dtype.kind == "c":
        diag_v = eye_ * vtgv
        inner = inner + 0.5 * (_adj(diag_v) - diag_v) / row_s
    out = matmul(matmul(u, inner), _adj(v))
    if rows > k:      # the part of Ubar outside span(U)
        out = out + matmul((gu - matmul(u, utgu)) / col_s, _adj(v))
    if cols > k:      # the part of Vbar outside span(V)
        out = out + matmul(u / col_s, _adj(gv - matmul(v, vtgv)))
    return out


svd_op = defop("svd", _linalg_call("svd", _svd_fwd), kinds=FLOAT + "c", multi=True,
               same_dtype=False, grads=[_svd_grad])


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``(s, u, v)`` with ``tensor = u @ diag(s) @ v^T`` (TensorFlow's order; ``v``, not
    ``v^T``); only ``s`` when ``compute_uv=False``.

    Differentiable for full-rank inputs: ``s`` always (its gradient is ``u @ v^T``); ``u``
    and ``v`` with ``full_matrices=False`` (or a square matrix) and distinct singular
    values, where their gradient is defined. Other cases raise ``UnimplementedError``
    when the gradient is asked for. The signs of matching columns of ``u`` and ``v`` are
    arbitrary: a loss depending on them has an arbitrary gradient too.

    >>> s = fe.linalg.svd(fe.constant([[3.0, 0.0], [0.0, 2.0]]), compute_uv=False)
    """
    x = convert_to_tensor(tensor)
    if x._value.ndim < 2:
        raise InvalidArgumentError("svd: input must have rank >= 2 (expected a matrix, got "
                                   "shape %s)" % list(x._value.shape))
    out = execute(svd_op, x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    return out if compute_uv else out[0]


# ---- symmetric eigendecomposition, pseudo-inverse, triangular solve -------------------------

def _eigh_fwd(a):
    w, v = np.linalg.eigh(a)       # the lower triangle of a is read (NumPy's UPLO='L')
    return w.astype(v.dtype, copy=False), v      # complex input: complex w, as TensorFlow


def _eigh_grad(g, ans, a):
    # A = V diag(w) V^H: with F_ij = 1/(w_j - w_i) off the diagonal,
    # G = V (diag(wbar) + F o (V^H Vbar)) V^H (Giles 2008, sec. 3.1); the op reads the lower
    # triangle of A only, so the gradient is that of the lower triangle: G + G^H below the
    # diagonal, Re G_ii on it, 0 above (TensorFlow's SelfAdjointEigV2 gradient). Eigenvectors
    # of repeated eigenvalues are not unique: their gradient is refused, as svd's.
    gw, gv = g
    w, v = ans
    n = w._value.shape[-1]
    lower, eye_ = _masks(n, w._value.dtype)
    mid = eye_ * expand_dims(gw, -2)
    vh = _cj(_mT(v))
    if np.any(gv._value):
        wr = np.real(w._value)
        if n > 1 and np.any(_negligible(np.diff(wr, axis=-1), np.abs(wr))):
            raise UnimplementedError(
                "eigh: no gradient of the eigenvectors for repeated eigenvalues (expected "
                "distinct values, got w = %s)" % np.array2string(wr, precision=4))
        on_diag = _core.wrap(np.eye(n, dtype=bool))
        diff = expand_dims(w, -2) - expand_dims(w, -1)           # [i, j] = w_j - w_i
        f = where(on_diag, 0.0 * eye_, 1.0 / where(on_diag, eye_, diff))
        mid = mid + f * matmul(vh, gv)
    out = matmul(matmul(v, mid), vh)
    half_diag = lower - 0.5 * eye_                    # 1 below the diagonal, 1/2 on it
    return (out + _cj(_mT(out))) * half_diag


eigh_op = defop("eigh", _linalg_call("eigh", _eigh_fwd), kinds=FLOAT + "c", multi=True,
                check=_check_square("eigh"), grads=[_eigh_grad])


def eigh(tensor, name=None):
    """``(e, v)``: the eigenvalues (ascending) and eigenvectors of (a batch of) symmetric
    matrices, ``tensor = v @ diag(e) @ v^T`` (TensorFlow's ``tf.linalg.eigh``).

    Only the lower triangle is read, and the gradient is that of the lower triangle (0
    above the diagonal), as TensorFlow's. Complex input is Hermitian (its real eigenvalues
    come as complex values, as TensorFlow's).
    The signs (phases) of eigenvectors are arbitrary, and their gradient needs distinct
    eigenvalues.
    """
    return execute(eigh_op, tensor)


def eigvalsh(tensor, name=None):
    """The eigenvalues of (a batch of) symmetric matrices, ascending."""
    return eigh(tensor)[0]


def _pinv_grad(g, ans, a):
    # dA+ = -A+ dA A+ + A+ A+^T dA^T (I - A A+) + (I - A+ A) dA^T A+^T A+ for A of constant
    # rank (Golub and Pereyra 1973, eq. 4.12), transposed into a VJP:
    # Abar = -A+^T G A+^T + (I - A A+) G^T A+ A+^T + A+^T A+ G^T (I - A+ A)
    rows, cols = a._value.shape[-2:]
    p = ans
    eye_r = eye(rows, dtype=a._value.dtype)
    eye_c = eye(cols, dtype=a._value.dtype)
    term1 = -matmul(matmul(p, g, transpose_a=True), p, transpose_b=True)
    term2 = matmul(matmul(eye_r - matmul(a, p), g, transpose_b=True),
                   matmul(p, p, transpose_b=True))
    term3 = matmul(matmul(matmul(p, p, transpose_a=True), g, transpose_b=True),
                   eye_c - matmul(p, a))
    return term1 + term2 + term3


def _pinv_fwd(a, rcond=None):
    a, bad = _without_nonfinite(a)
    if rcond is None:       # NumPy's default: 1e-15 (NumPy 2 changed it to use rtol)
        out = np.linalg.pinv(a)
    else:
        out = np.linalg.pinv(a, rcond=rcond)
    if bad.any():
        out[bad] = np.nan
    return out


pinv_op = defop("pinv", _linalg_call("pinv", _pinv_fwd), kinds=FLOAT, grads=[_pinv_grad])


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse of (a batch of) matrices (through the SVD).

    Singular values at most ``rcond`` times the largest count as zero. The gradient holds
    where the rank is locally constant (full-rank inputs).
    """
    x = convert_to_tensor(a)
    if x._value.ndim < 2:
        raise InvalidArgumentError("pinv: input must have rank >= 2 (expected a matrix, got "
                                   "shape %s)" % list(x._value.shape))
    if rcond is None:
        return execute(pinv_op, x)
    return execute(pinv_op, x, rcond=float(rcond))


def _check_triangular(a, b, lower=True, adjoint=False):
    _check_square("triangular_solve")(a)
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise InvalidArgumentError("triangular_solve: rhs must be [..., %d, k] to match the "
                                   "matrix (got %s)" % (a.shape[-1], list(b.shape)))


def _triangular_fwd(a, b, lower=True, adjoint=False):
    # solve with the triangle of a only (the other entries are ignored, as LAPACK's trtrs)
    t = np.tril(a) if lower else np.triu(a)
    if adjoint:
        t = np.swapaxes(t, -1, -2)
    return np.linalg.solve(t, b)


def _triangular_da(g, ans, a, b, lower=True, adjoint=False):
    # X = T^-1 B: Bbar = T^-T G and Tbar = -Bbar X^T (T^op on the adjoint side), kept to
    # the triangle that was read
    gb = triangular_solve(a, g, lower=lower, adjoint=not adjoint)
    ga = -matmul(ans, gb, transpose_b=True) if adjoint else -matmul(gb, ans, transpose_b=True)
    n = a._value.shape[-1]
    tri = np.tri(n, dtype=bool)
    return where(_core.wrap(tri if lower else tri.T), ga, 0.0 * ga)


triangular_solve_op = defop(
    "triangular_solve", _linalg_call("triangular_solve", _triangular_fwd), kinds=FLOAT,
    check=_check_triangular,
    grads=[_triangular_da,
           lambda g, ans, a, b, lower=True, adjoint=False:
           triangular_solve(a, g, lower=lower, adjoint=not adjoint)])


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``x`` with ``T @ x = rhs`` for the lower (or upper) triangle ``T`` of ``matrix``
    (``T^T @ x = rhs`` with ``adjoint``); TensorFlow's ``tf.linalg.triangular_solve``."""
    a, b = convert_same(matrix, rhs)
    if b._value.ndim == a._value.ndim - 1:
        raise InvalidArgumentError("triangular_solve: rhs must be a (batch of) matrices "
                                   "(got shape %s)" % list(b._value.shape))
    return execute(triangular_solve_op, a, b, lower=bool(lower), adjoint=bool(adjoint))


# ---- general eigendecomposition (complex results) --------------------------------------------

def _eig_fwd(a):
    w, v = np.linalg.eig(a)
    cd = np.result_type(a.dtype, np.complex64)
    return w.astype(cd, copy=False), v.astype(cd, copy=False)


def _eig_grad(g, ans, a):
    # A = V diag(e) V^-1 with unit-norm columns of V: with F_ij = conj(1 / (e_j - e_i)) off
    # the diagonal, Abar = V^-H (diag(ebar) + F o (V^H Vbar - V^H V diag(Re(V^H Vbar))))
    # V^H, and its real part for a real A (TensorFlow's EigGrad; Giles 2008, sec. 3.1)
    ge, gv = g
    e, v = ans
    n = e._value.shape[-1]
    cd = e._value.dtype
    eye_ = _core.wrap(np.eye(n, dtype=cd))
    vh = _cj(_mT(v))
    mid = eye_ * expand_dims(ge, -2)
    if np.any(gv._value):
        if n > 1 and np.any(_negligible(
                np.abs(e._value[..., :, None] - e._value[..., None, :])
                + np.eye(n), np.abs(e._value)[..., None, :])):     # (a batch: per matrix)
            raise UnimplementedError(
                "eig: no gradient of the eigenvectors for repeated eigenvalues (expected "
                "distinct values, got e = %s)" % np.array2string(e._value, precision=4))
        on_diag = _core.wrap(np.eye(n, dtype=bool))
        diff = expand_dims(e, -2) - expand_dims(e, -1)            # [i, j] = e_j - e_i
        f = _cj(where(on_diag, 0.0 * eye_, 1.0 / where(on_diag, eye_, diff)))
        vgv = matmul(vh, gv)
        diag_re = eye_ * cast(real(vgv), cd)
        mid = mid + f * (vgv - matmul(matmul(vh, v), diag_re))
    out = matmul(inv(vh), matmul(mid, vh))
    return real(out) if a._value.dtype.kind == "f" else out


eig_op = defop("eig", _linalg_call("eig", _eig_fwd), kinds=FLOAT + "c", multi=True,
               same_dtype=False, check=_check_square("eig"), grads=[_eig_grad])


def eig(tensor, name=None):
    """``(e, v)``: the eigenvalues and unit-norm eigenvectors of (a batch of) square
    matrices, complex (complex64 for float32, complex128 for float64), as
    ``tf.linalg.eig``. Differentiable for distinct eigenvalues."""
    return execute(eig_op, tensor)


def eigvals(tensor, name=None):
    """The (complex) eigenvalues of (a batch of) square matrices."""
    return eig(tensor)[0]
