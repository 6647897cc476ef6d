"""Gathers, scatters, masks and slices: each builds a NumPy key and runs ``getitem`` (or
its VJP ``index_backward`` for scatters), so every gradient is a scatter-add (repeated
indices accumulate) whose own gradient is a gather: all orders work with no extra code.

Indices must be integers (int32 or int64) and in range: out-of-range or negative indices
raise ``InvalidArgumentError`` naming the op (TensorFlow's CPU rule), except where a
function says otherwise (negative segment ids are dropped).
"""

import builtins

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .array_ops import (_index_backward, broadcast_to, concat, getitem, reshape, transpose, zeros,
                        zeros_like)
from .elementwise_ops import cast, convert_same, equal
from .reduction_ops import reduce_sum
from .registry import (ALL, as_int, as_shape, check_output_size, composite_call, COMPOSITE_TYPES,
                       defop, execute, INT, moved_names, normalize_axis, NUMERIC, single_axis)

builtins_range = builtins.range
builtins_slice = builtins.slice
convert_to_tensor = _core.convert_to_tensor


# ---- gathers: getitem with a built key (gradients scatter-add through index_backward) -----

def _int_indices(opname, indices, argname="indices"):
    try:
        arr = (_core.data_of(indices, opname) if isinstance(indices, _core.Tensor)
               else np.asarray(indices))
    except ValueError:      # a ragged list
        raise InvalidArgumentError("%s: %s must be a (nested) list of ints of one shape (got "
                                   "%r)" % (opname, argname, indices)) from None
    if isinstance(indices, _core.VariableBase):
        arr = _core.data_of(convert_to_tensor(indices), opname)
    if arr.dtype.kind not in "iu":
        if arr.size == 0:
            return arr.astype(np.int64)
        raise InvalidArgumentError("%s: %s must be integers (expected int32 or int64, got %s)"
                                   % (opname, argname, arr.dtype))
    return arr


def _check_range(opname, idx, n, what):
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)].reshape(-1)[0]
        raise InvalidArgumentError("%s: index %d is out of range for %s (expected 0 <= index "
                                   "< %d)" % (opname, bad, what, n))


def _batch_keys(batch_shape, ndim):
    # aranges that broadcast against an index array of rank ndim, one per batch axis
    keys = []
    for i, b in enumerate(batch_shape):
        shape = [1] * ndim
        shape[i] = b
        keys.append(np.arange(b).reshape(shape))
    return keys


# ---- rows of params at tensor indices: a replayable gather --------------------------------
# gather builds a NumPy key from the index values, which a traced function cannot replay
# (it then runs eagerly). Tensor indices on axis 0, the Embedding lookup, take these ops
# instead: the indices are an input and their range is checked when the kernel runs.

def _check_row_ids(opname, idx, n):
    if idx.dtype.kind not in "iu":
        raise InvalidArgumentError("%s: indices must be integers (expected int32 or int64, "
                                   "got %s)" % (opname, idx.dtype))
    _check_range(opname, idx, n, "axis 0 of params")


def _gather_rows_fwd(params, indices):
    if params.ndim == 0:
        raise InvalidArgumentError("gather: params must have rank >= 1 (got a scalar)")
    _check_row_ids("gather", indices, params.shape[0])
    return np.take(params, indices, axis=0)


def _scatter_rows_fwd(g, indices, rows):
    """Sums of g's slices per index into ``rows`` zero rows (the gradient of gather_rows)."""
    _check_row_ids("scatter_rows", indices, rows)
    out = np.zeros((rows,) + g.shape[indices.ndim:], dtype=g.dtype)
    np.add.at(out, indices, g)          # repeated indices accumulate
    return out


# params[indices] along axis 0; its gradient scatter-adds, whose gradient gathers
gather_rows = defop("gather_rows", _gather_rows_fwd, kinds="fiubc", same_dtype=False,
                    grads=[lambda g, ans, x, idx: execute(scatter_rows, g, idx,
                                                          rows=x._value.shape[0]), None])
scatter_rows = defop("scatter_rows", _scatter_rows_fwd, kinds="fiuc", same_dtype=False,
                     grads=[lambda g, ans, gr, idx, rows: execute(gather_rows, g, idx), None])


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of ``params`` along ``axis`` at ``indices`` (TensorFlow's ``tf.gather``).

    The result has shape ``params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis + 1:]``; the first ``batch_dims`` axes of both are batch axes.
    The gradient scatter-adds (repeated indices accumulate).

    >>> fe.gather([10., 20., 30.], [2, 0]).numpy()
    array([30., 10.], dtype=float32)
    """
    if type(params) in COMPOSITE_TYPES:       # a RaggedTensor: its rows
        return composite_call("gather", params, params, indices, axis, batch_dims)
    x = convert_to_tensor(params)
    if (isinstance(indices, _core.Tensor) and type(batch_dims) is int and not batch_dims
            and (axis is None or (type(axis) is int and axis == 0))
            and x._value.dtype.kind in "fiubc"):
        return execute(gather_rows, x, indices)
    idx = _int_indices("gather", indices)
    rank, irank = x._value.ndim, idx.ndim
    b = as_int("gather", batch_dims, "batch_dims")
    if b < 0:
        b += irank
    axis = b if axis is None else as_int("gather", axis, "axis")
    if axis < 0:
        axis += rank
    if not 0 <= b <= irank or not b <= axis < rank:
        raise InvalidArgumentError(
            "gather: need 0 <= batch_dims <= rank(indices) and batch_dims <= axis < "
            "rank(params) (got batch_dims=%s, axis=%s, params rank %d, indices rank %d)"
            % (batch_dims, axis, rank, irank))
    if x._value.shape[:b] != idx.shape[:b]:
        raise InvalidArgumentError("gather: batch dimensions differ (expected params %s and "
                                   "indices %s to agree on the first %d)"
                                   % (list(x._value.shape), list(idx.shape), b))
    _check_range("gather", idx, x._value.shape[axis], "axis %d of params" % axis)
    if b == 0 and axis == 0:
        return execute(getitem, x, key=idx)
    key = tuple(_batch_keys(idx.shape[:b], irank)) + (builtins_slice(None),) * (axis - b) + (idx,)
    out = execute(getitem, x, key=key)
    if b and axis > b:
        # advanced indices split by slices go first in NumPy: move the middle axes back
        ni, nm = irank - b, axis - b
        perm = (list(builtins_range(b)) + list(builtins_range(b + ni, b + ni + nm))
                + list(builtins_range(b, b + ni))
                + list(builtins_range(b + ni + nm, out._value.ndim)))
        out = transpose(out, perm)
    return out


def _nd_key(opname, x, idx, b):
    rank = x._value.ndim
    if idx.ndim < 1 or not 0 <= b < idx.ndim or idx.shape[-1] > rank - b:
        raise InvalidArgumentError(
            "%s: indices must have shape [..., q] with q <= rank(params) - batch_dims "
            "(got indices %s, params %s, batch_dims %d)"
            % (opname, list(idx.shape), list(x._value.shape), b))
    if x._value.shape[:b] != idx.shape[:b]:
        raise InvalidArgumentError("%s: batch dimensions differ (expected params %s and "
                                   "indices %s to agree on the first %d)"
                                   % (opname, list(x._value.shape), list(idx.shape), b))
    cols = []
    for j in builtins_range(idx.shape[-1]):
        col = idx[..., j]
        _check_range(opname, col, x._value.shape[b + j], "axis %d" % (b + j))
        cols.append(col)
    return tuple(_batch_keys(idx.shape[:b], idx.ndim - 1)) + tuple(cols)


def gather_nd(params, indices, batch_dims=0, name=None):
    """``params[indices[..., 0], ..., indices[..., q-1]]``: slices at multi-indices.

    >>> fe.gather_nd([[1, 2], [3, 4]], [[1, 0]]).numpy()
    array([3], dtype=int32)
    """
    x = convert_to_tensor(params)
    idx = _int_indices("gather_nd", indices)
    return execute(getitem, x, key=_nd_key("gather_nd", x, idx, int(batch_dims)))


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates accumulate).

    The gradient for ``updates`` is ``gather_nd`` of the incoming gradient.
    """
    u = convert_to_tensor(updates)
    dims = as_shape("scatter_nd", shape)
    idx = _int_indices("scatter_nd", indices)
    if idx.ndim < 1 or idx.shape[-1] > len(dims):
        raise InvalidArgumentError("scatter_nd: indices must have shape [..., q] with q <= "
                                   "rank(shape) (got indices %s, shape %s)"
                                   % (list(idx.shape), list(dims)))
    q = idx.shape[-1]
    want = idx.shape[:-1] + dims[q:]
    if u._value.shape != want:
        raise InvalidArgumentError("scatter_nd: updates have the wrong shape (expected %s, got "
                                   "%s)" % (list(want), list(u._value.shape)))
    if q == 0:
        # an empty index row addresses the whole tensor: every update adds to all of it
        return reduce_sum(u, axis=list(builtins_range(idx.ndim - 1)))
    for j in builtins_range(q):
        _check_range("scatter_nd", idx[..., j], dims[j], "axis %d of shape" % j)
    key = tuple(idx[..., j] for j in builtins_range(q))
    return execute(_index_backward, u, key=key, shape=dims)


def boolean_mask(tensor, mask, axis=None, name=None):
    """The entries of ``tensor`` where ``mask`` holds; ``mask`` covers axes
    ``axis .. axis + mask.ndim`` of ``tensor``, which become one axis.

    >>> fe.boolean_mask([1, 2, 3], [True, False, True]).numpy()
    array([1, 3], dtype=int32)
    """
    x = convert_to_tensor(tensor)
    m = _core.data_of(convert_to_tensor(mask), "boolean_mask")
    if m.dtype != np.bool_:
        # TensorFlow takes a numeric mask as "nonzero is true" (NaN included)
        if m.dtype.kind not in "iufc":
            raise InvalidArgumentError("boolean_mask: mask must be bool or numeric (expected "
                                       "bool, got %s)" % ("string" if m.dtype.kind == "O"
                                                          else m.dtype))
        m = m != 0
    given = axis = 0 if axis is None else int(axis)
    if axis < 0:
        axis += x._value.ndim
    k = m.ndim
    if not 0 <= axis <= x._value.ndim - k:
        raise InvalidArgumentError("boolean_mask: axis %d is out of range for a mask of rank %d "
                                   "on a tensor of rank %d (expected -%d <= axis <= %d)"
                                   % (given, k, x._value.ndim, x._value.ndim,
                                      x._value.ndim - k))
    if k == 0 or x._value.shape[axis:axis + k] != m.shape:
        raise InvalidArgumentError("boolean_mask: mask shape must match the tensor's shape at "
                                   "axis %d (expected %s, got %s)"
                                   % (axis, list(x._value.shape[axis:axis + k]),
                                      list(m.shape)))
    return execute(getitem, x, key=(builtins_slice(None),) * axis + (m,))


def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """The block of ``input_`` starting at ``begin`` with extent ``size`` (-1: to the end)."""
    x = convert_to_tensor(input_)
    shape = x._value.shape
    begin = as_shape("slice", begin, "begin")
    size = as_shape("slice", size, "size")
    if len(begin) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError("slice: begin and size need one entry per axis (expected "
                                   "%d, got %d and %d)" % (len(shape), len(begin), len(size)))
    key = []
    for i, (b, s, d) in enumerate(zip(begin, size, shape)):
        e = d if s == -1 else b + s
        if not (0 <= b <= d and s >= -1 and b <= e <= d):
            raise InvalidArgumentError("slice: axis %d: begin %d with size %d does not fit "
                                       "(expected 0 <= begin <= begin + size <= %d)"
                                       % (i, b, s, d))
        # (size -1 as an open end: a trace replayed at other sizes slices to their end)
        key.append(builtins_slice(b, None if s == -1 else e))
    return execute(getitem, x, key=tuple(key))


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """``input_[begin:end:strides]`` with TensorFlow's bit masks (bit i applies to entry i)."""
    x = convert_to_tensor(input_)
    begin = as_shape("strided_slice", begin, "begin")
    end = as_shape("strided_slice", end, "end")
    strides = (1,) * len(begin) if strides is None else as_shape("strided_slice", strides,
                                                                  "strides")
    if not len(begin) == len(end) == len(strides):
        raise InvalidArgumentError("strided_slice: begin, end and strides need the same length "
                                   "(got %d, %d, %d)" % (len(begin), len(end), len(strides)))
    if 0 in strides:
        raise InvalidArgumentError("strided_slice: strides must be non-zero (got %s)"
                                   % list(strides))
    key = []
    for i in builtins_range(len(begin)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(begin[i])
        else:
            key.append(builtins_slice(None if begin_mask & bit else begin[i],
                                      None if end_mask & bit else end[i], strides[i]))
    return execute(getitem, x, key=tuple(key))


def reverse(tensor, axis, name=None):
    """``tensor`` with the order of entries reversed along each axis in ``axis``."""
    if type(tensor) in COMPOSITE_TYPES:
        return composite_call("reverse", tensor, tensor, axis)
    x = convert_to_tensor(tensor)
    axes = normalize_axis("reverse", axis, x._value.ndim) or ()
    key = tuple(builtins_slice(None, None, -1) if a in axes else builtins_slice(None)
                for a in builtins_range(x._value.ndim))
    return execute(getitem, x, key=key)


def repeat(input, repeats, axis=None, name=None):
    """Repeat each entry ``repeats`` times along ``axis`` (the flattened input when None)."""
    x = convert_to_tensor(input)
    if axis is None or x._value.ndim == 0:     # a scalar repeats as a 1-D tensor, as in TF
        x = reshape(x, [-1])
        axis = 0 if axis is None else axis
    rank = x._value.ndim
    # TensorFlow checks the axis in Python: a ValueError, not InvalidArgumentError
    if isinstance(axis, (int, np.integer)) and not -rank <= axis < rank:
        raise ValueError("repeat: axis=%d out of bounds: expected %d<=axis<%d"
                         % (axis, -rank, rank))
    ax = single_axis("repeat", axis, rank)
    n = x._value.shape[ax]
    try:
        reps = np.asarray(_core.data_of(repeats, "repeat") if isinstance(repeats, _core.Tensor)
                          else repeats)
    except ValueError:      # a ragged list
        raise InvalidArgumentError("repeat: repeats must be an int or a list of ints (got %r)"
                                   % (repeats,)) from None
    if reps.dtype.kind not in "iu" or reps.ndim > 1 or (reps.ndim == 1 and reps.size != n) \
            or (reps.size and reps.min() < 0):
        raise InvalidArgumentError("repeat: repeats must be a non-negative int or one per entry "
                                   "(expected a scalar or length %d, got %s)"
                                   % (n, reps.tolist()))
    # the output length in Python ints: NumPy's own sum of the repeats can wrap around
    if reps.ndim == 0:
        total = n * int(reps)
    elif reps.size and int(reps.max()) > (2 ** 63 - 1) // reps.size:
        total = sum(int(r) for r in reps.tolist())
    else:
        total = int(reps.sum(dtype=np.int64))
    shape = x._value.shape
    check_output_size("repeat", shape[:ax] + (total,) + shape[ax + 1:], x._value.dtype,
                      "repeats")
    check_output_size("repeat", (total,), np.int64, "repeats")     # the gather's indices
    try:
        src = np.repeat(np.arange(n), reps)
    except MemoryError as e:
        raise _core.out_of_memory_error("repeat", e) from None
    return execute(getitem, x, key=(builtins_slice(None),) * ax + (src,))


def meshgrid(*args, indexing="xy", name=None):
    """Coordinate grids from 1-D tensors (``indexing='xy'``: Cartesian, ``'ij'``: matrix)."""
    if indexing not in ("xy", "ij"):
        raise InvalidArgumentError("meshgrid: indexing must be 'xy' or 'ij' (got %r)" % indexing)
    # each argument converts on its own (no promotion), and all must share the first's dtype
    xs = [reshape(convert_to_tensor(a), [-1]) for a in args]
    for i, x in enumerate(xs[1:], 1):
        if x.dtype != xs[0].dtype:
            raise InvalidArgumentError("meshgrid: all inputs must have one dtype (expected %s "
                                       "as input 0, got %s for input %d)"
                                       % (xs[0].dtype.name, x.dtype.name, i))
    n = len(xs)
    sizes = [x._value.size for x in xs]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(xs):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        shape = [1] * n
        shape[pos] = sizes[pos]
        out.append(broadcast_to(reshape(x, shape), sizes))
    return out


# ---- tensor_scatter_nd_*: a copy of a tensor with updates written at multi-indices --------
# Each op takes the indices as a NumPy key (one index array per addressed axis, as
# gather_nd builds), so its gradients are getitem/index_backward and the ops themselves:
# every order works with no extra code.

def _scatter_fwd(ufunc_at):
    def forward(x, u, key):
        out = np.array(x, copy=True)
        if ufunc_at is None:
            out[key] = u
        else:
            ufunc_at(out, key, u)   # repeated indices combine (add up, or min/max)
        return out
    return forward


def _scatter_min_max_grad(g, ans, inputs, attrs, needs):
    # TensorFlow's rule: the gradient goes to whichever of x and the updates gave each
    # output entry, split evenly between ties
    x, u = inputs
    key = attrs["key"]
    x_won = cast(equal(x, ans), g.dtype)
    u_won = cast(equal(u, execute(getitem, ans, key=key)), g.dtype)
    winners = x_won + execute(_index_backward, u_won, key=key,
                              shape=x._value.shape)
    share = g / winners
    return [share * x_won, execute(getitem, share, key=key) * u_won]


def _zeros_at(g, key):
    # g with the entries at key set to zero: what an update overwrote gets no gradient
    return execute(tensor_scatter_nd_update_op, g, zeros_like(execute(getitem, g, key=key)),
                   key=key)


# out = x; out[key] = u
tensor_scatter_nd_update_op = defop(
    "tensor_scatter_nd_update", _scatter_fwd(None), kinds=ALL + "c",
    grads=[lambda g, ans, x, u, key: _zeros_at(g, key),
           lambda g, ans, x, u, key: execute(getitem, g, key=key)])
# out = x; out[key] += u
tensor_scatter_nd_add_op = defop(
    "tensor_scatter_nd_add", _scatter_fwd(np.add.at), kinds=NUMERIC + "c",
    grads=[lambda g, ans, x, u, key: g,
           lambda g, ans, x, u, key: execute(getitem, g, key=key)])
# out = x; out[key] -= u
tensor_scatter_nd_sub_op = defop(
    "tensor_scatter_nd_sub", _scatter_fwd(np.subtract.at), kinds=NUMERIC + "c",
    grads=[lambda g, ans, x, u, key: g,
           lambda g, ans, x, u, key: -execute(getitem, g, key=key)])
# out = x; out[key] = min(out[key], u)
tensor_scatter_nd_min_op = defop(
    "tensor_scatter_nd_min", _scatter_fwd(np.minimum.at), kinds=NUMERIC,
    joint_grad=_scatter_min_max_grad, nin=2, attrs=("key",))
# out = x; out[key] = max(out[key], u)
tensor_scatter_nd_max_op = defop(
    "tensor_scatter_nd_max", _scatter_fwd(np.maximum.at), kinds=NUMERIC,
    joint_grad=_scatter_min_max_grad, nin=2, attrs=("key",))


def _tensor_scatter(op, tensor, indices, updates):
    opname = op.name
    x = convert_to_tensor(tensor)
    u = convert_to_tensor(updates, dtype=x.dtype) if not isinstance(
        updates, (_core.Tensor, _core.VariableBase)) else convert_to_tensor(updates)
    idx = _int_indices(opname, indices)
    shape = x._value.shape
    if idx.ndim < 1 or not 1 <= idx.shape[-1] <= len(shape):
        raise InvalidArgumentError("%s: indices must have shape [..., q] with 1 <= q <= "
                                   "rank(tensor) (got indices %s, tensor %s)"
                                   % (opname, list(idx.shape), list(shape)))
    q = idx.shape[-1]
    want = idx.shape[:-1] + shape[q:]
    if u._value.shape != want:
        raise InvalidArgumentError("%s: updates have the wrong shape (expected %s, got %s)"
                                   % (opname, list(want), list(u._value.shape)))
    key = []
    for j in builtins_range(q):
        col = idx[..., j]
        _check_range(opname, col, shape[j], "axis %d of tensor" % j)
        key.append(col)
    return execute(op, x, u, key=tuple(key))


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` written at ``indices`` (shape ``[..., q]``).

    >>> fe.tensor_scatter_nd_update([1, 2, 3, 4], [[1], [3]], [9, 8]).numpy()
    array([1, 9, 3, 8], dtype=int32)
    """
    return _tensor_scatter(tensor_scatter_nd_update_op, tensor, indices, updates)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` added at ``indices`` (repeats accumulate).

    >>> fe.tensor_scatter_nd_add([1, 2, 3], [[0], [0]], [10, 20]).numpy()
    array([31,  2,  3], dtype=int32)
    """
    return _tensor_scatter(tensor_scatter_nd_add_op, tensor, indices, updates)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices`` (repeats accumulate)."""
    return _tensor_scatter(tensor_scatter_nd_sub_op, tensor, indices, updates)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of ``tensor`` where each entry at ``indices`` is the minimum of itself and
    its updates."""
    return _tensor_scatter(tensor_scatter_nd_min_op, tensor, indices, updates)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of ``tensor`` where each entry at ``indices`` is the maximum of itself and
    its updates."""
    return _tensor_scatter(tensor_scatter_nd_max_op, tensor, indices, updates)


def _ints(value, opname, argname):
    """An integer argument (Python value or tensor) as an int64 ndarray."""
    arr = np.asarray(_core.data_of(value, opname) if isinstance(value, _core.Tensor) else value)
    if arr.dtype.kind not in "iu" and not (arr.size == 0 and arr.dtype.kind == "f"):
        raise InvalidArgumentError("%s: %s must be integers (got dtype %s)"
                                   % (opname, argname, arr.dtype))
    return arr.astype(np.int64)


def _take(x, key):
    return execute(getitem, x, key=key)


def _unravel_fwd(idx, shape):
    if shape.ndim != 1 or idx.ndim > 1:
        raise InvalidArgumentError("unravel_index: indices must be a scalar or a vector and "
                                   "dims a vector (got shapes %s and %s)"
                                   % (list(idx.shape), list(shape.shape)))
    if np.any(shape < 0):
        raise InvalidArgumentError("unravel_index: dims must be non-negative (got %s)"
                                   % shape.tolist())
    total = int(np.prod(shape))
    if idx.size and (idx.min() < 0 or idx.max() >= total):
        raise InvalidArgumentError("unravel_index: index is out of bound as with dims "
                                   "(expected 0 <= index < %d, got %s)" % (total, idx.tolist()))
    if not shape.size:
        return np.zeros((0,) + idx.shape, idx.dtype)
    return np.stack(np.unravel_index(idx, tuple(shape.tolist()))).astype(idx.dtype)


unravel_index_op = defop("unravel_index", _unravel_fwd, kinds=INT, nin=2,
                         no_grad="returns integer coordinates")


def unravel_index(indices, dims, name=None):
    """The coordinates of flat ``indices`` in an array of shape ``dims``: shape
    ``(len(dims),) + indices.shape``, of ``indices``' dtype.

    >>> fe.unravel_index([2, 5], [3, 3]).numpy()
    array([[0, 1],
           [2, 2]], dtype=int32)
    """
    idx = convert_to_tensor(indices)
    if idx.dtype.name not in ("int32", "int64"):
        raise InvalidArgumentError("unravel_index: indices must be int32 or int64 (got %s)"
                                   % idx.dtype.name)
    return execute(unravel_index_op, idx, convert_to_tensor(dims, idx.dtype))


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Split ``data`` into ``num_partitions`` tensors: output ``i`` holds the slices of
    ``data`` (over the axes of ``partitions``) where ``partitions == i``, in order.

    >>> [p.numpy() for p in fe.dynamic_partition([10, 20, 30], [1, 0, 1], 2)]
    [array([20], dtype=int32), array([10, 30], dtype=int32)]
    """
    x = convert_to_tensor(data)
    parts = _ints(partitions, "dynamic_partition", "partitions")
    n = as_int("dynamic_partition", num_partitions, "num_partitions")
    if n < 1:
        raise InvalidArgumentError("dynamic_partition: num_partitions must be >= 1 (got %d)"
                                   % n)
    k = parts.ndim
    if x._value.shape[:k] != parts.shape:
        raise InvalidArgumentError("dynamic_partition: partitions' shape must be a prefix of "
                                   "data's (got %s and %s)" % (list(parts.shape),
                                                               list(x._value.shape)))
    flat_parts = parts.reshape(-1)
    bad = np.nonzero((flat_parts < 0) | (flat_parts >= n))[0]
    if bad.size:
        raise InvalidArgumentError("dynamic_partition: partitions[%d] = %d is not in [0, %d)"
                                   % (bad[0], flat_parts[bad[0]], n))
    rows = reshape(x, (-1,) + tuple(x._value.shape[k:])) if k != 1 else x
    return [_take(rows, (np.nonzero(flat_parts == i)[0],)) for i in builtins.range(n)]


def dynamic_stitch(indices, data, name=None):
    """Interleave ``data`` into one tensor: ``merged[indices[m][i, ...]] = data[m][i, ...]``
    (a later ``m`` wins where indices repeat; rows no index names are zeros).

    >>> fe.dynamic_stitch([[0, 2], [1]], [[1., 3.], [2.]]).numpy()
    array([1., 2., 3.], dtype=float32)
    """
    if not isinstance(indices, (list, tuple)) or not isinstance(data, (list, tuple)):
        raise TypeError("dynamic_stitch: indices and data must be lists of tensors (got %s "
                        "and %s)" % (type(indices).__name__, type(data).__name__))
    if len(indices) != len(data) or not indices:
        raise InvalidArgumentError("dynamic_stitch: indices and data need the same, non-zero "
                                   "number of tensors (got %d and %d)"
                                   % (len(indices), len(data)))
    idx = [_ints(i, "dynamic_stitch", "indices") for i in indices]
    ds = convert_same(*data)
    inner = None
    rows = []
    for m, (i, d) in enumerate(zip(idx, ds)):
        dshape = d._value.shape
        if dshape[:i.ndim] != i.shape:
            raise InvalidArgumentError("dynamic_stitch: data[%d].shape must start with "
                                       "indices[%d].shape (got %s and %s)"
                                       % (m, m, list(dshape), list(i.shape)))
        tail = tuple(dshape[i.ndim:])
        if inner is None:
            inner = tail
        elif tail != inner:
            raise InvalidArgumentError("dynamic_stitch: data[%d] has inner shape %s, but "
                                       "data[0] has %s" % (m, list(tail), list(inner)))
        rows.append(reshape(d, (-1,) + inner))
    flat_idx = np.concatenate([i.reshape(-1) for i in idx])
    if flat_idx.size and flat_idx.min() < 0:
        raise InvalidArgumentError("dynamic_stitch: indices must be non-negative (got %d)"
                                   % flat_idx.min())
    size = int(flat_idx.max()) + 1 if flat_idx.size else 0
    src = np.full(size, flat_idx.size, np.int64)   # an unnamed row: the zero row at the end
    src[flat_idx] = np.arange(flat_idx.size)       # NumPy keeps the last write of a repeat
    pool = concat(rows + [zeros((1,) + inner, dtype=ds[0].dtype)], axis=0)
    return _take(pool, (src,))


def invert_permutation(x, name=None):
    """The inverse of the permutation ``x`` of ``0..n-1`` (``y[x[i]] = i``)."""
    p = _int_indices("invert_permutation", convert_to_tensor(x), "x")
    if p.ndim != 1:
        raise InvalidArgumentError("invert_permutation: x must be 1-D (got shape %s)"
                                   % list(p.shape))
    n = p.size
    if n and (p.min() < 0 or p.max() >= n):
        bad = p[(p < 0) | (p >= n)][0]
        raise InvalidArgumentError("invert_permutation: %d is not between 0 and %d" % (bad, n))
    seen = np.bincount(p, minlength=n) if n else np.zeros(0, np.int64)
    if n and seen.max() > 1:
        raise InvalidArgumentError("invert_permutation: %d is duplicated in the input"
                                   % np.argmax(seen > 1))
    out = np.empty(n, p.dtype)
    out[p] = np.arange(n, dtype=p.dtype)
    return _core.wrap(out)


# names that moved to other topic modules when ops/ was regrouped: the old paths warn for
# one release
__getattr__ = moved_names(__name__, {
    **dict.fromkeys(("segment_sum", "unsorted_segment_sum"), "segment_ops"),
})
