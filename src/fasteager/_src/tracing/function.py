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
keeps between calls (``buffers.py``), so a warm replay allocates only its outputs.

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
not depend on them (``relax.py``); otherwise a new concrete shape is traced again
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
import functools
import inspect
import os
import sys
import threading
import warnings
import weakref

import numpy as np

from ... import _core
from .. import nest
from ..composite.structure import TensorSpec
from ...ops import random_ops
from ..composite.ragged import RaggedTensor
from ..composite.sparse import SparseTensor
from . import concrete as _concrete
from . import function_type as _function_type
from .function_type import _input_names
from . import relax as _relax
from .autograph.transformer import converted_callable
from .concrete import ConcreteFunction, PythonOutput
from .tracer import _give_back, _out_of_scope, _trace_listeners, _Tracer

Tensor = _core.Tensor
VariableBase = _core.VariableBase

__all__ = ["function", "Function", "ConcreteFunction", "TensorSpec"]

# fe.config.run_functions_eagerly: a process-wide switch, read on every call
_run_eagerly = False
_bound_lock = threading.Lock()      # makes one bound Function per (function, object)


def set_run_eagerly(run_eagerly):
    global _run_eagerly
    _run_eagerly = run_eagerly


def run_eagerly():
    return _run_eagerly


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
        # relaxed traces (see relax.py): shapeless key -> [(input shapes with None, trace)];
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
        ``reduce_retracing`` asks for None dimensions; see relax.py)."""
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
        try:
            with _core.tracing_into(tracer):
                result = _python_outputs_as_tensors(python_function(*args, **kwargs))
                flat = nest.flatten(result, expand_composites=True)
                for x in flat:
                    # a returned tensor whose op error was deferred (the call needs it
                    # now), or a tensor leaked out of another trace
                    _core.check_usable(x)
        except Exception as e:
            if hasattr(e, "add_note"):
                # (a deferred op error: where the op was called)
                where = getattr(e, "_fe_raised_at", None) or _user_line(e.__traceback__)
                e.add_note("(raised while tracing fe.function %s%s)"
                           % (self._name, ", at %s:%d" % where if where else ""))
            raise
        finally:
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
        for listener in _trace_listeners:     # (fe.summary.trace_on keeps its graph)
            listener(cf)
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
        check passes (see relax.py), and describe it with them, as TensorFlow does."""
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
        try:
            with _core.tracing_into(tracer):
                self._traced_python_function()(*args, **kwargs)
        except Exception as e:
            if hasattr(e, "add_note"):
                where = _user_line(e.__traceback__)
                e.add_note("(raised while tracing fe.function %s a second time, as "
                           "TensorFlow does when the first trace creates variables%s)"
                           % (self._name, ", at %s:%d" % where if where else ""))
            raise
        finally:
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
                dims = [1 if d is None else d for d in x.shape.as_list()]
                return RaggedTensor.from_tensor(np.zeros(dims, x.dtype._np),
                                                ragged_rank=x.ragged_rank)
            if type(x).__name__ == "SparseTensorSpec":
                # one zero entry, every unknown dimension 1
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
    outside the tracing package (the user's call of the function; the modules fe.function
    was split into count as one, as the one module they were)."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_TRACING_DIR):
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


# the tracing package's directory, and fasteager's (this module is
# fasteager/_src/tracing/function.py)
_TRACING_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))) + os.sep


def _user_line(tb):
    """(file, line) of the innermost traceback frame outside fasteager: the user's line
    that raised, or None."""
    package = _PACKAGE_DIR
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


_concrete.set_function_class(Function)
# where it was defined before the engine had layers: its printed type stays the same
Function.__module__ = "fasteager.function"
