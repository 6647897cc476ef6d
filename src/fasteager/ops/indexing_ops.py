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
from .array_ops import (_index_backward, broadcast_to, getitem, reshape, transpose,
                        zeros_like)
from .registry import (ALL, COMPOSITE_TYPES, NUMERIC, as_int, as_shape, check_output_size,
                       composite_call, defop, execute, normalize_axis, single_axis)

convert_to_tensor = _core.convert_to_tensor
builtins_range = builtins.range
builtins_slice = builtins.slice


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
        from .math_ops import reduce_sum
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
    if axis is None:
        x = reshape(x, [-1])
        axis = 0
    ax = single_axis("repeat", axis, x._value.ndim)
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
    from .math_ops import convert_same
    xs = [reshape(a, [-1]) for a in convert_same(*args)]
    if indexing not in ("xy", "ij"):
        raise InvalidArgumentError("meshgrid: indexing must be 'xy' or 'ij' (got %r)" % indexing)
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


def _segment_ids(opname, segment_ids, lead_shape):
    ids = _int_indices(opname, segment_ids, "segment_ids")
    if ids.shape != tuple(lead_shape[:ids.ndim]) or ids.ndim == 0:
        raise InvalidArgumentError("%s: segment_ids must match the leading dimensions of data "
                                   "(expected a prefix of %s, got %s)"
                                   % (opname, list(lead_shape), list(ids.shape)))
    return ids


def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of ``data`` sharing a (sorted) segment id; ``max(id) + 1`` rows out.

    >>> fe.math.segment_sum([1., 2., 3.], [0, 0, 1]).numpy()
    array([3., 3.], dtype=float32)
    """
    x = convert_to_tensor(data)
    ids = _segment_ids("segment_sum", segment_ids, x._value.shape)
    if ids.ndim != 1:
        raise InvalidArgumentError("segment_sum: segment_ids must be 1-D (got shape %s)"
                                   % list(ids.shape))
    if ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0)):
        raise InvalidArgumentError("segment_sum: segment_ids must be sorted and non-negative "
                                   "(got %s)" % ids.tolist()[:10])
    num = int(ids.max()) + 1 if ids.size else 0
    return execute(_index_backward, x, key=(ids,), shape=(num,) + x._value.shape[1:])


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums of the entries of ``data`` per segment id (any order; negative ids are dropped).

    ``segment_ids`` covers the leading axes of ``data``; the result has ``num_segments``
    rows. The gradient gathers the incoming gradient at the ids.
    """
    x = convert_to_tensor(data)
    ids = _segment_ids("unsorted_segment_sum", segment_ids, x._value.shape)
    num = int(np.asarray(num_segments))
    if ids.size and ids.max() >= num:
        raise InvalidArgumentError("unsorted_segment_sum: segment id %d is out of range "
                                   "(expected < num_segments = %d)" % (ids.max(), num))
    out_shape = (num,) + x._value.shape[ids.ndim:]
    if ids.size and ids.min() < 0:
        keep = ids >= 0
        x = execute(getitem, x, key=keep)
        ids = ids[keep]
    return execute(_index_backward, x, key=(ids,), shape=out_shape)


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
    from .math_ops import cast, equal
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
