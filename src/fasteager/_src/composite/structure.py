"""Type specs of values (``fe.TensorSpec``, ``fe.data.DatasetSpec``) and the conversion
of a value to the NumPy form ``fe.data`` pipelines hold (``to_array``).

They sit in the composite layer because extension types (``type_spec_from_value``),
``fe.function`` signatures and ``fe.data`` all describe values with them.
"""

from ... import _core
from ...dtypes import as_dtype
from ...ops.string_values import bytes_array, is_string_value
from ...tensor_shape import TensorShape
from .leaves import RaggedLeaf, SparseLeaf
from .ragged import RaggedTensor
from .sparse import SparseTensor

__all__ = ["DatasetSpec", "TensorSpec", "register_dataset_type", "to_array"]


# fe.data's Dataset class, which fe.data registers when it loads (it sits above this
# layer): elements may hold datasets (``window``), and a DatasetSpec describes one
_dataset_types = ()


def register_dataset_type(cls):
    """Make ``cls`` (fe.data's Dataset) the class of dataset values and DatasetSpecs."""
    global _dataset_types
    _dataset_types = (cls,)


def _is_dataset(value):
    return isinstance(value, _dataset_types)


def dtype_name(np_dtype):
    """The fe name of a NumPy dtype (``string`` for object arrays)."""
    return as_dtype(np_dtype).name


def to_array(value, dtype=None):
    """A leaf as an ndarray, with TensorFlow's conversions (Python float -> float32). A
    dataset stays a dataset: elements may hold datasets (``window``)."""
    if _is_dataset(value):
        return value
    if isinstance(value, _core.VariableBase):
        value = value._tensor
    if isinstance(value, _core.Tensor) and dtype is None:
        return value._value
    if isinstance(value, RaggedTensor):
        return RaggedLeaf.from_tensor(value if dtype is None else value.with_flat_values(
            _core.convert_to_tensor(value.flat_values, dtype)))
    if isinstance(value, SparseTensor):
        return SparseLeaf.from_tensor(value)
    if is_string_value(value) and (dtype is None or as_dtype(dtype).is_string):
        return bytes_array(value)     # strings: UTF-8 bytes in an object array
    return _core.convert_to_tensor(value, dtype)._value


class TensorSpec:
    """Shape and dtype of one component of a dataset element (``tf.TensorSpec``).

    >>> TensorSpec(shape=(None, 28, 28), dtype=fe.float32)
    TensorSpec(shape=(None, 28, 28), dtype=fe.float32, name=None)
    """
    __module__ = 'fasteager.data.structure'     # its public home (printed types, pickles)

    def __init__(self, shape, dtype="float32", name=None):
        self.shape = None if shape is None else TensorShape(shape)   # None: unknown rank
        self.dtype = as_dtype(dtype)
        self.name = name

    def is_compatible_with(self, value):
        arr = to_array(value)
        return arr.dtype == self.dtype._np and (
            self.shape is None or self.shape.is_compatible_with(arr.shape))

    @classmethod
    def from_tensor(cls, value, name=None):
        arr = to_array(value)
        return cls(arr.shape, arr.dtype, name)

    @property
    def value_type(self):
        """The class of the values this spec describes."""
        return _core.Tensor

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.dtype == other.dtype
                and self.shape == other.shape)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        dims = "<unknown>" if self.shape is None else tuple(self.shape)   # unknown rank: TF's
        return "TensorSpec(shape=%s, dtype=fe.%s, name=%r)" % (dims, self.dtype.name, self.name)


class DatasetSpec:
    """The type of a dataset that is an element (or component) of another dataset, as
    ``window`` makes them (``tf.data.DatasetSpec``)."""
    __module__ = 'fasteager.data.structure'     # its public home (printed types, pickles)

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self.shape = TensorShape(dataset_shape)

    @property
    def value_type(self):
        return _dataset_types[0]

    @classmethod
    def from_value(cls, value):
        return cls(value.element_spec)

    def is_compatible_with(self, value):
        return _is_dataset(value) and value.element_spec == self.element_spec

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self.element_spec == other.element_spec \
            and self.shape == other.shape

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return "DatasetSpec(%r, TensorShape(%s))" % (self.element_spec, self.shape.as_list())
