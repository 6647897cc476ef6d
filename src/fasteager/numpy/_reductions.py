"""Reductions and products: NumPy's signatures over the table's reduce/matmul/einsum ops.

Result dtypes are NumPy's: ``sum``/``prod``/``cumsum`` of small integers accumulate in
int64, ``mean``/``var``/``std`` of integers are float64 (asked of NumPy once per dtype and
cached, then the input is cast and the op runs in that dtype).
"""
import builtins
import string

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError, UnimplementedError
from ..ops import array_ops as a_ops
from ..ops import linalg_ops as l_ops
from ..ops import elementwise_ops as ew_ops, linalg_ops as la_ops, reduction_ops as rd_ops
from ..ops.registry import normalize_axis
from ._promotion import check_out, promote, reduce_dtype, tensor


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def _accumulate(fname, fn, a, dtype, out):
    check_out(fname, out)
    x = tensor(a)
    if dtype is None and x._value.dtype.kind in "fO":
        return x             # floats reduce in their own dtype (strings: reduce_sum refuses)
    try:
        requested = None if dtype is None else np.dtype(dtype)
    except (TypeError, ValueError):     # np.dtype(tensor) is a ValueError
        raise TypeError("fasteager.numpy.%s: dtype must name a NumPy dtype (got %r)"
                        % (fname, dtype)) from None
    d = reduce_dtype(fn, x._value.dtype, requested)
    return ew_ops.cast(x, d) if x._value.dtype != d else x


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """NumPy's ``sum`` (``reduce_sum``): small ints accumulate in int64, as NumPy."""
    if initial is not None or where is not None:
        _no("sum", initial=initial, where=where)
    x = _accumulate("sum", np.sum, a, dtype, out)
    return rd_ops.reduce_sum(x, _axis(axis), keepdims=keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's ``prod`` (``reduce_prod``)."""
    if initial is not None or where is not None:
        _no("prod", initial=initial, where=where)
    x = _accumulate("prod", np.prod, a, dtype, out)
    return rd_ops.reduce_prod(x, _axis(axis), keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """NumPy's ``mean`` (``reduce_mean``): integers give float64."""
    if where is not None:
        _no("mean", where=where)
    x = _accumulate("mean", np.mean, a, dtype, out)
    return rd_ops.reduce_mean(x, _axis(axis), keepdims=keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    """NumPy's ``var``: mean((x - mean(x))**2) * n / (n - ddof) (a composite)."""
    if where is not None:
        _no("var", where=where)
    x = tensor(a)
    if x._value.dtype.kind == "c" and dtype is None:
        # NumPy's complex variance is real: mean(|x - mean(x)|^2)
        check_out("var", out)
        d = x - rd_ops.reduce_mean(x, _axis(axis), keepdims=True)
        v = rd_ops.reduce_mean(ew_ops.real(d * ew_ops.conj(d)), _axis(axis), keepdims=keepdims)
    else:
        x = _accumulate("var", np.var, x, dtype, out)
        v = rd_ops.reduce_variance(x, _axis(axis), keepdims=keepdims)
    if ddof:
        n = x._value.size // builtins.max(v._value.size, 1) if x._value.size else 0
        v = v * np.asarray(n / (n - ddof), dtype=v._value.dtype)[()]
    return v


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    """NumPy's ``std``: sqrt(var) (a composite). Where the variance is 0 the gradient is 0
    (as HIPS autograd gives), not sqrt's 0 * inf = NaN: sqrt sees only non-zero values."""
    v = var(a, axis, dtype, out, ddof, keepdims, where)
    nonzero = ew_ops.not_equal(v, 0)
    return ew_ops.where(nonzero, ew_ops.sqrt(ew_ops.where(nonzero, v, 1)), 0)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """NumPy's ``max``/``amax`` (``reduce_max``; the gradient is shared between ties)."""
    if initial is not None or where is not None:
        _no("max", initial=initial, where=where)
    check_out("max", out)
    x = tensor(a)
    _nonempty("max", x, axis)
    if x._value.dtype == np.bool_:
        return rd_ops.reduce_any(x, _axis(axis), keepdims=keepdims)
    if x._value.dtype.kind == "c":
        return _complex_extreme(np.max, x, axis, keepdims)
    return rd_ops.reduce_max(x, _axis(axis), keepdims=keepdims)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """NumPy's ``min``/``amin`` (``reduce_min``)."""
    if initial is not None or where is not None:
        _no("min", initial=initial, where=where)
    check_out("min", out)
    x = tensor(a)
    _nonempty("min", x, axis)
    if x._value.dtype == np.bool_:
        return rd_ops.reduce_all(x, _axis(axis), keepdims=keepdims)
    if x._value.dtype.kind == "c":
        return _complex_extreme(np.min, x, axis, keepdims)
    return rd_ops.reduce_min(x, _axis(axis), keepdims=keepdims)


def _complex_extreme(np_extreme, x, axis, keepdims):
    """max/min of complex ``x`` in NumPy's order (by the real part, then the imaginary):
    NumPy picks the value; the result is the mean of the entries equal to it, so the
    gradient is shared between ties, as reduce_max's."""
    axes = _axis(axis)
    np_axes = tuple(axes) if isinstance(axes, (list, tuple)) else axes
    best = np_extreme(x._value, axis=np_axes, keepdims=True)
    ties = x._value == best
    weights = ties / ties.sum(axis=np_axes, keepdims=True)
    return rd_ops.reduce_sum(ew_ops.multiply(x, tensor(weights.astype(x._value.dtype))), axes,
                        keepdims=keepdims)


def _nonempty(fname, x, axis):
    if x._value.size:
        return
    shape = x._value.shape
    axes = normalize_axis(fname, _axis(axis), len(shape))   # typed error when out of range
    if axes is None or builtins.any(shape[i] == 0 for i in axes):
        raise InvalidArgumentError("fasteager.numpy.%s: zero-size array to a reduction with no "
                                   "identity (got shape %s)" % (fname, list(shape)))


def _bool(x):
    return x if x._value.dtype == np.bool_ else ew_ops.cast(x, np.bool_)


def all(a, axis=None, out=None, keepdims=False, where=None):  # noqa: A001
    """NumPy's ``all`` (``reduce_all`` of ``x != 0``)."""
    if where is not None:
        _no("all", where=where)
    check_out("all", out)
    return rd_ops.reduce_all(_bool(tensor(a)), _axis(axis), keepdims=keepdims)


def any(a, axis=None, out=None, keepdims=False, where=None):  # noqa: A001
    """NumPy's ``any`` (``reduce_any`` of ``x != 0``)."""
    if where is not None:
        _no("any", where=where)
    check_out("any", out)
    return rd_ops.reduce_any(_bool(tensor(a)), _axis(axis), keepdims=keepdims)


def _arg(fname, op, a, axis, out, keepdims):
    check_out(fname, out)
    x = tensor(a)
    _nonempty(fname, x, axis)
    if axis is None:
        r = op(a_ops.reshape(x, [-1]), axis=0)
        return a_ops.reshape(r, [1] * x._value.ndim) if keepdims else r
    r = op(x, axis=axis)
    return a_ops.expand_dims(r, axis) if keepdims else r


def argmax(a, axis=None, out=None, *, keepdims=False):
    """NumPy's ``argmax`` (int64; the flattened index when ``axis`` is None)."""
    return _arg("argmax", rd_ops.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """NumPy's ``argmin`` (int64; the flattened index when ``axis`` is None)."""
    return _arg("argmin", rd_ops.argmin, a, axis, out, keepdims)


def cumsum(a, axis=None, dtype=None, out=None):
    """NumPy's ``cumsum`` (the flattened input when ``axis`` is None)."""
    x = _accumulate("cumsum", np.cumsum, a, dtype, out)
    if axis is None:
        return rd_ops.cumsum(a_ops.reshape(x, [-1]), axis=0)
    return rd_ops.cumsum(x, axis=axis)


def cumprod(a, axis=None, dtype=None, out=None):
    """NumPy's ``cumprod`` (the flattened input when ``axis`` is None)."""
    x = _accumulate("cumprod", np.cumprod, a, dtype, out)
    if axis is None:
        return rd_ops.cumprod(a_ops.reshape(x, [-1]), axis=0)
    return rd_ops.cumprod(x, axis=axis)


def _no(fname, **kwargs):
    if not builtins.any(v is not None for v in kwargs.values()):
        return
    for k, v in kwargs.items():
        if v is not None:
            raise UnimplementedError("fasteager.numpy.%s: %s= is not supported (expected None)"
                                     % (fname, k))


# ---- products -------------------------------------------------------------------------------

def matmul(x1, x2, /, out=None, *, dtype=None):
    """NumPy's ``matmul``: 1-D operands gain (and then lose) an axis, batch axes broadcast."""
    check_out("matmul", out)
    a, b = promote((x1, x2), dtype)
    ra, rb = a._value.ndim, b._value.ndim
    if ra == 2 and rb == 2:
        return _core.execute(la_ops._matmul, (a, b), None)
    if ra == 0 or rb == 0:
        raise InvalidArgumentError("fasteager.numpy.matmul: operands must not be scalars "
                                   "(got shapes %s and %s)" % (list(a._value.shape),
                                                               list(b._value.shape)))
    if ra == 1:
        a = a_ops.reshape(a, (1,) + a._value.shape)
    if rb == 1:
        b = a_ops.reshape(b, b._value.shape + (1,))
    r = la_ops.matmul(a, b)
    if ra == 1 or rb == 1:
        shape = r._value.shape
        shape = shape[:-2] + (shape[-2:-1] if ra != 1 else ()) + (shape[-1:] if rb != 1 else ())
        r = a_ops.reshape(r, shape)
    return r


def dot(a, b, out=None):
    """NumPy's ``dot``: matmul for matrices, sum over a's last and b's second-to-last axis."""
    check_out("dot", out)
    x, y = promote((a, b))
    ra, rb = x._value.ndim, y._value.ndim
    if ra == 2 and rb == 2:
        return _core.execute(la_ops._matmul, (x, y), None)
    if ra == 0 or rb == 0:
        return ew_ops.multiply(x, y)
    if ra <= 2 and rb <= 2:
        return matmul(x, y)
    return l_ops.tensordot(x, y, [[ra - 1], [rb - 2 if rb >= 2 else 0]])


def vdot(a, b):
    """NumPy's ``vdot``: the dot product of the flattened operands, the first conjugated."""
    x, y = promote((a, b))
    return rd_ops.reduce_sum(ew_ops.conj(a_ops.reshape(x, [-1])) * a_ops.reshape(y, [-1]))


def inner(a, b, /):
    """NumPy's ``inner``: sum over the last axes of both."""
    x, y = promote((a, b))
    ra, rb = x._value.ndim, y._value.ndim
    if ra == 0 or rb == 0:
        return ew_ops.multiply(x, y)
    return l_ops.tensordot(x, y, [[ra - 1], [rb - 1]])


def outer(a, b, out=None):
    """NumPy's ``outer`` of the flattened operands."""
    check_out("outer", out)
    x, y = promote((a, b))
    return ew_ops.multiply(a_ops.reshape(x, [-1, 1]), a_ops.reshape(y, [1, -1]))


def tensordot(a, b, axes=2):
    """NumPy's ``tensordot`` (an int, or a pair of axis sequences)."""
    x, y = promote((a, b))
    if not isinstance(axes, (int, np.integer)):
        if not isinstance(axes, (list, tuple)) or len(axes) != 2:
            raise InvalidArgumentError("fasteager.numpy.tensordot: axes must be an int or a "
                                       "pair of axis lists (got %r)" % (axes,))
        axes = [list(np.atleast_1d(axes[0]).tolist()), list(np.atleast_1d(axes[1]).tolist())]
    return l_ops.tensordot(x, y, axes)


def _sublist_subscripts(args):
    """NumPy's sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as a subscript string
    and its operands (axis labels are ints, ``...`` an Ellipsis)."""
    letters = string.ascii_letters

    def word(sub):
        out = []
        for k in sub:
            if k is Ellipsis:
                out.append("...")
            elif isinstance(k, (int, np.integer)) and 0 <= k < len(letters):
                out.append(letters[int(k)])
            else:
                raise InvalidArgumentError("fasteager.numpy.einsum: sublist labels must be "
                                           "ints in [0, 52) or Ellipsis (got %r)" % (k,))
        return "".join(out)
    args = list(args)
    operands, words = args[0::2][:len(args) // 2], [word(s) for s in args[1::2]]
    spec = ",".join(words)
    if len(args) % 2:
        spec += "->" + word(args[-1])
    return spec, operands


def einsum(subscripts, *operands, out=None, dtype=None, optimize=False, **kwargs):
    """NumPy's ``einsum``: string subscripts, or the sublist form (operands each followed
    by a list of int labels, an optional output list last); operands are promoted to one
    dtype."""
    check_out("einsum", out)
    if kwargs:
        raise UnimplementedError("fasteager.numpy.einsum: unsupported keywords %s"
                                 % sorted(kwargs))
    if not isinstance(subscripts, str):
        subscripts, operands = _sublist_subscripts((subscripts,) + operands)
    xs = promote(operands, dtype)
    return l_ops.einsum(subscripts, *xs)
