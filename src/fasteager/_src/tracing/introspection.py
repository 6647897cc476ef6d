"""What code can ask about tracing: ``tf.inside_function``, ``tf.is_symbolic_tensor`` and
``tf.get_static_value`` (a graph tensor of ``fe.function`` has no value until it runs)."""
from ... import _core

Tensor = _core.Tensor
VariableBase = _core.VariableBase


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
