"""Typed errors, as in ``tf.errors``.

Each error is also the matching Python built-in (``InvalidArgumentError`` is a
``ValueError``, ``NotFoundError`` a ``FileNotFoundError`` ...), so code that catches the
built-in keeps working. Messages follow ``"<op>: <problem> (expected X, got Y)"``.
"""


class OpError(Exception):
    """Base of every fasteager error.

    Accepts TensorFlow's signature ``OpError(node_def, op, message)`` as well as the
    plain ``OpError(message)``.
    """

    def __init__(self, *args):
        if len(args) >= 3:
            node_def, op, message = args[:3]
        elif len(args) == 1:
            node_def, op, message = None, None, args[0]
        else:
            node_def, op, message = None, None, " ".join(str(a) for a in args)
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self):
        return str(self.message)


class InvalidArgumentError(OpError, ValueError):
    """An op got an argument of the wrong shape, dtype or value."""


class NotFoundError(OpError, FileNotFoundError):
    """A file or entry does not exist."""


class AlreadyExistsError(OpError, FileExistsError):
    """The thing being created already exists."""


class ResourceExhaustedError(OpError, MemoryError):
    """Out of memory (device or host)."""


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented for these arguments."""


class FailedPreconditionError(OpError, RuntimeError):
    """The system is not in a state that allows the operation."""


class DataLossError(OpError, ValueError):
    """A file is truncated or corrupt."""


class OutOfRangeError(OpError, IndexError):
    """An iterator or index ran past its end."""


class InternalError(OpError, RuntimeError):
    """An invariant of fasteager itself was broken (a bug: please report it)."""


class UnknownError(OpError, RuntimeError):
    """An error with no better category."""


class AbortedError(OpError, RuntimeError):
    """The operation was aborted."""


class CancelledError(OpError, RuntimeError):
    """The operation was cancelled."""


class PermissionDeniedError(OpError, PermissionError):
    """The caller may not run the operation."""


class UnavailableError(OpError, RuntimeError):
    """A service (device, worker) is not available."""


class DeadlineExceededError(OpError, TimeoutError):
    """The operation did not finish in time."""
