"""Weight constraints (``fe.keras.constraints``): projections the optimizer applies to a
weight after each update, as Keras 3 does (``variable.assign(constraint(variable))``).

>>> layer = fe.keras.layers.Dense(4, kernel_constraint=fe.keras.constraints.MaxNorm(2.0))
"""
from .._core import convert_to_tensor
from ..ops.elementwise_ops import cast, clip_by_value, greater_equal, sqrt, square
from ..ops.reduction_ops import reduce_sum
from . import _serialization

_EPSILON = 1e-7          # Keras's backend.epsilon()


class Constraint:
    """Base class: ``__call__(w)`` returns the projected weight."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _norms(w, axis):
    return sqrt(reduce_sum(square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Scale each slice along ``axis`` down to a norm of at most ``max_value``."""

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = clip_by_value(norms, 0, self.max_value)
        return w * (desired / (_EPSILON + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Zero the negative entries."""

    def __call__(self, w):
        w = convert_to_tensor(w)
        return w * cast(greater_equal(w, 0.0), w.dtype)


class UnitNorm(Constraint):
    """Scale each slice along ``axis`` to unit norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        return w / (_EPSILON + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Move each slice's norm towards [min_value, max_value] by ``rate`` (1: all the way)."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = self.rate * clip_by_value(norms, self.min_value, self.max_value) + \
            (1 - self.rate) * norms
        return w * (desired / (_EPSILON + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


# Keras's function-style names
max_norm = MaxNorm
non_neg = NonNeg
unit_norm = UnitNorm
min_max_norm = MinMaxNorm

_BY_NAME = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm,
            "min_max_norm": MinMaxNorm, "MaxNorm": MaxNorm, "NonNeg": NonNeg,
            "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm}


def serialize(constraint):
    """``{"class_name", "module", "config"}`` of a constraint (a function: its name)."""
    return _serialization.serialize_keras_object(constraint)


def deserialize(config, custom_objects=None):
    """The constraint a name or a serialized ``{"class_name", "config"}`` dict names."""
    return _serialization.deserialize_in(config, custom_objects, _BY_NAME, Constraint,
                                         "constraints.deserialize")


def get(identifier):
    """A constraint from None, a name ('max_norm'), a config dict or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError("constraints.get: unknown constraint %r (expected one of %s)"
                             % (identifier, ", ".join(sorted(_BY_NAME))))
        return _BY_NAME[identifier]()
    if isinstance(identifier, dict):
        cls = _BY_NAME.get(identifier.get("class_name"))
        if cls is None:
            raise ValueError("constraints.get: unknown constraint %r"
                             % (identifier.get("class_name"),))
        return cls(**identifier.get("config", {}))
    if callable(identifier):
        return identifier
    raise ValueError("constraints.get: cannot interpret %r as a constraint" % (identifier,))

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("constraints", globals(), Constraint)
