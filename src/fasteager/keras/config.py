"""``fe.keras.config``: Keras 3's global settings.

``floatx``/``epsilon``/``image_data_format`` are the settings ``fe.keras.backend`` keeps
(layers' default dtype, the losses' and metrics' fuzz factor, the image utilities' layout);
``enable_unsafe_deserialization`` turns off the lambda refusal of every later load.
They are process-wide, as in Keras 3.
"""
from ._serialization import enable_unsafe_deserialization  # noqa: F401
from .backend import (  # noqa: F401
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)


def is_nnx_enabled():
    """False: Flax NNX integration is a JAX-backend feature (fasteager stands for the
    TensorFlow backend, where Keras 3 answers False too)."""
    return False
