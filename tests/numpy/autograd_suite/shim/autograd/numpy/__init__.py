"""``autograd.numpy`` here: ``fasteager.numpy``, plus ``make_diagonal``, a helper that
autograd adds beside NumPy's names and its tests call."""
import sys as _sys

import fasteager.numpy as _fnp

from . import linalg  # noqa: F401

for _sub in ("random", "fft"):
    _sys.modules["%s.%s" % (__name__, _sub)] = getattr(_fnp, _sub)
random, fft = _fnp.random, _fnp.fft


def make_diagonal(D, offset=0, axis1=0, axis2=1):
    # autograd's: D's last axis laid on the diagonal of new (axis1, axis2) planes
    if offset != 0 or sorted((axis1 % (_fnp.ndim(D) + 1), axis2 % (_fnp.ndim(D) + 1))) != \
            [_fnp.ndim(D) - 1, _fnp.ndim(D)]:
        raise NotImplementedError("make_diagonal: only the last two axes, offset 0")
    n = _fnp.shape(D)[-1]
    return _fnp.expand_dims(D, -1) * _fnp.eye(n)


def __getattr__(name):
    return getattr(_fnp, name)
