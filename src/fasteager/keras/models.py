"""``fe.keras.models``: ``Model``, ``Sequential``.

``load_model``/``save_model``: whole models (``fe.keras.saving``).
"""
from .training import Model, Sequential  # noqa: F401
from .saving import load_model, save_model  # noqa: F401
