"""``fe.experimental``: the names of ``tf.experimental`` fasteager has: the ragged shape
types ``DynamicRaggedShape`` and ``RowPartition``, and ``ExtensionType``."""
from ._ragged_dispatch import DynamicRaggedShape, RowPartition  # noqa: F401
from .extension_type import ExtensionType  # noqa: F401

__all__ = ["DynamicRaggedShape", "ExtensionType", "RowPartition"]
