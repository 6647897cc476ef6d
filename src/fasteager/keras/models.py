"""``fe.keras.models``: ``Model``, ``Sequential``.

``load_model`` arrives with the persistence work (API.md section 6).
"""
from .training import Model, Sequential  # noqa: F401
