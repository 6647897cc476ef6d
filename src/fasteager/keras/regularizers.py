"""Weight regularizers (``fe.keras.regularizers``): penalties added to ``model.losses``.

>>> layer = fe.keras.layers.Dense(4, kernel_regularizer=fe.keras.regularizers.l2(1e-4))
"""
from .._core import convert_to_tensor
from ..ops import elementwise_ops
from ..ops.array_ops import constant
from ..ops.elementwise_ops import square
from ..ops.reduction_ops import reduce_sum
from . import _serialization


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


def l1(l1=0.01):
    return L1(l1)


def l2(l2=0.01):
    return L2(l2)


def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1, l2)


def get(identifier):
    """A regularizer from None, a name ('l2'), a config dict or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        table = {"l1": L1, "l2": L2, "l1_l2": L1L2, "L1": L1, "L2": L2, "L1L2": L1L2}
        if identifier not in table:
            raise ValueError("regularizers.get: unknown regularizer %r" % (identifier,))
        return table[identifier]()
    if isinstance(identifier, dict):
        cls = type(get(identifier["class_name"]))
        return cls(**identifier.get("config", {}))
    if callable(identifier):
        return identifier
    raise ValueError("regularizers.get: cannot interpret %r as a regularizer" % (identifier,))

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("regularizers", globals(), Regularizer)
