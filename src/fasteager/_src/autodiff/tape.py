"""Automatic differentiation: ``GradientTape`` and the 2017 function-style API.

The recording engine (the C set of watched ids, the record list, the backward sweep)
is in ``_core.pyx``; this module is the public face: nested structures, variables,
unconnected gradients, jacobians, ``gradients_function`` and ``custom_gradient``.
"""
import enum
import functools
import inspect
import warnings

import numpy as np

from ... import _core
from .. import nest
from ...errors import InvalidArgumentError
from ...ops import array_ops, elementwise_ops

Tensor = _core.Tensor
VariableBase = _core.VariableBase


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""
    NONE = "none"
    ZERO = "zero"


class GradientTape(_core.Tape):
    """Records operations for automatic differentiation.

    >>> w = fe.Variable([[1.0]])
    >>> with fe.GradientTape() as tape:
    ...     loss = w * w
    >>> tape.gradient(loss, w)
    <fe.Tensor: shape=(1, 1), dtype=float32, numpy=array([[2.]], dtype=float32)>

    Trainable variables read inside the tape are watched automatically; tensors must be
    watched with ``tape.watch``. A non-persistent tape computes one set of gradients.
    """

    # __init__(persistent=False, watch_accessed_variables=True), __enter__ and __exit__
    # are _core.Tape's

    @property
    def persistent(self):
        return self._persistent

    def watch(self, tensor):
        """Watch a tensor, a variable, or a nested structure of them."""
        if type(tensor) is Tensor and tensor._value.dtype.kind in "fc":
            self._watch_tensor(tensor)      # the common call, without the walk below
            return
        for t in nest.flatten(tensor):
            if isinstance(t, VariableBase):
                self._watch_variable(t)
            elif isinstance(t, Tensor):
                if t._value.dtype.kind not in "fc":
                    warnings.warn("GradientTape.watch: the dtype of the watched tensor must be "
                                  "floating (got %s); its gradient will be None" % t.dtype.name,
                                  stacklevel=2)
                self._watch_tensor(t)
            else:
                raise ValueError("GradientTape.watch: expected a Tensor or Variable (got %s); "
                                 "convert it with fe.constant first" % type(t).__name__)

    def stop_recording(self):
        """Context manager: ops inside it are not recorded on this tape."""
        return _StopRecording(self)

    def reset(self):
        """Drop everything recorded so far (the tape keeps recording if it was)."""
        self._reset()

    def watched_variables(self):
        """The variables this tape watched, in the order first read (still after a
        non-persistent tape's one gradient freed its records, as in TensorFlow)."""
        if self._used and not self._persistent:
            return self._variables_when_used
        return self._watched_variables()

    def _release(self):
        """A non-persistent tape's one gradient call is done: free the records."""
        self._variables_when_used = self._watched_variables()
        self._used = True
        self._free()

    # -- gradients ------------------------------------------------------------------------
    def _check_usable(self, what):
        if self._used and not self._persistent:
            raise RuntimeError(
                "GradientTape.%s can only be called once on a non-persistent tape (create "
                "the tape with persistent=True to compute several gradients)" % what)

    def _seeds(self, targets, output_gradients):
        if output_gradients is None:
            # ones of each target's shape and dtype: constants, so no op is dispatched
            return [_core.wrap(np.ones(t._value.shape, t._value.dtype))
                    if type(t._value) is np.ndarray and t._value.dtype.kind != "O"
                    else array_ops.ones_like(t)
                    for t in targets]
        flat = nest.flatten(output_gradients)
        if len(flat) != len(targets):
            raise ValueError("GradientTape.gradient: output_gradients has %d entries "
                             "(expected %d, one per target)" % (len(flat), len(targets)))
        seeds = []
        for t, s in zip(targets, flat):
            s = array_ops.ones_like(t) if s is None else _core.convert_to_tensor(s, t.dtype)
            if s._value.shape != t._value.shape:
                raise InvalidArgumentError(
                    "GradientTape.gradient: output_gradients entry has shape %s (expected %s, "
                    "the target's shape)" % (list(s._value.shape), list(t._value.shape)))
            seeds.append(s)
        return seeds

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """Gradient of ``target`` (summed over nested targets) w.r.t. ``sources``.

        ``sources`` may be a tensor, a variable, or a list/tuple/dict of them; the result
        has the same structure.
        """
        self._check_usable("gradient")
        targets = [target] if type(target) is Tensor else nest.flatten(target)
        targets = [_as_target(t) for t in targets]
        seeds = self._seeds(targets, output_gradients)
        # the common call, a flat list of variables and tensors, skips the nest walks
        flat = type(sources) is list and all(
            isinstance(s, (VariableBase, Tensor)) for s in sources)
        flat_sources = sources if flat else nest.flatten(sources)
        result = self._gradients(targets, seeds, flat_sources, unconnected_gradients)
        if not self._persistent:
            self._release()
        return result if flat else nest.pack_sequence_as(sources, result)

    def _gradients(self, targets, seeds, flat_sources, unconnected):
        if type(unconnected) is not UnconnectedGradients:
            unconnected = UnconnectedGradients(unconnected)
        ids = []
        for s in flat_sources:
            if isinstance(s, VariableBase):
                ids.extend([t._id for t in self._variable_reads(s)])
            elif isinstance(s, Tensor):
                ids.append(s._id)
            else:
                raise ValueError("GradientTape.gradient: sources must be Tensors or Variables "
                                 "(got %s)" % type(s).__name__)
        # a persistent tape inside its context records the gradient ops too (as in
        # TensorFlow: that is how it gives higher-order derivatives); others pause
        paused = not self._persistent and self._pause()
        try:
            grads = self._backward(targets, seeds, ids)
        finally:
            if paused:
                self._resume()
        result = []
        for s in flat_sources:
            if isinstance(s, VariableBase):
                value = s._tensor
                reads = self._variable_reads(s)
                if len(reads) == 1:         # the common case: read once
                    g = grads.get(reads[0]._id)
                else:
                    parts = [grads[t._id] for t in reads if t._id in grads]
                    g = parts[0] if parts else None
                    for p in parts[1:]:
                        g = elementwise_ops.add(g, p)
            else:
                value = s
                g = grads.get(s._id)
            if g is None:
                # a source that is itself a target has gradient d(target)/d(target) = its
                # seed, watched or not, as in TensorFlow (tape.gradient(x, x) is ones)
                g = _self_gradient(value, targets, seeds)
            if value._value.dtype.kind not in "fc":
                warnings.warn("GradientTape.gradient: the dtype of a source must be floating "
                              "(got %s); its gradient is None" % value.dtype.name, stacklevel=3)
                g = None
            elif g is None and unconnected is UnconnectedGradients.ZERO:
                g = array_ops.zeros_like(value)
            result.append(g)
        return result

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """Full Jacobian: result shape ``target.shape + source.shape`` per source."""
        self._check_usable("jacobian")
        target = _as_target(target)
        flat_sources = nest.flatten(sources)
        n = target._value.size
        rows = [[] for _ in flat_sources]
        for i in range(n):
            seed = np.zeros(target._value.size, dtype=target._value.dtype)
            seed[i] = 1
            seed = _core.wrap(seed.reshape(target._value.shape))
            grads = self._gradients([target], [seed], flat_sources, unconnected_gradients)
            for k, (s, g) in enumerate(zip(flat_sources, grads)):
                rows[k].append(g)
        if not self._persistent:
            self._release()
        out = []
        for s, r in zip(flat_sources, rows):
            sshape = tuple(s.shape)
            if any(g is None for g in r) or not r:
                if unconnected_gradients == UnconnectedGradients.ZERO or not r:
                    out.append(array_ops.zeros(tuple(target._value.shape) + sshape,
                                               dtype=s.dtype) if not r or
                               unconnected_gradients == UnconnectedGradients.ZERO else None)
                else:
                    out.append(None)
                continue
            out.append(array_ops.reshape(array_ops.stack(r), tuple(target._value.shape) + sshape))
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: target (B, ...) and source (B, ...) give (B, t..., s...)."""
        self._check_usable("batch_jacobian")
        if not isinstance(source, (Tensor, VariableBase)):
            # TensorFlow's batch_jacobian takes one source (no nested structures)
            raise InvalidArgumentError("batch_jacobian: source must be a single tensor "
                                       "(expected a Tensor or Variable, got %s)"
                                       % type(source).__name__)
        target = _as_target(target)
        tshape = target._value.shape
        sshape = tuple(source.shape)
        if not tshape or not sshape or tshape[0] != sshape[0]:
            raise InvalidArgumentError(
                "batch_jacobian: target and source must share their first (batch) dimension "
                "(got %s and %s)" % (list(tshape), list(sshape)))
        batch = tshape[0]
        inner = int(np.prod(tshape[1:], dtype=np.int64))
        cols = []
        for j in range(inner):
            seed = np.zeros((batch, inner), dtype=target._value.dtype)
            seed[:, j] = 1
            seed = _core.wrap(seed.reshape(tshape))
            g = self._gradients([target], [seed], [source], unconnected_gradients)[0]
            if g is None:
                g = array_ops.zeros(sshape, dtype=source.dtype)
            cols.append(g)
        if not self._persistent:
            self._release()
        if not cols:
            return array_ops.zeros((batch,) + tuple(tshape[1:]) + tuple(sshape[1:]),
                                   dtype=source.dtype)
        stacked = array_ops.stack(cols, axis=1)   # (B, inner, s...)
        return array_ops.reshape(stacked, (batch,) + tuple(tshape[1:]) + tuple(sshape[1:]))


def _self_gradient(value, targets, seeds):
    g = None
    for t, seed in zip(targets, seeds):
        if t is value:
            g = seed if g is None else elementwise_ops.add(g, seed)
    return g


def _as_target(t):
    if isinstance(t, VariableBase):
        return t._read()
    if isinstance(t, Tensor):
        return t
    return _core.convert_to_tensor(t)


class _StopRecording:
    def __init__(self, tape):
        self._tape = tape
        self._paused = False

    def __enter__(self):
        if not self._tape._is_recording:
            raise ValueError("GradientTape.stop_recording: the tape is not recording (use it "
                             "inside the tape's `with` block)")
        self._paused = self._tape._pause()
        return self

    def __exit__(self, *exc):
        if self._paused:
            self._tape._resume()
        return False


# ---- the 2017 function-style API ------------------------------------------------------------

def _arg_tensors(args):
    return [a if isinstance(a, (Tensor, VariableBase)) else _core.convert_to_tensor(a)
            for a in args]


def value_and_gradients_function(f, params=None):
    """``f``'s value and its gradients w.r.t. its positional args (or those in ``params``).

    >>> vg = fe.value_and_gradients_function(lambda x: x * x)
    >>> vg(3.)
    (<fe.Tensor ... numpy=9.0>, [<fe.Tensor ... numpy=6.0>])
    """
    def wrapped(*args, **kwargs):
        tensors = _arg_tensors(args)
        which = list(range(len(tensors))) if params is None else _param_indices(f, params,
                                                                                 len(tensors))
        with GradientTape() as tape:
            for i in which:
                tape.watch(tensors[i])
            value = f(*tensors, **kwargs)
        if value is None:
            raise ValueError("gradients_function: %s returned None (expected a tensor)"
                             % getattr(f, "__name__", "f"))
        grads = tape.gradient(value, [tensors[i] for i in which])
        return value, grads
    functools.update_wrapper(wrapped, f)
    return wrapped


def _param_indices(f, params, n):
    out = []
    names = list(inspect.signature(f).parameters)
    for p in params:
        if isinstance(p, str):
            if p not in names:
                raise ValueError("gradients_function: %r is not an argument of %s"
                                 % (p, getattr(f, "__name__", "f")))
            p = names.index(p)
        if not 0 <= p < n:
            raise ValueError("gradients_function: params index %d out of range (%d args)" % (p, n))
        out.append(p)
    return out


def gradients_function(f, params=None):
    """A function returning the list of ``f``'s gradients w.r.t. its positional args.

    >>> grad = fe.gradients_function(lambda x: x * x)
    >>> grad(3.)[0].numpy()
    6.0
    """
    vg = value_and_gradients_function(f, params)

    def wrapped(*args, **kwargs):
        return vg(*args, **kwargs)[1]
    functools.update_wrapper(wrapped, f)
    return wrapped


def implicit_value_and_gradients(f):
    """``f``'s value and ``[(gradient, variable), ...]`` for every trainable variable it read."""
    def wrapped(*args, **kwargs):
        with GradientTape() as tape:
            value = f(*args, **kwargs)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError("implicit_gradients: %s read no trainable variables"
                             % getattr(f, "__name__", "f"))
        grads = tape.gradient(value, list(variables))
        return value, list(zip(grads, variables))
    functools.update_wrapper(wrapped, f)
    return wrapped


def implicit_gradients(f):
    """``[(gradient, variable), ...]`` for every trainable variable ``f`` read."""
    vg = implicit_value_and_gradients(f)

    def wrapped(*args, **kwargs):
        return vg(*args, **kwargs)[1]
    functools.update_wrapper(wrapped, f)
    return wrapped


def custom_gradient(f=None):
    """Decorate ``f(*x) -> (y, grad_fn)`` so that tapes use ``grad_fn`` for its gradient.

    ``grad_fn(*dy)`` returns one gradient per input (None allowed). When ``f`` reads
    variables, ``grad_fn(*dy, variables=None)`` returns ``(input_grads, variable_grads)``.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        inputs = [_core.convert_to_tensor(a) if not isinstance(a, Tensor) else a for a in args]
        tracer = _core.get_tracer()
        start = len(tracer.steps) if tracer is not None else None
        fname = getattr(f, "__name__", "f")
        with _core.VariableWatcher() as watcher:
            returned = f(*inputs, **kwargs)
        if not (isinstance(returned, (list, tuple)) and len(returned) == 2
                and callable(returned[1])):
            raise InvalidArgumentError(
                "custom_gradient: %s must return a pair (y, grad_fn) (expected a tuple of the "
                "output and a callable, got %s)" % (fname, _describe_return(returned)))
        result, grad_fn = returned
        variables = [v for v in watcher.watched_variables() if v.trainable]
        flat = [_core.convert_to_tensor(r) for r in nest.flatten(result)]
        # fresh outputs, so that tapes reach them only through grad_fn
        outputs = tuple(_core.wrap(t._value) for t in flat)
        accepts_variables = _accepts_kw(grad_fn, "variables")
        if variables and not accepts_variables:
            raise TypeError("custom_gradient: %s reads variables (%s), so its grad_fn must accept "
                            "a keyword argument 'variables'"
                            % (fname, ", ".join(v.name for v in variables)))

        def backward(gs):
            if variables:
                res = grad_fn(*gs, variables=variables)
                if not isinstance(res, (list, tuple)) or len(res) != 2:
                    raise ValueError("custom_gradient: grad_fn of %s must return "
                                     "(input_gradients, variable_gradients) when it reads "
                                     "variables" % fname)
                in_grads, var_grads = res
                in_grads = _as_grad_list(in_grads, inputs, fname, "inputs")
                var_grads = _as_grad_list(var_grads, [v._tensor for v in variables], fname,
                                          "variables")
                return in_grads + var_grads
            return _as_grad_list(grad_fn(*gs), inputs, fname, "inputs")

        recorded_inputs = tuple(inputs) + tuple(v._tensor for v in variables)
        _core.record_custom(recorded_inputs, outputs, backward)
        if tracer is not None:
            # gradients through the fe.function call this again (grad_fn closes over
            # this call's tensors, so it cannot be replayed)
            tracer.custom_call(wrapped, inputs, kwargs, outputs, start)
        return nest.pack_sequence_as(result, list(outputs))
    return wrapped


def _accepts_kw(fn, name):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _describe_return(value):
    if isinstance(value, (list, tuple)):
        return "a %s of %d" % (type(value).__name__, len(value))
    return type(value).__name__


def _as_grad_list(grads, targets, fname, what):
    """grad_fn's gradients checked against the tensors they are for: one each, of the
    target's shape and dtype (a user error, not a fasteager bug, when they are not)."""
    if not isinstance(grads, (list, tuple)):
        grads = [grads]
    grads = list(grads)
    if len(grads) != len(targets):
        raise ValueError("custom_gradient: grad_fn of %s returned %d gradient(s) for its %s "
                         "(expected %d, one per %s)"
                         % (fname, len(grads), what, len(targets), what[:-1]))
    for i, (g, t) in enumerate(zip(grads, targets)):
        if g is None:
            continue
        if not isinstance(g, Tensor):
            g = grads[i] = _core.convert_to_tensor(g, t._value.dtype)
        where = "custom_gradient: grad_fn of %s returned a gradient for %s %d" % (
            fname, what[:-1], i)
        if g._value.dtype != t._value.dtype:
            # TensorFlow would fail later, adding it to another gradient; say it here
            raise InvalidArgumentError("%s of dtype %s (expected %s, the %s's dtype)"
                                       % (where, g._value.dtype, t._value.dtype, what[:-1]))
        if g._value.shape != t._value.shape:
            raise InvalidArgumentError("%s of shape %s (expected %s, the %s's shape)"
                                       % (where, list(g._value.shape), list(t._value.shape),
                                          what[:-1]))
    return grads


# The classes keep the module name they had before the move to fasteager._src: it is
# what their repr and saved references show.
for _cls in (UnconnectedGradients, GradientTape, _StopRecording):
    _cls.__module__ = "fasteager.autodiff"
del _cls
