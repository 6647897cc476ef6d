"""``fe.keras.optimizers``: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam,
Ftrl, Lion, Lamb, Adafactor and learning-rate schedules.

>>> opt = fe.keras.optimizers.Adam()
>>> opt.apply_gradients(zip(grads, model.trainable_variables))
>>> fe.keras.optimizers.get("sgd")
<fe.keras.optimizers.SGD name='sgd'>
"""
from . import schedules
from .base import Optimizer
from .loss_scale import LossScaleOptimizer
from .standard import (
    SGD,
    Adadelta,
    Adafactor,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    Ftrl,
    Lamb,
    Lion,
    Nadam,
    RMSprop,
)

_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta, "adamax": Adamax, "nadam": Nadam, "ftrl": Ftrl,
            "lion": Lion, "lamb": Lamb, "adafactor": Adafactor}


def serialize(optimizer):
    """``{"class_name": ..., "config": ...}`` for an optimizer."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None):
    """Rebuild an optimizer from :func:`serialize`'s dictionary."""
    classes = {c.__name__: c for c in _BY_NAME.values()}
    classes["LossScaleOptimizer"] = LossScaleOptimizer
    classes.update(custom_objects or {})
    name = config.get("class_name")
    cls = classes.get(name) or _BY_NAME.get(str(name).lower())
    if cls is None:
        raise ValueError("optimizers.deserialize: unknown optimizer (expected one of %s, "
                         "got %r)" % (sorted(classes), name))
    return cls.from_config(config.get("config", {}), custom_objects) \
        if issubclass(cls, Optimizer) else cls(**config.get("config", {}))


def get(identifier):
    """An optimizer from a name (``"adam"``), a serialized dict, or an instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError("optimizers.get: unknown optimizer (expected one of %s, got %r)"
                             % (sorted(_BY_NAME), identifier))
        return cls()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if hasattr(identifier, "apply_gradients"):
        return identifier
    raise ValueError("optimizers.get: cannot interpret the optimizer identifier (expected a "
                     "name, dict or Optimizer, got %r)" % (identifier,))


__all__ = ["SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "Ftrl",
           "Lamb", "Lion", "Nadam", "Optimizer", "RMSprop", "deserialize", "get", "schedules",
           "serialize"]
