"""``fe.experimental``: the names of ``tf.experimental`` fasteager has: the ragged shape
types ``DynamicRaggedShape`` and ``RowPartition``, extension types (``ExtensionType``,
``BatchableExtensionType``, ``ExtensionTypeSpec``) and type-based dispatch of API
functions (``dispatch_for_api`` and the elementwise ones, ``unregister_dispatch_for``)."""
from .._src.composite.dispatch import (
    dispatch_for_api,
    dispatch_for_binary_elementwise_apis,
    dispatch_for_unary_elementwise_apis,
    unregister_dispatch_for,
)
from .._src.composite.extension_type import BatchableExtensionType, ExtensionType, ExtensionTypeSpec
from .._src.composite.ragged_ops import DynamicRaggedShape, RowPartition

__all__ = ["BatchableExtensionType", "DynamicRaggedShape", "ExtensionType", "ExtensionTypeSpec",
    "RowPartition", "dispatch_for_api", "dispatch_for_binary_elementwise_apis",
    "dispatch_for_unary_elementwise_apis", "unregister_dispatch_for"]
