"""``fe.autograph.experimental`` (``tf.autograph.experimental``)."""
from .._src.tracing.autograph.transformer import do_not_convert

__all__ = ["do_not_convert"]
