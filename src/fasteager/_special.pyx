# cython: language_level=3
"""Special functions NumPy lacks (erf, erfc), as C loops over contiguous arrays.

Layers, as in ``_kernels.pyx``: libm point functions (``erff``/``erf`` per dtype through the
fused type ``floating``), one ``nogil`` loop over a C-contiguous 1-D memoryview, and a
Python wrapper that allocates ``out`` (same dtype: float32 stays float32) and makes one
call. The op layer (``ops/special_ops.py``) owns validation and the gradient.
"""
from cython cimport floating
from libc.math cimport erf as c_erf, erff, erfc as c_erfc, erfcf

import numpy as np


cdef inline floating _erf(floating x) noexcept nogil:
    if floating is float:
        return erff(x)
    else:
        return c_erf(x)


cdef inline floating _erfc(floating x) noexcept nogil:
    if floating is float:
        return erfcf(x)
    else:
        return c_erfc(x)


cdef void _erf_loop(const floating[::1] x, floating[::1] out, bint complement) noexcept nogil:
    cdef Py_ssize_t i, n = x.shape[0]
    if complement:
        for i in range(n):
            out[i] = _erfc(x[i])
    else:
        for i in range(n):
            out[i] = _erf(x[i])


def _apply(x, bint complement):
    shape = np.shape(x)
    x = np.ascontiguousarray(x).reshape(shape)   # (ascontiguousarray makes scalars 1-D)
    if x.dtype != np.float32 and x.dtype != np.float64:
        raise ValueError("erf: unsupported dtype (expected float32 or float64, got %s)"
                         % x.dtype)
    out = np.empty_like(x)
    flat_x = x.reshape(-1)
    flat_out = out.reshape(-1)
    if x.dtype == np.float32:
        _erf_loop[float](flat_x, flat_out, complement)
    else:
        _erf_loop[double](flat_x, flat_out, complement)
    return out


def erf(x):
    """The error function of a float32/float64 array, elementwise (libm ``erf``)."""
    return _apply(x, False)


def erfc(x):
    """``1 - erf(x)`` without cancellation for large x (libm ``erfc``)."""
    return _apply(x, True)
