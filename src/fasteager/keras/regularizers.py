"""Weight regularizers (``fe.keras.regularizers``): penalties added to ``model.losses``.

>>> layer = fe.keras.layers.Dense(4, kernel_regularizer=fe.keras.regularizers.l2(1e-4))
"""
import math

import numpy as np

from .._core import convert_to_tensor
from ..ops import elementwise_ops
from ..ops.array_ops import constant
from ..ops.elementwise_ops import square
from ..ops.reduction_ops import reduce_sum
from . import _serialization
from .ops import nn as keras_nn
from .ops import numpy as knp


class Regularizer:
    """Base class: ``__call__(weight)`` returns a scalar penalty tensor."""

    def __call__(self, x):
        return constant(0.0)

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(|w|) + l2 * sum(w^2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        for name, v in (("l1", l1), ("l2", l2)):
            if v is None or float(v) < 0:
                raise ValueError("regularizers: %s must be a non-negative number (got %r)"
                                 % (name, v))
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x):
        x = convert_to_tensor(x)
        total = None
        if self.l1:
            total = self.l1 * reduce_sum(elementwise_ops.abs(x))
        if self.l2:
            term = self.l2 * reduce_sum(square(x))
            total = term if total is None else total + term
        return constant(0.0, dtype=x.dtype) if total is None else total

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    def __init__(self, l1=0.01):
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    def __init__(self, l2=0.01):
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """``factor`` times the mean absolute cosine similarity between the rows
    (``mode="rows"``) or columns of a 2D weight: it pushes them towards orthogonality."""

    def __init__(self, factor=0.01, mode="rows"):
        if not isinstance(factor, (float, int)) or math.isinf(factor) or \
                math.isnan(factor) or factor < 0:
            raise ValueError("Invalid value for argument factor: expected a non-negative "
                             "float.Received: factor=%s" % (factor,))
        if mode not in ("rows", "columns"):
            raise ValueError('Invalid value for argument `mode`. Expected one of {"rows", '
                             '"columns"}. Received: mode=%s' % (mode,))
        # Keras keeps the factor as a float32 tensor: its config reads it back rounded
        self.factor = float(np.float32(factor))
        self.mode = mode

    def __call__(self, x):
        x = convert_to_tensor(x)
        if len(x.shape) != 2:
            raise ValueError("Inputs to OrthogonalRegularizer must have rank 2. Received: "
                             "inputs.shape=%s" % (tuple(x.shape),))
        if self.mode == "rows":
            x = keras_nn.normalize(x, axis=1)
            product = knp.matmul(x, knp.transpose(x))
            size = int(x.shape[0])
        else:
            x = keras_nn.normalize(x, axis=0)
            product = knp.matmul(knp.transpose(x), x)
            size = int(x.shape[1])
        off_diagonal = product * (1.0 - knp.eye(size, dtype=x.dtype))
        pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * knp.sum(knp.absolute(off_diagonal)) / pairs

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


orthogonal_regularizer = OrthogonalRegularizer


def l1(l1=0.01):
    return L1(l1)


def l2(l2=0.01):
    return L2(l2)


def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1, l2)


_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": L1L2, "L1": L1, "L2": L2, "L1L2": L1L2,
            "OrthogonalRegularizer": OrthogonalRegularizer,
            "orthogonal_regularizer": OrthogonalRegularizer}


def serialize(regularizer):
    """``{"class_name", "module", "config"}`` of a regularizer (a function: its name)."""
    return _serialization.serialize_keras_object(regularizer)


def deserialize(config, custom_objects=None):
    """The regularizer a name or a serialized ``{"class_name", "config"}`` dict names."""
    return _serialization.deserialize_in(config, custom_objects, _BY_NAME, Regularizer,
                                         "regularizers.deserialize")


def get(identifier):
    """A regularizer from None, a name ('l2'), a config dict or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError("regularizers.get: unknown regularizer %r" % (identifier,))
        return _BY_NAME[identifier]()
    if isinstance(identifier, dict):
        cls = type(get(identifier["class_name"]))
        return cls(**identifier.get("config", {}))
    if callable(identifier):
        return identifier
    raise ValueError("regularizers.get: cannot interpret %r as a regularizer" % (identifier,))

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("regularizers", globals(), Regularizer)
