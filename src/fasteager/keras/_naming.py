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

from ..variables import Variable, _UnreadVariable

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

    def __init__(self, initial_value, trainable=True, name=None, dtype=None, path=None,
                 constraint=None):
        super().__init__(initial_value, trainable=trainable, name=name, dtype=dtype,
                         constraint=constraint)
        self._name = name or "variable"          # Keras 3: no ':0'
        self._path = path or self._name

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


def _as_value(assigned):
    return assigned._variable.read_value() if type(assigned) is _UnreadVariable else assigned
