"""``fe.io``: the parts of ``tf.io`` fasteager has (``decode_raw``)."""
from .strings import decode_raw  # noqa: F401

__all__ = ["decode_raw"]
