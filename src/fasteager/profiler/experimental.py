"""``fe.profiler.experimental``: TensorFlow's profiler API over fasteager's own tracer.

``start(logdir)`` / ``stop()`` (or ``with Profile(logdir):``) record, process-wide, one
event per op run eagerly (``_core`` reports each to the session: an op pays one C
integer test while no profiler runs), per step of a replayed ``fe.function`` graph, and
per ``Trace(name)`` annotation, each on the line of the thread that ran it, with
nanosecond times. ``stop`` writes them where TensorBoard's profile plugin reads them:
``<logdir>/plugins/profile/<run>/<host>.xplane.pb``, an ``XSpace`` protobuf (``_xplane``).

``ProfilerOptions(host_tracer_level=2)``: 1 records the annotations only, 2 and up the
ops too, 0 nothing. ``python_tracer_level`` and ``device_tracer_level`` are accepted and
ignored (there is no Python function tracer; GPU kernels are not timed).
"""
import collections
import os
import socket
import threading
import time

from .. import _core, _graph
from ..errors import AlreadyExistsError, InvalidArgumentError, UnavailableError
from . import _xplane

__all__ = ["Profile", "ProfilerOptions", "Trace", "start", "stop"]


class ProfilerOptions(collections.namedtuple(
        "ProfilerOptions", ["host_tracer_level", "python_tracer_level",
                            "device_tracer_level", "delay_ms"])):
    """Options of ``start`` (TensorFlow's; see the module docstring)."""

    def __new__(cls, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1,
                delay_ms=None):
        return super().__new__(cls, host_tracer_level, python_tracer_level,
                               device_tracer_level, delay_ms)


class _Session:
    """The events of one profiling run, per thread."""

    def __init__(self, logdir, options):
        self.logdir = logdir
        self.level = int(options.host_tracer_level)
        self.epoch_ns = time.time_ns()
        self.perf_ns = time.perf_counter_ns()
        self.lines = {}            # thread ident -> (thread name, [events])

    def add(self, name, start, end, stats=()):
        ident = threading.get_ident()
        line = self.lines.get(ident)
        if line is None:
            line = self.lines.setdefault(ident, (threading.current_thread().name, []))
        line[1].append((name, start, end, stats))   # (list.append is atomic)

    def space(self):
        """The XSpace bytes of the events recorded."""
        shift = self.epoch_ns - self.perf_ns       # perf_counter ns -> ns since the epoch
        event_ids, stat_ids, lines = {}, {}, []
        for ident, (thread, events) in sorted(self.lines.items()):
            if not events:
                continue
            out = []
            for name, start, end, stats in sorted(list(events), key=lambda e: e[1]):
                mid = event_ids.setdefault(name, len(event_ids) + 1)
                out.append((mid, start + shift, end + shift,
                            [(stat_ids.setdefault(k, len(stat_ids) + 1), v)
                             for k, v in stats]))
            lines.append((ident, thread, out[0][1], out))
        names = {i: n for n, i in event_ids.items()}
        stat_names = {i: n for n, i in stat_ids.items()}
        return _xplane.encode_space(socket.gethostname(),
                                    [(0, "/host:CPU", lines, names, stat_names)])


_lock = threading.Lock()
_session = None


def start(logdir, options=None):
    """Start profiling; ``stop()`` writes the profile into ``logdir``."""
    global _session
    if options is None:
        options = ProfilerOptions()
    if not isinstance(options, ProfilerOptions):
        raise InvalidArgumentError("profiler.experimental.start: options must be a "
                                   "ProfilerOptions (got %s)" % type(options).__name__)
    with _lock:
        if _session is not None:
            raise AlreadyExistsError("Another profiler is running.")
        _session = _Session(None if logdir is None else os.fspath(logdir), options)
        if _session.level >= 2:
            _core.set_profile_hook(_session.add)
            _graph.set_profile_hook(_session.add)


def stop(save=True):
    """Stop profiling and (``save``) write the profile; returns the file's path (None
    when not saved)."""
    return _stop(save, None)


def _stop(save, logdir):
    global _session
    with _lock:
        session = _session
        if session is None:
            raise UnavailableError("Cannot export profiling results. No profiler is running.")
        _session = None
        _core.set_profile_hook(None)
        _graph.set_profile_hook(None)
    if not save:
        return None
    logdir = logdir if logdir is not None else session.logdir
    if logdir is None:
        raise InvalidArgumentError("profiler: no log directory to write the profile to "
                                   "(give profiler_outdir)")
    run = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(session.epoch_ns / 1e9))
    directory = os.path.join(os.fspath(logdir), "plugins", "profile", run)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, socket.gethostname() + ".xplane.pb")
    data = session.space()
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def running():
    return _session is not None


class Profile:
    """``with Profile(logdir):`` profiles the block (``start`` on entry, ``stop`` on
    exit)."""

    def __init__(self, logdir, options=None):
        self._logdir = logdir
        self._options = options

    def __enter__(self):
        start(self._logdir, self._options)
        return self

    def __exit__(self, *exc):
        stop()


class Trace:
    """``with Trace("train", step_num=step):`` an annotation: the block is one event
    named ``name`` (keyword arguments are its stats) while a profiler runs, else
    nothing."""

    __slots__ = ("_name", "_stats", "_start", "_session")

    def __init__(self, name, **kwargs):
        self._name = str(name)
        self._stats = tuple(kwargs.items())
        self._session = None

    def __enter__(self):
        session = _session
        if session is not None and session.level >= 1:
            self._session = session
            self._start = time.perf_counter_ns()
        return self

    def __exit__(self, *exc):
        session, self._session = self._session, None
        if session is not None:
            session.add(self._name, self._start, time.perf_counter_ns(), self._stats)
