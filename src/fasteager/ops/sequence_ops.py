"""TensorFlow's array ops that move entries by computed positions: ``roll``,
``reverse_sequence``, ``dynamic_partition``/``dynamic_stitch``, ``unique``,
``searchsorted``, ``sequence_mask``, ``unravel_index``, the fixed-width histograms and the
block rearrangements ``space_to_batch_nd`` / ``batch_to_space``.

Some are ops of their own, so that ``fe.function`` replays them with new values:
``searchsorted`` and ``unravel_index`` (integer results, no gradient), ``unique`` and
``unique_with_counts`` (TensorFlow registers no gradient: a tape raises its LookupError)
and ``reverse_sequence`` (its own adjoint). The others compute positions in NumPy from the index arguments
(``_core.data_of``, which tells a tracing ``fe.function`` that the graph depends on those
values, so it runs such a function eagerly) and move the entries through ``getitem``,
``reshape``, ``transpose`` and ``pad``, whose gradients already exist; outputs that are
positions or counts are integer constants, as in TensorFlow (no gradient).
"""
import builtins
import collections

import numpy as np

from .. import _core
from .._core import convert_to_tensor
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from .array_ops import concat, getitem, ones_like, pad, reshape, stack, transpose, zeros
from .math_ops import cast, clip_by_value, floor, less, multiply, subtract, truediv
from .registry import ANY_DTYPE, INT, NUMERIC, as_int, defop, execute, normalize_axis
from .registry import unregistered_gradient

__all__ = ["batch_to_space", "dynamic_partition", "dynamic_stitch", "histogram_fixed_width",
           "histogram_fixed_width_bins", "parallel_stack", "reverse_sequence", "roll",
           "searchsorted", "sequence_mask", "space_to_batch", "space_to_batch_nd", "unique",
           "unique_with_counts", "unravel_index"]

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _ints(value, opname, argname):
    """An integer argument (Python value or tensor) as an int64 ndarray."""
    arr = np.asarray(_core.data_of(value, opname) if isinstance(value, _core.Tensor) else value)
    if arr.dtype.kind not in "iu" and not (arr.size == 0 and arr.dtype.kind == "f"):
        raise InvalidArgumentError("%s: %s must be integers (got dtype %s)"
                                   % (opname, argname, arr.dtype))
    return arr.astype(np.int64)


def _take(x, key):
    return execute(getitem, x, key=key)


def roll(input, shift, axis, name=None):
    """``input`` with its entries shifted by ``shift`` along ``axis`` (both may be lists of
    the same length; shifts of a repeated axis add up), wrapping around.

    >>> fe.roll([0, 1, 2, 3, 4], shift=2, axis=0).numpy()
    array([3, 4, 0, 1, 2], dtype=int32)
    """
    x = convert_to_tensor(input)
    shifts = _ints(shift, "roll", "shift").reshape(-1)
    axes = _ints(axis, "roll", "axis").reshape(-1)
    if shifts.size != axes.size:
        raise InvalidArgumentError("roll: shift and axis must have the same size (got %d "
                                   "shifts and %d axes)" % (shifts.size, axes.size))
    from ..numpy._shapes import roll as numpy_roll  # the same gather, NumPy's rules
    return numpy_roll(x, shifts.tolist(), axes.tolist()) if shifts.size else x


def _searchsorted_fwd(seq, vals, side, out_type):
    rows = int(np.prod(seq.shape[:-1]))      # (reshape(-1, 0) cannot tell the rows)
    s2 = seq.reshape(rows, seq.shape[-1])
    v2 = vals.reshape(rows, vals.shape[-1])
    out = np.empty(v2.shape, out_type)
    for i in builtins.range(s2.shape[0]):
        out[i] = np.searchsorted(s2[i], v2[i], side=side)
    return out.reshape(vals.shape)


searchsorted_op = defop("searchsorted", _searchsorted_fwd, kinds=NUMERIC, same_dtype=True,
                        nin=2, attrs=("side", "out_type"), no_grad="returns integer positions")


def searchsorted(sorted_sequence, values, side="left", out_type=np.int32, name=None):
    """Where each of ``values`` would go in ``sorted_sequence`` to keep it sorted, row by
    row along the innermost axis (``side='left'``: before equal entries, ``'right'``:
    after them); the leading axes of both must match.

    >>> fe.searchsorted([0, 3, 9, 10], [2, 9]).numpy()
    array([1, 2], dtype=int32)
    """
    from .math_ops import convert_same
    if side not in ("left", "right"):
        raise ValueError("searchsorted: side must be either 'right' or 'left' (got %r)"
                         % (side,))
    seq, vals = convert_same(sorted_sequence, values)
    sshape, vshape = seq._value.shape, vals._value.shape
    if not sshape or not vshape:
        raise InvalidArgumentError("searchsorted: sorted_sequence and values must have rank "
                                   ">= 1 (got shapes %s and %s)" % (list(sshape), list(vshape)))
    if sshape[:-1] != vshape[:-1]:
        raise InvalidArgumentError("searchsorted: the leading dimensions of sorted_sequence "
                                   "and values must match (got shapes %s and %s)"
                                   % (list(sshape), list(vshape)))
    d = as_dtype(out_type)
    if d.name not in ("int32", "int64"):
        raise InvalidArgumentError("searchsorted: out_type must be int32 or int64 (got %s)"
                                   % d.name)
    return execute(searchsorted_op, seq, vals, side=side, out_type=d.as_numpy_dtype)


def sequence_mask(lengths, maxlen=None, dtype=np.bool_, name=None):
    """``mask[..., j] = j < lengths[...]`` for ``j < maxlen`` (default: the largest length).

    >>> fe.sequence_mask([1, 3], 4).numpy()
    array([[ True, False, False, False],
           [ True,  True,  True, False]])
    """
    from .array_ops import expand_dims
    from .array_ops import range as fe_range
    lens = convert_to_tensor(lengths)
    if lens.dtype.is_floating or lens.dtype.name == "bool":
        raise InvalidArgumentError("sequence_mask: lengths must be integers (got %s)"
                                   % lens.dtype.name)
    if maxlen is None:
        data = _core.data_of(lens, "sequence_mask")
        maxlen = int(data.max()) if data.size else 0
        maxlen = builtins.max(maxlen, 0)
    else:
        maxlen = as_int("sequence_mask", maxlen, "maxlen")
        if maxlen < 0:
            raise InvalidArgumentError("sequence_mask: maxlen must be >= 0 (got %d)" % maxlen)
    mask = less(fe_range(maxlen, dtype=lens.dtype), expand_dims(lens, -1))
    d = as_dtype(dtype)
    return mask if d.name == "bool" else cast(mask, d)


def _unique_arrays(x, out_idx):
    """(y, idx, count) of 1-D ``x``, in TensorFlow's order: that of first occurrence."""
    if x.ndim != 1:
        raise InvalidArgumentError("unique: x must be a 1-D vector (got shape %s)"
                                   % list(x.shape))
    # (every NaN is a value of its own, as TensorFlow's hash table compares them)
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, equal_nan=False)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return (x[first[order]], rank[inverse.reshape(-1)].astype(out_idx),
            counts[order].astype(out_idx))


# TensorFlow registers no gradient for either: a tape through them raises its LookupError
unique_op = defop("unique", lambda x, out_idx: _unique_arrays(x, out_idx)[:2], kinds=ANY_DTYPE,
                  same_dtype=False, multi=True, nin=1, attrs=("out_idx",),
                  joint_grad=unregistered_gradient("unique", "Unique"))
unique_with_counts_op = defop(
    "unique_with_counts", _unique_arrays, kinds=ANY_DTYPE, same_dtype=False, multi=True, nin=1,
    attrs=("out_idx",), joint_grad=unregistered_gradient("unique_with_counts", "UniqueWithCounts"))


def _out_idx(out_idx, opname):
    d = as_dtype(out_idx)
    if d.name not in ("int32", "int64"):
        raise InvalidArgumentError("%s: out_idx must be int32 or int64 (got %s)"
                                   % (opname, d.name))
    return d.as_numpy_dtype


def unique(x, out_idx=np.int32, name=None):
    """The distinct entries of 1-D ``x`` in order of first occurrence, and for each entry
    of ``x`` the index of its value in ``y``: ``Unique(y, idx)``.

    >>> fe.unique([1, 1, 2, 4, 4]).y.numpy()
    array([1, 2, 4], dtype=int32)
    """
    y, idx = execute(unique_op, convert_to_tensor(x), out_idx=_out_idx(out_idx, "unique"))
    return Unique(y, idx)


def unique_with_counts(x, out_idx=np.int32, name=None):
    """``unique`` plus how many times each distinct value occurs:
    ``UniqueWithCounts(y, idx, count)``."""
    return UniqueWithCounts(*execute(unique_with_counts_op, convert_to_tensor(x),
                                     out_idx=_out_idx(out_idx, "unique_with_counts")))


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


def _reverse_sequence_fwd(x, lens, seq_axis, batch_axis):
    lens = lens.astype(np.int64).reshape(-1)
    ns = x.shape[seq_axis]
    bad = np.nonzero((lens < 0) | (lens > ns))[0]
    if bad.size:
        raise InvalidArgumentError("reverse_sequence: seq_lengths[%d] = %d is not in [0, %d] "
                                   "(the size of seq_axis)" % (bad[0], lens[bad[0]], ns))
    t = np.arange(ns)[None, :]
    src = np.where(t < lens[:, None], lens[:, None] - 1 - t, t)      # (batch, seq)
    shape = [1] * x.ndim
    shape[batch_axis], shape[seq_axis] = lens.size, ns
    idx = (src if batch_axis < seq_axis else src.T).reshape(shape)
    return np.take_along_axis(x, np.broadcast_to(idx, x.shape), axis=seq_axis)


# reversing the same prefixes again undoes it: the op is its own adjoint
reverse_sequence_op = defop(
    "reverse_sequence", _reverse_sequence_fwd, kinds=ANY_DTYPE, same_dtype=False, nin=2,
    attrs=("seq_axis", "batch_axis"),
    grads=[lambda g, ans, x, lens, seq_axis, batch_axis: execute(
        reverse_sequence_op, g, lens, seq_axis=seq_axis, batch_axis=batch_axis), None])


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):
    """Reverse the first ``seq_lengths[b]`` entries along ``seq_axis`` of each slice ``b``
    along ``batch_axis`` (default 0); the rest stay in place.

    >>> fe.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1).numpy()
    array([[2, 1, 3],
           [6, 5, 4]], dtype=int32)
    """
    x = convert_to_tensor(input)
    if seq_axis is None:
        raise TypeError("reverse_sequence: seq_axis must be an int (got None)")
    rank = x._value.ndim
    sa = normalize_axis("reverse_sequence", seq_axis, rank, "seq_axis")[0]
    ba = normalize_axis("reverse_sequence", 0 if batch_axis is None else batch_axis, rank,
                        "batch_axis")[0]
    if sa == ba:
        raise InvalidArgumentError("reverse_sequence: seq_axis and batch_axis must differ "
                                   "(both are %d)" % sa)
    given = isinstance(seq_lengths, (_core.Tensor, _core.VariableBase))
    lens = convert_to_tensor(seq_lengths, None if given or np.size(seq_lengths) else np.int32)
    if not lens.dtype.is_integer:
        raise InvalidArgumentError("reverse_sequence: seq_lengths must be integers (got %s)"
                                   % lens.dtype.name)
    nb = x._value.shape[ba]
    if lens._value.shape != (nb,):
        raise InvalidArgumentError("reverse_sequence: seq_lengths must be a vector with one "
                                   "entry per batch (expected shape [%d], got %s)"
                                   % (nb, list(lens._value.shape)))
    return execute(reverse_sequence_op, x, lens, seq_axis=sa, batch_axis=ba)


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
    from .math_ops import convert_same
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


def parallel_stack(values, name="parallel_stack"):
    """``fe.stack(values)``. TensorFlow allows it only in graphs (eagerly it raises
    RuntimeError); fasteager's functions may run their Python eagerly, so it works in both."""
    return stack(values, axis=0)


def _histogram_args(values, value_range, nbins, dtype, opname):
    v = convert_to_tensor(values)
    r = convert_to_tensor(value_range, v.dtype)
    n = as_int(opname, nbins, "nbins")
    if n <= 0:
        raise InvalidArgumentError("%s: nbins should be a positive number (got %d)"
                                   % (opname, n))
    lo_hi = _core.data_of(r, opname)
    if lo_hi.shape != (2,):
        raise InvalidArgumentError("%s: value_range must have shape [2] (got %s)"
                                   % (opname, list(lo_hi.shape)))
    if not lo_hi[0] < lo_hi[1]:
        raise InvalidArgumentError("%s: value_range should satisfy value_range[0] < "
                                   "value_range[1] (got %s)" % (opname, lo_hi.tolist()))
    d = as_dtype(dtype)
    if d.name not in ("int32", "int64"):
        raise InvalidArgumentError("%s: dtype must be int32 or int64 (got %s)" % (opname, d.name))
    return v, r, n, d


def _bins(v, r, n):
    """TensorFlow's bin of each value: floor(nbins * (v - lo) / (hi - lo)), clipped."""
    scaled = truediv(subtract(v, r[0]), subtract(r[1], r[0]))
    idx = floor(multiply(scaled, np.asarray(n, scaled.dtype.as_numpy_dtype)))
    return clip_by_value(cast(idx, np.int64), 0, n - 1)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=np.int32, name=None):
    """The bin of each of ``values`` among ``nbins`` equal bins over ``value_range``
    (values outside go to the first or last bin).

    >>> fe.histogram_fixed_width_bins([-1., 1.5, 15.], [0., 5.], nbins=5).numpy()
    array([0, 1, 4], dtype=int32)
    """
    v, r, n, d = _histogram_args(values, value_range, nbins, dtype,
                                 "histogram_fixed_width_bins")
    return cast(_bins(v, r, n), d)


def histogram_fixed_width(values, value_range, nbins=100, dtype=np.int32, name=None):
    """How many of ``values`` fall in each of ``nbins`` equal bins over ``value_range``
    (values outside count in the first or last bin).

    >>> fe.histogram_fixed_width([-1., 0., 1.5, 2., 5., 15.], [0., 5.], nbins=5).numpy()
    array([2, 1, 1, 0, 2], dtype=int32)
    """
    from .indexing_ops import unsorted_segment_sum
    v, r, n, d = _histogram_args(values, value_range, nbins, dtype, "histogram_fixed_width")
    bins = reshape(_bins(v, r, n), [-1])
    return cast(unsorted_segment_sum(ones_like(bins), bins, n), d)


def _block_args(x, block_shape, pairs, opname, argname):
    block = _ints(block_shape, opname, "block_shape").reshape(-1)
    m = block.size
    if m < 1 or np.any(block < 1):
        raise InvalidArgumentError("%s: block_shape must be a non-empty list of positive ints "
                                   "(got %s)" % (opname, block.tolist()))
    p = _ints(pairs, opname, argname)
    if p.shape != (m, 2) or np.any(p < 0):
        raise InvalidArgumentError("%s: %s must be non-negative, of shape [%d, 2] (got %s)"
                                   % (opname, argname, m, p.tolist()))
    if x._value.ndim < m + 1:
        raise InvalidArgumentError("%s: input must have rank >= %d, one batch axis and one "
                                   "per block dimension (got rank %d)"
                                   % (opname, m + 1, x._value.ndim))
    return block.tolist(), p.tolist()


def space_to_batch_nd(input, block_shape, paddings, name=None):
    """Zero-pad the ``M`` spatial axes after the batch axis by ``paddings``, cut them into
    ``block_shape`` blocks and move each block offset into the batch axis.

    >>> fe.space_to_batch_nd(fe.reshape(fe.range(4.), (1, 2, 2, 1)), [2, 2],
    ...                      [[0, 0], [0, 0]]).shape
    TensorShape([4, 1, 1, 1])
    """
    x = convert_to_tensor(input)
    block, pads = _block_args(x, block_shape, paddings, "space_to_batch_nd", "paddings")
    m = len(block)
    shape = list(x._value.shape)
    rest = shape[m + 1:]
    padded = [shape[1 + i] + pads[i][0] + pads[i][1] for i in builtins.range(m)]
    for i in builtins.range(m):
        if padded[i] % block[i]:
            raise InvalidArgumentError("space_to_batch_nd: padded_shape[%d]=%d is not divisible "
                                       "by block_shape[%d]=%d" % (i, padded[i], i, block[i]))
    if any(a or b for a, b in pads):
        x = pad(x, [[0, 0]] + pads + [[0, 0]] * len(rest))
    split = [shape[0]]
    for i in builtins.range(m):
        split += [padded[i] // block[i], block[i]]
    x = reshape(x, split + rest)
    # (batch, o1, b1, o2, b2, ..., rest) -> (b1, b2, ..., batch, o1, o2, ..., rest)
    perm = [2 + 2 * i for i in builtins.range(m)] + [0] + [1 + 2 * i for i in builtins.range(m)]
    perm += list(builtins.range(1 + 2 * m, 1 + 2 * m + len(rest)))
    x = transpose(x, perm)
    return reshape(x, [shape[0] * int(np.prod(block))] +
                   [padded[i] // block[i] for i in builtins.range(m)] + rest)


def space_to_batch(input, block_shape, paddings, name=None):
    """TensorFlow 2's ``tf.space_to_batch``: ``space_to_batch_nd``."""
    return space_to_batch_nd(input, block_shape, paddings, name)


def batch_to_space(input, block_shape, crops, name=None):
    """The inverse of ``space_to_batch_nd``: move block offsets from the batch axis back into
    the ``M`` spatial axes, then crop them by ``crops``."""
    x = convert_to_tensor(input)
    block, crop = _block_args(x, block_shape, crops, "batch_to_space", "crops")
    m = len(block)
    shape = list(x._value.shape)
    prod = int(np.prod(block))
    if shape[0] % prod:
        raise InvalidArgumentError("batch_to_space: input batch dimension (%d) is not divisible "
                                   "by the product of block sizes (%d)" % (shape[0], prod))
    batch = shape[0] // prod
    spatial = shape[1:m + 1]
    rest = shape[m + 1:]
    full = [spatial[i] * block[i] for i in builtins.range(m)]
    for i in builtins.range(m):
        if crop[i][0] + crop[i][1] > full[i]:
            raise InvalidArgumentError("batch_to_space: crops[%d] = %s exceed the uncropped "
                                       "size %d" % (i, crop[i], full[i]))
    x = reshape(x, block + [batch] + spatial + rest)
    # (b1, ..., bM, batch, o1, ..., oM, rest) -> (batch, o1, b1, ..., oM, bM, rest)
    perm = [m]
    for i in builtins.range(m):
        perm += [m + 1 + i, i]
    perm += list(builtins.range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = reshape(transpose(x, perm), [batch] + full + rest)
    if any(a or b for a, b in crop):
        key = (builtins.slice(None),) + tuple(builtins.slice(a, full[i] - b)
                                              for i, (a, b) in enumerate(crop))
        x = _take(x, key)
    return x
