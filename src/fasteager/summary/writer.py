"""Summary writers and the thread-local summary state (default writer, step, record_if).

Mirrors TF2's ``tf.summary`` state model (tensorflow/python/ops/summary_ops_v2.py):
the default writer, the default step and the recording condition all live in one
``threading.local``, so each thread has its own, and ``as_default``/``record_if`` are
context managers that restore the previous value on exit.

A file writer queues serialized, TFRecord-framed events in memory and writes them out
when the queue holds more than ``max_queue`` events, when more than ``flush_millis``
have passed since the last flush (checked on each write, as TF's C++ writer does, and
by a daemon thread per writer that sleeps until ``flush_millis`` after the last flush and
writes out pending events; it stops when the writer closes), on ``flush()``/``close()``,
when the writer is garbage collected, and at interpreter exit. ``flush()`` hands data to
the OS; ``close()`` also fsyncs. The flush schedule reads time through a ``_Timer`` (a
clock and an interruptible sleep), which tests replace with a manual one.

Arguments are validated before any state changes (see ``_checks``): a rejected call
opens no file, changes no default and leaves existing event files as they were.
"""

import itertools
import os
import socket
import threading
import time
import weakref

import numpy as np

from .. import errors
from .._src.state import replicas
from . import _checks, _events

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "create_noop_writer",
    "flush",
    "get_step",
    "record_if",
    "set_step",
    "should_record_summaries",
]


class _SummaryState(threading.local):
    def __init__(self):
        super().__init__()
        self.writer = None
        self.step = None
        self.is_recording = None  # None means "record" (TF2's default)


_state = _SummaryState()
_file_counter = itertools.count(1)  # per-process uid in event file names, as TF does


def resolve_step(step, op):
    """The int value of a summary step: TF's steps are int64, so [-2**63, 2**63 - 1]."""
    if type(step) is int and _checks.INT64_MIN <= step <= _checks.INT64_MAX:
        return step   # the common case, once per summary call
    return _checks.integer(op, "step", step, _checks.INT64_MIN, _checks.INT64_MAX)


class _Timer:
    """The time source of one writer's flushes: a monotonic clock and a sleep that
    ``stop()`` interrupts. Tests substitute a manual timer through ``_new_timer``."""

    clock = staticmethod(time.monotonic)

    def __init__(self):
        self._stopped = threading.Event()

    def sleep(self, seconds):
        """Sleep up to ``seconds``; return True if stopped (at once, or during the sleep)."""
        return self._stopped.wait(seconds)

    def stop(self):
        self._stopped.set()


_new_timer = _Timer


class _EventFile:
    """The open event file and its queue of framed records.

    Kept separate from ``SummaryWriter`` so that a ``weakref.finalize`` can flush and
    close it without keeping the writer alive.
    """

    def __init__(self, path, max_queue, flush_millis):
        self.path = path
        self.max_queue = max_queue
        self.flush_secs = flush_millis / 1000.0
        self.lock = threading.Lock()
        self.queue = []
        self.timer = _new_timer()
        self.file = open(path, "wb")  # noqa: SIM115 -- lives until close()
        self.last_flush = self.timer.clock()
        self.file.write(_events.frame_record(_events.file_version_event(time.time())))
        self.file.flush()
        self._thread = None
        if self.flush_secs > 0:
            # holds the _EventFile, never the writer, so garbage collection still works
            self._thread = threading.Thread(target=self._flush_loop, daemon=True,
                                            name="fasteager-summary-flush")
            self._thread.start()

    def _flush_loop(self):
        # Sleep until flush_secs after the last flush (a flush by a write or by flush()
        # pushes the deadline back), then write out whatever is queued.
        delay = self.flush_secs
        while not self.timer.sleep(delay):
            with self.lock:
                if self.file is None:
                    return
                delay = self.last_flush + self.flush_secs - self.timer.clock()
                if delay <= 0:
                    if self.queue:
                        self._flush_locked()
                    delay = self.flush_secs

    def add(self, record):
        framed = _events.frame_record(record)
        with self.lock:
            if self.file is None:
                raise RuntimeError(f"SummaryWriter for {self.path} is already closed")
            self.queue.append(framed)
            if (len(self.queue) > self.max_queue
                    or self.timer.clock() - self.last_flush >= self.flush_secs):
                self._flush_locked()

    def _flush_locked(self):
        if self.queue:
            self.file.write(b"".join(self.queue))
            self.queue.clear()
        self.file.flush()
        self.last_flush = self.timer.clock()

    def flush(self):
        with self.lock:
            if self.file is not None:
                self._flush_locked()

    def close(self):
        self.timer.stop()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)
        with self.lock:
            if self.file is None:
                return
            try:
                self._flush_locked()
                os.fsync(self.file.fileno())
            finally:
                self.file.close()
                self.file = None


class SummaryWriter:
    """Base interface of summary writers (``fe.summary.SummaryWriter``)."""

    def set_as_default(self, step=None):
        """Make this the default writer of the current thread (and set the step if given)."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """Context manager making this the current thread's default writer.

        If ``step`` is not None it also becomes the default step inside the block. The
        writer is flushed on exit.

        >>> with fe.summary.create_file_writer("/tmp/logs").as_default(step=0):
        ...     fe.summary.scalar("loss", 0.5)
        """
        _check_step_arg("SummaryWriter.as_default", step)
        return _SummaryContextManager(self, step)

    def init(self):
        """Initialize the writer (file writers are initialized on creation)."""

    def flush(self):
        """Write queued events out to the OS."""

    def close(self):
        """Flush and close the writer."""

    def _write_event(self, record):
        raise NotImplementedError


class _SummaryContextManager:
    # A class rather than @contextmanager so that set_as_default can just __enter__ it.
    def __init__(self, writer, step):
        self._writer = writer
        self._step = step
        self._old_writer = None
        self._old_step = None

    def __enter__(self):
        self._old_writer = _state.writer
        _state.writer = self._writer
        if self._step is not None:
            self._old_step = _state.step
            _state.step = self._step
        return self._writer

    def __exit__(self, *exc):
        try:
            self._writer.flush()
        finally:
            _state.writer = self._old_writer
            if self._step is not None:
                _state.step = self._old_step
        return False


def _check_step_arg(op, step):
    # A default step may be a variable read at each call: check its current value now,
    # so that a bad step fails where it is set rather than at some later summary.
    if step is not None:
        resolve_step(step, op)


# The typed error (each also an OSError subclass) that a failing file call becomes.
_OS_ERRORS = ((FileExistsError, errors.AlreadyExistsError),
              (FileNotFoundError, errors.NotFoundError),
              (PermissionError, errors.PermissionDeniedError))


def _os_error(op, what, path, exc):
    message = f"{op}: cannot {what} (expected a writable directory, got {path!r}: {exc})"
    for builtin, typed in _OS_ERRORS:
        if isinstance(exc, builtin):
            return typed(message)
    return OSError(exc.errno, message) if exc.errno else OSError(message)


class FileWriter(SummaryWriter):
    """Writes events to ``<logdir>/events.out.tfevents.<time>.<host>.<pid>.<n><suffix>``."""

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        self._logdir = logdir
        self._max_queue = max_queue
        self._flush_millis = flush_millis
        self._suffix = filename_suffix
        self._closed = False
        self._file = None
        self._finalizer = None
        self._open()

    def _open(self):
        try:
            os.makedirs(self._logdir, exist_ok=True)
        except OSError as e:
            raise _os_error("create_file_writer", "create logdir", self._logdir, e) from None
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}"
                f".{os.getpid()}.{next(_file_counter)}{self._suffix}")
        path = os.path.join(self._logdir, name)
        try:
            self._file = _EventFile(path, self._max_queue, self._flush_millis)
        except OSError as e:
            raise _os_error("create_file_writer", "open the event file", path, e) from None
        # Runs on garbage collection or at interpreter exit, whichever comes first.
        self._finalizer = weakref.finalize(self, self._file.close)

    @property
    def logdir(self):
        return self._logdir

    @property
    def path(self):
        """Path of the event file being written."""
        return self._file.path

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"SummaryWriter is already closed (logdir {self._logdir!r})")

    def set_as_default(self, step=None):
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step=None):
        self._check_open()
        return super().as_default(step)

    def init(self):
        self._check_open()

    def flush(self):
        if not self._closed:
            self._file.flush()

    def close(self):
        if self._closed:
            return
        self._closed = True
        self._finalizer()  # closes the file once; later finalizer calls are no-ops

    def _write_event(self, record):
        self._check_open()
        self._file.add(record)

    def __repr__(self):
        state = "closed" if self._closed else "open"
        return f"<fasteager.summary.SummaryWriter {self._file.path!r} ({state})>"


class _NoopWriter(SummaryWriter):
    """A writer that discards everything (``create_noop_writer``)."""

    def set_as_default(self, step=None):
        _check_step_arg("SummaryWriter.set_as_default", step)

    def as_default(self, step=None):
        _check_step_arg("SummaryWriter.as_default", step)
        return _NoopContext()

    def _write_event(self, record):
        pass


class _NoopContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _logdir_arg(logdir):
    op = "create_file_writer"
    if logdir is None:
        raise ValueError(f"{op}: logdir cannot be None (expected a path, got None)")
    try:
        path = os.fspath(logdir)
    except TypeError:
        raise TypeError(f"{op}: logdir must be a path (expected str, bytes or os.PathLike, "
                        f"got {type(logdir).__name__})") from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path:
        raise errors.InvalidArgumentError(f"{op}: logdir must not be empty (expected a "
                                          f"directory path, got {logdir!r})")
    if "\0" in path:
        raise errors.InvalidArgumentError(f"{op}: logdir must not contain NUL characters "
                                          f"(expected a path, got {logdir!r})")
    return path


def _suffix_arg(filename_suffix):
    op = "create_file_writer"
    if filename_suffix is None:
        return ".v2"
    if not isinstance(filename_suffix, str):
        raise TypeError(f"{op}: filename_suffix must be a string (expected str, "
                        f"got {type(filename_suffix).__name__})")
    separators = {os.sep, os.altsep or os.sep, "\0"}
    if any(c in filename_suffix for c in separators):
        raise errors.InvalidArgumentError(f"{op}: filename_suffix must not contain a path "
                                          f"separator or NUL (expected a file name part, "
                                          f"got {filename_suffix!r})")
    _checks.utf8(op, "filename_suffix", filename_suffix)
    return filename_suffix


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None):
    """Create a summary writer for the directory ``logdir`` (created with its parents).

    Args:
      logdir: directory for the event file.
      max_queue: flush once more than this many events are queued (default 10).
      flush_millis: flush on the next write once this many ms have passed since the
        last flush (default 120000).
      filename_suffix: replaces the file name's default ``.v2`` suffix.
      name: unused; accepted for TensorFlow compatibility.

    >>> writer = fe.summary.create_file_writer("/tmp/logs")
    >>> with writer.as_default(step=3):
    ...     fe.summary.scalar("loss", 0.25)
    True
    """
    op = "create_file_writer"
    logdir = _logdir_arg(logdir)
    # TF takes both as int32 tensors: integers only, never negative.
    max_queue = 10 if max_queue is None else _checks.integer(op, "max_queue", max_queue, 0,
                                                             _checks.INT32_MAX)
    flush_millis = 120000 if flush_millis is None else _checks.integer(
        op, "flush_millis", flush_millis, 0, _checks.INT32_MAX)
    suffix = _suffix_arg(filename_suffix)
    if name is not None:
        _checks.string(op, "name", name)
    if not replicas.should_write():   # multi-worker: only the chief writes summaries
        return create_noop_writer()
    return FileWriter(logdir, max_queue, flush_millis, suffix)


def create_noop_writer():
    """Return a writer that does nothing: a placeholder where a writer is expected."""
    return _NoopWriter()


def flush(writer=None, name=None):
    """Flush ``writer``, or the current default writer if None (no-op if there is none)."""
    if writer is not None and not isinstance(writer, SummaryWriter):
        raise TypeError(f"summary.flush: writer must be a SummaryWriter (expected a writer "
                        f"from create_file_writer or None, got {type(writer).__name__})")
    if name is not None:
        _checks.string("summary.flush", "name", name)
    writer = _state.writer if writer is None else writer
    if writer is not None:
        writer.flush()


class record_if:
    """Context manager turning recording on or off: ``condition`` is a bool or a callable.

    A callable is evaluated at each summary call, e.g.
    ``record_if(lambda: step % 100 == 0)``.
    """

    def __init__(self, condition):
        if not callable(condition):
            _condition_value(condition, "summary.record_if")
        self._condition = condition
        self._old = None

    def __enter__(self):
        self._old = _state.is_recording
        _state.is_recording = self._condition
        return self

    def __exit__(self, *exc):
        _state.is_recording = self._old
        return False


def should_record_summaries():
    """True if a default writer is set and the ``record_if`` condition (if any) holds."""
    if _state.writer is None:
        return False
    cond = _state.is_recording
    if cond is None:
        return True
    if callable(cond):
        cond = cond()
    return _condition_value(cond, "summary.record_if")


def _condition_value(cond, op):
    """A recording condition as a bool: a bool or a scalar boolean tensor, as in TF."""
    if cond is True or cond is False:
        return cond
    arr = _checks.as_array(op, "condition", cond)
    if arr.dtype != np.bool_:
        raise TypeError(f"{op}: condition must be a boolean (expected bool, a boolean scalar "
                        f"tensor or a callable returning one, got {arr.dtype} {cond!r})")
    if arr.ndim != 0:
        raise errors.InvalidArgumentError(f"{op}: condition must be a scalar (expected shape "
                                          f"(), got {arr.shape})")
    return bool(arr)


def set_step(step):
    """Set the default summary step of the current thread (an int, a variable, or None).

    A variable is read at each summary call, so ``set_step(optimizer.iterations)``
    tracks training.
    """
    _check_step_arg("summary.experimental.set_step", step)
    _state.step = step


def get_step():
    """Return the default summary step of the current thread, or None."""
    return _state.step


def current_writer():
    """The current thread's default writer, or None."""
    return _state.writer
