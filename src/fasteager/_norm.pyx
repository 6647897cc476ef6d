# cython: language_level=3
"""CPU kernels of the fused batch normalisation (``ops/norm_ops.py`` wraps them as ops).

NumPy arrays in, NumPy arrays out; no Tensor and no autodiff here. The data is a
C-contiguous ``(rows, C)`` array (channels last: an NHWC tensor reshaped), float32 or
float64, and the per-channel vectors have C entries of the same dtype.

The layers of the work:

1. ``_norm_kernels.h``: the loops over one chunk of ``FE_BN_CHUNK`` rows (sums in double,
   vectorised across channels, compiled per instruction set).
2. Here: ``prange`` over the chunks, each writing its partial sums into its own row of a
   ``(chunks, C)`` buffer, which is then added in chunk order: the same bits whatever the
   number of threads.
3. The per-channel arithmetic between the passes (mean, variance, the coefficients of the
   backward pass) in double, on C numbers.

Training forward: the sums of ``x - c`` and ``(x - c)^2`` about a centre ``c`` (float32:
the first row; float64: the mean, from a first pass), which give the mean and the
variance as in the corrected two-pass algorithm, then ``y`` (last pass). Backward: the sums of dy and dy * (x - mean) (pass 1), then dx (pass 2).
"""
cimport numpy as cnp
from cython.parallel cimport prange

import numpy as np

cnp.import_array()

cdef extern from "_norm_kernels.h" nogil:
    const int FE_BN_CHUNK
    void fe_bn_sum_f32(const float*, Py_ssize_t, Py_ssize_t, double*)
    void fe_bn_sum_f64(const double*, Py_ssize_t, Py_ssize_t, double*)
    void fe_bn_centered_f32(const float*, const double*, Py_ssize_t, Py_ssize_t, double*,
                            double*)
    void fe_bn_centered_f64(const double*, const double*, Py_ssize_t, Py_ssize_t, double*,
                            double*)
    void fe_bn_affine_f32(const float*, const float*, const float*, const float*, Py_ssize_t,
                          Py_ssize_t, float*)
    void fe_bn_affine_f64(const double*, const double*, const double*, const double*,
                          Py_ssize_t, Py_ssize_t, double*)
    void fe_bn_grad_sums_f32(const float*, const float*, const double*, Py_ssize_t, Py_ssize_t,
                             double*, double*)
    void fe_bn_grad_sums_f64(const double*, const double*, const double*, Py_ssize_t,
                             Py_ssize_t, double*, double*)
    void fe_bn_grad_dx_f32(const float*, const float*, const float*, const float*,
                           const float*, const float*, Py_ssize_t, Py_ssize_t, float*)
    void fe_bn_grad_dx_f64(const double*, const double*, const double*, const double*,
                           const double*, const double*, Py_ssize_t, Py_ssize_t, double*)

# The passes are memory-bound: on 2 cores a second thread gained 10% at 1M float32
# elements and lost time when the other core was busy (a barrier per pass waits for a
# descheduled thread), so threads start only at 4M elements.
cdef Py_ssize_t _PAR_ELEMS = 1 << 22

CHUNK_ROWS = FE_BN_CHUNK


def _check(name, x, vectors):
    """x a C-contiguous (rows, C) float32/float64 array; ``vectors`` (argname, array)
    pairs of shape (C,) and x's dtype."""
    if not isinstance(x, np.ndarray) or x.dtype.char not in "fd":
        raise ValueError("%s: x must be a float32 or float64 array (got %s)"
                         % (name, getattr(x, "dtype", type(x).__name__)))
    if x.ndim != 2 or not x.flags.c_contiguous:
        raise ValueError("%s: x must be a C-contiguous (rows, channels) array (got shape %s)"
                         % (name, list(x.shape)))
    C = x.shape[1]
    for argname, v in vectors:
        if not isinstance(v, np.ndarray) or v.dtype != x.dtype or v.shape != (C,):
            raise ValueError("%s: %s must be a (%d,) %s array (got %s %s)"
                             % (name, argname, C, x.dtype, getattr(v, "dtype", None),
                                list(getattr(v, "shape", ()))))


cdef _chunk_sums(x, mean, int which, dy=None):
    """Per-channel sums over all rows, chunk by chunk: which = 0: (sum x,);
    1: (sum (x - mean), sum (x - mean)^2); 2: (sum dy, sum dy * (x - mean))."""
    cdef Py_ssize_t rows = x.shape[0], C = x.shape[1]
    cdef Py_ssize_t nchunk = (rows + FE_BN_CHUNK - 1) // FE_BN_CHUNK
    cdef Py_ssize_t k, r0, n
    cdef bint par = rows * C > _PAR_ELEMS and nchunk > 1
    p1 = np.zeros((max(nchunk, 1), C))
    p2 = np.zeros((max(nchunk, 1), C))
    if rows == 0 or C == 0:
        return p1.sum(axis=0), p2.sum(axis=0)
    cdef double[:, ::1] a1 = p1, a2 = p2
    # inputs may be read-only (dataset batches, NumPy views): const views
    cdef const double[::1] m
    cdef const float[:, ::1] xf, gf
    cdef const double[:, ::1] xd, gd
    if which:
        m = np.ascontiguousarray(mean, dtype=np.float64)
    if x.dtype == np.float32:
        xf = x
        if which == 2:
            gf = dy
        for k in prange(nchunk, nogil=True, schedule="static", use_threads_if=par):
            r0 = k * FE_BN_CHUNK
            n = min(FE_BN_CHUNK, rows - r0)
            if which == 0:
                fe_bn_sum_f32(&xf[r0, 0], n, C, &a1[k, 0])
            elif which == 1:
                fe_bn_centered_f32(&xf[r0, 0], &m[0], n, C, &a1[k, 0], &a2[k, 0])
            else:
                fe_bn_grad_sums_f32(&gf[r0, 0], &xf[r0, 0], &m[0], n, C, &a1[k, 0], &a2[k, 0])
    else:
        xd = x
        if which == 2:
            gd = dy
        for k in prange(nchunk, nogil=True, schedule="static", use_threads_if=par):
            r0 = k * FE_BN_CHUNK
            n = min(FE_BN_CHUNK, rows - r0)
            if which == 0:
                fe_bn_sum_f64(&xd[r0, 0], n, C, &a1[k, 0])
            elif which == 1:
                fe_bn_centered_f64(&xd[r0, 0], &m[0], n, C, &a1[k, 0], &a2[k, 0])
            else:
                fe_bn_grad_sums_f64(&gd[r0, 0], &xd[r0, 0], &m[0], n, C, &a1[k, 0], &a2[k, 0])
    # chunk order, whatever thread ran which chunk
    return np.add.reduce(p1, axis=0), np.add.reduce(p2, axis=0)


cdef _affine_into(x, mean, scale, shift, out):
    cdef Py_ssize_t rows = x.shape[0], C = x.shape[1]
    cdef Py_ssize_t nchunk = (rows + FE_BN_CHUNK - 1) // FE_BN_CHUNK
    cdef Py_ssize_t k, r0, n
    cdef bint par = rows * C > _PAR_ELEMS and nchunk > 1
    if rows == 0 or C == 0:
        return out
    cdef const float[:, ::1] xf
    cdef float[:, ::1] yf
    cdef const float[::1] mf, sf, hf
    cdef const double[:, ::1] xd
    cdef double[:, ::1] yd
    cdef const double[::1] md, sd, hd
    if x.dtype == np.float32:
        xf, yf, mf, sf, hf = x, out, mean, scale, shift
        for k in prange(nchunk, nogil=True, schedule="static", use_threads_if=par):
            r0 = k * FE_BN_CHUNK
            n = min(FE_BN_CHUNK, rows - r0)
            fe_bn_affine_f32(&xf[r0, 0], &mf[0], &sf[0], &hf[0], n, C, &yf[r0, 0])
    else:
        xd, yd, md, sd, hd = x, out, mean, scale, shift
        for k in prange(nchunk, nogil=True, schedule="static", use_threads_if=par):
            r0 = k * FE_BN_CHUNK
            n = min(FE_BN_CHUNK, rows - r0)
            fe_bn_affine_f64(&xd[r0, 0], &md[0], &sd[0], &hd[0], n, C, &yd[r0, 0])
    return out


cdef _dx_into(dy, x, mean, k1, k2, k3, out):
    cdef Py_ssize_t rows = x.shape[0], C = x.shape[1]
    cdef Py_ssize_t nchunk = (rows + FE_BN_CHUNK - 1) // FE_BN_CHUNK
    cdef Py_ssize_t k, r0, n
    cdef bint par = rows * C > _PAR_ELEMS and nchunk > 1
    if rows == 0 or C == 0:
        return out
    cdef const float[:, ::1] gf, xf
    cdef float[:, ::1] of
    cdef const float[::1] mf, af, bf, cf
    cdef const double[:, ::1] gd, xd
    cdef double[:, ::1] od
    cdef const double[::1] md, ad, bd, cd
    if x.dtype == np.float32:
        gf, xf, of, mf, af, bf, cf = dy, x, out, mean, k1, k2, k3
        for k in prange(nchunk, nogil=True, schedule="static", use_threads_if=par):
            r0 = k * FE_BN_CHUNK
            n = min(FE_BN_CHUNK, rows - r0)
            fe_bn_grad_dx_f32(&gf[r0, 0], &xf[r0, 0], &mf[0], &af[0], &bf[0], &cf[0], n, C,
                              &of[r0, 0])
    else:
        gd, xd, od, md, ad, bd, cd = dy, x, out, mean, k1, k2, k3
        for k in prange(nchunk, nogil=True, schedule="static", use_threads_if=par):
            r0 = k * FE_BN_CHUNK
            n = min(FE_BN_CHUNK, rows - r0)
            fe_bn_grad_dx_f64(&gd[r0, 0], &xd[r0, 0], &md[0], &ad[0], &bd[0], &cd[0], n, C,
                              &od[r0, 0])
    return out


def batch_norm_train(x, gamma, beta, double epsilon):
    """Training forward: ``(y, mean, variance)`` of a (rows, C) array, the biased variance
    over the rows; ``y = (x - mean) * gamma / sqrt(variance + epsilon) + beta``. With no
    rows, mean and variance are NaN (as NumPy's mean of nothing) and y is empty."""
    _check("batch_norm_train", x, [("gamma", gamma), ("beta", beta)])
    rows = x.shape[0]
    dt = x.dtype
    if rows == 0:
        nan = np.full(x.shape[1], np.nan, dtype=dt)
        return np.empty(x.shape, dt), nan, nan.copy()
    # the sums of x - c and (x - c)^2 about a centre c near the mean (in double):
    # mean = c + d1 / n, var = (d2 - d1^2 / n) / n loses about eps_double * (mean - c)^2
    # / var relative. float32 data takes its first row as c (one pass less: the error
    # stays far below float32's); float64 data the mean from a first pass.
    if dt == np.float32:
        centre = x[0].astype(np.float64)
    else:
        centre = _chunk_sums(x, None, 0)[0] / rows
    d1, d2 = _chunk_sums(x, centre, 1)
    mean = centre + d1 / rows
    var = np.maximum((d2 - d1 * d1 / rows) / rows, 0.0)
    scale = gamma.astype(np.float64) / np.sqrt(var + epsilon)
    y = np.empty(x.shape, dt)
    _affine_into(x, mean.astype(dt), scale.astype(dt), beta, y)
    return y, mean.astype(dt), var.astype(dt)


def batch_norm_affine(x, mean, variance, gamma, beta, double epsilon):
    """Inference forward: ``(x - mean) * gamma / sqrt(variance + epsilon) + beta`` with
    given statistics, in one pass."""
    _check("batch_norm_affine", x, [("mean", mean), ("variance", variance), ("gamma", gamma),
                                    ("beta", beta)])
    scale = gamma.astype(np.float64) / np.sqrt(variance.astype(np.float64) + epsilon)
    y = np.empty(x.shape, x.dtype)
    return _affine_into(x, mean, scale.astype(x.dtype), beta, y)


def batch_norm_grad(dy, x, gamma, mean, variance, gmean, gvar, double epsilon):
    """The training forward's gradient: ``(dx, dgamma, dbeta)`` from dy (x's shape) and the
    gradients ``gmean``, ``gvar`` of its mean and variance outputs.

    With inv = 1 / sqrt(var + eps), xhat = (x - mean) inv and M rows:
    dbeta = sum dy, dgamma = sum dy xhat, and
    dx = gamma inv (dy - dbeta / M - xhat dgamma / M) + gmean / M + 2 gvar (x - mean) / M,
    which is k1 dy + k2 (x - mean) + k3 per channel."""
    _check("batch_norm_grad", x, [("gamma", gamma), ("mean", mean), ("variance", variance),
                                  ("gmean", gmean), ("gvar", gvar)])
    if not isinstance(dy, np.ndarray) or dy.dtype != x.dtype or dy.shape != x.shape \
            or not dy.flags.c_contiguous:
        raise ValueError("batch_norm_grad: dy must be a C-contiguous %s array of x's shape %s "
                         "(got %s %s)" % (x.dtype, list(x.shape), getattr(dy, "dtype", None),
                                          list(getattr(dy, "shape", ()))))
    dt = x.dtype
    rows = x.shape[0]
    if rows == 0:
        zeros = np.zeros(x.shape[1], dt)
        return np.empty(x.shape, dt), zeros, zeros.copy()
    sg, sgx = _chunk_sums(x, mean, 2, dy)
    inv = 1.0 / np.sqrt(variance.astype(np.float64) + epsilon)
    dgamma = sgx * inv
    k1 = gamma.astype(np.float64) * inv
    k2 = -k1 * inv * inv * sgx / rows + 2.0 * gvar.astype(np.float64) / rows
    k3 = (gmean.astype(np.float64) - k1 * sg) / rows
    dx = np.empty(x.shape, dt)
    _dx_into(dy, x, mean, k1.astype(dt), k2.astype(dt), k3.astype(dt), dx)
    return dx, dgamma.astype(dt), sg.astype(dt)
