"""``fe.keras``: layers, models and the training loop, as TensorFlow's ``tf.keras``.

>>> model = fe.keras.Sequential([fe.keras.layers.Dense(10)])
>>> model.compile(optimizer="adam", loss="mse")
"""
from . import (activations, backend, callbacks, constraints, initializers,  # noqa: F401
               layers, losses, metrics, models, regularizers, utils)
from .layers import Input  # noqa: F401
from .training import Model, Sequential  # noqa: F401
from . import functional  # noqa: F401 - registers Functional, which Model(inputs, outputs) makes
from . import applications, datasets, optimizers, preprocessing  # noqa: F401
from . import config  # noqa: F401
from ._naming import KerasVariable as Variable, name_scope  # noqa: F401
from .initializers import Initializer  # noqa: F401
from .layers import KerasTensor, Layer  # noqa: F401
from .losses import Loss  # noqa: F401
from .metrics import Metric  # noqa: F401
from .optimizers import Optimizer  # noqa: F401
from .regularizers import Regularizer  # noqa: F401

__version__ = "3.15.1"   # the Keras release whose behaviour fe.keras follows


def version():
    """The Keras version fe.keras follows ('3.15.1'), as ``keras.version()``."""
    return __version__


def device(device_name):
    """``with fe.keras.device("cpu:0"):`` places the ops inside, as ``keras.device``."""
    return _device(device_name)
from . import random  # noqa: F401,E402
from . import tree  # noqa: F401,E402
from .._src.state.placement import device as _device
