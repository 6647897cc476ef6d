"""``fe.compat``: the parts of ``tf.compat`` that eager programs touch.

``fe.compat.v1.logging`` sets the level of fasteager's logger (programs call
``tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)`` to quiet TensorFlow);
``fe.compat.v2`` is fasteager itself.
"""
import logging as _logging
import sys as _sys
import types as _types


def _set_verbosity(level):
    _logging.getLogger("fasteager").setLevel(level)


def _get_verbosity():
    return _logging.getLogger("fasteager").getEffectiveLevel()


_v1_logging = _types.SimpleNamespace(
    DEBUG=_logging.DEBUG, INFO=_logging.INFO, WARN=_logging.WARNING, WARNING=_logging.WARNING,
    ERROR=_logging.ERROR, FATAL=_logging.FATAL, set_verbosity=_set_verbosity,
    get_verbosity=_get_verbosity,
    info=_logging.getLogger("fasteager").info, warning=_logging.getLogger("fasteager").warning,
    error=_logging.getLogger("fasteager").error)



def _fused_batch_norm(*args, **kwargs):
    """``tf.compat.v1.nn.fused_batch_norm`` (see ``ops/norm_ops.fused_batch_norm_v1``)."""
    from .ops.norm_ops import fused_batch_norm_v1     # the op table imports after compat
    return fused_batch_norm_v1(*args, **kwargs)


v1 = _types.SimpleNamespace(logging=_v1_logging,
                            nn=_types.SimpleNamespace(fused_batch_norm=_fused_batch_norm))


def __getattr__(name):
    if name == "v2":
        return _sys.modules["fasteager"]
    raise AttributeError("module 'fasteager.compat' has no attribute %r" % name)
