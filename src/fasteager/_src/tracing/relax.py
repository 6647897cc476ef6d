"""Shape-relaxed traces: one trace of ``fe.function`` for every size of its ``None``
dimensions.

TensorFlow traces a function whose ``input_signature`` has ``None`` dimensions (or a
``reduce_retracing=True`` function called with a second shape) once, with symbolic
shapes. fasteager traces on real values, so a trace may serve other sizes only when
nothing it recorded holds a number taken from the traced sizes. Three parts make sure:

* shape-derived values are graph steps: ``fe.shape``, ``fe.size``, ``zeros_like`` and
  ``ones_like`` are ops in a trace (ops/array_ops.py), which read the running input's
  shape at replay, and ops on them follow it;
* a Python value taken from the sizes ties the trace to them (``_Tracer.size_bound`` in
  tracer.py): the value of a tensor computed from shapes alone read by Python code
  (``int(fe.shape(x)[0])``, ``fe.zeros(fe.shape(x))``), ``len()`` or a Python loop over
  a traced tensor, and a dimension user code reads of a computed tensor's ``.shape``
  that the check below finds following the sizes. Such a trace is not relaxed: the
  function is traced again for each new shape, as before;
* what remains is fasteager's own op code turning a size into an attribute (a reshape
  target, a slice bound): ``shadow_check`` replays the steps, without their effects, on
  inputs whose ``None`` dimensions are doubled (the same rows twice). Every computed
  value's shape must follow (each dimension doubled, or kept when it is not a traced
  size: a kept one may be baked from the shape, unless a variable read has it too, as
  a layer as wide as the batch), and every value the function returns
  or hands to an effect must be the trace's value doubled the same way (its rows twice,
  or the same value). Row-wise computations and batch means pass; a step that raises, a
  shape that does not follow or a value that changed (a sum over the batch,
  ``fe.shape(x)`` itself) fails. The check errs towards retracing, but it proves nothing
  about sizes other than the doubled one for an attribute no shape shows (a bound
  ``n - 1`` that leaves every shape as it was): fasteager's ops keep such bounds
  dynamic (``fe.slice``'s size -1 is an open end).
"""
import numpy as np

from ... import _core, _graph
from ..._graph import KIND_CONTROL, KIND_EFFECT, KIND_OP, KIND_PY_CALL, KIND_READ
from ..composite.structure import TensorSpec

_CONTROL_KEEPS = ("cond_keep", "while_loop_keep", "control_flow_grad_keep")


def shapeless(key):
    """The part of a call's cache key that does not depend on the tensors' shapes (their
    ranks stay): calls with equal shapeless keys may share a relaxed trace."""
    if type(key) is not tuple or not key:
        return key
    head = key[0]
    if type(head) is int and len(key) == 2 and type(key[1]) is tuple:
        return (head, len(key[1]))                  # a tensor: (dtype number, shape)
    if head in ("tuple", "list"):
        return (head,) + tuple(shapeless(e) for e in key[1:])
    if head == "dict":
        return ("dict",) + tuple((name, shapeless(e)) for name, e in key[1:])
    if head is None or type(head) is tuple:          # (args key, kwargs key)
        return tuple(shapeless(e) for e in key)
    return key            # values, objects, composites: compared exactly


def signature_pattern(signature):
    """The shape of each tensor input of an ``input_signature`` (``None`` where a
    dimension is unknown), in the order its tensors are bound; None when the signature
    has ragged or sparse specs or a spec of unknown rank (those are traced per shape)."""
    pattern = []

    def walk(spec):
        if isinstance(spec, TensorSpec):
            if spec.shape is None or spec.shape.rank is None:
                return False
            pattern.append(tuple(spec.shape.as_list()))
            return True
        if isinstance(spec, dict):
            return all(walk(spec[k]) for k in spec)
        if isinstance(spec, (list, tuple)):
            return all(walk(s) for s in spec)
        return False
    return tuple(pattern) if all(walk(s) for s in signature) else None


def generalize(old_shapes, new_shapes):
    """TensorFlow's ``reduce_retracing`` rule: the dimensions where two calls' shapes
    differ become ``None``."""
    return tuple(tuple(a if a == b else None for a, b in zip(s, t))
                 for s, t in zip(old_shapes, new_shapes))


def usable(pattern, shapes):
    """Whether a trace at ``shapes`` may be relaxed to ``pattern``: some dimension is
    ``None`` and every ``None`` dimension has at least two rows (at one row a constant
    made from the shape would broadcast silently to other sizes)."""
    if pattern is None:
        return False
    sizes = [d for p, s in zip(pattern, shapes) for q, d in zip(p, s) if q is None]
    return bool(sizes) and min(sizes) >= 2


def matches(pattern, shapes):
    return len(pattern) == len(shapes) and all(
        len(p) == len(s) and all(q is None or q == d for q, d in zip(p, s))
        for p, s in zip(pattern, shapes))


def _has_effects(graph):
    """Whether a sub-graph of a control step (a branch, a loop body) writes, prints or
    calls Python code (a py_function)."""
    for s in graph._all_steps:
        if s.kind == KIND_PY_CALL or (s.kind == KIND_EFFECT and
                                       not (s.name or "").endswith("_keep")):
            return True
        if s.kind == KIND_CONTROL:
            saved = (s.attrs or {}).get("control") or ()
            if any(_has_effects(g) for g in saved if hasattr(g, "_all_steps")):
                return True
    return bool(getattr(graph, "_assigned", None))


def _doubled(real, shadow, sizes):
    """The shape of ``real`` with ``None`` where ``shadow`` doubled it, when ``shadow``
    is ``real`` doubled along those dimensions and every other dimension is one that
    could not have come from the relaxed sizes; else None."""
    real, shadow = np.asarray(real), np.asarray(shadow)
    if real.ndim != shadow.ndim or real.dtype != shadow.dtype:
        return None
    reps = []
    for a, b in zip(real.shape, shadow.shape):
        if a == b:
            if a in sizes:       # stayed at a traced size: may be baked from the shape
                return None
            reps.append(1)
        elif b == 2 * a:
            reps.append(2)
        else:
            return None
    expected = np.tile(real, reps) if 2 in reps else real
    if real.dtype.kind in "fc":
        scale = float(np.max(np.abs(expected), initial=1.0)) if expected.size else 1.0
        if not np.isfinite(scale):
            scale = 1.0
        same = np.allclose(shadow, expected, rtol=1e-4, atol=1e-6 * scale, equal_nan=True)
    else:
        same = np.array_equal(shadow, expected)
    if not same:
        return None
    return tuple(None if r == 2 else a for a, r in zip(real.shape, reps))


def _follows(real, shadow, sizes):
    """Whether ``shadow``'s shape is ``real``'s with some dimensions doubled, and no
    dimension of a traced size kept (as ``_doubled`` asks of the outputs)."""
    if real is None or shadow is None:
        return True
    a, b = np.shape(real), np.shape(shadow)
    return len(a) == len(b) and all(y == 2 * x or (y == x and x not in sizes)
                                    for x, y in zip(a, b))


def shadow_check(cf, values, pattern, shape_reads=None):
    """The relaxed shape (``None`` for the dimensions that follow the inputs' ``None``
    ones) of every output register of concrete function ``cf``, traced on register
    values ``values``, when it computes the same thing at other sizes of the ``None``
    dimensions of ``pattern`` (see the module's text); None when it may not.
    ``shape_reads``: register -> the dimensions of it that user code read as numbers."""
    if cf._eager_only or cf._pulls is not None or len(cf._inputs) != len(pattern):
        return None
    for s in cf._all_steps:
        if s.kind == KIND_PY_CALL:
            return None            # (the check would call the user's Python function)
        if s.kind == KIND_CONTROL:
            saved = (s.attrs or {}).get("control") or ()
            if any(_has_effects(g) for g in saved if hasattr(g, "_all_steps")):
                return None
    if not all(isinstance(v, (np.ndarray, np.generic)) or v is None for v in values):
        return None                        # GPU values: not checked here
    sizes = set()
    regs = cf._template[:]
    for r, p in zip(cf._inputs, pattern):
        arr = values[r]
        for axis, q in enumerate(p):
            if q is None:
                sizes.add(arr.shape[axis])
                arr = np.concatenate([arr, arr], axis=axis)
        regs[r] = arr
    for _, r in cf._var_inputs:
        regs[r] = values[r]
    # a kept dimension of a traced size may be baked from it; one that is also a
    # dimension of a variable read (a layer's width equal to the batch size) is taken
    # for that variable's
    sizes -= {d for _, r in cf._var_inputs for d in np.shape(values[r])}
    watched = list(cf._out_regs)
    token = _core.quiet_enter() if cf._quiet else None
    try:
        with np.errstate(all="ignore"):
            for s in cf._all_steps:
                if s.kind == KIND_EFFECT:
                    if s.name in _CONTROL_KEEPS:
                        continue        # (keeps a control step's outputs: no effect)
                    watched.extend(s.ins)        # what the effect would write or print
                    if s.multi:                  # (a random seed: the trace's)
                        for r in s.out:
                            regs[r] = values[r]
                elif s.kind == KIND_READ:
                    regs[s.out] = values[s.out]  # the variable as the trace read it
                elif s.kind == KIND_OP and s.multi:
                    # (a count of outputs taken from the shape, as unstack's, must hold)
                    out = s.fn(*[regs[r] for r in s.ins], **(s.attrs or {}))
                    if len(out) != len(s.out):
                        return None
                    for r, a in zip(s.out, out):
                        regs[r] = a
                else:
                    _graph.run([s], regs, None)
    except Exception:
        return None
    finally:
        if token is not None:
            _core.quiet_exit(token)
    for s in cf._all_steps:
        # every computed value follows the doubling too (each dimension doubled, or kept
        # when it is not a traced size): a size baked into an op shows here even where
        # the outputs built from it hide it (split's first part, the sum of a diagonal
        # taken with indices made for the traced size)
        if s.kind in (KIND_READ, KIND_EFFECT):
            continue
        for r in (s.out if s.multi else (s.out,)):
            if type(r) is int and r >= 0 and not _follows(values[r], regs[r], sizes):
                return None
    for r, dims in (shape_reads or {}).items():
        # user code took these dimensions as numbers: they must not follow the sizes
        real, shadow = np.shape(values[r]), np.shape(regs[r])
        if len(real) != len(shadow) or any(real[d] != shadow[d] for d in dims):
            return None
    shapes = {}
    for r in set(watched):
        if values[r] is None:
            continue
        # (a constant output too: one fasteager's code made from a traced shape keeps
        # the traced size, which the check refuses)
        shape = _doubled(values[r], regs[r], sizes)
        if shape is None:
            return None
        shapes[r] = shape
    return shapes
