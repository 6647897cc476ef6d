"""``fe.io``: the parts of ``tf.io`` fasteager has: ``decode_raw`` and the parsing of
serialized ``tf.train.Example`` records (``parse_example``, ``parse_single_example`` with
``FixedLenFeature``, ``VarLenFeature`` and ``RaggedFeature``)."""
from ._parsing import (FixedLenFeature, RaggedFeature, VarLenFeature,  # noqa: F401
                       parse_example, parse_single_example)
from .strings import decode_raw  # noqa: F401

__all__ = ["FixedLenFeature", "RaggedFeature", "VarLenFeature", "decode_raw", "parse_example",
           "parse_single_example"]
