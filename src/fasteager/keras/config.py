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


# ---- dtype policies, training limits, logging and backend (Keras 3's keras.config) ------
from .dtype_policies import dtype_policy, set_dtype_policy  # noqa: E402,F401
from .utils import (  # noqa: E402,F401
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)

_MAX_EPOCHS = None
_MAX_STEPS_PER_EPOCH = None
_FLASH_ATTENTION = None
_TRACEBACK_FILTERING = True


def set_max_epochs(max_epochs):
    """Cap the epochs of every later ``fit`` (``None``: no cap), as Keras 3."""
    global _MAX_EPOCHS
    _MAX_EPOCHS = max_epochs


def max_epochs():
    """The cap on ``fit``'s epochs set by ``set_max_epochs`` (``None``: none)."""
    return _MAX_EPOCHS


def set_max_steps_per_epoch(max_steps_per_epoch):
    """Cap the steps of each epoch of every later ``fit`` (``None``: no cap)."""
    global _MAX_STEPS_PER_EPOCH
    _MAX_STEPS_PER_EPOCH = max_steps_per_epoch


def max_steps_per_epoch():
    """The cap on steps per epoch set by ``set_max_steps_per_epoch`` (``None``: none)."""
    return _MAX_STEPS_PER_EPOCH


def enable_flash_attention():
    """Let attention use flash attention where it can (Keras's default: ``None``, the
    backend decides). fasteager keeps the setting; its attention has one CPU path."""
    global _FLASH_ATTENTION
    _FLASH_ATTENTION = None


def disable_flash_attention():
    """Turn flash attention off (``is_flash_attention_enabled()`` then answers False)."""
    global _FLASH_ATTENTION
    _FLASH_ATTENTION = False


def is_flash_attention_enabled():
    """``None`` (the default, enabled where supported) or ``False`` once disabled, as
    Keras 3 answers."""
    return _FLASH_ATTENTION


def enable_traceback_filtering():
    """Keras's traceback filtering switch (the default: on). fasteager keeps the setting;
    its errors carry the full traceback either way."""
    global _TRACEBACK_FILTERING
    _TRACEBACK_FILTERING = True


def disable_traceback_filtering():
    """Turn Keras's traceback filtering setting off."""
    global _TRACEBACK_FILTERING
    _TRACEBACK_FILTERING = False


def is_traceback_filtering_enabled():
    """The traceback filtering setting (True unless disabled)."""
    return _TRACEBACK_FILTERING


def set_backend(backend):
    """Keras 3's backend switch: fasteager stands for the TensorFlow backend only, so
    ``"tensorflow"`` is accepted (nothing changes) and any other name is a ValueError."""
    if backend != "tensorflow":
        raise ValueError("keras.config.set_backend: fasteager provides only the "
                         "'tensorflow' backend (got backend=%r)" % (backend,))
