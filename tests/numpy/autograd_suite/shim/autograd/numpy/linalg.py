"""``autograd.numpy.linalg`` here: ``fasteager.numpy.linalg``, plus autograd's helpers
``T`` and ``_dot`` that its tests call."""
import fasteager.numpy as _fnp


def T(x):  # noqa: N802 - autograd's name
    return _fnp.swapaxes(x, -1, -2)


def _dot(a, b):
    return _fnp.einsum("...ij,...jk->...ik", a, b)


def __getattr__(name):
    return getattr(_fnp.linalg, name)
