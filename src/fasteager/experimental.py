"""``fe.experimental``: the names of ``tf.experimental`` fasteager has: the ragged shape
types ``DynamicRaggedShape`` and ``RowPartition``."""
from ._ragged_dispatch import DynamicRaggedShape, RowPartition  # noqa: F401

__all__ = ["DynamicRaggedShape", "RowPartition"]
