"""``ConcreteFunction``: one trace of a ``fe.function`` for one input signature, called
with that signature's tensors: its replay, its gradients (a traced backward on saved
intermediates, or eager re-runs under a tape for higher orders), and its view as
TensorFlow's graph."""
import copy
import threading

import numpy as np

from ... import _core, _graph
from .. import nest
from ..autodiff.tape import GradientTape
from ...dtypes import as_dtype
from ...errors import InvalidArgumentError
from .graph_view import FuncGraph
from .replay import _plan, _Replay, _Saving
from .tracer import (KIND_CONTROL, KIND_COPY, KIND_EFFECT, KIND_FUSED, KIND_OP,  # noqa: F401
                     KIND_READ, RANDOM_SEED, _Pulls, _Tracer, _variable_writer)

Tensor = _core.Tensor

# ``fe.function``'s Function, which a higher-order backward is traced with: function.py
# installs it (it sits above this module, importing the AutoGraph converter, whose
# operators build on ConcreteFunction)
_function_class = None


def set_function_class(cls):
    global _function_class
    _function_class = cls


def _dtype_name(np_dtype):
    return as_dtype(np_dtype).name


class AtomicFunction:
    """A concrete function's graph called with its flat tensor inputs (``inference_fn``)."""

    def __init__(self, concrete):
        self._concrete = concrete
        self.name = concrete.name

    def __call__(self, *tensors):
        tensors = [t if type(t) is Tensor else _core.convert_to_tensor(t) for t in tensors]
        self._concrete._check_inputs(tensors)
        outs = self._concrete._call_flat(tensors)
        return outs[0] if len(outs) == 1 else list(outs)

    def __repr__(self):
        return "<AtomicFunction %s>" % self.name


class PythonOutput:
    """A Python value a traced function returned (kept apart from register numbers: a
    returned int is not a register)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class ConcreteFunction:
    """One traced graph of a Python function, for one input signature.

    Call it with the tensor arguments of the signature it was traced for.
    """

    def __init__(self, name, tracer, structure, out_leaves, reuse_buffers=True):
        self.name = name
        self._structure = structure
        self._out_leaves = out_leaves           # register (int) or a PythonOutput
        self._out_regs = [x for x in out_leaves if type(x) is int]
        self._single_output = (len(out_leaves) == 1 and type(out_leaves[0]) is int
                               and not nest.is_nested(structure))
        self._inputs = list(tracer.inputs)
        self._var_inputs = list(tracer.var_inputs)
        self._eager_only = tracer.escaped
        self._all_steps = tracer.steps           # unfused, for eager re-execution
        self._n_regs = len(tracer.values)
        template = [None] * self._n_regs
        for r, arr in tracer.consts.items():
            template[r] = arr
        self._template = template
        self._consts = tracer.consts
        self._reuse_buffers = reuse_buffers
        self._quiet = any(s.kind == KIND_OP and s.op.quiet for s in tracer.steps)
        # the seeds the replay draws (Tracer.random_seed): kept, for the gradient's re-runs
        self._seed_regs = [s.out[0] for s in tracer.steps
                           if s.kind == KIND_EFFECT and s.name == RANDOM_SEED]
        self._replay = self._planned(self._out_regs, tracer.values)
        if tracer.random_regs and not self._eager_only and (
                tracer.random_regs & set(self._out_regs) or
                any(tracer.random_regs.intersection(s.ins) for s in self._steps)):
            self._eager_only = "a random op"   # replaying would repeat the same draw
        self._grad_function = None
        # the backward from saved intermediates (see _fast_backward); None until built,
        # False when this graph cannot have one
        self._custom = dict(tracer.custom)
        # shape and dtype of every register at trace time (saved_model traces the
        # gradients of custom_gradient calls on them)
        self._reg_meta = [(v.shape, v.dtype) for v in tracer.values]
        self._dep_regs = frozenset(tracer.dep)   # registers computed from inputs/variables
        self._input_names = []       # TensorFlow's names of the tensor inputs (Function sets)
        self._asked_specs = None     # (function, args, kwargs) of get_concrete_function(specs)
        self._saving = None
        if self._custom or any(s.kind != KIND_OP and s.name != RANDOM_SEED
                               for s in tracer.steps):
            # custom gradients, effects, variable re-reads, copies
            self._saving = False
        self.variables = tuple(v for v, _ in self._var_inputs)
        self.trainable_variables = tuple(v for v in self.variables if v.trainable)
        self._pulls = _Pulls(tracer) if tracer.pulls else None
        self._variants = []     # traces of this signature for other element shapes
        self._relaxed_pattern = None    # input shapes with None, for a relaxed trace

    def _planned(self, keep_regs, values):
        """The replay of this graph computing (and keeping) registers ``keep_regs`` (and
        the random seeds it draws)."""
        keep_regs = list(keep_regs) + self._seed_regs
        steps = _plan(self._all_steps, keep_regs, self._consts, self._n_regs, values)
        protected = set(keep_regs) | set(self._consts) | set(self._inputs) | {
            r for _, r in self._var_inputs}
        return _Replay(steps, values, protected, self._reuse_buffers, self._quiet)

    @property
    def _steps(self):
        return self._replay.steps

    @property
    def _buffer_specs(self):
        return self._replay.specs

    @property
    def graph(self):
        """This trace as TensorFlow's FuncGraph shows it (a view: see graph_view.py)."""
        return FuncGraph(self)

    @property
    def graph_size(self):
        """The number of steps the replay runs (after dead-code removal and fusion)."""
        return len(self._steps)

    @property
    def buffer_bytes(self):
        """Bytes of the intermediate buffers kept between calls."""
        return self._replay.buffer_bytes

    @property
    def fused_steps(self):
        """The fused elementwise kernels of the replay list (``_graph.Fused`` objects)."""
        return [s.fn for s in self._steps if s.kind == KIND_FUSED]

    def _fill(self, tensors, var_tensors):
        regs = self._template[:]
        for r, t in zip(self._inputs, tensors):
            regs[r] = t._value
        for (v, r), t in zip(self._var_inputs, var_tensors):
            regs[r] = t._value
        return regs

    def _call_flat(self, tensors):
        recording = _core.any_tape_recording()
        if recording:
            var_tensors = [v._read() for v, _ in self._var_inputs]
        else:
            var_tensors = [v._tensor for v, _ in self._var_inputs]
        regs = self._fill(tensors, var_tensors)
        if not recording:
            var_tensors = None   # holding a variable's tensor would defeat in-place writes
        saving = self._saving if recording else None
        (saving.replay if saving else self._replay).run(regs)
        wrap = _core.wrap
        outs = [wrap(regs[r]) for r in self._out_regs]
        if recording and outs:
            saved = [regs[r] for r in saving.saved] if saving else None
            if self._pulls is not None and self._pulls.in_place:
                tensors = self._pulls.pulled(tensors)
            self._record(tensors, var_tensors, outs, saving or None, saved,
                         self._seeds(regs))
        return outs

    def _seeds(self, regs):
        """register -> the seed this call drew, for each random_seed step (or None)."""
        return {r: regs[r] for r in self._seed_regs} if self._seed_regs else None

    def _call_unplanned(self, tensors):
        """Run every recorded step on ``tensors`` (of any size of a relaxed trace's None
        dimensions), keeping every register: (outputs, registers, the variables' tensors
        when a tape records, else None)."""
        recording = _core.any_tape_recording()
        var_tensors = [v._read() if recording else v._tensor for v, _ in self._var_inputs]
        regs = self._fill(tensors, var_tensors)
        _Replay(self._all_steps, None, (), False, self._quiet).run(regs)
        outs = [_core.wrap(regs[r]) for r in self._out_regs]
        return outs, regs, (var_tensors if recording else None)

    def _rebindable(self):
        """Whether this trace can serve calls with other variable arguments of the same
        dtype and shape (TensorFlow's VariableSpec): it reads variables and writes them
        only by ``assign*`` (steps that name their variable), with no control step, custom
        gradient or iterator bound to its objects."""
        if self._eager_only or self._pulls is not None or self._custom:
            return False
        for st in self._all_steps:
            if st.kind == KIND_CONTROL or (st.kind == KIND_EFFECT and st.name != RANDOM_SEED
                                           and getattr(st.fn, "variable", None) is None):
                return False
        return True

    def _rebound(self, mapping):
        """This trace with its variables ``mapping`` (id of old -> new) replaced: its reads and
        writes go to the new ones; its plan and buffers are this trace's, the buffers not
        shared."""
        def swap(st):
            fn = st.fn
            if st.kind == KIND_READ and id(fn) in mapping:
                fn = mapping[id(fn)]
            elif st.kind == KIND_EFFECT and id(getattr(fn, "variable", None)) in mapping:
                fn = _variable_writer(mapping[id(fn.variable)], fn.kind)
            else:
                return st
            new = _graph.Step(st.kind, fn, st.ins, st.attrs, st.out, st.multi, st.name,
                              st.op)
            new.frees, new.buf, new.into = st.frees, st.buf, st.into
            return new
        other = copy.copy(self)
        other._var_inputs = [(mapping.get(id(v), v), r) for v, r in self._var_inputs]
        other._all_steps = [swap(st) for st in self._all_steps]
        replay = other._replay = copy.copy(self._replay)
        replay.steps = [swap(st) for st in self._replay.steps]
        replay.buffers, replay.lock = None, threading.Lock()
        other.variables = tuple(v for v, _ in other._var_inputs)
        other.trainable_variables = tuple(v for v in other.variables if v.trainable)
        other._saving = False if self._saving is False else None
        other._grad_function = None
        other._variants = []
        return other

    def _specialised(self, values):
        """This relaxed trace planned for the shapes of register ``values`` (fusion and
        kept buffers depend on shapes), with its own gradient paths."""
        other = copy.copy(self)
        other._reg_meta = [m if v is None else (np.shape(v), np.asarray(v).dtype)
                           for v, m in zip(values, self._reg_meta)]
        other._replay = other._planned(other._out_regs, values)
        other._saving = False if self._saving is False else None
        other._grad_function = None
        other._variants = []
        return other

    def __call__(self, *args, **kwargs):
        if kwargs:
            args = self._by_name(args, kwargs)
        tensors = [a if type(a) is Tensor else _core.convert_to_tensor(a)
                   for a in nest.flatten(args, expand_composites=True)]
        if self._pulls is None:
            self._check_inputs(tensors)
        else:
            taken = self._pulls.take()
            if taken is None or not self._pulls.matches(taken):
                if taken is not None:
                    self._pulls.give_back(taken)
                raise InvalidArgumentError(
                    "ConcreteFunction %s: the iterator's next element does not match the "
                    "trace (expected elements of %s; call the fe.function instead, which "
                    "traces again)" % (self.name, self._pulls.describe()))
            tensors += [_core.wrap(a) for a in self._pulls.arrays(taken)]
            try:
                self._check_inputs(tensors)
            except (TypeError, InvalidArgumentError):
                self._pulls.give_back(taken)
                raise
        return self._pack(self._call_flat(tensors))

    def _by_name(self, args, kwargs):
        """Positional arguments followed by the keyword ones, in the trace's input order
        (keywords are the inputs' names, as TensorFlow's concrete functions take them)."""
        names = list(self._input_names)
        unknown = sorted(set(kwargs) - set(names[len(args):]))
        if unknown:
            raise TypeError("ConcreteFunction %s: got unexpected keyword argument(s) %s "
                            "(expected arguments %s)" % (self.name, unknown, names))
        flat = list(args)
        for name in names[len(flat):]:
            if name not in kwargs:
                raise TypeError("ConcreteFunction %s: missing required argument %r (expected "
                                "arguments %s)" % (self.name, name, names))
            flat.append(kwargs[name])
        return tuple(flat)

    def _check_inputs(self, tensors):
        """The dtypes and shapes the graph was traced for (it replays only those)."""
        if len(tensors) != len(self._inputs):
            raise TypeError("ConcreteFunction %s: expected %d tensor argument(s), got %d"
                            % (self.name, len(self._inputs), len(tensors)))
        for i, (t, r) in enumerate(zip(tensors, self._inputs)):
            shape, dtype = self._reg_meta[r]
            got = t._value
            if got.dtype != dtype:
                raise InvalidArgumentError(
                    "cannot compute %s as input #%d(zero-based) was expected to be a %s "
                    "tensor but is a %s tensor" % (self.name, i, _dtype_name(dtype),
                                                    _dtype_name(got.dtype)))
            if got.shape != shape:
                raise InvalidArgumentError(
                    "ConcreteFunction %s: input #%d(zero-based) was traced with shape %s and "
                    "got shape %s (call the fe.function instead, which traces it again)"
                    % (self.name, i, list(shape), list(got.shape)))

    # -- what TensorFlow shows of a concrete function ------------------------------------
    @property
    def function_type(self):
        """The trace's parameters and output (TensorFlow's FunctionType)."""
        return self._function_type

    def pretty_printed_signature(self, verbose=True):
        return self._function_type.pretty()

    def __str__(self):
        return "ConcreteFunction " + self._function_type.pretty()

    def __repr__(self):
        return "<ConcreteFunction %r at 0x%X>" % (self._function_type, id(self))

    @property
    def inference_fn(self):
        """The graph alone, called with its flat tensor inputs (TensorFlow's
        AtomicFunction)."""
        return AtomicFunction(self)

    def _pack(self, outs):
        if self._single_output:
            return outs[0]
        it = iter(outs)
        leaves = [next(it) if type(x) is int else x.value for x in self._out_leaves]
        return nest.pack_sequence_as(self._structure, leaves, expand_composites=True)

    # -- gradients ----------------------------------------------------------------------
    def _record(self, tensors, var_tensors, outs, saving=None, saved=None, seeds=None):
        inputs = tuple(tensors) + tuple(var_tensors)

        def backward(gs):
            return self._backward(inputs, outs, gs, saving, saved, seeds)
        _core.record_custom(inputs, tuple(outs), backward)

    def _backward(self, inputs, outs, gs, saving=None, saved=None, seeds=None):
        """``saving``/``saved``: the _Saving the forward replayed and the intermediates it
        kept (another thread may have built a newer _Saving since); ``seeds``: the random
        seeds the call drew (``_seeds``), which re-runs of the forward use again."""
        flat = [g if g is not None else _core.wrap(np.zeros_like(o._value))
                for g, o in zip(gs, outs)]
        if not _core.any_tape_recording():
            # no tape sees this backward, so nothing differentiates it again: it may
            # start from the forward's saved intermediates instead of recomputing them
            if saving is not None:
                return saving.backward(flat, saved)
            if self._saving is None:
                return self._build_saving(list(inputs), flat, seeds)
        if seeds is not None:
            # (the call's seeds are not inputs of a traced gradient: differentiate eagerly)
            return self._eager_gradient(list(inputs), flat, seeds)
        grad_function = self._grad_function
        if grad_function is None:   # two threads may both make one: either is right
            # (with fe.cond/while_loop steps its trace may have to run eagerly, for a
            # higher-order gradient across them: expected, not worth a warning)
            grad_function = self._grad_function = _function_class(
                self._eager_gradient, name=self.name + "_grad",
                quiet_fallback=any(s.kind == KIND_CONTROL for s in self._all_steps))
        return grad_function(list(inputs), flat)

    def _build_saving(self, inputs, gs, seeds=None):
        """Trace the backward alone, reading the forward's intermediates as inputs, and
        plan a forward replay that keeps those intermediates; returns this call's
        gradients (computed while tracing)."""
        floats = [t for t in inputs if t._value.dtype.kind in "fc"]
        with GradientTape(watch_accessed_variables=False) as tape:
            for t in floats:
                tape.watch(t)
            outs, vals = self._run_eagerly(inputs, with_values=True, seeds=seeds)
        pairs = [(o, g) for o, g in zip(outs, gs) if o._value.dtype.kind in "fc"]
        if not pairs or not floats:
            self._saving = False
            return [None] * len(inputs)
        tracer = _Tracer(self.name + "_backward", allow_variables=False)
        g_regs = [tracer.add_input(g) for _, g in pairs]
        forward = [(r, tracer.add_input(t)) for r, t in vals.items() if r not in self._consts]
        with _core.tracing_into(tracer):
            grads = tape.gradient([o for o, _ in pairs], floats,
                                  output_gradients=[g for _, g in pairs],
                                  unconnected_gradients="zero")
        it = iter(grads)
        result = [next(it) if t._value.dtype.kind in "fc" else None for t in inputs]
        if tracer.escaped or tracer.random_regs:
            self._saving = False                 # the backward reads data or draws
            return result
        leaves = [tracer.reg_of(g) for g in grads]
        backward = ConcreteFunction(self.name + "_backward", tracer, grads, leaves,
                                    self._reuse_buffers)
        used = {r for st in backward._steps for r in st.ins} | set(backward._out_regs)
        needed = [(fr, br) for fr, br in forward if br in used]
        backward._inputs = g_regs + [br for _, br in needed]
        saved = [fr for fr, _ in needed]
        values = [None] * self._n_regs
        for r, t in vals.items():
            values[r] = t._value
        self._saving = _Saving(self._planned(self._out_regs + saved, values), saved,
                               backward, [o._value.dtype.kind in "fc" for o in outs],
                               [t._value.dtype.kind in "fc" for t in inputs])
        return result

    def _eager_gradient(self, inputs, gs, seeds=None):
        """Gradients of the outputs w.r.t. every input, by running the graph's ops
        eagerly under a tape (traced itself: the backward of a function is a function)."""
        floats = [t for t in inputs if t._value.dtype.kind in "fc"]
        with GradientTape(watch_accessed_variables=False) as tape:
            for t in floats:
                tape.watch(t)
            outs = self._run_eagerly(inputs, seeds=seeds)
        pairs = [(o, g) for o, g in zip(outs, gs) if o._value.dtype.kind in "fc"]
        if not pairs or not floats:
            return [None] * len(inputs)
        grads = tape.gradient([o for o, _ in pairs], floats,
                              output_gradients=[g for _, g in pairs],
                              unconnected_gradients="zero")
        it = iter(grads)
        return [next(it) if t._value.dtype.kind in "fc" else None for t in inputs]

    def _run_eagerly(self, inputs, with_values=False, seeds=None):
        """Run the recorded ops through ``execute`` (so tapes see them); no effects.
        ``with_values``: also return every register's tensor; ``seeds``: the random seeds
        of the call being differentiated (a new one is drawn for any other)."""
        vals = {r: _core.wrap(a) for r, a in enumerate(self._template) if a is not None}
        n = len(self._inputs)
        for r, t in zip(self._inputs, inputs[:n]):
            vals[r] = t
        for (v, r), t in zip(self._var_inputs, inputs[n:]):
            vals[r] = t
        steps = self._all_steps
        i = 0
        while i <= len(steps):
            custom = self._custom.get(i)
            if custom is not None:           # a custom_gradient call: call it again
                end, fn, in_regs, out_regs, kwargs = custom
                result = nest.flatten(fn(*[vals[r] for r in in_regs], **kwargs))
                for r, t in zip(out_regs, result):
                    vals[r] = t
                if end > i:
                    i = end
                    continue
            if i == len(steps):
                break
            s = steps[i]
            i += 1
            if s.kind == KIND_OP:
                args = tuple([vals[r] for r in s.ins])
                # string kernels (fasteager/strings.py) run through their own call: the
                # core's dtype check refuses object arrays
                eager = getattr(s.op, "eager_call", None)
                out = _core.execute(s.op, args, s.attrs) if eager is None else \
                    eager(*args, **(s.attrs or {}))
                if s.multi:
                    for r, t in zip(s.out, out):
                        vals[r] = t
                else:
                    vals[s.out] = out
            elif s.kind == KIND_READ:
                vals[s.out] = s.fn._tensor
            elif s.kind == KIND_EFFECT and s.name == RANDOM_SEED:
                seed = seeds.get(s.out[0]) if seeds else None
                vals[s.out[0]] = _core.wrap(s.fn()[0] if seed is None else seed)
            elif s.kind == KIND_COPY:
                vals[s.out] = s.attrs["eager"](vals[s.ins[0]])
            elif s.kind == KIND_CONTROL:      # the branch or loop runs again under the tape
                for r, t in zip(s.out, s.attrs["eager"](*[vals[r] for r in s.ins])):
                    vals[r] = t
        outs = [vals[r] for r in self._out_regs]
        return (outs, vals) if with_values else outs


# where these classes were defined before the engine had layers: printed types stay the same
for _cls in (AtomicFunction, PythonOutput, ConcreteFunction):
    _cls.__module__ = "fasteager.function"
del _cls
