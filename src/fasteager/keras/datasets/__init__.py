"""``fe.keras.datasets``: ``mnist`` (local copy or a checksummed download) and ``digits``
(scikit-learn's bundled 8x8 digits, always offline)."""
from . import digits, mnist

__all__ = ["digits", "mnist"]
