"""``fe.summary.trace_on`` / ``trace_export`` / ``trace_off``: the graphs of the
``fe.function`` traces made in between, written for TensorBoard's graph dashboard.

As in TensorFlow, a function's graph is collected when it is traced, so a function traced
before ``trace_on`` is not collected again. ``trace_export`` writes one summary whose tag is
its ``name``: a RunMetadata holding the GraphDefs (plugin ``graph_run_metadata_graph``,
TensorFlow's own format, read by TensorBoard), then stops tracing. The state is per thread.

``trace_on(profiler=True, profiler_outdir=d)`` also starts ``fe.profiler`` (process-wide,
as TensorFlow's); ``trace_export`` then stops it and writes the profile into
``profiler_outdir`` (its own argument, else trace_on's).
"""
import threading
import warnings

from .._src.tracing import graph_view as _graph_view
from .._src.tracing import tracer as _tracer
from ..profiler import experimental as _profiler
from . import _checks, _events
from ._ops import _record

__all__ = ["trace_export", "trace_off", "trace_on"]


class _TraceState(threading.local):
    def __init__(self):
        super().__init__()
        self.on = False
        self.functions = []
        self.profiler = None        # (outdir,) while trace_on's profiler runs


_state = _TraceState()


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start collecting the graphs of the functions traced from now on (and, with
    ``profiler=True``, profiling: see ``fe.profiler.experimental``)."""
    if _state.on or _state.profiler is not None:
        warnings.warn("summary.trace_on: a trace is already on; collecting into it",
                      stacklevel=2)
        return
    if profiler:
        _profiler.start(profiler_outdir)       # AlreadyExistsError if one runs
        _state.profiler = (profiler_outdir,)
    _state.on = bool(graph)
    _state.functions = []


def collect(concrete_function):
    """Called by ``fe.function`` with each new trace (a trace listener)."""
    if _state.on:
        _state.functions.append(concrete_function)


_tracer.add_trace_listener(collect)


def trace_off():
    """Stop collecting and drop what was collected (a profile included)."""
    _state.on = False
    _state.functions = []
    if _state.profiler is not None:
        _state.profiler = None
        if _profiler.running():
            _profiler.stop(save=False)


def trace_export(name, step=None, profiler_outdir=None):
    """Write the collected graphs as summary ``name`` at ``step``, then stop tracing."""
    name = _checks.string("summary.trace_export", "name", name)
    if _state.profiler is not None:
        (outdir,), _state.profiler = _state.profiler, None
        if _profiler.running():
            _profiler._stop(True, profiler_outdir if profiler_outdir is not None
                               else outdir)
    if not _state.on and not _state.functions:
        warnings.warn("summary.trace_export: no trace is on (call fe.summary.trace_on() "
                      "first); nothing is written", stacklevel=2)
        return
    functions, _state.functions = _state.functions, []
    _state.on = False
    data = _graph_view.run_metadata([_graph_view.FuncGraph(cf).as_graph_def()
                                     for cf in functions])
    metadata = _events.summary_metadata("graph_run_metadata_graph", 0, content=b"1")
    if not _record("trace_export", name,
                   lambda: _events.string_tensor_proto([data], ()), step, metadata):
        warnings.warn("summary.trace_export: there is no default summary writer (use "
                      "`with writer.as_default():`); the trace is dropped", stacklevel=2)
