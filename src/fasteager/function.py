"""``fe.function``: trace eager Python code into a graph once, then replay it fast.

Tracing records real execution: the Python function runs once on the call's concrete
tensors while a trace recorder is installed in ``_core``; every op that runs (through
``execute`` or the operator fast path) is appended to the recorder as (kernel, input
registers, attributes, output registers). Variables read are graph inputs fetched at call
time (captured by reference); tensors made outside the graph are captured constants;
assignments and optimizer updates are recorded as effect steps. The first call returns
the traced (real) results; later calls with the same signature replay the recorded
kernels in ``_graph.run`` with no conversion, dtype checks or tape work per op.
Intermediates that never leave the graph are written into buffers the concrete function
keeps between calls (``_buffers``), so a warm replay allocates only its outputs.

Gradients: a call under a recording tape records one node on the tape. Its backward has
two forms. When no tape watches the backward (first-order gradients, the usual case), it
is a traced graph of the VJPs alone, replayed on the intermediates the forward replay
kept for it (``_Saving``; built on the first such backward). When a tape does watch it
(higher order), the backward is an ``fe.function`` that re-runs the forward graph's ops
eagerly under a tape and takes the tape's gradient (traced once per signature), so every
dependence on the inputs is recorded and higher orders work by recursion.
``custom_gradient`` calls inside a trace are called again by those eager re-runs, so
their grad_fn is used (such graphs always take the second form).

Signatures: the cache key holds dtype and shape of each tensor argument, the value of
Python arguments and the identity of variables and other objects. With
``input_signature``, ``None`` dimensions make one polymorphic signature (so does
``reduce_retracing`` after a second shape): the count of traces
(``experimental_get_tracing_count``) grows once for it, and the trace serves every size of
those dimensions when no Python value was taken from the traced sizes (``_Tracer``:
``shaped`` registers, ``size_bound``) and a shadow replay at doubled sizes shows it does
not depend on them (``_relax``); otherwise a new concrete shape is traced again
internally (recorded attributes such as reshape targets may depend on the shape).

A trace that turns a computed tensor into a Python value (``bool(x)``, ``x.numpy()``,
``float(x)``) cannot be replayed: such a function runs eagerly on each call (with a
warning), which keeps its results right.

Threads: each thread traces with its own recorder (``_core`` keeps it per thread), so
threads may trace different functions at once. A function's cache of traces is filled
under its lock: concurrent first calls of one function trace it once, the others wait
for that trace and replay it (so, as in TensorFlow, a traced body must not wait for
another thread's first call of the same function). ``fe.config.run_functions_eagerly(True)``
(process-wide, as in TensorFlow) makes every call run the Python function eagerly instead.
"""
import copy
import functools
import inspect
import sys
import threading
import warnings
import weakref

import numpy as np

from . import _buffers, _core, _function_type, _graph, _relax, nest
from .data import structure as _data_structure
from .data.structure import TensorSpec
from .tensor_shape import TensorShape
from ._src.composite.summarize import summarize_value
from .errors import InvalidArgumentError, OutOfRangeError
from .summary import _trace as _summary_trace

Tensor = _core.Tensor
VariableBase = _core.VariableBase
KIND_OP, KIND_READ, KIND_EFFECT, KIND_FUSED, KIND_COPY = 0, 1, 2, 3, 4
KIND_CONTROL = 6     # fe.cond / fe.while_loop: fn(*arrays) -> tuple; attrs["eager"] re-runs it
RANDOM_SEED = "random_seed"     # the name of the effect step drawing a seed (random_seed)
# ops whose result depends on their input's shape alone (ops/array_ops.py: eagerly
# constants, graph steps in a trace); what is computed from them is ``shaped``
SHAPE_STEPS = frozenset(("shape", "size", "ones_like", "zeros_like"))

__all__ = ["function", "Function", "ConcreteFunction", "TensorSpec"]

# fe.config.run_functions_eagerly: a process-wide switch, read on every call
_run_eagerly = False
_bound_lock = threading.Lock()      # makes one bound Function per (function, object)


def set_run_eagerly(run_eagerly):
    global _run_eagerly
    _run_eagerly = run_eagerly


def run_eagerly():
    return _run_eagerly


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
        self.size_bound = None   # why the trace may not serve other sizes (see _relax)
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
        reads noted (``_relax`` refuses the trace when a read one follows the None
        dimensions). None otherwise (fasteager's own code reads concrete shapes)."""
        frame = sys._getframe(1)
        module = frame.f_globals.get("__name__", "")
        while module == "fasteager.autograph.operators" and frame.f_back is not None:
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
            from .cuda.ops import array_forward   # the op ran on the GPU: so will replays
            fn = array_forward(op)
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
        previous = _core.set_tracer(None)   # the pipeline's own functions run eagerly
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
            raise OutOfRangeError("fe.function %s: End of sequence (next() on an iterator "
                                  "with no elements left)" % self.name) from None
        finally:
            _core.set_tracer(previous)
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


def print_(*args, sep=" ", end="\n", output_stream=None, summarize=None, name=None):
    """Print tensors and Python values as ``tf.print`` does (to ``sys.stderr`` unless
    ``output_stream`` says otherwise); inside ``fe.function`` it prints on every call.

    ``summarize``: the first and last elements of each dimension shown (3 when None;
    -1 shows all).

    >>> fe.print("loss:", fe.constant(1.5), output_stream=sys.stdout)
    loss: 1.5
    """
    import sys
    from .ragged import RaggedTensor
    from .sparse import SparseTensor
    edge = 3 if summarize is None else int(summarize)
    leaves = [nest.flatten(a) if nest.is_nested(a) else [a] for a in args]
    flat = [x._read() if isinstance(x, VariableBase) else x for xs in leaves for x in xs]
    # every tensor leaf, ragged and sparse ones as their component tensors (so a trace
    # prints their values at run time): (flat index, kind, number of components)
    shown, tensors = [], []
    for i, x in enumerate(flat):
        if isinstance(x, Tensor):
            parts = [x]
        elif isinstance(x, RaggedTensor):
            parts = [x.flat_values] + list(x.nested_row_splits)
        elif isinstance(x, SparseTensor):
            parts = [x.indices, x.values, x.dense_shape]
        else:
            continue
        shown.append((i, type(x), len(parts)))
        tensors += parts
    for t in tensors:
        _core.check_usable(t)

    def show(*arrays):
        now = _core.get_tracer()
        if now is not None and now.parent is not None:
            # a branch or loop body being traced (or run to continue that trace): its
            # prints happen when the enclosing step runs, once, for the branch it takes
            return
        parts = list(flat)
        k = 0
        for i, kind, n in shown:
            comps = [np.asarray(a) for a in arrays[k:k + n]]
            k += n
            if kind is RaggedTensor:
                parts[i] = _Printed(_ragged_text(comps[0], comps[1:], edge))
            elif kind is SparseTensor:
                # TF prints it as a quoted Python string
                parts[i] = _Printed("'SparseTensor(indices=%s, values=%s, shape=%s)'"
                                    % tuple(summarize_value(c, edge) for c in comps))
            else:
                parts[i] = _Printed(summarize_value(comps[0], edge))
        it = iter(parts)
        texts = []
        for a, xs in zip(args, leaves):
            value = nest.pack_sequence_as(a, [next(it) for _ in xs]) if nest.is_nested(a) \
                else next(it)
            texts.append(str(value))
        stream = sys.stderr if output_stream is None else output_stream
        print(*texts, sep=sep, end=end, file=stream)
    tracer = _core.get_tracer()
    if tracer is not None:
        tracer.effect(show, tensors, (), "print")
        root = tracer
        while root.parent is not None:
            root = root.parent
        if root.dry:        # the check trace of a first call prints nothing: the call did
            return
    show(*[t._value for t in tensors])


_PYTHON_VALUES = (bool, int, float, complex, str, bytes, np.generic, np.ndarray)


def _python_outputs_as_tensors(result):
    """TensorFlow's rule for what a function returns: Python and NumPy values become
    constant tensors (``return 1 + foo`` gives an int32 tensor on every call); tensors,
    None and other objects are returned as they are."""
    flat = nest.flatten(result, expand_composites=True)
    if not any(isinstance(x, _PYTHON_VALUES) for x in flat):
        return result
    flat = [_core.convert_to_tensor(x) if isinstance(x, _PYTHON_VALUES) else x for x in flat]
    return nest.pack_sequence_as(result, flat, expand_composites=True)


def _ragged_text(values, splits, edge):
    """A ragged tensor as ``tf.print`` writes it (through tf.strings.as_string): nested
    lists joined by ', ', floats as %f, bools true/false, strings in single quotes; lists
    longer than ``2 * edge`` elided."""
    def item(v):
        if np.ndim(v):
            return elided([item(u) for u in v])
        if values.dtype.kind == "b":
            return "true" if v else "false"
        if values.dtype.kind == "f":
            return "%f" % v
        if values.dtype.kind in "OSU":
            return "'%s'" % (v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
        return str(v)

    def elided(items):
        if 0 <= edge and len(items) > 2 * edge:
            items = items[:edge] + ["..."] + items[-edge:]
        return "[" + ", ".join(items) + "]"

    def rows(level, lo, hi):
        if level == len(splits):
            return [item(v) for v in values[lo:hi]]
        s = splits[level]
        return [elided(rows(level + 1, s[r], s[r + 1])) for r in range(lo, hi)]
    return elided(rows(0, 0, len(splits[0]) - 1))


class _ReadShape(TensorShape):
    """The concrete shape of a tensor computed from a relaxed trace's inputs, as user code
    gets it (``y.shape``): the dimensions it reads are added to ``read`` (an index reads
    one; iterating, comparing or hashing reads them all), so the trace serves
    other sizes only when those dimensions do not follow them (see ``_relax``)."""

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


class _Printed:
    """Text that prints bare inside a printed structure (``{'k': 1}``, not ``{'k': '1'}``)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    __repr__ = __str__


# ----------------------------------------------------------------------------------------
# Concrete functions: one trace
# ----------------------------------------------------------------------------------------
def _dtype_name(np_dtype):
    from .dtypes import as_dtype
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
        from .graph_view import FuncGraph
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
            grad_function = self._grad_function = Function(
                self._eager_gradient, name=self.name + "_grad",
                quiet_fallback=any(s.kind == KIND_CONTROL for s in self._all_steps))
        return grad_function(list(inputs), flat)

    def _build_saving(self, inputs, gs, seeds=None):
        """Trace the backward alone, reading the forward's intermediates as inputs, and
        plan a forward replay that keeps those intermediates; returns this call's
        gradients (computed while tracing)."""
        from ._src.autodiff.tape import GradientTape
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
        previous = _core.set_tracer(tracer)
        try:
            grads = tape.gradient([o for o, _ in pairs], floats,
                                  output_gradients=[g for _, g in pairs],
                                  unconnected_gradients="zero")
        finally:
            _core.set_tracer(previous)
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
        from ._src.autodiff.tape import GradientTape
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
        from .data.dataset import OwnedIterator
        fresh = [OwnedIterator(d) for d in self.datasets]
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


class _Replay:
    """A planned replay list and the buffers it keeps between calls (one caller at a
    time uses them: another thread, or a re-entrant call, allocates its own)."""

    def __init__(self, steps, values, protected, reuse_buffers, quiet):
        self.steps = steps
        self.specs = _buffers.plan(steps, values, protected) if reuse_buffers else []
        self.buffers = None                      # allocated on the first replay
        self.lock = threading.Lock()
        self.quiet = quiet

    @property
    def buffer_bytes(self):
        return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize
                   for shape, dtype in self.specs)

    def run(self, regs):
        owner = self.specs and self.lock.acquire(False)
        try:
            if owner and self.buffers is None:
                self.buffers = _buffers.allocate(self.specs)
            bufs = self.buffers if owner else None
            if self.quiet:
                token = _core.quiet_enter()
                try:
                    _graph.run(self.steps, regs, bufs)
                finally:
                    _core.quiet_exit(token)
            else:
                _graph.run(self.steps, regs, bufs)
        finally:
            if owner:
                self.lock.release()


class _Saving:
    """The first-order gradient path of a ConcreteFunction: ``replay`` runs the forward
    and keeps registers ``saved``; ``backward(gs, saved arrays)`` replays the traced
    backward graph on them (the forward is not run again)."""

    def __init__(self, replay, saved, graph, float_outs, float_ins):
        self.replay = replay
        self.saved = saved
        self.graph = graph
        self.float_outs = float_outs
        self.float_ins = float_ins

    def backward(self, gs, saved):
        wrap = _core.wrap
        args = [g for g, f in zip(gs, self.float_outs) if f] + [wrap(a) for a in saved]
        grads = iter(self.graph._call_flat(args))
        return [next(grads) if f else None for f in self.float_ins]


def _plan(steps, out_regs, consts, n_regs, values=None):
    """Dead-code removal, fusion, and the register-freeing plan of a replay list.

    ``consts``: register -> captured constant; ``values``: trace-time value of every
    register (fusion reads dtypes and shapes from them)."""
    live = set(out_regs)
    keep = []
    for s in reversed(steps):
        outs = s.out if s.multi else (s.out,)
        if s.kind == KIND_EFFECT or any(r in live for r in outs):
            keep.append(s)
            live.update(s.ins)
    keep.reverse()
    from . import _fusion
    keep = _fusion.fuse(keep, set(out_regs), values, consts)
    # free each register after its last reader (never constants or outputs)
    last = {}
    for i, s in enumerate(keep):
        for r in s.ins:
            last[r] = i
    frees = [[] for _ in keep]
    protected = set(out_regs) | set(consts)
    for r, i in last.items():
        if r not in protected:
            frees[i].append(r)
    out = []
    for s, f in zip(keep, frees):
        s = _graph.Step(s.kind, s.fn, s.ins, s.attrs, s.out, s.multi, s.name, s.op)
        s.frees = tuple(f)
        out.append(s)
    return out


# ----------------------------------------------------------------------------------------
# Function: the cache of traces
# ----------------------------------------------------------------------------------------
class _Skip:
    pass


class Function:
    """A Python function traced once per input signature (see ``fe.function``)."""

    def __init__(self, python_function, input_signature=None, jit_compile=False, name=None,
                 reduce_retracing=False, quiet_fallback=False, reuse_buffers=True,
                 autograph=True):
        self._python_function = python_function
        self._autograph = autograph
        self._converted = None          # what tracing runs (see _traced_python_function)
        self._quiet_fallback = quiet_fallback
        self._reuse_buffers = reuse_buffers
        self._name = name or getattr(python_function, "__name__", "function")
        if input_signature is not None:
            input_signature = tuple(input_signature)
            for s in nest.flatten(input_signature):
                if not isinstance(s, TensorSpec) and not hasattr(s, "is_compatible_with"):
                    raise TypeError("fe.function %s: input_signature must hold TensorSpecs "
                                    "(or RaggedTensorSpecs, SparseTensorSpecs; got %s)"
                                    % (self._name, type(s).__name__))
        self._input_signature = input_signature
        self._sig_names = None          # parameter names of its entries (on first call)
        self._jit_compile = jit_compile
        self._cache = {}
        self._reduce_retracing = reduce_retracing
        # relaxed traces (see _relax): shapeless key -> [(input shapes with None, trace)];
        # their plans for the shapes they served: exact key -> ConcreteFunction
        self._relaxed = {}
        self._special = {}
        self._last_shapes = {}          # shapeless key -> shapes of its last trace
        # key with variables as (dtype, shape) -> (trace, its variable arguments)
        self._by_variable_spec = {}
        self._sig_pattern = _Skip       # (computed on the first call)
        self._signatures = set()
        self._tracing_count = 0
        self._traced_once = False
        self._bound = weakref.WeakKeyDictionary()
        self._warned = False
        self._lock = threading.RLock()   # held while tracing (see __call__)
        functools.update_wrapper(self, python_function, updated=())

    @property
    def python_function(self):
        return self._python_function

    def _traced_python_function(self):
        """The function tracing runs: the AutoGraph-converted one (converted once; the
        Python function itself when ``autograph=False`` or it cannot be converted)."""
        f = self._converted
        if f is None:
            f = self._python_function
            if self._autograph:          # (user code: fasteager's own is not converted)
                from .autograph.transformer import converted_callable
                f = converted_callable(f)
            self._converted = f
        return f

    @property
    def input_signature(self):
        return self._input_signature

    def experimental_get_tracing_count(self):
        """How many times the Python function was traced (one per new signature)."""
        return self._tracing_count

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        try:
            bound = self._bound.get(obj)
        except TypeError:
            bound = None
        if bound is None:
            with _bound_lock:         # two threads must not trace two copies of one method
                try:
                    bound = self._bound.get(obj)
                except TypeError:
                    pass
                if bound is None:
                    bound = Function(self._python_function.__get__(obj, objtype),
                                     self._input_signature, self._jit_compile, self._name,
                                     quiet_fallback=self._quiet_fallback,
                                     reuse_buffers=self._reuse_buffers,
                                     autograph=self._autograph)
                    try:
                        self._bound[obj] = bound
                    except TypeError:
                        pass
        return bound

    def __repr__(self):
        return "<fe.function %s>" % self._name

    # -- signatures -----------------------------------------------------------------------
    def _canonicalize(self, args, kwargs):
        """(args, kwargs with arrays as tensors, polymorphic key, exact key, tensors)."""
        tensors = []
        seen = {}

        def key_of(x):
            tx = type(x)
            if tx is Tensor:
                dup = seen.get(x._id)
                if dup is None:
                    seen[x._id] = len(tensors)
                    tensors.append(x)
                    return x, (x._value.dtype.num, x._value.shape)
                return x, ("dup", dup)
            if tx is list or tx is tuple:
                pairs = [key_of(v) for v in x]
                return tx([p[0] for p in pairs]), (tx.__name__,) + tuple(p[1] for p in pairs)
            if tx is dict:
                pairs = {k: key_of(v) for k, v in x.items()}
                return ({k: p[0] for k, p in pairs.items()},
                        ("dict",) + tuple(sorted((repr(k), p[1]) for k, p in pairs.items())))
            if tx is np.ndarray:
                return key_of(_core.convert_to_tensor(x))
            if isinstance(x, np.generic):
                # eager ops treat a NumPy scalar as a Python number (it takes the other
                # operand's dtype), so the trace keeps it a value, as it does Python's;
                # keyed by its bytes: NaN arguments then match
                return x, ("np", x.dtype.str, x.tobytes())
            if isinstance(x, VariableBase):
                return x, ("var", id(x))
            if isinstance(x, Tensor):
                return key_of(_core.wrap(x._value))
            if x is None or tx in (int, float, bool, str, complex):
                return x, (tx.__name__, x)
            if hasattr(tx, "_to_components"):
                # a composite (RaggedTensor, SparseTensor, ExtensionType): its component
                # tensors are the trace's inputs, so calls with other values of the same
                # component shapes replay it
                # (rebuilt from its parts first: a constructor may wrap them anew, and
                # the trace's inputs must be the tensors the function receives)
                x = x._from_components(list(x._to_components()))
                pairs = [key_of(c) for c in x._to_components()]
                if any(p[0] is not c for p, c in zip(pairs, x._to_components())):
                    x = x._from_components([p[0] for p in pairs])
                # (an extension type's static fields, such as a mapping's keys, count too)
                static = x._static_key() if hasattr(x, "_static_key") else ()
                return x, ("composite", tx.__name__, static) + tuple(p[1] for p in pairs)
            tracing_type = getattr(tx, "__tf_tracing_type__", None)
            if tracing_type is not None:
                # the object's TraceType (fe.types.experimental) decides which calls
                # share a trace
                return x, ("trace_type", tracing_type(x, None))
            try:
                hash(x)
                return x, ("obj", tx.__name__, x)
            except TypeError:
                return x, ("id", id(x))

        if self._input_signature is not None:
            return self._with_signature(args, kwargs, tensors)
        args, akey = key_of(tuple(args))
        if kwargs:
            kwargs, kkey = key_of(dict(kwargs))
        else:
            kkey = None
        key = (akey, kkey)
        return args, kwargs, key, key, tensors

    def _with_signature(self, args, kwargs, tensors):
        """Bind a call to the input_signature as TensorFlow does: arguments by position or
        by parameter name, each converted to its TensorSpec's dtype; a tensor of another
        dtype or shape, a structure of another shape, or a missing or extra argument is a
        TypeError (TensorFlow's "Binding inputs to tf.function failed")."""
        sig = self._input_signature
        values = self._bind_to_signature(args, kwargs)
        new_args = []
        shapes = []
        for i, (name, value, spec) in enumerate(zip(self._signature_names(), values, sig)):
            new_args.append(self._cast_to_spec(value, spec, name or "args_%d" % i, tensors,
                                               shapes))
        return tuple(new_args), {}, ("signature",), ("signature", tuple(shapes)), tensors

    def _signature_names(self):
        """The parameter name of each input_signature entry, or None for one bound by
        position only (``*args``)."""
        if self._sig_names is None:
            try:
                params = [p.name for p in
                          inspect.signature(self._python_function).parameters.values()
                          if p.kind == p.POSITIONAL_OR_KEYWORD]
            except (TypeError, ValueError):
                params = []
            self._sig_names = [params[i] if i < len(params) else None
                               for i in range(len(self._input_signature))]
        return self._sig_names

    def _bind_to_signature(self, args, kwargs):
        n = len(self._input_signature)
        if len(args) > n:
            self._binding_failed("too many positional arguments (the input_signature has "
                                 "%d, got %d)" % (n, len(args)), args, kwargs)
        names = self._signature_names()
        kwargs = dict(kwargs)
        values = list(args)
        for i, name in enumerate(names[len(args):], len(args)):
            if name is None or name not in kwargs:
                self._binding_failed("missing a required argument: %r"
                                     % (name or "args_%d" % i), args, kwargs)
            values.append(kwargs.pop(name))
        if kwargs:
            self._binding_failed("got an unexpected keyword argument %r" % min(kwargs),
                                 args, kwargs)
        return values

    def _binding_failed(self, why, args, kwargs):
        raise TypeError("fe.function %s: binding inputs failed due to `%s`. Received args: "
                        "%r and kwargs: %r for input_signature: %r"
                        % (self._name, why, tuple(args), dict(kwargs),
                           self._input_signature))

    def _cast_to_spec(self, value, spec, name, tensors, shapes):
        """``value`` as a tensor (or structure of tensors) matching ``spec``."""
        if not isinstance(spec, (TensorSpec, dict, list, tuple)) and \
                hasattr(spec, "is_compatible_with"):
            # RaggedTensorSpec / SparseTensorSpec: the value's component tensors are inputs
            if not hasattr(value, "_to_components") or not spec.is_compatible_with(value) \
                    or getattr(spec, "ragged_rank", None) != getattr(value, "ragged_rank",
                                                                      None):
                self._cast_failed(value, spec, name)
            # the inputs are the parts of the value the function receives (a constructor
            # may wrap the parts anew)
            value = value._from_components(list(value._to_components()))
            for c in value._to_components():
                if isinstance(c, Tensor):
                    tensors.append(c)
                    shapes.append(c._value.shape)
            return value
        if isinstance(spec, TensorSpec):
            if isinstance(value, VariableBase):
                value = value._read()
            if isinstance(value, Tensor):
                t = value
                if t._value.dtype != spec.dtype._np:
                    self._cast_failed(TensorSpec(t._value.shape, t._value.dtype), spec, name)
            else:
                try:
                    t = _core.convert_to_tensor(value, spec.dtype)
                except (TypeError, ValueError) as e:
                    raise TypeError("fe.function %s: binding inputs failed due to `%s` "
                                    "(argument %s, expected %r)"
                                    % (self._name, e, name, spec)) from None
            if spec.shape is not None and not spec.shape.is_compatible_with(t._value.shape):
                self._cast_failed(TensorSpec(t._value.shape, t._value.dtype), spec, name)
            tensors.append(t)
            shapes.append(t._value.shape)
            return t
        if isinstance(spec, dict):
            if not isinstance(value, dict) or set(value) != set(spec):
                self._cast_failed(value, spec, name)
            return {k: self._cast_to_spec(value[k], spec[k], name, tensors, shapes)
                    for k in spec}
        if type(value) is not type(spec) or len(value) != len(spec):
            self._cast_failed(value, spec, name)
        items = [self._cast_to_spec(v, sp, name, tensors, shapes)
                 for v, sp in zip(value, spec)]
        return type(spec)(*items) if hasattr(spec, "_fields") else type(spec)(items)

    def _cast_failed(self, got, spec, name):
        raise TypeError("fe.function %s: binding inputs failed due to `Can not cast %r to "
                        "%r` (argument %s)" % (self._name, got, spec, name))

    # -- calls ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _run_eagerly:
            return self._python_function(*args, **kwargs)
        if _core.get_tracer() is not None:          # nested in a trace: inline it
            return self._traced_python_function()(*args, **kwargs)
        if not kwargs and self._input_signature is None:
            # the common call, distinct tensors passed positionally: _canonicalize's key,
            # built directly
            key = ["tuple"]
            for a in args:
                if type(a) is not Tensor:
                    break
                key.append((a._value.dtype.num, a._value.shape))
            else:
                cf = self._cache.get((tuple(key), None)) or \
                    self._special.get((tuple(key), None))
                if cf is not None and not cf._eager_only and cf._pulls is None and \
                        len({id(a) for a in args}) == len(args):
                    return cf._pack(cf._call_flat(args))
        args, kwargs, sig, key, tensors = self._canonicalize(args, kwargs)
        cf = self._cache.get(key) or self._special.get(key)
        if cf is None:
            # one thread traces; a concurrent first call waits here, then replays it
            with self._lock:
                cf = self._cache.get(key) or self._special.get(key)
                if cf is None:
                    return self._first_call(args, kwargs, sig, key, tensors)
        if cf._eager_only:
            return self._python_function(*args, **kwargs)
        if cf._pulls is not None:
            return self._call_pulling(cf, args, kwargs, sig, key, tensors)
        return cf._pack(cf._call_flat(tensors))

    _MAX_VARIANTS = 8      # traces of one signature for new element shapes, then eager
    _MAX_SPECIAL = 32      # shapes a relaxed trace keeps plans for (then the oldest goes)

    def _first_call(self, args, kwargs, sig, key, tensors):
        """A call with a key not seen before: served by a relaxed trace whose None
        dimensions it fits, else traced (relaxed, when its signature or
        ``reduce_retracing`` asks for None dimensions; see _relax)."""
        variables = _variable_arguments(args, kwargs)
        by_spec = _variable_spec_key(key, variables) if variables else None
        if by_spec is not None:
            entry = self._by_variable_spec.get(by_spec[0])
            if entry is not None and entry[0]._rebindable():
                # other variables of the same dtype and shape (TensorFlow's VariableSpec):
                # the trace serves them, reading and writing them instead
                base, old = entry
                cf = base._rebound({id(o): variables[i] for o, i in zip(old, by_spec[1])})
                if len(self._special) >= self._MAX_SPECIAL:
                    self._special.pop(next(iter(self._special)))
                self._special[key] = cf
                return cf._pack(cf._call_flat(tensors))
        result = self._first_trace(args, kwargs, sig, key, tensors)
        if by_spec is not None and by_spec[0] not in self._by_variable_spec:
            cf = self._cache.get(key)
            if cf is not None:
                self._by_variable_spec[by_spec[0]] = (cf, [variables[i] for i in by_spec[1]])
        return result

    def _first_trace(self, args, kwargs, sig, key, tensors):
        shapes = tuple(t._value.shape for t in tensors)
        skeleton = sig if self._input_signature is not None else _relax.shapeless(key)
        for pattern, base in self._relaxed.get(skeleton, ()):
            if _relax.matches(pattern, shapes):
                return self._serve(base, key, tensors)
        pattern = None
        if self._input_signature is not None:
            if self._sig_pattern is _Skip:
                self._sig_pattern = _relax.signature_pattern(self._input_signature)
            pattern = self._sig_pattern
        elif self._reduce_retracing:
            previous = self._last_shapes.get(skeleton)
            self._last_shapes[skeleton] = shapes
            if previous is not None:
                pattern = _relax.generalize(previous, shapes)
        relaxed = (skeleton, pattern) if _relax.usable(pattern, shapes) else None
        return self._trace(args, kwargs, sig, key, tensors, run=True, relaxed=relaxed)

    def _serve(self, base, key, tensors):
        """The first call of relaxed trace ``base`` at these shapes: every recorded step
        runs once (effects included), and its values plan the replay of later calls at
        the same shapes."""
        outs, regs, var_tensors = base._call_unplanned(tensors)
        cf = base._specialised(regs)
        if len(self._special) >= self._MAX_SPECIAL:
            self._special.pop(next(iter(self._special)))
        self._special[key] = cf
        if var_tensors is not None and outs:
            cf._record(tensors, var_tensors, outs, seeds=cf._seeds(regs))
        return cf._pack(outs)

    def _call_pulling(self, cf, args, kwargs, sig, key, tensors):
        """A call of a graph that takes iterator elements: the variant traced for this
        call's element shapes (a last, smaller batch), traced now if new."""
        taken = cf._pulls.take()
        if taken is None:          # a loop over a dataset ran another number of times
            return self._python_function(*args, **kwargs)
        for variant in [cf] + cf._variants:
            if variant._pulls is not None and variant._pulls.sources == cf._pulls.sources \
                    and variant._pulls.matches(taken):
                pulled = [_core.wrap(a) for a in variant._pulls.arrays(taken)]
                return variant._pack(variant._call_flat(list(tensors) + pulled))
        cf._pulls.give_back(taken)   # the new trace takes them again
        if len(cf._variants) >= self._MAX_VARIANTS:
            return self._python_function(*args, **kwargs)
        with self._lock:
            return self._trace(args, kwargs, sig, key, tensors, run=True, variant_of=cf)

    def _trace(self, args, kwargs, sig, key, tensors, run, variant_of=None, relaxed=None):
        tracer = _Tracer(self._name, allow_variables=not self._traced_once)
        for t in tensors:
            tracer.add_input(t)
        if relaxed is not None:
            tracer.relaxed = dict(zip(tracer.inputs, relaxed[1]))
        input_names = _input_names(self._python_function, args, kwargs, tensors,
                                   self._input_signature)
        tracer.input_names = input_names      # (graph names: print while tracing)
        python_function = self._traced_python_function()
        # A tape (or forward accumulator) recording around the first call records the
        # trace's ops one by one and its records hold their tensors, so tensors leaked
        # from such a trace stay ordinary (see _out_of_scope).
        scoped = not (_core.any_tape_recording() or _core.forward_watching())
        previous = _core.set_tracer(tracer)
        try:
            result = _python_outputs_as_tensors(python_function(*args, **kwargs))
            flat = nest.flatten(result, expand_composites=True)
            for x in flat:
                # a returned tensor whose op error was deferred (the call needs it now),
                # or a tensor leaked out of another trace
                _core.check_usable(x)
        except Exception as e:
            if hasattr(e, "add_note"):
                # (a deferred op error: where the op was called)
                where = getattr(e, "_fe_raised_at", None) or _user_line(e.__traceback__)
                e.add_note("(raised while tracing fe.function %s%s)"
                           % (self._name, ", at %s:%d" % where if where else ""))
            raise
        finally:
            _core.set_tracer(previous)
            if not run:
                for v, t in tracer.snapshots.values():
                    v._tensor = t
                # a trace for a concrete function alone leaves the iterators where they were
                _give_back([(src, element) for src, element, _ in tracer.pulls])
        if tracer.created and tracer.allow_variables:
            self._trace_again(args, kwargs, tensors, tracer, run, scoped)
        leaves = []
        for x in flat:
            if isinstance(x, VariableBase):
                tracer.variable_read(x)
                x = x._tensor
            leaves.append(tracer.reg_of(x) if isinstance(x, Tensor) else PythonOutput(x))
        x = None
        if scoped:
            # the caller gets new tensors for the returned ones: the trace's own are graph
            # tensors, out of scope once it ends
            made = tracer.made
            flat = [_core.wrap_like(x) if type(x) is Tensor and x._id in made else x
                    for x in flat]
            result = nest.pack_sequence_as(result, flat, expand_composites=True)
        cf = ConcreteFunction(self._name, tracer, result, leaves, self._reuse_buffers)
        cf._input_names = input_names
        cf._function_type = _function_type.FunctionType(self._python_function, args, kwargs,
                                                        result, cf.variables)
        if scoped:
            _out_of_scope(tracer)
        if relaxed is not None and variant_of is None and tracer.size_bound is None:
            self._relax(cf, tracer, relaxed, args, kwargs, tensors, result, leaves)
        if _summary_trace.collecting():       # fe.summary.trace_on: keep its graph
            _summary_trace.collect(cf)
        if variant_of is not None:
            variant_of._variants.append(cf)
        else:
            self._cache[key] = cf
        self._traced_once = True
        if sig not in self._signatures:
            self._signatures.add(sig)
            self._tracing_count += 1
        if cf._eager_only and not self._warned and not self._quiet_fallback:
            self._warned = True
            warnings.warn("fe.function %s: the trace used %s, so the graph cannot be "
                          "replayed; the function runs eagerly on every call"
                          % (self._name, cf._eager_only), stacklevel=_caller_level())
        if run:
            return nest.pack_sequence_as(result, [
                x._read() if isinstance(x, VariableBase) else x for x in flat],
                expand_composites=True)
        return cf

    def _relax(self, cf, tracer, relaxed, args, kwargs, tensors, result, leaves):
        """Let trace ``cf`` serve every size of its None dimensions when the shadow
        check passes (see _relax), and describe it with them, as TensorFlow does."""
        skeleton, pattern = relaxed
        streams = _random_streams()     # (the check's random draws leave no trace)
        try:
            shapes = _relax.shadow_check(cf, tracer.values, pattern, tracer.shape_reads)
        finally:
            _random_streams(streams)
        if shapes is None:
            return
        cf._relaxed_pattern = pattern
        self._relaxed.setdefault(skeleton, []).append((pattern, cf))
        specs = {t._id: TensorSpec(p, t.dtype) for t, p in zip(tensors, pattern)}

        def spec_of(x):
            return specs.get(x._id, x) if isinstance(x, Tensor) else x
        ft = cf._function_type.with_arguments(
            self._python_function, nest.map_structure(spec_of, tuple(args)),
            {k: nest.map_structure(spec_of, v) for k, v in (kwargs or {}).items()})
        flat = nest.flatten(result)
        if len(flat) == len(leaves):            # (no composites among the outputs)
            out = [TensorSpec(shapes.get(r, cf._reg_meta[r][0]), x.dtype)
                   if type(r) is int and isinstance(x, Tensor) else x
                   for x, r in zip(flat, leaves)]
            ft._output = _function_type.describe(nest.pack_sequence_as(result, out))
        cf._function_type = ft

    def _trace_again(self, args, kwargs, tensors, first, run, scoped):
        """TensorFlow's rule for a first trace that created variables: trace once more,
        with variable creation refused, so a function that makes a new ``tf.Variable`` on
        every call raises ValueError on its first call. The second trace runs on the same
        arguments and leaves no trace of its own: its variable writes are undone, the
        iterator elements it takes are given back, the random streams are restored and
        ``fe.print`` prints nothing (Python side effects do run twice, as in TensorFlow)."""
        tracer = _Tracer(self._name, allow_variables=False)
        tracer.dry = True
        for t in tensors:
            tracer.add_input(t)
        tracer.input_names = first.input_names
        taken = [(src, element) for src, element, _ in first.pulls] if run else []
        _give_back(taken)                 # the second trace takes the same elements
        streams = _random_streams()
        previous = _core.set_tracer(tracer)
        try:
            self._traced_python_function()(*args, **kwargs)
        except Exception as e:
            if hasattr(e, "add_note"):
                where = _user_line(e.__traceback__)
                e.add_note("(raised while tracing fe.function %s a second time, as "
                           "TensorFlow does when the first trace creates variables%s)"
                           % (self._name, ", at %s:%d" % where if where else ""))
            raise
        finally:
            _core.set_tracer(previous)
            for v, t in tracer.snapshots.values():
                v._tensor = t
            _give_back([(src, element) for src, element, _ in tracer.pulls])
            for src, _ in taken:
                if type(src) is not int:
                    src._next_element()   # the first trace's elements, taken again
            _random_streams(streams)
        if scoped:
            _out_of_scope(tracer)

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (tensors, or TensorSpecs), tracing it
        if needed. Tracing for specs runs on zeros (None dimensions as 1) and undoes the
        variable writes it made."""
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature

        def example(x):
            if isinstance(x, TensorSpec):
                dims = [1 if d is None else d for d in (x.shape.as_list()
                                                      if x.shape is not None else [])]
                return _core.wrap(np.zeros(dims, x.dtype._np))
            if hasattr(x, "_placeholder_value"):     # an extension type's Spec
                return x._placeholder_value()
            if type(x).__name__ == "RaggedTensorSpec":
                # a ragged value of the spec's rank, every unknown dimension 1
                from .ragged import RaggedTensor
                dims = [1 if d is None else d for d in x.shape.as_list()]
                return RaggedTensor.from_tensor(np.zeros(dims, x.dtype._np),
                                                ragged_rank=x.ragged_rank)
            if type(x).__name__ == "SparseTensorSpec":
                # one zero entry, every unknown dimension 1
                from .sparse import SparseTensor
                dims = [1 if d is None else d for d in x.shape.as_list()]
                return SparseTensor(np.zeros((1, len(dims)), np.int64),
                                    np.zeros(1, x.dtype._np), dims)
            return x
        asked = (args, dict(kwargs))
        args = nest.map_structure(example, args) if args else args
        kwargs = {k: nest.map_structure(example, v) for k, v in kwargs.items()}
        args, kwargs, sig, key, tensors = self._canonicalize(args, kwargs)
        with self._lock:
            cf = self._cache.get(key)
            if cf is None:
                cf = self._trace(args, kwargs, sig, key, tensors, run=False)
        if any(isinstance(x, TensorSpec) or type(x).__name__ in (
                "RaggedTensorSpec", "SparseTensorSpec") for x in nest.flatten(asked)):
            # the specs asked for (None dimensions included): saved_model saves such a
            # concrete function shape-generic by tracing its function at other sizes
            cf._asked_specs = (weakref.ref(self), asked[0], asked[1])
            cf._function_type = cf._function_type.with_arguments(
                self._python_function, asked[0], asked[1])
            if any(isinstance(x, TensorSpec) and (x.shape is None or x.shape.rank is None)
                   for x in nest.flatten(asked)):
                # an input of unknown rank: what is computed from it has an unknown shape
                # too (TensorFlow's shape inference), whatever the zeros traced here had
                flat = nest.flatten(cf._structure)
                if len(flat) == len(cf._out_leaves):
                    out = [TensorSpec(None, x.dtype) if type(r) is int and r in cf._dep_regs
                           else x for x, r in zip(flat, cf._out_leaves)]
                    cf._function_type._output = _function_type.describe(
                        nest.pack_sequence_as(cf._structure, out))
        return cf

    def pretty_printed_concrete_signatures(self, verbose=True):
        """The signature of every trace so far, as TensorFlow prints them."""
        traces = []
        for cf in self._cache.values():
            traces += [cf] + list(cf._variants)
        return "\n\n".join(cf.pretty_printed_signature(verbose) for cf in traces)


def _caller_level():
    """The ``stacklevel`` of a warning issued in this module that names the first frame
    outside it (the user's call of the function)."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame, level = frame.f_back, level + 1
    return level


def _variable_arguments(args, kwargs):
    """id -> variable, of the variables among a call's arguments."""
    return {id(v): v for v in nest.flatten((tuple(args), dict(kwargs or {})))
            if isinstance(v, VariableBase)}


def _variable_spec_key(key, variables):
    """(``key`` with each variable as its dtype, shape, trainability and first position,
    the ids of the variables in key order), or None when the key holds none."""
    order = []

    def walk(k):
        if type(k) is not tuple or not k:
            return k
        if k[0] == "var" and len(k) == 2 and k[1] in variables:
            v = variables[k[1]]
            if k[1] not in order:
                order.append(k[1])
            t = v._tensor._value
            return ("var", t.dtype.str, t.shape, bool(v.trainable), order.index(k[1]))
        return tuple(walk(e) for e in k)
    spec = walk(key)
    return (spec, order) if order else None


def _random_streams(state=None):
    """The state of the random ops' generators (``ops/random_ops.py``), or, given one,
    restore it: a trace that must leave no effect draws from them too."""
    from .ops import random_ops
    with random_ops._lock:
        if state is None:
            return (random_ops._global_rng, random_ops._global_rng.bit_generator.state,
                    {k: (g, g.bit_generator.state) for k, g in random_ops._op_streams.items()},
                    random_ops._op_counter)
        rng, rng_state, streams, counter = state
        if random_ops._global_rng is rng:       # (unless set_seed replaced it meanwhile)
            rng.bit_generator.state = rng_state
        for k in list(random_ops._op_streams):
            if k not in streams:
                del random_ops._op_streams[k]
        for k, (g, g_state) in streams.items():
            g.bit_generator.state = g_state
            random_ops._op_streams[k] = g
        random_ops._op_counter = counter


def _out_of_scope(tracer):
    """Make the op outputs of a finished trace that outlive it (a global, a list, an
    attribute set inside the function) graph tensors, as in TensorFlow: their value
    cannot be read (``numpy()`` raises AttributeError) nor used by an op, eager or in
    another function (TypeError: out of scope), and they print as TensorFlow's symbolic
    tensors. A tensor is alive when something besides the recorder refers to it; the
    returned tensors were replaced by copies for the caller (see Function._trace), and
    the tensors of the variables the trace created or read are the variables' own."""
    import sys
    from .autograph.symbolic import graph_name
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


def _input_names(python_function, args, kwargs, tensors, input_signature):
    """The names TensorFlow gives a trace's tensor inputs, in the order of ``tensors``
    (saved signatures are called with them as keywords): the TensorSpec's name, else the
    parameter's (``x``; ``x_1``, ``x_2`` for the further tensors of a nested argument;
    ``args_0`` for ``*args``; the keyword for ``**kwargs``)."""
    try:
        params = [p.name for p in inspect.signature(python_function).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    specs = nest.flatten(input_signature) if input_signature is not None else None
    by_id = {}

    def name(arg, base):
        leaves = [x for x in nest.flatten(arg) if isinstance(x, Tensor)]
        for j, leaf in enumerate(leaves):
            by_id.setdefault(leaf._id, base if j == 0 else "%s_%d" % (base, j))
    for i, arg in enumerate(args):
        name(arg, params[i] if i < len(params) else "args_%d" % i)
    for k, arg in (kwargs or {}).items():
        name(arg, str(k))
    names = [by_id.get(t._id, "args_%d" % i) for i, t in enumerate(tensors)]
    if specs is not None and len(specs) == len(names):
        names = [s.name or n for s, n in zip(specs, names)]
    return names


def _user_line(tb):
    """(file, line) of the innermost traceback frame outside fasteager: the user's line
    that raised, or None."""
    import os
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    where = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(package) and not filename.endswith(".pyx"):
            where = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return where


def function(func=None, input_signature=None, autograph=True, jit_compile=False,
             reduce_retracing=False, experimental_compile=None, name=None,
             quiet_fallback=False, reuse_buffers=True, **kwargs):
    """Trace ``func`` into a graph once per input signature and replay it on later calls.

    >>> @fe.function
    ... def f(x):
    ...     return x * x + 1.0
    >>> f(fe.constant(2.0)).numpy()
    5.0

    Python side effects (``print``) run only while tracing; ``fe.print`` runs every call.
    fasteager's own options: ``quiet_fallback=True`` silences the warning for functions
    that must run eagerly; ``reuse_buffers=False`` makes every replay allocate its
    intermediates instead of writing them into buffers kept between calls.
    """
    def decorate(f):
        return Function(f, input_signature, jit_compile or bool(experimental_compile),
                        name, reduce_retracing, quiet_fallback, reuse_buffers, autograph)
    if func is None:
        return decorate
    return decorate(func)
