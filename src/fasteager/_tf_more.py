"""TensorFlow 2's smaller top-level names: tensor predicates and graph-era no-ops, shape
helpers, a few arithmetic variants, global-norm clipping, ``numpy_function``, and the
enums code passes to variables and optimizers.

Everything here composes existing fasteager ops, so it records on tapes and traces in
``fe.function`` like any other code. Graph-era names (``group``, ``no_op``,
``control_dependencies``, ``tuple``) do what TensorFlow's do eagerly: fasteager runs
every op in program order, inside a trace too, so control dependencies hold by
construction. ``tf.gradients``/``tf.hessians`` are graph-mode APIs: they raise
TensorFlow's eager RuntimeError everywhere (fasteager never builds a TF graph).
The functional control flow (``foldl``, ``scan``, ``case`` ...) is in
``_src/tracing/functional.py``, the initializer objects in ``_src/initializers.py``.
"""
import builtins
import contextlib
import enum
import time as _time

import numpy as np

from . import _core, nest

from .dtypes import as_dtype
from .errors import InvalidArgumentError
from .ops.elementwise_ops import scalar_mul  # noqa: F401  (tf.scalar_mul is tf.math's)
from .ops.sequence_ops import (batch_to_space, parallel_stack, reverse_sequence,  # noqa: F401
                               roll, sequence_mask, space_to_batch, space_to_batch_nd)
from .ops.indexing_ops import dynamic_partition, dynamic_stitch, unravel_index  # noqa: F401
from .ops.segment_ops import histogram_fixed_width, histogram_fixed_width_bins  # noqa: F401
from .ops.sort_ops import searchsorted, unique, unique_with_counts  # noqa: F401
from .tensor_shape import TensorShape

Tensor = _core.Tensor
VariableBase = _core.VariableBase

__all__ = ["AggregationMethod", "IndexedSlices", "TypeSpec", "VariableAggregation",
           "VariableSynchronization", "as_string", "broadcast_dynamic_shape",
           "broadcast_static_shape", "clip_by_global_norm", "control_dependencies",
           "ensure_shape", "fingerprint", "get_current_name_scope", "get_static_value", "gradients", "group",
           "hessians", "identity_n", "inside_function", "is_symbolic_tensor", "is_tensor",
           "no_op", "numpy_function", "realdiv", "saturate_cast", "shape_n",
           "timestamp", "truncatediv", "truncatemod", "tuple"]


# ---- predicates ---------------------------------------------------------------------------

def _composites():
    from .ragged import RaggedTensor
    from .sparse import SparseTensor
    return (RaggedTensor, SparseTensor, IndexedSlices)


def is_tensor(x):
    """Whether ``x`` is a tensor-like value (a Tensor, Variable, RaggedTensor, SparseTensor
    or IndexedSlices), not a NumPy array or Python value."""
    return isinstance(x, (Tensor, VariableBase) + _composites()) or \
        bool(getattr(x, "is_tensor_like", False))


def inside_function():
    """True while ``fe.function`` traces a Python function (TF: building a graph)."""
    return _core.get_tracer() is not None


def _register(tracer, t):
    """``t``'s register in ``tracer`` or a parent trace, looked up without capturing it."""
    while tracer is not None:
        r = tracer.slots.get(t._id)
        if r is None:
            r = tracer.array_slots.get(id(t._value))
        if r is not None:
            return tracer, r
        tracer = tracer.parent
    return None, None


def is_symbolic_tensor(tensor):
    """Whether ``tensor`` is a graph tensor: one of a trace of ``fe.function`` (an input, or
    computed from inputs or variables while tracing), or one that leaked out of a trace."""
    if isinstance(tensor, VariableBase) or not isinstance(tensor, Tensor):
        return False
    if isinstance(tensor._value, _core._Unusable):
        return True
    owner, r = _register(_core.get_tracer(), tensor)
    return owner is not None and r in owner.dep


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` as a NumPy array when it is known without running the
    function (always, eagerly), else None: inside ``fe.function``, a tensor computed from
    the inputs or variables. A variable gives None, a non-tensor comes back as it is.

    >>> fe.get_static_value(fe.constant([1, 2]))
    array([1, 2], dtype=int32)
    """
    if isinstance(tensor, VariableBase):
        return None
    if not isinstance(tensor, Tensor):
        return tensor
    if isinstance(tensor._value, _core._Unusable):
        return None
    owner, r = _register(_core.get_tracer(), tensor)
    if owner is not None and r in owner.dep:
        return None
    return tensor.numpy()


def get_current_name_scope():
    """The current ``fe.name_scope`` path, ``'a/b'`` (``''`` at the top level)."""
    from ._src.state.module import _current_scope
    return _current_scope().rstrip("/")


# ---- graph-era names: eager meanings --------------------------------------------------------

def no_op(name=None):
    """Does nothing (TensorFlow's eager ``tf.no_op`` returns None)."""
    return


def group(*inputs, **kwargs):
    """Returns None, as TensorFlow's eager ``tf.group``: the ops named have already run."""
    bad = set(kwargs) - {"name"}
    if bad:
        raise TypeError("group: unknown keyword arguments: %s" % ", ".join(sorted(bad)))


def identity_n(input, name=None):
    """``fe.identity`` of each of ``input`` (a list of tensors)."""
    from .ops.array_ops import identity
    return [identity(x) for x in input]


def tuple(tensors, name=None, control_inputs=None):
    """The ``tensors`` (None entries kept) after every one of them is computed: a list of
    identities, as TensorFlow returns them (eager ops are already computed)."""
    from .ops.array_ops import identity
    _run_callables(control_inputs)
    return [None if t is None else identity(t) for t in tensors]


def _run_callables(control_inputs):
    for c in control_inputs or ():
        if callable(c):
            c()


@contextlib.contextmanager
def control_dependencies(control_inputs):
    """A context manager in which ops run after ``control_inputs``: fasteager runs ops in
    program order (inside ``fe.function`` too), so it only calls the callables among them,
    as TensorFlow's eager ``control_dependencies`` does."""
    if control_inputs is not None and not isinstance(control_inputs, (list, builtins.tuple)):
        raise TypeError("control_dependencies: control_inputs must be a list of tensors or "
                        "operations (got %s)" % type(control_inputs).__name__)
    _run_callables(control_inputs)
    yield


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None,
              unconnected_gradients=None):
    """TensorFlow's graph-mode ``tf.gradients``: fasteager is always eager, so this raises
    TensorFlow's eager RuntimeError (inside ``fe.function`` too); use ``fe.GradientTape``."""
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use "
                       "tf.GradientTape instead.")


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """Graph-mode ``tf.hessians``: raises as ``gradients`` does; use nested GradientTapes."""
    return gradients(ys, xs)


# ---- shapes ---------------------------------------------------------------------------------

def ensure_shape(x, shape, name=None):
    """``x`` itself after checking that its shape is compatible with ``shape`` (None: any
    size); an InvalidArgumentError (a ValueError) otherwise."""
    from .ops.array_ops import identity
    t = x._read() if isinstance(x, VariableBase) else _core.convert_to_tensor(x)
    want = TensorShape(shape)
    got = TensorShape(t._value.shape)
    if not want.is_compatible_with(got):
        raise InvalidArgumentError("ensure_shape: shape of tensor %s is not compatible with "
                                   "expected shape %s" % (_dims(got), _dims(want)))
    return identity(t)


def _dims(shape):
    if shape.rank is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


def shape_n(input, out_type=np.int32, name=None):
    """``fe.shape`` of each tensor in ``input``."""
    from .ops.array_ops import shape
    return [shape(x, out_type=out_type) for x in input]


def _broadcast_dims(a, b):
    """NumPy's broadcast of two dimension lists (None: unknown), or None if incompatible."""
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + list(a)
    b = [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1 or x is None:
            out.append(y)
        elif y is None:
            out.append(x)
        else:
            return None
    return out


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes (unknown dimensions stay unknown unless the other
    is known and not 1); ValueError if they are incompatible."""
    sx, sy = TensorShape(shape_x), TensorShape(shape_y)
    if sx.rank is None or sy.rank is None:
        return TensorShape(None)
    out = _broadcast_dims(sx.as_list(), sy.as_list())
    if out is None:
        raise ValueError("broadcast_static_shape: incompatible shapes for broadcasting. Two "
                         "shapes are compatible if for each dimension pair they are either "
                         "equal or one of them is 1. Received: %s and %s."
                         % (builtins.tuple(sx.as_list()), builtins.tuple(sy.as_list())))
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shapes given as 1-D integer tensors (or lists), as a tensor of
    their dtype; InvalidArgumentError if they are incompatible.

    >>> fe.broadcast_dynamic_shape([2, 1, 3], [4, 1]).numpy()
    array([2, 4, 3], dtype=int32)
    """
    tx = _core.convert_to_tensor(shape_x)
    ty = _core.convert_to_tensor(shape_y, tx.dtype)
    if tx.dtype.name not in ("int32", "int64"):
        raise InvalidArgumentError("broadcast_dynamic_shape: shapes must be int32 or int64 "
                                   "(got %s)" % tx.dtype.name)
    a = _core.data_of(tx, "broadcast_dynamic_shape")
    b = _core.data_of(ty, "broadcast_dynamic_shape")
    if a.ndim != 1 or b.ndim != 1:
        raise InvalidArgumentError("broadcast_dynamic_shape: shapes must be 1-D (got ranks "
                                   "%d and %d)" % (a.ndim, b.ndim))
    out = _broadcast_dims(a.tolist(), b.tolist())
    if out is None:
        raise InvalidArgumentError("broadcast_dynamic_shape: incompatible shapes: [%s] vs. [%s]"
                                   % (",".join(map(str, a.tolist())),
                                      ",".join(map(str, b.tolist()))))
    return _core.wrap(np.asarray(out, dtype=a.dtype))


# ---- arithmetic -----------------------------------------------------------------------------

def realdiv(x, y, name=None):
    """``x / y`` for floating-point (or complex) tensors of one dtype."""
    from .ops.elementwise_ops import convert_same, truediv
    a, b = convert_same(x, y)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        raise InvalidArgumentError("realdiv: expects floating-point or complex tensors (got "
                                   "%s)" % a.dtype.name)
    return truediv(a, b)


def _integer_zero_check(opname, b):
    if b.dtype.is_integer:
        d = _core.data_of(b, opname)
        if np.any(d == 0):
            raise InvalidArgumentError("%s: integer division by zero" % opname)


def truncatediv(x, y, name=None):
    """``x / y`` rounded toward zero (C's integer division): ``truncatediv(-7, 2) == -3``."""
    from .ops.elementwise_ops import abs as fe_abs
    from .ops.elementwise_ops import convert_same, floor, floordiv, multiply, sign, truediv
    a, b = convert_same(x, y)
    if a.dtype.is_integer:
        _integer_zero_check("truncatediv", b)
        return multiply(multiply(sign(a), sign(b)), floordiv(fe_abs(a), fe_abs(b)))
    if not a.dtype.is_floating:
        raise InvalidArgumentError("truncatediv: expects numbers (got %s)" % a.dtype.name)
    q = truediv(a, b)
    return multiply(sign(q), floor(fe_abs(q)))


def truncatemod(x, y, name=None):
    """The remainder of ``truncatediv``: it has the sign of ``x`` (C's ``fmod``)."""
    from .ops.elementwise_ops import convert_same, multiply, subtract
    a, b = convert_same(x, y)
    return subtract(a, multiply(truncatediv(a, b), b))


def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype``, clamped to its range first (NaN becomes 0 for integers).

    >>> fe.saturate_cast([-300., 5.7, 300.], fe.uint8).numpy()
    array([  0,   5, 255], dtype=uint8)
    """
    from .ops.array_ops import zeros_like
    from .ops.elementwise_ops import cast, clip_by_value, is_nan, where
    x = _core.convert_to_tensor(value)
    d = as_dtype(dtype)
    src = x.dtype.as_numpy_dtype
    dst = d.as_numpy_dtype
    if x.dtype == d:
        return x
    if np.dtype(src).kind in "fiu" and np.dtype(dst).kind in "fiu":
        info = np.iinfo if np.dtype(dst).kind in "iu" else np.finfo
        lo, hi = info(dst).min, info(dst).max
        src_info = np.iinfo if np.dtype(src).kind in "iu" else np.finfo
        smin, smax = src_info(src).min, src_info(src).max
        lo_in = None if lo <= smin else np.asarray(lo).astype(src)
        hi_in = None if hi >= smax else np.asarray(hi).astype(src)
        if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu":
            # the largest src value that does not exceed hi (float(2**31-1) rounds up)
            while hi_in is not None and float(hi_in) > hi:
                hi_in = np.nextafter(hi_in, np.asarray(-np.inf, src)).astype(src)
            x = where(is_nan(x), zeros_like(x), x)
        if lo_in is not None or hi_in is not None:
            x = clip_by_value(x, smin if lo_in is None else lo_in,
                              smax if hi_in is None else hi_in)
    return cast(x, d)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``, where
    ``global_norm`` is the L2 norm of all of them together; returns
    ``(list_clipped, global_norm)``. None entries stay None; an infinite norm gives NaNs,
    as in TensorFlow.

    >>> clipped, norm = fe.clip_by_global_norm([fe.constant([3., 4.])], 1.0)
    >>> float(norm)
    5.0
    """
    from .ops.elementwise_ops import (add_n, cast, is_finite, minimum, multiply, sqrt, square,
                                      truediv, where)
    from .ops.reduction_ops import reduce_sum
    if not isinstance(t_list, (list, builtins.tuple)) or isinstance(t_list, str):
        raise TypeError("clip_by_global_norm: t_list should be a sequence of tensors (got %s)"
                        % type(t_list).__name__)
    ts = [None if t is None else
          (t._read() if isinstance(t, VariableBase) else _core.convert_to_tensor(t))
          for t in t_list]
    present = [t for t in ts if t is not None]
    if use_norm is None:
        if not present:
            raise InvalidArgumentError("clip_by_global_norm: t_list holds no tensor")
        squares = [reduce_sum(square(cast(t, present[0].dtype))) for t in present]
        global_norm = sqrt(add_n(squares))
    else:
        global_norm = _core.convert_to_tensor(use_norm)
    dtype = global_norm.dtype
    c = _core.convert_to_tensor(clip_norm, dtype)
    one = np.asarray(1.0, dtype.as_numpy_dtype)
    scale = multiply(c, minimum(truediv(one, global_norm), truediv(one, c)))
    # an infinite (or NaN) norm makes every entry NaN, as in TensorFlow
    scale = where(is_finite(global_norm), scale, np.asarray(np.nan, dtype.as_numpy_dtype))
    clipped = [None if t is None else multiply(t, cast(scale, t.dtype)) for t in ts]
    return clipped, global_norm


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None):
    """``fe.strings.as_string``: each entry as a string."""
    from .strings import as_string as strings_as_string
    return strings_as_string(input, precision=precision, scientific=scientific,
                             shortest=shortest, width=width, fill=fill)


def timestamp(name=None):
    """The current time in seconds since the epoch, a float64 scalar; inside ``fe.function``
    it is read again on every call."""
    from ._src.tracing.py_function import py_function
    if _core.get_tracer() is None:
        return _core.wrap(np.asarray(_time.time(), np.float64))
    return py_function(lambda: np.asarray(_time.time(), np.float64), [], np.float64)


def fingerprint(data, method="farmhash64", name=None):
    """A uint8 tensor of shape ``(len(data), 8)``: the little-endian FarmHash64 fingerprint
    of each row of ``data`` (its entries' little-endian bytes; a row of strings: of the
    string, or of the fingerprints of its strings), bit-exact with TensorFlow's."""
    from ._src.composite.farmhash import fingerprint64
    if method != "farmhash64":
        raise InvalidArgumentError("fingerprint: unsupported method %r (expected "
                                   "'farmhash64')" % (method,))
    t = _core.convert_to_tensor(data)
    arr = _core.data_of(t, "fingerprint")
    if arr.ndim == 0:
        raise InvalidArgumentError("fingerprint: data should have at least one dimension "
                                   "(got a scalar)")
    rows = arr.reshape(arr.shape[0], -1)
    if arr.dtype == object:
        def row_hash(row):
            hashes = [fingerprint64(b if isinstance(b, bytes) else str(b).encode())
                      for b in row]
            if len(hashes) == 1:
                return hashes[0]
            return fingerprint64(np.asarray(hashes, "<u8").tobytes())
    else:
        rows = rows.astype(rows.dtype.newbyteorder("<"), copy=False)

        def row_hash(row):
            return fingerprint64(np.ascontiguousarray(row).tobytes())
    hashes = np.asarray([row_hash(r) for r in rows], "<u8").reshape(-1)
    return _core.wrap(hashes.view(np.uint8).reshape(arr.shape[0], 8))


# ---- numpy_function -------------------------------------------------------------------------

def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Call ``func`` on the NumPy values of ``inp`` and return its results as tensors of
    ``Tout`` (a dtype, a list of dtypes, or None), also inside ``fe.function``, where it
    runs on every call. Not differentiable: gradients through it are None. A NumPy array
    returned keeps its dtype (TensorFlow's eager behaviour); Python values take ``Tout``'s.
    Without ``func`` it is a decorator.

    >>> fe.numpy_function(lambda a: a * 2, [fe.constant([1., 2.])], fe.float32).numpy()
    array([2., 4.], dtype=float32)
    """
    import functools

    from .ops.array_ops import stop_gradient
    from ._src.tracing.py_function import py_function
    if func is None:
        return lambda f: numpy_function(f, inp, Tout, stateful, name)
    if inp is None:
        @functools.wraps(func)
        def decorated(*args):
            return numpy_function(func, list(args), Tout, stateful, name)
        return decorated
    leaves = inp if isinstance(inp, (list, builtins.tuple)) else [inp]
    flat = [stop_gradient(x._read() if isinstance(x, VariableBase)
                          else _core.convert_to_tensor(x)) for x in nest.flatten(list(leaves))]
    dtypes = Tout if isinstance(Tout, (list, builtins.tuple)) else [Tout]

    def on_arrays(*tensors):
        args = nest.pack_sequence_as(list(leaves), [t.numpy() for t in tensors])
        result = func(*args)
        if Tout is None:
            return result
        results = list(result) if isinstance(Tout, (list, builtins.tuple)) else [result]
        if len(results) != len(dtypes):
            raise ValueError("numpy_function %s: func returned %d values (expected %d, one per "
                             "Tout entry)" % (name or getattr(func, "__name__", "func"),
                                              len(results), len(dtypes)))
        out = [_core.convert_to_tensor(r) if isinstance(r, np.ndarray)
               else _core.convert_to_tensor(r, as_dtype(d)) for r, d in zip(results, dtypes)]
        return out if isinstance(Tout, (list, builtins.tuple)) else out[0]

    if Tout is None:
        py_function(on_arrays, flat, None, name)
        return None
    if _core.get_tracer() is None:
        return on_arrays(*flat)
    # a trace's step has Tout's dtypes: py_function checks them
    return py_function(on_arrays, flat, Tout, name or getattr(func, "__name__", "func"))


# ---- enums and types --------------------------------------------------------------------------

class VariableAggregation(enum.Enum):
    """How a distributed variable's per-replica updates combine (TF's
    ``tf.VariableAggregation``)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas are synchronized
    (``tf.VariableSynchronization``)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class AggregationMethod:
    """How gradients of one tensor used several times are summed (``tf.AggregationMethod``);
    fasteager's tapes always add them as they come, which all methods give up to rounding."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def _spec_classes():
    from .data.structure import TensorSpec
    from ._src.composite.extension_type import ExtensionTypeSpec
    from .ragged import RaggedTensorSpec
    from .sparse import SparseTensorSpec
    return (TensorSpec, RaggedTensorSpec, SparseTensorSpec, ExtensionTypeSpec)


class _TypeSpecMeta(type):
    # the spec classes live in modules that predate TypeSpec: they count as its subclasses
    def __instancecheck__(cls, value):
        return type.__instancecheck__(cls, value) or isinstance(value, _spec_classes())

    def __subclasscheck__(cls, sub):
        return type.__subclasscheck__(cls, sub) or issubclass(sub, _spec_classes())


class TypeSpec(metaclass=_TypeSpecMeta):
    """The base type of the specs that describe values (``tf.TypeSpec``): ``fe.TensorSpec``,
    ``fe.RaggedTensorSpec``, ``fe.SparseTensorSpec`` and extension types' specs count as
    its subclasses, so ``isinstance(fe.TensorSpec([2]), fe.TypeSpec)`` holds."""


class IndexedSlices:
    """Some rows of a dense tensor of shape ``dense_shape``: ``values[i]`` is row
    ``indices[i]`` (rows named twice add up), as ``tf.IndexedSlices``. ``to_dense()`` gives
    the dense tensor, differentiably; NumPy and ``fe.convert_to_tensor`` densify it through
    ``__array__`` (as a constant)."""

    def __init__(self, values, indices, dense_shape=None):
        self.values = _core.convert_to_tensor(values)
        self.indices = _core.convert_to_tensor(indices)
        if self.indices.dtype.name not in ("int32", "int64"):
            raise InvalidArgumentError("IndexedSlices: indices must be int32 or int64 (got %s)"
                                       % self.indices.dtype.name)
        self.dense_shape = None if dense_shape is None else _core.convert_to_tensor(
            dense_shape, self.indices.dtype)

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def shape(self):
        if self.dense_shape is None:
            return TensorShape([None] + list(self.values.shape)[1:])
        return TensorShape(self.dense_shape.numpy().tolist())

    def to_dense(self):
        """The dense tensor (differentiable in ``values``)."""
        from .ops.segment_ops import unsorted_segment_sum
        if self.dense_shape is None:
            raise ValueError("IndexedSlices: to_dense needs a dense_shape")
        n = int(self.dense_shape.numpy()[0])
        return unsorted_segment_sum(self.values, self.indices, n)

    def __array__(self, dtype=None, copy=None):
        arr = self.to_dense().numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __repr__(self):
        return "IndexedSlices(indices=%s, values=%s%s)" % (
            self.indices, self.values,
            "" if self.dense_shape is None else ", dense_shape=%s" % self.dense_shape)
