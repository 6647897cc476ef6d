"""``TraceType`` (``fe.types.experimental.TraceType``): the protocol an argument's class
uses to say when ``fe.function`` may reuse a trace: an object with
``__tf_tracing_type__(context)`` is keyed by the TraceType it returns (its ``__eq__`` and
``__hash__``), instead of by its identity."""
import abc


class TraceType(abc.ABC):
    """How ``fe.function`` tells arguments apart (TensorFlow's ``tf.types.experimental.
    TraceType``): equal trace types share a trace."""

    __module__ = "fasteager.types"      # its public home (printed types)

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """Whether this type may be used where ``other`` is expected."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that ``self`` and all ``others`` are subtypes of, or None."""

    def placeholder_value(self, placeholder_context=None):
        """The value the function is traced with (fasteager traces on the call's own
        argument, so this is not called)."""
        raise NotImplementedError

    @abc.abstractmethod
    def __eq__(self, other):
        ...

    @abc.abstractmethod
    def __hash__(self):
        ...
