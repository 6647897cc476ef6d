"""Special functions (erf) and order statistics (sort, argsort, top_k).

erf runs in C (``_special.pyx``, libm's ``erf``/``erff``: float32 stays float32). Sorting
ops compute a permutation with NumPy and gather values through ``getitem``, so their
gradients scatter back through the permutation and are differentiable again (order 2).
Indices are int32 (TensorFlow's ``argsort`` and ``top_k`` dtype).
"""
import collections
import math

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .array_ops import getitem
from .math_ops import exp
from .registry import FLOAT, NUMERIC, as_int, defop, execute, single_axis

convert_to_tensor = _core.convert_to_tensor

try:
    from .._special import erf as _erf_c
except ImportError:  # not compiled (source checkout without build_ext): exact but slow
    _erf_scalar = np.vectorize(math.erf, otypes=[np.float64])

    def _erf_c(x):
        return _erf_scalar(x).astype(x.dtype, copy=False)


def _erf_kernel(x):
    # the C loops are float32 and float64: float16 runs in float32 and is rounded once
    if x.dtype == np.float16:
        return _erf_c(x.astype(np.float32)).astype(np.float16)
    return _erf_c(x)

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

# d erf(x) = 2/sqrt(pi) exp(-x^2) dx
erf_op = defop("erf", _erf_kernel, kinds=FLOAT,
               grads=[lambda g, ans, x: g * _TWO_OVER_SQRT_PI * exp(-(x * x))])


def erf(x, name=None):
    """The Gauss error function, elementwise (float16 computes in float32).

    >>> fe.math.erf([0., 1.]).numpy()
    array([0.       , 0.8427008], dtype=float32)
    """
    return execute(erf_op, x)


# ---- sorting ------------------------------------------------------------------------------

def _argsort_np(x, axis, descending):
    # stable both ways: ties keep their original order (TensorFlow's top_k rule); the
    # descending sort runs an ascending stable sort on the reversed axis and maps back
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(rev, axis)


def _check_direction(opname, direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise InvalidArgumentError("%s: direction must be 'ASCENDING' or 'DESCENDING' (got %r)"
                                   % (opname, direction))
    return direction == "DESCENDING"


argsort_op = defop("argsort", lambda x, axis, descending:
                   _argsort_np(x, axis, descending).astype(np.int32),
                   kinds=NUMERIC, nin=1, no_grad="returns integer indices")


def _along_axis_key(indices, axis):
    """A NumPy key that picks ``indices`` along ``axis`` (np.take_along_axis as a getitem key),
    so the gather is differentiable through getitem's scatter-add gradient."""
    key = []
    ndim = indices.ndim
    for d in range(ndim):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * ndim
            shape[d] = indices.shape[d]
            key.append(np.arange(indices.shape[d]).reshape(shape))
    return tuple(key)


def _sort_axis(opname, x, axis):
    if x._value.ndim == 0:
        raise InvalidArgumentError("%s: input must have rank >= 1 (expected a vector or more, "
                                   "got a scalar)" % opname)
    return single_axis(opname, axis, x._value.ndim)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis`` (ties keep their order)."""
    x = convert_to_tensor(values)
    desc = _check_direction("argsort", direction)
    return execute(argsort_op, x, axis=_sort_axis("argsort", x, axis), descending=desc)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``; differentiable (the gradient follows the permutation).

    >>> fe.sort([3., 1., 2.], direction="DESCENDING").numpy()
    array([3., 2., 1.], dtype=float32)
    """
    x = convert_to_tensor(values)
    desc = _check_direction("sort", direction)
    ax = _sort_axis("sort", x, axis)
    idx = _argsort_np(_core.data_of(x, "sort"), ax, desc)
    return execute(getitem, x, key=_along_axis_key(idx, ax))


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None):
    """The ``k`` largest entries along the last axis and their int32 indices.

    Returns ``(values, indices)``; ties go to the lower index; ``values`` is differentiable.
    """
    x = convert_to_tensor(input)
    if x._value.ndim == 0:
        raise InvalidArgumentError("top_k: input must have rank >= 1 (expected a vector or "
                                   "more, got a scalar)")
    k = as_int("top_k", k, "k")
    n = x._value.shape[-1]
    if not 0 <= k <= n:
        raise InvalidArgumentError("top_k: k must be in [0, last dimension] (expected "
                                   "0 <= k <= %d, got %d)" % (n, k))
    ax = x._value.ndim - 1
    idx = _argsort_np(_core.data_of(x, "top_k"), ax, True)[..., :k]
    values = execute(getitem, x, key=_along_axis_key(idx, ax))
    return TopKV2(values, _core.wrap(idx.astype(np.int32)))
