"""``tf.IndexedSlices`` (some rows of a dense tensor) and ``tf.is_tensor`` (whether a value
is tensor-like: a Tensor, Variable, RaggedTensor, SparseTensor or IndexedSlices)."""
from ... import _core
from ...errors import InvalidArgumentError
from ...ops.segment_ops import unsorted_segment_sum
from ...tensor_shape import TensorShape
from .ragged import RaggedTensor
from .sparse import SparseTensor

Tensor = _core.Tensor
VariableBase = _core.VariableBase


class IndexedSlices:
    """Some rows of a dense tensor of shape ``dense_shape``: ``values[i]`` is row
    ``indices[i]`` (rows named twice add up), as ``tf.IndexedSlices``. ``to_dense()`` gives
    the dense tensor, differentiably; NumPy and ``fe.convert_to_tensor`` densify it through
    ``__array__`` (as a constant)."""
    __module__ = "fasteager"   # its public name (tf.IndexedSlices)

    def __init__(self, values, indices, dense_shape=None):
        self.values = _core.convert_to_tensor(values)
        self.indices = _core.convert_to_tensor(indices)
        if self.indices.dtype.name not in ("int32", "int64"):
            raise InvalidArgumentError("IndexedSlices: indices must be int32 or int64 (got %s)"
                                       % self.indices.dtype.name)
        self.dense_shape = None if dense_shape is None else _core.convert_to_tensor(
            dense_shape, self.indices.dtype)

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def shape(self):
        if self.dense_shape is None:
            return TensorShape([None] + list(self.values.shape)[1:])
        return TensorShape(self.dense_shape.numpy().tolist())

    def to_dense(self):
        """The dense tensor (differentiable in ``values``)."""
        if self.dense_shape is None:
            raise ValueError("IndexedSlices: to_dense needs a dense_shape")
        n = int(self.dense_shape.numpy()[0])
        return unsorted_segment_sum(self.values, self.indices, n)

    def __array__(self, dtype=None, copy=None):
        arr = self.to_dense().numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __repr__(self):
        return "IndexedSlices(indices=%s, values=%s%s)" % (
            self.indices, self.values,
            "" if self.dense_shape is None else ", dense_shape=%s" % self.dense_shape)


def is_tensor(x):
    """Whether ``x`` is a tensor-like value (a Tensor, Variable, RaggedTensor, SparseTensor
    or IndexedSlices), not a NumPy array or Python value."""
    return isinstance(x, (Tensor, VariableBase, RaggedTensor, SparseTensor, IndexedSlices)) or \
        bool(getattr(x, "is_tensor_like", False))
