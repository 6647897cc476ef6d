"""``fe.compat.v1.nn``: TensorFlow 1's ``fused_batch_norm`` (see ``ops/norm_ops``)."""
from ...ops.norm_ops import fused_batch_norm_v1 as fused_batch_norm

__all__ = ["fused_batch_norm"]
