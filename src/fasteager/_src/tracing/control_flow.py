"""``fe.cond`` and ``fe.while_loop``: TensorFlow's functional control flow.

Eagerly they are what they look like: the predicate is evaluated and one branch runs, or
the loop runs in Python; gradients flow because the ops inside are recorded as usual.

Inside ``fe.function``, when the predicate (or a loop variable) depends on the
function's inputs, each branch, and the loop's condition and body, is traced once into a
sub-graph (a ``ConcreteFunction`` whose inputs are its operands plus the tensors it
captures from the enclosing graph), and the enclosing graph gets one control step that
picks the branch, or runs the loop, on every replay. Like TensorFlow, both branches are
traced (their Python side effects happen at trace time; variable writes made while
tracing are undone and redone by the branch that runs). The whole step is one node on
the tapes; a gradient taken inside the function across it is another control step, which
re-runs whichever branch or loop the replay runs under a tape. What a sub-graph cannot
replay (branches of different shapes, a loop variable changing shape, a read of a
tensor's value, random draws, ``next(iterator)``, higher-order gradients inside the
function) makes the enclosing function run eagerly on every call, as ``fe.function``
does for Python ``if`` on tensors: results stay right.
"""
import threading

import numpy as np

from ... import _core, _graph
from .. import nest
from ..autodiff.tape import GradientTape
from ...ops.array_ops import identity
from .concrete import ConcreteFunction
from .tracer import KIND_CONTROL, KIND_EFFECT, _Tracer

Tensor = _core.Tensor
VariableBase = _core.VariableBase

__all__ = ["cond", "while_loop"]


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()`` (``tf.cond``).

    >>> fe.cond(fe.constant(2.0) > 1.0, lambda: fe.constant(1), lambda: fe.constant(-1))
    <fe.Tensor: shape=(), dtype=int32, numpy=1>
    """
    for arg, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if fn is None:
            raise TypeError("cond(): '%s' argument required" % arg)
        if not callable(fn):
            raise TypeError("cond(): '%s' must be callable (got %s)" % (arg, type(fn).__name__))
    if isinstance(pred, VariableBase):
        pred = pred._read()
    tracer = _core.get_tracer()
    if tracer is not None and isinstance(pred, Tensor):
        if pred._value.size != 1:
            raise ValueError("cond(): pred must be a scalar (expected shape (), got %s)"
                             % (tuple(pred._value.shape),))
        r = tracer.find(pred)
        if r is not None and r in tracer.dep:
            done = _traced_cond(tracer, pred, true_fn, false_fn)
            if done is not _EAGER:
                return done
    return true_fn() if _truth("cond", pred) else false_fn()


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` (``tf.while_loop``).

    ``loop_vars`` is a tuple or list (possibly nested); the result has its structure.

    >>> fe.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2.0), (0, 1.0))
    (<fe.Tensor: shape=(), dtype=int32, numpy=3>, <fe.Tensor: shape=(), dtype=float32, numpy=8.0>)
    """
    for arg, fn in (("cond", cond), ("body", body)):
        if not callable(fn):
            raise TypeError("while_loop: '%s' must be callable (got %s)"
                            % (arg, type(fn).__name__))
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError("while_loop: loop_vars must be a tuple or list of tensors (got %s)"
                        % type(loop_vars).__name__)
    if not loop_vars:
        raise ValueError("while_loop: 'loop_vars' must be provided (got an empty %s)"
                         % type(loop_vars).__name__)
    if maximum_iterations is not None:
        maximum_iterations = int(maximum_iterations)
    structure = loop_vars
    flat = _as_tensors(nest.flatten(loop_vars))
    tracer = _core.get_tracer()
    # (in a trace, extension values and other composites are loop variables through their
    # components; other loop variables, such as TensorArrays, run as a Python loop)
    parts = _as_tensors(nest.flatten(loop_vars, expand_composites=True)) \
        if tracer is not None else ()
    if tracer is not None and all(isinstance(t, Tensor) for t in parts):
        done = _traced_while(tracer, cond, body, structure, parts, shape_invariants,
                             maximum_iterations)
        if done is not _EAGER:
            return nest.pack_sequence_as(structure, done, expand_composites=True)
    iterations = 0
    while maximum_iterations is None or iterations < maximum_iterations:
        if not _truth("while_loop", cond(*nest.pack_sequence_as(structure, flat))):
            break
        flat = _body_step(body, structure, flat)
        iterations += 1
    return nest.pack_sequence_as(structure, flat)


# -- eager pieces ------------------------------------------------------------------------
def _truth(what, value):
    if isinstance(value, VariableBase):
        value = value._read()
    if isinstance(value, Tensor):
        if value._value.size != 1:
            raise ValueError("%s: the predicate must be a scalar (expected shape (), got %s)"
                             % (what, tuple(value._value.shape)))
        return bool(value)
    return bool(value)


def _true(t):
    """A scalar predicate tensor's truth, read without telling a tracer (the control step
    reads it on every replay)."""
    return _true_array(t._value)


def _as_tensors(flat):
    """Loop variables as tensors (Python and NumPy values converted; other objects, such
    as TensorArrays, kept)."""
    out = []
    for x in flat:
        if isinstance(x, VariableBase):
            x = x._read()
        elif isinstance(x, (int, float, bool, complex, np.ndarray, np.generic)):
            x = _core.convert_to_tensor(x)
        out.append(x)
    return out


def _body_step(body, structure, flat, composites=False):
    """One call of ``body``: its result, flattened and checked against ``structure``
    (``composites``: ``flat`` holds the components of composite values)."""
    result = body(*nest.pack_sequence_as(structure, flat, expand_composites=composites))
    if len(flat) == 1 and not nest.is_nested(result) and len(structure) == 1:
        result = type(structure)([result])     # one loop variable returned bare
    if not _same_structure(structure, result):
        raise ValueError("while_loop: the body must return the structure of loop_vars "
                         "(expected %s, got %s)" % (_shape_of(structure), _shape_of(result)))
    return _as_tensors(nest.flatten(result, expand_composites=composites))


def _same_structure(a, b):
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b) and all(
            _same_structure(a[k], b[k]) for k in a)
    if nest.is_nested(a) or nest.is_nested(b):
        return nest.is_nested(a) and nest.is_nested(b) and len(a) == len(b) and all(
            _same_structure(x, y) for x, y in zip(a, b))
    return True


def _shape_of(s):
    return repr(nest.pack_sequence_as(s, ["."] * len(nest.flatten(s)))) if nest.is_nested(s) \
        else "a single value"


# -- inside fe.function ------------------------------------------------------------------
class _SubGraph(ConcreteFunction):
    """A branch or loop body traced inside a function. A gradient taken across it inside
    a trace would bake this call's branch into the enclosing graph: that trace is marked
    eager-only instead."""

    def _record(self, tensors, var_tensors, outs, saving=None, saved=None, seeds=None):
        if getattr(_unrecorded, "on", False):
            return                 # the enclosing control flow records one node for all
        inputs = tuple(tensors) + tuple(var_tensors)

        def backward(gs):
            tracer = _core.get_tracer()
            if tracer is not None and tracer.escaped is None:
                tracer.escaped = "a gradient through fe.cond or fe.while_loop inside it"
            return self._backward(inputs, outs, gs, saving, saved, seeds)
        _core.record_custom(inputs, tuple(outs), backward)


_unrecorded = threading.local()


def _traced_step(tracer, name, eager, in_tensors, graphs, on_arrays=None, saved=None):
    """Run a control step now on the trace's tensors and record it in ``tracer``: its
    outputs, as the trace's tensors. ``saved``: what saved_model saves of the step (see
    ``_control_step``)."""
    outs = _run_now(tracer, eager, in_tensors, graphs)

    def entry(*tensors):
        # an eager re-run of the enclosing graph (for its gradients) that is itself being
        # traced records the step in that trace too, so it is not frozen there
        now = _core.get_tracer()
        if now is None:
            return eager(*tensors)
        return _traced_step(now, name, eager, list(tensors), graphs, on_arrays, saved)
    return _control_step(tracer, name, entry, [tracer.reg_of(t) for t in in_tensors], outs,
                         graphs, on_arrays, saved)


def _run_now(tracer, eager, in_tensors, graphs):
    """This call's outputs of a control step (``eager`` on the trace's tensors), with one
    tape node for the whole step: its backward, taken inside the trace, is itself a
    control step (the gradient of whichever branch or loop the replay runs)."""
    variables = list({id(v): v for g in graphs for v in g.variables}.values())
    var_tensors = [v._read() for v in variables]     # (the trace reads them: tapes watch)
    was = getattr(_unrecorded, "on", False)
    _unrecorded.on = True
    try:
        outs = eager(*in_tensors)
    finally:
        _unrecorded.on = was
    if not outs or not _core.any_tape_recording():
        return outs
    grad = _gradient_of(eager, len(in_tensors), variables)

    def backward(gs):
        gs = [g if g is not None else _core.wrap(np.zeros_like(o._value))
              for g, o in zip(gs, outs)]
        now = _core.get_tracer()
        with _core.no_tracer():       # computed eagerly: no op of it is recorded
            if now is not tracer or _core.any_tape_recording():
                if now is not None and now.escaped is None:   # (a higher-order gradient)
                    now.escaped = "a higher-order gradient through fe.cond or fe.while_loop"
                return grad(*in_tensors, *gs)
            result = grad(*in_tensors, *gs)
        ins = [tracer.reg_of(t) for t in list(in_tensors) + gs]
        registered = iter(_control_step(tracer, "control_flow_grad",
                                        lambda *ts: _present(grad(*ts)), ins,
                                        _present(result), ()))
        return [None if t is None else next(registered) for t in result]
    _core.record_custom(tuple(in_tensors) + tuple(var_tensors), tuple(outs), backward)
    return outs


def _present(grads):
    return [t for t in grads if t is not None]


def _gradient_of(eager, n_in, variables):
    """``grad(*inputs, *output_grads)``: the gradients of ``eager``'s outputs w.r.t. its
    float inputs and ``variables`` (None for the others), by running it under a tape."""

    def grad(*tensors):
        ins, gs = tensors[:n_in], tensors[n_in:]
        # each input position gets its own partial derivative (the tape sums a tensor passed
        # at two positions, captured by both branches): positions are distinct tensors
        ins = [identity(t) if t._value.dtype.kind in "fc" else t for t in ins]
        floats = [t for t in ins if t._value.dtype.kind in "fc"]
        with GradientTape(watch_accessed_variables=False) as tape:
            for t in floats:
                tape.watch(t)
            for v in variables:
                tape.watch(v)
            outs = eager(*ins)
        pairs = [(o, g) for o, g in zip(outs, gs) if o._value.dtype.kind in "fc"]
        sources = floats + variables
        if not pairs or not sources:
            grads = [None] * len(sources)
        else:
            grads = tape.gradient([o for o, _ in pairs], sources,
                                  output_gradients=[g for _, g in pairs],
                                  unconnected_gradients="zero")
        it = iter(grads)
        result = [next(it) if t._value.dtype.kind in "fc" else None for t in ins]
        return result + list(it)
    return grad


def _trace_sub(parent, label, fn, operands):
    """Trace ``fn(*operands)`` as a sub-graph of ``parent``: (subgraph, structure), or a
    str saying why it cannot be replayed."""
    raw = _trace_raw(parent, label, fn, operands)
    if isinstance(raw, str):
        return raw
    sub, result = raw
    graph = _finish_sub(sub, result, [] if result is None else nest.flatten(result))
    return graph if isinstance(graph, str) else (graph, result)


def _trace_raw(parent, label, fn, operands):
    """Run ``fn(*operands)`` under a sub-graph recorder of ``parent``: (recorder, result),
    or a str saying why it cannot be replayed. ``_finish_sub`` makes the graph."""
    sub = _Tracer("%s/%s" % (parent.name, label), allow_variables=False)
    sub.parent = parent
    # operands are new tensors (and arrays): a loop variable that starts as a tensor the
    # body also captures (``(0, x)`` with ``x`` used in the body) must stay two inputs
    operands = [_core.wrap(np.array(t._value, copy=True)) for t in operands]
    for t in operands:
        sub.add_input(t)
    try:
        with _core.tracing_into(sub):
            result = fn(*operands)
    finally:
        for v, t in sub.snapshots.values():     # the branch that runs writes them again
            v._tensor = t
    if sub.escaped or sub.pulls or sub.fresh:
        return sub.escaped or "next() on an iterator in fe.cond or fe.while_loop"
    return sub, result


def _finish_sub(sub, result, leaves):
    """The sub-graph recorded in ``sub`` whose outputs are ``leaves`` (tensors, variables,
    or Python values, which become constants), or a str saying why it cannot replay."""
    tensors = []
    for x in leaves:
        if isinstance(x, VariableBase):
            sub.variable_read(x)       # (a variable the branch wrote is read again)
            x = x._tensor
        elif not isinstance(x, Tensor):
            x = _core.convert_to_tensor(x)
        tensors.append(x)
    regs = [sub.reg_of(t) for t in tensors]
    graph = _SubGraph(sub.name, sub, result, regs)
    if graph._eager_only:
        return graph._eager_only
    graph._captures = list(sub.captures)
    graph._capture_tensors = list(sub.capture_tensors)
    graph._assigned, graph._snapshots = sub.assigned, sub.snapshots
    graph._result_meta = [(t._value.dtype, t._value.shape) for t in tensors]
    return graph


def _run(graph, tensors):
    """Call a sub-graph on tensors (recorded on tapes like any function call)."""
    return graph._call_flat(list(tensors))


def _run_arrays(graph, arrays):
    """Replay a sub-graph on arrays (a replay of the enclosing graph: no tape records it,
    the enclosing call is one node)."""
    regs = graph._template[:]
    for r, a in zip(graph._inputs, arrays):
        regs[r] = a
    for v, r in graph._var_inputs:
        regs[r] = v._tensor._value
    graph._replay.run(regs)
    # (a kernel may return a NumPy scalar: registers hold arrays, as wrapping makes them)
    return [np.asarray(a) if isinstance(a, np.generic) else a
            for a in [regs[r] for r in graph._out_regs]]


def _true_array(v):
    if not isinstance(v, (np.ndarray, np.generic)):
        v = v.get()                   # a GPU value
    return bool(np.asarray(v).reshape(-1)[0])


def _control_step(tracer, name, eager, ins, outs, graphs, on_arrays=None, saved=None):
    """Record a control step computing ``outs`` from registers ``ins``; ``eager`` maps
    input tensors to output tensors (re-runs under tapes call it), ``on_arrays`` arrays to
    arrays (the replay; by default ``eager`` on wrapped arrays). ``saved`` (the step's
    ``attrs["control"]``, read by saved_model): ``("cond", true graph, false graph)`` or
    ``("while_loop", cond graph, body graph, maximum_iterations)``."""
    wrap = _core.wrap

    def replay(*arrays):
        if on_arrays is not None:
            return on_arrays(arrays)
        return tuple(t._value for t in eager(*[wrap(a) for a in arrays]))
    for g in graphs:           # later reads of variables a branch writes read them again
        tracer.assigned.update(g._assigned)
        for vid, snap in g._snapshots.items():
            tracer.snapshots.setdefault(vid, snap)
    if not outs:               # run for its effects alone (variable writes, prints)
        tracer.steps.append(_graph.Step(KIND_EFFECT, replay, tuple(ins),
                                        {"retains_inputs": True, "control": saved}, -1,
                                        False, name))
        return outs
    seen = set()
    distinct = []
    for t in outs:             # one tensor twice (one gradient for two inputs): two outputs
        distinct.append(_core.wrap(t._value) if id(t) in seen else t)
        seen.add(id(t))
    regs = tuple(tracer._out(t, True) for t in distinct)
    tracer.steps.append(_graph.Step(KIND_CONTROL, replay, tuple(ins),
                                    {"eager": eager, "control": saved}, regs, True, name))
    # kept on every replay even when no output is used (a branch may assign variables), and
    # its inputs never live in reused buffers (a branch may return one as its output)
    tracer.effect(lambda *arrays: None, distinct, (), name + "_keep", retains_inputs=True)
    return distinct


_EAGER = object()     # what the traced forms return when the control flow runs inline


def _fallback(tracer, why):
    """The enclosing trace cannot be replayed (it runs eagerly on every call); this call
    runs the control flow inline."""
    if tracer.escaped is None:
        tracer.escaped = why
    return _EAGER


def _traced_cond(tracer, pred, true_fn, false_fn, merge=None):
    """``fe.cond`` inside a trace: both branches traced, one control step recorded.

    ``merge(true_result, false_result)`` gives ``(true_leaves, false_leaves, pack)``: the
    outputs of each branch (equal in number) and ``pack(outputs, pred_is_true)`` building
    the result from the step's outputs, or a str when the pair cannot be replayed
    (AutoGraph's ``if`` passes its own; ``fe.cond``'s is ``_merge_results``)."""
    raws = []
    for label, fn in (("cond_true", true_fn), ("cond_false", false_fn)):
        raw = _trace_raw(tracer, label, fn, ())
        if isinstance(raw, str):
            return _fallback(tracer, raw)
        raws.append(raw)
    (t_sub, t_result), (f_sub, f_result) = raws
    merged = (merge or _merge_results)(t_result, f_result)
    if isinstance(merged, str):
        return _fallback(tracer, merged)
    t_leaves, f_leaves, pack = merged
    t_graph = _finish_sub(t_sub, t_result, t_leaves)
    if isinstance(t_graph, str):
        return _fallback(tracer, t_graph)
    f_graph = _finish_sub(f_sub, f_result, f_leaves)
    if isinstance(f_graph, str):
        return _fallback(tracer, f_graph)
    for (td, ts), (fd, fs) in zip(t_graph._result_meta, f_graph._result_meta):
        if td != fd:
            raise TypeError("cond(): true_fn and false_fn must return the same dtypes "
                            "(got %s and %s)" % (td, fd))
        if ts != fs:
            return _fallback(tracer, "fe.cond with branches of different shapes")
    n_true = len(t_graph._captures)

    def eager(p, *captured):
        graph, caps = (t_graph, captured[:n_true]) if _true(p) else \
            (f_graph, captured[n_true:])
        return _run(graph, caps)
    # this call's values: the chosen branch run on the trace's tensors (tapes see it)
    def on_arrays(arrays):
        if _true_array(arrays[0]):
            return tuple(_run_arrays(t_graph, arrays[1:n_true + 1]))
        return tuple(_run_arrays(f_graph, arrays[n_true + 1:]))
    outs = _traced_step(tracer, "cond", eager, [pred] + t_graph._capture_tensors +
                        f_graph._capture_tensors, (t_graph, f_graph), on_arrays,
                        ("cond", t_graph, f_graph))
    t_graph._capture_tensors = f_graph._capture_tensors = None   # (trace-time values)
    return pack(outs, _true(pred))


def _merge_results(t_result, f_result):
    """``fe.cond``'s branches: the same structure, every leaf an output."""
    # (the components of extension values, ragged and sparse tensors are outputs)
    t_flat = [] if t_result is None else nest.flatten(t_result, expand_composites=True)
    f_flat = [] if f_result is None else nest.flatten(f_result, expand_composites=True)
    if not _same_structure(t_result, f_result) or len(t_flat) != len(f_flat):
        raise ValueError("cond(): true_fn and false_fn must return the same structure "
                         "(got %s and %s)" % (_shape_of(t_result), _shape_of(f_result)))

    def pack(outs, pred_true):
        structure = t_result if pred_true else f_result
        if not outs:
            return structure
        return nest.pack_sequence_as(structure, list(outs), expand_composites=True)
    return t_flat, f_flat, pack


def _traced_while(tracer, cond_fn, body_fn, structure, flat, shape_invariants,
                  maximum_iterations):
    def cond_flat(*tensors):
        return cond_fn(*nest.pack_sequence_as(structure, list(tensors),
                                              expand_composites=True))

    def body_flat(*tensors):
        return _body_step(body_fn, structure, list(tensors), composites=True)
    c = _trace_sub(tracer, "while_cond", cond_flat, flat)
    if isinstance(c, str):
        return _fallback(tracer, c)
    b = _trace_sub(tracer, "while_body", body_flat, flat)
    if isinstance(b, str):
        return _fallback(tracer, b)
    c_graph, b_graph = c[0], b[0]
    if len(c_graph._result_meta) != 1 or c_graph._result_meta[0][1] not in ((), (1,)):
        raise ValueError("while_loop: cond must return a scalar (got %s)"
                         % ([m[1] for m in c_graph._result_meta],))
    for t, (dtype, shape) in zip(flat, b_graph._result_meta):
        if t._value.dtype != dtype:
            raise TypeError("while_loop: a loop variable enters the loop with dtype %s but "
                            "has dtype %s after one iteration" % (t._value.dtype, dtype))
        if t._value.shape != shape:
            if shape_invariants is None:
                raise ValueError("while_loop: a loop variable enters the loop with shape %s "
                                 "but has shape %s after one iteration (pass "
                                 "shape_invariants to allow it)"
                                 % (tuple(t._value.shape), tuple(shape)))
            return _fallback(tracer, "fe.while_loop with a loop variable changing shape")
    n = len(flat)
    n_cond = len(c_graph._captures)

    def eager(*tensors):
        values = list(tensors[:n])
        c_caps = list(tensors[n:n + n_cond])
        b_caps = list(tensors[n + n_cond:])
        iterations = 0
        while maximum_iterations is None or iterations < maximum_iterations:
            p = _run(c_graph, values + c_caps)[0]
            if not _true(p):
                break
            values = _run(b_graph, values + b_caps)
            iterations += 1
        return values
    def on_arrays(arrays):
        values = list(arrays[:n])
        c_caps = list(arrays[n:n + n_cond])
        b_caps = list(arrays[n + n_cond:])
        iterations = 0
        while maximum_iterations is None or iterations < maximum_iterations:
            if not _true_array(_run_arrays(c_graph, values + c_caps)[0]):
                break
            values = _run_arrays(b_graph, values + b_caps)
            iterations += 1
        return tuple(values)
    outs = _traced_step(tracer, "while_loop", eager, list(flat) + c_graph._capture_tensors +
                        b_graph._capture_tensors, (c_graph, b_graph), on_arrays,
                        ("while_loop", c_graph, b_graph, maximum_iterations))
    c_graph._capture_tensors = b_graph._capture_tensors = None
    return outs
