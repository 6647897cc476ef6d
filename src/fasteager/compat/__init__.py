"""``fe.compat`` (TensorFlow's ``tf.compat``): the parts eager programs touch.

``fe.compat.v1.logging`` sets the level of fasteager's logger (programs call
``tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)`` to quiet TensorFlow);
``fe.compat.v1.nn.fused_batch_norm`` is TensorFlow 1's fused batch norm; ``fe.compat.v2``
is fasteager itself.
"""
import sys as _sys

from . import v1

__all__ = ["v1", "v2"]


def __getattr__(name):
    if name == "v2":
        return _sys.modules["fasteager"]
    raise AttributeError("module 'fasteager.compat' has no attribute %r" % name)
