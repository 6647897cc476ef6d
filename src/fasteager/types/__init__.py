"""``fe.types`` (TensorFlow's ``tf.types``): its ``experimental`` namespace of base types."""
from .._src.tracing.trace_type import TraceType  # noqa: F401 - its __module__ names it here
from . import experimental  # noqa: F401

__all__ = ["experimental"]
