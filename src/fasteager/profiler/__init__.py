"""``fe.profiler`` (TensorFlow's ``tf.profiler``): ``experimental.start/stop``,
``experimental.Profile`` and ``experimental.Trace`` write TensorBoard profile files (see
``experimental``)."""
from . import experimental  # noqa: F401

__all__ = ["experimental"]
