"""``fe.types`` (TensorFlow's ``tf.types``): its ``experimental`` namespace of base types."""
# TraceType's __module__ names this package (printed types, pickles), so it is here too
from .._src.tracing.trace_type import TraceType  # noqa: F401
from . import experimental

__all__ = ["experimental"]
