"""Linear algebra's products and measures: ``matmul``, ``matrix_transpose``, ``tensordot``,
``einsum``, norms, diagonals and trace. The matrix functions and decompositions (inv,
det, solve, cholesky, qr, svd, eig ...) are in ``decomposition_ops``; structure, LU and
matrix functions built from both in ``matrix_ops``.

Matrix ops act on the last two axes and batch over the leading ones (NumPy's
``np.linalg`` rules). Gradients are written with fasteager ops (so they are
differentiable again); ``matmul``'s are the two products of the incoming gradient with
the other operand (conjugated for complex operands, TensorFlow's convention).
"""
import string

import numpy as np

from .. import _core, _gemm
from ..errors import InvalidArgumentError, NotFoundError
from .array_ops import eye, getitem, reshape, transpose
from .elementwise_ops import _cj, abs, cast, convert_same, NUMERIC_C, sqrt, square, where
from .elementwise_ops import pow as _pow
from .reduction_ops import reduce_max, reduce_sum
from .registry import defop, execute, moved_names, MULTILINEAR, normalize_axis, NUMERIC, unbroadcast

convert_to_tensor = _core.convert_to_tensor


# ---- matmul -------------------------------------------------------------------------------

def _matmul_fwd(a, b, transpose_a=False, transpose_b=False):
    # 2-D float32 products of the thin shapes where fasteager's kernel beats OpenBLAS
    c = _gemm.sgemm_if_pays(a, b, transpose_a, transpose_b)
    if c is not None:
        return c
    if a.ndim < 2 or b.ndim < 2:
        _check_matmul(a, b, transpose_a, transpose_b)
    x = np.swapaxes(a, -1, -2) if transpose_a else a
    y = np.swapaxes(b, -1, -2) if transpose_b else b
    try:
        return np.matmul(x, y)
    except ValueError:
        _check_matmul(a, b, transpose_a, transpose_b)   # says which dimensions differ
        raise


def _check_matmul(a, b, transpose_a=False, transpose_b=False):
    if a.ndim < 2 or b.ndim < 2:
        raise InvalidArgumentError(
            "matmul: inputs must have rank >= 2 (expected matrices, got shapes %s and %s)"
            % (list(a.shape), list(b.shape)))
    ka = a.shape[-2] if transpose_a else a.shape[-1]
    kb = b.shape[-1] if transpose_b else b.shape[-2]
    if ka != kb:
        raise InvalidArgumentError(
            "matmul: inner dimensions differ (a is %s%s, b is %s%s: expected %d == %d)"
            % (list(a.shape), " transposed" if transpose_a else "",
               list(b.shape), " transposed" if transpose_b else "", ka, kb))


def _matmul_da(g, ans, a, b, transpose_a=False, transpose_b=False):
    # C = A B: dA = dC B^T (and the transposed variants)
    b = _cj(b)          # complex: dA = dC B^H
    if not transpose_a:
        da = _mm(g, b, False, not transpose_b)
    else:
        da = _mm(b, g, transpose_b, True)
    return unbroadcast(da, a)


def _matmul_db(g, ans, a, b, transpose_a=False, transpose_b=False):
    # C = A B: dB = A^T dC (and the transposed variants)
    a = _cj(a)          # complex: dB = A^H dC
    if not transpose_b:
        db = _mm(a, g, not transpose_a, False)
    else:
        db = _mm(g, a, True, transpose_a)
    return unbroadcast(db, b)


def _mm(a, b, ta, tb):
    if ta or tb:
        return execute(_matmul, a, b, transpose_a=ta, transpose_b=tb)
    return execute(_matmul, a, b)


# (shapes are checked in the kernel, and explained by _check_matmul only on failure)
def _matmul_into(a, b, out, transpose_a=False, transpose_b=False):
    if _gemm.sgemm_if_pays(a, b, transpose_a, transpose_b, out) is not None:
        return out
    x = np.swapaxes(a, -1, -2) if transpose_a else a
    y = np.swapaxes(b, -1, -2) if transpose_b else b
    return np.matmul(x, y, out)


# quiet: products of large values overflow to inf as in TensorFlow, without a NumPy warning
_matmul = defop("matmul", _matmul_fwd, kinds=NUMERIC_C, grads=[_matmul_da, _matmul_db],
                into=_matmul_into, quiet=True, jvp=MULTILINEAR)
# TensorFlow's MatMul takes no 8- or 16-bit signed integers and has no kernel for unsigned
_matmul.refuse_dtypes([np.int8, np.int16])
_matmul.refuse_dtypes([np.uint8, np.uint16, np.uint32, np.uint64], NotFoundError)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None):
    """Matrix product of the last two axes; leading (batch) axes broadcast.

    >>> fe.matmul([[2.]], [[2.]]).numpy()
    array([[4.]], dtype=float32)
    """
    try:
        ta = bool(transpose_a or adjoint_a)
        tb = bool(transpose_b or adjoint_b)
    except ValueError:      # an array for a flag
        raise InvalidArgumentError("matmul: transpose and adjoint flags must be bools (got "
                                   "%r, %r, %r, %r)" % (transpose_a, transpose_b, adjoint_a,
                                                        adjoint_b)) from None
    if not (type(a) is _core.Tensor and type(b) is _core.Tensor):
        # as TensorFlow: a converts alone, b to a's dtype where it can
        a = convert_to_tensor(a)
        b = _core.convert_hinted(b, a._value.dtype)
    if adjoint_a:       # the adjoint conjugates too (a no-op for real tensors)
        a = _cj(a)
    if adjoint_b:
        b = _cj(b)
    out = _mm(a, b, ta, tb)
    if output_type is not None:
        out = cast(out, output_type)
    return out


def matrix_transpose(a, name=None, conjugate=False):
    """Swap the last two axes (a batch of matrix transposes)."""
    x = convert_to_tensor(a)
    rank = x._value.ndim
    if rank < 2:
        raise InvalidArgumentError("matrix_transpose: input must have rank >= 2 (expected a "
                                   "matrix, got shape %s)" % list(x._value.shape))
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return transpose(x, perm)


_mT = matrix_transpose


def _expand2(t):
    # a batch of scalars (...,) -> (..., 1, 1), to scale a batch of matrices
    return reshape(t, tuple(t._value.shape) + (1, 1))


# ---- tensordot and einsum -----------------------------------------------------------------

def _tensordot_axis(axis, rank, which):
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError("tensordot: axis %d is out of range for %s of rank %d "
                                   "(expected -%d <= axis < %d)" % (axis, which, rank, rank, rank))
    return axis % rank


def tensordot(a, b, axes, name=None):
    """Sum of products over ``axes`` (an int N: the last N of a with the first N of b; or a
    pair of axis lists). A composite of transpose, reshape and matmul, as in TensorFlow.

    >>> fe.tensordot(fe.ones((2, 3)), fe.ones((3, 4)), axes=1).shape
    TensorShape([2, 4])
    """
    a, b = convert_same(a, b)
    ra, rb = a._value.ndim, b._value.ndim
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if not 0 <= n <= min(ra, rb):
            raise InvalidArgumentError("tensordot: axes=%d must be in [0, min(rank a, rank b)] "
                                       "(expected <= %d)" % (n, min(ra, rb)))
        axes_a, axes_b = list(range(ra - n, ra)), list(range(n))
    else:
        try:
            axes_a, axes_b = axes
        except (TypeError, ValueError):
            raise InvalidArgumentError("tensordot: axes must be an int or a pair of lists "
                                       "(got %r)" % (axes,)) from None
        axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
        if len(axes_a) != len(axes_b):
            raise InvalidArgumentError("tensordot: the axis lists differ in length (got %s and "
                                       "%s)" % (axes_a, axes_b))
        axes_a = [_tensordot_axis(x, ra, "a") for x in axes_a]
        axes_b = [_tensordot_axis(x, rb, "b") for x in axes_b]
    sa, sb = a._value.shape, b._value.shape
    for i, j in zip(axes_a, axes_b):
        if sa[i] != sb[j]:
            raise InvalidArgumentError("tensordot: contracted dimensions differ (expected a "
                                       "axis %d of size %d to match b axis %d, got %d)"
                                       % (i, sa[i], j, sb[j]))
    free_a = [i for i in range(ra) if i not in axes_a]
    free_b = [i for i in range(rb) if i not in axes_b]
    k = int(np.prod([sa[i] for i in axes_a], dtype=np.int64))
    ma = int(np.prod([sa[i] for i in free_a], dtype=np.int64))
    nb = int(np.prod([sb[i] for i in free_b], dtype=np.int64))
    am = reshape(transpose(a, free_a + axes_a), (ma, k))
    bm = reshape(transpose(b, axes_b + free_b), (k, nb))
    return reshape(matmul(am, bm), [sa[i] for i in free_a] + [sb[i] for i in free_b])


def _name_ellipsis(s, shapes):
    # "..." becomes fresh letters, right-aligned across operands (so "...ij,...jk" batches);
    # returns the rewritten subscripts and the letters (the implicit output starts with them)
    lhs = s.split("->")[0].split(",")
    if any(sub.count("...") > 1 or sub.replace("...", "").count(".") for sub in lhs) \
            or len(lhs) != len(shapes):
        raise InvalidArgumentError("einsum: malformed subscripts %r" % s)
    ranks = [len(shape) - len(sub.replace("...", "")) for sub, shape in zip(lhs, shapes)
             if "..." in sub]
    width = max(ranks + [0])
    if min(ranks + [0]) < 0:
        raise InvalidArgumentError("einsum: subscripts %r do not fit the operand ranks" % s)
    free = [c for c in string.ascii_letters if c not in s]
    letters = "".join(free[:width])
    subs = []
    for sub, shape in zip(lhs, shapes):
        if "..." in sub:
            n = len(shape) - len(sub.replace("...", ""))
            sub = sub.replace("...", letters[width - n:])
        subs.append(sub)
    out = ""
    if "->" in s:
        out = "->" + s.split("->")[1].replace("...", letters)
    return ",".join(subs) + out, letters


def _parse_einsum(subscripts, shapes):
    """Explicit form ``"ab,bc->ac"`` of ``subscripts``, checked against the operand shapes."""
    s = subscripts.replace(" ", "")
    ell = ""
    if "." in s:
        s, ell = _name_ellipsis(s, shapes)
    if "->" in s:
        lhs, out = s.split("->")
    else:
        lhs = s
        letters = lhs.replace(",", "")
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                   and c not in ell))
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise InvalidArgumentError("einsum: %r names %d operands (expected %d to match, got %d "
                                   "operands)" % (subscripts, len(ins), len(ins), len(shapes)))
    sizes = {}
    for sub, shape in zip(ins, shapes):
        if len(sub) != len(shape) or not all(c in string.ascii_letters for c in sub):
            raise InvalidArgumentError("einsum: subscripts %r do not fit an operand of shape %s"
                                       % (sub, list(shape)))
        for c, d in zip(sub, shape):
            if sizes.setdefault(c, d) != d:
                raise InvalidArgumentError("einsum: axis %r has two sizes (expected %d, got %d)"
                                           % (c, sizes[c], d))
    for c in out:
        if c not in sizes or out.count(c) > 1:
            raise InvalidArgumentError("einsum: output axis %r must appear once and in an input "
                                       "(got %r)" % (c, subscripts))
    return ",".join(ins) + "->" + out, sizes


def _einsum_grad(g, ans, inputs, attrs, needs):
    # d/dX_i of einsum(s_1,...,s_n -> out) is einsum(out, s_j (j != i) -> s_i) applied to g
    # (the others conjugated for complex operands: TensorFlow's convention, see
    # elementwise_ops._cj).
    # Axes only in s_i are broadcast (a ones operand supplies them); a letter repeated in
    # s_i (a diagonal) gets a fresh name and an identity operand ties the two together.
    subs = attrs["subscripts"]
    lhs, out = subs.split("->")
    ins = lhs.split(",")
    sizes = {}
    for sub, x in zip(ins, inputs):
        sizes.update(zip(sub, x._value.shape))
    unused = iter([c for c in string.ascii_letters if c not in sizes])
    grads = []
    for i, sub in enumerate(ins):
        if not needs[i]:
            grads.append(None)
            continue
        dtype = inputs[i]._value.dtype
        others = [ins[j] for j in range(len(ins)) if j != i]
        operands = [g] + [_cj(inputs[j]) for j in range(len(ins)) if j != i]
        terms = [out] + others
        seen = set(out + "".join(others))
        target = ""
        for c in sub:
            if c in target:
                fresh = next(unused)
                terms.append(c + fresh)
                operands.append(_core.wrap(np.eye(sizes[c], dtype=dtype)))
                target += fresh
                continue
            if c not in seen:
                terms.append(c)
                operands.append(_core.wrap(np.ones(sizes[c], dtype=dtype)))
                seen.add(c)
            target += c
        grads.append(execute(_einsum, *operands, subscripts=",".join(terms) + "->" + target))
    return grads


_einsum = defop("einsum", lambda *xs, subscripts: np.einsum(subscripts, *xs, optimize=len(xs) > 2),
                kinds=NUMERIC + "c", joint_grad=_einsum_grad)


def einsum(equation, *inputs, name=None, **kwargs):
    """Einstein summation: ``fe.einsum("ij,jk->ik", a, b)`` is ``a @ b``. Explicit (``->``)
    and implicit forms, ``...`` for leading axes (each axis needs one size: no size-1
    broadcasting); the gradient is an einsum with the subscripts rearranged.
    """
    for k in kwargs:   # TensorFlow's one extra keyword (the contraction order: ours is fixed)
        if k != "optimize":
            raise TypeError("einsum: unexpected keyword argument %r (expected optimize or "
                            "name)" % k)
    if not isinstance(equation, str):
        raise TypeError("einsum: equation must be a string (expected str, got %s)"
                        % type(equation).__name__)
    xs = convert_same(*inputs)
    subs, _ = _parse_einsum(equation, [x._value.shape for x in xs])
    return execute(_einsum, *xs, subscripts=subs)


# ---- norms ----------------------------------------------------------------------------------

def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """Vector norm (``axis`` None or an int) or matrix norm (``axis`` a pair).

    ``ord``: ``'euclidean'``/``'fro'``/2 (square root of the sum of squares), 1, ``np.inf``
    and, for vectors, any p > 0; matrix norms take 1, ``np.inf`` and ``'fro'``/``'euclidean'``.
    ``axis=None`` treats the whole tensor as one vector (TensorFlow's rule).
    """
    x = convert_to_tensor(tensor)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError("norm: input must be floating (expected float, got %s)"
                                   % x._value.dtype)
    keepdims = bool(keepdims)
    axes = normalize_axis("norm", axis, x._value.ndim)
    matrix = axis is not None and not isinstance(axis, (int, np.integer)) and len(axes) == 2
    if axis is not None and not matrix and len(axes) != 1:
        raise InvalidArgumentError("norm: axis must be None, an int or a pair of ints (got %r)"
                                   % (axis,))
    euclid = ord in ("euclidean", "fro") or (ord == 2 and not matrix)
    if euclid:
        return sqrt(reduce_sum(square(x), axes, keepdims=keepdims))
    if matrix:
        rows, cols = (axis[0] % x._value.ndim, axis[1] % x._value.ndim)
        if ord == 1:      # max over columns of the column sums of |x|
            s = reduce_sum(abs(x), rows, keepdims=True)
            return _squeeze_pair(reduce_max(s, cols, keepdims=True), axes, keepdims)
        if ord == np.inf:  # max over rows of the row sums of |x|
            s = reduce_sum(abs(x), cols, keepdims=True)
            return _squeeze_pair(reduce_max(s, rows, keepdims=True), axes, keepdims)
        raise InvalidArgumentError("norm: matrix ord must be 1, inf, 'fro' or 'euclidean' "
                                   "(got %r)" % (ord,))
    if ord == 1:
        return reduce_sum(abs(x), axes, keepdims=keepdims)
    if ord == np.inf:
        return reduce_max(abs(x), axes, keepdims=keepdims)
    try:
        p = float(ord)
    except (TypeError, ValueError):
        p = -1.0
    if not p > 0:
        raise InvalidArgumentError("norm: ord must be 'euclidean', 'fro', inf or a number > 0 "
                                   "(got %r)" % (ord,))
    return _pow(reduce_sum(_pow(abs(x), p), axes, keepdims=keepdims), 1.0 / p)


def _squeeze_pair(t, axes, keepdims):
    if keepdims:
        return t
    shape = [d for i, d in enumerate(t._value.shape) if i not in axes]
    return reshape(t, shape)


# ---- diagonals and trace (getitem with a built key: gradients scatter back) -----------------

def diag_part(input, k=0, name=None, padding_value=0, align="RIGHT_LEFT"):
    """The diagonal ``k`` of each matrix in ``input`` (0: the main one, > 0 above it, < 0
    below), or with ``k=(lo, hi)`` the band of diagonals ``hi`` down to ``lo`` stacked on a
    new axis, each padded with ``padding_value`` to the longest: ``align`` says where the
    superdiagonals ("LEFT_*"/"RIGHT_*") and the subdiagonals ("*_LEFT"/"*_RIGHT") sit."""
    x = convert_to_tensor(input)
    if x._value.ndim < 2:
        raise InvalidArgumentError("diag_part: input must have rank >= 2 (expected a matrix, "
                                   "got shape %s)" % list(x._value.shape))
    m, n = x._value.shape[-2:]
    ks = np.asarray(k._value if isinstance(k, _core.Tensor) else k).reshape(-1)
    if ks.size not in (1, 2) or ks.dtype.kind not in "iu":
        raise InvalidArgumentError("diag_part: k must be an integer or a pair of integers "
                                   "(got %r)" % (k,))
    lo, hi = int(ks[0]), int(ks[-1])
    if lo > hi or not (-m < lo <= hi < n) and not (m == 0 or n == 0):
        raise InvalidArgumentError("diag_part: k must satisfy -rows < k[0] <= k[1] < cols "
                                   "(rows %d, cols %d, got k=%r)" % (m, n, k))
    if align not in ("LEFT_RIGHT", "LEFT_LEFT", "RIGHT_LEFT", "RIGHT_RIGHT"):
        raise InvalidArgumentError("diag_part: align must be one of LEFT_RIGHT, LEFT_LEFT, "
                                   "RIGHT_LEFT, RIGHT_RIGHT (got %r)" % (align,))
    if lo == hi:                 # one diagonal: no band axis, as TensorFlow
        start = max(0, -lo)
        i = np.arange(start, min(m, n - lo))
        return execute(getitem, x, key=(Ellipsis, i, i + lo))
    diags = list(range(hi, lo - 1, -1))
    lengths = [min(m, n - d) - max(0, -d) for d in diags]
    width = max(lengths)
    rows = np.zeros((len(diags), width), np.intp)
    cols = np.zeros((len(diags), width), np.intp)
    real = np.zeros((len(diags), width), bool)
    for r, (d, length) in enumerate(zip(diags, lengths)):
        right = align.split("_")[0 if d >= 0 else 1] == "RIGHT"
        off = width - length if right else 0
        i = np.arange(max(0, -d), max(0, -d) + length)
        rows[r, off:off + length], cols[r, off:off + length] = i, i + d
        real[r, off:off + length] = True
    band = execute(getitem, x, key=(Ellipsis, rows, cols))
    if real.all():
        return band
    from_pad = cast(convert_to_tensor(padding_value), band.dtype)
    return where(convert_to_tensor(real), band, from_pad)


def diag(diagonal, name=None):
    """Square matrices with ``diagonal`` (shape [..., n]) on their diagonal."""
    d = convert_to_tensor(diagonal)
    if d._value.ndim < 1:
        raise InvalidArgumentError("diag: diagonal must have rank >= 1 (got a scalar)")
    n = d._value.shape[-1]
    return reshape(d, tuple(d._value.shape) + (1,)) * eye(n, dtype=d._value.dtype)


def trace(x, name=None):
    """The sum of the main diagonal of each matrix in ``x``."""
    return reduce_sum(diag_part(x), -1)


# names that moved to other topic modules when ops/ was regrouped: the old paths warn for
# one release
__getattr__ = moved_names(__name__, {
    **dict.fromkeys(("cholesky", "cholesky_op", "det", "det_op", "eig", "eig_op", "eigh",
                     "eigh_op", "eigvals", "eigvalsh", "inv", "inv_op", "logdet", "pinv",
                     "pinv_op", "qr", "qr_op", "slogdet", "slogdet_op", "solve", "solve_op",
                     "svd", "svd_op", "triangular_solve", "triangular_solve_op"),
                    "decomposition_ops"),
})
