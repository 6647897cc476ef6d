# cython: language_level=3, boundscheck=True, wraparound=True
"""The eager core: ``Tensor``, op dispatch, tape recording and the backward pass.

Layers of this module, from the bottom:

* ``Tensor``: an immutable value (an ndarray on the CPU) with a unique C integer id that
  tapes use to know which values they watch.
* ``Op``: one entry of the op table (forward kernel, dtype rule, one VJP per input or a
  joint VJP). Ops are *defined* in Python (``fasteager/ops``); this module only runs them.
* ``execute`` / ``_binary``: the dispatch hot path. Convert the arguments, check dtypes,
  run the kernel, wrap the result, and record it on each recording tape that watches an
  input. The "is any tape recording" test is one C integer, so eager code without a tape
  pays nothing for autodiff.
* ``Tape``: the record list and the C set of watched ids; ``backward`` walks the records
  in reverse (their order is already topological) and accumulates gradients with the
  library's own ops, so that an outer tape records the backward pass and higher-order
  derivatives come for free.

Everything that runs once per op *call* lives here; everything that runs once per op
*definition* lives in Python.
"""
cimport cython
cimport numpy as cnp
from cpython.ref cimport Py_REFCNT
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

import threading
import warnings

import numpy as np

from . import dtypes as _dtypes
from .errors import InvalidArgumentError, InternalError, OpError, ResourceExhaustedError
from .tensor_shape import TensorShape

cnp.import_array()

# Kernels on large inputs allocate their results from fasteager's array cache (_alloc.pyx,
# taken off after each kernel): eager steps then reuse the same blocks instead of mapping
# fresh pages per op. Smaller kernels keep the caller's allocator; for them the switch
# (two context-variable sets) would cost more than it saves.
from . import _alloc
cdef object _array_cache = _alloc.handler
cdef Py_ssize_t _CACHE_INPUT_BYTES = 32768


def _set_array_cache(handler):
    """Use ``handler`` (None: NumPy's default allocator) for large kernels' results."""
    global _array_cache
    _array_cache = handler


cdef inline object _cache_on(list arrays):
    """Install the array cache if ``arrays`` are large; returns the handler to restore."""
    cdef Py_ssize_t nbytes = 0
    for a in arrays:
        if cnp.PyArray_Check(a):
            nbytes += cnp.PyArray_NBYTES(<cnp.ndarray>a)
    if nbytes >= _CACHE_INPUT_BYTES:
        return cnp.PyDataMem_SetHandler(_array_cache)
    return None

# ----------------------------------------------------------------------------------------
# Global switches (C integers: read on every op call)
# ----------------------------------------------------------------------------------------
cdef int64_t _next_id = 1
cdef int _n_recording = 0          # recording tapes + forward watchers, all threads together
cdef int _n_forward = 0            # forward watchers (fe.autodiff.ForwardAccumulator ...)
# _src/autodiff/forward.py: called with each recorded op and each watched variable read
# while a forward watcher is active (they count in _n_recording, so eager code without tape
# or accumulator still pays one integer test)
cdef object _forward_op_hook = None
cdef object _forward_var_hook = None
cdef object _array_escape_hook = None  # __array__ of a NumPy-rules tensor while recording
cdef int _n_var_watchers = 0       # active variable watchers (custom_gradient), all threads
cdef bint _check_numerics = False  # fe.debugging.enable_check_numerics()
cdef int _n_device_scopes = 0      # active fe.device(...) scopes, all threads
# The CUDA backend (fasteager.cuda): -1 until the first op probes for it, 0 when there is
# none (the CPU hot path then pays this one C integer check), 1 when its hook routes ops.
cdef int _gpu_state = -1
cdef object _gpu_hook = None         # cuda.ops.execute(op, args, attrs) or NotImplemented
cdef object _device_type = None      # cuda.memory.DeviceArray: a Tensor may hold one

class _ThreadState(threading.local):
    """What each thread keeps to itself: its tape stack, its variable watchers and its
    fe.function trace recorder. ``threading.local`` runs ``__init__`` in each thread on
    its first look and drops that thread's copy when the thread ends, so a new thread
    starts empty even when it reuses a dead thread's id."""

    def __init__(self):
        self.tapes = []
        self.var_watchers = []
        self.tracer = None
        self.profiling_op = None   # the op fe.profiler is timing (see _profiled_execute)


_tls = _ThreadState()

# fe.function: each thread's active trace recorder (function.py) is ``_tls.tracer``. Every
# op, variable read and value escape is reported to it while a Python function is traced.
# ``_n_tracers`` counts the recorders installed in all threads: while it is 0 (eager code
# everywhere) an op pays one C integer test, and only otherwise looks up its thread's.
cdef int _n_tracers = 0


def set_tracer(tracer):
    """Install ``tracer`` for this thread (None ends tracing); returns the previous one."""
    global _n_tracers
    state = _tls
    old = state.tracer
    state.tracer = tracer
    _n_tracers += (tracer is not None) - (old is not None)
    return old


def get_tracer():
    """The trace recorder active in this thread, or None."""
    return _tracing()


@cython.final
cdef class _TracerScope:
    """The block of a ``with`` runs with ``tracer`` installed in this thread (None: no
    trace recorder); the recorder it replaced is back after the block, however it ends.
    ``as`` gives that previous recorder."""
    cdef object tracer
    cdef object previous

    def __cinit__(self, tracer):
        self.tracer = tracer

    def __enter__(self):
        self.previous = set_tracer(self.tracer)
        return self.previous

    def __exit__(self, exc_type, exc, tb):
        set_tracer(self.previous)
        return False


def no_tracer():
    """``with no_tracer():`` runs a block outside any ``fe.function`` trace of this thread:
    its ops run eagerly and are not recorded (a trace's own helper computations)."""
    return _TracerScope(None)


def tracing_into(tracer):
    """``with tracing_into(t):`` records the block's ops into trace recorder ``t`` (a
    sub-graph, a trace of the graph's own), then restores the previous recorder."""
    return _TracerScope(tracer)


cdef inline object _tracing():
    """This thread's trace recorder, or None."""
    if _n_tracers == 0:
        return None
    return _tls.tracer


cpdef object data_of(object t, str what):
    """A tensor's array, read as *data* by Python-level op code (indices, sort order, fill
    values): a tracing fe.function is told, since its graph could not replay that read
    (the function then runs eagerly rather than replay a stale value)."""
    if _n_tracers and (tracer := _tracing()) is not None:
        tracer.escape(t, what)
    return _host((<Tensor>t)._value)


cdef inline object _host(object v):
    """A tensor's value on the host: the ndarray itself, or a GPU value copied back."""
    if cnp.PyArray_CheckExact(v):
        return v
    return v.get()


# ----------------------------------------------------------------------------------------
# Values that cannot be used (fe.function's graph semantics, see function.py)
# ----------------------------------------------------------------------------------------
class _Unusable(np.ndarray):
    """The value of a tensor that no code may use: a graph tensor that leaked out of the
    ``fe.function`` trace that made it (TensorFlow's out-of-scope ``SymbolicTensor``), or
    the output of an op whose error was deferred while tracing (it is raised only when
    something uses the tensor: TensorFlow prunes ops nothing needs).

    It is an ndarray of void elements with zero strides, so the core's C-level dtype
    tests refuse it (an op taking it reaches ``_dtype_error``) and no kernel ever runs
    on it; ``get`` (what ``_host`` calls for a value that is not a plain ndarray) and
    NumPy's protocols raise the tensor's error."""

    @property
    def dtype(self):
        if self._fe_error is not None:
            raise self._fe_error
        return self._fe_dtype

    @property
    def shape(self):
        if self._fe_error is not None:
            raise self._fe_error
        return np.ndarray.shape.__get__(self)

    def _describe(self):
        return (self._fe_name, str(tuple(np.ndarray.shape.__get__(self))),
                _dtypes.from_numpy(self._fe_dtype).name)

    def symbolic_repr(self):
        return "<fe.Tensor '%s' shape=%s dtype=%s>" % self._describe()

    def symbolic_str(self):
        return 'Tensor("%s", shape=%s, dtype=%s)' % self._describe()

    def use_error(self):
        """The error a use of the tensor raises."""
        if self._fe_error is not None:
            return self._fe_error
        tracer = _tracing()
        here = "FuncGraph(name=%s)" % tracer.name if tracer is not None else \
            "eager execution"
        text = self.symbolic_repr()
        return TypeError(
            "%s is out of scope and cannot be used here. Use return values, explicit Python "
            "locals or TensorFlow collections to access it.\nPlease see https://www.tensorflow"
            ".org/guide/function#all_outputs_of_a_tffunction_must_be_return_values for more "
            "information.\n\nThe tensor %s cannot be accessed from %s, because it was "
            "defined in FuncGraph(name=%s), which is out of scope."
            % (text, text, here, self._fe_graph))

    def numpy_error(self):
        if self._fe_error is not None:
            return self._fe_error
        return AttributeError("'SymbolicTensor' object has no attribute 'numpy'")

    def get(self):
        raise self.use_error()

    def __array_ufunc__(self, *args, **kwargs):
        raise self.use_error()

    def __array_function__(self, *args, **kwargs):
        raise self.use_error()


cdef object _unusable_type = _Unusable


def unusable_value(shape, dtype, name=None, graph=None, error=None):
    """An ``_Unusable`` value: a leaked graph tensor of ``shape``/``dtype`` named ``name``
    in function ``graph``, or (``error`` given) a tensor whose use raises ``error``."""
    arr = np.broadcast_to(np.zeros((), "V1"), tuple(shape)).view(_Unusable)
    arr._fe_dtype = np.dtype(dtype) if dtype is not None else None
    arr._fe_name = name
    arr._fe_graph = graph
    arr._fe_error = error
    return arr


cpdef check_usable(object t):
    """Raise the error of tensor ``t`` when it cannot be used (see ``_Unusable``)."""
    if type(t) is Tensor and type((<Tensor>t)._value) is _unusable_type:
        raise (<Tensor>t)._value.use_error()


cdef inline void _refuse_unusable(list arrays) except *:
    for a in arrays:
        if type(a) is _unusable_type:
            raise a.use_error()


def set_gpu_backend(int state, hook=None, device_type=None):
    """fasteager.cuda registers itself: state 0 (no GPU) or 1 (route ops through hook)."""
    global _gpu_state, _gpu_hook, _device_type
    _gpu_state = state
    _gpu_hook = hook
    _device_type = device_type


def gpu_backend_state():
    return _gpu_state


# The device layer (placement) installs these: the first op's GPU probe (it loads the GPU
# backend, which then calls set_gpu_backend) and ``t.gpu()``'s copy. The core imports
# nothing above the leaf modules.
cdef object _gpu_probe_hook = None
cdef object _gpu_copy_hook = None


def set_device_hooks(gpu_probe, gpu_copy):
    """Installed by the placement module: ``gpu_probe()`` runs on the first op (it loads
    the GPU backend, which calls ``set_gpu_backend``); ``gpu_copy(t, index)`` is ``t.gpu``."""
    global _gpu_probe_hook, _gpu_copy_hook
    _gpu_probe_hook = gpu_probe
    _gpu_copy_hook = gpu_copy


cdef int _probe_gpu() except -1:
    global _gpu_state
    _gpu_state = 0          # until the probe says otherwise (and if it fails)
    if _gpu_probe_hook is not None:
        _gpu_probe_hook()
    return 0


def gpu_finish(Op op, tuple tensors, object r, dict attrs):
    """Wrap the GPU forward's result and record it, as ``execute`` does for the CPU."""
    if op.multi:
        out = tuple([_wrap(x) for x in r])
    else:
        out = _wrap(r)
    if _check_numerics:
        for x in (out if op.multi else (out,)):
            _check_finite(op.name, _host((<Tensor>x)._value))
    if _n_tracers and (tracer := _tracing()) is not None:
        tracer.record(op, tensors, attrs, out)
    if _n_recording and op.differentiable:
        _record(op, tensors, out, attrs, None)
    return out


def quiet_enter():
    """Enter NumPy's all-ignore error state (cheaply); pass the token to quiet_exit."""
    return _quiet_enter()


def quiet_exit(token):
    _quiet_exit(token)

# "quiet" ops (exp, log, division ...) make inf/nan as TensorFlow does, without NumPy's
# RuntimeWarnings. np.errstate costs ~1.3 us; setting NumPy's error-state context variable
# directly costs ~0.1 us. Fall back to np.errstate if NumPy's internals move.
cdef object _quiet_cv = None
cdef object _quiet_ext = None
try:
    from numpy._core import _ufunc_config as _ufc
    _quiet_cv = _ufc._extobj_contextvar
    with np.errstate(all="ignore"):
        _quiet_ext = _quiet_cv.get()
except Exception:  # pragma: no cover - other NumPy layouts
    _quiet_cv = None


cdef inline object _quiet_enter():
    if _quiet_cv is not None:
        return _quiet_cv.set(_quiet_ext)
    e = np.errstate(all="ignore")
    e.__enter__()
    return e


cdef inline void _quiet_exit(object token):
    if _quiet_cv is not None:
        _quiet_cv.reset(token)
    else:
        token.__exit__(None, None, None)

# Ops the core itself needs (set by ops/__init__ through set_core_ops).
cdef Op _op_add = None
cdef Op _op_sub = None
cdef Op _op_mul = None
cdef Op _op_div = None
cdef Op _op_floordiv = None
cdef Op _op_mod = None
cdef Op _op_pow = None
cdef Op _op_matmul = None
cdef Op _op_neg = None
cdef Op _op_abs = None
cdef Op _op_invert = None
cdef Op _op_and = None
cdef Op _op_or = None
cdef Op _op_xor = None
cdef Op _op_lt = None
cdef Op _op_le = None
cdef Op _op_gt = None
cdef Op _op_ge = None
cdef Op _op_eq = None
cdef Op _op_ne = None
cdef Op _op_getitem = None
cdef Op _op_cast = None
cdef object _zeros_like_array = np.zeros_like


def set_core_ops(dict ops):
    """Called once by ``fasteager.ops``: the ops that Tensor operators and backward use."""
    global _op_add, _op_sub, _op_mul, _op_div, _op_floordiv, _op_mod, _op_pow, _op_matmul
    global _op_neg, _op_abs, _op_invert, _op_and, _op_or, _op_xor
    global _op_lt, _op_le, _op_gt, _op_ge, _op_eq, _op_ne, _op_getitem, _op_cast
    _op_add = ops["add"]; _op_sub = ops["subtract"]; _op_mul = ops["multiply"]
    _op_div = ops["truediv"]; _op_floordiv = ops["floordiv"]; _op_mod = ops["floormod"]
    _op_pow = ops["pow"]; _op_matmul = ops["matmul"]; _op_neg = ops["negative"]
    _op_abs = ops["abs"]; _op_invert = ops["invert"]; _op_and = ops["bitwise_and"]
    _op_or = ops["bitwise_or"]; _op_xor = ops["bitwise_xor"]
    _op_lt = ops["less"]; _op_le = ops["less_equal"]; _op_gt = ops["greater"]
    _op_ge = ops["greater_equal"]; _op_eq = ops["equal"]; _op_ne = ops["not_equal"]
    _op_getitem = ops["getitem"]
    _op_cast = ops.get("cast")


cdef object _numpy_operator_hook = None


def set_numpy_operator_hook(hook):
    """``fasteager.numpy`` registers ``hook(op, a, b)``: Tensor operators on tensors it made
    (``_np_rules`` set) follow NumPy's promotion instead of TensorFlow's."""
    global _numpy_operator_hook
    _numpy_operator_hook = hook


# Tensor's NumPy-style methods (sum, mean, T, astype, ...) call functions of the layers
# above, which install them here at their import: a dict lookup per call, no import.
cdef dict _array_methods = {}


def set_array_methods(dict methods):
    """``fasteager.ops`` (T, astype, reshape, real, imag, conj) and ``fasteager.numpy``
    (sum, mean, max, ...) install the functions behind Tensor's NumPy-style methods."""
    _array_methods.update(methods)


cdef object _array_method(str name):
    f = _array_methods.get(name)
    if f is None:
        raise InternalError("Tensor.%s: its implementation is not installed (it comes with "
                            "fasteager.ops / fasteager.numpy; import fasteager)" % name)
    return f


def _device_scope_entered(int delta):
    global _n_device_scopes
    _n_device_scopes += delta


def set_check_numerics(bint on):
    global _check_numerics
    _check_numerics = on


def check_numerics_enabled():
    return _check_numerics


# dtype kinds an op accepts, as bit masks over NumPy type numbers
cdef uint64_t _kind_mask(str kinds) except? 0:
    cdef uint64_t mask = 0
    cdef object d
    for d in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.longlong, np.uint8,
              np.uint16, np.uint32, np.uint64, np.ulonglong, np.float16, np.float32,
              np.float64, np.complex64, np.complex128):
        if np.dtype(d).kind in kinds:
            mask |= (<uint64_t>1) << np.dtype(d).num
    if "O" in kinds:        # fe.string: object arrays of bytes
        mask |= (<uint64_t>1) << cnp.NPY_OBJECT
    return mask


# ----------------------------------------------------------------------------------------
# Tensor
# ----------------------------------------------------------------------------------------
cdef inline Tensor _wrap(object value):
    """Wrap a backend array as a new Tensor (the one place ids are handed out)."""
    global _next_id
    cdef Tensor t = Tensor.__new__(Tensor)
    if not cnp.PyArray_CheckExact(value) and type(value) is not _device_type and \
            type(value) is not _unusable_type:
        # NumPy gives a 0-d object result (a string op's) as the bytes element itself
        value = _string_scalar(value) if type(value) is bytes else np.asarray(value)
    t._value = value
    t._id = _next_id
    _next_id += 1
    return t


cdef object _string_scalar(bytes value):
    arr = np.empty((), dtype=object)
    arr[()] = value
    return arr


def wrap(value):
    """Wrap an ndarray as a Tensor without copying (the array must not be mutated later)."""
    t = _wrap(value)
    if _n_tracers and (tracer := _tracing()) is not None:
        tracer.wrapped(t)
    return t


def wrap_like(Tensor t):
    """A new Tensor holding ``t``'s value (and its NumPy-rules flag)."""
    cdef Tensor out = _wrap(t._value)
    out._np_rules = t._np_rules
    return out


def as_subclass(Tensor t, type cls):
    """``t`` as an instance of the Tensor subclass ``cls``: the same value and id, so tapes
    and traces take it for ``t`` (a slice of a variable that remembers its source)."""
    cdef Tensor out = cls.__new__(cls)
    out._value = t._value
    out._id = t._id
    out._np_rules = t._np_rules
    return out


def _format_numpy(arr):
    return np.array2string(arr, separator=" ") if arr.ndim else str(arr)


def _repr_numpy(arr):
    """The ``numpy=`` part of a repr, as TensorFlow writes it: a rank-0 value is its Python
    scalar's repr (a float32 27.3 shows as 27.299999237060547), any other its array repr."""
    if not arr.ndim:
        return repr(arr.item())
    return ("\n" if arr.ndim >= 2 else "") + repr(arr)


cdef object _tensor_as_ndarray(object value):
    return np.asarray(value) if type(value) is Tensor else value


cdef bint _any_np_rules(object values):
    """Whether a NumPy function's arguments (or a list among them) hold a NumPy-rules tensor."""
    for v in values:
        if type(v) is Tensor:
            if (<Tensor>v)._np_rules:
                return True
        elif type(v) is list or type(v) is tuple:
            for w in v:
                if type(w) is Tensor and (<Tensor>w)._np_rules:
                    return True
    return False


@cython.freelist(256)
cdef class Tensor:
    """An immutable, eager value.

    >>> t = fe.constant([[1, 2], [3, 4]])
    >>> t.shape, t.dtype
    (TensorShape([2, 2]), fe.int32)
    >>> (t * 2).numpy()
    array([[2, 4],
           [6, 8]], dtype=int32)
    """
    # defined in _core.pxd: _value, _id

    __array_priority__ = 100

    def __init__(self, *args, **kwargs):
        raise TypeError("fe.Tensor cannot be constructed directly: use fe.constant(value) or "
                        "fe.convert_to_tensor(value)")

    # -- value and metadata -------------------------------------------------------------
    def numpy(self):
        """The value as NumPy: a read-only view of the tensor's memory (a scalar for rank 0)."""
        cdef cnp.ndarray arr
        if type(self._value) is _unusable_type:
            raise self._value.numpy_error()
        arr = _host(self._value)
        if _n_tracers and (tracer := _tracing()) is not None:
            tracer.escape(self, "numpy()")
        if arr.ndim == 0:
            return arr[()]
        view = arr.view()
        view.flags.writeable = False
        return view

    @property
    def shape(self):
        cdef object tracer
        if _n_tracers:
            tracer = _tracing()
            if tracer is not None and tracer.relaxed:
                # an input of a relaxed trace, read by user code: its None dimensions
                # (function.py, _Tracer.shown_shape)
                shown = tracer.shown_shape(self)
                if shown is not None:
                    return shown
        # ndarray shapes are tuples of ints already: skip TensorShape's conversion
        return tuple.__new__(TensorShape, self._value.shape)

    def get_shape(self):
        return self.shape

    @property
    def dtype(self):
        if cnp.PyArray_CheckExact(self._value):
            return _dtypes.from_numpy((<cnp.ndarray>self._value).dtype)
        return _dtypes.from_numpy(self._value.dtype)

    @property
    def ndim(self):
        if cnp.PyArray_CheckExact(self._value):
            return (<cnp.ndarray>self._value).ndim
        return self._value.ndim

    @property
    def size(self):
        if cnp.PyArray_CheckExact(self._value):
            return (<cnp.ndarray>self._value).size
        return self._value.size

    @property
    def device(self):
        if cnp.PyArray_CheckExact(self._value):
            return "/job:localhost/replica:0/task:0/device:CPU:0"
        return self._value.device_name

    @property
    def _tensor_id(self):
        return self._id

    def cpu(self):
        if cnp.PyArray_CheckExact(self._value):
            return self
        return _wrap(self._value.get())     # a GPU array: its host copy

    def gpu(self, index=0):
        if _gpu_copy_hook is None:
            raise InternalError("Tensor.gpu: no device layer is loaded (import fasteager)")
        return _gpu_copy_hook(self, index)

    def __array__(self, dtype=None, copy=None):
        if _n_recording and self._np_rules and _array_escape_hook is not None and (
                dtype is None or np.dtype(dtype).kind in "fc"):
            # a real NumPy function would drop its gradient (a cast to integers, as
            # np.int64(x), has none to drop: it is a constant, as x.astype(int))
            _array_escape_hook(self)
        arr = _host(self._value)
        if _n_tracers and (tracer := _tracing()) is not None:
            tracer.escape(self, "__array__")
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr

    def __array_function__(self, func, types, args, kwargs):
        # NumPy's reductions and shape functions call an argument's own method of the same
        # name (np.mean(t) -> t.mean()), and this Tensor has those methods for fasteager.numpy
        # code, so a TF-style tensor would be recorded on the tape. TensorFlow's tensors have
        # no such methods: np.mean(t) converts the tensor and returns a NumPy value that left
        # the tape. Only NumPy-rules tensors keep NumPy's own dispatch (their methods, or
        # __array__'s escape check).
        if _any_np_rules(args) or _any_np_rules(kwargs.values()):
            return func._implementation(*args, **kwargs)
        return func._implementation(*[_tensor_as_ndarray(a) for a in args],
                                    **{k: _tensor_as_ndarray(v) for k, v in kwargs.items()})

    # -- Python conversions -------------------------------------------------------------
    cdef object _scalar(self, str what):
        arr = _host(self._value)
        if _n_tracers and (tracer := _tracing()) is not None:
            tracer.escape(self, what)
        if arr.size != 1:
            raise ValueError("%s: only a tensor with exactly one element can be converted to a "
                             "Python scalar (expected size 1, got shape %s)"
                             % (what, tuple(arr.shape)))
        return arr.reshape(-1)[0].item()

    def __bool__(self):
        arr = _host(self._value)
        if _n_tracers and (tracer := _tracing()) is not None:
            tracer.escape(self, "bool()")
        if arr.size != 1:
            raise ValueError("The truth value of a tensor with more than one element is ambiguous"
                             " (expected size 1, got shape %s); use fe.reduce_any or "
                             "fe.reduce_all" % (tuple(arr.shape),))
        return bool(arr.reshape(-1)[0])

    def __int__(self):
        return int(self._scalar("int()"))

    def __float__(self):
        return float(self._scalar("float()"))

    def __complex__(self):
        return complex(self._scalar("complex()"))

    def __index__(self):
        cdef cnp.ndarray arr = _host(self._value)
        if arr.dtype.kind not in "iub":
            raise TypeError("__index__: only integer tensors can be used as an index "
                            "(expected an integer dtype, got %s)" % arr.dtype)
        return int(self._scalar("__index__"))

    def __len__(self):
        cdef cnp.ndarray arr = _host(self._value)
        if arr.ndim == 0:
            raise TypeError("len() of a scalar tensor (expected rank >= 1, got rank 0)")
        if _n_tracers and (tracer := _tracing()) is not None and tracer.relaxed:
            tracer.length_read(self)    # a count taken from the shape (function.py)
        return arr.shape[0]

    def __iter__(self):
        cdef cnp.ndarray arr = _host(self._value)
        if arr.ndim == 0:
            raise TypeError("iteration over a scalar tensor (expected rank >= 1, got rank 0)")
        if _n_tracers and (tracer := _tracing()) is not None and tracer.relaxed:
            tracer.length_read(self)    # the loop is unrolled for the traced length
        for i in range(arr.shape[0]):
            yield self[i]

    def __hash__(self):
        return <Py_hash_t>self._id

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_reconstruct, (np.array(_host(self._value)),))

    # -- printing -----------------------------------------------------------------------
    def __str__(self):
        if type(self._value) is _unusable_type:
            if self._value._fe_error is not None:
                raise self._value._fe_error
            return self._value.symbolic_str()
        arr = _host(self._value)
        body = _format_numpy(arr)
        sep = "\n" if "\n" in body else ""   # TensorFlow breaks the line only when the value spans lines
        return "fe.Tensor(%s%s, shape=%s, dtype=%s)" % (sep, body, TensorShape(arr.shape),
                                                        self.dtype.name)

    def __repr__(self):
        if type(self._value) is _unusable_type:
            if self._value._fe_error is not None:
                raise self._value._fe_error
            return self._value.symbolic_repr()
        arr = _host(self._value)
        return "<fe.Tensor: shape=%s, dtype=%s, numpy=%s>" % (TensorShape(arr.shape),
                                                              self.dtype.name, _repr_numpy(arr))

    def __format__(self, spec):
        return format(self.numpy(), spec)

    # -- operators ----------------------------------------------------------------------
    def __add__(self, other): return _binary(_op_add, self, other)
    def __radd__(self, other): return _binary(_op_add, other, self)
    def __sub__(self, other): return _binary(_op_sub, self, other)
    def __rsub__(self, other): return _binary(_op_sub, other, self)
    def __mul__(self, other): return _binary(_op_mul, self, other)
    def __rmul__(self, other): return _binary(_op_mul, other, self)
    def __truediv__(self, other): return _binary(_op_div, self, other)
    def __rtruediv__(self, other): return _binary(_op_div, other, self)
    def __floordiv__(self, other): return _binary(_op_floordiv, self, other)
    def __rfloordiv__(self, other): return _binary(_op_floordiv, other, self)
    def __mod__(self, other): return _binary(_op_mod, self, other)
    def __rmod__(self, other): return _binary(_op_mod, other, self)
    def __pow__(self, other, mod): return _binary(_op_pow, self, other)
    def __rpow__(self, other, mod): return _binary(_op_pow, other, self)
    def __matmul__(self, other): return _binary(_op_matmul, self, other)
    def __rmatmul__(self, other): return _binary(_op_matmul, other, self)
    def __and__(self, other): return _binary(_op_and, self, other)
    def __rand__(self, other): return _binary(_op_and, other, self)
    def __or__(self, other): return _binary(_op_or, self, other)
    def __ror__(self, other): return _binary(_op_or, other, self)
    def __xor__(self, other): return _binary(_op_xor, self, other)
    def __rxor__(self, other): return _binary(_op_xor, other, self)
    def __lt__(self, other): return _binary(_op_lt, self, other)
    def __le__(self, other): return _binary(_op_le, self, other)
    def __gt__(self, other): return _binary(_op_gt, self, other)
    def __ge__(self, other): return _binary(_op_ge, self, other)

    def __eq__(self, other):
        if other is None:
            return False
        return _binary(_op_eq, self, other)

    def __ne__(self, other):
        if other is None:
            return True
        return _binary(_op_ne, self, other)

    def __neg__(self): return execute(_op_neg, (self,), None)
    def __pos__(self): return self
    def __abs__(self): return execute(_op_abs, (self,), None)
    def __invert__(self): return execute(_op_invert, (self,), None)

    def __getitem__(self, key):
        return execute(_op_getitem, (self,), {"key": normalize_index(key)})

    # -- NumPy-style methods: the op layer and fasteager.numpy install them (set_array_methods)
    @property
    def T(self):
        return _array_method("T")(self)

    def astype(self, dtype):
        return _array_method("astype")(self, dtype)

    def reshape(self, *shape):
        f = _array_method("reshape")
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return f(self, shape)

    # each delegates to fasteager.numpy (NumPy's signature and dtype rules)
    def sum(self, *args, **kwargs):
        f = _array_method("sum")
        return f(self, *args, **kwargs)

    def mean(self, *args, **kwargs):
        f = _array_method("mean")
        return f(self, *args, **kwargs)

    # complex parts, as NumPy arrays have them (a real tensor is its own real part)
    @property
    def real(self):
        f = _array_method("real")
        return f(self)

    @property
    def imag(self):
        f = _array_method("imag")
        return f(self)

    def conj(self):
        f = _array_method("conj")
        return f(self)

    conjugate = conj

    def max(self, *args, **kwargs):
        f = _array_method("max")
        return f(self, *args, **kwargs)

    def min(self, *args, **kwargs):
        f = _array_method("min")
        return f(self, *args, **kwargs)

    def prod(self, *args, **kwargs):
        f = _array_method("prod")
        return f(self, *args, **kwargs)

    def std(self, *args, **kwargs):
        f = _array_method("std")
        return f(self, *args, **kwargs)

    def var(self, *args, **kwargs):
        f = _array_method("var")
        return f(self, *args, **kwargs)

    def argmax(self, *args, **kwargs):
        f = _array_method("argmax")
        return f(self, *args, **kwargs)

    def argmin(self, *args, **kwargs):
        f = _array_method("argmin")
        return f(self, *args, **kwargs)

    def cumsum(self, *args, **kwargs):
        f = _array_method("cumsum")
        return f(self, *args, **kwargs)

    def cumprod(self, *args, **kwargs):
        f = _array_method("cumprod")
        return f(self, *args, **kwargs)

    def dot(self, *args, **kwargs):
        f = _array_method("dot")
        return f(self, *args, **kwargs)

    def clip(self, *args, **kwargs):
        f = _array_method("clip")
        return f(self, *args, **kwargs)

    def all(self, *args, **kwargs):
        f = _array_method("all")
        return f(self, *args, **kwargs)

    def any(self, *args, **kwargs):
        f = _array_method("any")
        return f(self, *args, **kwargs)

    def round(self, *args, **kwargs):
        f = _array_method("round")
        return f(self, *args, **kwargs)

    def copy(self, *args, **kwargs):
        f = _array_method("copy")
        return f(self, *args, **kwargs)

    def ravel(self, *args, **kwargs):
        f = _array_method("ravel")
        return f(self, *args, **kwargs)

    def squeeze(self, *args, **kwargs):
        f = _array_method("squeeze")
        return f(self, *args, **kwargs)

    def repeat(self, *args, **kwargs):
        f = _array_method("repeat")
        return f(self, *args, **kwargs)

    def nonzero(self, *args, **kwargs):
        f = _array_method("nonzero")
        return f(self, *args, **kwargs)

    def trace(self, *args, **kwargs):
        f = _array_method("trace")
        return f(self, *args, **kwargs)

    def swapaxes(self, *args, **kwargs):
        f = _array_method("swapaxes")
        return f(self, *args, **kwargs)

    def transpose(self, *axes):
        f = _array_method("transpose")
        return f(self, *axes)

    def flatten(self, order="C"):
        f = _array_method("flatten")
        return f(self, order)

    def tolist(self):
        return self.numpy().tolist()

    def item(self, *args):
        return _host(self._value).item(*args)


def _reconstruct(arr):
    return _wrap(arr)


def normalize_index(key):
    """Turn tensors inside an index into NumPy values, so the key is a plain NumPy key."""
    if type(key) is tuple:
        return tuple([_index_part(k) for k in key])
    return _index_part(key)


cdef object _index_part(object k):
    if isinstance(k, (int, slice)) or k is None or k is Ellipsis:
        return k
    if isinstance(k, Tensor):
        arr = data_of(k, "a tensor used as an index")
        return arr.item() if arr.ndim == 0 and arr.dtype.kind in "iu" else arr
    if isinstance(k, VariableBase):
        return _index_part((<VariableBase>k)._tensor)
    if isinstance(k, list):
        return np.asarray(k)
    return k


# ----------------------------------------------------------------------------------------
# Variables: the mutable base (the public class is _src/state/variables.py's Variable)
# ----------------------------------------------------------------------------------------
cdef int64_t _next_var_id = 1


cdef class VariableBase:
    """Storage of a variable: its current value as a Tensor.

    Assignments write in place when no one else holds the value (no tape record, no
    tensor read from it, no NumPy view): otherwise the variable first moves to a fresh
    buffer, so a value saved for a gradient never changes afterwards (copy on write).
    """

    def __cinit__(self):
        global _next_var_id
        self._vid = _next_var_id
        _next_var_id += 1
        self.trainable = True
        if _n_tracers and (tracer := _tracing()) is not None:
            tracer.variable_created(self)

    @property
    def _var_id(self):
        return self._vid

    cpdef object _read(self):
        """The current value as a Tensor, watched by recording tapes (a 'read')."""
        if _n_recording or _n_var_watchers:
            _on_variable_read(self)
        if _n_tracers and (tracer := _tracing()) is not None:
            tracer.variable_read(self)
        return self._tensor

    def _mutable_array(self):
        """The value's ndarray, safe to write in place (copied first if anyone shares it)."""
        cdef Tensor t = self._tensor
        cdef object arr = t._value
        # references: the variable + local `t` (Tensor); t._value + local `arr` (array)
        if Py_REFCNT(t) > 2 or Py_REFCNT(arr) > 2 or not arr.flags.c_contiguous \
                or not arr.flags.writeable:
            arr = np.array(arr, order="C", copy=True)
            self._tensor = _wrap(arr)
        return arr

    def _set_value_array(self, arr):
        """Replace the value with a new array (already validated, owned by the variable)."""
        self._tensor = _wrap(arr)


# ----------------------------------------------------------------------------------------
# Op definitions
# ----------------------------------------------------------------------------------------
cdef class Op:
    """One entry of the op table. See ``fasteager/ops/registry.py`` for how ops are defined.

    forward      the CPU kernel: forward(*arrays, **attrs) -> array (or tuple of arrays)
    grads        tuple with one VJP per input, vjp(g, ans, *inputs, **attrs) -> gradient,
                 None for an input with no gradient; or None when the op has no gradient
    joint_grad   alternatively, joint_grad(g, ans, inputs, attrs, needs) -> list of gradients
    kinds        dtype kinds accepted ('f' float, 'i' int, 'u' unsigned, 'b' bool, 'c')
    same_dtype   all tensor inputs must share one dtype (Python scalars adopt it)
    multi        forward returns a tuple of outputs
    nin          number of tensor inputs a call takes (-1: any number)
    attrs        the keyword attributes a call may pass (besides ``name``, which is ignored)
    """

    def __init__(self, str name, forward, grads=None, joint_grad=None, str kinds="fiub",
                 bint same_dtype=True, bint multi=False, check=None, doc=None,
                 no_grad_reason=None, bint quiet=False, int nin=-1, attrs=()):
        self.name = name
        self.nin = nin
        self.attrs = frozenset(attrs)
        self.forward = forward
        self._grads = tuple(grads) if grads is not None else None
        self._joint_grad = joint_grad
        self._reads_ans = -1
        self.kinds = kinds
        self.kind_mask = _kind_mask(kinds)
        self.same_dtype = same_dtype
        self.multi = multi
        self.check = check
        self.differentiable = grads is not None or joint_grad is not None
        self.no_grad_reason = no_grad_reason
        self.quiet = quiet
        self.__doc__ = doc

    def __call__(self, *args, name=None, **attrs):
        if _op_dispatch:        # some op has dispatchers (fe.experimental.dispatch_for_*)
            r = _dispatch_op_call(self, args, name, attrs)
            if r is not NotImplemented:
                return r
        # only declared attributes pass: NumPy's own keywords (out=, where=, dtype=) would
        # alias or skip the checks; the arity check keeps a third array from being `out`
        if attrs:
            for k in attrs:
                if k not in self.attrs:
                    raise TypeError("%s: unexpected keyword argument %r (expected %s)"
                                    % (self.name, k, _expected_keywords(self)))
        if self.nin >= 0 and len(args) != self.nin:
            raise TypeError("%s: wrong number of tensor arguments (expected %d, got %d)"
                            % (self.name, self.nin, len(args)))
        return execute(self, args, attrs if attrs else None)

    def __repr__(self):
        return "<fe op %r>" % self.name

    def refuse_dtypes(self, dtypes, error=None):
        """Refuse these dtypes although their kind is accepted (TensorFlow's op has no
        kernel for them); ``error`` is the class raised for them (InvalidArgumentError
        unless given: NotFoundError where TensorFlow's op lists the dtype but has no
        kernel for it)."""
        refused = getattr(self, "refused_dtypes", None)
        if refused is None:
            refused = self.refused_dtypes = {}
        for d in dtypes:
            d = np.dtype(d)
            for alias in {d, np.dtype(d.str)}:      # int64 and longlong, by number
                self.kind_mask &= ~((<uint64_t>1) << alias.num)
            for n in (np.dtype(np.longlong), np.dtype(np.ulonglong)):
                if n.kind == d.kind and n.itemsize == d.itemsize:
                    self.kind_mask &= ~((<uint64_t>1) << n.num)
            refused[d] = error or InvalidArgumentError

    # the gradient functions; setting one again makes the next record look at it anew
    @property
    def grads(self):
        return self._grads

    @grads.setter
    def grads(self, value):
        self._grads = tuple(value) if value is not None else None
        self._reads_ans = -1

    @property
    def joint_grad(self):
        return self._joint_grad

    @joint_grad.setter
    def joint_grad(self, value):
        self._joint_grad = value
        self._reads_ans = -1


cdef bint _op_reads_ans(Op op) except -1:
    """Whether the op's gradient reads its output (``ans``), worked out on its first record."""
    if op._reads_ans < 0:
        fns = (op._joint_grad,) if op._joint_grad is not None else (op._grads or ())
        op._reads_ans = any(f is not None and _reads_argument(f, 1) for f in fns)
    return op._reads_ans


import types as _types
cdef object _python_function = _types.FunctionType   # (a lambda here would be a Cython one)


cdef bint _reads_argument(object fn, int index) except -1:
    """Whether a VJP may read its positional argument ``index``: True unless ``fn`` is a
    plain Python function whose code never names that argument after binding it (any
    other callable, ``*args``, a closure over it or a ``locals()`` call count as reads;
    so does a Cython function, whose ``__code__`` has no bytecode to look at, and a bound
    method, whose arguments are shifted by ``self``)."""
    if type(fn) is not _python_function:
        return True
    code = fn.__code__
    if code.co_argcount <= index or "locals" in code.co_names or "vars" in code.co_names:
        return True
    name = code.co_varnames[index]
    if name in code.co_cellvars:
        return True
    import dis
    for ins in dis.get_instructions(code):
        arg = ins.argval
        if arg == name or (type(arg) is tuple and name in arg):
            return True
    return False


cdef str _expected_keywords(Op op):
    return "one of: " + ", ".join(sorted(op.attrs) + ["name"]) if op.attrs else "only name"


# ----------------------------------------------------------------------------------------
# Conversion
# ----------------------------------------------------------------------------------------
cdef object _np_float32 = np.dtype(np.float32)
cdef object _np_int32 = np.dtype(np.int32)
cdef object _np_int64 = np.dtype(np.int64)
cdef object _np_bool = np.dtype(np.bool_)


cdef object _encode_entry(object v, str opname, object error):
    """One entry of a string tensor as bytes (``str`` is encoded as UTF-8, as TensorFlow does)."""
    if isinstance(v, bytes):
        return v if type(v) is bytes else bytes(v)
    if isinstance(v, str):
        return (<str>v).encode("utf-8")
    if isinstance(v, (list, tuple, np.ndarray)):
        raise InvalidArgumentError("%s: a string tensor needs lists of one shape; use "
                                   "fe.ragged.constant for rows of different lengths (got a "
                                   "nested %s)" % (opname, type(v).__name__))
    raise error("%s: cannot convert %r to a string tensor (expected str or bytes entries only, "
                "got %s)" % (opname, v, type(v).__name__))


def string_array(value, str opname="convert_to_tensor", error=InvalidArgumentError):
    """``value`` (str, bytes, nested lists of them, a U/S/object array) as a new NumPy object
    array of bytes: the value of an ``fe.string`` tensor. A non-string entry raises
    ``error`` naming ``opname``."""
    cdef object arr, out, flat
    cdef Py_ssize_t i = 0
    if cnp.PyArray_Check(value):
        arr = value
    else:
        try:
            arr = np.array(value, dtype=object)
        except ValueError:      # ragged nesting NumPy cannot even hold as objects
            raise InvalidArgumentError("%s: a string tensor needs lists of one shape; use "
                                       "fe.ragged.constant for rows of different lengths"
                                       % opname) from None
    if arr.dtype.kind not in "OSU":
        raise error("%s: cannot convert an array of %s to a string tensor (expected str or "
                    "bytes entries)" % (opname, arr.dtype))
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for v in arr.reshape(-1):
        flat[i] = _encode_entry(v, opname, error)
        i += 1
    return out


cdef object _adopt_string(Op op, object value, object ref_dtype):
    """A Python value beside tensors of ``ref_dtype`` where one of them is a string: strings
    meet strings only. Comparisons raise TypeError, as TensorFlow's strict conversion does,
    the other ops InvalidArgumentError, as its kernels' dtype check does."""
    error = TypeError if op is _op_eq or op is _op_ne else InvalidArgumentError
    if (<cnp.dtype>ref_dtype).type_num == cnp.NPY_OBJECT:
        return string_array(value, op.name, error)
    raise error("%s: cannot convert %r to a %s tensor to match the other input (strings and "
                "numbers do not mix)" % (op.name, value, ref_dtype))


cdef object _python_to_array(object value, object dtype):
    """Python values (scalars, nested lists) to an ndarray with TensorFlow's default dtypes."""
    cdef object arr
    if dtype is not None:
        if (<cnp.dtype>dtype).type_num == cnp.NPY_OBJECT:
            return string_array(value, "convert_to_tensor", TypeError)
        t = type(value)
        if (t is float or isinstance(value, np.floating)) and np.dtype(dtype).kind in "iub" \
                and (not np.isfinite(value) or value != int(value)):
            raise InvalidArgumentError(
                "convert_to_tensor: cannot convert %r to %s without losing precision"
                % (value, np.dtype(dtype)))
        try:
            if isinstance(value, (list, tuple)) and np.dtype(dtype).kind in "iub":
                arr = np.asarray(value)
                if arr.dtype.kind in "fc" and not (np.isfinite(arr).all() and (
                        arr == np.trunc(arr.real)).all()):
                    raise InvalidArgumentError(
                        "convert_to_tensor: cannot convert %r to %s without losing precision"
                        % (value, np.dtype(dtype)))
            return np.array(value, dtype=dtype)
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidArgumentError("convert_to_tensor: cannot convert %r to %s (%s)"
                                       % (value, np.dtype(dtype), e)) from None
    t = type(value)
    if t is float:
        return np.array(value, dtype=_np_float32)
    if t is bool:
        return np.array(value, dtype=_np_bool)
    if t is int:
        if -2147483648 <= value <= 2147483647:
            return np.array(value, dtype=_np_int32)
        if not -9223372036854775808 <= value <= 9223372036854775807:
            raise InvalidArgumentError("convert_to_tensor: %d does not fit in int64 (expected "
                                       "-2**63 <= value < 2**63)" % value)
        return np.array(value, dtype=_np_int64)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as e:
        if "inhomogeneous" in str(e):           # TensorFlow's error and text
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") \
                from None
        raise InvalidArgumentError("convert_to_tensor: cannot convert %s to a tensor (%s)"
                                   % (type(value).__name__, e)) from None
    if arr.dtype.kind == "f" and arr.dtype.itemsize == 8 and not _has_numpy_leaf(value):
        arr = arr.astype(_np_float32)
    elif arr.dtype.kind == "i" and arr.dtype.itemsize == 8 and not _has_numpy_leaf(value):
        if arr.size == 0 or (arr.min() >= -2147483648 and arr.max() <= 2147483647):
            arr = arr.astype(_np_int32)
    elif arr.dtype.kind in "OSU":
        # from the value itself: ["a", 1] is mixed, not "1" (TensorFlow's ValueError)
        return string_array(value, "convert_to_tensor", _mixed_types)
    elif arr.dtype.kind == "V":
        raise InvalidArgumentError("convert_to_tensor: cannot convert %s of %s to a tensor"
                                   % (type(value).__name__, arr.dtype))
    return arr


# TensorFlow converts the other operand of a binary op to the tensor's dtype: a NumPy value
# always (NumPy's cast, as its C conversion does), a Python value or list only where its
# kind fits: a Python bool to these dtypes, an int to any number type, a float to a
# floating or complex type, a complex to a complex type (what TensorFlow 2.21 does,
# recorded in tests/tf_reference/tensor_semantics.json)
cdef frozenset _BOOL_TARGETS = frozenset([np.dtype(d) for d in (
    "bool", "int32", "int64", "uint64", "float16", "float32", "float64", "complex128")])
cdef object _REFUSED = object()


cdef object _adopt_array(object value, object dtype):
    """``value`` (a Python or NumPy number, a list of numbers, a NumPy array) as an array of
    ``dtype`` as TensorFlow converts the other operand of a binary op; _REFUSED where
    TensorFlow refuses it, None where ``value`` is no such value (strings, other objects)."""
    cdef str kind
    cdef str target = dtype.kind
    if cnp.PyArray_Check(value) or isinstance(value, np.generic):
        arr = np.asarray(value)
        if arr.dtype.kind not in "biufc" or target not in "biufc":
            return None
        if arr.dtype == dtype:
            return np.array(arr, copy=True)
        if arr.dtype.kind in "fc" and target not in "fc" or \
                arr.dtype.kind == "c" and target != "c":
            # (NaN to int and complex to real cast quietly, as TensorFlow's conversion)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                with np.errstate(all="ignore"):
                    return arr.astype(dtype)
        return arr.astype(dtype)
    t = type(value)
    if t is bool:
        kind = "b"
    elif t is int:
        kind = "i"
    elif t is float:
        kind = "f"
    elif t is complex:
        kind = "c"
    elif t is list or t is tuple:
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            return None
        kind = arr.dtype.kind
        if kind not in "biufc" or _has_numpy_leaf(value):
            return None
    else:
        return None
    if target not in "biufc":       # a string tensor: strings meet strings (_adopt_string)
        return None
    if kind == "b":
        if dtype not in _BOOL_TARGETS:
            return _REFUSED
    elif kind in "iu":
        if target == "b":
            return _REFUSED
    elif kind == "f":
        if target not in "fc":
            return _REFUSED
    elif target != "c":
        return _REFUSED
    try:
        return np.array(value, dtype=dtype)
    except OverflowError:           # an int out of the dtype's range wraps, as in TensorFlow
        pass
    try:
        arr = np.asarray(value)
    except OverflowError:
        return _REFUSED
    if arr.dtype.kind == "O":       # an int beyond 64 bits
        return _REFUSED
    with np.errstate(all="ignore"):
        return arr.astype(dtype)


def convert_hinted(value, dtype):
    """``value`` as a tensor of ``dtype`` where TensorFlow converts it so (the other operand
    of a binary op), else as it converts alone (``convert_to_tensor(value, dtype_hint=)``)."""
    if isinstance(value, (Tensor, VariableBase)):
        return convert_to_tensor(value)
    arr = _adopt_array(value, dtype)
    if arr is None or arr is _REFUSED:
        return convert_to_tensor(value)
    return _wrap(arr)


cdef object _refused(Op op, object value, object dtype):
    # (TensorFlow's class: its conversion to the op's dtype raises TypeError)
    return TypeError("%s: cannot convert %r to EagerTensor of dtype %s (the other input's "
                     "dtype)" % (op.name, value, _dtypes.from_numpy(dtype).name))


def _mixed_types(message):
    return ValueError("Can't convert Python sequence with mixed types to Tensor.")


cdef bint _has_numpy_leaf(object value):
    """True when a nested list holds NumPy arrays/scalars or tensors (whose dtype wins)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            if _has_numpy_leaf(v):
                return True
        return False
    return isinstance(value, (np.ndarray, np.generic, Tensor, VariableBase))


cpdef Tensor convert_to_tensor(object value, object dtype=None):
    """Convert a Tensor, Variable, NumPy array or Python value to a Tensor.

    Python floats become float32 and ints int32 (int64 if they do not fit); NumPy arrays
    keep their dtype and are copied (a tensor never aliases memory that the caller can
    still mutate).
    """
    cdef Tensor t
    cdef object np_dtype = None
    if dtype is not None:
        np_dtype = _dtypes.as_dtype(dtype)._np
    if type(value) is Tensor:
        t = <Tensor>value
        if np_dtype is not None and (<cnp.ndarray>t._value).dtype != np_dtype:
            check_usable(t)
            raise InvalidArgumentError(
                "convert_to_tensor: tensor of dtype %s cannot be used as %s (use fe.cast)"
                % ((<cnp.ndarray>t._value).dtype, np_dtype))
        return t
    if isinstance(value, VariableBase):
        t = (<VariableBase>value)._read()
        if np_dtype is not None and (<cnp.ndarray>t._value).dtype != np_dtype:
            raise InvalidArgumentError(
                "convert_to_tensor: variable of dtype %s cannot be used as %s (use fe.cast)"
                % ((<cnp.ndarray>t._value).dtype, np_dtype))
        return t
    if isinstance(value, Tensor):
        return value
    if cnp.PyArray_Check(value):
        if value.dtype.kind in "OSU" and (np_dtype is None or np_dtype.kind == "O"):
            return _wrap(string_array(value))
        if np_dtype is not None and value.dtype != np_dtype:
            if np_dtype.kind == "O":
                return _wrap(string_array(value, "convert_to_tensor", TypeError))
            if value.dtype.kind == "f" and np.dtype(np_dtype).kind in "iub":
                raise InvalidArgumentError(
                    "convert_to_tensor: cannot convert a %s array to %s (use fe.cast)"
                    % (value.dtype, np_dtype))
            return _wrap(value.astype(np_dtype))
        if value.dtype.kind == "V":
            raise InvalidArgumentError("convert_to_tensor: cannot convert an array of %s to a "
                                       "tensor" % value.dtype)
        return _wrap(np.array(value, copy=True))
    if isinstance(value, np.generic):
        if isinstance(value, (np.bytes_, np.str_)) or (np_dtype is not None and
                                                       np_dtype.kind == "O"):
            return _wrap(string_array(value, "convert_to_tensor", TypeError))
        return _wrap(np.asarray(value, dtype=np_dtype))
    if hasattr(value, "__fe_tensor__"):
        return convert_to_tensor(value.__fe_tensor__(), dtype)
    return _wrap(_python_to_array(value, np_dtype))


# ----------------------------------------------------------------------------------------
# Dispatch
# ----------------------------------------------------------------------------------------
cdef str _describe(object arr):
    return "%s%s" % (arr.dtype, list(arr.shape))


cdef object _dtype_error(Op op, list arrays):
    _refuse_unusable(arrays)
    kinds = {"f": "floating", "i": "signed integer", "u": "unsigned integer", "b": "bool",
             "c": "complex", "O": "string"}
    # the class: TensorFlow's for the op (truediv: TypeError) or for a dtype it refuses
    error = getattr(op, "dtype_error", InvalidArgumentError)
    refused = getattr(op, "refused_dtypes", None)
    if refused and arrays and arrays[0].dtype in refused:   # (TensorFlow: by the first)
        error = refused[arrays[0].dtype]
    if error is not InvalidArgumentError:
        return error(
            "%s: unsupported dtype (got %s)" % (op.name, ", ".join(_dtype_name(a)
                                                                  for a in arrays)))
    return InvalidArgumentError(
        "%s: unsupported dtype (expected %s, got %s)"
        % (op.name, " or ".join(kinds[k] for k in op.kinds if k in kinds),
           ", ".join(_dtype_name(a) for a in arrays)))


cdef str _dtype_name(object arr):
    return "string" if arr.dtype.kind == "O" else str(arr.dtype)


def out_of_memory_error(str opname, e, str context=""):
    """A MemoryError as ResourceExhaustedError naming the op and the size it asked for."""
    nbytes = getattr(e, "_total_size", None)   # NumPy's _ArrayMemoryError knows the size
    if nbytes is None:
        asked = "an allocation failed"
    else:
        asked = "tried to allocate %s" % _format_bytes(nbytes)
        if getattr(e, "shape", None) is not None:
            asked += " for an array of shape %s (%s)" % (list(e.shape), e.dtype)
    return ResourceExhaustedError("%s: out of memory (%s%s)" % (opname, asked, context))


cdef str _format_bytes(double n):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024:
            return ("%d %s" if unit == "bytes" else "%.1f %s") % (n, unit)
        n /= 1024
    return "%.1f TiB" % n


cdef object _kernel_error(Op op, list arrays, object attrs, BaseException e):
    if isinstance(e, OpError):
        return e
    if isinstance(e, MemoryError):
        return out_of_memory_error(op.name, e, "; inputs: " + ", ".join(
            _describe(a) for a in arrays))
    shown = ", ".join(_describe(a) for a in arrays)
    extra = ""
    if attrs:
        extra = " with %s" % ", ".join("%s=%r" % kv for kv in attrs.items() if kv[0] != "key")
    return InvalidArgumentError("%s: %s (inputs: %s%s)" % (op.name, e, shown, extra))


cdef object _binary(Op op, object a, object b):
    """The fast path for the Tensor operators (two tensors of one dtype, CPU, no scope,
    no profiler: ``execute`` times the op then)."""
    cdef Tensor ta, tb, out
    cdef object r
    cdef bint np_rules
    if type(a) is Tensor and type(b) is Tensor:
        ta = <Tensor>a
        tb = <Tensor>b
        np_rules = ta._np_rules or tb._np_rules
        # NumPy-rules operands of one dtype compute exactly as here (but for matmul's 1-D
        # operands): only mixed dtypes and matmul go to fasteager.numpy
        if np_rules and _numpy_operator_hook is not None and (
                op is _op_matmul or cnp.PyArray_TYPE(ta._value) != cnp.PyArray_TYPE(tb._value)):
            return _numpy_operator_hook(op, a, b)
        if not _check_numerics and _n_device_scopes == 0 and _gpu_state == 0 \
                and not _n_profilers \
                and cnp.PyArray_TYPE(ta._value) == cnp.PyArray_TYPE(tb._value) \
                and (op.kind_mask >> cnp.PyArray_TYPE(ta._value)) & 1 and not op.quiet:
            prev_alloc = None
            if _array_cache is not None and cnp.PyArray_NBYTES(<cnp.ndarray>ta._value) + \
                    cnp.PyArray_NBYTES(<cnp.ndarray>tb._value) >= _CACHE_INPUT_BYTES:
                prev_alloc = cnp.PyDataMem_SetHandler(_array_cache)
            try:
                r = op.forward(ta._value, tb._value)
            except Exception:
                return execute(op, (a, b), None)   # the slow path builds the error message
            finally:
                if prev_alloc is not None:
                    cnp.PyDataMem_SetHandler(prev_alloc)
            out = _wrap(r)
            out._np_rules = np_rules
            if _n_tracers and (tracer := _tracing()) is not None:
                tracer.record(op, (ta, tb), None, out)
            if _n_recording and op.differentiable \
                    and cnp.PyArray_TYPE(ta._value) != cnp.NPY_OBJECT:
                _record_binary(op, ta, tb, out)
            return out
    elif (type(a) is Tensor and (<Tensor>a)._np_rules) or \
            (type(b) is Tensor and (<Tensor>b)._np_rules):
        if _numpy_operator_hook is not None:
            return _numpy_operator_hook(op, a, b)
    elif type(b) is Tensor and not isinstance(a, (Tensor, VariableBase)):
        # a reflected operator (2 - t): TensorFlow converts the left operand to the
        # tensor's dtype first, a refusal being its TypeError (t - 2 is left to execute)
        r = _adopt_array(a, (<Tensor>b)._value.dtype)
        if r is _REFUSED:
            raise _refused(op, a, (<Tensor>b)._value.dtype)
        if r is not None:
            a = _wrap(r)
    if op is _op_mul and _op_cast is not None and (_is_bool(a) or _is_bool(b)):
        # TensorFlow's * with a bool tensor: both operands as int32, multiplied, as bool
        r = execute(op, (execute(_op_cast, (a,), {"dtype": _np_int32}),
                         execute(_op_cast, (b,), {"dtype": _np_int32})), None)
        return execute(_op_cast, (r,), {"dtype": _np_bool})
    return execute(op, (a, b), None)


cdef inline bint _is_bool(object x):
    return type(x) is Tensor and not (<Tensor>x)._np_rules and \
        cnp.PyArray_Check((<Tensor>x)._value) and \
        cnp.PyArray_TYPE(<cnp.ndarray>(<Tensor>x)._value) == cnp.NPY_BOOL


# Composite tensors (fe.RaggedTensor, fe.SparseTensor) are not Tensors, but TensorFlow's
# elementwise ops take them. Their modules register ``handler(op, args, attrs)`` per type;
# ``execute`` looks an argument up only when it is neither a Tensor nor a Python number,
# so calls on tensors never reach the table.
cdef dict _dispatch_types = {}


def register_dispatch(type cls, handler):
    """Run ``handler(op, args, attrs)`` instead of an op when an argument is a ``cls``
    (exactly); a handler returning NotImplemented lets the op go on as usual."""
    _dispatch_types[cls] = handler


# Type-based dispatch of a call of an op (``fe.experimental.dispatch_for_api(fe.math.add)``):
# ``Op.__call__`` hands the call as the user made it (operands by keyword and ``name``
# included, as TensorFlow does) to ``_op_dispatch[op](args, kwargs)`` when an argument's
# type is dispatchable; NotImplemented from it runs the op as usual. Whether a type is
# dispatchable is asked of ``_dispatchable_test(type)`` once per type and memoised in
# ``_dispatchable`` (forgotten when the dispatch module changes its registrations), so a
# call pays one dict look-up per argument that is not a tensor or a Python number.
cdef dict _op_dispatch = {}
cdef dict _dispatchable = {}
cdef object _dispatchable_test = None
cdef Py_ssize_t _dispatchable_epoch = 0     # bumped by set_dispatchable_test


def set_op_dispatch(Op op, handler):
    """Have calls of ``op`` with a dispatchable argument tried by ``handler(args, kwargs)``
    first (None: no longer)."""
    if handler is None:
        _op_dispatch.pop(op, None)
    else:
        _op_dispatch[op] = handler


def set_dispatchable_test(test):
    """``test(type) -> bool``: whether an op call with an argument of that type goes to the
    op's dispatch handler. Setting it (again) forgets the answers memoised so far."""
    global _dispatchable_test, _dispatchable_epoch
    _dispatchable_test = test
    _dispatchable_epoch += 1
    _dispatchable.clear()


cdef bint _is_dispatchable(object a) except -1:
    cdef type t = type(a)
    cdef Py_ssize_t epoch
    if t is Tensor or t is float or t is int or _dispatchable_test is None:
        return False
    known = _dispatchable.get(t)
    if known is None:
        epoch = _dispatchable_epoch
        known = bool(_dispatchable_test(t))
        if epoch == _dispatchable_epoch:    # (else registrations changed meanwhile)
            if len(_dispatchable) >= 4096:  # (classes made in a loop: keep the memo small)
                _dispatchable.clear()
            _dispatchable[t] = known
    return known is True


cdef object _dispatch_op_call(Op op, tuple args, object name, dict attrs):
    handler = _op_dispatch.get(op)
    if handler is None:
        return NotImplemented
    for a in args:
        if _is_dispatchable(a):
            break
    else:
        if not attrs:
            return NotImplemented
        for a in attrs.values():
            if _is_dispatchable(a):
                break
        else:
            return NotImplemented
    kwargs = dict(attrs) if attrs else {}
    if name is not None:
        kwargs["name"] = name
    return handler(args, kwargs)


# fe.profiler: while a profiler runs, every op executed eagerly is an event reported to
# ``_profile_hook(name, start_ns, end_ns)``; otherwise an op pays one C integer test.
cdef int _n_profilers = 0
cdef object _profile_hook = None
cdef object _perf_ns = None


def set_profile_hook(hook):
    """Install the profiler's op hook (None removes it)."""
    global _n_profilers, _profile_hook, _perf_ns
    import time
    _perf_ns = time.perf_counter_ns
    _profile_hook = hook
    _n_profilers = hook is not None


cdef object _NOT_PROFILED = object()


cdef object _profiled_execute(Op op, tuple args, dict attrs):
    """``execute`` while a profiler runs: times the op by calling ``execute`` again,
    which (seeing this thread's ``profiling_op``) runs it; _NOT_PROFILED to that call."""
    state = _tls
    if state.profiling_op is op:
        state.profiling_op = None
        return _NOT_PROFILED
    start = _perf_ns()
    state.profiling_op = op
    try:
        return execute(op, args, attrs)
    finally:
        state.profiling_op = None
        hook = _profile_hook
        if hook is not None:
            hook(op.name, start, _perf_ns())


cpdef object execute(Op op, tuple args, dict attrs):
    """Run one op: convert, check, compute, wrap, record. Returns a Tensor (or a tuple)."""
    if _n_profilers:
        profiled = _profiled_execute(op, args, attrs)
        if profiled is not _NOT_PROFILED:
            return profiled
    cdef Py_ssize_t n = len(args), i
    cdef bint first_sets_dtype
    cdef list tensors = [None] * n
    cdef list arrays = [None] * n
    cdef object a, ref_dtype = None, r
    cdef Tensor t
    if _gpu_state:     # one C check on the CPU-only path; see fasteager.cuda.ops.execute
        if _gpu_state < 0:
            _probe_gpu()
        if _gpu_state > 0:
            r = _gpu_hook(op, args, attrs)
            if r is not NotImplemented:
                return r
    # tf.add and tf.matmul take their dtype from the first input, converted on its own
    # (the operators convert their non-tensor operand before they get here)
    first_sets_dtype = (op is _op_add or op is _op_matmul) and n == 2
    if first_sets_dtype and not isinstance(args[0], (Tensor, VariableBase)) and (
            isinstance(args[1], (Tensor, VariableBase))) and _adopt_array(
            args[0], _np_float32) is not None:
        args = (convert_to_tensor(args[0]), args[1])
    # 1. tensors and variables first: their dtype is the one Python scalars adopt
    for i in range(n):
        a = args[i]
        if type(a) is Tensor:
            t = <Tensor>a
        elif isinstance(a, VariableBase):
            t = (<VariableBase>a)._read()
        elif isinstance(a, Tensor):
            t = <Tensor>a
        else:
            continue
        tensors[i] = t
        arrays[i] = t._value
        if ref_dtype is None:
            ref_dtype = t._value.dtype
    # 2. everything else (a composite tensor's module takes over the whole call)
    for i in range(n):
        if tensors[i] is None:
            a = args[i]
            if _dispatch_types and type(a) is not float and type(a) is not int \
                    and type(a) in _dispatch_types:
                r = _dispatch_types[type(a)](op, args, attrs)
                if r is not NotImplemented:     # else: the op goes on as if unregistered
                    return r
            # Python and NumPy values adopt the tensors' dtype, as TensorFlow converts them
            if op.same_dtype and ref_dtype is not None:
                arr = _adopt_array(a, ref_dtype)
                if arr is _REFUSED:
                    if first_sets_dtype:
                        # add and matmul convert with a dtype *hint*: what does not convert
                        # stays as it is, and the dtype check below refuses it
                        t = convert_to_tensor(a)
                    else:
                        raise _refused(op, a, ref_dtype)
                elif arr is not None:
                    t = _wrap(arr)
                elif cnp.PyArray_Check(a):
                    t = convert_to_tensor(a)
                elif (<cnp.dtype>ref_dtype).type_num == cnp.NPY_OBJECT or type(a) is str \
                        or type(a) is bytes:
                    t = _wrap(_adopt_string(op, a, ref_dtype))
                else:
                    t = _wrap(_python_to_array(a, ref_dtype))
            else:
                t = convert_to_tensor(a)
                if ref_dtype is None:
                    ref_dtype = t._value.dtype
            tensors[i] = t
            arrays[i] = t._value
    # 3. dtype rules
    for i in range(n):
        if not (op.kind_mask >> cnp.PyArray_TYPE(arrays[i])) & 1:
            raise _dtype_error(op, arrays)
    if op.same_dtype and n > 1:
        for i in range(1, n):
            if arrays[i].dtype != arrays[0].dtype:
                raise getattr(op, "dtype_error", InvalidArgumentError)(
                    "%s: all inputs must have the same dtype (expected %s for input %d to "
                    "match input 0, got %s)" % (op.name, _dtype_name(arrays[0]), i,
                                                 _dtype_name(arrays[i])))
    if op.check is not None:
        if attrs:
            op.check(*arrays, **attrs)
        else:
            op.check(*arrays)
    # 4. the kernel
    token = _quiet_enter() if op.quiet else None
    prev_alloc = _cache_on(arrays) if _array_cache is not None else None
    try:
        if attrs:
            r = op.forward(*arrays, **attrs)
        else:
            r = op.forward(*arrays)
    except Exception as e:
        raise _kernel_error(op, arrays, attrs, e) from e
    finally:
        if prev_alloc is not None:
            cnp.PyDataMem_SetHandler(prev_alloc)
        if op.quiet:
            _quiet_exit(token)
    # 5. wrap (and check) the outputs; NumPy-rules tensors beget NumPy-rules tensors
    np_rules = False
    for i in range(n):
        if (<Tensor>tensors[i])._np_rules:
            np_rules = True
            break
    if op.multi:
        out = tuple([_wrap(x) for x in r])
        for x in out:
            if np_rules:
                (<Tensor>x)._np_rules = True
            if _check_numerics:
                _check_finite(op.name, (<Tensor>x)._value)
    else:
        out = _wrap(r)
        (<Tensor>out)._np_rules = np_rules
        if _check_numerics:
            _check_finite(op.name, (<Tensor>out)._value)
    # 6. record (on the trace of an fe.function, and on recording tapes)
    if _n_tracers and (tracer := _tracing()) is not None:
        tracer.record(op, tuple(tensors), attrs, out)
    if _n_recording and op.differentiable and not _has_strings(arrays):
        _record(op, tuple(tensors), out, attrs, None)
    return out


cdef bint _has_strings(list arrays):
    """Strings have no gradient: ops on them are never recorded on a tape."""
    for a in arrays:
        if cnp.PyArray_Check(a) and cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.NPY_OBJECT:
            return True
    return False


cdef _check_finite(str name, object arr):
    if arr.dtype.kind == "f" and arr.size and not np.isfinite(arr).all():
        what = "NaN" if np.isnan(arr).any() else "Inf"
        raise InvalidArgumentError("check_numerics: op %s produced %s (output shape %s, dtype %s)"
                                   % (name, what, tuple(arr.shape), arr.dtype))


# ----------------------------------------------------------------------------------------
# Id sets (IdSet in _core.pxd): what a tape watches, and the backward sweep's bookkeeping
# ----------------------------------------------------------------------------------------
cdef inline size_t _id_slot(int64_t key, Py_ssize_t capacity) noexcept nogil:
    # Fibonacci hashing: the consecutive ids of a tape's outputs spread over the table
    cdef uint64_t h = <uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL
    return <size_t>((h ^ (h >> 32)) & <uint64_t>(capacity - 1))


@cython.boundscheck(False)
cdef inline bint _idset_has(const IdSet *s, int64_t key) noexcept nogil:
    cdef size_t i, mask
    cdef int64_t k
    if s.used == 0:
        return False
    mask = <size_t>(s.capacity - 1)
    i = _id_slot(key, s.capacity)
    while True:
        k = s.slots[i]
        if k == key:
            return True
        if k == 0:
            return False
        i = (i + 1) & mask


@cython.boundscheck(False)
cdef inline void _idset_put(IdSet *s, int64_t key) noexcept nogil:
    """Add ``key`` to a set with a free slot."""
    cdef size_t mask = <size_t>(s.capacity - 1)
    cdef size_t i = _id_slot(key, s.capacity)
    while s.slots[i] != 0:
        if s.slots[i] == key:
            return
        i = (i + 1) & mask
    s.slots[i] = key
    s.used += 1


# The cleared table of the last set freed: a loop that makes one tape per step then
# reuses it instead of growing a new one from 64 slots (the GIL guards both).
cdef int64_t *_spare_slots = NULL
cdef Py_ssize_t _spare_capacity = 0
cdef Py_ssize_t _SPARE_MAX_CAPACITY = 1 << 16     # 512 KiB


cdef int _idset_grow(IdSet *s) except -1:
    global _spare_slots, _spare_capacity
    cdef Py_ssize_t old_capacity = s.capacity, j
    cdef int64_t *old = s.slots
    cdef Py_ssize_t capacity = 2 * old_capacity if old_capacity else 64
    cdef int64_t *slots
    if old_capacity == 0 and _spare_slots != NULL:
        s.slots = _spare_slots
        s.capacity = _spare_capacity
        _spare_slots = NULL
        _spare_capacity = 0
        return 0
    slots = <int64_t *>calloc(capacity, sizeof(int64_t))
    if slots == NULL:
        raise MemoryError()
    s.slots = slots
    s.capacity = capacity
    s.used = 0
    for j in range(old_capacity):
        if old[j] != 0:
            _idset_put(s, old[j])
    free(old)
    return 0


cdef inline int _idset_add(IdSet *s, int64_t key) except -1:
    if 2 * (s.used + 1) > s.capacity:       # at most half full: probes stay short
        _idset_grow(s)
    _idset_put(s, key)
    return 0


cdef void _idset_free(IdSet *s) noexcept:
    global _spare_slots, _spare_capacity
    if s.slots != NULL and _spare_capacity < s.capacity <= _SPARE_MAX_CAPACITY:
        memset(s.slots, 0, s.capacity * sizeof(int64_t))
        free(_spare_slots)
        _spare_slots = s.slots
        _spare_capacity = s.capacity
    else:
        free(s.slots)
    s.slots = NULL
    s.capacity = 0
    s.used = 0


# ----------------------------------------------------------------------------------------
# Tapes
# ----------------------------------------------------------------------------------------
@cython.freelist(1024)
cdef class Record:
    """One recorded op: what its VJP needs (inputs, outputs, attrs) and the ids it links.

    A single-output op whose VJPs never read the output (``ans``) keeps only the output's
    id: an output that nobody else holds is then freed at once instead of living as long
    as the tape. No record on the tape consumes such an output (records hold their
    inputs) and it cannot be a target, so it never receives a gradient.
    """
    cdef Op op
    cdef tuple inputs          # None for a Tensor operator's record until a sweep needs it
    cdef Tensor in0, in1       # a Tensor operator's two inputs (no tuple built per op)
    cdef object outputs        # what the VJP gets as ``ans``: Tensor, tuple or None
    cdef tuple outs            # the outputs of a multi-output op or custom node; else None
    cdef int64_t out_id        # the output's id (when ``outs`` is None)
    cdef dict attrs
    cdef object custom         # custom_gradient: a callable gs -> input gradients


cdef Record _new_record(Op op, tuple inputs, object outputs, dict attrs, object custom):
    cdef Record rec = Record.__new__(Record)
    rec.op = op
    rec.inputs = inputs
    rec.attrs = attrs
    rec.custom = custom
    if type(outputs) is tuple:
        rec.outs = <tuple>outputs
        rec.outputs = outputs
    else:
        rec.out_id = (<Tensor>outputs)._id
        if custom is not None or _op_reads_ans(op):
            rec.outputs = outputs
    return rec


cdef extern from "Python.h":
    ctypedef struct PyThreadState:
        pass
    PyThreadState *PyThreadState_Get()
    uint64_t PyThreadState_GetID(PyThreadState *tstate)

# The last thread's tape stack, keyed by its thread state's id: CPython numbers thread
# states from 1 and never reuses a number (unlike OS thread ids), so a new thread never
# matches a dead one's entry. It saves a threading.local look-up (~100 ns) per taped op.
cdef uint64_t _stack_owner = 0
cdef list _stack_cached = None


cdef inline list _tape_stack():
    """This thread's tape stack."""
    global _stack_owner, _stack_cached
    cdef uint64_t owner = PyThreadState_GetID(PyThreadState_Get())
    if owner != _stack_owner:
        _stack_cached = _tls.tapes
        _stack_owner = owner
    return _stack_cached


@cython.boundscheck(False)
@cython.wraparound(False)
cdef _record(Op op, tuple inputs, object outputs, dict attrs, object custom):
    cdef Tape tape
    cdef Record rec = None
    cdef Py_ssize_t k, n_in = len(inputs)
    for tape_obj in _tape_stack():
        tape = <Tape>tape_obj
        if not tape._recording:
            continue
        for k in range(n_in):
            if _idset_has(&tape._watched, (<Tensor>inputs[k])._id):
                break
        else:
            continue
        if rec is None:
            rec = _new_record(op, inputs, outputs, attrs, custom)
        tape._records.append(rec)
        if rec.outs is None:
            _idset_add(&tape._watched, rec.out_id)
        else:
            for x in rec.outs:
                _idset_add(&tape._watched, (<Tensor>x)._id)
    if _n_forward:
        _forward_op_hook(op, inputs, outputs, attrs, custom)

@cython.boundscheck(False)
@cython.wraparound(False)
cdef _record_binary(Op op, Tensor a, Tensor b, Tensor out):
    """``_record`` for a Tensor operator's call (two inputs, one output, no attrs)."""
    cdef Tape tape
    cdef Record rec = None
    for tape_obj in _tape_stack():
        tape = <Tape>tape_obj
        if not tape._recording or not (_idset_has(&tape._watched, a._id)
                                        or _idset_has(&tape._watched, b._id)):
            continue
        if rec is None:
            rec = Record.__new__(Record)
            rec.op = op
            rec.in0 = a
            rec.in1 = b
            rec.out_id = out._id
            if _op_reads_ans(op):
                rec.outputs = out
        tape._records.append(rec)
        _idset_add(&tape._watched, out._id)
    if _n_forward:
        _forward_op_hook(op, (a, b), out, None, None)


cdef inline bint _reads_any(Record rec, const IdSet *ids):
    """Whether an input of ``rec`` is in ``ids``."""
    if rec.inputs is None:
        return _idset_has(ids, rec.in0._id) or _idset_has(ids, rec.in1._id)
    for x in rec.inputs:
        if _idset_has(ids, (<Tensor>x)._id):
            return True
    return False


def record_custom(tuple inputs, tuple outputs, backward):
    """Record a custom-gradient node: ``backward(list_of_output_grads) -> input grads``."""
    if _n_recording:
        _record(None, inputs, outputs, None, backward)


cdef _on_variable_read(VariableBase var):
    cdef Tape tape
    cdef Tensor t = var._tensor
    if _n_recording:
        for tape_obj in _tape_stack():
            tape = <Tape>tape_obj
            if tape._recording and ((tape._watch_accessed and var.trainable)
                                    or var._vid in tape._explicit_vars):
                tape._watch_variable_value(var, t)
    if _n_forward:
        _forward_var_hook(var, t)
    if _n_var_watchers:
        for w in _tls.var_watchers:
            w._seen(var)


cdef class Tape:
    """The recording machinery behind ``fe.GradientTape`` (its API: _src/autodiff/tape.py)."""

    def __init__(self, bint persistent=False, bint watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._recording = False
        self._records = []
        self._var_reads = {}
        self._variables = {}
        self._explicit_vars = set()
        self._used = False
        self._entered = False

    def __dealloc__(self):
        _idset_free(&self._watched)

    # -- recording state ----------------------------------------------------------------
    # The context methods live here, in C, rather than in GradientTape: a tape per
    # training step (or per 100 tiny ops) would pay two Python frames for them.
    def __enter__(self):
        self._start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stop()
        return False

    def _push(self):
        self._start()

    def _pop(self):
        self._stop()

    cdef int _start(self) except -1:
        global _n_recording
        if self._entered:
            raise ValueError("GradientTape: this tape is already recording (a tape's "
                             "context can be entered only once at a time)")
        _tape_stack().append(self)
        self._entered = True
        self._recording = True
        _n_recording += 1
        return 0

    cdef int _stop(self) except -1:
        global _n_recording
        cdef list stack = _tape_stack()
        cdef Py_ssize_t i
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is self:
                del stack[i]
                break
        if self._recording:
            _n_recording -= 1
        self._recording = False
        self._entered = False
        return 0

    def _pause(self):
        global _n_recording
        if self._recording:
            self._recording = False
            _n_recording -= 1
            return True
        return False

    def _resume(self):
        global _n_recording
        if self._entered and not self._recording:
            self._recording = True
            _n_recording += 1

    @property
    def _is_recording(self):
        return self._recording

    # -- watching -----------------------------------------------------------------------
    def _watch_tensor(self, Tensor t):
        _idset_add(&self._watched, t._id)

    cdef _watch_variable_value(self, VariableBase var, Tensor t):
        _idset_add(&self._watched, t._id)
        reads = self._var_reads.get(var._vid)
        if reads is None:
            self._var_reads[var._vid] = [t]
            self._variables[var._vid] = var
        elif (<Tensor>reads[-1])._id != t._id:
            reads.append(t)

    def _watch_variable(self, VariableBase var):
        self._explicit_vars.add(var._vid)
        self._watch_variable_value(var, var._tensor)

    def _is_watched(self, Tensor t):
        return _idset_has(&self._watched, t._id)

    def _variable_reads(self, VariableBase var):
        return self._var_reads.get(var._vid, [])

    def _watched_variables(self):
        return tuple(self._variables.values())

    def _reset(self):
        self._records = []
        _idset_free(&self._watched)
        self._var_reads = {}
        self._variables = {}
        self._explicit_vars = set()

    def _free(self):
        self._reset()

    @property
    def _num_records(self):
        return len(self._records)

    # -- the backward pass --------------------------------------------------------------
    def _backward(self, list targets, list seeds, list source_ids):
        """Gradients of sum(seed_i * target_i) w.r.t. the tensors with ids ``source_ids``.

        Returns a dict id -> Tensor (missing when unconnected).
        """
        token = _quiet_enter()
        try:
            return _backward(self._records, targets, seeds, source_ids)
        finally:
            _quiet_exit(token)


cdef dict _backward(list records, list targets, list seeds, list source_ids):
    cdef IdSet reach, keep
    reach.slots = keep.slots = NULL
    reach.capacity = keep.capacity = 0
    reach.used = keep.used = 0
    try:
        return _sweep(records, targets, seeds, source_ids, &reach, &keep)
    finally:
        _idset_free(&reach)
        _idset_free(&keep)


cdef dict _sweep(list records, list targets, list seeds, list source_ids, IdSet *reach,
                 IdSet *keep):
    """The backward pass over ``records``: ``reach`` collects the ids that depend on a
    source, ``keep`` holds the sources' ids (their gradients stay in ``grads``)."""
    cdef Py_ssize_t n = len(records), i, j
    cdef Record rec
    cdef Tensor t, ot
    cdef bytearray relevant = bytearray(n)
    cdef dict grads = {}
    cdef bint any_g
    cdef int64_t oid
    cdef list gs
    cdef object g, prev, ig, needs, in_grads
    for sid in source_ids:
        _idset_add(reach, sid)
        _idset_add(keep, sid)
    # forward sweep: which records lie on a path from a source
    for i in range(n):
        rec = <Record>records[i]
        if _reads_any(rec, reach):
            relevant[i] = 1
            if rec.outs is None:
                _idset_add(reach, rec.out_id)
            else:
                for y in rec.outs:
                    _idset_add(reach, (<Tensor>y)._id)
    for i in range(len(targets)):
        t = <Tensor>targets[i]
        g = seeds[i]
        prev = grads.get(t._id)
        grads[t._id] = g if prev is None else execute(_op_add, (prev, g), None)
    # reverse sweep
    for i in range(n - 1, -1, -1):
        if not relevant[i]:
            continue
        rec = <Record>records[i]
        if rec.outs is None:
            oid = rec.out_id
            g = grads.get(oid) if _idset_has(keep, oid) else grads.pop(oid, None)
            if g is None:
                continue
            gs = [g]
        else:
            any_g = False
            gs = []
            for y in rec.outs:
                oid = (<Tensor>y)._id
                g = grads.get(oid) if _idset_has(keep, oid) else grads.pop(oid, None)
                if g is not None:
                    any_g = True
                gs.append(g)
            if not any_g:
                continue
        if rec.inputs is None:
            rec.inputs = (rec.in0, rec.in1)
        needs = [_idset_has(reach, (<Tensor>x)._id) for x in rec.inputs]
        try:
            # outputs without a gradient get zeros, unless the op's gradient takes None
            # (the fused RNN ops: zeros of every step's gates would cost more than the rest)
            for j in range(len(gs)):
                if gs[j] is None:
                    if rec.op is not None and getattr(rec.op, "none_output_grads", False):
                        break
                    ot = <Tensor>rec.outs[j]
                    gs[j] = _wrap(_zeros_like_array(ot._value))
            if rec.custom is not None:
                in_grads = rec.custom(gs)
            else:
                in_grads = _op_vjp(rec, gs, needs)
        except MemoryError as e:   # a VJP's own NumPy allocation (ops convert theirs)
            if isinstance(e, OpError):
                raise
            raise out_of_memory_error("gradient of %s" % (
                rec.op.name if rec.op is not None else "custom_gradient"), e) from e
        for j in range(len(rec.inputs)):
            if not needs[j]:
                continue
            ig = in_grads[j]
            if ig is None:
                continue
            t = <Tensor>rec.inputs[j]
            if type(ig) is not Tensor:
                ig = convert_to_tensor(ig, t._value.dtype)
            if (<Tensor>ig)._value.shape != t._value.shape:
                raise InternalError(
                    "%s: gradient for input %d has shape %s (expected %s, the input's shape)"
                    % (rec.op.name if rec.op is not None else "custom_gradient", j,
                       (<Tensor>ig)._value.shape, t._value.shape))
            prev = grads.get(t._id)
            grads[t._id] = ig if prev is None else execute(_op_add, (prev, ig), None)
    return {sid: grads[sid] for sid in source_ids if sid in grads}


cdef object _op_vjp(Record rec, list gs, list needs):
    cdef Op op = rec.op
    cdef object g = tuple(gs) if op.multi else gs[0]
    cdef dict attrs = rec.attrs
    cdef list result
    if op._joint_grad is not None:
        return op._joint_grad(g, rec.outputs, rec.inputs, attrs or {}, needs)
    result = [None] * len(rec.inputs)
    for j in range(len(rec.inputs)):
        if needs[j] and j < len(op._grads) and op._grads[j] is not None:
            if attrs:
                result[j] = op._grads[j](g, rec.outputs, *rec.inputs, **attrs)
            else:
                result[j] = op._grads[j](g, rec.outputs, *rec.inputs)
    return result


# ----------------------------------------------------------------------------------------
# Variable watchers (custom_gradient needs to know which variables a function read)
# ----------------------------------------------------------------------------------------
class VariableWatcher:
    """Context manager collecting the variables read inside it (thread-local)."""

    def __init__(self):
        self._vars = {}

    def _seen(self, var):
        self._vars.setdefault(var._var_id, var)

    def __enter__(self):
        global _n_var_watchers
        _tls.var_watchers.append(self)
        _n_var_watchers += 1
        return self

    def __exit__(self, *exc):
        global _n_var_watchers
        _tls.var_watchers.remove(self)
        _n_var_watchers -= 1
        return False

    def watched_variables(self):
        return tuple(self._vars.values())


def set_forward_hooks(op_hook, var_hook, array_escape_hook):
    """_src/autodiff/forward.py registers what runs for each recorded op and watched
    variable read while a forward watcher is active, and the check of NumPy-rules tensors
    given to NumPy."""
    global _forward_op_hook, _forward_var_hook, _array_escape_hook
    _forward_op_hook = op_hook
    _forward_var_hook = var_hook
    _array_escape_hook = array_escape_hook


def _forward_watchers_changed(int delta):
    """A forward watcher started (+1) or stopped (-1) in some thread."""
    global _n_forward, _n_recording
    _n_forward += delta
    _n_recording += delta


def forward_watching():
    return _n_forward > 0


def recording_tapes():
    """The tapes recording in this thread, innermost last."""
    return [t for t in _tape_stack() if (<Tape>t)._recording]


def any_tape_recording():
    return _n_recording > 0
