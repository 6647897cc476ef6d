"""``fe.Variable``: mutable state that tapes watch when it is read.

The value lives in ``VariableBase`` (Cython). Reading a variable inside a tape watches it
(when trainable); assignments validate shape and dtype before writing anything, and write
in place unless someone still holds the old value (then the variable moves to a fresh
buffer): a value saved for a gradient never changes afterwards.
"""
import sys as _sys

import numpy as np

from ... import _core
from ..tracing import tracer as _tracer
from ...dtypes import as_dtype, from_numpy
from ...errors import InvalidArgumentError
from ...ops.array_ops import broadcast_to
from ...ops.indexing_ops import tensor_scatter_nd_update_op
from ...tensor_shape import TensorShape

_name_counts = {}
_on_create = None   # set by fe.distribute inside a multi-worker strategy scope


class Variable(_core.VariableBase):
    """A mutable tensor-like value.

    >>> v = fe.Variable(5., name="weight")
    >>> v.assign_add(1.)
    <fe.Variable 'UnreadVariable' shape=() dtype=float32, numpy=6.0>
    >>> v
    <fe.Variable 'weight:0' shape=() dtype=float32, numpy=6.0>
    """

    __array_priority__ = 100

    def __new__(cls, *args, **kwargs):
        # as in TensorFlow, ``Variable(...)`` makes a ResourceVariable (the eager kind):
        # ``type(v).__name__`` is 'ResourceVariable', ``isinstance(v, Variable)`` holds
        if cls is Variable:
            cls = ResourceVariable
        return super().__new__(cls)

    def __init__(self, initial_value=None, trainable=True, name=None, dtype=None, shape=None,
                 validate_shape=True, caching_device=None, constraint=None,
                 synchronization=None, aggregation=None, import_scope=None):
        if initial_value is None:
            raise ValueError("Variable: initial_value must be given")
        if callable(initial_value):
            initial_value = initial_value()
        t = _core.convert_to_tensor(initial_value, dtype)
        arr = np.array(t._value, order="C", copy=True)   # the variable owns its buffer
        if shape is not None and validate_shape:
            want = TensorShape(shape)
            if want.is_fully_defined() and tuple(want) != arr.shape:
                raise InvalidArgumentError("Variable: initial value has shape %s (expected %s)"
                                           % (list(arr.shape), list(want)))
        self._set_value_array(arr)
        self.trainable = bool(trainable)
        base = name if name else "Variable"
        if base.endswith(":0"):
            base = base[:-2]
        self._name = base + ":0"
        self._constraint = constraint
        if _on_create is not None:
            _on_create(self)

    # -- reading --------------------------------------------------------------------------
    def read_value(self):
        """The current value as a Tensor (watched by recording tapes)."""
        return self._read()

    def value(self):
        return self._read()

    def numpy(self):
        """A copy of the current value (a NumPy scalar for rank 0)."""
        if _core.get_tracer() is not None:
            # inside fe.function a value read as Python data cannot be replayed: the
            # tensor's numpy() tells the trace (the function then runs eagerly)
            return self._read().numpy()
        arr = self._tensor._value
        return arr[()].copy() if arr.ndim == 0 else arr.copy()

    def __fe_tensor__(self):
        return self._read()

    @property
    def name(self):
        return self._name

    @property
    def shape(self):
        return TensorShape(self._tensor._value.shape)

    def get_shape(self):
        return self.shape

    @property
    def dtype(self):
        return from_numpy(self._tensor._value.dtype)

    @property
    def ndim(self):
        return self._tensor._value.ndim

    @property
    def device(self):
        return self._tensor.device

    @property
    def constraint(self):
        return self._constraint

    @property
    def handle(self):
        return self

    # -- writing --------------------------------------------------------------------------
    def _checked_array(self, value, what):
        current = self._tensor._value
        if type(value) is np.ndarray and value.dtype == current.dtype:
            # an array of the right dtype is copied once, into the variable (no temporary)
            self._check_shape(value.shape, what)
            return value
        try:
            t = _core.convert_to_tensor(value, current.dtype)
        except InvalidArgumentError as e:
            raise InvalidArgumentError("%s: variable %r has dtype %s; %s"
                                       % (what, self._name, current.dtype, e)) from None
        arr = t._value
        self._check_shape(arr.shape, what)
        return arr

    def _check_shape(self, shape, what):
        want = self._tensor._value.shape
        if shape == want:
            return
        # TensorFlow checks assign's shape in Python (ValueError) and leaves assign_add and
        # assign_sub to the kernel (InvalidArgumentError); each keeps its class here
        if what == "assign":
            # (TensorFlow's text, its missing space after "mismatch." included)
            raise ValueError("Cannot assign value to variable ' %s': Shape mismatch.The "
                             "variable shape %s, and the assigned value shape %s are "
                             "incompatible." % (self._name, want, tuple(shape)))
        raise InvalidArgumentError(
            "%s: cannot update variable %r with shape %s using a tensor with shape %s, shapes "
            "must be equal" % (what, self._name, list(want), list(shape)))

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Set the value (same shape and dtype).

        Returns, as TensorFlow does (eagerly and inside ``fe.function``), a view of this
        variable named ``'UnreadVariable'`` that reads its value when used (None with
        ``read_value=False``).
        """
        if _core.get_tracer() is not None:   # inside fe.function: a graph step too
            _tracer.record_assign(self, "assign", value)
            return _UnreadVariable(self) if read_value else None
        arr = self._checked_array(value, "assign")
        np.copyto(self._mutable_array(), arr)
        return _UnreadVariable(self) if read_value else None

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """Add ``delta`` in place. Returns what ``assign`` returns."""
        if _core.get_tracer() is not None:   # inside fe.function: a graph step too
            _tracer.record_assign(self, "assign_add", delta)
            return _UnreadVariable(self) if read_value else None
        arr = self._checked_array(np.broadcast_to(np.asarray(delta), self._tensor._value.shape)
                                  if np.ndim(delta) == 0 else delta, "assign_add")
        dst = self._mutable_array()
        np.add(dst, arr, out=dst)
        return _UnreadVariable(self) if read_value else None

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """Subtract ``delta`` in place. Returns what ``assign`` returns."""
        if _core.get_tracer() is not None:   # inside fe.function: a graph step too
            _tracer.record_assign(self, "assign_sub", delta)
            return _UnreadVariable(self) if read_value else None
        arr = self._checked_array(np.broadcast_to(np.asarray(delta), self._tensor._value.shape)
                                  if np.ndim(delta) == 0 else delta, "assign_sub")
        dst = self._mutable_array()
        np.subtract(dst, arr, out=dst)
        return _UnreadVariable(self) if read_value else None

    # -- Python protocol ------------------------------------------------------------------
    def __repr__(self):
        return _variable_repr(self._name, self._tensor._value)

    __str__ = __repr__

    def __format__(self, spec):
        return format(self._tensor, spec)

    def __array__(self, dtype=None, copy=None):
        if _core.get_tracer() is not None:      # (see numpy())
            return np.asarray(self._read().numpy(), dtype=dtype)
        arr = self._tensor._value
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy()

    def __bool__(self):
        return bool(self._read())

    def __int__(self):
        return int(self._read())

    def __float__(self):
        return float(self._read())

    def __index__(self):
        return self._read().__index__()

    def __len__(self):
        return len(self._tensor)

    def __iter__(self):
        return iter(self._read())

    def __getitem__(self, key):
        t = self._read()[key]
        if _is_mask(key):       # TensorFlow's boolean_mask path: a plain tensor
            return t
        t = _core.as_subclass(t, _SliceOfVariable)
        t._source = self
        t._slice_key = _core.normalize_index(key)
        return t

    def _assign_slice(self, key, value):
        """``self[key].assign(value)``: write that slice (TensorFlow's
        strided_slice_assign); ``value`` broadcasts to the slice's shape."""
        current = self._tensor._value
        if isinstance(value, (_core.Tensor, _core.VariableBase)) and \
                np.dtype(value.dtype.as_numpy_dtype) != current.dtype:
            # (TensorFlow's class and text)
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                             % (from_numpy(current.dtype).name, value.dtype.name, value))
        try:
            u = _core.convert_to_tensor(value, current.dtype)
        except InvalidArgumentError:
            raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                            % (value, from_numpy(current.dtype).name)) from None
        # the slice's shape, from a zero-size view of the variable's shape
        want = np.broadcast_to(np.empty((), np.bool_), current.shape)[key].shape
        have = u._value.shape
        if len(have) > len(want) or any(h not in (1, w) for h, w in
                                        zip(have[::-1], want[::-1])):
            raise InvalidArgumentError(     # (TensorFlow's words)
                "strided_slice_assign: Cannot broadcast input shape [%s] into final shape "
                "[%s] (variable %r of shape %s)" % (",".join(map(str, have)),
                                                    ",".join(map(str, want)), self._name,
                                                    list(current.shape)))
        if _core.get_tracer() is not None:
            # inside fe.function: the new value as graph ops, written by assign
            if have != want:
                u = broadcast_to(u, want)
            return Variable.assign(self, _core.execute(tensor_scatter_nd_update_op,
                                                       (self._read(), u), {"key": key}))
        self._mutable_array()[key] = u._value
        return _UnreadVariable(self)

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        if other is None:
            return False
        return self._read() == other

    def __ne__(self, other):
        if other is None:
            return True
        return self._read() != other

    def __neg__(self):
        return -self._read()

    def __pos__(self):
        return self._read()

    def __abs__(self):
        return abs(self._read())

    def __invert__(self):
        return ~self._read()

    def __deepcopy__(self, memo):
        v = Variable(self.numpy(), trainable=self.trainable, name=self._name[:-2])
        memo[id(self)] = v
        return v


class ResourceVariable(Variable):
    """The class of the variables ``Variable(...)`` makes (TensorFlow's eager variables
    are ResourceVariables); nothing of its own."""


def _operator(name):
    def method(self, other):
        return getattr(self._read(), name)(other)
    method.__name__ = name
    return method


for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
              "rfloordiv", "mod", "rmod", "pow", "rpow", "matmul", "rmatmul", "and", "rand",
              "or", "ror", "xor", "rxor", "lt", "le", "gt", "ge"):
    setattr(Variable, "__%s__" % _name, _operator("__%s__" % _name))
del _name


def _variable_repr(name, arr):
    return "<fe.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (
        name, TensorShape(arr.shape), from_numpy(arr.dtype).name, _core._repr_numpy(arr))


def _is_mask(key):
    """Whether an index selects by a boolean mask (TensorFlow then indexes with
    boolean_mask, whose result has no ``assign``)."""
    if isinstance(key, bool):
        return True
    dtype = getattr(key, "dtype", None)
    return dtype is not None and np.dtype(getattr(dtype, "as_numpy_dtype", dtype)) == np.bool_


class _SliceOfVariable(_core.Tensor):
    """What indexing a variable returns: its value there, as a tensor that remembers the
    variable and the index, so ``assign`` writes that slice of the variable (TensorFlow's
    strided_slice_assign) and returns what ``Variable.assign`` returns. As in TensorFlow it
    has no ``assign_add``/``assign_sub``, and a tensor computed from it has no ``assign``.
    """

    __slots__ = ("_source", "_slice_key")

    def assign(self, val, name=None):
        return self._source._assign_slice(self._slice_key, val)


class _UnreadVariable:
    """What ``assign`` returns in eager TensorFlow: the assigned variable under the name
    ``'UnreadVariable'``, read each time it is used (a later assignment shows through it).

    Every attribute and operator is the variable's own; only the name and printing differ.
    Ops, conversions and tapes read the variable it stands for; inside ``fe.function`` that
    read is a step after the write. Unlike TensorFlow's, it is not itself an instance of
    ``fe.Variable`` (``is_variable`` says False).
    """

    __slots__ = ("_variable",)
    __array_priority__ = 100

    def __init__(self, variable):
        self._variable = variable

    @property
    def name(self):
        return "UnreadVariable"

    def __getattr__(self, attr):
        return getattr(self._variable, attr)

    def __repr__(self):
        return _variable_repr("UnreadVariable", self._variable._tensor._value)

    __str__ = __repr__

    # nest's composite protocol (``expand_composites=True``): its one component is the
    # variable, and it packs back as that component. An ``fe.function`` that returns what
    # ``assign`` returned thus reads the variable at that point of every replay and
    # returns a tensor, as a TensorFlow function does.
    def _to_components(self):
        return [self._variable]

    def _from_components(self, components):
        return components[0]


def _forward(name):
    def method(self, *args, **kwargs):
        return getattr(self._variable, name)(*args, **kwargs)
    method.__name__ = name
    return method


for _name in [k for k, v in vars(Variable).items()
              if k.startswith("__") and callable(v) and k not in (
                  "__init__", "__new__", "__repr__", "__str__", "__getattr__",
                  "__deepcopy__")]:
    setattr(_UnreadVariable, _name, _forward(_name))
del _name


def _execute_on_variable(op, args, attrs):
    # an op given what assign returned reads the variable it stands for
    return _core.execute(op, tuple(a._variable if type(a) is _UnreadVariable else a
                                   for a in args), attrs)


_core.register_dispatch(_UnreadVariable, _execute_on_variable)


def is_variable(x):
    return isinstance(x, _core.VariableBase)


__all__ = ["Variable", "as_dtype", "is_variable"]

# The classes keep the module name they had before the move to fasteager._src: it is
# what their repr and saved references (pickles) show, so that name still imports, as
# this module (fe.variables, the attribute, warns: see the package root).
for _cls in (Variable, ResourceVariable, _SliceOfVariable, _UnreadVariable):
    _cls.__module__ = "fasteager.variables"
del _cls
_sys.modules.setdefault("fasteager.variables", _sys.modules[__name__])
