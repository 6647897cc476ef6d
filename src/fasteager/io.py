"""``fe.io``: the parts of ``tf.io`` fasteager has: ``decode_raw`` and the parsing of
serialized ``tf.train.Example`` records (``parse_example``, ``parse_single_example`` with
``FixedLenFeature``, ``VarLenFeature`` and ``RaggedFeature``), and ``TFRecordWriter``."""
from ._parsing import (FixedLenFeature, RaggedFeature, VarLenFeature,  # noqa: F401
                       parse_example, parse_single_example)
from ._tfrecord import TFRecordOptions, TFRecordWriter  # noqa: F401
from .strings import decode_raw  # noqa: F401

__all__ = ["FixedLenFeature", "RaggedFeature", "TFRecordOptions", "TFRecordWriter",
           "VarLenFeature", "decode_raw", "parse_example", "parse_single_example"]
