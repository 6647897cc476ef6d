"""Keras 3 names of the variables Keras objects create.

A Keras weight's ``name`` is its own (``'kernel'``, no ``':0'``) and its ``path`` the name
scopes it was created under, outermost first: the layers being called when it was built
(``'sequential/dense/kernel'``; a layer built on its own gives ``'dense/kernel'``), or the
optimizer that owns a slot (``'adam/iteration'``). Plain ``fe.Variable``s keep
TensorFlow's names (``'Variable:0'``) and have no ``path``, as ``tf.Variable``.

The scope stack is per thread; ``Layer.__call__`` enters its layer's scope with
``enter``/``leave`` (a list append and pop: it runs on every call).
"""
import threading

import numpy as np

from .._src.state.variables import Variable, _UnreadVariable
from ..ops.elementwise_ops import cast
from . import backend

_state = threading.local()


def _scopes():
    stack = getattr(_state, "scopes", None)
    if stack is None:
        stack = _state.scopes = []
    return stack


def enter(owner, name):
    """Enter ``owner``'s scope ``name``; False (nothing entered) when it is already the
    innermost, as when a layer's call builds it."""
    stack = _scopes()
    if stack and stack[-1][0] is owner:
        return False
    stack.append((owner, name))
    return True


def leave():
    _scopes().pop()


def build_in_scope(layer, input_shape):
    """``layer.build(input_shape)`` under the layer's scope (a wrapper building the layer
    it wraps: Keras 3 gives 'bidirectional/forward_gru/gru_cell/kernel')."""
    scoped = enter(layer, layer.name)
    try:
        layer.build(input_shape)
    finally:
        if scoped:
            leave()


def path_for(owner, owner_name, name):
    """The path of variable ``name`` made by ``owner``: the open scopes, then the owner's."""
    stack = _scopes()
    parts = [n for _, n in stack]
    if not stack or stack[-1][0] is not owner:
        parts.append(owner_name)
    parts.append(name)
    return "/".join(p for p in parts if p)     # (a layer named "" adds no level, as Keras)


class KerasVariable(Variable):
    """A ``fe.Variable`` named as Keras 3 names its variables (``name`` and ``path``)."""

    # Keras 3's signature (``keras.Variable`` is this class): the initializer may be a
    # value or a callable ``initializer(shape, dtype)``, which then needs ``shape``.
    def __init__(self, initializer, shape=None, dtype=None, trainable=True, autocast=True,
                 aggregation="none", synchronization="auto", name=None, path=None,
                 constraint=None):
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             "`/`. Received: name=%s" % (name,))
        if callable(initializer):
            if shape is None:
                raise ValueError("When creating a Variable from an initializer, the `shape` "
                                 "argument should be specified. Received: initializer=%s "
                                 "and shape=None" % (initializer,))
            initializer = initializer(tuple(shape), dtype=dtype or backend.floatx())
        if name is None:                          # a user's unnamed keras.Variable
            name = backend.unique_name("variable")
        super().__init__(initializer, trainable=trainable, name=name, dtype=dtype,
                         constraint=constraint)
        if shape is not None and tuple(self.shape) != tuple(shape):
            raise ValueError("Initial value has shape %s, but the variable was given "
                             "shape=%s" % (tuple(self.shape), tuple(shape)))
        self._autocast = bool(autocast)
        self._name = name                         # Keras 3: no ':0'
        if path is None:                          # under keras.name_scope: its path
            prefix = "/".join(n for o, n in _scopes() if isinstance(o, name_scope) and n)
            path = prefix + "/" + name if prefix else name
        self._path = path

    @property
    def autocast(self):
        return self._autocast

    # Keras 3: ``v.value`` is a property (the current value; TensorFlow's ``value()`` method
    # is not there on a Keras variable)
    @property
    def value(self):
        return self._read()

    @property
    def path(self):
        return self._path

    def __repr__(self):
        # Keras 3's form: <Variable path=dense/kernel, shape=(2, 3), dtype=float32, value=...>
        arr = self._tensor._value
        return "<Variable path=%s, shape=%s, dtype=%s, value=%s>" % (
            self._path, tuple(arr.shape), self.dtype.name, np.asarray(arr))

    __str__ = __repr__

    # Keras 3's assign methods return the new value as a tensor (not TensorFlow's
    # 'UnreadVariable')
    def assign(self, value, *args, **kwargs):
        return _as_value(super().assign(value, *args, **kwargs))

    def assign_add(self, delta, *args, **kwargs):
        return _as_value(super().assign_add(delta, *args, **kwargs))

    def assign_sub(self, delta, *args, **kwargs):
        return _as_value(super().assign_sub(delta, *args, **kwargs))

    def __deepcopy__(self, memo):
        v = KerasVariable(self.numpy(), trainable=self.trainable, name=self._name,
                          path=self._path)
        memo[id(self)] = v
        return v


class _Autocast(threading.local):
    dtype = None     # the float dtype AutocastVariables read as (None: their own)


# set by Layer.__call__ around a mixed-precision layer's call (Keras's AutocastScope)
AUTOCAST = _Autocast()


class AutocastVariable(KerasVariable):
    """A mixed-precision layer's float weight: stored in its own dtype (float32), read
    as ``AUTOCAST.dtype`` (the layer's compute dtype, float16) inside the layer's call, so
    the computation runs in float16 and the gradient reaches the float32 variable."""

    def _read(self):
        value = KerasVariable._read(self)
        dtype = AUTOCAST.dtype
        if dtype is not None and dtype != value.dtype:
            return cast(value, dtype)
        return value



class name_scope:
    """``keras.name_scope(name)``: Keras 3 variables and layer weights created inside get
    ``name/`` in their path. ``deduplicate`` (the default) skips re-entering the innermost
    scope of the same name opened by the same ``caller``; ``override_parent`` replaces
    the enclosing scopes' path."""

    def __init__(self, name, caller=None, deduplicate=True, override_parent=None):
        if not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             "`/`. Received: name=%s" % (name,))
        self.name = name
        self.caller = caller
        self.deduplicate = deduplicate
        self.override_parent = override_parent
        self._entered = []

    def __enter__(self):
        stack = _scopes()
        # (Keras 3 skips only a scope its caller already opened: same name, same caller)
        if self.deduplicate and self.caller is not None and stack \
                and isinstance(stack[-1][0], name_scope) \
                and stack[-1][0].caller is self.caller and stack[-1][1] == self.name:
            self._entered.append(None)
            return self
        saved = None
        if self.override_parent is not None:     # the enclosing path is replaced
            saved = stack[:]
            del stack[:]
            stack.append((self, self.override_parent))
        stack.append((self, self.name))
        self._entered.append((len(stack), saved))
        return self

    def __exit__(self, *exc):
        entered = self._entered.pop()
        if entered is not None:
            depth, saved = entered
            stack = _scopes()
            del stack[depth - 1:]
            if saved is not None:
                stack[:] = saved
        return False


def _as_value(assigned):
    return assigned._variable.read_value() if type(assigned) is _UnreadVariable else assigned
