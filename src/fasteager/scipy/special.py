"""``fasteager.scipy.special``: ``logsumexp``, ``expit``, ``erf`` over the op table."""
import numpy as np

from ..errors import UnimplementedError
from ..numpy._promotion import tensor
from ..ops import math_ops as m
from ..ops import special_ops


def _float(x):
    t = tensor(x)
    return t if t._value.dtype.kind == "f" else m.cast(t, np.float64)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """SciPy's ``logsumexp`` (``reduce_logsumexp``: max-shifted, no overflow)."""
    if b is not None or return_sign:
        raise UnimplementedError("fasteager.scipy.special.logsumexp: b= and return_sign= are "
                                 "not supported")
    axis = list(axis) if isinstance(axis, tuple) else axis
    return m.reduce_logsumexp(_float(a), axis, keepdims=keepdims)


def expit(x):
    """SciPy's ``expit``: the logistic sigmoid."""
    return m.sigmoid(_float(x))


def erf(x):
    return special_ops.erf(_float(x))
