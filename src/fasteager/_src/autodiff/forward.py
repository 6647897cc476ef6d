"""Forward-mode automatic differentiation: ``ForwardAccumulator``, ``jvp`` and ``linearize``.

A *forward watcher* sees every differentiable op as it runs (``_core`` calls ``_on_op``
beside the tape records, only while a watcher is active: the eager path without one still
pays a single integer test). ``ForwardAccumulator`` pushes tangents through each op at
once; the recorder behind ``linearize`` keeps the ops and pushes tangents later.

The op table has one definition per op: its VJP. JVPs are derived from it:

* elementwise ops (NumPy ufunc forwards, or ``defop(jvp=ELEMENTWISE)``): the Jacobian of
  an elementwise function is diagonal, so its transpose is itself and the JVP is the VJP
  applied to the tangent (after broadcasting the inputs to the output's shape, so that
  the VJP's ``unbroadcast`` sums nothing). One VJP call: as cheap as a direct rule.
* every other op: the VJP ``g -> J^T g`` is linear in ``g``, and ``J t`` is the gradient
  of ``<J^T g, t>`` with respect to ``g`` (the transpose trick, as TensorFlow's
  accumulator does for ops without a JVP). A helper tape runs the VJP once and its
  gradient once.
* linear and multilinear ops (``defop(jvp=LINEAR)``: reshape, concat, reduce_sum ...;
  ``jvp=MULTILINEAR``: matmul): the op itself applied to the tangents, one call per input
  with a tangent, instead of a transpose (a tape, a VJP and its gradient).
* ``defop(jvp=f)``: a direct rule ``f(tangents, ans, *inputs, **attrs)``, for ops where it
  is much cheaper than both.

All of it runs on the library's own ops, so outer tapes and outer accumulators record
the tangent computation: forward-over-forward, forward-over-reverse (Hessian-vector
products) and reverse-over-forward all work. While an accumulator computes its tangents,
it and the accumulators and tapes entered after it are paused, as in TensorFlow: an
outer accumulator sees an inner one's JVPs, not the reverse.
"""
import sys
import threading
import warnings

import numpy as np

from ... import _core
from .. import nest
from ...errors import FailedPreconditionError, InvalidArgumentError, UnimplementedError
from ...ops import array_ops, elementwise_ops, reduction_ops, registry
from ...ops.registry import ELEMENTWISE, LINEAR, MULTILINEAR
from .tape import GradientTape, UnconnectedGradients

Tensor = _core.Tensor
VariableBase = _core.VariableBase


class _ForwardState(threading.local):
    """Each thread's forward watchers (outermost first) and how many of them, from the
    outermost, may see ops now (None: all; fewer while one computes its tangents)."""

    def __init__(self):
        self.watchers = []
        self.limit = None


_state = _ForwardState()

_SWEEP_MIN = 256    # tangents an accumulator keeps before it first forgets unused ones


# ---- the hooks the core calls ----------------------------------------------------------

def _on_op(op, inputs, outputs, attrs, custom):
    state = _state
    stack = state.watchers
    n = len(stack) if state.limit is None else min(state.limit, len(stack))
    # outermost first: an inner accumulator's JVP may read the op's outputs, whose outer
    # tangents must then be known
    for k in range(n):
        stack[k]._see(k, op, inputs, outputs, attrs, custom)


def _on_variable_read(var, tensor):
    state = _state
    stack = state.watchers
    n = len(stack) if state.limit is None else min(state.limit, len(stack))
    for k in range(n):
        stack[k]._variable_read(var, tensor)


def _on_array_escape(tensor):
    """A NumPy-rules tensor converted by ``__array__`` (a real NumPy function) while it is
    being differentiated: NumPy would return an ndarray and the gradient would be lost.
    An integer or bool tensor has no gradient to lose (``x.astype(int)`` is a constant)."""
    if tensor._value.dtype.kind not in "fc":
        return
    watched = any(tape._is_watched(tensor) for tape in _core.recording_tapes())
    if not watched:
        watched = any(w._connected(tensor) for w in _state.watchers)
    if watched:
        raise FailedPreconditionError(
            "a NumPy function was given a fasteager.numpy tensor that is being "
            "differentiated (shape %s, dtype %s): NumPy would return an ndarray and its "
            "gradient would be lost (expected fasteager.numpy's function of the same name, "
            "e.g. `import fasteager.numpy as np`; use x.numpy() to leave the tape on purpose)"
            % (list(tensor.shape), tensor.dtype.name))


_core.set_forward_hooks(_on_op, _on_variable_read, _on_array_escape)


# ---- JVP rules derived from the op table -------------------------------------------------

def _is_elementwise(op, inputs, ans):
    # complex values: a holomorphic f has the VJP g conj(f'), not f' g; they transpose
    if ans._value.dtype.kind != "f" or any(x._value.dtype.kind == "c" for x in inputs):
        return False
    rule = op.__dict__.get("jvp_rule")
    if rule is ELEMENTWISE:
        return True
    if rule is None:
        fwd = op.forward
        return (isinstance(fwd, np.ufunc) and fwd.signature is None and fwd.nout == 1
                and not op.multi)
    return False


def _as_tensor(x, like):
    if x is None or type(x) is Tensor:
        return x
    return _core.convert_to_tensor(x, like._value.dtype)


def _elementwise_jvp(op, inputs, ans, attrs, tangents):
    shape = ans._value.shape
    same = [x if x._value.shape == shape else array_ops.broadcast_to(x, shape) for x in inputs]
    total = None
    for j, t in enumerate(tangents):
        if t is None or j >= len(op.grads) or op.grads[j] is None:
            continue
        if t._value.shape != shape:
            t = array_ops.broadcast_to(t, shape)
        term = op.grads[j](t, ans, *same, **attrs) if attrs else op.grads[j](t, ans, *same)
        term = _as_tensor(term, ans)
        if term is not None:
            total = term if total is None else elementwise_ops.add(total, term)
    return total


def _transpose_jvp(op, inputs, outputs, attrs, custom, tangents):
    """``J t`` as the gradient of ``<vjp(g), t>`` w.r.t. ``g``: the VJP is linear in ``g``,
    so this holds at any ``g``. The cotangents are ones rather than zeros, so that VJPs
    skipping an all-zero cotangent (an unused output of a multi-output op) take the path
    whose derivative is wanted. For complex values the pairing is the real inner product
    Re(sum(conj(a) b)), of which TensorFlow-convention VJPs are the adjoints."""
    outs = outputs if type(outputs) is tuple else (outputs,)
    differentiable = [o._value.dtype.kind in "fc" for o in outs]
    if not any(differentiable):
        return None
    seeds = [_core.wrap((np.ones_like if d else np.zeros_like)(o._value))
             for o, d in zip(outs, differentiable)]
    needs = [t is not None for t in tangents]
    with GradientTape() as helper:
        for s, d in zip(seeds, differentiable):
            if d:
                helper._watch_tensor(s)
        in_grads = _vjp_under(helper, op, custom, seeds, outputs, inputs, attrs, needs)
        total = None
        for j, t in enumerate(tangents):
            ig = _as_tensor(in_grads[j], t) if j < len(in_grads) else None
            if t is None or ig is None:
                continue
            if not helper._is_watched(ig):
                if ig._value.any():
                    raise _underivable(op, custom)
                continue     # a constant zero gradient: no contribution
            if ig._value.dtype.kind == "c":
                term = registry.execute(elementwise_ops.real_op, reduction_ops.reduce_sum(
                    elementwise_ops.multiply(registry.execute(elementwise_ops.conj_op, ig), t)))
            else:
                term = reduction_ops.reduce_sum(elementwise_ops.multiply(ig, t))
            total = term if total is None else elementwise_ops.add(total, term)
    if total is None:
        return None
    watched = [s for s, d in zip(seeds, differentiable) if d]
    try:
        it = iter(helper.gradient(total, watched))
    except UnimplementedError as e:          # the VJP refuses to be differentiated
        raise UnimplementedError("%s (%s)" % (_underivable(op, custom), e)) from e
    result = [next(it) if d else None for d in differentiable]
    return tuple(result) if type(outputs) is tuple else result[0]


def _vjp_under(helper, op, custom, seeds, outputs, inputs, attrs, needs):
    """The op's VJP at cotangents ``seeds``, recorded by ``helper``."""
    if custom is not None:
        return custom(list(seeds))
    g = tuple(seeds) if op.multi else seeds[0]
    if op.joint_grad is not None:
        return op.joint_grad(g, outputs, inputs, attrs or {}, needs)
    in_grads = [None] * len(inputs)
    for j, x in enumerate(inputs):
        if needs[j] and j < len(op.grads) and op.grads[j] is not None:
            in_grads[j] = (op.grads[j](g, outputs, *inputs, **attrs) if attrs
                           else op.grads[j](g, outputs, *inputs))
    return in_grads


def _underivable(op, custom):
    what = "a custom_gradient or fe.function" if custom is not None else "op %s" % op.name
    return UnimplementedError(
        "forward mode: the gradient of %s is computed by code no tape records (a kernel "
        "without a derivative of its own), so its JVP cannot be derived from it (expected "
        "a gradient written with fasteager ops, or a jvp= rule on the op)" % what)


def _multilinear_jvp(op, inputs, attrs, tangents):
    total = None
    for j, t in enumerate(tangents):
        if t is not None:
            args = list(inputs)
            args[j] = t
            term = registry.execute(op, *args, **(attrs or {}))
            total = term if total is None else elementwise_ops.add(total, term)
    return total


def output_tangents(op, inputs, outputs, attrs, custom, tangents):
    """The tangents of one op's outputs (a Tensor, a tuple for multi-output ops, None
    entries for outputs with none) from its inputs' tangents (None for zero)."""
    if custom is None:
        rule = op.__dict__.get("jvp_rule")
        if rule is LINEAR:
            return registry.execute(op, *[array_ops.zeros_like(x) if t is None else t
                                          for x, t in zip(inputs, tangents)], **(attrs or {}))
        if rule is MULTILINEAR:
            return _multilinear_jvp(op, inputs, attrs, tangents)
        if rule is not None and rule is not ELEMENTWISE:
            return rule(tangents, outputs, *inputs, **attrs) if attrs else \
                rule(tangents, outputs, *inputs)
        if type(outputs) is not tuple and _is_elementwise(op, inputs, outputs):
            return _elementwise_jvp(op, inputs, outputs, attrs, tangents)
    return _transpose_jvp(op, inputs, outputs, attrs, custom, tangents)


def _floating_tangents(outputs, result):
    """Pairs (output, tangent) for the floating outputs that got a tangent."""
    outs = outputs if type(outputs) is tuple else (outputs,)
    tans = result if type(outputs) is tuple else (result,)
    for o, t in zip(outs, tans):
        if t is not None and o._value.dtype.kind in "fc":
            yield o, _as_tensor(t, o)


# ---- watchers ----------------------------------------------------------------------------

class _Watcher:
    """What the forward hooks call; entered and left like a context."""

    _entered = False

    def _push(self, what):
        if self._entered:
            raise ValueError("%s: already recording (its context can be entered only once "
                             "at a time)" % what)
        self._tape_depth = len(_core._tls.tapes)
        _state.watchers.append(self)
        _core._forward_watchers_changed(1)
        self._entered = True

    def _pop(self):
        stack = _state.watchers
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is self:
                del stack[i]
                break
        _core._forward_watchers_changed(-1)
        self._entered = False

    def _variable_read(self, var, tensor):
        pass


class _Paused:
    """While a watcher computes tangents: it, the watchers after it and the tapes entered
    after it see nothing."""

    __slots__ = ("level", "saved", "tape_depth", "tapes")

    def __init__(self, level, tape_depth):
        self.level = level
        self.tape_depth = tape_depth

    def __enter__(self):
        self.saved = _state.limit
        _state.limit = self.level
        self.tapes = [t for t in _core._tls.tapes[self.tape_depth:] if t._pause()]

    def __exit__(self, *exc):
        for t in self.tapes:
            t._resume()
        _state.limit = self.saved
        return False


class ForwardAccumulator(_Watcher):
    """Computes Jacobian-vector products with forward-mode autodiff, as
    ``tf.autodiff.ForwardAccumulator`` does.

    >>> x = fe.constant([1.0, 2.0])
    >>> with fe.autodiff.ForwardAccumulator(x, fe.constant([1.0, 0.0])) as acc:
    ...     y = x * x
    >>> acc.jvp(y).numpy()
    array([2., 0.], dtype=float32)

    ``primals`` (tensors or variables, possibly nested) are watched with ``tangents`` of
    the same structure, shapes and dtypes. Ops run inside the context propagate tangents;
    ``jvp(target)`` fetches them. Accumulators nest (an outer one differentiates an inner
    one's JVPs), and a ``GradientTape`` inside gives Hessian-vector products
    (forward-over-reverse); a tape outside differentiates the JVPs (reverse-over-forward).
    """

    def __init__(self, primals, tangents):
        self._tangents = {}        # tensor id -> tangent
        self._var_tangents = {}    # variable id -> tangent
        self._held = {}            # tensor id -> the tensor, to see when only we hold it
        self._sweep_at = _SWEEP_MIN
        flat_p = nest.flatten(primals)
        flat_t = nest.flatten(tangents)
        _check_structure("ForwardAccumulator", primals, tangents, flat_p, flat_t)
        seen = set()
        for i, (p, t) in enumerate(zip(flat_p, flat_t)):
            if id(p) in seen:
                raise ValueError("ForwardAccumulator: primal %d was given more than once (expected"
                                 " each primal once: sum its tangents instead)" % i)
            seen.add(id(p))
            self._watch(i, p, t)

    def _watch(self, i, primal, tangent):
        if isinstance(primal, VariableBase):
            value = primal._tensor
        elif isinstance(primal, Tensor):
            value = primal
        else:
            raise TypeError("ForwardAccumulator: primal %d must be a Tensor or Variable (got %s);"
                            " convert it with fe.constant first" % (i, type(primal).__name__))
        if value._value.dtype.kind not in "fc":
            warnings.warn("ForwardAccumulator: the dtype of a watched primal must be floating "
                          "(got %s); its JVP will be None" % value.dtype.name, stacklevel=3)
            return
        tangent = _tangent_for("ForwardAccumulator", i, value, tangent)
        if isinstance(primal, VariableBase):
            self._var_tangents[primal._var_id] = tangent
        self._set(value, tangent)

    def __enter__(self):
        self._push("ForwardAccumulator")
        return self

    def __exit__(self, exc_type, exc, tb):
        self._pop()
        return False

    # -- the hooks ------------------------------------------------------------------------
    def _see(self, level, op, inputs, outputs, attrs, custom):
        tangents = self._tangents
        tans = [tangents.get(x._id) for x in inputs]
        for t in tans:
            if t is not None:
                break
        else:
            return
        with _Paused(level, self._tape_depth):
            result = output_tangents(op, inputs, outputs, attrs, custom, tans)
        if result is not None:
            for o, t in _floating_tangents(outputs, result):
                self._set(o, t)

    def _variable_read(self, var, tensor):
        t = self._var_tangents.get(var._var_id)
        if t is not None:
            self._set(tensor, t)

    def _set(self, tensor, tangent):
        self._tangents[tensor._id] = tangent
        self._held[tensor._id] = tensor
        if len(self._held) > self._sweep_at:
            self._sweep()

    def _sweep(self):
        """Forget the tangents of tensors nobody else holds (no later op can read them, and
        no jvp() can ask for them), so a long loop inside the accumulator stays flat in
        memory. Amortised: the next sweep waits until the table has doubled."""
        held = self._held
        for k in list(held):
            if sys.getrefcount(held[k]) == 2:    # the table and getrefcount's argument
                del held[k]
                del self._tangents[k]
        self._sweep_at = max(_SWEEP_MIN, 2 * len(held))

    def _connected(self, tensor):
        return tensor._id in self._tangents

    # -- results --------------------------------------------------------------------------
    def jvp(self, primals, unconnected_gradients=None):
        """The JVP computed for ``primals`` (a tensor, variable or nested structure):
        None, or zeros with ``unconnected_gradients=fe.UnconnectedGradients.ZERO``, for
        values that do not depend on the watched primals."""
        unconnected = UnconnectedGradients(unconnected_gradients or UnconnectedGradients.NONE)

        def one(p):
            if isinstance(p, VariableBase):
                t = self._var_tangents.get(p._var_id)
                value = p._tensor
                if t is None:
                    t = self._tangents.get(value._id)
            elif isinstance(p, Tensor):
                value = p
                t = self._tangents.get(p._id)
            else:
                raise TypeError("ForwardAccumulator.jvp: expected a Tensor or Variable (got %s)"
                                % type(p).__name__)
            if t is None and unconnected is UnconnectedGradients.ZERO:
                t = array_ops.zeros_like(value)
            return t
        return nest.pack_sequence_as(primals, [one(p) for p in nest.flatten(primals)])


class _Recorder(_Watcher):
    """Keeps the ops that depend on given tensors, for ``linearize``."""

    def __init__(self, sources):
        self._connected_ids = {s._id for s in sources}
        self.records = []

    def _see(self, level, op, inputs, outputs, attrs, custom):
        ids = self._connected_ids
        if not any(x._id in ids for x in inputs):
            return
        self.records.append((op, inputs, outputs, attrs, custom))
        for o in (outputs if type(outputs) is tuple else (outputs,)):
            ids.add(o._id)

    def _connected(self, tensor):
        return tensor._id in self._connected_ids


def _check_structure(what, primals, tangents, flat_p, flat_t):
    if len(flat_p) != len(flat_t) or nest.is_nested(primals) != nest.is_nested(tangents):
        raise ValueError("%s: tangents must have the structure of primals (expected %d "
                         "tangent(s), got %d)" % (what, len(flat_p), len(flat_t)))


def _tangent_for(what, i, primal, tangent):
    """``tangent`` as a tensor of the primal's dtype and shape (TensorFlow's conversion:
    Python numbers adopt the dtype, a tensor of another dtype is refused)."""
    if tangent is None:
        raise ValueError("%s: tangent %d is None (expected a tensor of shape %s)"
                         % (what, i, list(primal._value.shape)))
    tangent = _core.convert_to_tensor(tangent, primal._value.dtype)
    if tangent._value.shape != primal._value.shape:
        raise InvalidArgumentError("%s: tangent %d has shape %s (expected %s, the primal's "
                                   "shape)" % (what, i, list(tangent._value.shape),
                                               list(primal._value.shape)))
    return tangent


# ---- the functional API (JAX's semantics) ------------------------------------------------

def _fresh_primals(what, primals):
    """Each primal as a new tensor (its own id, the same values, an identity op that
    outer tapes record), so that two arguments given the same tensor get their own
    tangents."""
    if not isinstance(primals, (list, tuple)):
        raise TypeError("%s: primals must be a tuple or list (got %s)"
                        % (what, type(primals).__name__))
    flat = nest.flatten(primals)
    fresh = []
    for i, p in enumerate(flat):
        t = p._read() if isinstance(p, VariableBase) else _core.convert_to_tensor(p)
        if t._value.dtype.kind not in "fc":
            raise TypeError("%s: primal %d has dtype %s (expected a floating dtype: integer "
                            "and bool inputs have no tangent)" % (what, i, t.dtype.name))
        alias = array_ops.identity(t)     # recorded: outer tapes see through it
        fresh.append(alias)
    return flat, fresh


def _check_tangent(what, i, primal, tangent):
    if not isinstance(tangent, (Tensor, VariableBase, np.ndarray, np.generic)):
        # Python numbers and lists adopt the primal's dtype (JAX's weak types)
        tangent = np.asarray(tangent, dtype=primal._value.dtype)
    value = tangent._read() if isinstance(tangent, VariableBase) else tangent
    dtype = value._value.dtype if isinstance(value, Tensor) else value.dtype
    if dtype != primal._value.dtype:
        raise TypeError("%s: tangent %d has dtype %s (expected %s, the primal's dtype)"
                        % (what, i, dtype, primal._value.dtype))
    shape = tuple(value._value.shape if isinstance(value, Tensor) else value.shape)
    if shape != primal._value.shape:
        raise InvalidArgumentError("%s: tangent %d has shape %s (expected %s, the primal's "
                                   "shape)" % (what, i, list(shape), list(primal._value.shape)))
    return _core.convert_to_tensor(value)


def jvp(f, primals, tangents):
    """``(f(*primals), J_f(primals) @ tangents)``, as ``jax.jvp``.

    >>> out, t = fe.autodiff.jvp(lambda x: x * x, (fe.constant(3.0),), (fe.constant(1.0),))
    >>> float(out), float(t)
    (9.0, 6.0)

    ``primals`` and ``tangents`` are tuples (or lists) of the same structure, one entry
    per positional argument of ``f``; each tangent has its primal's shape and dtype.
    Outputs that do not depend on the primals get zero tangents.
    """
    flat, fresh = _fresh_primals("jvp", primals)
    if not isinstance(tangents, (list, tuple)):
        raise TypeError("jvp: tangents must be a tuple or list (got %s)" % type(tangents).__name__)
    flat_t = nest.flatten(tangents)
    if len(flat_t) != len(flat) or len(tangents) != len(primals):
        raise TypeError("jvp: primals and tangents must have the same structure (expected %d "
                        "tangent(s), got %d)" % (len(flat), len(flat_t)))
    tans = [_check_tangent("jvp", i, p, t) for i, (p, t) in enumerate(zip(fresh, flat_t))]
    acc = ForwardAccumulator(fresh, tans)
    with acc:
        out = f(*nest.pack_sequence_as(primals, fresh))
    flat_out = [_core.convert_to_tensor(o) for o in nest.flatten(out)]
    out_t = [acc.jvp(o) for o in flat_out]
    out_t = [t if t is not None else array_ops.zeros_like(o) for o, t in zip(flat_out, out_t)]
    return out, nest.pack_sequence_as(out, out_t)


def linearize(f, *primals):
    """``(f(*primals), f_jvp)`` as ``jax.linearize``: ``f_jvp(*tangents)`` is the JVP at
    ``primals``, applied to new tangents without running ``f`` again.

    >>> y, f_jvp = fe.autodiff.linearize(fe.sin, fe.constant(0.0))
    >>> float(f_jvp(fe.constant(2.0)))
    2.0
    """
    _, fresh = _fresh_primals("linearize", primals)
    recorder = _Recorder(fresh)
    recorder._push("linearize")
    try:
        out = f(*nest.pack_sequence_as(primals, fresh))
    finally:
        recorder._pop()
    flat_out = [_core.convert_to_tensor(o) for o in nest.flatten(out)]
    records = recorder.records
    structure = primals

    def f_jvp(*tangents):
        flat_t = nest.flatten(tangents)
        if len(tangents) != len(structure) or len(flat_t) != len(fresh):
            raise TypeError("linearize: f_jvp takes tangents with the structure of the primals "
                            "(expected %d tangent(s), got %d)" % (len(fresh), len(flat_t)))
        known = {p._id: _check_tangent("linearize", i, p, t)
                 for i, (p, t) in enumerate(zip(fresh, flat_t))}
        for op, inputs, outputs, attrs, custom in records:
            tans = [known.get(x._id) for x in inputs]
            if all(t is None for t in tans):
                continue
            result = output_tangents(op, inputs, outputs, attrs, custom, tans)
            if result is not None:
                for o, t in _floating_tangents(outputs, result):
                    known[o._id] = t
        out_t = [known.get(o._id) for o in flat_out]
        out_t = [t if t is not None else array_ops.zeros_like(o) for o, t in zip(flat_out, out_t)]
        return nest.pack_sequence_as(out, out_t)
    return out, f_jvp

# The classes keep the module name they had before the move to fasteager._src: it is
# what their repr and saved references (pickles) show, so that name still imports, as
# this module (fe.forward, the attribute, warns: see the package root).
for _cls in (_ForwardState, _Watcher, _Paused, ForwardAccumulator, _Recorder):
    _cls.__module__ = "fasteager.forward"
del _cls
sys.modules.setdefault("fasteager.forward", sys.modules[__name__])
