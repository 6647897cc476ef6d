"""Sequences and block rearrangements: ``roll``, ``reverse_sequence``, ``sequence_mask``,
``collapse_repeated``, ``parallel_stack``, ``space_to_batch_nd`` / ``batch_to_space``
and ``depth_to_space`` / ``space_to_depth``.

``reverse_sequence`` is an op of its own (its own adjoint), so that ``fe.function``
replays it with new values. The others compute positions in NumPy from the index arguments
(``_core.data_of``, which tells a tracing ``fe.function`` that the graph depends on those
values, so it runs such a function eagerly) and move the entries through ``getitem``,
``reshape``, ``transpose`` and ``pad``, whose gradients already exist; outputs that are
positions or counts are integer constants, as in TensorFlow (no gradient).
"""

import builtins

import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from .array_ops import expand_dims, pad, reshape, stack, transpose
from .elementwise_ops import cast, less
from .indexing_ops import _ints, _take
from .registry import ANY_DTYPE, as_int, defop, execute, moved_names, normalize_axis, single_axis
from .array_ops import range as fe_range

convert_to_tensor = _core.convert_to_tensor


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
    # shifts of one axis add up; each axis is then one gather (a getitem: the gradient
    # scatter-adds back)
    total = {}
    for sh, ax in zip(shifts.tolist(), axes.tolist()):
        ax = single_axis("roll", ax, x._value.ndim)
        total[ax] = total.get(ax, 0) + int(sh)
    for ax, sh in sorted(total.items()):
        size = x._value.shape[ax]
        if size:
            x = x[(builtins.slice(None),) * ax + ((np.arange(size) - sh) % size,)]
    return x


def sequence_mask(lengths, maxlen=None, dtype=np.bool_, name=None):
    """``mask[..., j] = j < lengths[...]`` for ``j < maxlen`` (default: the largest length).

    >>> fe.sequence_mask([1, 3], 4).numpy()
    array([[ True, False, False, False],
           [ True,  True,  True, False]])
    """
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


def parallel_stack(values, name="parallel_stack"):
    """``fe.stack(values)``. TensorFlow allows it only in graphs (eagerly it raises
    RuntimeError); fasteager's functions may run their Python eagerly, so it works in both."""
    return stack(values, axis=0)


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


# ---- depth_to_space / space_to_depth ------------------------------------------------------

def _block(opname, x, block_size, data_format):
    if data_format not in ("NHWC", "NCHW"):
        raise InvalidArgumentError("%s: data_format must be 'NHWC' or 'NCHW' (got %r)"
                                   % (opname, data_format))
    b = as_int(opname, block_size, "block_size")
    if b < 2:
        raise InvalidArgumentError("%s: block_size must be at least 2 (got %d)" % (opname, b))
    x = convert_to_tensor(x)
    if x._value.ndim != 4:
        raise InvalidArgumentError("%s: input must be 4-D (got shape %s)"
                                   % (opname, list(x._value.shape)))
    return (x if data_format == "NHWC" else transpose(x, (0, 2, 3, 1))), b


def _back(y, data_format):
    return y if data_format == "NHWC" else transpose(y, (0, 3, 1, 2))


def depth_to_space(input, block_size, data_format="NHWC", name=None):
    """Moves channel blocks into ``block_size x block_size`` spatial tiles.

    >>> fe.nn.depth_to_space(fe.reshape(fe.range(4.), [1, 1, 1, 4]), 2)[0, :, :, 0].numpy()
    array([[0., 1.],
           [2., 3.]], dtype=float32)
    """
    x, b = _block("depth_to_space", input, block_size, data_format)
    n, h, w, c = x._value.shape
    if c % (b * b):
        raise InvalidArgumentError("depth_to_space: input depth dimension %d should be "
                                   "divisible by: %d" % (c, b * b))
    y = transpose(reshape(x, (n, h, w, b, b, c // (b * b))), (0, 1, 3, 2, 4, 5))
    return _back(reshape(y, (n, h * b, w * b, c // (b * b))), data_format)


def space_to_depth(input, block_size, data_format="NHWC", name=None):
    """Moves each ``block_size x block_size`` spatial tile into the channels (the inverse
    of ``depth_to_space``)."""
    x, b = _block("space_to_depth", input, block_size, data_format)
    n, h, w, c = x._value.shape
    if h % b or w % b:
        raise InvalidArgumentError("space_to_depth: image width %d and height %d should be "
                                   "divisible by block_size: %d" % (w, h, b))
    y = transpose(reshape(x, (n, h // b, b, w // b, b, c)), (0, 1, 3, 2, 4, 5))
    return _back(reshape(y, (n, h // b, w // b, b * b * c)), data_format)


def collapse_repeated(labels, seq_length, name=None):
    """``(collapsed, new_lengths)``: each row's runs of repeated labels (within its
    ``seq_length``) merged into one, left-aligned and zero-padded to the longest row."""
    lab = _core.data_of(convert_to_tensor(labels), "collapse_repeated")
    lengths = np.asarray(_core.data_of(convert_to_tensor(seq_length), "collapse_repeated"))
    if lab.ndim != 2 or lengths.shape != (lab.shape[0],):
        raise InvalidArgumentError("collapse_repeated: labels must be [batch, time] and "
                                   "seq_length [batch] (got %s and %s)"
                                   % (list(lab.shape), list(lengths.shape)))
    rows = []
    for row, n in zip(lab, lengths):
        row = row[:int(n)]
        keep = np.ones(row.shape, bool)
        keep[1:] = row[1:] != row[:-1]
        rows.append(row[keep])
    width = max((r.size for r in rows), default=0)
    out = np.zeros((lab.shape[0], width), lab.dtype)
    for i, r in enumerate(rows):
        out[i, :r.size] = r
    return (_core.wrap(out),
            _core.wrap(np.array([r.size for r in rows], lengths.dtype)))


# names that moved to other topic modules when ops/ was regrouped: the old paths warn for
# one release
__getattr__ = moved_names(__name__, {
    **dict.fromkeys(("dynamic_partition", "dynamic_stitch", "unravel_index",
                     "unravel_index_op"), "indexing_ops"),
    **dict.fromkeys(("histogram_fixed_width", "histogram_fixed_width_bins"), "segment_ops"),
    **dict.fromkeys(("Unique", "UniqueWithCounts", "searchsorted", "searchsorted_op", "unique",
                     "unique_op", "unique_with_counts", "unique_with_counts_op"), "sort_ops"),
})
