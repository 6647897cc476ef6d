"""``fe.nest``: flatten and rebuild nested structures (``tf.nest``).

The implementation is ``fasteager._src.nest``, the package's one nest.
"""
from ._src.nest import flatten, is_nested, map_structure, pack_sequence_as  # noqa: F401

__all__ = ["flatten", "is_nested", "map_structure", "pack_sequence_as"]
