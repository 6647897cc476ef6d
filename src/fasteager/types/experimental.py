"""``fe.types.experimental``: ``TraceType`` (how ``fe.function`` tells arguments apart) and
the function types (``PolymorphicFunction``/``GenericFunction`` is ``fe.function``'s
``Function``; ``ConcreteFunction`` one trace)."""
from .._src.tracing.concrete import ConcreteFunction
from .._src.tracing.function import Function as GenericFunction
from .._src.tracing.function import Function as PolymorphicFunction
from .._src.tracing.trace_type import TraceType

__all__ = ["ConcreteFunction", "GenericFunction", "PolymorphicFunction", "TraceType"]
