"""``fe.keras``: layers, models and the training loop, as TensorFlow's ``tf.keras``.

>>> model = fe.keras.Sequential([fe.keras.layers.Dense(10)])
>>> model.compile(optimizer="adam", loss="mse")
"""
from . import (  # noqa: F401  # noqa: F401
    activations,
    applications,
    backend,
    callbacks,
    config,  # noqa: F401
    constraints,
    datasets,
    functional,  # noqa: F401 - registers Functional, which Model(inputs, outputs) makes
    initializers,
    layers,
    losses,
    metrics,
    models,
    ops,
    optimizers,
    preprocessing,
    regularizers,
    utils,
)
from ._naming import KerasVariable as Variable  # noqa: F401
from ._naming import name_scope
from .initializers import Initializer  # noqa: F401
from .layers import (  # noqa: F401
    Input,  # noqa: F401
    InputSpec,
    KerasTensor,
    Layer,
)
from .losses import Loss  # noqa: F401
from .metrics import Metric  # noqa: F401
from .optimizers import Optimizer  # noqa: F401
from .regularizers import Regularizer  # noqa: F401
from .training import Model, Sequential  # noqa: F401

__version__ = "3.15.1"   # the Keras release whose behaviour fe.keras follows


def version():
    """The Keras version fe.keras follows ('3.15.1'), as ``keras.version()``."""
    return __version__


def device(device_name):
    """``with fe.keras.device("cpu:0"):`` places the ops inside, as ``keras.device``."""
    return _device(device_name)
from .._src.state.placement import device as _device
from . import (
    random,  # noqa: F401,E402
    tree,  # noqa: F401,E402
)
from . import (  # noqa: F401,E402
    dtype_policies,
    mixed_precision,
)
from .dtype_policies import DTypePolicy, FloatDTypePolicy  # noqa: F401,E402
