"""``fe.types.experimental``: ``TraceType`` (how ``fe.function`` tells arguments apart) and
the function types (``PolymorphicFunction``/``GenericFunction`` is ``fe.function``'s
``Function``; ``ConcreteFunction`` one trace)."""
from .._src.tracing.concrete import ConcreteFunction  # noqa: F401
from .._src.tracing.function import Function as GenericFunction  # noqa: F401
from .._src.tracing.function import Function as PolymorphicFunction  # noqa: F401
from .._src.tracing.trace_type import TraceType  # noqa: F401

__all__ = ["ConcreteFunction", "GenericFunction", "PolymorphicFunction", "TraceType"]
