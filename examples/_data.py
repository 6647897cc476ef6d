"""The examples' one rule for finding MNIST, and their offline fallback.

``load_mnist()`` returns what ``fe.keras.datasets.mnist.load_data()`` returns (uint8
images shaped (n, 28, 28), uint8 labels), looked for in this order:

1. ``$FASTEAGER_DATA/mnist/`` (``mnist.npz`` or the four IDX files). When FASTEAGER_DATA
   is unset and the repository sits in a workspace with ``../shared/data`` beside it (the
   contributors' layout), that folder is used.
2. ``~/.fasteager/datasets/mnist/``, the download cache.
3. A download of the four canonical files, checked by SHA-256, into that cache.
4. Without MNIST (offline, nothing cached): the 1,797 8x8 handwritten digits that
   scikit-learn ships (the ``[examples]`` extra installs it), upscaled to 28x28. One short
   line says so.
"""
import os
import pathlib

import numpy as np

import fasteager as fe

WORKSPACE_DATA = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data"


def use_workspace_data():
    """Point FASTEAGER_DATA at the workspace's data folder when it is unset and exists."""
    if "FASTEAGER_DATA" not in os.environ and (WORKSPACE_DATA / "mnist").is_dir():
        os.environ["FASTEAGER_DATA"] = str(WORKSPACE_DATA)


def digits_as_mnist(x):
    """8x8 digit images -> 28x28: each pixel repeated 3x3 (24x24), then 2 pixels of zeros
    around, as MNIST centres its digits in a blank margin."""
    x = np.kron(x, np.ones((1, 3, 3), dtype=x.dtype))
    return np.pad(x, ((0, 0), (2, 2), (2, 2)))


def load_mnist():
    """``(name, ((x_train, y_train), (x_test, y_test)))``: name is "MNIST" or "digits"."""
    use_workspace_data()
    try:
        return "MNIST", fe.keras.datasets.mnist.load_data()
    except FileNotFoundError:
        pass
    (x_train, y_train), (x_test, y_test) = fe.keras.datasets.digits.load_data()
    print("MNIST not found (set FASTEAGER_DATA, see README); using the offline 8x8 digits, "
          "upscaled to 28x28", flush=True)
    return "digits", ((digits_as_mnist(x_train), y_train), (digits_as_mnist(x_test), y_test))
