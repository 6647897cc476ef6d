"""``fe.bitwise``: bitwise operations on integer tensors, as ``tf.bitwise``.

>>> fe.bitwise.left_shift([1, 2], [3, 1]).numpy()
array([8, 4], dtype=int32)
"""
from .ops.elementwise_ops import (bitwise_and, bitwise_or, bitwise_xor, invert,  # noqa: F401
                                  left_shift, right_shift)
