"""Handwritten digits 8x8 (UCI ML hand-written digits, as bundled with scikit-learn):
real images that load offline, a stand-in when MNIST is not available.

Needs the optional dependency scikit-learn (``pip install scikit-learn``).
"""
import numpy as np


def load_data(test_split=0.2, seed=113):
    """``(x_train, y_train), (x_test, y_test)`` of the 1,797 digits: uint8 images shaped
    (n, 8, 8) scaled from 0..16 to 0..255 (so ``x / 255`` works as for MNIST) and uint8
    labels; a seeded shuffle, then the last ``test_split`` fraction is the test set.

    >>> (x_train, y_train), (x_test, y_test) = fe.keras.datasets.digits.load_data()
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise ImportError("digits.load_data: needs scikit-learn, which ships the digits "
                          "(expected it installed: pip install scikit-learn)") from None
    if not 0.0 <= test_split < 1.0:
        raise ValueError("digits.load_data: test_split must be in [0, 1) (got %r)"
                         % (test_split,))
    bunch = load_digits()
    x = np.rint(np.asarray(bunch.images, np.float64) * (255.0 / 16.0)).astype(np.uint8)
    y = np.asarray(bunch.target).astype(np.uint8)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    n_train = len(x) - int(round(len(x) * test_split))
    return (x[:n_train], y[:n_train]), (x[n_train:], y[n_train:])
