"""Array creation and shape functions with NumPy's names, defaults and dtypes.

Creation makes constants (NumPy computes them; there is nothing to differentiate), with
NumPy's defaults: Python floats float64, ints int64, ``zeros`` float64. Shape functions
are the table's reshape/transpose/concat/stack/split/tile/gather ops, so they are
differentiable. ``asarray`` shares memory with an ndarray only when nothing can mutate it
(see ``asarray``).
"""
import builtins

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError, UnimplementedError
from ..ops import array_ops as a_ops
from ..ops import indexing_ops as i_ops
from ..ops import elementwise_ops as ew_ops
from ..ops.registry import single_axis
from ._promotion import _holds_tensor, check_out, promote, tensor

Tensor = _core.Tensor
_range = builtins.range


# ---- creation -------------------------------------------------------------------------------

def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):  # noqa: A002
    """NumPy's ``array``: a new tensor. Python floats give float64 and ints int64, as NumPy;
    a (nested) list of tensors is stacked, so gradients flow through it."""
    if isinstance(object, (list, tuple)) and _holds_tensor(object):
        t = a_ops.stack([array(v) for v in object], axis=0) if object else tensor(object)
    else:
        t = tensor(object)
    dtype = _dt(dtype, None)
    if dtype is not None and t._value.dtype != dtype:
        t = ew_ops.cast(t, dtype)
    if t._value.ndim < ndmin:
        t = a_ops.reshape(t, (1,) * (ndmin - t._value.ndim) + t._value.shape)
    return t


def _shareable(arr):
    # only memory that nothing can write to: the array and every array it views
    # are read-only, so neither the caller nor a base can change the tensor later
    if not (arr.flags.c_contiguous and arr.flags.aligned and arr.dtype.isnative):
        return False
    a = arr
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    return not isinstance(a, (bytearray, memoryview)) or \
        (isinstance(a, memoryview) and a.readonly)


def asarray(a, dtype=None, order=None, *, copy=None, like=None):
    """NumPy's ``asarray``: tensors pass through; an ndarray is shared without a copy when it
    is read-only all the way down (C-contiguous, read-only, and every base it views is too),
    and copied otherwise, so mutating the ndarray never changes the tensor."""
    if isinstance(a, np.ndarray) and copy is not True and (dtype is None or
                                                            np.dtype(dtype) == a.dtype):
        if a.dtype.kind in "biufc" and _shareable(a):
            return _core.wrap(a)
    if copy is False and not isinstance(a, (Tensor, _core.VariableBase)):
        raise InvalidArgumentError("fasteager.numpy.asarray: copy=False needs a read-only "
                                   "C-contiguous ndarray or a tensor")
    return array(a, dtype)


def asanyarray(a, dtype=None, order=None, *, like=None):
    return asarray(a, dtype)


def ascontiguousarray(a, dtype=None, *, like=None):
    return asarray(a, dtype)


def _dt(dtype, default=np.float64):
    """``dtype=`` (or ``default`` for None) as a NumPy dtype; None stays None."""
    dtype = default if dtype is None else dtype
    try:
        return None if dtype is None else np.dtype(dtype)
    except (TypeError, ValueError):     # np.dtype(tensor) is a ValueError
        raise TypeError("fasteager.numpy: dtype must name a NumPy dtype (got %r)"
                        % (dtype,)) from None


def _order(fname, order):
    if order is not None and (not isinstance(order, str) or order not in ("C", "K", "A")):
        raise UnimplementedError("fasteager.numpy.%s: order=%r is not supported (tensors are "
                                 "C-ordered)" % (fname, order))


def zeros(shape, dtype=float, order="C", *, like=None):
    """NumPy's ``zeros`` (float64 by default)."""
    _order("zeros", order)
    return _core.wrap(np.zeros(shape, dtype=_dt(dtype)))


def ones(shape, dtype=None, order="C", *, like=None):
    """NumPy's ``ones`` (float64 by default)."""
    _order("ones", order)
    return _core.wrap(np.ones(shape, dtype=_dt(dtype)))


def empty(shape, dtype=float, order="C", *, like=None):
    """NumPy's ``empty``: zeros (an uninitialised tensor is of no use: tensors are immutable)."""
    return zeros(shape, dtype, order)


def full(shape, fill_value, dtype=None, order="C", *, like=None):
    """NumPy's ``full``; a tensor ``fill_value`` is broadcast (and differentiable)."""
    _order("full", order)
    if isinstance(fill_value, (Tensor, _core.VariableBase)):
        return a_ops.broadcast_to(array(fill_value, dtype), shape)
    try:
        return _core.wrap(np.full(shape, fill_value, dtype=_dt(dtype, None)))
    except ValueError as e:     # a fill value that does not broadcast to shape
        raise InvalidArgumentError("fasteager.numpy.full: %s" % e) from None
    except MemoryError as e:
        raise _core.out_of_memory_error("fasteager.numpy.full", e) from None


def _like(fname, a, dtype, shape):
    _order(fname, "C")
    if isinstance(a, (Tensor, _core.VariableBase)):
        d = tensor(a)._value.dtype
        s = tensor(a)._value.shape
    else:
        arr = np.asarray(a)
        d, s = arr.dtype, arr.shape
    return (d if dtype is None else _dt(dtype)), (s if shape is None else shape)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None):
    d, s = _like("zeros_like", a, dtype, shape)
    return _core.wrap(np.zeros(s, d))


def ones_like(a, dtype=None, order="K", subok=True, shape=None):
    d, s = _like("ones_like", a, dtype, shape)
    return _core.wrap(np.ones(s, d))


def empty_like(a, dtype=None, order="K", subok=True, shape=None):
    return zeros_like(a, dtype, shape=shape)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    d, s = _like("full_like", a, dtype, shape)
    return _core.wrap(np.full(s, fill_value, d))


def _plain(v):
    if not isinstance(v, (Tensor, np.ndarray)):
        return v
    a = np.asarray(v)
    if a.size != 1:
        raise InvalidArgumentError("fasteager.numpy: expected a scalar (expected size 1, got "
                                   "shape %s)" % (list(a.shape),))
    return a.item()


def arange(start, stop=None, step=None, dtype=None, *, like=None):
    """NumPy's ``arange`` (int64 for ints, float64 for floats)."""
    if start is None:
        raise TypeError("fasteager.numpy.arange: start must be a number (expected a number, "
                        "got None)")
    args = [_plain(v) for v in (start, stop, step) if v is not None]
    if stop is None and step is not None:
        args = [0, args[0], args[1]]
    try:
        return _core.wrap(np.arange(*args, dtype=dtype))
    except ValueError as e:     # a sequence for a bound
        raise InvalidArgumentError("fasteager.numpy.arange: %s (expected numbers)" % e) from None
    except MemoryError as e:
        raise _core.out_of_memory_error("fasteager.numpy.arange", e) from None


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """NumPy's ``linspace`` (float64 by default); differentiable in tensor ``start`` and
    ``stop``."""
    if not (_holds_tensor(start) or _holds_tensor(stop)) or retstep or (
            dtype is not None and np.dtype(dtype).kind != "f"):
        out = np.linspace(np.asarray(start), np.asarray(stop), num, endpoint=endpoint,
                          retstep=retstep, dtype=dtype, axis=axis)
        if retstep:
            return _core.wrap(out[0]), out[1]
        return _core.wrap(out)
    a, b = tensor(start), tensor(stop)
    dt = np.dtype(dtype) if dtype is not None else np.result_type(
        a._value.dtype, b._value.dtype, float(num))
    out = a_ops.linspace_of(a, b, int(num), endpoint, axis, dt, "fasteager.numpy.linspace")
    out._np_rules = True
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return _core.wrap(np.logspace(np.asarray(start), np.asarray(stop), num, endpoint, base,
                                  dtype, axis))


def eye(N, M=None, k=0, dtype=float, order="C", *, like=None):  # noqa: N803 - NumPy's names
    """NumPy's ``eye`` (float64 by default)."""
    _order("eye", order)
    return _core.wrap(np.eye(N, M, k, dtype=dtype))


def identity(n, dtype=None, *, like=None):
    return _core.wrap(np.identity(n, dtype=dtype))


# ---- shape functions ------------------------------------------------------------------------

def shape(a):
    return tuple(tensor(a)._value.shape)


def ndim(a):
    return tensor(a)._value.ndim


def size(a, axis=None):
    s = tensor(a)._value.shape
    return int(np.prod(s)) if axis is None else s[axis]


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """NumPy's ``reshape`` (C order; one dimension may be -1)."""
    _order("reshape", order)
    shape = newshape if shape is None else shape
    return a_ops.reshape(tensor(a), shape)


def ravel(a, order="C"):
    _order("ravel", order)
    return a_ops.reshape(tensor(a), [-1])


def transpose(a, axes=None):
    """NumPy's ``transpose`` (reverse the axes when ``axes`` is None)."""
    return a_ops.transpose(tensor(a), axes)


def swapaxes(a, axis1, axis2):
    x = tensor(a)
    perm = list(_range(x._value.ndim))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return a_ops.transpose(x, perm)


def moveaxis(a, source, destination):
    """NumPy's ``moveaxis`` (a transpose)."""
    x = tensor(a)
    r = x._value.ndim
    # each axis in [-r, r): a typed error instead of wrapping around (or dividing by 0)
    try:
        src, dst = np.atleast_1d(source).tolist(), np.atleast_1d(destination).tolist()
    except ValueError:      # a ragged list
        raise InvalidArgumentError("fasteager.numpy.moveaxis: source and destination must be "
                                   "ints or lists of ints (got %r, %r)"
                                   % (source, destination)) from None
    src = [single_axis("moveaxis", s, r, "source") for s in src]
    dst = [single_axis("moveaxis", d, r, "destination") for d in dst]
    if len(src) != len(dst):
        raise InvalidArgumentError("fasteager.numpy.moveaxis: source and destination must have "
                                   "the same length (got %s and %s)" % (src, dst))
    order = [n for n in _range(r) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a_ops.transpose(x, order)


def squeeze(a, axis=None):
    return a_ops.squeeze(tensor(a), list(np.atleast_1d(axis).tolist()) if axis is not None
                         else None)


def expand_dims(a, axis):
    """NumPy's ``expand_dims`` (``axis`` an int or a tuple)."""
    x = tensor(a)
    axes = np.atleast_1d(axis).tolist()
    r = x._value.ndim + len(axes)
    shape = list(x._value.shape)
    for ax in sorted(ax % r for ax in axes):
        shape.insert(ax, 1)
    return a_ops.reshape(x, shape)


def atleast_1d(*arys):
    out = [reshape(x, [1]) if tensor(x)._value.ndim == 0 else tensor(x) for x in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    out = []
    for x in arys:
        t = tensor(x)
        out.append(a_ops.reshape(t, (1,) * (2 - t._value.ndim) + t._value.shape)
                   if t._value.ndim < 2 else t)
    return out[0] if len(out) == 1 else out


def concatenate(arrays, axis=0, out=None, dtype=None):
    """NumPy's ``concatenate`` (promoted to one dtype; ``axis=None`` flattens first)."""
    check_out("concatenate", out)
    arrays = list(arrays)
    if not arrays:
        raise InvalidArgumentError("fasteager.numpy.concatenate: nothing to concatenate "
                                   "(expected at least one array, got none)")
    xs = promote(arrays, dtype)
    if axis is None:
        xs = [a_ops.reshape(x, [-1]) for x in xs]
        axis = 0
    return a_ops.concat(xs, axis)


def stack(arrays, axis=0, out=None, dtype=None):
    check_out("stack", out)
    return a_ops.stack(promote(list(arrays), dtype), axis)


def vstack(tup, *, dtype=None):
    return concatenate(atleast_2d(*tup) if len(tup) > 1 else [atleast_2d(*tup)], 0,
                       dtype=dtype)


def hstack(tup, *, dtype=None):
    xs = atleast_1d(*tup) if len(tup) > 1 else [atleast_1d(*tup)]
    return concatenate(xs, 0 if xs[0]._value.ndim == 1 else 1, dtype=dtype)


def column_stack(tup):
    xs = [tensor(x) for x in tup]
    xs = [a_ops.reshape(x, [-1, 1]) if x._value.ndim < 2 else x for x in xs]
    return concatenate(xs, 1)


def split(ary, indices_or_sections, axis=0):
    """NumPy's ``split``: an int (equal sections) or split points (not sizes, as TF)."""
    x = tensor(ary)
    axis = single_axis("split", axis, x._value.ndim)
    n = x._value.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise InvalidArgumentError("fasteager.numpy.split: array split does not result in "
                                       "an equal division (%d into %d)" % (n, k))
        return list(a_ops.split(x, k, axis))
    try:
        points = [int(p) for p in indices_or_sections]
    except (TypeError, ValueError):
        raise InvalidArgumentError("fasteager.numpy.split: indices_or_sections must be an int "
                                   "or a list of ints (got %r)" % (indices_or_sections,)) from None
    points = [builtins.min(builtins.max(p if p >= 0 else p + n, 0), n) for p in points]
    bounds = [0] + points + [n]
    sizes = [builtins.max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]
    if builtins.sum(sizes) != n:
        raise UnimplementedError("fasteager.numpy.split: split points must be increasing")
    return list(a_ops.split(x, sizes, axis))


def array_split(ary, indices_or_sections, axis=0):
    x = tensor(ary)
    if isinstance(indices_or_sections, (int, np.integer)):
        n, k = x._value.shape[axis], int(indices_or_sections)
        each, extra = divmod(n, k)
        sizes = [each + 1] * extra + [each] * (k - extra)
        return list(a_ops.split(x, sizes, axis))
    return split(x, indices_or_sections, axis)


def tile(A, reps):  # noqa: N803 - NumPy's name
    """NumPy's ``tile`` (reps and the array's rank are padded with leading 1s)."""
    x = tensor(A)
    reps = list(np.atleast_1d(reps).tolist())
    r = builtins.max(len(reps), x._value.ndim)
    reps = [1] * (r - len(reps)) + reps
    if x._value.ndim < r:
        x = a_ops.reshape(x, (1,) * (r - x._value.ndim) + x._value.shape)
    return a_ops.tile(x, reps)


def repeat(a, repeats, axis=None):
    return i_ops.repeat(tensor(a), repeats, axis)


def broadcast_to(array, shape, subok=False):  # noqa: A002
    return a_ops.broadcast_to(tensor(array), shape)


def flip(m_, axis=None):
    x = tensor(m_)
    axes = list(_range(x._value.ndim)) if axis is None else np.atleast_1d(axis).tolist()
    return i_ops.reverse(x, axes)


def take(a, indices, axis=None, out=None, mode=None):
    """NumPy's ``take`` (a gather; the flattened input when ``axis`` is None)."""
    x = tensor(a)
    if axis is None:
        x, axis = a_ops.reshape(x, [-1]), 0
    if not isinstance(axis, (int, np.integer)):
        raise TypeError("fasteager.numpy.take: axis must be an int (expected int, got %s)"
                        % type(axis).__name__)
    ax = single_axis("take", int(axis), x._value.ndim)   # typed error when out of range
    try:
        idx = np.asarray(indices)
    except ValueError:      # a ragged list
        raise InvalidArgumentError("fasteager.numpy.take: indices must be ints of one shape "
                                   "(got %r)" % (indices,)) from None
    return x[(builtins.slice(None),) * ax + (idx,)]


def copy(a, order="K"):
    """A tensor with the same value (tensors are immutable, so no memory is copied)."""
    return a_ops.identity(tensor(a))
