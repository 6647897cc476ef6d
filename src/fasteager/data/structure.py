"""Element structures of ``fe.data`` datasets, as ``tf.data`` defines them.

An element is a tensor, or a tuple (namedtuples included) or dict of elements, or an
extension value (``fe.experimental.ExtensionType``, through its components). Lists are
*values*, not structures: ``from_tensor_slices([1, 2, 3])`` slices one tensor, as in
TensorFlow. Inside the pipeline elements hold NumPy arrays; iteration wraps them as
tensors at the end.
"""
import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..extension_type import ExtensionType
from ..tensor_shape import TensorShape
from .composite import LEAVES, RaggedLeaf, SparseLeaf


def is_structure(s):
    return isinstance(s, (tuple, dict))


def flatten(s):
    """The leaves of ``s``: tuples in order, dicts in sorted-key order, an extension value's
    components."""
    if isinstance(s, ExtensionType):
        return [leaf for x in s._to_components() for leaf in flatten(x)]
    if isinstance(s, dict):
        out = []
        for k in sorted(s, key=_key):
            out.extend(flatten(s[k]))
        return out
    if isinstance(s, tuple):
        out = []
        for x in s:
            out.extend(flatten(x))
        return out
    return [s]


def _key(k):
    return (type(k).__name__, k)


def pack(template, flat):
    """Rebuild ``template``'s structure from the leaves ``flat`` (a list)."""
    it = iter(flat)
    return _pack(template, it)


def _pack(s, it):
    if isinstance(s, ExtensionType):
        return s._from_components([_pack(x, it) for x in s._to_components()])
    if isinstance(s, dict):
        packed = {k: _pack(s[k], it) for k in sorted(s, key=_key)}
        return {k: packed[k] for k in s}
    if isinstance(s, tuple):
        items = [_pack(x, it) for x in s]
        return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
    return next(it)


def map_structure(fn, s):
    if isinstance(s, ExtensionType):
        return s._from_components([map_structure(fn, x) for x in s._to_components()])
    if isinstance(s, dict):
        return {k: map_structure(fn, v) for k, v in s.items()}
    if isinstance(s, tuple):
        items = [map_structure(fn, x) for x in s]
        return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
    return fn(s)


def public_spec(spec):
    """An element spec as users see it: inside the pipeline an extension value's spec is
    the value holding specs for components; outside it is the class's ``Spec``."""
    if isinstance(spec, ExtensionType):
        return type(spec).Spec.from_value(spec)
    if isinstance(spec, dict):
        return {k: public_spec(v) for k, v in spec.items()}
    if isinstance(spec, tuple):
        items = [public_spec(x) for x in spec]
        return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)
    return spec


def _is_dataset(value):
    from .dataset import Dataset
    return isinstance(value, Dataset)


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
    from ..ragged import RaggedTensor
    from ..sparse import SparseTensor
    if isinstance(value, RaggedTensor):
        return RaggedLeaf.from_tensor(value if dtype is None else value.with_flat_values(
            _core.convert_to_tensor(value.flat_values, dtype)))
    if isinstance(value, SparseTensor):
        return SparseLeaf.from_tensor(value)
    from .. import strings
    if strings.is_string_value(value) and (dtype is None or as_dtype(dtype).is_string):
        return strings.bytes_array(value)     # strings: UTF-8 bytes in an object array
    return _core.convert_to_tensor(value, dtype)._value


def to_arrays(value):
    """A user value (lists becoming tensors) as a structure of ndarrays."""
    return map_structure(to_array, value)


def from_function(value):
    """A ``map`` function's result: a returned list is a tuple, as in ``tf.data``."""
    if isinstance(value, list):
        value = tuple(value)
    return map_structure(to_array, value)


def _wrap_leaf(a):
    if _is_dataset(a):
        return a
    if isinstance(a, LEAVES):
        return a.to_tensor()
    return _core.wrap(_string_scalar(a) if type(a) is bytes else a)


def _string_scalar(b):
    # an entry of a string (object) array is the bytes itself: keep it an object array
    arr = np.empty((), dtype=object)
    arr[()] = b
    return arr


def to_tensors(element):
    return map_structure(_wrap_leaf, element)


def _numpy_leaf(a):
    if _is_dataset(a):
        raise TypeError("Dataset.as_numpy_iterator: not supported for datasets whose "
                        "elements hold datasets (expected tensor components, got a %s)"
                        % type(a).__name__)
    if isinstance(a, LEAVES):
        return a.to_tensor()
    if type(a) is bytes:
        return a
    a = np.asarray(a)
    return a[()] if a.ndim == 0 else a


def to_numpy(element):
    return map_structure(_numpy_leaf, element)


def readonly(a):
    """A read-only view: slices handed to users cannot write into a dataset's source."""
    if isinstance(a, LEAVES) or _is_dataset(a):
        return a
    v = a.view()
    v.flags.writeable = False
    return v


class TensorSpec:
    """Shape and dtype of one component of a dataset element (``tf.TensorSpec``).

    >>> TensorSpec(shape=(None, 28, 28), dtype=fe.float32)
    TensorSpec(shape=(None, 28, 28), dtype=fe.float32, name=None)
    """

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


def spec_of(element, batch_dim=False, known=None):
    """TensorSpecs of an element's leaves; ``batch_dim`` makes the first dimension unknown
    (or ``known``)."""
    def leaf(a):
        if _is_dataset(a):
            return DatasetSpec(a.element_spec)
        if isinstance(a, LEAVES):
            return a.spec(known, batched=batch_dim)
        shape = list(np.shape(a))
        if batch_dim:
            shape = [known] + shape
        return TensorSpec(shape, object if type(a) is bytes else np.asarray(a).dtype)
    return map_structure(leaf, element)


class DatasetSpec:
    """The type of a dataset that is an element (or component) of another dataset, as
    ``window`` makes them (``tf.data.DatasetSpec``)."""

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self.shape = TensorShape(dataset_shape)

    @property
    def value_type(self):
        from .dataset import Dataset
        return Dataset

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
