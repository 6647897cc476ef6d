"""More of NumPy's array functions: triangles, differences, rolls, rotations, padding,
sorting, selections and stacking shorthands (``r_``, ``c_``).

Every function is a composition of table ops (getitem, concat, where, transpose, pad,
sort), so gradients come from the table: none of them is a primitive of its own.
"""
import builtins

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError, UnimplementedError
from ..ops import array_ops as a_ops
from ..ops import elementwise_ops as ew_ops
from ..ops import linalg_ops as l_ops
from ..ops import sort_ops
from ..ops.registry import normalize_axis, single_axis
from ._arrays import concatenate, flip, moveaxis, split, vstack
from ._promotion import promote, tensor
from ._reductions import sum as np_sum

_range = builtins.range
_slice = builtins.slice


def _zero_like(x):
    return _core.wrap(np.zeros((), x._value.dtype))


def _take_along(x, idx, axis):
    """``x`` with ``idx`` (ints) picked along ``axis``: a getitem, so the gradient
    scatter-adds back."""
    return x[(_slice(None),) * axis + (np.asarray(idx),)]


# ---- triangles and diagonals ---------------------------------------------------------------

def _tri_mask(x, k, lower):
    if x._value.ndim < 2:
        raise InvalidArgumentError("fasteager.numpy.%s: input must be at least 2-D (got "
                                   "shape %s)" % ("tril" if lower else "triu",
                                                  list(x._value.shape)))
    n, mm = x._value.shape[-2:]
    mask = np.tri(n, mm, k, dtype=bool)
    return _core.wrap(mask if lower else ~np.tri(n, mm, k - 1, dtype=bool))


def tril(m_, k=0):
    """NumPy's ``tril``: zeros above the ``k``-th diagonal (a select: the gradient passes
    below it)."""
    x = tensor(m_)
    if x._value.ndim == 1:      # NumPy broadcasts a vector to a square matrix first
        x = a_ops.broadcast_to(x, (x._value.shape[0],) * 2)
    return ew_ops.where(_tri_mask(x, int(k), True), x, _zero_like(x))


def triu(m_, k=0):
    """NumPy's ``triu``: zeros below the ``k``-th diagonal."""
    x = tensor(m_)
    if x._value.ndim == 1:
        x = a_ops.broadcast_to(x, (x._value.shape[0],) * 2)
    return ew_ops.where(_tri_mask(x, int(k), False), x, _zero_like(x))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """NumPy's ``diagonal``: the ``offset`` diagonal of the ``axis1``/``axis2`` planes, as
    the last axis (a gather)."""
    x = tensor(a)
    r = x._value.ndim
    if r < 2:
        raise InvalidArgumentError("fasteager.numpy.diagonal: input must be at least 2-D "
                                   "(got shape %s)" % list(x._value.shape))
    a1 = single_axis("diagonal", axis1, r, "axis1")
    a2 = single_axis("diagonal", axis2, r, "axis2")
    if a1 == a2:
        raise InvalidArgumentError("fasteager.numpy.diagonal: axis1 and axis2 cannot be the "
                                   "same (got %d and %d)" % (axis1, axis2))
    x = moveaxis(x, [a1, a2], [-2, -1])
    rows, cols = x._value.shape[-2:]
    offset = int(offset)
    i = np.arange(builtins.max(0, builtins.min(rows + builtins.min(offset, 0),
                                               cols - builtins.max(offset, 0))))
    return x[..., i - builtins.min(offset, 0), i + builtins.max(offset, 0)]


def diag(v, k=0):
    """NumPy's ``diag``: a 1-D input gives a matrix with it on the ``k``-th diagonal, a 2-D
    one its ``k``-th diagonal."""
    x = tensor(v)
    k = int(k)
    if x._value.ndim == 1:
        d = l_ops.diag(x)
        if k == 0:
            return d
        pad = [[0, k], [k, 0]] if k > 0 else [[-k, 0], [0, -k]]
        return a_ops.pad(d, pad)
    if x._value.ndim == 2:
        return diagonal(x, k)
    raise InvalidArgumentError("fasteager.numpy.diag: input must be 1-D or 2-D (got shape %s)"
                               % list(x._value.shape))


# ---- differences and rolls -----------------------------------------------------------------

def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """NumPy's ``diff``: the ``n``-th forward difference along ``axis``."""
    x = tensor(a)
    if x._value.ndim == 0:
        raise InvalidArgumentError("fasteager.numpy.diff: diff requires input that is at "
                                   "least one dimensional")
    ax = single_axis("diff", axis, x._value.ndim)
    n = int(n)
    if n < 0:
        raise InvalidArgumentError("fasteager.numpy.diff: order must be non-negative (got %d)"
                                   % n)
    parts = []
    for extra in (prepend, append):
        if extra is np._NoValue:
            parts.append(None)
            continue
        e = tensor(extra)
        if e._value.ndim == 0:
            shape = list(x._value.shape)
            shape[ax] = 1
            e = a_ops.broadcast_to(e, shape)
        parts.append(e)
    if parts[0] is not None or parts[1] is not None:
        x = concatenate([p for p in (parts[0], x, parts[1]) if p is not None], ax)
    lead = (_slice(None),) * ax
    for _ in _range(n):
        x = x[lead + (_slice(1, None),)] - x[lead + (_slice(None, -1),)]
    return x


def roll(a, shift, axis=None):
    """NumPy's ``roll``: entries shifted along ``axis`` (the flattened array when None),
    wrapping around (a gather)."""
    x = tensor(a)
    if axis is None:
        return a_ops.reshape(roll(a_ops.reshape(x, [-1]), shift, 0), x._value.shape)
    shifts = np.atleast_1d(shift).tolist()
    axes = np.atleast_1d(axis).tolist()
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise InvalidArgumentError("fasteager.numpy.roll: shift and axis must have the same "
                                   "length (got %r and %r)" % (shift, axis))
    total = {}
    for sh, ax in zip(shifts, axes):
        ax = single_axis("roll", ax, x._value.ndim)
        total[ax] = total.get(ax, 0) + int(sh)
    for ax, sh in sorted(total.items()):
        size = x._value.shape[ax]
        if size:
            x = _take_along(x, (np.arange(size) - sh) % size, ax)
    return x


def rot90(m_, k=1, axes=(0, 1)):
    """NumPy's ``rot90``: ``k`` quarter turns in the plane of ``axes`` (flips and a
    transpose)."""
    x = tensor(m_)
    if len(axes) != 2:
        raise InvalidArgumentError("fasteager.numpy.rot90: len(axes) must be 2 (got %r)"
                                   % (axes,))
    r = x._value.ndim
    a0, a1 = (single_axis("rot90", ax, r, "axes") for ax in axes)
    if a0 == a1:
        raise InvalidArgumentError("fasteager.numpy.rot90: axes must be different (got %r)"
                                   % (axes,))
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, a0), a1)
    perm = list(_range(r))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return a_ops.transpose(flip(x, a1), perm)
    return flip(a_ops.transpose(x, perm), a1)


def fliplr(m_):
    """NumPy's ``fliplr``: reverse axis 1."""
    x = tensor(m_)
    if x._value.ndim < 2:
        raise InvalidArgumentError("fasteager.numpy.fliplr: input must be >= 2-d")
    return flip(x, 1)


def flipud(m_):
    """NumPy's ``flipud``: reverse axis 0."""
    x = tensor(m_)
    if x._value.ndim < 1:
        raise InvalidArgumentError("fasteager.numpy.flipud: input must be >= 1-d")
    return flip(x, 0)


def rollaxis(a, axis, start=0):
    """NumPy's ``rollaxis``: ``axis`` moved to before position ``start``."""
    x = tensor(a)
    r = x._value.ndim
    ax = single_axis("rollaxis", axis, r)
    start = int(start)
    if not -r <= start <= r:
        raise InvalidArgumentError("fasteager.numpy.rollaxis: start %d is out of range for "
                                   "%d dimensions" % (start, r))
    start %= r + 1
    if ax < start:
        start -= 1
    if ax == start:
        return x
    return moveaxis(x, ax, start)


# ---- padding -------------------------------------------------------------------------------

_PAD_GATHER = ("edge", "reflect", "symmetric", "wrap")


def pad(array, pad_width, mode="constant", **kwargs):  # noqa: A002 - NumPy's name
    """NumPy's ``pad``: modes ``constant`` (``constant_values`` a scalar), ``edge``,
    ``reflect``, ``symmetric`` and ``wrap`` (``reflect_type='even'``). Constant padding is
    the table's pad op; the others gather source indices NumPy computes for an arange."""
    x = tensor(array)
    r = x._value.ndim
    try:
        widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (r, 2)).tolist()
    except (ValueError, TypeError):
        raise InvalidArgumentError("fasteager.numpy.pad: pad_width must broadcast to (%d, 2) "
                                   "ints (got %r)" % (r, pad_width)) from None
    if builtins.any(w < 0 for pair in widths for w in pair):
        raise InvalidArgumentError("fasteager.numpy.pad: index can't contain negative values "
                                   "(got %r)" % (pad_width,))
    if mode == "constant":
        extra = set(kwargs) - {"constant_values"}
        cv = kwargs.get("constant_values", 0)
        if extra or np.ndim(cv) != 0:
            raise UnimplementedError("fasteager.numpy.pad: mode='constant' supports a scalar "
                                     "constant_values only (got %r)" % (kwargs,))
        if r == 0:
            return x
        return a_ops.pad(x, widths, constant_values=cv)
    if mode not in _PAD_GATHER or builtins.any(k != "reflect_type" or v != "even"
                                               for k, v in kwargs.items()):
        raise UnimplementedError("fasteager.numpy.pad: mode=%r with %r is not supported "
                                 "(expected constant, %s)" % (mode, kwargs,
                                                              ", ".join(_PAD_GATHER)))
    for ax, (before, after) in enumerate(widths):
        size = x._value.shape[ax]
        if before or after:
            if size == 0:
                raise InvalidArgumentError("fasteager.numpy.pad: can't extend empty axis %d "
                                           "using modes other than 'constant'" % ax)
            x = _take_along(x, np.pad(np.arange(size), (before, after), mode=mode), ax)
    return x


# ---- sorting and selection -----------------------------------------------------------------

def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """NumPy's ``sort`` (stable; NaNs last); the gradient follows the permutation."""
    if order is not None:
        raise UnimplementedError("fasteager.numpy.sort: order= is for structured arrays "
                                 "(expected None)")
    x = tensor(a)
    if axis is None:
        x, axis = a_ops.reshape(x, [-1]), 0
    if x._value.ndim == 0:
        raise InvalidArgumentError("fasteager.numpy.sort: axis %r is out of bounds for a "
                                   "0-d array" % axis)
    return sort_ops.sort(x, axis=axis)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """NumPy's ``argsort``: int64 indices of a stable sort (no gradient: integers)."""
    if order is not None:
        raise UnimplementedError("fasteager.numpy.argsort: order= is for structured arrays "
                                 "(expected None)")
    x = tensor(a)
    if axis is None:
        x, axis = a_ops.reshape(x, [-1]), 0
    if x._value.ndim == 0:
        raise InvalidArgumentError("fasteager.numpy.argsort: axis %r is out of bounds for a "
                                   "0-d array" % axis)
    return ew_ops.cast(sort_ops.argsort(x, axis=axis), np.int64)


def _check_kth(fname, x, kth, axis):
    n = x._value.shape[axis]
    for k in np.atleast_1d(kth).tolist():
        if not -n <= int(k) < n:
            raise InvalidArgumentError("fasteager.numpy.%s: kth(=%d) out of bounds (%d)"
                                       % (fname, k, n))


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's ``partition``, by a full sort: entry ``kth`` is in its sorted place, smaller
    ones before it, larger after (NumPy leaves their order unspecified; here it is
    sorted)."""
    x = tensor(a)
    if axis is None:
        x, axis = a_ops.reshape(x, [-1]), 0
    ax = single_axis("partition", axis, x._value.ndim)
    _check_kth("partition", x, kth, ax)
    return sort(x, ax, order=order)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's ``argpartition``, by a full (stable) argsort; see ``partition``."""
    x = tensor(a)
    if axis is None:
        x, axis = a_ops.reshape(x, [-1]), 0
    ax = single_axis("argpartition", axis, x._value.ndim)
    _check_kth("argpartition", x, kth, ax)
    return argsort(x, ax, order=order)


def select(condlist, choicelist, default=0):
    """NumPy's ``select``: the first choice whose condition holds, else ``default``."""
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise InvalidArgumentError("fasteager.numpy.select: list of cases must be same length "
                                   "as list of conditions (got %d and %d)"
                                   % (len(condlist), len(choicelist)))
    if not choicelist:
        raise InvalidArgumentError("fasteager.numpy.select: select with an empty condition "
                                   "list is not possible")
    values = promote(choicelist + [default])
    out = values[-1]
    for cond, choice in zip(condlist[::-1], values[-2::-1]):
        c = tensor(cond)
        if c._value.dtype != np.bool_:
            raise InvalidArgumentError("fasteager.numpy.select: invalid entry in condlist: "
                                       "should be boolean ndarray (got %s)" % c._value.dtype)
        out = ew_ops.where(c, choice, out)
    return out


# ---- gradient, cross, kron -----------------------------------------------------------------

def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's ``gradient`` with scalar spacings: second-order central differences inside,
    first- or second-order (``edge_order``) one-sided ones at the ends; one array per axis
    (a list when there are several)."""
    x = tensor(f)
    if x._value.dtype.kind != "f":
        x = ew_ops.cast(x, np.float64)
    r = x._value.ndim
    axes = list(_range(r)) if axis is None else list(normalize_axis("gradient", axis, r))
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes) and builtins.all(np.ndim(v) == 0 for v in varargs):
        spacing = list(varargs)
    else:
        raise UnimplementedError("fasteager.numpy.gradient: spacing must be scalars, one or "
                                 "one per axis (coordinate arrays are not supported)")
    if edge_order not in (1, 2):
        raise InvalidArgumentError("fasteager.numpy.gradient: 'edge_order' greater than 2 not "
                                   "supported (got %r)" % edge_order)
    out = []
    for ax, h in zip(axes, spacing):
        n = x._value.shape[ax]
        if n < edge_order + 1:
            raise InvalidArgumentError("fasteager.numpy.gradient: shape of array too small to "
                                       "calculate a numerical gradient, at least (edge_order "
                                       "+ 1) elements are required (axis %d has %d)" % (ax, n))
        lead = (_slice(None),) * ax

        def at(sl, lead=lead):
            return x[lead + (sl,)]
        inner = (at(_slice(2, None)) - at(_slice(None, -2))) / (2.0 * h) if n > 2 else None
        if edge_order == 1:
            first = (at(_slice(1, 2)) - at(_slice(0, 1))) / h
            last = (at(_slice(-1, None)) - at(_slice(-2, -1))) / h
        else:
            first = (-1.5 * at(_slice(0, 1)) + 2.0 * at(_slice(1, 2))
                     - 0.5 * at(_slice(2, 3))) / h
            last = (0.5 * at(_slice(-3, -2)) - 2.0 * at(_slice(-2, -1))
                    + 1.5 * at(_slice(-1, None))) / h
        parts = [first] + ([inner] if inner is not None else []) + [last]
        out.append(a_ops.concat(parts, ax))
    return out[0] if len(out) == 1 else out


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's ``cross`` of 3-vectors (a 2-vector gets a zero z), along the given axes."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = promote((a, b))
    x = moveaxis(x, axisa, -1)
    y = moveaxis(y, axisb, -1)
    dims = (x._value.shape[-1], y._value.shape[-1])
    if builtins.any(d not in (2, 3) for d in dims):
        raise InvalidArgumentError("fasteager.numpy.cross: incompatible dimensions for cross "
                                   "product (dimension must be 2 or 3, got %s)" % (dims,))
    if dims == (2, 2):
        return x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]

    def comp(v, i):
        return v[..., i] if i < v._value.shape[-1] else v[..., 0] * 0
    x0, x1, x2 = (comp(x, i) for i in _range(3))
    y0, y1, y2 = (comp(y, i) for i in _range(3))
    out = a_ops.stack([x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0], -1)
    return moveaxis(out, -1, axisc)


def kron(a, b):
    """NumPy's ``kron``: the Kronecker product (an outer product, reshaped)."""
    x, y = promote((a, b))
    r = builtins.max(x._value.ndim, y._value.ndim)
    xs = (1,) * (r - x._value.ndim) + x._value.shape
    ys = (1,) * (r - y._value.ndim) + y._value.shape
    xe = a_ops.reshape(x, [d for n in xs for d in (n, 1)])
    ye = a_ops.reshape(y, [d for n in ys for d in (1, n)])
    return a_ops.reshape(xe * ye, [p * q for p, q in zip(xs, ys)])


# ---- stacking and splitting shorthands -----------------------------------------------------

def append(arr, values, axis=None):
    """NumPy's ``append``: concatenated (both flattened when ``axis`` is None)."""
    x, v = tensor(arr), tensor(values)
    if axis is None:
        return concatenate([a_ops.reshape(x, [-1]), a_ops.reshape(v, [-1])], 0)
    return concatenate([x, v], axis)


def atleast_3d(*arys):
    """NumPy's ``atleast_3d``: 0-d -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    out = []
    for a in arys:
        x = tensor(a)
        shape = x._value.shape
        if len(shape) == 0:
            x = a_ops.reshape(x, (1, 1, 1))
        elif len(shape) == 1:
            x = a_ops.reshape(x, (1,) + shape + (1,))
        elif len(shape) == 2:
            x = a_ops.reshape(x, shape + (1,))
        out.append(x)
    return out[0] if len(out) == 1 else out


def hsplit(ary, indices_or_sections):
    """NumPy's ``hsplit``: ``split`` along axis 1 (axis 0 for 1-D input)."""
    x = tensor(ary)
    if x._value.ndim == 0:
        raise InvalidArgumentError("fasteager.numpy.hsplit only works on arrays of 1 or more "
                                   "dimensions")
    return split(x, indices_or_sections, 1 if x._value.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """NumPy's ``vsplit``: ``split`` along axis 0 (input at least 2-D)."""
    x = tensor(ary)
    if x._value.ndim < 2:
        raise InvalidArgumentError("fasteager.numpy.vsplit only works on arrays of 2 or more "
                                   "dimensions")
    return split(x, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """NumPy's ``dsplit``: ``split`` along axis 2 (input at least 3-D)."""
    x = tensor(ary)
    if x._value.ndim < 3:
        raise InvalidArgumentError("fasteager.numpy.dsplit only works on arrays of 3 or more "
                                   "dimensions")
    return split(x, indices_or_sections, 2)


row_stack = vstack


class _Concatenator:
    """``r_[...]`` / ``c_[...]``: arrays, scalars and slices (``start:stop:step`` an
    arange, ``start:stop:nj`` a linspace of n points) joined along an axis; a leading
    string ``"axis"`` or ``"axis,ndmin"`` picks the axis and the minimum rank."""

    def __init__(self, name, axis, ndmin, columns):
        self._name, self._axis, self._ndmin, self._columns = name, axis, ndmin, columns

    def __getitem__(self, key):
        items = list(key) if isinstance(key, tuple) else [key]
        axis, ndmin = self._axis, self._ndmin
        if items and isinstance(items[0], str):
            spec = items.pop(0).split(",")
            try:
                axis = int(spec[0])
                ndmin = int(spec[1]) if len(spec) > 1 else ndmin
            except ValueError:
                raise UnimplementedError("fasteager.numpy.%s: directive %r is not supported "
                                         "(expected 'axis' or 'axis,ndmin')"
                                         % (self._name, ",".join(spec))) from None
            if len(spec) > 2:
                raise UnimplementedError("fasteager.numpy.%s: the third directive field is "
                                         "not supported (got %r)" % (self._name, ",".join(spec)))
        parts = []
        for item in items:
            if isinstance(item, _slice):
                parts.append(tensor(_slice_values(item)))
                continue
            x = tensor(item)
            if x._value.ndim < ndmin:
                # NumPy's default: new axes in front for r_, behind for the columns of c_
                missing = ndmin - x._value.ndim
                shape = (x._value.shape + (1,) * missing if self._columns
                         else (1,) * missing + x._value.shape)
                x = a_ops.reshape(x, shape)
            parts.append(x)
        if not parts:
            return tensor(np.array([]))
        parts = [a_ops.reshape(p, [1]) if p._value.ndim == 0 else p for p in parts]
        return concatenate(parts, axis)


def _slice_values(sl):
    start = 0 if sl.start is None else sl.start
    step = 1 if sl.step is None else sl.step
    if isinstance(step, complex):
        return np.linspace(start, sl.stop, int(abs(step)))
    return np.arange(start, sl.stop, step)


r_ = _Concatenator("r_", 0, 1, False)
c_ = _Concatenator("c_", -1, 2, True)


def real_if_close(a, tol=100):
    """NumPy's ``real_if_close``: the real part when every imaginary part is within ``tol``
    machine epsilons of zero; real input as it is."""
    x = tensor(a)
    if x._value.dtype.kind != "c":
        return x
    eps = np.finfo(x._value.dtype).eps
    t = tol * eps if tol > 1 else tol
    if np.all(np.abs(x._value.imag) < t):
        return ew_ops.real(x)
    return x


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """NumPy's ``trace``: the sum of the ``offset`` diagonal of the ``axis1``/``axis2``
    planes (a composite of ``diagonal`` and a sum)."""
    d = diagonal(a, offset, axis1, axis2)
    return np_sum(d, axis=-1, dtype=dtype, out=out)
