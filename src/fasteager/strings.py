"""``fe.strings``: string tensors (``tf.strings``), UTF-8 bytes in object arrays.

The implementation lives in ``fasteager._src.composite.strings``; what ``fe.constant``
does with strings in ``fasteager.ops.string_values``.
"""
from ._src.composite.strings import (as_string, bytes_split, decode_raw, format,  # noqa: F401
                                     join, length, lower, reduce_join, regex_full_match,
                                     regex_replace, split, strip, substr,
                                     to_hash_bucket_fast, to_hash_bucket_strong,
                                     to_number, unicode_decode, unicode_encode,
                                     unicode_split, upper)
from .ops.string_values import bytes_array, is_string_value  # noqa: F401
from .ops.string_values import string_constant as constant  # noqa: F401

__all__ = ["as_string", "bytes_split", "decode_raw", "format", "join", "length", "lower",
           "reduce_join", "regex_full_match", "regex_replace", "split", "strip", "substr",
           "to_hash_bucket_fast", "to_hash_bucket_strong", "to_number", "unicode_decode",
           "unicode_encode", "unicode_split", "upper"]
