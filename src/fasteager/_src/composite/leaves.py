"""Ragged and sparse components of ``fe.data`` elements, in the pipeline's NumPy form.

Inside a pipeline a component is an ndarray; a RaggedTensor or SparseTensor component is
one of the leaves below, which index like an array along their first axis (``leaf[i]``,
``leaf[lo:hi]``, ``leaf[index_array]``), so slicing, batching by gathers and unbatching
treat them as they treat arrays, and ``stack`` batches a list of them.

As in ``tf.data``, a row of a ragged component of ragged rank 1 is a dense tensor, yet the
component stays ragged: batching such rows gives a RaggedTensor again. ``RaggedLeaf`` with
no row splits is that dense row.
"""
import numpy as np

from ... import _core
from ...errors import InvalidArgumentError
from .ragged import RaggedTensor, RaggedTensorSpec
from .sparse import SparseTensor, SparseTensorSpec


def _ranges(starts, ends):
    """The concatenation of ``arange(s, e)`` for each pair (int64)."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(total, dtype=np.int64) + offsets


class RaggedLeaf:
    """Flat values split into rows by ``splits`` (outermost first)."""

    __slots__ = ("values", "splits", "splits_dtype")

    def __init__(self, values, splits, splits_dtype=np.int64):
        self.values, self.splits, self.splits_dtype = values, tuple(splits), splits_dtype

    @classmethod
    def from_tensor(cls, rt):
        splits = [np.asarray(s._value) for s in rt.nested_row_splits]
        return cls(np.asarray(rt.flat_values._value), splits, splits[0].dtype)

    @property
    def ragged_rank(self):
        return len(self.splits)

    @property
    def nrows(self):
        return len(self.splits[0]) - 1 if self.splits else self.values.shape[0]

    @property
    def ndim(self):
        return self.ragged_rank + self.values.ndim

    @property
    def shape(self):
        return (self.nrows,) + (None,) * self.ragged_rank + tuple(self.values.shape[1:])

    @property
    def dtype(self):
        return self.values.dtype

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            if not self.splits:
                return self.values[key]
            i = int(key)
            lo, hi = int(self.splits[0][i]), int(self.splits[0][i + 1])
            inner = []
            for s in self.splits[1:]:
                inner.append((s[lo:hi + 1] - s[lo]).astype(self.splits_dtype))
                lo, hi = int(s[lo]), int(s[hi])
            return RaggedLeaf(self.values[lo:hi], inner, self.splits_dtype)
        rows = np.arange(self.nrows, dtype=np.int64)[key]
        if not self.splits:
            return RaggedLeaf(self.values[rows], (), self.splits_dtype)
        out = []
        for s in self.splits:
            starts, ends = s[rows].astype(np.int64), s[rows + 1].astype(np.int64)
            out.append(np.concatenate([[0], np.cumsum(ends - starts)]).astype(
                self.splits_dtype))
            rows = _ranges(starts, ends)
        return RaggedLeaf(self.values[rows], out, self.splits_dtype)

    @staticmethod
    def stack(leaves, splits_dtype=None):
        """The leaves as the rows of one RaggedLeaf of one more ragged axis."""
        rank = leaves[0].ragged_rank
        inner = leaves[0].values.shape[1:]
        for k, leaf in enumerate(leaves):
            if leaf.ragged_rank != rank or leaf.values.shape[1:] != inner:
                raise InvalidArgumentError(
                    "batch: ragged components differ in ragged rank or inner shape (expected "
                    "ragged rank %d and inner shape %s like element 0, got %d and %s in "
                    "element %d)" % (rank, list(inner), leaf.ragged_rank,
                                     list(leaf.values.shape[1:]), k))
        dtype = splits_dtype or leaves[0].splits_dtype
        outer = np.concatenate([[0], np.cumsum([leaf.nrows for leaf in leaves])]).astype(dtype)
        levels = [outer]
        for level in range(rank):
            parts, offset = [], 0
            for j, leaf in enumerate(leaves):
                s = leaf.splits[level]
                parts.append(s[1:] + offset if j else s + offset)
                offset += int(s[-1])
            levels.append(np.concatenate(parts).astype(dtype))
        values = np.concatenate([leaf.values for leaf in leaves])
        return RaggedLeaf(values, levels, dtype)

    def to_tensor(self):
        values = _core.wrap(self.values)
        if not self.splits:
            return values
        return RaggedTensor.from_nested_row_splits(
            values, [_core.wrap(s) for s in self.splits], validate=False)

    def spec(self, lead=None, batched=False):
        """The RaggedTensorSpec of this component (of a batch of them with ``batched``)."""
        shape = [None] * (self.ragged_rank + 1) + list(self.values.shape[1:])
        if batched:
            return RaggedTensorSpec([lead] + shape, self.values.dtype, self.ragged_rank + 1,
                                    self.splits_dtype)
        return RaggedTensorSpec(shape, self.values.dtype, self.ragged_rank, self.splits_dtype)


def row_spec(leaf):
    """The spec of one row (``from_tensor_slices``) of a ragged or sparse component."""
    if isinstance(leaf, SparseLeaf):
        return SparseTensorSpec(list(leaf.shape[1:]), leaf.values.dtype)
    if not leaf.splits:
        return None
    return RaggedTensorSpec([None] * leaf.ragged_rank + list(leaf.values.shape[1:]),
                            leaf.values.dtype, leaf.ragged_rank - 1, leaf.splits_dtype)


def batched_spec(spec, lead):
    """The spec of a batch of components of ``spec`` (a RaggedTensorSpec/SparseTensorSpec)."""
    if isinstance(spec, SparseTensorSpec):
        return SparseTensorSpec([lead] + spec.shape.as_list(), spec.dtype)
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec([lead] + spec.shape.as_list(), spec.dtype, spec.ragged_rank + 1,
                                spec.row_splits_dtype)
    return None


class SparseLeaf:
    """A SparseTensor's indices, values and dense shape as arrays."""

    __slots__ = ("indices", "values", "dense_shape")

    def __init__(self, indices, values, dense_shape):
        self.indices, self.values = indices, values
        self.dense_shape = np.asarray(dense_shape, np.int64)

    @classmethod
    def from_tensor(cls, st):
        return cls(np.asarray(st.indices._value), np.asarray(st.values._value),
                   st.dense_shape._value)

    @property
    def ndim(self):
        return int(self.dense_shape.size)

    @property
    def shape(self):
        return tuple(int(d) for d in self.dense_shape)

    @property
    def dtype(self):
        return self.values.dtype

    def __getitem__(self, key):
        if self.ndim == 0:
            raise InvalidArgumentError("SparseTensor component: a scalar has no rows")
        if isinstance(key, (int, np.integer)):
            mask = self.indices[:, 0] == int(key)
            return SparseLeaf(self.indices[mask][:, 1:], self.values[mask], self.dense_shape[1:])
        rows = np.arange(self.dense_shape[0], dtype=np.int64)[key]
        order = np.argsort(self.indices[:, 0], kind="stable")
        first = self.indices[order, 0]
        starts = np.searchsorted(first, rows, "left")
        ends = np.searchsorted(first, rows, "right")
        picked = order[_ranges(starts.astype(np.int64), ends.astype(np.int64))]
        new_rows = np.repeat(np.arange(rows.size, dtype=np.int64), ends - starts)
        indices = self.indices[picked].copy()
        indices[:, 0] = new_rows
        return SparseLeaf(indices, self.values[picked],
                          np.concatenate([[rows.size], self.dense_shape[1:]]))

    @staticmethod
    def stack(leaves):
        rank = leaves[0].ndim
        for k, leaf in enumerate(leaves):
            if leaf.ndim != rank:
                raise InvalidArgumentError("batch: sparse components differ in rank (expected "
                                           "%d like element 0, got %d in element %d)"
                                           % (rank, leaf.ndim, k))
        shape = np.max(np.stack([leaf.dense_shape for leaf in leaves]), axis=0) if rank else \
            np.zeros(0, np.int64)
        indices = np.concatenate([
            np.concatenate([np.full((leaf.indices.shape[0], 1), k, np.int64), leaf.indices],
                           axis=1) for k, leaf in enumerate(leaves)])
        values = np.concatenate([leaf.values for leaf in leaves])
        return SparseLeaf(indices, values, np.concatenate([[len(leaves)], shape]))

    def to_tensor(self):
        return SparseTensor(self.indices, _core.wrap(self.values), self.dense_shape)

    def spec(self, lead=None, batched=False):
        shape = [lead] + list(self.shape) if batched else list(self.shape)
        return SparseTensorSpec(shape, self.values.dtype)


LEAVES = (RaggedLeaf, SparseLeaf)


def stack_column(col):
    """Batch one component: leaves of one kind stack with their own rule."""
    if isinstance(col[0], RaggedLeaf):
        if not all(isinstance(c, RaggedLeaf) for c in col):
            raise InvalidArgumentError("batch: a component is ragged in some elements and dense "
                                       "in others")
        return RaggedLeaf.stack(list(col))
    if isinstance(col[0], SparseLeaf):
        if not all(isinstance(c, SparseLeaf) for c in col):
            raise InvalidArgumentError("batch: a component is sparse in some elements and dense "
                                       "in others")
        return SparseLeaf.stack(list(col))
    return None
