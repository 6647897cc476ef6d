"""``fe.keras.datasets``: ``mnist`` and ``fashion_mnist`` (local copy or a checksummed
download) and ``digits`` (scikit-learn's bundled 8x8 digits, always offline)."""
from . import digits, fashion_mnist, mnist

__all__ = ["digits", "fashion_mnist", "mnist"]
