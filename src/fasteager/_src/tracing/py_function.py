"""Leaving the traced graph: ``fe.py_function`` and ``fe.init_scope``.

``py_function(func, inp, Tout)`` runs ``func`` eagerly on tensors, also inside
``fe.function``: there the trace records one step that calls ``func`` again on every
call (so its Python side effects and NumPy code run each time, as in TensorFlow), and
gradients flow through the fasteager ops ``func`` runs, recorded by the tapes while it
runs (a replayed call's backward calls ``func`` again under a tape).

``init_scope()`` lifts the code inside it out of any ``fe.function`` trace and pauses every
recording tape, as TensorFlow's does: variables made there are made once, eagerly, and
tensors computed there are constants to the trace.
"""
import contextlib
import functools

from ... import _core, _graph
from .. import nest
from ..._graph import KIND_PY_CALL
from ...dtypes import as_dtype
from ...errors import InvalidArgumentError

__all__ = ["eager_py_func", "init_scope", "py_function"]


def _out_dtypes(Tout):
    """(list of dtypes, whether the result is a list) of a ``Tout`` argument."""
    if Tout is None:
        return [], None
    if isinstance(Tout, (list, tuple)):
        return [as_dtype(d) for d in Tout], True
    return [as_dtype(Tout)], False


def _convert_results(result, dtypes, name):
    if not dtypes:
        return []
    flat = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(flat) != len(dtypes):
        raise ValueError("py_function %s: func returned %d values (expected %d, one per Tout "
                         "entry)" % (name, len(flat), len(dtypes)))
    out = []
    for i, (x, d) in enumerate(zip(flat, dtypes)):
        if isinstance(x, _core.VariableBase):
            x = x._read()
        if isinstance(x, _core.Tensor) and x.dtype != d:
            raise InvalidArgumentError("py_function %s: %d-th value returned is %s, but expects %s"
                              % (name, i, x.dtype.name, d.name))
        out.append(_core.convert_to_tensor(x, d))
    return out


def _decorated(func, Tout, name):
    @functools.wraps(func)
    def wrapper(*args):
        return py_function(func, list(args), Tout, name)
    return wrapper


def py_function(func=None, inp=None, Tout=None, name=None):
    """Call ``func(*inp)`` eagerly and return its results as tensors of dtypes ``Tout``.

    ``Tout`` is a dtype (one tensor comes back), a list of dtypes (a list comes back) or
    None (None comes back). Without ``func`` (and ``inp``) it is a decorator, as in
    TensorFlow: ``@fe.py_function(Tout=fe.float32)`` makes ``f(x, y)`` call
    ``py_function(f, [x, y], Tout)``.

    >>> fe.py_function(lambda x: x * 2, [fe.constant(3.0)], Tout=fe.float32).numpy()
    6.0
    """
    if func is None:
        if inp is not None:
            raise TypeError("py_function: `inp` given without `func` (expected both, or "
                            "neither to decorate a function)")
        return lambda f: _decorated(f, Tout, name)
    if inp is None:
        return _decorated(func, Tout, name)
    fname = name or getattr(func, "__name__", "func")
    leaves = inp if isinstance(inp, (list, tuple)) else [inp]
    inputs = [x._read() if isinstance(x, _core.VariableBase) else _core.convert_to_tensor(x)
              for x in nest.flatten(list(leaves))]
    dtypes, as_list = _out_dtypes(Tout)

    def call(*tensors):
        args = nest.pack_sequence_as(list(leaves), list(tensors))
        return _convert_results(func(*args), dtypes, fname)

    tracer = _core.get_tracer()
    if tracer is None:
        outs = call(*inputs)
    else:
        outs = _traced_call(tracer, call, inputs, fname)
    if as_list is None:
        return None
    return list(outs) if as_list else outs[0]


def _traced_call(tracer, call, inputs, fname):
    """Inside a trace: run ``call`` eagerly now and record a step calling it on replays."""
    start = len(tracer.steps)
    with _core.no_tracer():
        outs = call(*inputs)          # tapes still record it: the first call's gradients
    # func's own output tensors become the step's registers (tapes that recorded func's
    # ops reach the inputs through them: the first call's gradients)
    ins = tuple(tracer.reg_of(t) for t in inputs)
    wrap = _core.wrap

    def replay(*arrays):
        with _core.no_tracer():
            return tuple(t._value for t in call(*[wrap(a) for a in arrays]))
    if outs:
        regs = tuple(tracer._out(t, True) for t in outs)   # run-time values: never constants
        tracer.steps.append(_graph.Step(KIND_PY_CALL, replay, ins, None, regs, True,
                                        "py_function"))
        # kept on every replay even when no output is used (func may have side effects), and
        # its inputs never live in reused buffers (func may keep them)
        tracer.effect(lambda *arrays: None, list(inputs) + outs, (), "py_function_keep",
                      retains_inputs=True)
    else:
        tracer.effect(lambda *arrays: replay(*arrays), inputs, (), "py_function",
                      retains_inputs=True)

    def eager(*tensors):              # what gradients through the function re-run
        return call(*tensors)
    tracer.custom_call(eager, inputs, {}, outs, start)
    return outs


eager_py_func = py_function


@contextlib.contextmanager
def init_scope():
    """Run the enclosed code eagerly, outside any ``fe.function`` trace and any tape.

    >>> @fe.function
    ... def f(x):
    ...     with fe.init_scope():
    ...         assert fe.executing_eagerly()
    ...     return x
    """
    with _core.no_tracer():
        paused = [t for t in _core.recording_tapes() if t._pause()]
        try:
            yield
        finally:
            for t in paused:
                t._resume()
