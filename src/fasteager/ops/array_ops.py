"""Shape and layout ops (reshape, transpose, concat, indexing ...) and tensor creation.

Indexing is one differentiable pair: ``getitem`` (NumPy indexing) and its VJP
``index_backward`` (scatter-add into zeros), each the other's gradient, so every order
works. gather, gather_nd, boolean_mask, slice, strided_slice, reverse, repeat, REFLECT and
SYMMETRIC pad build a NumPy key and run getitem; scatter_nd and the segment sums run
index_backward. Layout ops accept every dtype and never change it; integer sums in
scatters wrap on overflow, as NumPy and TensorFlow do. Indices must be integers;
out-of-range indices raise ``InvalidArgumentError`` naming the op (NumPy's IndexError is
converted), except in one_hot, where they give rows of ``off_value`` (TensorFlow's rule).
"""

import builtins

import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from ..tensor_shape import TensorShape
from .elementwise_ops import (add, cast, clip_by_value, convert_same, is_nan, multiply, subtract,
                              truediv, where)
from .registry import (ALL, ANY_DTYPE, as_int, as_shape, check_output_size, composite_call,
                       COMPOSITE_TYPES, defop, execute, LINEAR, moved_names, normalize_axis,
                       single_axis, sum_axes, unbroadcast)
from .string_values import is_string_value, string_constant

builtins_range = builtins.range
builtins_slice = builtins.slice
convert_to_tensor = _core.convert_to_tensor


def _shape_of(x):
    return x._value.shape


def _batch_free(shape):
    """A reshape target for ``shape`` with its leading dimension as -1: the same reshape,
    but a traced one then serves other batch sizes (see _src/tracing/relax.py). As it is when the other
    dimensions hold no entries (-1 would be ambiguous) or there are none."""
    shape = tuple(shape)
    if len(shape) < 1 or shape[0] <= 1 or 0 in shape[1:]:
        return shape
    return (-1,) + shape[1:]


# ---- reshaping ------------------------------------------------------------------------------

def _reshape_fwd(x, shape):
    return np.reshape(x, shape)


# reshape only moves values around: the gradient is reshaped back
_reshape = defop("reshape", _reshape_fwd, kinds=ANY_DTYPE, same_dtype=False, jvp=LINEAR,
                 grads=[lambda g, ans, x, shape: reshape(g, _batch_free(_shape_of(x)))])


def reshape(tensor, shape, name=None):
    """Give ``tensor`` a new shape with the same number of elements (one dim may be -1)."""
    if type(shape) in COMPOSITE_TYPES:         # fe.shape(ragged): a ragged result
        return composite_call("reshape", shape, tensor, shape)
    x = convert_to_tensor(tensor)
    dims = as_shape("reshape", shape)
    if dims == x._value.shape:
        return x
    n = x._value.size
    known = 1
    unknown = 0
    for d in dims:
        if d == -1:
            unknown += 1
        elif d < 0:
            raise InvalidArgumentError("reshape: dimensions must be >= 0 or -1 (got %s)"
                                       % list(dims))
        else:
            known *= d
    if unknown > 1 or (unknown == 0 and known != n) or (unknown and (known == 0 or n % known)):
        raise InvalidArgumentError(
            "reshape: cannot reshape a tensor of %d elements (shape %s) into shape %s"
            % (n, list(x._value.shape), list(dims)))
    return execute(_reshape, x, shape=dims)


def _transpose_fwd(x, perm):
    return np.transpose(x, perm)


# transpose: the gradient is transposed by the inverse permutation
_transpose = defop("transpose", _transpose_fwd, kinds=ANY_DTYPE, same_dtype=False,
                   jvp=LINEAR,
                   grads=[lambda g, ans, x, perm: transpose(g, np.argsort(perm).tolist())])


def transpose(a, perm=None, conjugate=False, name=None):
    """Permute axes (reverse them when ``perm`` is None)."""
    x = convert_to_tensor(a)
    rank = x._value.ndim
    if perm is None:
        perm = tuple(builtins_range(rank - 1, -1, -1))
    else:
        perm = as_shape("transpose", perm, "perm")
        # entries in [-rank, rank) (negatives count from the end), each axis once
        if any(not -rank <= p < rank for p in perm) or \
                sorted(p % rank for p in perm) != list(builtins_range(rank)):
            raise InvalidArgumentError(
                "transpose: perm must be a permutation of the axes (expected %d distinct "
                "entries in [0, %d), got %s)" % (rank, rank, list(perm)))
        perm = tuple(p % rank for p in perm)
    return execute(_transpose, x, perm=perm)


def expand_dims(input, axis, name=None):
    """Insert an axis of size 1 at ``axis``."""
    x = convert_to_tensor(input)
    rank = x._value.ndim
    axis = as_int("expand_dims", axis, "axis")
    if not -rank - 1 <= axis <= rank:
        raise InvalidArgumentError("expand_dims: axis %d is out of range for rank %d "
                                   "(expected %d <= axis <= %d)" % (axis, rank, -rank - 1, rank))
    if axis < 0:
        axis += rank + 1
    shape = list(x._value.shape)
    shape.insert(axis, 1)
    return execute(_reshape, x, shape=_batch_free(shape) if axis else tuple(shape))


def squeeze(input, axis=None, name=None):
    """Remove axes of size 1 (only those in ``axis`` when given)."""
    x = convert_to_tensor(input)
    shape = x._value.shape
    axes = normalize_axis("squeeze", axis, len(shape))
    if axes is None:
        new = tuple(d for d in shape if d != 1)
    else:
        for a in axes:
            if shape[a] != 1:
                raise InvalidArgumentError("squeeze: cannot squeeze axis %d of size %d "
                                           "(expected size 1)" % (a, shape[a]))
        new = tuple(d for i, d in enumerate(shape) if i not in axes)
    if shape and shape[0] != 1:      # (the leading dimension is kept: it may be the batch)
        new = _batch_free(new)
    return execute(_reshape, x, shape=new)


# broadcast_to copies values along new axes: the gradient sums them back
_broadcast_to = defop("broadcast_to", lambda x, shape: np.broadcast_to(x, shape),
                      kinds=ANY_DTYPE, jvp=LINEAR,
                      same_dtype=False,
                      grads=[lambda g, ans, x, shape: unbroadcast(g, x)])


def broadcast_to(input, shape, name=None):
    """Broadcast ``input`` to ``shape`` by NumPy rules."""
    x = convert_to_tensor(input)
    shape = as_shape("broadcast_to", shape)
    if x._value.shape == shape:
        return x
    check_output_size("broadcast_to", shape, x._value.dtype, "shape")
    return execute(_broadcast_to, x, shape=shape)


# ---- joining and splitting ------------------------------------------------------------------

def _concat_grad(g, ans, inputs, attrs, needs):
    axis = attrs["axis"]
    sizes = [x._value.shape[axis] for x in inputs]
    return list(execute(_split, g, sizes=tuple(sizes), axis=axis))


_concat = defop("concat", lambda *xs, axis: np.concatenate(xs, axis=axis), kinds=ANY_DTYPE,
                joint_grad=_concat_grad, jvp=LINEAR)


def concat(values, axis, name=None):
    """Join tensors along an existing axis."""
    for v in values:
        if type(v) in COMPOSITE_TYPES:         # ragged operands: a ragged result
            return composite_call("concat", v, values, axis)
    values = convert_same(*values)
    if not values:
        raise InvalidArgumentError("concat: values must be a non-empty list")
    rank = values[0]._value.ndim
    if rank == 0:
        raise InvalidArgumentError("concat: cannot concatenate scalars (expected rank >= 1)")
    ax = single_axis("concat", axis, rank)
    for i, v in enumerate(values):
        if v._value.ndim != rank:
            raise InvalidArgumentError("concat: all values must have rank %d (value %d has "
                                       "shape %s)" % (rank, i, list(v._value.shape)))
    if len(values) == 1:
        return values[0]
    return execute(_concat, *values, axis=ax)


def _split_fwd(x, sizes, axis):
    edges = np.cumsum(sizes)[:-1]
    return tuple(np.split(x, edges, axis=axis))


# split: the gradient concatenates the pieces' gradients
_split = defop("split", _split_fwd, kinds=ANY_DTYPE, multi=True, jvp=LINEAR,
               grads=[lambda g, ans, x, sizes, axis: execute(_concat, *g, axis=axis)])


def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """Split along ``axis`` into equal parts (an int) or parts of the given sizes (a list)."""
    x = convert_to_tensor(value)
    ax = single_axis("split", axis, x._value.ndim)
    n = x._value.shape[ax]
    if isinstance(num_or_size_splits, (int, np.integer)):
        k = int(num_or_size_splits)
        if k <= 0 or n % k:
            raise InvalidArgumentError("split: dimension %d of size %d does not divide into %d "
                                       "equal parts" % (ax, n, k))
        sizes = (n // k,) * k
    else:
        sizes = list(as_shape("split", num_or_size_splits, "num_or_size_splits"))
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if not sizes or sum(sizes) != n or min(sizes) < 0:
            raise InvalidArgumentError("split: sizes %s do not add up to dimension %d of size %d"
                                       % (list(num_or_size_splits), ax, n))
        sizes = tuple(sizes)
    return list(execute(_split, x, sizes=sizes, axis=ax))


def _stack_grad(g, ans, inputs, attrs, needs):
    return list(execute(_unstack, g, axis=attrs["axis"]))


_stack = defop("stack", lambda *xs, axis: np.stack(xs, axis=axis), kinds=ANY_DTYPE,
               joint_grad=_stack_grad, jvp=LINEAR)


def stack(values, axis=0, name=None):
    """Stack tensors of one shape along a new axis."""
    for v in values:
        if type(v) in COMPOSITE_TYPES:         # ragged operands: a ragged result
            return composite_call("stack", v, values, axis)
    values = convert_same(*values)
    if not values:
        raise InvalidArgumentError("stack: values must be a non-empty list")
    shape = values[0]._value.shape
    for i, v in enumerate(values):
        if v._value.shape != shape:
            raise InvalidArgumentError("stack: all values must have shape %s (value %d has %s)"
                                       % (list(shape), i, list(v._value.shape)))
    rank = len(shape) + 1
    ax = single_axis("stack", axis, rank)
    return execute(_stack, *values, axis=ax)


def _unstack_fwd(x, axis):
    return tuple(np.moveaxis(x, axis, 0))


# unstack: the gradient stacks the pieces' gradients
_unstack = defop("unstack", _unstack_fwd, kinds=ANY_DTYPE, multi=True, jvp=LINEAR,
                 grads=[lambda g, ans, x, axis: execute(_stack, *g, axis=axis)])


def unstack(value, num=None, axis=0, name=None):
    """Split along ``axis`` into ``shape[axis]`` tensors of one rank less."""
    x = convert_to_tensor(value)
    if x._value.ndim == 0:
        raise InvalidArgumentError("unstack: cannot unstack a scalar (expected rank >= 1)")
    ax = single_axis("unstack", axis, x._value.ndim)
    if num is not None and num != x._value.shape[ax]:
        raise InvalidArgumentError("unstack: num=%d does not match dimension %d of size %d"
                                   % (num, ax, x._value.shape[ax]))
    if x._value.shape[ax] == 0:
        return []
    return list(execute(_unstack, x, axis=ax))


# ---- identity and stop_gradient -------------------------------------------------------------

# identity: the gradient passes unchanged
identity_op = defop("identity", lambda x: x, kinds=ANY_DTYPE, grads=[lambda g, ans, x: g],
                    jvp=LINEAR)


def identity(input, name=None):
    """A new tensor with the same value (reads a variable's current value)."""
    return execute(identity_op, input)


stop_gradient_op = defop("stop_gradient", lambda x: x, kinds=ANY_DTYPE,
                         no_grad="blocks the gradient by definition")


def stop_gradient(input, name=None):
    """The same value, seen by tapes as a constant."""
    return execute(stop_gradient_op, input)


# ---- indexing -------------------------------------------------------------------------------

def _is_basic(key):
    parts = key if isinstance(key, tuple) else (key,)
    for k in parts:
        if not (k is None or k is Ellipsis or isinstance(k, (int, builtins_slice, np.integer))):
            return False
    return True


def _index_error(shape, e):
    # NumPy's IndexError (out of range, bad mask shape, float index) as TensorFlow's error
    return InvalidArgumentError("getitem: invalid index for a tensor of shape %s (expected "
                                "indices within the shape, got: %s)" % (list(shape), e))


def _fix_empty(key):
    # an empty list in a key arrives as an empty float64 array: NumPy wants integers
    def fix(k):
        if isinstance(k, np.ndarray) and k.size == 0 and k.dtype.kind == "f":
            return k.astype(np.intp)
        return k
    return tuple(fix(k) for k in key) if isinstance(key, tuple) else fix(key)


def _getitem_fwd(x, key):
    try:
        return x[key]
    except (IndexError, TypeError, ValueError) as e:
        fixed = _fix_empty(key)
        try:
            return x[fixed]
        except (IndexError, TypeError, ValueError):
            raise _index_error(x.shape, e) from None


def _index_backward_fwd(g, key, shape):
    z = np.zeros(shape, dtype=g.dtype)
    key = _fix_empty(key) if not _is_basic(key) else key
    try:
        if _is_basic(key):
            z[key] = g
        else:
            np.add.at(z, key, g)   # repeated indices accumulate
    except (IndexError, TypeError, ValueError) as e:
        raise InvalidArgumentError("index_backward: cannot scatter values of shape %s into "
                                   "shape %s (%s)" % (list(g.shape), list(shape), e)) from None
    return z


# x[key] (NumPy indexing: basic, None, ..., boolean masks, integer arrays): the gradient
# scatters (adds) g into zeros of x's shape, so repeated indices accumulate.
# gather, gather_nd, boolean_mask, slice, reverse, sort ... are getitem with a built key.
getitem = defop("getitem", _getitem_fwd, kinds=ANY_DTYPE, same_dtype=False,
                grads=[lambda g, ans, x, key: execute(_index_backward, g, key=key,
                                                       shape=_shape_of(x))])

# scatter g into zeros: the gradient gathers it back
# (also scatter_nd and the segment sums, which is why integers are accepted)
_index_backward = defop("index_backward", _index_backward_fwd, kinds="fiuc",
                        grads=[lambda g, ans, x, key, shape: execute(getitem, g, key=key)])


# ---- shape information ----------------------------------------------------------------------
# Eagerly these are constants. In an fe.function trace they are ops (TensorFlow's Shape,
# Size, ZerosLike, OnesLike), so a graph that serves other sizes of its inputs' None
# dimensions reads the running input's shape when it replays (function.py, _relax.py),
# and traces at different sizes record the same ops (saved_model/_generic.py). Not for a
# GPU value (no GPU kernels: the fallback would copy it to the host; such traces are
# never relaxed, see _relax.shadow_check).

def _tracing(x):
    return _core.get_tracer() is not None and type(x._value) is np.ndarray


_SHAPE_ONLY = "the result depends on the input's shape only"
_shape = defop("shape", lambda x, *, out_type: np.array(x.shape, dtype=out_type),
               kinds=ANY_DTYPE, same_dtype=False, nin=1, attrs=("out_type",),
               no_grad=_SHAPE_ONLY)
_size = defop("size", lambda x, *, out_type: np.array(x.size, dtype=out_type),
              kinds=ANY_DTYPE, same_dtype=False, nin=1, attrs=("out_type",),
              no_grad=_SHAPE_ONLY)
_zeros_like = defop("zeros_like", lambda x, *, dtype: np.zeros(x.shape, dtype=dtype),
                    kinds=ANY_DTYPE, same_dtype=False, nin=1, attrs=("dtype",),
                    no_grad=_SHAPE_ONLY)
_ones_like = defop("ones_like", lambda x, *, dtype: np.ones(x.shape, dtype=dtype),
                   kinds=ANY_DTYPE, same_dtype=False, nin=1, attrs=("dtype",),
                   no_grad=_SHAPE_ONLY)


def shape(input, out_type=np.int32, name=None):
    """The shape as a 1-D int32 tensor."""
    if type(input) in COMPOSITE_TYPES:
        return composite_call("shape", input, input, out_type)
    x = convert_to_tensor(input)
    out_type = as_dtype(out_type)._np
    if _tracing(x):
        return execute(_shape, x, out_type=out_type)
    return _core.wrap(np.array(x._value.shape, dtype=out_type))


def size(input, out_type=np.int32, name=None):
    """The number of elements as a scalar tensor."""
    x = convert_to_tensor(input)
    out_type = as_dtype(out_type)._np
    if _tracing(x):
        return execute(_size, x, out_type=out_type)
    return _core.wrap(np.array(x._value.size, dtype=out_type))


def rank(input, name=None):
    """The number of dimensions as a scalar int32 tensor."""
    return _core.wrap(np.array(convert_to_tensor(input)._value.ndim, dtype=np.int32))


# ---- creation (constants: no op, nothing to differentiate) -----------------------------------

def _allocate(opname, fn, *args, **kwargs):
    """``fn(*args)`` for creation functions (not ops): MemoryError as the op's
    ResourceExhaustedError, as execute reports it for ops."""
    try:
        return _core.wrap(fn(*args, **kwargs))
    except MemoryError as e:
        raise _core.out_of_memory_error(opname, e) from None
    except ValueError as e:
        if "too big" in str(e):     # NumPy: a size beyond the address space
            raise _core.out_of_memory_error(opname, e) from None
        raise InvalidArgumentError("%s: %s" % (opname, e)) from None


def _dims(opname, shape, argname="shape", dtype=None):
    """A shape to create: ints >= 0 (reshape's -1 means nothing here); with ``dtype``,
    one whose tensor fits in memory (``check_output_size``)."""
    dims = as_shape(opname, shape, argname)
    if any(d < 0 for d in dims):
        raise InvalidArgumentError("%s: %s must not have negative dimensions (expected >= 0, "
                                   "got %s)" % (opname, argname, list(dims)))
    if dtype is not None:
        check_output_size(opname, dims, dtype, argname)
    return dims


def _python_scalar(opname, argname, v):
    """A scalar argument (a number, or a size-1 array or tensor) as a Python number."""
    try:
        a = np.asarray(v)
    except ValueError:      # a ragged list
        a = None
    if a is None or a.size != 1:
        raise InvalidArgumentError("%s: %s must be a scalar (expected size 1, got %s)"
                                   % (opname, argname, "shape %s" % list(a.shape)
                                      if a is not None else type(v).__name__))
    return a.item()


def _np_dtype(dtype, default=np.float32):
    return np.dtype(default) if dtype is None else as_dtype(dtype)._np


def _is_string_dtype(dtype):
    return as_dtype(dtype).is_string


def constant(value, dtype=None, shape=None, name=None):
    """A tensor holding ``value`` (Python value, NumPy array or tensor).

    >>> fe.constant([[1, 2], [3, 4]]).dtype
    fe.int32
    """
    if isinstance(value, (_core.Tensor, _core.VariableBase)):
        t = convert_to_tensor(value)
        if dtype is not None:
            t = cast(t, dtype)
    elif dtype is not None and _is_string_dtype(dtype):
        return string_constant(value, shape)
    else:
        try:
            t = convert_to_tensor(value, dtype)
        except InvalidArgumentError:
            if dtype is None and is_string_value(value):
                return string_constant(value, shape)   # fe.string: UTF-8 bytes
            raise
    if shape is not None:
        dims = _dims("constant", shape)
        arr = t._value
        if arr.size == 1:
            t = _allocate("constant", np.full, dims, arr.reshape(-1)[0], dtype=arr.dtype)
        elif arr.size == int(np.prod(dims)):
            t = _core.wrap(arr.reshape(dims))
        else:
            raise InvalidArgumentError("constant: value of %d elements does not fit shape %s"
                                       % (arr.size, list(dims)))
    return t


def zeros(shape, dtype=None, name=None):
    """A tensor of zeros (float32 unless ``dtype`` is given)."""
    if type(shape) in COMPOSITE_TYPES:
        return composite_call("zeros", shape, shape, dtype)
    dtype = _np_dtype(dtype)
    if dtype.kind == "O":       # TensorFlow's zero of a string tensor is the empty string
        return _allocate("zeros", np.full, _dims("zeros", shape, dtype=dtype), b"",
                         dtype=dtype)
    return _allocate("zeros", np.zeros, _dims("zeros", shape, dtype=dtype), dtype=dtype)


def ones(shape, dtype=None, name=None):
    """A tensor of ones (float32 unless ``dtype`` is given)."""
    if type(shape) in COMPOSITE_TYPES:
        return composite_call("ones", shape, shape, dtype)
    dtype = _np_dtype(dtype)
    return _allocate("ones", np.ones, _dims("ones", shape, dtype=dtype), dtype=dtype)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value`` (whose dtype it takes)."""
    if type(dims) in COMPOSITE_TYPES:
        return composite_call("fill", dims, dims, value)
    v = convert_to_tensor(value)
    if v._value.ndim != 0:
        raise InvalidArgumentError("fill: value must be a scalar (got shape %s)"
                                   % list(v._value.shape))
    return _allocate("fill", np.full, _dims("fill", dims, "dims", v._value.dtype),
                     _core.data_of(v, "fill"), dtype=v._value.dtype)


def zeros_like(input, dtype=None, name=None):
    """Zeros with the shape (and dtype, unless given) of ``input``."""
    x = convert_to_tensor(input)
    if _tracing(x):
        return execute(_zeros_like, x, dtype=_np_dtype(dtype, x._value.dtype))
    dtype = _np_dtype(dtype, x._value.dtype)
    if dtype.kind == "O":       # (strings: the empty string, as TensorFlow)
        return _allocate("zeros_like", np.full, x._value.shape, b"", dtype=dtype)
    return _allocate("zeros_like", np.zeros, x._value.shape, dtype=dtype)


def ones_like(input, dtype=None, name=None):
    """Ones with the shape (and dtype, unless given) of ``input``."""
    x = convert_to_tensor(input)
    if _tracing(x):
        return execute(_ones_like, x, dtype=_np_dtype(dtype, x._value.dtype))
    return _allocate("ones_like", np.ones, x._value.shape,
                     dtype=_np_dtype(dtype, x._value.dtype))


# tf.range's dtype, when not given, is the widest of its arguments' in this order
_RANGE_ORDER = {np.dtype(np.int32): 0, np.dtype(np.int64): 1, np.dtype(np.float16): 2,
                np.dtype(np.float32): 3, np.dtype(np.float64): 4}


def _dtype_label(dtype):
    return "string" if dtype.kind == "O" else str(dtype)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - fe.range
    """Like Python's range, as a 1-D tensor (int32 for ints, float32 for floats).

    As TensorFlow's Range kernel: the arguments are cast to the dtype first, the length is
    ``ceil(|(limit - start) / delta|)`` computed in that dtype, and element ``i`` is
    ``start + i * delta`` (no running sum, so a long float32 range does not drift).
    """
    if limit is None:
        start, limit = 0, start
    # Python numbers go straight to a given dtype (0.01 as float64 is not 0.01f widened)
    want = None if dtype is None else _np_dtype(dtype)
    args = [v if isinstance(v, (_core.Tensor, _core.VariableBase)) or want is None
            else convert_to_tensor(v, want) for v in (start, limit, delta)]
    args = [convert_to_tensor(v) for v in args]
    for n, a in zip(("start", "limit", "delta"), args):
        if a._value.size != 1:
            raise InvalidArgumentError("range: %s must be a scalar (expected size 1, got "
                                       "shape %s)" % (n, list(a._value.shape)))
        if a._value.dtype.kind not in "iufb":
            raise InvalidArgumentError("range: %s must be a number (got %s)"
                                       % (n, _dtype_label(a._value.dtype)))
    out = want if want is not None else max((a._value.dtype for a in args),
                                            key=lambda d: _RANGE_ORDER.get(d, -1))
    if out.kind not in "iuf":
        raise InvalidArgumentError("range: dtype must be an integer or floating type (got %s)"
                                   % _dtype_label(out))
    first, last, step = (_core.data_of(a, "range").reshape(()).astype(out) for a in args)
    if step == 0:
        raise InvalidArgumentError("range: delta must not be 0")
    if step > 0 and first > last:
        raise InvalidArgumentError("range: requires start <= limit when delta > 0 (got %s/%s)"
                                   % (first, last))
    if step < 0 and first < last:
        raise InvalidArgumentError("range: requires start >= limit when delta < 0 (got %s/%s)"
                                   % (first, last))
    if out.kind == "f":
        with np.errstate(over="ignore"):
            size = np.ceil(np.abs((last - first) / step))
        if not np.isfinite(size):
            raise InvalidArgumentError("range: the number of elements is not finite "
                                       "(start %s, limit %s, delta %s)" % (first, last, step))
        size = int(size)
    else:
        size = (abs(int(last) - int(first)) + abs(int(step)) - 1) // abs(int(step))
    check_output_size("range", [size], out, "start %s, limit %s, delta %s"
                      % (first, last, step))

    def values():
        # start + i * delta per element, in the output dtype
        i = np.arange(size, dtype=out if out.kind == "f" else np.int64)
        return (first + i.astype(out) * step).astype(out, copy=False)
    return _allocate("range", values)


def linspace(start, stop, num, axis=0, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (differentiable in
    ``start`` and ``stop``)."""
    start = convert_to_tensor(start)
    dtype = start._value.dtype if start._value.dtype.kind == "f" else np.float32
    return linspace_of(start, stop, as_int("linspace", num, "num"), True, axis, dtype)


def linspace_of(start, stop, num, endpoint, axis, dtype, opname="linspace"):
    """``start + i * step`` along a new ``axis`` with ``step = (stop - start) / div``, the
    last point ``stop`` itself: NumPy's arithmetic in the same order (the same values),
    in fasteager ops, so the result is differentiable in ``start`` and ``stop``."""
    if num < 0:
        raise InvalidArgumentError("%s: num must be non-negative (expected num >= 0, got %d)"
                                   % (opname, num))
    a, b = (cast(convert_to_tensor(v), dtype) for v in (start, stop))
    shape = np.broadcast_shapes(a._value.shape, b._value.shape)
    check_output_size(opname, (num,) + shape, dtype, "num")
    a, b = broadcast_to(a, shape), broadcast_to(b, shape)
    axis = single_axis(opname, axis, len(shape) + 1)
    div = num - 1 if endpoint else num
    steps = _core.wrap(np.arange(num, dtype=dtype).reshape((num,) + (1,) * len(shape)))
    if div > 0:
        out = add(multiply(steps, expand_dims(truediv(subtract(b, a), div), 0)),
                  expand_dims(a, 0))
        if endpoint:
            out = concat([out[:-1], expand_dims(b, 0)], 0)
    else:       # one point (or none): start
        out = add(multiply(steps, 0), expand_dims(a, 0))
    if axis:
        perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, len(shape) + 1))
        out = transpose(out, perm)
    return out


def eye(num_rows, num_columns=None, batch_shape=None, dtype=None, name=None):
    """The identity matrix (optionally repeated over ``batch_shape``)."""
    dtype = _np_dtype(dtype)
    rows, cols = _dims("eye", [num_rows, num_rows if num_columns is None else num_columns],
                       "num_rows and num_columns", dtype)
    batch = () if batch_shape is None else _dims("eye", batch_shape, "batch_shape")
    check_output_size("eye", batch + (rows, cols), dtype, "batch_shape, num_rows, num_columns")
    m = _allocate("eye", np.eye, rows, cols, dtype=dtype)
    if batch_shape is None:
        return m
    return _allocate("eye", lambda: np.broadcast_to(m._value, batch + (rows, cols)).copy())


# ---- tile, pad, one_hot -------------------------------------------------------------------

def _tile_grad(g, ans, x, multiples):
    # tile copies x m_i times along axis i: view g as (m0, d0, m1, d1, ...), sum the copies
    inter = []
    for m, d in zip(multiples, x._value.shape):
        inter += [m, d]
    g = reshape(g, inter)
    return sum_axes(g, builtins_range(0, len(inter), 2))


_tile = defop("tile", lambda x, multiples: np.tile(x, multiples), kinds=ANY_DTYPE,
              grads=[_tile_grad], jvp=LINEAR)


def tile(input, multiples, name=None):
    """Repeat ``input`` ``multiples[i]`` times along axis i (one multiple per axis)."""
    if type(input) in COMPOSITE_TYPES:
        return composite_call("tile", input, input, multiples)
    x = convert_to_tensor(input)
    mult = as_shape("tile", multiples, "multiples")
    if len(mult) != x._value.ndim or any(m < 0 for m in mult):
        raise InvalidArgumentError("tile: multiples must hold one non-negative int per axis "
                                   "(expected length %d, got %s)" % (x._value.ndim, list(mult)))
    # NumPy's tile wraps around (and writes out of bounds) on a product past 2**63
    check_output_size("tile", [d * m for d, m in zip(x._value.shape, mult)], x._value.dtype,
                      "multiples %s" % list(mult))
    return execute(_tile, x, multiples=mult)


def _pad_fwd(x, paddings, constant_values):
    if not paddings:   # a scalar: nothing to pad
        return x.copy()
    return np.pad(x, paddings, mode="constant", constant_values=constant_values)


# constant padding: the gradient is g with the padding sliced off
_pad = defop("pad", _pad_fwd, kinds=ALL + "c",
             grads=[lambda g, ans, x, paddings, constant_values: execute(
                 getitem, g, key=tuple(builtins_slice(b, b + d)
                                       for (b, _), d in zip(paddings, x._value.shape)))])


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad ``tensor`` by ``paddings[i] = [before, after]`` along each axis i.

    ``mode``: ``"CONSTANT"`` (with ``constant_values``), ``"REFLECT"`` (mirror without the
    edge, paddings < dim) or ``"SYMMETRIC"`` (mirror with the edge, paddings <= dim).
    REFLECT and SYMMETRIC gather through ``getitem``, so their gradients scatter-add back.
    """
    x = convert_to_tensor(tensor)
    try:
        p = np.asarray(paddings._value if isinstance(paddings, _core.Tensor) else paddings)
    except ValueError:      # a ragged list
        raise InvalidArgumentError("pad: paddings must be a [rank, 2] list of ints (got %r)"
                                   % (paddings,)) from None
    shape = x._value.shape
    if p.size == 0:
        p = p.reshape(0, 2)
    if p.shape != (len(shape), 2) or (p.size and p.dtype.kind not in "iu"):
        raise InvalidArgumentError("pad: paddings must be an int array of shape [rank, 2] "
                                   "(expected [%d, 2], got %s)" % (len(shape), list(p.shape)))
    if p.size and p.min() < 0:
        raise InvalidArgumentError("pad: paddings must be non-negative (got %s)" % p.tolist())
    p = tuple((int(b), int(a)) for b, a in p)
    check_output_size("pad", [d + b + a for d, (b, a) in zip(shape, p)], x._value.dtype,
                      "paddings %s" % [list(q) for q in p])
    mode = str(mode).upper()
    if mode == "CONSTANT":
        cv = np.asarray(constant_values._value if isinstance(constant_values, _core.Tensor)
                        else constant_values).astype(x._value.dtype).item()
        return execute(_pad, x, paddings=p, constant_values=cv)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise InvalidArgumentError("pad: mode must be CONSTANT, REFLECT or SYMMETRIC (got %r)"
                                   % mode)
    limit_ok = (lambda n, d: n < d) if mode == "REFLECT" else (lambda n, d: n <= d)
    sources = []
    for (b, a), d in zip(p, shape):
        if not (limit_ok(b, d) and limit_ok(a, d)):
            raise InvalidArgumentError(
                "pad: %s paddings must be %s the dimension (got %s for a dimension of %d)"
                % (mode, "less than" if mode == "REFLECT" else "at most", [b, a], d))
        sources.append(np.pad(np.arange(d), (b, a), mode=mode.lower()))
    return execute(getitem, x, key=np.ix_(*sources))


def _one_hot_fwd(indices, depth, on, off, axis, dtype):
    # indices outside [0, depth) (negatives included) give a row of off_value, as TensorFlow
    if indices.size == 0:   # no arange(depth) for an empty batch
        out = np.zeros(indices.shape + (depth,), dtype)
        return out if axis == -1 else np.moveaxis(out, -1, axis)
    hot = indices[..., None] == np.arange(depth)
    out = np.where(hot, np.asarray(on, dtype), np.asarray(off, dtype))
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return out


_one_hot = defop("one_hot", _one_hot_fwd, kinds="iu", nin=1,
                 no_grad="the output does not depend smoothly on integer indices")


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors of length ``depth`` at ``indices`` (new axis ``axis``, default last).

    >>> fe.one_hot([0, 2], 3).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    idx = convert_to_tensor(indices)
    if dtype is None:
        ref = on_value if on_value is not None else off_value
        dtype = convert_to_tensor(ref)._value.dtype if ref is not None else np.float32
    np_dtype = _np_dtype(dtype)
    on = 1 if on_value is None else _python_scalar("one_hot", "on_value", on_value)
    off = 0 if off_value is None else _python_scalar("one_hot", "off_value", off_value)
    rank = idx._value.ndim
    axis = -1 if axis is None else as_int("one_hot", axis, "axis")
    if not -1 <= axis <= rank:
        raise InvalidArgumentError("one_hot: axis must be in [-1, %d] (got %d)" % (rank, axis))
    depth = as_int("one_hot", depth, "depth")
    if depth < 0:
        raise InvalidArgumentError("one_hot: depth must be non-negative (got %d)" % depth)
    check_output_size("one_hot", idx._value.shape + (depth,), np_dtype, "depth %d" % depth)
    return execute(_one_hot, idx, depth=depth, on=on, off=off,
                   axis=-1 if axis == rank else axis, dtype=np_dtype)


# ---- saturate_cast, identity_n, shape checks and shape broadcasts ---------------------------

def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype``, clamped to its range first (NaN becomes 0 for integers).

    >>> fe.saturate_cast([-300., 5.7, 300.], fe.uint8).numpy()
    array([  0,   5, 255], dtype=uint8)
    """
    x = _core.convert_to_tensor(value)
    d = as_dtype(dtype)
    src = x.dtype.as_numpy_dtype
    dst = d.as_numpy_dtype
    if x.dtype == d:
        return x
    if np.dtype(src).kind in "fiu" and np.dtype(dst).kind in "fiu":
        info = np.iinfo if np.dtype(dst).kind in "iu" else np.finfo
        lo, hi = info(dst).min, info(dst).max
        src_info = np.iinfo if np.dtype(src).kind in "iu" else np.finfo
        smin, smax = src_info(src).min, src_info(src).max
        lo_in = None if lo <= smin else np.asarray(lo).astype(src)
        hi_in = None if hi >= smax else np.asarray(hi).astype(src)
        if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu":
            # the largest src value that does not exceed hi (float(2**31-1) rounds up)
            while hi_in is not None and float(hi_in) > hi:
                hi_in = np.nextafter(hi_in, np.asarray(-np.inf, src)).astype(src)
            x = where(is_nan(x), zeros_like(x), x)
        if lo_in is not None or hi_in is not None:
            x = clip_by_value(x, smin if lo_in is None else lo_in,
                              smax if hi_in is None else hi_in)
    return cast(x, d)


def identity_n(input, name=None):
    """``fe.identity`` of each of ``input`` (a list of tensors)."""
    return [identity(x) for x in input]


def ensure_shape(x, shape, name=None):
    """``x`` itself after checking that its shape is compatible with ``shape`` (None: any
    size); an InvalidArgumentError (a ValueError) otherwise."""
    t = x._read() if isinstance(x, _core.VariableBase) else _core.convert_to_tensor(x)
    want = TensorShape(shape)
    got = TensorShape(t._value.shape)
    if not want.is_compatible_with(got):
        raise InvalidArgumentError("ensure_shape: shape of tensor %s is not compatible with "
                                   "expected shape %s" % (_shape_text(got), _shape_text(want)))
    return identity(t)


def _shape_text(shape):
    if shape.rank is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


def shape_n(input, out_type=np.int32, name=None):
    """``fe.shape`` of each tensor in ``input``."""
    return [shape(x, out_type=out_type) for x in input]


def _broadcast_dims(a, b):
    """NumPy's broadcast of two dimension lists (None: unknown), or None if incompatible."""
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + list(a)
    b = [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1 or x is None:
            out.append(y)
        elif y is None:
            out.append(x)
        else:
            return None
    return out


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes (unknown dimensions stay unknown unless the other
    is known and not 1); ValueError if they are incompatible."""
    sx, sy = TensorShape(shape_x), TensorShape(shape_y)
    if sx.rank is None or sy.rank is None:
        return TensorShape(None)
    out = _broadcast_dims(sx.as_list(), sy.as_list())
    if out is None:
        raise ValueError("broadcast_static_shape: incompatible shapes for broadcasting. Two "
                         "shapes are compatible if for each dimension pair they are either "
                         "equal or one of them is 1. Received: %s and %s."
                         % (builtins.tuple(sx.as_list()), builtins.tuple(sy.as_list())))
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shapes given as 1-D integer tensors (or lists), as a tensor of
    their dtype; InvalidArgumentError if they are incompatible.

    >>> fe.broadcast_dynamic_shape([2, 1, 3], [4, 1]).numpy()
    array([2, 4, 3], dtype=int32)
    """
    tx = _core.convert_to_tensor(shape_x)
    ty = _core.convert_to_tensor(shape_y, tx.dtype)
    if tx.dtype.name not in ("int32", "int64"):
        raise InvalidArgumentError("broadcast_dynamic_shape: shapes must be int32 or int64 "
                                   "(got %s)" % tx.dtype.name)
    a = _core.data_of(tx, "broadcast_dynamic_shape")
    b = _core.data_of(ty, "broadcast_dynamic_shape")
    if a.ndim != 1 or b.ndim != 1:
        raise InvalidArgumentError("broadcast_dynamic_shape: shapes must be 1-D (got ranks "
                                   "%d and %d)" % (a.ndim, b.ndim))
    out = _broadcast_dims(a.tolist(), b.tolist())
    if out is None:
        raise InvalidArgumentError("broadcast_dynamic_shape: incompatible shapes: [%s] vs. [%s]"
                                   % (",".join(map(str, a.tolist())),
                                      ",".join(map(str, b.tolist()))))
    return _core.wrap(np.asarray(out, dtype=a.dtype))


# names that moved to other topic modules when ops/ was regrouped: the old paths warn for
# one release
__getattr__ = moved_names(__name__, {
    **dict.fromkeys(("boolean_mask", "gather", "gather_nd", "meshgrid", "repeat", "reverse",
                     "scatter_nd", "slice", "strided_slice"), "indexing_ops"),
    **dict.fromkeys(("segment_sum", "unsorted_segment_sum"), "segment_ops"),
})
