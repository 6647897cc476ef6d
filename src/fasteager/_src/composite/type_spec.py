"""``tf.TypeSpec``: the base type of the specs that describe values."""
from .extension_type import ExtensionTypeSpec
from .ragged import RaggedTensorSpec
from .sparse import SparseTensorSpec
from .structure import TensorSpec

_SPEC_CLASSES = (TensorSpec, RaggedTensorSpec, SparseTensorSpec, ExtensionTypeSpec)


class _TypeSpecMeta(type):
    # the spec classes live in modules that predate TypeSpec: they count as its subclasses
    def __instancecheck__(cls, value):
        return type.__instancecheck__(cls, value) or isinstance(value, _SPEC_CLASSES)

    def __subclasscheck__(cls, sub):
        return type.__subclasscheck__(cls, sub) or issubclass(sub, _SPEC_CLASSES)


class TypeSpec(metaclass=_TypeSpecMeta):
    """The base type of the specs that describe values (``tf.TypeSpec``): ``fe.TensorSpec``,
    ``fe.RaggedTensorSpec``, ``fe.SparseTensorSpec`` and extension types' specs count as
    its subclasses, so ``isinstance(fe.TensorSpec([2]), fe.TypeSpec)`` holds."""
    __module__ = "fasteager"   # its public name (tf.TypeSpec)
