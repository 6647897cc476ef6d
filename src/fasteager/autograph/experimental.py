"""``fe.autograph.experimental`` (``tf.autograph.experimental``)."""
from .transformer import do_not_convert

__all__ = ["do_not_convert"]
