"""TensorFlow's ops on ragged tensors (the handlers importing ``fasteager.ragged``
registers), and the ragged shape types ``RowPartition`` and ``DynamicRaggedShape``.

TensorFlow's elementwise ops take ragged tensors and keep their rows; so do its
reductions, concat, tile and map_fn. The core hands an op call with a RaggedTensor argument
to ``_dispatch_op`` (``fe.add(rt, 3)``, ``fe.math.sqrt(rt)`` ...); the Python-level
functions look their argument's type up in ``ops.registry.COMPOSITE_TYPES`` and reach the
handlers registered at the end of this module (through ``dispatch.register_type``).
Everything is made of differentiable ops on the flat values.
"""
import numpy as np

from ... import _core
from ...dtypes import as_dtype
from ...errors import InvalidArgumentError
from ...ops import elementwise_ops, nn_ops
from ...ops.array_ops import concat, fill, getitem, ones, reshape, tile, zeros
from ...ops.indexing_ops import gather, reverse
from ...ops.registry import ELEMENTWISE, as_shape, execute, normalize_axis
from .dispatch import register_type
from .ragged import (RaggedTensor, _align, _concat_rows, _same_partition, reduce_max,
                     reduce_mean, reduce_min, reduce_prod, reduce_sum, stack)
from .values import _as_tensor, _np

# elementwise ops whose forward is not a NumPy ufunc nor marked jvp=ELEMENTWISE
_ELEMENTWISE_OPS = frozenset(("cast", "select", "clip_by_value", "squared_difference",
                              "real", "imag", "conj", "angle", "atan2", "erf", "erfc",
                              "lgamma", "digamma", "log_sigmoid", "truediv", "floordiv",
                              "floormod"))


def _is_elementwise(op):
    fwd = op.forward
    if isinstance(fwd, np.ufunc):
        return fwd.signature is None        # matmul is a generalized ufunc
    return getattr(op, "jvp_rule", None) == ELEMENTWISE or op.name in _ELEMENTWISE_OPS


def _dispatch_op(op, args, attrs):
    """An op called with a RaggedTensor argument: elementwise ops run on the flat values of
    the ragged arguments (one row partition) and of the others lined up with them."""
    if not _is_elementwise(op):
        raise InvalidArgumentError("%s: does not take a RaggedTensor (only elementwise ops "
                                   "do; convert with rt.to_tensor() or use "
                                   "fe.ragged.map_flat_values)" % op.name)
    first = next(a for a in args if isinstance(a, RaggedTensor))
    flat = tuple(_align(first, a, op)[1] if a is not first else first.flat_values
                 for a in args)
    return first.with_flat_values(_core.execute(op, flat, attrs))


def _on_flat_values(fn):
    """An elementwise function run on the flat values of its ragged arguments (and of its
    tensor arguments lined up with them; lists such as add_n's are mapped entry by entry)."""
    def run(*args, **kwargs):
        first = _first_ragged(args)
        if first is None:
            first = _first_ragged(kwargs.values())

        def flat(a):
            if isinstance(a, (RaggedTensor, _core.Tensor, np.ndarray)):
                return first.flat_values if a is first else _align(first, a, fn)[1]
            if isinstance(a, (list, tuple)) and _first_ragged(a) is not None:
                return [flat(x) for x in a]
            return a
        out = fn(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()})
        return first.with_flat_values(out)
    run.__name__ = fn.__name__
    return run


def _first_ragged(xs):
    for x in xs:
        if isinstance(x, RaggedTensor):
            return x
        if isinstance(x, (list, tuple)):
            found = _first_ragged(x)
            if found is not None:
                return found
    return None


def _as_ragged(x, ragged_rank, opname):
    """A concat/tile operand as a RaggedTensor (a dense one: each of its rows is a row)."""
    if isinstance(x, RaggedTensor):
        return x
    t = _as_tensor(x, opname)
    if t._value.ndim < ragged_rank + 1:
        raise InvalidArgumentError("%s: a dense operand needs rank >= %d to line up with a "
                                   "ragged tensor of ragged rank %d (got shape %s)"
                                   % (opname, ragged_rank + 1, ragged_rank,
                                      list(t._value.shape)))
    return RaggedTensor.from_tensor(t, ragged_rank=ragged_rank)


def _ragged_concat(values, axis, name=None):
    """fe.concat of ragged tensors (and dense ones, as rows): axis 0 appends rows; axis 1
    (ragged rank 1) joins each row with the same row of the others."""
    rank = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    rts = [_as_ragged(v, rank, "concat") for v in values]
    if any(r.ragged_rank != rank for r in rts):
        raise InvalidArgumentError("concat: ragged operands must have one ragged rank (got "
                                   "%s)" % [r.ragged_rank for r in rts])
    ndim = rts[0].ndim
    ax = int(axis) + ndim if int(axis) < 0 else int(axis)
    if not 0 <= ax < ndim:
        raise InvalidArgumentError("concat: axis %r is out of range for rank %d" % (axis, ndim))
    if ax == 0:
        return _concat_rows(rts)
    n = rts[0].nrows_int()
    if any(r.nrows_int() != n for r in rts):
        raise InvalidArgumentError("concat: along axis %d every operand needs the same number "
                                   "of rows (got %s)" % (ax, [r.nrows_int() for r in rts]))
    if ax > 1 or rank != 1:
        if ax > rank and all(_same_partition(rts[0], r) for r in rts[1:]):
            return rts[0].with_flat_values(concat([r.flat_values for r in rts], axis=ax - rank))
        raise InvalidArgumentError("concat: along axis %d, ragged operands need ragged rank 1 "
                                   "or one row partition (got ragged rank %d)" % (ax, rank))
    # each output row holds row i of every operand in turn: order the stacked values by
    # (row, operand), keeping each operand's order within the row
    rowids = np.concatenate([_np(r.value_rowids()) for r in rts])
    operand = np.concatenate([np.full(r.flat_values._value.shape[0], k)
                              for k, r in enumerate(rts)])
    order = np.lexsort((operand, rowids))
    lengths = sum(np.diff(_np(r._row_splits)).astype(np.int64) for r in rts)
    values = gather(concat([r.flat_values for r in rts], axis=0), order)
    return RaggedTensor.from_row_lengths(values, lengths)


def _ragged_tile(input, multiples, name=None):
    """fe.tile of a ragged tensor (ragged rank 1): ``multiples[1]`` repeats each row's
    values within the row, ``multiples[0]`` repeats the rows; inner axes tile densely."""
    rt = input
    mult = as_shape("tile", multiples, "multiples")
    if len(mult) != rt.ndim or any(m < 0 for m in mult):
        raise InvalidArgumentError("tile: multiples must hold one non-negative int per axis "
                                   "(expected length %d, got %s)" % (rt.ndim, list(mult)))
    if rt.ragged_rank != 1:
        raise InvalidArgumentError("tile: only ragged rank 1 is supported (got %d)"
                                   % rt.ragged_rank)
    splits = _np(rt._row_splits).astype(np.int64)
    rows = np.tile(np.arange(splits.size - 1), mult[0])
    index = [np.tile(np.arange(splits[r], splits[r + 1]), mult[1]) for r in rows]
    index = np.concatenate(index) if index else np.zeros(0, np.int64)
    values = gather(rt.flat_values, index.astype(np.int64))
    if any(m != 1 for m in mult[2:]):
        values = tile(values, (1,) + tuple(mult[2:]))
    lengths = np.diff(splits)[rows] * mult[1]
    return RaggedTensor.from_row_lengths(values, lengths.astype(np.int64))


def _ragged_gather(params, indices, axis=None, batch_dims=0):
    """fe.gather of a RaggedTensor: its rows at ``indices`` (axis 0, as TensorFlow)."""
    if (axis or 0) != 0 or batch_dims:
        raise InvalidArgumentError("gather: a RaggedTensor is gathered along axis 0 only (got "
                                   "axis=%r, batch_dims=%r)" % (axis, batch_dims))
    idx = np.asarray(_np(_as_tensor(indices, "gather"), "gather indices"))
    n = params.nrows_int()
    if idx.dtype.kind not in "iu" or idx.ndim > 1:
        raise InvalidArgumentError("gather: indices into a RaggedTensor must be an int scalar "
                                   "or vector (got %s of shape %s)" % (idx.dtype,
                                                                      list(idx.shape)))
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise InvalidArgumentError("gather: indices %s out of range for %d rows (expected -%d "
                                   "<= index < %d)" % (idx.tolist()[:10], n, n, n))
    idx = idx % max(n, 1)
    if idx.ndim == 0:
        return params[int(idx)]
    if idx.size == 0:
        return params[0:0]
    return _concat_rows([params[int(i):int(i) + 1] for i in idx])


def _ragged_reverse(tensor, axis):
    """fe.reverse of a RaggedTensor: axis 0 reverses the rows, axis 1 (ragged rank 1) each
    row's values, a dense inner axis the values along it."""
    out = tensor
    for a in normalize_axis("reverse", axis, tensor.ndim) or ():
        if a == 0:
            out = _ragged_gather(out, np.arange(out.nrows_int())[::-1].astype(np.int64))
        elif a > out.ragged_rank:
            out = out.with_flat_values(reverse(out.flat_values, [a - out.ragged_rank]))
        elif a == 1 and out.ragged_rank == 1:
            s = _np(out._row_splits).astype(np.int64)
            index = np.concatenate([np.arange(s[i + 1] - 1, s[i] - 1, -1)
                                    for i in range(s.size - 1)] + [np.zeros(0, np.int64)])
            values = gather(out.values, index) if index.size else \
                execute(getitem, out.values, key=slice(0, 0))
            out = out.with_values(values)
        else:
            raise InvalidArgumentError("reverse: a ragged axis of a RaggedTensor of ragged rank "
                                       "%d is not supported (got axis %d)"
                                       % (out.ragged_rank, a))
    return out


def _ragged_stack(values, axis=0):
    return stack(values, axis)


class RowPartition:
    """How a ragged axis splits the values below it into rows (``tf.experimental.
    RowPartition``): ``row_splits``, with ``row_lengths``, ``nrows`` and ``nvals``.

    >>> fe.experimental.RowPartition.from_row_lengths([2, 1])
    fe.RowPartition(row_splits=[0 2 3])
    """
    __module__ = "fasteager.experimental"     # its public home (printed types, pickles)

    def __init__(self, row_splits, _checked=False):
        self._splits = row_splits if _checked else self._valid_splits(
            "RowPartition", np.asarray(row_splits))

    @staticmethod
    def _valid_splits(opname, splits):
        if splits.ndim != 1 or splits.size == 0 or splits.dtype.kind not in "iu":
            raise InvalidArgumentError("%s: row_splits must be a non-empty integer vector (got "
                                       "shape %s, dtype %s)" % (opname, list(splits.shape),
                                                                splits.dtype))
        if splits[0] != 0 or np.any(np.diff(splits) < 0):
            raise InvalidArgumentError("%s: row_splits must start at 0 and never decrease (got "
                                       "%s)" % (opname, splits.tolist()))
        return splits.astype(np.int64)

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        arr = np.asarray(_np(row_splits) if isinstance(row_splits, _core.Tensor)
                         else row_splits)
        return cls(cls._valid_splits("RowPartition.from_row_splits", arr))

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        arr = np.asarray(_np(row_lengths) if isinstance(row_lengths, _core.Tensor)
                         else row_lengths)
        if arr.ndim != 1 or (arr.size and (arr.dtype.kind not in "iu" or arr.min() < 0)):
            raise InvalidArgumentError("RowPartition.from_row_lengths: row_lengths must be a "
                                       "vector of non-negative integers (got %s)"
                                       % arr.tolist())
        return cls(np.concatenate([[0], np.cumsum(arr, dtype=np.int64)]).astype(np.int64), True)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None,
                                validate=True, dtype=None, dtype_hint=None):
        n = int(uniform_row_length)
        if nrows is None:
            if nvals is None or (n and int(nvals) % n):
                raise InvalidArgumentError("RowPartition.from_uniform_row_length: give nrows, "
                                           "or nvals divisible by the row length (got nvals=%r, "
                                           "uniform_row_length=%d)" % (nvals, n))
            nrows = int(nvals) // n if n else 0
        return cls(np.arange(int(nrows) + 1, dtype=np.int64) * n, True)

    def row_splits(self):
        return _core.wrap(self._splits)

    def row_lengths(self):
        return _core.wrap(np.diff(self._splits))

    def nrows(self):
        return _core.wrap(np.int64(self._splits.size - 1))

    def nvals(self):
        return _core.wrap(np.int64(self._splits[-1]))

    def _lengths(self):
        return tuple(int(n) for n in np.diff(self._splits))

    def __repr__(self):
        return "fe.RowPartition(row_splits=%s)" % (self._splits,)


class DynamicRaggedShape:
    """The shape of a RaggedTensor, as ``fe.shape(rt)`` gives it (TensorFlow's
    ``tf.experimental.DynamicRaggedShape``): the number of rows, the row lengths of each
    ragged axis, then the uniform inner dimensions. ``fe.reshape``, ``fe.zeros``,
    ``fe.ones`` and ``fe.fill`` take it and make ragged tensors of that shape.

    Built as TensorFlow builds it: from ``row_partitions`` (RowPartitions, outermost
    first) and the ``inner_shape`` of the flat values, or with ``from_lengths``.

    >>> print(fe.shape(fe.ragged.constant([[1], [2, 3]])))
    <DynamicRaggedShape lengths=[2, (1, 2)] num_row_partitions=1>
    """
    __module__ = "fasteager.experimental"     # its public home (printed types, pickles)

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=True,
                 static_inner_shape=None):
        inner = np.asarray(_np(inner_shape) if isinstance(inner_shape, _core.Tensor)
                           else inner_shape)
        if inner.ndim != 1 or inner.size == 0 or inner.dtype.kind not in "iu":
            raise ValueError("DynamicRaggedShape: inner_shape must be a non-empty integer "
                             "vector (got %s)" % inner.tolist())
        parts = list(row_partitions)
        for k, rp in enumerate(parts):
            if not isinstance(rp, RowPartition):
                raise TypeError("DynamicRaggedShape: row_partitions must be RowPartitions (got "
                                "%s at %d)" % (type(rp).__name__, k))
        for k in range(len(parts)):
            below = int(parts[k + 1].nrows()._value) if k + 1 < len(parts) else int(inner[0])
            if int(parts[k]._splits[-1]) != below:
                raise ValueError("DynamicRaggedShape: row partition %d has %d values, but "
                                 "what it partitions has %d rows"
                                 % (k, int(parts[k]._splits[-1]), below))
        lengths = [int(parts[0]._splits.size - 1) if parts else int(inner[0])]
        lengths += [rp._lengths() for rp in parts]
        lengths += [int(d) for d in inner[1:]]
        self._init(lengths, as_dtype(dtype if dtype is not None else "int64"))

    def _init(self, lengths, dtype):
        self._lengths = list(lengths)        # ints (uniform axes) and tuples (ragged ones)
        self.dtype = dtype

    @classmethod
    def _from_static(cls, lengths, dtype):
        out = cls.__new__(cls)
        out._init(lengths, dtype)
        return out

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype="int64"):
        """The shape with these lengths: an int for a uniform axis, a tuple of row
        lengths for a ragged one (one per row of the axes above)."""
        lengths = list(lengths)
        if not lengths or not isinstance(lengths[0], (int, np.integer)):
            raise ValueError("DynamicRaggedShape.from_lengths: the first length must be an int "
                             "(got %r)" % (lengths[:1],))
        count = int(lengths[0])
        out = [count]
        for n in lengths[1:]:
            if isinstance(n, (tuple, list)):
                if len(n) != count:
                    raise ValueError("Shape not consistent.")
                out.append(tuple(int(v) for v in n))
                count = sum(out[-1])
            else:
                out.append(int(n))
                count *= int(n)
        return cls._from_static(out, as_dtype(dtype))

    @classmethod
    def from_tensor(cls, rt, dtype):
        lengths = [rt.nrows_int()]
        for splits in rt.nested_row_splits:
            lengths.append(tuple(int(n) for n in np.diff(_np(splits))))
        lengths += [int(d) for d in rt.flat_values._value.shape[1:]]
        return cls._from_static(lengths, dtype)

    @property
    def row_partitions(self):
        return tuple(RowPartition(np.concatenate([[0], np.cumsum(n, dtype=np.int64)]), True)
                     for n in self._row_lengths())

    @property
    def rank(self):
        return len(self._lengths)

    @property
    def num_row_partitions(self):
        # the axes up to the last ragged one are partitioned (TensorFlow counts them so)
        ragged = [i for i, n in enumerate(self._lengths) if isinstance(n, tuple)]
        return ragged[-1] if ragged else 0

    @property
    def inner_shape(self):
        k = self.num_row_partitions
        total = sum(self._lengths[k]) if k else self._lengths[0]
        return _core.wrap(np.array([total] + self._lengths[k + 1:], dtype=self.dtype._np))

    def static_lengths(self):
        return list(self._lengths)

    def __getitem__(self, key):
        if isinstance(key, slice):
            lengths = self._lengths[key]
            if key.step not in (None, 1) or (key.start or 0) != 0:
                raise ValueError("DynamicRaggedShape: only slices [:k] are supported (got %r)"
                                 % (key,))
            return DynamicRaggedShape._from_static(lengths, self.dtype)
        i = int(key)
        n = self._lengths[i]
        if isinstance(n, tuple):
            raise ValueError("Index %d is not uniform" % i)
        return _core.wrap(np.array(n, dtype=self.dtype._np))

    def __repr__(self):
        return "<DynamicRaggedShape lengths=%s num_row_partitions=%d>" % (
            self._lengths, self.num_row_partitions)

    def _row_lengths(self):
        k = self.num_row_partitions
        for i in range(1, k + 1):
            n = self._lengths[i]
            if not isinstance(n, tuple):    # a uniform axis between ragged ones
                n = (n,) * (sum(self._lengths[i - 1]) if i > 1 and isinstance(
                    self._lengths[i - 1], tuple) else self._lengths[0])
            yield np.array(n, dtype=np.int64)

    def _ragged(self, flat_values):
        """A RaggedTensor of this shape with ``flat_values`` (already of the inner shape)."""
        return RaggedTensor.from_nested_row_lengths(
            flat_values, [_core.wrap(n) for n in self._row_lengths()])

    def _inner_dims(self):
        return tuple(int(d) for d in self.inner_shape._value)


def _ragged_shape(input, out_type=np.int32, name=None):
    return DynamicRaggedShape.from_tensor(input, as_dtype(out_type))


def _reshape_to(tensor, shape, name=None):
    return shape._ragged(reshape(tensor, shape._inner_dims()))


def _zeros_of(shape, dtype=None, name=None):
    return shape._ragged(zeros(shape._inner_dims(), dtype=dtype))


def _ones_of(shape, dtype=None, name=None):
    return shape._ragged(ones(shape._inner_dims(), dtype=dtype))


def _fill_of(dims, value, name=None):
    return dims._ragged(fill(dims._inner_dims(), value))


def _register():
    handlers = {fn.__name__: fn for fn in (reduce_sum, reduce_mean, reduce_max, reduce_min,
                                           reduce_prod)}
    for fn in (elementwise_ops.cast, elementwise_ops.where, elementwise_ops.clip_by_value,
               elementwise_ops.add_n, nn_ops.log_sigmoid, elementwise_ops.real,
               elementwise_ops.imag, elementwise_ops.conj, elementwise_ops.angle):
        handlers[fn.__name__] = _on_flat_values(fn)
    handlers.update(concat=_ragged_concat, tile=_ragged_tile, shape=_ragged_shape,
                    gather=_ragged_gather, reverse=_ragged_reverse, stack=_ragged_stack)
    register_type(RaggedTensor, functions=handlers, op_handler=_dispatch_op)
    register_type(DynamicRaggedShape, functions={"reshape": _reshape_to, "zeros": _zeros_of,
                                                 "ones": _ones_of, "fill": _fill_of})


_register()
