"""``fe.compat.v1``: ``logging`` and ``nn.fused_batch_norm`` of TensorFlow 1's API."""
from . import logging, nn

__all__ = ["logging", "nn"]
