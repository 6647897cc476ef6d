"""``fasteager.numpy.linalg``: NumPy's ``linalg`` names over the table's linalg ops."""
import numpy as np

from ..errors import InvalidArgumentError, UnimplementedError
from ..ops import array_ops as a_ops
from ..ops import linalg_ops as l_ops
from ..ops import math_ops as m
from ._promotion import promote
from ._reductions import matmul  # noqa: F401 - np.linalg.matmul


def _float(*xs):
    xs = promote(xs)
    if xs[0]._value.dtype.kind != "f":
        xs = [m.cast(x, np.float64) for x in xs]
    return xs


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    """NumPy's ``norm``: vectors (ord None/2, 1, inf, p > 0) and matrices (None/'fro', 1, inf).

    As NumPy, ``axis=None`` on a 2-D input with an ``ord`` is the matrix norm."""
    (t,) = _float(x)
    r = t._value.ndim
    if axis is None and ord is not None:
        if r == 2:
            axis = (0, 1)
        elif r != 1:
            raise InvalidArgumentError("fasteager.numpy.linalg.norm: improper number of "
                                       "dimensions to norm (ord=%r needs 1-D or 2-D, got %d-D)"
                                       % (ord, r))
    matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if ord is None or (ord == "fro" and matrix):
        o = "euclidean"
    elif matrix and ord in (1, np.inf):
        o = ord
    elif not matrix and not isinstance(ord, str) and (ord == np.inf or ord > 0):
        o = ord
    else:
        raise UnimplementedError("fasteager.numpy.linalg.norm: ord=%r is not supported for %s "
                                 "norms" % (ord, "matrix" if matrix else "vector"))
    if isinstance(axis, tuple):
        axis = list(axis)
    return l_ops.norm(t, ord=o, axis=axis, keepdims=keepdims)


def inv(a):
    """NumPy's ``inv`` of (a batch of) square matrices."""
    return l_ops.inv(_float(a)[0])


def det(a):
    """NumPy's ``det`` of (a batch of) square matrices."""
    return l_ops.det(_float(a)[0])


def slogdet(a):
    """NumPy's ``slogdet``: ``(sign, logabsdet)``."""
    sign, logabsdet = l_ops.slogdet(_float(a)[0])
    return sign, logabsdet


def solve(a, b):
    """NumPy's ``solve``: ``x`` with ``a @ x = b``; a 1-D ``b`` is one right-hand side."""
    a, b = _float(a, b)
    if b._value.ndim == 1:
        return a_ops.reshape(l_ops.solve(a, a_ops.reshape(b, [-1, 1])), [-1])
    return l_ops.solve(a, b)


def cholesky(a):
    """NumPy's ``cholesky``: the lower-triangular factor."""
    return l_ops.cholesky(_float(a)[0])
