"""The trace recorder of ``fe.function``: ``_Tracer`` collects the steps of one trace
while ``_core`` reports every op, variable read, value escape and effect to it; the step
kinds (defined once, in ``_graph``); ``next(iterator)`` pulls (``_PullStep``, ``_Pulls``);
variable writes recorded as effects; and the GPU kernels a GPU backend installs.
"""
import sys
import threading

import numpy as np

from ... import _core, _graph
from ..._graph import (KIND_CONTROL, KIND_COPY, KIND_EFFECT, KIND_FUSED,  # noqa: F401
                       KIND_OP, KIND_PY_CALL, KIND_READ)
from ..composite import elements as _data_structure
from ...errors import InvalidArgumentError, OutOfRangeError
from ...tensor_shape import TensorShape
from .autograph.symbolic import graph_name

Tensor = _core.Tensor
VariableBase = _core.VariableBase
RANDOM_SEED = "random_seed"     # the name of the effect step drawing a seed (random_seed)
# ops whose result depends on their input's shape alone (ops/array_ops.py: eagerly
# constants, graph steps in a trace); what is computed from them is ``shaped``
SHAPE_STEPS = frozenset(("shape", "size", "ones_like", "zeros_like"))
# AutoGraph's operators module: its frames stand for the user code that called them
_AUTOGRAPH_OPERATORS = __name__.rpartition(".")[0] + ".autograph.operators"

# The GPU backend's kernels for traces: ``fasteager.cuda`` installs them when it loads
# (tracing never imports it); None until then, when no value can be on a GPU.
# ``array_forward(op)``: the op's replay function on device arrays; ``fused(program)``:
# a ``_graph.Fused`` program run as one GPU kernel.
gpu_kernels = None


def set_gpu_kernels(array_forward, fused):
    """Install the GPU backend's kernels for traces (see ``gpu_kernels``)."""
    global gpu_kernels
    gpu_kernels = (array_forward, fused)


# Trace listeners: ``fn(concrete_function)`` is called with each new trace by
# ``fe.function`` (``fe.summary.trace_on`` collects graphs so; tracing never imports summary).
_trace_listeners = []


def add_trace_listener(fn):
    """Call ``fn(concrete_function)`` with every trace made from now on."""
    if fn not in _trace_listeners:
        _trace_listeners.append(fn)



# ----------------------------------------------------------------------------------------
# The trace recorder (called by _core while tracing)
# ----------------------------------------------------------------------------------------
class _Tracer:
    """Collects the steps of one trace; register numbers index ``values``."""

    def __init__(self, name, allow_variables=True):
        self.name = name
        self.slots = {}          # tensor id -> register
        self.array_slots = {}    # id(ndarray) -> register (re-wrapped values alias)
        self.values = []         # trace-time value of each register (keeps ids unique)
        self.consts = {}         # register -> captured array
        self.dep = set()         # registers that depend on inputs or variables
        self.steps = []
        self.inputs = []         # registers of the tensor arguments
        self.var_inputs = []     # (variable, register): read at call time
        self.var_entry = {}      # variable id -> register
        self.assigned = set()    # ids of variables written in this trace
        self.snapshots = {}      # variable id -> (variable, tensor before the first write)
        self.created = []
        self.allow_variables = allow_variables
        self.escaped = None
        self.random_pending = False
        self.random_ids = set()  # tensors holding random draws (replay would freeze them)
        self.random_regs = set()
        self.custom = {}         # first step -> custom_gradient call (see custom_call)
        self.pulls = []          # (iterator, element, registers) of each next(iterator)
        self.fresh = {}          # id -> (index, iterator) of iterators made in the trace
        self.ended = set()       # indices of those the trace read to their end
        # a sub-graph (a branch or loop body of fe.cond / fe.while_loop) traced inside
        # ``parent``: tensors of the parent that depend on its inputs become inputs here
        self.parent = None
        self.captures = []       # parent register of each such input, in input order
        self.capture_tensors = []    # and the parent's tensor it holds
        self.made = {}           # tensor id -> each op output tensor (see _out_of_scope)
        self.dry = False         # the second trace of a first call (see _trace_again)
        self.relaxed = {}        # input register -> its shape with None dimensions
        # registers computed from the shapes of the inputs alone (fe.shape, ones_like and
        # ops on them), not from their values: read by Python code, they tie the trace to
        # its sizes (``size_bound``), which a replay at the same sizes still serves
        self.shaped = set()
        self.size_bound = None   # why the trace may not serve other sizes (see relax.py)
        self.shape_reads = {}    # register -> dimensions of it user code read (shown_shape)

    @property
    def relaxed(self):
        """Input register -> its shape with None dimensions; in a sub-graph (a branch, a
        loop body), for the inputs captured from those of the function (see _SubPatterns)."""
        if self.parent is None:
            return self._relaxed
        return _SubPatterns(self)

    @relaxed.setter
    def relaxed(self, patterns):
        self._relaxed = patterns

    def _new(self, arr, dep):
        r = len(self.values)
        self.values.append(arr)
        self.array_slots[id(arr)] = r
        if dep:
            self.dep.add(r)
        return r

    def reg_of(self, t):
        r = self.slots.get(t._id)
        if r is None:
            r = self.array_slots.get(id(t._value))
            if r is None and self.parent is not None:
                r = self._capture(t)
            if r is None:
                r = self._new(t._value, False)
                self.consts[r] = t._value
                if t._id in self.random_ids:
                    self.random_regs.add(r)
            self.slots[t._id] = r
        return r

    def find(self, t):
        """``t``'s register here (capturing it from the parents if needed), or None."""
        r = self.slots.get(t._id)
        if r is None:
            r = self.array_slots.get(id(t._value))
        if r is None and self.parent is not None:
            r = self._capture(t)
        return r

    def _capture(self, t):
        pr = self.parent.find(t)
        if pr is None or pr not in self.parent.dep:
            return None                   # a constant of the parent is a constant here
        r = self._new(t._value, True)
        if pr in self.parent.shaped:
            self.shaped.add(r)
        self.slots[t._id] = r
        self.inputs.append(r)
        self.captures.append(pr)
        self.capture_tensors.append(t)
        return r

    def add_input(self, t):
        r = self._new(t._value, True)
        self.slots[t._id] = r
        self.inputs.append(r)
        return r

    # -- hooks called by _core --------------------------------------------------------
    def root(self):
        """The recorder of the whole function (a sub-graph's outermost parent)."""
        tracer = self
        while tracer.parent is not None:
            tracer = tracer.parent
        return tracer

    def _owner(self, t):
        """The recorder (this one or a parent) holding ``t``'s register, and the register;
        ``(None, None)`` when no recorder holds it."""
        tracer = self
        while tracer is not None:
            r = tracer.slots.get(t._id)
            if r is not None:
                return tracer, r
            tracer = tracer.parent
        return None, None

    def tie_to_sizes(self, why):
        """Python code used a value taken from the traced sizes: the trace serves those
        sizes only (each other size is traced again)."""
        root = self.root()
        if root.size_bound is None:
            root.size_bound = why

    def shown_shape(self, t):
        """``t.shape`` read by user code in a relaxed trace: for an input, the signature's
        shape, None dimensions included, as TensorFlow's symbolic tensors show it; for a
        tensor computed from the inputs, its concrete shape, each dimension user code
        reads noted (``relax.py`` refuses the trace when a read one follows the None
        dimensions). None otherwise (fasteager's own code reads concrete shapes)."""
        frame = sys._getframe(1)
        module = frame.f_globals.get("__name__", "")
        while module == _AUTOGRAPH_OPERATORS and frame.f_back is not None:
            frame = frame.f_back          # (AutoGraph's converted_call of x.get_shape())
            module = frame.f_globals.get("__name__", "")
        if module == "fasteager" or module.startswith("fasteager."):
            return None
        root = self.root()
        r = root.slots.get(t._id)
        pattern = root.relaxed.get(r) if r is not None else None
        if pattern is not None:
            return TensorShape(pattern)
        tracer, r = self._owner(t)
        if r is None or r not in tracer.dep:
            return None
        if tracer is not root:
            # (a sub-graph's register: the check sees the outer graph's only)
            self.tie_to_sizes("the shape of a tensor read in a branch or loop body")
            return None
        return _ReadShape(t._value.shape, root.shape_reads.setdefault(r, set()))

    def length_read(self, t):
        """``len(t)``, or a Python loop over ``t`` (unrolled for its length): its first
        dimension taken as a number, by any code."""
        tracer, r = self._owner(t)
        if r is None or r not in tracer.dep:
            return
        root = self.root()
        if tracer is not root:
            self.tie_to_sizes("len() of a tensor in a branch or loop body")
        elif r in root.relaxed:
            if root.relaxed[r][0] is None:
                self.tie_to_sizes("len() of an input along its None dimension")
        else:
            root.shape_reads.setdefault(r, set()).add(0)

    def record(self, op, tensors, attrs, out):
        ins = tuple([self.reg_of(t) for t in tensors])
        dep = any(r in self.dep for r in ins)
        if op.multi:
            outs = tuple([self._out(t, dep) for t in out])
        else:
            outs = self._out(out, dep)
        if dep and (op.name in SHAPE_STEPS or all(
                r in self.shaped for r in ins if r in self.dep)):
            self.shaped.update(outs if op.multi else (outs,))
        fn = op.forward
        first = out[0] if op.multi and out else out
        if _core.gpu_backend_state() > 0 and type(first._value).__name__ == "DeviceArray":
            fn = gpu_kernels[0](op)     # the op ran on the GPU: so will replays
        self.steps.append(_graph.Step(KIND_OP, fn, ins, dict(attrs) if attrs else None,
                                      outs, op.multi, op.name, op))

    def record_copy(self, t, out, array_fn, tensor_fn):
        """A copy between host and GPU: ``array_fn`` replays it, ``tensor_fn`` re-runs it
        eagerly (under a tape, for gradients)."""
        ins = (self.reg_of(t),)
        if ins[0] not in self.dep:      # a copy of a constant is a constant
            return
        r = self._out(out, True)
        self.steps.append(_graph.Step(KIND_COPY, array_fn, ins, {"eager": tensor_fn}, r,
                                      False, "copy"))

    def _out(self, t, dep):
        r = self._new(t._value, dep)
        self.slots[t._id] = r
        self.made[t._id] = t
        return r

    def variable_read(self, var):
        t = var._tensor
        if var._vid in self.assigned:
            r = self._new(t._value, True)
            self.slots[t._id] = r
            self.steps.append(_graph.Step(KIND_READ, var, (), None, r, False, "read_variable"))
            return
        if t._id in self.slots and self.var_entry.get(var._vid) == self.slots[t._id]:
            return
        r = self._new(t._value, True)
        self.slots[t._id] = r
        self.var_entry[var._vid] = r
        self.var_inputs.append((var, r))

    def variable_created(self, var):
        if not self.allow_variables:
            raise ValueError(
                "tf.function only supports singleton tf.Variables created on the first "
                "call. Make sure the tf.Variable is only created once or created outside "
                "tf.function. See https://www.tensorflow.org/guide/function#creating_"
                "tfvariables for more information. (fe.function %s)" % self.name)
        self.created.append(var)

    def custom_call(self, fn, inputs, kwargs, outputs, start):
        """A ``custom_gradient`` function ran steps ``start:`` of the trace: eager
        re-runs (for gradients) call it again instead, so its grad_fn is used."""
        end = len(self.steps)
        if start in self.custom and self.custom[start][0] >= end:
            return                           # nested in a call recorded at the same step
        self.custom[start] = (end, fn, tuple(self.reg_of(t) for t in inputs),
                              tuple(self.reg_of(t) for t in outputs), kwargs)

    # -- fe.data iterators (data/dataset.py calls these) --------------------------------
    def iterator_created(self, iterator):
        """``iter(dataset)`` inside the trace: every call iterates afresh."""
        self.fresh[id(iterator)] = (len(self.fresh), iterator)

    def iterator_next(self, iterator, for_statement):
        """``next(iterator)``: take the element now; its tensors are graph inputs that
        every later call fills with the iterator's next element (see _Pulls): before the
        call's steps run, or, after an effect (a variable write, a print, a py_function
        call), by a step at its place in the graph, so the effects ordered before the
        ``next`` happen before the pipeline computes the element."""
        fresh = self.fresh.get(id(iterator))
        with _core.no_tracer():     # the pipeline's own functions run eagerly
            try:
                element = iterator._next_element()
            except StopIteration:
                if fresh is not None:
                    self.ended.add(fresh[0])   # a loop over the dataset: replays check the end
                    raise
                if for_statement:
                    # a loop to the end of an iterator made outside: later calls would loop
                    # over nothing (TensorFlow's AutoGraph loop); eager calls do exactly that
                    if self.escaped is None:
                        self.escaped = "a for loop to the end of an iterator made outside it"
                    raise
                raise OutOfRangeError("fe.function %s: End of sequence (next() on an "
                                      "iterator with no elements left)" % self.name) from None
        tensors = _data_structure.to_tensors(element)
        regs = tuple(self.add_input(t) for t in _data_structure.flatten(tensors))
        self.pulls.append((iterator if fresh is None else fresh[0], element, regs))
        # (iterators made in the trace are read in the prologue: a loop that ends early or
        # late there runs the call eagerly before any effect)
        if fresh is None and _PullStep.needed(self.steps):
            self.steps.append(_graph.Step(KIND_EFFECT, _PullStep(self.name, iterator, element,
                                                    len(self.pulls) - 1),
                                          (), None, regs, True, "iterator_next"))
        return tensors

    def random_seed(self, draw):
        """The seed of a random op replayed with fresh numbers on every call (dropout):
        ``draw()`` returns a new seed (a tuple of one int64 array); it is a step of the
        graph, run on every call, and the op takes its output as an input, so eager
        re-runs of the graph (for gradients) reuse the seed the call drew."""
        t = _core.wrap(draw()[0])
        r = self._out(t, True)
        self.steps.append(_graph.Step(KIND_EFFECT, draw, (), None, (r,), True, RANDOM_SEED))
        return t

    def random_draw(self):
        """A random op drew numbers: the next wrapped array holds them."""
        self.random_pending = True

    def wrapped(self, t):
        if self.random_pending:
            self.random_pending = False
            self.random_ids.add(t._id)

    def escape(self, t, what):
        tracer = self
        while tracer is not None:          # a sub-graph's value may come from its parents
            r = tracer.slots.get(t._id)
            if r is not None:
                if r in tracer.shaped:
                    # a value of the shapes alone: right for a replay at the same sizes
                    self.tie_to_sizes("%s on a value computed from the inputs' shape"
                                      % what)
                elif r in tracer.dep and self.escaped is None:
                    self.escaped = "%s on a tensor computed from the inputs" % what
                return
            tracer = tracer.parent

    # -- effects (variables.py and the optimizers call these) ----------------------------
    def effect(self, fn, tensors, mutates=(), name="effect", retains_inputs=False):
        """Record ``fn(*arrays)`` as a step run on every later call (the caller runs it now).

        ``fn`` reads its input arrays during the call only, unless ``retains_inputs``
        says it keeps references to them (then they never live in reused buffers)."""
        for t in tensors:
            _core.check_usable(t)      # an effect always runs: its inputs are needed
        ins = tuple([self.reg_of(t) for t in tensors])
        for v in mutates:
            self.assigned.add(v._vid)
            self.snapshots.setdefault(v._vid, (v, v._tensor))
        self.steps.append(_graph.Step(KIND_EFFECT, fn, ins,
                                      {"retains_inputs": True} if retains_inputs else None,
                                      -1, False, name))


class _SubPatterns(dict):
    """A sub-graph recorder's view of its function's relaxed inputs: its registers holding
    them (captured), mapped to their shapes with None; true whenever the function's trace
    is relaxed, so that user code reading shapes in a branch is seen (``shown_shape``)."""

    def __init__(self, sub):
        super().__init__()
        parent = sub.parent.relaxed
        first = len(sub.inputs) - len(sub.captures)
        for r, pr in zip(sub.inputs[first:], sub.captures):
            pattern = parent.get(pr)
            if pattern is not None:
                self[r] = pattern
        self._on = bool(sub.root()._relaxed)

    def __bool__(self):
        return self._on


def current_tracer():
    """The trace recorder of this thread, or None (eager execution)."""
    return _core.get_tracer()


def record_assign(var, kind, value):
    """``Variable.assign*`` while tracing: record the write as a graph step, then do it."""
    tracer = _core.get_tracer()
    t = _core.convert_to_tensor(value, var.dtype)
    want = var._tensor._value.shape
    ok = t._value.shape == want or (kind != "assign" and t._value.ndim == 0)
    if not ok:
        check = getattr(var, "_check_shape", None)
        if check is not None:
            check(t._value.shape, kind)   # the eager error: ValueError for assign, as TF
        raise InvalidArgumentError("%s: shape mismatch for variable %r (expected %s, got %s)"
                                   % (kind, var.name, list(want), list(t._value.shape)))

    write = _variable_writer(var, kind)
    tracer.effect(write, (t,), (var,), "variable_" + kind)
    write(t._value)
    return var


def _variable_writer(var, kind):
    """The replay step of ``var.assign``/``assign_add``/``assign_sub`` (``kind``)."""
    def write(arr):
        dst = var._mutable_array()
        if kind == "assign":
            np.copyto(dst, arr)
        elif kind == "assign_add":
            np.add(dst, arr, out=dst, casting="unsafe")
        else:
            np.subtract(dst, arr, out=dst, casting="unsafe")
    write.variable = var                # saved_model saves the write by the variable's path
    write.kind = kind
    return write


class _ReadShape(TensorShape):
    """The concrete shape of a tensor computed from a relaxed trace's inputs, as user code
    gets it (``y.shape``): the dimensions it reads are added to ``read`` (an index reads
    one; iterating, comparing or hashing reads them all), so the trace serves
    other sizes only when those dimensions do not follow them (see ``relax.py``)."""

    def __new__(cls, dims, read):
        shape = TensorShape.__new__(cls, dims)
        shape._read = read
        return shape

    def __getitem__(self, key):
        if isinstance(key, slice):
            self._read.update(range(len(self))[key])
            return TensorShape(tuple.__getitem__(self, key))
        item = tuple.__getitem__(self, key)
        self._read.add(key % len(self))
        return item

    def __iter__(self):
        self._read.update(range(len(self)))
        return tuple.__iter__(self)

    def __contains__(self, d):
        return d in tuple(self)

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (TensorShape, (tuple(self),))

    def __repr__(self):              # (printing is not a read: the text feeds no op)
        return repr(TensorShape(list(tuple.__iter__(self))))

    def __str__(self):
        return str(TensorShape(list(tuple.__iter__(self))))


class _Pulls:
    """The ``next(iterator)`` calls of a trace. A pull that no effect precedes happens
    before the graph runs: each call takes its element first and passes it as inputs (the
    shapes then pick the trace, a last smaller batch getting its own). A pull after an
    effect is a step of the graph at its place (``_PullStep``), where TensorFlow orders it;
    its inputs are only placeholders until that step writes them. Iterators the trace made
    (``for x in dataset``) are made afresh on every call and read before it runs; a trace
    that read one to its end checks that each call's iteration ends there too."""

    def __init__(self, tracer):
        by_index = sorted(tracer.fresh.values(), key=lambda p: p[0])
        self.datasets = [it._dataset for _, it in by_index]
        # (each made afresh on every call, by the iterator's own class: data's OwnedIterator)
        self.iterator_types = [type(it) for _, it in by_index]
        self.ended = sorted(tracer.ended)
        self.sources = tuple(src for src, _, _ in tracer.pulls)
        steps = {s.fn.index: s.fn for s in tracer.steps if type(s.fn) is _PullStep}
        # per pull: None (taken before the call) or its step (taken at its place)
        self._steps = [steps.get(i) for i in range(len(tracer.pulls))]
        self._first = [src for (src, _, _), step in zip(tracer.pulls, self._steps)
                       if step is None]
        self.metas = tuple(_meta(a) for (_, element, _), step in zip(tracer.pulls, self._steps)
                           if step is None for a in _element_arrays(element))
        position = {r: i for i, r in enumerate(tracer.inputs)}
        # (input position, step, index in its element) of the inputs pull steps write
        self.in_place = [(position[r], step, j) for (_, _, regs), step in
                         zip(tracer.pulls, self._steps) if step is not None
                         for j, r in enumerate(regs)]

    def take(self):
        """This call's elements of the pulls made before it runs (flat arrays, in the
        trace's order), or None when a loop over a dataset ran a different number of
        times than traced."""
        fresh = [make(d) for make, d in zip(self.iterator_types, self.datasets)]
        taken = []
        for src in self._first:
            it = fresh[src] if type(src) is int else src
            try:
                taken.append((src, it._next_element()))
            except StopIteration:
                if type(src) is int:
                    self.give_back(taken)
                    return None
                raise OutOfRangeError("End of sequence (next() inside an fe.function, on "
                                      "an iterator with no elements left)") from None
        for i in self.ended:
            try:
                fresh[i]._next_element()
            except StopIteration:
                continue
            self.give_back(taken)
            return None
        return taken

    def matches(self, taken):
        return tuple(_meta(a) for _, element in taken
                     for a in _element_arrays(element)) == self.metas

    def arrays(self, taken):
        """The pulled inputs of a call: the elements taken, and placeholders for those
        the call's pull steps take."""
        it = iter(taken)
        out = []
        for step in self._steps:
            out += _element_arrays(next(it)[1]) if step is None else step.placeholders
        return out

    def pulled(self, tensors):
        """``tensors`` (a call's inputs) with the elements its pull steps took in place of
        their placeholders (tapes record the call on the values it ran on)."""
        tensors = list(tensors)
        for i, step, j in self.in_place:
            tensors[i] = _core.wrap(step.last()[j])
        return tensors

    def give_back(self, taken):
        _give_back(taken)

    def describe(self):
        return ", ".join("%s%s" % (np.dtype(d).name, list(shape)) for d, shape in self.metas)


class _PullStep:
    """A graph step taking an iterator's next element where the trace called ``next()``:
    the flat arrays of the element, of the shapes and dtypes traced."""

    def __init__(self, name, iterator, element, index):
        self.name = name
        self.iterator = iterator
        self.index = index                # which of the trace's pulls it is
        arrays = _element_arrays(element)
        self.metas = [_meta(a) for a in arrays]
        self.placeholders = arrays        # (the trace's element: any values of its shapes)
        self._local = threading.local()   # each thread's last element, for its tape

    # steps that only keep a control step's outputs live (no effect of their own)
    _KEEPS = ("cond_keep", "while_loop_keep", "control_flow_grad_keep")

    @staticmethod
    def needed(steps):
        """Whether a pull after ``steps`` must happen at its place: an effect comes
        before it (a control step counts when one of its sub-graphs has one)."""
        for s in steps:
            control = s.attrs.get("control") if isinstance(s.attrs, dict) else None
            if control is not None:
                if any(_PullStep.needed(g._all_steps) for g in control[1:3]):
                    return True
            elif s.kind == KIND_EFFECT and s.name not in _PullStep._KEEPS:
                return True
        return False

    def __call__(self):
        try:
            element = self.iterator._next_element()
        except StopIteration:
            raise OutOfRangeError("fe.function %s: End of sequence (next() on an iterator "
                                  "with no elements left)" % self.name) from None
        arrays = _element_arrays(element)
        if [_meta(a) for a in arrays] != self.metas:
            self.iterator._give_back(element)
            raise InvalidArgumentError(
                "fe.function %s: next() after a variable write or print took an element of "
                "%s where the trace took %s (an element of another shape after the call's "
                "effects ran cannot pick another trace: batch with drop_remainder=True, or "
                "call next() before the effects)" % (
                    self.name, ", ".join("%s%s" % (a.dtype.name, list(a.shape))
                                         for a in arrays),
                    ", ".join("%s%s" % (np.dtype(d).name, list(shape))
                              for d, shape in self.metas)))
        self._local.arrays = arrays
        return arrays

    def last(self):
        return self._local.arrays


def _give_back(taken):
    """Return (source, element) pairs to the iterators made outside the function."""
    for src, element in reversed(taken):
        if type(src) is not int:
            src._give_back(element)


def _element_arrays(element):
    return [_data_structure._wrap_leaf(a)._value for a in _data_structure.flatten(element)]


def _meta(a):
    return (a.dtype.str, a.shape)


def _out_of_scope(tracer):
    """Make the op outputs of a finished trace that outlive it (a global, a list, an
    attribute set inside the function) graph tensors, as in TensorFlow: their value
    cannot be read (``numpy()`` raises AttributeError) nor used by an op, eager or in
    another function (TypeError: out of scope), and they print as TensorFlow's symbolic
    tensors. A tensor is alive when something besides the recorder refers to it; the
    returned tensors were replaced by copies for the caller (see Function._trace), and
    the tensors of the variables the trace created or read are the variables' own."""
    made = tracer.made
    tracer.made = None
    if not made:
        return
    for v in tracer.created:
        made.pop(v._tensor._id, None)
    for v, _ in tracer.var_inputs:
        made.pop(v._tensor._id, None)
    probe = {0: _core.wrap(np.zeros(()))}
    for t in probe.values():
        alone = sys.getrefcount(t)        # a tensor only the dict refers to
    leaked = []
    for t in made.values():
        if sys.getrefcount(t) > alone:
            leaked.append(t)
    for t in leaked:
        arr = t._value
        name = graph_name(tracer, t)[0] if tracer.find(t) is not None else "Placeholder:0"
        t._value = _core.unusable_value(arr.shape, arr.dtype, name, tracer.name)


# where these classes were defined before the engine had layers: printed types stay the same
for _cls in (_ReadShape,):
    _cls.__module__ = "fasteager.function"
del _cls
