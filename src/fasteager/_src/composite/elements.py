"""Element structures of ``fe.data`` datasets, as ``tf.data`` defines them.

An element is a tensor, or a tuple (namedtuples included) or dict of elements, or an
extension value (``fe.experimental.ExtensionType``, through its components). Lists are
*values*, not structures: ``from_tensor_slices([1, 2, 3])`` slices one tensor, as in
TensorFlow. Inside the pipeline elements hold NumPy arrays; iteration wraps them as
tensors at the end. The walking is the element view of the one nest (``_src/nest.py``).

It sits in the composite layer because ``fe.function`` (tracing an iterator's elements)
and ``fe.data`` both use it; ``fasteager.data.structure`` re-exports it.
"""
import numpy as np

from ... import _core
from .. import nest
from ..nest import _element_key as _key  # noqa: F401 - dict key order of elements
from .extension_type import ExtensionType
from .leaves import LEAVES
from .structure import (DatasetSpec, TensorSpec, _is_dataset,  # noqa: F401
                        dtype_name, register_dataset_type, to_array)


def is_structure(s):
    return isinstance(s, (tuple, dict))


def _is_extension(s):
    return isinstance(s, ExtensionType)


def flatten(s):
    """The leaves of ``s``: tuples in order, dicts in sorted-key order, an extension value's
    components."""
    return nest.flatten_element(s, _is_extension)


def pack(template, flat):
    """Rebuild ``template``'s structure from the leaves ``flat`` (a list)."""
    return nest.pack_element(template, flat, _is_extension)


def map_structure(fn, s):
    return nest.map_element(fn, s, _is_extension)


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


