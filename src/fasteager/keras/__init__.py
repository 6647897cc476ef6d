"""``fe.keras``: layers, models and the training loop, as TensorFlow's ``tf.keras``.

>>> model = fe.keras.Sequential([fe.keras.layers.Dense(10)])
>>> model.compile(optimizer="adam", loss="mse")
"""
from . import (activations, backend, callbacks, constraints, initializers,  # noqa: F401
               layers, losses, metrics, models, regularizers, utils)
from .layers import Input  # noqa: F401
from .training import Model, Sequential  # noqa: F401
from . import applications, datasets, optimizers, preprocessing  # noqa: F401
