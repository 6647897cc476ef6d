# cython: language_level=3
"""Array-level CPU kernels: convolution, pooling, fused softmax cross-entropy, optimizers.

NumPy arrays in, NumPy arrays out; no Tensor and no autodiff here (the op layer wraps
these and owns the gradient bookkeeping). float32 stays float32 and float64 stays
float64: nothing is ever upcast.

The module has three layers:

1. Point functions (``cdef inline ... noexcept nogil``): ``_exp``/``_log``/``_sqrt``,
   specialised per dtype through the fused type ``floating`` so float32 uses the
   single-precision libm calls.
2. Loop functions (``cdef void _name(...) noexcept``, fused over float32/float64): typed
   1-D memoryviews over C-contiguous buffers plus a ``Geom`` struct of sizes; the body
   runs in ``with nogil`` (other Python threads keep running); they index by hand and use
   ``prange`` only where the work is large enough to pay for waking OpenMP threads
   (``use_threads_if``). Every parallel loop writes disjoint memory: im2col and col2im
   are written as gathers over output rows, pooling backward scatters within one
   batch element per thread.
3. Python wrappers (``def name(...)``): validate every argument (``ValueError`` in the
   form ``"<kernel>: <problem> (expected X, got Y)"``), allocate the outputs, pick the
   float32/float64 specialisation and make one loop call without the GIL. Large GEMMs
   go to ``np.matmul`` (OpenBLAS) with ``out=`` so no extra copy is made.

Convolutions with few channels (the small convnets' 16) skip im2col and BLAS: the direct
kernels of ``_conv_direct.h`` keep a register tile of output vectors and walk the filter
taps (see ``_direct_pays`` for the shapes and docs/conv_kernels.md for the figures).

Layouts: images are NHWC, filters HWIO, as in TensorFlow; padding follows TF exactly
(see ``conv_output_size``).
"""
from cython cimport floating
from cython.parallel cimport prange
from libc.math cimport exp, expf, log, logf, sqrt, sqrtf, INFINITY
from libc.stdint cimport int64_t
from libc.string cimport memcpy, memset
cimport openmp

import numpy as np

# Below these sizes a loop runs on the calling thread. The thresholds are high on
# purpose: these loops sit between OpenBLAS GEMMs, and on a 2-vCPU VM every hand-off
# between OpenBLAS's threads and the OpenMP team was measured to stall for up to ~8 ms
# (a scheduler tick), while the convnet-sized loops themselves take well under 1 ms
# serially. Threads only pay once a loop is long enough to amortise such a stall.
cdef Py_ssize_t _PAR_WORK = 1 << 22    # scalar operations in a conv/pool/softmax loop
cdef Py_ssize_t _PAR_ELEMS = 1 << 20   # elements in an optimizer update


cdef extern from "_fastmath.h" nogil:
    void fe_add_into_f32(float* d, const float* s, Py_ssize_t n)
    void fe_sigmoid_loop(const float* a, float* d, Py_ssize_t n)
    void fe_add_into_f64(double* d, const double* s, Py_ssize_t n)
    void fe_sum_rows_f32(const float* x, Py_ssize_t outer, Py_ssize_t n, Py_ssize_t inner,
                         float* out)
    void fe_sum_rows_f64(const double* x, Py_ssize_t outer, Py_ssize_t n, Py_ssize_t inner,
                         double* out)
    void fe_relu_grad_f32(const float* g, const float* x, float* out, Py_ssize_t n)
    void fe_relu_grad_sum_f32(const float* g, const float* x, float* dz, Py_ssize_t rows,
                              Py_ssize_t inner, float* total)
    void fe_relu_grad_sum_f64(const double* g, const double* x, double* dz, Py_ssize_t rows,
                              Py_ssize_t inner, double* total)
    void fe_relu_grad_f64(const double* g, const double* x, double* out, Py_ssize_t n)


cdef extern from "_conv_direct.h" nogil:
    ctypedef struct fe_conv_geom:
        Py_ssize_t OH, OW, O, yimg, yrow, ypix, img, row, C, sh, sw, K, span
        const Py_ssize_t* off
        int level
        const void* bias
        int relu
    int fe_conv_level()
    int fe_conv_direct_fast()
    int fe_conv_fwd_pairs(Py_ssize_t K)
    void fe_conv_fwd_f32(const float* x, const float* wp, float* y, const fe_conv_geom* g,
                         Py_ssize_t r0, Py_ssize_t r1)
    void fe_conv_fwd_f64(const double* x, const double* wp, double* y,
                         const fe_conv_geom* g, Py_ssize_t r0, Py_ssize_t r1)
    void fe_conv_bwf_f32(const float* x, const float* dy, float* dwp, const fe_conv_geom* g,
                         Py_ssize_t n0, Py_ssize_t n1)
    void fe_conv_bwf_f64(const double* x, const double* dy, double* dwp,
                         const fe_conv_geom* g, Py_ssize_t n0, Py_ssize_t n1)


cdef struct Geom:
    Py_ssize_t N, H, W, C      # input (NHWC)
    Py_ssize_t KH, KW, O       # window / filter (HWIO)
    Py_ssize_t OH, OW          # output spatial size
    Py_ssize_t sh, sw, dh, dw  # strides, dilations
    Py_ssize_t pt, pl          # padding before (top, left)


# ----------------------------------------------------------------------------------------
# Layer 1: point functions
# ----------------------------------------------------------------------------------------

cdef inline floating _exp(floating v) noexcept nogil:
    if floating is float:
        return expf(v)
    else:
        return exp(v)


cdef inline floating _sqrt(floating v) noexcept nogil:
    if floating is float:
        return sqrtf(v)
    else:
        return sqrt(v)


cdef inline Py_ssize_t _imax(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    return a if a > b else b


cdef inline Py_ssize_t _imin(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    return a if a < b else b


# ----------------------------------------------------------------------------------------
# Layer 2: loops
# ----------------------------------------------------------------------------------------

cdef inline void _copy(floating* dst, const floating* src, Py_ssize_t n) noexcept nogil:
    # short runs (a 3-wide row of a few channels) are cheaper as a loop than a memcpy call
    cdef Py_ssize_t j
    if n <= 64:
        for j in range(n):
            dst[j] = src[j]
    else:
        memcpy(dst, src, n * sizeof(floating))


cdef inline void _zero(floating* dst, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t j
    if n <= 32:
        for j in range(n):
            dst[j] = 0
    else:
        memset(dst, 0, n * sizeof(floating))


cdef void _im2col(const floating[::1] x, floating[::1] cols, Geom g) noexcept:
    # cols[(n*OH + oh)*OW + ow, (kh*KW + kw)*C + c] = x[n, ih, iw, c], zero in the padding.
    cdef Py_ssize_t r, n, oh, ow, kh, kw, ih, iw, iw0, c
    cdef Py_ssize_t K = g.KH * g.KW * g.C, span = g.KW * g.C
    cdef const floating* src
    cdef floating* dst
    with nogil:
        for r in prange(g.N * g.OH, schedule="static",
                        use_threads_if=g.N * g.OH * g.OW * K > _PAR_WORK):
            n = r // g.OH
            oh = r % g.OH
            for ow in range(g.OW):
                dst = &cols[(r * g.OW + ow) * K]
                iw0 = ow * g.sw - g.pl
                for kh in range(g.KH):
                    ih = oh * g.sh - g.pt + kh * g.dh
                    if ih < 0 or ih >= g.H:
                        _zero(dst + kh * span, span)
                    elif g.dw == 1 and iw0 >= 0 and iw0 + g.KW <= g.W:
                        # the whole kernel row is one contiguous run of x
                        src = &x[((n * g.H + ih) * g.W + iw0) * g.C]
                        _copy(dst + kh * span, src, span)
                    else:
                        for kw in range(g.KW):
                            iw = iw0 + kw * g.dw
                            if iw < 0 or iw >= g.W:
                                _zero(dst + kh * span + kw * g.C, g.C)
                            else:
                                src = &x[((n * g.H + ih) * g.W + iw) * g.C]
                                for c in range(g.C):
                                    dst[kh * span + kw * g.C + c] = src[c]


cdef void _col2im(const floating[::1] cols, floating[::1] dx, Geom g) noexcept:
    # Adjoint of _im2col: each column row is added back where im2col read it from. The
    # loop mirrors _im2col (a kernel row is one contiguous run of dx when the dilation is
    # 1), and is parallel over images, whose parts of dx are disjoint.
    cdef Py_ssize_t n, oh, ow, kh, kw, ih, iw, iw0
    cdef Py_ssize_t K = g.KH * g.KW * g.C, span = g.KW * g.C, image = g.H * g.W * g.C
    cdef const floating* src
    with nogil:
        for n in prange(g.N, schedule="static",
                        use_threads_if=g.N > 1 and g.N * g.OH * g.OW * K > _PAR_WORK):
            memset(&dx[n * image], 0, image * sizeof(floating))
            for oh in range(g.OH):
                for ow in range(g.OW):
                    src = &cols[((n * g.OH + oh) * g.OW + ow) * K]
                    iw0 = ow * g.sw - g.pl
                    for kh in range(g.KH):
                        ih = oh * g.sh - g.pt + kh * g.dh
                        if ih < 0 or ih >= g.H:
                            continue
                        if g.dw == 1 and iw0 >= 0 and iw0 + g.KW <= g.W:
                            _add_into(&dx[((n * g.H + ih) * g.W + iw0) * g.C],
                                      src + kh * span, span)
                        else:
                            for kw in range(g.KW):
                                iw = iw0 + kw * g.dw
                                if iw >= 0 and iw < g.W:
                                    _add_into(&dx[((n * g.H + ih) * g.W + iw) * g.C],
                                              src + kh * span + kw * g.C, g.C)


cdef inline void _add_into(floating* d, const floating* s, Py_ssize_t n) noexcept nogil:
    if floating is float:
        fe_add_into_f32(d, s, n)
    else:
        fe_add_into_f64(d, s, n)


cdef void _max_pool_fwd(const floating[::1] x, floating[::1] y, int64_t[::1] arg,
                        Geom g) noexcept:
    # Padded cells are never visited, which is the same as padding with -inf.
    cdef Py_ssize_t r, n, oh, ow, h0, w0, hlo, hhi, wlo, whi, ih, iw, c, base
    cdef floating v
    cdef floating* yp
    cdef int64_t* ap
    cdef bint first
    with nogil:
        for r in prange(g.N * g.OH, schedule="static",
                        use_threads_if=g.N * g.OH * g.OW * g.C * g.KH * g.KW > _PAR_WORK):
            n = r // g.OH
            oh = r % g.OH
            h0 = oh * g.sh - g.pt
            hlo = _imax(h0, 0)
            hhi = _imin(h0 + g.KH, g.H)
            for ow in range(g.OW):
                w0 = ow * g.sw - g.pl
                wlo = _imax(w0, 0)
                whi = _imin(w0 + g.KW, g.W)
                yp = &y[(r * g.OW + ow) * g.C]
                ap = &arg[(r * g.OW + ow) * g.C]
                first = True
                for ih in range(hlo, hhi):
                    for iw in range(wlo, whi):
                        base = ((n * g.H + ih) * g.W + iw) * g.C
                        if first:
                            for c in range(g.C):
                                yp[c] = x[base + c]
                                ap[c] = base + c
                            first = False
                        else:
                            for c in range(g.C):
                                v = x[base + c]
                                # first maximum wins; a NaN sticks once seen
                                if v > yp[c] or v != v:
                                    yp[c] = v
                                    ap[c] = base + c


cdef Py_ssize_t _max_pool_bwd(const floating[::1] dy, const int64_t[::1] arg,
                              floating[::1] dx, Py_ssize_t N, Py_ssize_t out_per_n,
                              Py_ssize_t in_per_n) noexcept:
    # Scatter-add; a thread owns whole batch elements so writes never collide. Returns
    # the number of indices outside their batch element (they are skipped).
    cdef Py_ssize_t n, j, lo, hi, bad = 0
    cdef int64_t idx
    with nogil:
        for n in prange(N, schedule="static", use_threads_if=N * out_per_n > _PAR_WORK):
            lo = n * in_per_n
            hi = lo + in_per_n
            memset(&dx[lo], 0, in_per_n * sizeof(floating))
            for j in range(n * out_per_n, (n + 1) * out_per_n):
                idx = arg[j]
                if idx < lo or idx >= hi:
                    bad += 1
                else:
                    dx[idx] = dx[idx] + dy[j]
        return bad


cdef void _avg_pool_fwd(const floating[::1] x, floating[::1] y, Geom g) noexcept:
    # Divides by the number of valid (non-padded) cells in each window, as TF does.
    cdef Py_ssize_t r, n, oh, ow, h0, w0, hlo, hhi, wlo, whi, ih, iw, c, base
    cdef floating inv
    cdef floating* yp
    with nogil:
        for r in prange(g.N * g.OH, schedule="static",
                        use_threads_if=g.N * g.OH * g.OW * g.C * g.KH * g.KW > _PAR_WORK):
            n = r // g.OH
            oh = r % g.OH
            h0 = oh * g.sh - g.pt
            hlo = _imax(h0, 0)
            hhi = _imin(h0 + g.KH, g.H)
            for ow in range(g.OW):
                w0 = ow * g.sw - g.pl
                wlo = _imax(w0, 0)
                whi = _imin(w0 + g.KW, g.W)
                yp = &y[(r * g.OW + ow) * g.C]
                memset(yp, 0, g.C * sizeof(floating))
                for ih in range(hlo, hhi):
                    for iw in range(wlo, whi):
                        base = ((n * g.H + ih) * g.W + iw) * g.C
                        for c in range(g.C):
                            yp[c] = yp[c] + x[base + c]
                inv = <floating>1.0 / <floating>((hhi - hlo) * (whi - wlo))
                for c in range(g.C):
                    yp[c] = yp[c] * inv


cdef void _avg_pool_bwd(const floating[::1] dy, floating[::1] dx, Geom g) noexcept:
    cdef Py_ssize_t n, oh, ow, h0, w0, hlo, hhi, wlo, whi, ih, iw, c, base, obase
    cdef Py_ssize_t in_per_n = g.H * g.W * g.C
    cdef floating inv
    with nogil:
        for n in prange(g.N, schedule="static",
                        use_threads_if=g.N * g.OH * g.OW * g.C * g.KH * g.KW > _PAR_WORK):
            memset(&dx[n * in_per_n], 0, in_per_n * sizeof(floating))
            for oh in range(g.OH):
                h0 = oh * g.sh - g.pt
                hlo = _imax(h0, 0)
                hhi = _imin(h0 + g.KH, g.H)
                for ow in range(g.OW):
                    w0 = ow * g.sw - g.pl
                    wlo = _imax(w0, 0)
                    whi = _imin(w0 + g.KW, g.W)
                    inv = <floating>1.0 / <floating>((hhi - hlo) * (whi - wlo))
                    obase = ((n * g.OH + oh) * g.OW + ow) * g.C
                    for ih in range(hlo, hhi):
                        for iw in range(wlo, whi):
                            base = ((n * g.H + ih) * g.W + iw) * g.C
                            for c in range(g.C):
                                dx[base + c] = dx[base + c] + dy[obase + c] * inv


cdef inline floating _row_max(const floating* row, Py_ssize_t K) noexcept nogil:
    cdef floating m = -INFINITY
    cdef Py_ssize_t k
    for k in range(K):
        if row[k] > m:
            m = row[k]
    return m


cdef void _softmax_rows(const floating[::1] x, floating[::1] out, Py_ssize_t B,
                        Py_ssize_t K, bint take_log) noexcept:
    # Max-subtraction keeps exp() in range; log_softmax = (x - m) - log(sum exp(x - m)).
    cdef Py_ssize_t b, k
    cdef const floating* row
    cdef floating* o
    cdef floating m, e, shift
    cdef double s
    with nogil:
        for b in prange(B, schedule="static", use_threads_if=B * K > _PAR_WORK):
            row = &x[b * K]
            o = &out[b * K]
            m = _row_max(row, K)
            s = 0.0
            for k in range(K):
                e = _exp(row[k] - m)
                o[k] = e
                s = s + e
            if take_log:
                shift = <floating>log(s)
                for k in range(K):
                    o[k] = (row[k] - m) - shift
            else:
                e = <floating>(1.0 / s)
                for k in range(K):
                    o[k] = o[k] * e


cdef Py_ssize_t _first_out_of_range(const int64_t[::1] labels, Py_ssize_t K) noexcept:
    """The first row whose label is not in [0, K), or -1 (one pass, no temporaries)."""
    cdef Py_ssize_t b
    for b in range(labels.shape[0]):
        if labels[b] < 0 or labels[b] >= K:
            return b
    return -1


cdef void _sparse_xent(const floating[::1] x, const int64_t[::1] labels, floating[::1] loss,
                       floating[::1] d, Py_ssize_t B, Py_ssize_t K) noexcept:
    # loss = logsumexp(x) - x[label] = log(sum exp(x - m)) - (x[label] - m)
    # dloss/dx = softmax(x) - onehot(label); exp(-inf - m) = 0 gives masks zero gradient.
    cdef Py_ssize_t b, k, lab
    cdef const floating* row
    cdef floating* o
    cdef floating m, e
    cdef double s
    with nogil:
        for b in prange(B, schedule="static", use_threads_if=B * K > _PAR_WORK):
            row = &x[b * K]
            o = &d[b * K]
            lab = labels[b]
            m = _row_max(row, K)
            s = 0.0
            for k in range(K):
                e = _exp(row[k] - m)
                o[k] = e
                s = s + e
            loss[b] = <floating>log(s) - (row[lab] - m)
            e = <floating>(1.0 / s)
            for k in range(K):
                o[k] = o[k] * e
            o[lab] = o[lab] - 1


cdef void _dense_xent(const floating[::1] x, const floating[::1] y, floating[::1] loss,
                      floating[::1] d, Py_ssize_t B, Py_ssize_t K) noexcept:
    # loss = -sum y * log_softmax(x); dloss/dx = softmax(x) * sum(y) - y.
    # Cells with y == 0 are skipped in the loss so a -inf mask contributes 0, not NaN.
    cdef Py_ssize_t b, k
    cdef const floating* row
    cdef const floating* lab
    cdef floating* o
    cdef floating m, e, lse
    cdef double s, ysum, acc
    with nogil:
        for b in prange(B, schedule="static", use_threads_if=B * K > _PAR_WORK):
            row = &x[b * K]
            lab = &y[b * K]
            o = &d[b * K]
            m = _row_max(row, K)
            s = 0.0
            ysum = 0.0
            for k in range(K):
                e = _exp(row[k] - m)
                o[k] = e
                s = s + e
                ysum = ysum + lab[k]
            lse = <floating>log(s)
            acc = 0.0
            for k in range(K):
                if lab[k] != 0:
                    acc = acc - lab[k] * ((row[k] - m) - lse)
            loss[b] = <floating>acc
            e = <floating>(ysum / s)
            for k in range(K):
                o[k] = o[k] * e - lab[k]


# Optimizer updates: one pass over the elements, in place. The formulas follow Keras 3's
# update_step (keras/src/optimizers/{sgd,adam,rmsprop,adagrad}.py), operation by
# operation, in the variable's dtype. One difference: scalar coefficients (Adam's
# bias-corrected lr, weight_decay*lr, 1-beta) are formed once in double precision and
# then rounded to the variable's dtype, where Keras forms them in the variable's dtype.

cdef extern from "_opt_kernels.h" nogil:
    void fe_sgd_f32(float* var, const float* g, float* vel, float lr, float mom,
                    int use_mom, int nesterov, Py_ssize_t n)
    void fe_sgd_f64(double* var, const double* g, double* vel, double lr, double mom,
                    int use_mom, int nesterov, Py_ssize_t n)
    void fe_adam_f32(float* var, float* m, float* v, const float* g, float* vhat,
                     float alpha, float one_m_b1, float one_m_b2, float eps, float decay,
                     int use_decay, int amsgrad, Py_ssize_t n)
    void fe_adam_f64(double* var, double* m, double* v, const double* g, double* vhat,
                     double alpha, double one_m_b1, double one_m_b2, double eps,
                     double decay, int use_decay, int amsgrad, Py_ssize_t n)

# The SGD and Adam loops are _opt_kernels.h's (vectorised, one per case); long updates
# run as chunks on the OpenMP team.
cdef Py_ssize_t _OPT_CHUNK = 1 << 16


cdef void _sgd_loop(floating[::1] var, const floating[::1] g, floating[::1] vel,
                    floating lr, floating mom, bint use_mom, bint nesterov) noexcept:
    cdef Py_ssize_t c, lo, n = var.shape[0]
    cdef Py_ssize_t chunks = (n + _OPT_CHUNK - 1) // _OPT_CHUNK
    cdef floating* vp = NULL
    if n == 0:
        return
    if use_mom:
        vp = &vel[0]
    with nogil:
        for c in prange(chunks, schedule="static", use_threads_if=n > _PAR_ELEMS):
            lo = c * _OPT_CHUNK
            if floating is float:
                fe_sgd_f32(&var[lo], &g[lo], vp + lo if use_mom else NULL, lr, mom,
                           use_mom, nesterov, min(n - lo, _OPT_CHUNK))
            else:
                fe_sgd_f64(&var[lo], &g[lo], vp + lo if use_mom else NULL, lr, mom,
                           use_mom, nesterov, min(n - lo, _OPT_CHUNK))


cdef void _adam_loop(floating[::1] var, floating[::1] m, floating[::1] v,
                     const floating[::1] g, floating[::1] vhat, floating alpha,
                     floating one_m_b1, floating one_m_b2, floating eps, floating decay,
                     bint use_decay, bint amsgrad) noexcept:
    cdef Py_ssize_t c, lo, n = var.shape[0]
    cdef Py_ssize_t chunks = (n + _OPT_CHUNK - 1) // _OPT_CHUNK
    cdef floating* hp = NULL
    if n == 0:
        return
    if amsgrad:
        hp = &vhat[0]
    with nogil:
        for c in prange(chunks, schedule="static", use_threads_if=n > _PAR_ELEMS):
            lo = c * _OPT_CHUNK
            if floating is float:
                fe_adam_f32(&var[lo], &m[lo], &v[lo], &g[lo], hp + lo if amsgrad else NULL,
                            alpha, one_m_b1, one_m_b2, eps, decay, use_decay, amsgrad,
                            min(n - lo, _OPT_CHUNK))
            else:
                fe_adam_f64(&var[lo], &m[lo], &v[lo], &g[lo], hp + lo if amsgrad else NULL,
                            alpha, one_m_b1, one_m_b2, eps, decay, use_decay, amsgrad,
                            min(n - lo, _OPT_CHUNK))


cdef void _rmsprop_loop(floating[::1] var, floating[::1] rms, const floating[::1] g,
                        floating[::1] mom, floating[::1] mg, floating lr, floating rho,
                        floating one_m_rho, floating momentum, floating eps,
                        bint use_mom, bint centered) noexcept:
    cdef Py_ssize_t i, n = var.shape[0]
    cdef floating gi, r, a, denom, inc
    with nogil:
        for i in prange(n, schedule="static", use_threads_if=n > _PAR_ELEMS):
            gi = g[i]
            r = rho * rms[i] + one_m_rho * (gi * gi)
            rms[i] = r
            if centered:
                a = rho * mg[i] + one_m_rho * gi
                mg[i] = a
                denom = r - a * a + eps
            else:
                denom = r + eps
            inc = (lr * gi) / _sqrt(denom)
            if use_mom:
                inc = momentum * mom[i] + inc
                mom[i] = inc
            var[i] = var[i] - inc


cdef void _adagrad_loop(floating[::1] var, floating[::1] acc, const floating[::1] g,
                        floating lr, floating eps) noexcept:
    cdef Py_ssize_t i, n = var.shape[0]
    cdef floating gi, a
    with nogil:
        for i in prange(n, schedule="static", use_threads_if=n > _PAR_ELEMS):
            gi = g[i]
            a = acc[i] + gi * gi
            acc[i] = a
            var[i] = var[i] - (lr * gi) / _sqrt(a + eps)


# ----------------------------------------------------------------------------------------
# Layer 3: Python wrappers (validate, allocate, one call)
# ----------------------------------------------------------------------------------------

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _float_array(kernel, name, a, ndim=None):
    """Return `a` as a C-contiguous float32/float64 ndarray (no dtype conversion)."""
    if not isinstance(a, np.ndarray):
        raise ValueError(f"{kernel}: {name} must be a numpy array "
                         f"(expected numpy.ndarray, got {type(a).__name__})")
    if a.dtype not in _FLOATS:
        raise ValueError(f"{kernel}: {name} has an unsupported dtype "
                         f"(expected float32 or float64, got {a.dtype})")
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{kernel}: {name} has the wrong rank "
                         f"(expected {ndim}-D, got {a.ndim}-D with shape {a.shape})")
    return np.ascontiguousarray(a)


def _same_dtype(kernel, name, a, ref_name, ref):
    if a.dtype != ref.dtype:
        raise ValueError(f"{kernel}: {name} must have the dtype of {ref_name} "
                         f"(expected {ref.dtype}, got {a.dtype})")


def _pair(kernel, name, v):
    try:
        t = (int(v), int(v)) if np.ndim(v) == 0 else tuple(int(i) for i in v)
    except (TypeError, ValueError):
        raise ValueError(f"{kernel}: {name} must be an int or a pair of ints "
                         f"(expected (h, w), got {v!r})") from None
    if len(t) != 2 or t[0] < 1 or t[1] < 1:
        raise ValueError(f"{kernel}: {name} must be a pair of positive ints "
                         f"(expected (h, w) >= 1, got {v!r})")
    return t


def _padding(kernel, padding):
    p = padding.upper() if isinstance(padding, str) else padding
    if p not in ("VALID", "SAME"):
        raise ValueError(f"{kernel}: unknown padding (expected 'VALID' or 'SAME', "
                         f"got {padding!r})")
    return p


def conv_output_size(in_size, k, stride=1, dilation=1, padding="VALID"):
    """Output length and padding of one spatial axis, with TensorFlow's rules.

    Returns ``(out, pad_before, pad_after)``. With effective kernel
    ``ke = (k - 1) * dilation + 1``: ``'VALID'`` gives ``out = ceil((in - ke + 1) / stride)``
    and no padding; ``'SAME'`` gives ``out = ceil(in / stride)`` and
    ``pad_total = max((out - 1) * stride + ke - in, 0)``, split with the extra cell after.
    Raises ValueError when the output would be negative.

    >>> conv_output_size(7, 3, 2, 1, "SAME")
    (4, 1, 1)
    """
    in_size, k, stride, dilation = int(in_size), int(k), int(stride), int(dilation)
    ke = (k - 1) * dilation + 1
    p = _padding("conv_output_size", padding)
    if p == "VALID":
        out = -(-(in_size - ke + 1) // stride)
        if out < 0:
            raise ValueError(f"conv_output_size: window larger than the input "
                             f"(expected effective window <= {in_size}, got {ke})")
        return out, 0, 0
    out = -(-in_size // stride)
    total = max((out - 1) * stride + ke - in_size, 0)
    return out, total // 2, total - total // 2


cdef Geom _geom(kernel, x_shape, kh, kw, o, strides, padding, dilations) except *:
    cdef Geom g
    g.N, g.H, g.W, g.C = x_shape
    g.KH, g.KW, g.O = kh, kw, o
    g.sh, g.sw = strides
    g.dh, g.dw = dilations
    g.OH, g.pt, _ = conv_output_size(g.H, kh, g.sh, g.dh, padding)
    g.OW, g.pl, _ = conv_output_size(g.W, kw, g.sw, g.dw, padding)
    return g


cdef Geom _conv_args(kernel, x_shape, w_shape, strides, padding, dilations) except *:
    strides = _pair(kernel, "strides", strides)
    dilations = _pair(kernel, "dilations", dilations)
    padding = _padding(kernel, padding)
    if x_shape[3] != w_shape[2]:
        raise ValueError(f"{kernel}: input channels of x and w differ "
                         f"(expected w.shape[2] == {x_shape[3]}, got {w_shape[2]})")
    try:
        return _geom(kernel, x_shape, w_shape[0], w_shape[1], w_shape[3], strides, padding,
                     dilations)
    except ValueError as e:
        raise ValueError(f"{kernel}: {str(e).split(': ', 1)[1]}") from None


def _shape4(kernel, name, s):
    try:
        t = tuple(int(i) for i in s)
    except (TypeError, ValueError):
        t = None
    if t is None or len(t) != 4 or min(t) < 0:
        raise ValueError(f"{kernel}: {name} must be 4 non-negative ints "
                         f"(expected a 4-tuple, got {s!r})")
    return t


cdef inline bint _pointwise(Geom g) noexcept:
    # A 1x1 window with stride 1 never pads (SAME or VALID) and im2col is the identity.
    return g.KH == 1 and g.KW == 1 and g.sh == 1 and g.sw == 1


cdef inline bint _one_by_one(Geom g) noexcept:
    # A 1x1 window never pads either (ceil(H / s) windows of one pixel fit in H) at any
    # stride: the convolution is one GEMM of the pixels it reads, with no im2col.
    return g.KH == 1 and g.KW == 1


cdef _one_by_one_pixels(x, Geom g):
    # (N*OH*OW, C): the pixels a 1x1 convolution reads; a view of x at stride 1, else
    # every sh-th row and sw-th column copied (1 / (sh * sw) of x)
    if _pointwise(g):
        return x.reshape(g.N * g.H * g.W, g.C)
    return np.ascontiguousarray(
        x[:, :(g.OH - 1) * g.sh + 1:g.sh, :(g.OW - 1) * g.sw + 1:g.sw]).reshape(
            g.N * g.OH * g.OW, g.C)


cdef _one_by_one_input_grad(dy, w2t, Geom g):
    # dx of a 1x1 convolution: dy @ w.T lands on the pixels the windows read; the others
    # (stride > 1) get zeros
    cdef Py_ssize_t rows = g.N * g.OH * g.OW
    if _pointwise(g):
        dx = np.empty((g.N, g.H, g.W, g.C), dtype=dy.dtype)
        np.matmul(dy.reshape(rows, g.O), w2t, out=dx.reshape(rows, g.C))
        return dx
    dx = np.zeros((g.N, g.H, g.W, g.C), dtype=dy.dtype)
    dx[:, :(g.OH - 1) * g.sh + 1:g.sh, :(g.OW - 1) * g.sw + 1:g.sw] = np.matmul(
        dy.reshape(rows, g.O), w2t).reshape(g.N, g.OH, g.OW, g.C)
    return dx


def conv2d_output_shape(x_shape, w_shape, strides=(1, 1), padding="VALID",
                        dilations=(1, 1)):
    """Output shape (N, OH, OW, O) of conv2d_forward for NHWC x_shape and HWIO w_shape."""
    xs = _shape4("conv2d_output_shape", "x_shape", x_shape)
    ws = _shape4("conv2d_output_shape", "w_shape", w_shape)
    cdef Geom g = _conv_args("conv2d_output_shape", xs, ws, strides, padding, dilations)
    return (g.N, g.OH, g.OW, g.O)


# im2col buffers hold at most this many bytes; larger batches are processed a block of
# images at a time through one reused buffer. Small blocks (~2 MiB, cache-sized) were
# measured slower on a 2-vCPU VM: each block hands work between the OpenMP team and
# OpenBLAS's threads, and every hand-off can stall for a scheduler tick.
_block_bytes = 64 << 20


cdef Py_ssize_t _images_per_block(Geom g, Py_ssize_t itemsize):
    cdef Py_ssize_t per = g.OH * g.OW * g.KH * g.KW * g.C * itemsize
    cdef Py_ssize_t cap = _block_bytes
    return _imax(1, _imin(g.N, cap // _imax(per, 1)))


cdef _im2col_run(xb, cb, Geom gb):
    if cb.size == 0:
        return
    if xb.dtype == np.float32:
        _im2col[float](xb.reshape(-1), cb.reshape(-1), gb)
    else:
        _im2col[double](xb.reshape(-1), cb.reshape(-1), gb)


cdef _col2im_run(cb, dxb, Geom gb):
    if dxb.size == 0:
        return
    if cb.dtype == np.float32:
        _col2im[float](cb.reshape(-1), dxb.reshape(-1), gb)
    else:
        _col2im[double](cb.reshape(-1), dxb.reshape(-1), gb)


# -- direct convolution (no im2col buffer; _conv_direct.h) ---------------------------------
# Chosen by shape ("auto"): see _direct_pays. "direct" and "im2col" force a path (tests
# compare the two on the same inputs).

cdef bint _DIRECT_FAST = fe_conv_direct_fast()
direct_conv_vectorised = bool(_DIRECT_FAST)  # whether 'auto' ever picks the direct kernels
cdef enum:
    _FORWARD, _INPUT_GRAD, _FILTER_GRAD
_ALGORITHMS = ("auto", "direct", "im2col")
# the direct kernels' compiled variant: the best this CPU runs, or (tests of the others
# on one machine) at most AVX2 or the baseline
_DIRECT_LEVELS = {"direct": 2, "direct-avx2": 1, "direct-baseline": 0}


def _algorithm(kernel, algorithm):
    if not isinstance(algorithm, str) or (algorithm not in _ALGORITHMS
                                          and algorithm not in _DIRECT_LEVELS):
        raise ValueError(f"{kernel}: unknown algorithm (expected 'auto', 'direct' or "
                         f"'im2col', got {algorithm!r})")
    return algorithm


cdef bint _direct_pays(Geom g, int kind, Py_ssize_t L) noexcept:
    # Measured on AVX-512 (figures in docs/conv_kernels.md), float32 and float64, CPU time
    # of A/B rounds in one process: the direct kernels beat im2col + OpenBLAS 2-6x at 16
    # channels in the result (the vector lanes: O, or C for the input gradient) and still
    # win at 32; at 64 they win for the filter gradient and tie for the forward pass and
    # the input gradient (once a tile of two channel blocks keeps to filters that stay in
    # L1; a strided forward pass with filters too large for that loses); at 128 BLAS is
    # as fast. Ties go to the direct kernels: they run in our own OpenMP team, while a
    # multithreaded GEMM left OpenBLAS's threads spinning after it (perf of the ResNet
    # step: blas_thread_server 17% of all CPU time, for 1.3% spent in sgemm itself). With under half of their L-lane vectors in use they lose (the filter
    # gradient already at half). 1x1 stride-1 filters need no im2col at all (one GEMM of
    # x itself). The input gradient of a strided convolution runs by phases (see
    # _direct_input_grad_phases); with dilation as well it would need the zero-upsampled
    # gradient (stride_h * stride_w times the work): BLAS.
    if not _DIRECT_FAST or _pointwise(g):
        return False
    cdef bint strided = g.sh != 1 or g.sw != 1
    if kind == _INPUT_GRAD and strided and (g.dh != 1 or g.dw != 1):
        return False
    cdef Py_ssize_t lanes_used = g.C if kind == _INPUT_GRAD else g.O
    cdef Py_ssize_t lanes = (lanes_used + L - 1) // L * L
    if lanes_used > 64:
        return False
    # strided, past 32 channels: only with two-block tiles (else 1.5x slower than BLAS)
    if kind == _FORWARD and strided and lanes_used > 32 and \
            not fe_conv_fwd_pairs(g.KH * g.KW * g.C):
        return False
    if kind == _FILTER_GRAD:
        return 2 * lanes_used > lanes
    return 2 * lanes_used >= lanes


cdef int _direct_level(kernel, algorithm, Geom g, int kind, dtype, bint empty) except -2:
    # the variant of the direct kernels to run, or -1: im2col
    algorithm = _algorithm(kernel, algorithm)
    if empty:  # nothing to compute: the im2col path handles every empty shape
        return -1
    if algorithm == "auto":
        return fe_conv_level() if _direct_pays(g, kind, _lanes(dtype)) else -1
    if algorithm == "im2col":
        return -1
    return min(_DIRECT_LEVELS[algorithm], fe_conv_level())


def _auto_is_direct(kernel, x_shape, w_shape, strides=(1, 1), padding="VALID",
                    dilations=(1, 1), dtype=np.float32):
    """Whether algorithm='auto' runs `kernel` ('conv2d_forward', 'conv2d_backward_input'
    or 'conv2d_backward_filter') on the direct kernels for these (non-empty) shapes."""
    kinds = {"conv2d_forward": _FORWARD, "conv2d_backward_input": _INPUT_GRAD,
             "conv2d_backward_filter": _FILTER_GRAD}
    if kernel not in kinds:
        raise ValueError(f"_auto_is_direct: unknown kernel (expected one of "
                         f"{', '.join(kinds)}, got {kernel!r})")
    cdef Geom g = _conv_args(kernel, _shape4(kernel, "x_shape", x_shape),
                             _shape4(kernel, "w_shape", w_shape), strides, padding, dilations)
    return _direct_pays(g, kinds[kernel], _lanes(np.dtype(dtype)))


cdef Py_ssize_t _lanes(dtype) noexcept:
    # lanes of one 64-byte vector of _conv_direct.h
    return 16 if dtype == np.float32 else 8


def _window_grid(src, Py_ssize_t pt, Py_ssize_t pl, Py_ssize_t hp, Py_ssize_t wp,
                 Py_ssize_t uh=1, Py_ssize_t uw=1):
    """(grid, image stride, row stride): src (N, Hs, Ws, C) with its pixel (i, j) at
    (pt + i*uh, pl + j*uw) of a zero (N, hp, wp, C) grid that holds every window the
    direct kernel reads (uh, uw > 1: the zero-upsampled gradient of a strided
    convolution). src itself when it already is such a grid (no padding read). Checks
    its arguments; the convolutions, which checked theirs, call ``_grid``."""
    src = _float_array("_window_grid", "src", src, 4)
    if pt < 0 or pl < 0 or hp < 0 or wp < 0 or uh < 1 or uw < 1:
        raise ValueError(f"_window_grid: offsets and sizes must be >= 0 and steps >= 1 "
                         f"(got pt={pt}, pl={pl}, hp={hp}, wp={wp}, uh={uh}, uw={uw})")
    return _grid(src, pt, pl, hp, wp, uh, uw)


cdef tuple _grid(src, Py_ssize_t pt, Py_ssize_t pl, Py_ssize_t hp, Py_ssize_t wp,
                 Py_ssize_t uh, Py_ssize_t uw):
    cdef Py_ssize_t n = src.shape[0], hs = src.shape[1], ws = src.shape[2], c = src.shape[3]
    cdef Py_ssize_t h, w
    if pt == 0 and pl == 0 and uh == 1 and uw == 1 and hp <= hs and wp <= ws:
        return src, hs * ws * c, ws * c
    # the source rows and columns that land inside the grid
    h = _imin(hs, (hp - pt + uh - 1) // uh) if hp > pt else 0
    w = _imin(ws, (wp - pl + uw - 1) // uw) if wp > pl else 0
    if uh == 1 and uw == 1 and n * hp * wp * c > 0:
        # one pass that writes each grid element once (np.zeros and a strided assignment
        # took 0.63 ms CPU for a (64, 34, 34, 16) grid, this 0.40 ms, most of it the
        # page faults of fresh memory outside fasteager's array cache)
        grid = np.empty((n, hp, wp, c), dtype=src.dtype)
        _pad_copy_run(np.ascontiguousarray(src), grid, pt, pl, h, w)
        return grid, hp * wp * c, wp * c
    grid = np.zeros((n, hp, wp, c), dtype=src.dtype)
    if h > 0 and w > 0:
        grid[:, pt:pt + (h - 1) * uh + 1:uh, pl:pl + (w - 1) * uw + 1:uw] = src[:, :h, :w]
    return grid, hp * wp * c, wp * c


cdef void _pad_copy(const floating* src, floating* grid, Py_ssize_t rows, Py_ssize_t hs,
                    Py_ssize_t ws, Py_ssize_t c, Py_ssize_t hp, Py_ssize_t wp, Py_ssize_t pt,
                    Py_ssize_t pl, Py_ssize_t h, Py_ssize_t w) noexcept nogil:
    # grid row r = (image, i): source row i - pt at column pl when 0 <= i - pt < h, zero
    # around it; rows of images run in parallel once the copy is large
    cdef Py_ssize_t r, i, row = wp * c
    cdef floating* g
    for r in prange(rows, schedule="static", use_threads_if=rows * row > _PAR_ELEMS):
        i = r % hp - pt
        g = grid + r * row
        if i < 0 or i >= h:
            _zero(g, row)
        else:
            _zero(g, pl * c)
            _copy(g + pl * c, src + ((r // hp) * hs + i) * ws * c, w * c)
            _zero(g + (pl + w) * c, row - (pl + w) * c)


cdef _pad_copy_run(src, grid, Py_ssize_t pt, Py_ssize_t pl, Py_ssize_t h, Py_ssize_t w):
    cdef Py_ssize_t n = grid.shape[0], hp = grid.shape[1], wp = grid.shape[2]
    cdef Py_ssize_t c = grid.shape[3], hs = src.shape[1], ws = src.shape[2]
    cdef const float[::1] sf
    cdef float[::1] gf
    cdef const double[::1] sd
    cdef double[::1] gd
    if h <= 0 or w <= 0:  # no source pixel lands in the grid
        grid.fill(0)
        return
    if grid.dtype == np.float32:
        sf, gf = src.reshape(-1), grid.reshape(-1)
        with nogil:
            _pad_copy[float](&sf[0], &gf[0], n * hp, hs, ws, c, hp, wp, pt, pl, h, w)
    else:
        sd, gd = src.reshape(-1), grid.reshape(-1)
        with nogil:
            _pad_copy[double](&sd[0], &gd[0], n * hp, hs, ws, c, hp, wp, pt, pl, h, w)


cdef _tap_offsets(Geom g, Py_ssize_t row):
    # element offset of tap (kh, kw, c) from a window origin, in HWIO row order
    kh = np.arange(g.KH, dtype=np.intp)[:, None, None] * (g.dh * row)
    kw = np.arange(g.KW, dtype=np.intp)[None, :, None] * (g.dw * g.C)
    return np.ascontiguousarray((kh + kw + np.arange(g.C, dtype=np.intp)).reshape(-1))


cdef _pack_filter(w2, Py_ssize_t L):
    # (K, O) -> (ceil(O / L), K, L): each block of L output channels is one contiguous
    # filter-row vector per tap, zero past O
    cdef Py_ssize_t k = w2.shape[0], o = w2.shape[1], nb = (o + L - 1) // L
    if nb == 1 and o == L:
        return np.ascontiguousarray(w2)
    wp = np.zeros((k, nb * L), dtype=w2.dtype)
    wp[:, :o] = w2
    return np.ascontiguousarray(wp.reshape(k, nb, L).transpose(1, 0, 2))


cdef _direct_geom(fe_conv_geom* cg, x, Geom g, int level, Py_ssize_t uh=1,
                  Py_ssize_t uw=1):
    """Fills cg for the direct kernels reading x (zero-upsampled by (uh, uw) when > 1);
    returns (the grid they read, the tap offsets cg.off points into): keep both alive
    while the kernels run."""
    grid, img, row = _grid(x, g.pt, g.pl, (g.OH - 1) * g.sh + (g.KH - 1) * g.dh + 1,
                           (g.OW - 1) * g.sw + (g.KW - 1) * g.dw + 1, uh, uw)
    off = _tap_offsets(g, row)
    cdef Py_ssize_t[::1] offv = off
    cg.off = &offv[0]
    cg.level = level
    cg.OH, cg.OW, cg.O = g.OH, g.OW, g.O
    cg.yimg, cg.yrow, cg.ypix = g.OH * g.OW * g.O, g.OW * g.O, g.O
    cg.img, cg.row, cg.C = img, row, g.C
    cg.sh, cg.sw = g.sh, g.sw
    cg.K = g.KH * g.KW * g.C
    cg.span = g.KW * g.C if g.dw == 1 else g.C
    cg.bias = NULL
    cg.relu = 0
    return grid, off


cdef _direct_rows(grid, Py_ssize_t x0, wp, y, Py_ssize_t y0, fe_conv_geom* cg,
                  Py_ssize_t rows):
    """Runs the direct forward kernel over output rows 0 <= r < rows (r = n * cg.OH + oh)
    reading the flat grid from element x0 and writing y (through cg's output strides)
    from element y0; in parallel when the work pays for waking the threads. Rows are
    handed out in chunks (dynamic): on a shared machine a thread that the scheduler
    holds back would otherwise keep the whole call waiting for its fixed half."""
    cdef Py_ssize_t r, chunk = _imax(1, rows // 32)
    cdef bint par = rows > 1 and rows * cg.OW * cg.O * cg.K > _PAR_WORK
    cdef const float[::1] xf, wf
    cdef float[::1] yf
    cdef const double[::1] xd, wd
    cdef double[::1] yd
    if grid.dtype == np.float32:
        xf, wf, yf = grid.reshape(-1), wp.reshape(-1), y.reshape(-1)
        with nogil:
            for r in prange(rows, schedule="dynamic", chunksize=chunk, use_threads_if=par):
                fe_conv_fwd_f32(&xf[x0], &wf[0], &yf[y0], cg, r, r + 1)
    else:
        xd, wd, yd = grid.reshape(-1), wp.reshape(-1), y.reshape(-1)
        with nogil:
            for r in prange(rows, schedule="dynamic", chunksize=chunk, use_threads_if=par):
                fe_conv_fwd_f64(&xd[x0], &wd[0], &yd[y0], cg, r, r + 1)


cdef _direct_conv(x, w2, Geom g, int level, Py_ssize_t uh=1, Py_ssize_t uw=1,
                  bias=None, bint relu=False):
    """y (N, OH, OW, O) = the convolution of x (N, H, W, C) with w2 (KH*KW*C, O) by the
    direct kernel (x zero-upsampled by (uh, uw) first when > 1: then H, W of g are the
    upsampled sizes); then + bias (O values of x's dtype, contiguous) and max(y, 0) when
    relu, in the kernel's registers."""
    cdef fe_conv_geom cg
    grid, off = _direct_geom(&cg, x, g, level, uh, uw)
    wp = _pack_filter(w2, _lanes(x.dtype))
    y = np.empty((g.N, g.OH, g.OW, g.O), dtype=x.dtype)
    cdef const unsigned char[::1] bias_bytes
    if bias is not None:
        bias_bytes = bias.view(np.uint8)
        cg.bias = &bias_bytes[0]
    cg.relu = relu
    _direct_rows(grid, 0, wp, y, 0, &cg, g.N * g.OH)
    return y


cdef _direct_filter_grad(x, dy, Geom g, int level):
    """dw (KH*KW*C, O) = im2col(x).T @ dy without the im2col buffer: the images are split
    into fixed blocks (8 when threads run), each block's gradient goes into its own
    packed partial, and the partials are summed in block order. The threads take blocks
    dynamically (see _direct_rows), and the sum does not depend on which thread took
    which block: the same bits on every run."""
    cdef Py_ssize_t L = _lanes(x.dtype), nb = (g.O + L - 1) // L, K = g.KH * g.KW * g.C
    cdef fe_conv_geom cg
    grid, off = _direct_geom(&cg, x, g, level)
    cdef Py_ssize_t b, B = 1, N = g.N
    if g.N > 1 and g.N * g.OH * g.OW * g.O * K > _PAR_WORK and openmp.omp_get_max_threads() > 1:
        B = _imin(8, g.N)
    partial = np.zeros((B, nb * K * L), dtype=x.dtype)
    cdef const float[::1] xf, df
    cdef float[:, ::1] pf
    cdef const double[::1] xd, dd
    cdef double[:, ::1] pd
    if x.dtype == np.float32:
        xf, df, pf = grid.reshape(-1), dy.reshape(-1), partial
        with nogil:
            for b in prange(B, schedule="dynamic", use_threads_if=B > 1):
                fe_conv_bwf_f32(&xf[0], &df[0], &pf[b, 0], &cg, N * b // B, N * (b + 1) // B)
    else:
        xd, dd, pd = grid.reshape(-1), dy.reshape(-1), partial
        with nogil:
            for b in prange(B, schedule="dynamic", use_threads_if=B > 1):
                fe_conv_bwf_f64(&xd[0], &dd[0], &pd[b, 0], &cg, N * b // B, N * (b + 1) // B)
    packed = partial[0] if B == 1 else partial.sum(axis=0)
    return packed.reshape(nb, K, L).transpose(1, 0, 2).reshape(K, nb * L)[:, :g.O]


cdef _direct_input_grad(dy, w, Geom g, int level):
    """dx (N, H, W, C): the convolution of dy, zero-upsampled by the strides, with the
    flipped filter whose input and output channels are swapped, stride 1."""
    cdef Geom gt = g
    gt.H, gt.W, gt.C = (g.OH - 1) * g.sh + 1, (g.OW - 1) * g.sw + 1, g.O
    gt.O, gt.OH, gt.OW = g.C, g.H, g.W
    gt.sh = gt.sw = 1
    gt.pt, gt.pl = (g.KH - 1) * g.dh - g.pt, (g.KW - 1) * g.dw - g.pl
    wt = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
    return _direct_conv(dy, wt.reshape(g.KH * g.KW * g.O, g.C), gt, level, g.sh, g.sw)


cdef struct _Phase:
    # one residue r of an axis of a strided input gradient: the input positions
    # h0, h0 + s, ... (count q) receive the taps r, r + s, ... (j of them) of the filter;
    # q0: the first position's index in the output gradient's grid
    Py_ssize_t r, j, h0, q, q0


cdef _Phase _phase(Py_ssize_t r, Py_ssize_t s, Py_ssize_t k, Py_ssize_t pad,
                   Py_ssize_t size) noexcept:
    cdef _Phase p
    p.r = r
    p.j = (k - r + s - 1) // s if k > r else 0
    p.h0 = ((r - pad) % s + s) % s
    p.q = (size - p.h0 + s - 1) // s if size > p.h0 else 0
    p.q0 = (p.h0 + pad - r) // s
    return p


cdef _direct_input_grad_phases(dy, w, Geom g, int level):
    """dx (N, H, W, C) of a strided convolution (dilation 1) by phase decomposition: the
    input pixels (h, w) with (h + pt) % sh == rh and (w + pl) % sw == rw receive only
    the taps kh % sh == rh, kw % sw == rw, so each of the sh * sw phases is a stride-1
    convolution of dy with its flipped, transposed sub-filter, written straight into
    every sh-th row and sw-th column of dx: none of the zeros of an upsampled gradient
    are multiplied (1 / (sh * sw) of that work)."""
    cdef Py_ssize_t sh = g.sh, sw = g.sw, a, b, ptop = 0, pleft = 0, hp, wpad
    cdef Py_ssize_t L = _lanes(dy.dtype), rows_x0
    cdef Py_ssize_t[::1] offv
    hs = [_phase(a, sh, g.KH, g.pt, g.H) for a in range(sh)]
    ws = [_phase(b, sw, g.KW, g.pl, g.W) for b in range(sw)]
    # one zero-padded copy of dy serves every phase: each phase's windows start at
    # grid row ptop + q0 - (j - 1) (>= 0) and end before row ptop + q0 + q
    for ph in hs:
        ptop = _imax(ptop, ph["j"] - 1 - ph["q0"])
    for pw in ws:
        pleft = _imax(pleft, pw["j"] - 1 - pw["q0"])
    hp = ptop + max([g.OH] + [ph["q0"] + ph["q"] for ph in hs])
    wpad = pleft + max([g.OW] + [pw["q0"] + pw["q"] for pw in ws])
    grid, img, row = _grid(dy, ptop, pleft, hp, wpad, 1, 1)
    # a phase without taps (a window narrower than the stride) receives zeros
    some_empty = any(ph["j"] == 0 and ph["q"] > 0 for ph in hs) or \
        any(pw["j"] == 0 and pw["q"] > 0 for pw in ws)
    dx = (np.zeros if some_empty else np.empty)((g.N, g.H, g.W, g.C), dtype=dy.dtype)
    cdef fe_conv_geom cg
    cdef Geom gp
    cg.level = level
    cg.bias, cg.relu = NULL, 0
    cg.C, cg.O = g.O, g.C
    cg.img, cg.row = img, row
    cg.sh = cg.sw = 1
    cg.yimg, cg.yrow, cg.ypix = g.H * g.W * g.C, sh * g.W * g.C, sw * g.C
    gp.C, gp.dh, gp.dw = g.O, 1, 1
    wt = w.transpose(0, 1, 3, 2)  # (KH, KW, O, C): the phase convolutions' HWIO filters
    for ph in hs:
        for pw in ws:
            if ph["j"] == 0 or pw["j"] == 0 or ph["q"] == 0 or pw["q"] == 0:
                continue
            gp.KH, gp.KW = ph["j"], pw["j"]
            sub = np.ascontiguousarray(wt[ph["r"]::sh, pw["r"]::sw][::-1, ::-1])
            wp = _pack_filter(sub.reshape(gp.KH * gp.KW * g.O, g.C), L)
            off = _tap_offsets(gp, row)  # alive while the kernel reads cg.off
            offv = off
            cg.off = &offv[0]
            cg.OH, cg.OW = ph["q"], pw["q"]
            cg.K = gp.KH * gp.KW * g.O
            cg.span = gp.KW * g.O
            rows_x0 = (ptop + ph["q0"] - (gp.KH - 1)) * row + \
                (pleft + pw["q0"] - (gp.KW - 1)) * g.O
            _direct_rows(grid, rows_x0, wp, dx, (ph["h0"] * g.W + pw["h0"]) * g.C, &cg,
                         g.N * cg.OH)
    return dx


def conv2d_forward(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1),
                   algorithm="auto", bias=None, relu=False):
    """2-D convolution (cross-correlation, as in TF) of NHWC `x` with HWIO `w`.

    x: (N, H, W, C), w: (KH, KW, C, O), both float32 or both float64 (any layout; a
    non-contiguous input is copied once). Returns a new C-contiguous (N, OH, OW, O)
    array of the same dtype. Unless the filter is 1x1 with stride 1 (one np.matmul of
    x itself), allocates one im2col buffer of at most 64 MiB, (nb*OH*OW, KH*KW*C) for nb
    images, and for each block of nb images fills it and multiplies it into the output
    with np.matmul(out=...). Small-channel shapes (see _direct_pays) run the direct kernel
    of _conv_direct.h instead, with no im2col buffer; ``algorithm`` ('auto', 'direct',
    'im2col') forces one path. ``bias`` (O values) is added to every output pixel and
    ``relu`` then clamps at 0 (the epilogue of fused_conv2d): in the direct kernel's
    registers, else in place on the product.

    >>> conv2d_forward(np.ones((1, 3, 3, 1)), np.ones((2, 2, 1, 1))).shape
    (1, 2, 2, 1)
    """
    k = "conv2d_forward"
    x = _float_array(k, "x", x, 4)
    w = _float_array(k, "w", w, 4)
    _same_dtype(k, "w", w, "x", x)
    cdef Geom g = _conv_args(k, x.shape, w.shape, strides, padding, dilations)
    if bias is not None:
        bias = _float_array(k, "bias", bias, 1)
        _same_dtype(k, "bias", bias, "x", x)
        if bias.shape[0] != g.O:
            raise ValueError("%s: bias must have one value per output channel (expected "
                             "shape [%d], got %s)" % (k, g.O, list(bias.shape)))
    w2 = w.reshape(g.KH * g.KW * g.C, g.O)
    cdef int level = _direct_level(k, algorithm, g, _FORWARD, x.dtype,
                                   x.size == 0 or w.size == 0 or g.OH * g.OW == 0)
    if level >= 0:
        return _direct_conv(x, w2, g, level, 1, 1, bias, relu)
    y = np.empty((g.N, g.OH, g.OW, g.O), dtype=x.dtype)
    if _one_by_one(g):
        np.matmul(_one_by_one_pixels(x, g), w2, out=y.reshape(g.N * g.OH * g.OW, g.O))
        return _conv_epilogue(y, bias, relu)
    cdef Py_ssize_t nb = _images_per_block(g, x.itemsize), rows = g.OH * g.OW, n0, n1
    cdef Geom gb = g
    buf = np.empty((nb * rows, g.KH * g.KW * g.C), dtype=x.dtype)
    # explicit sizes (not -1): an empty batch or zero channels must reshape too
    x3, y2 = x.reshape(g.N, g.H * g.W * g.C), y.reshape(g.N * g.OH * g.OW, g.O)
    for n0 in range(0, g.N, nb):
        n1 = _imin(g.N, n0 + nb)
        gb.N = n1 - n0
        cb = buf[:gb.N * rows]
        _im2col_run(x3[n0:n1], cb, gb)
        np.matmul(cb, w2, out=y2[n0 * rows:n1 * rows])
    return _conv_epilogue(y, bias, relu)


cdef _conv_epilogue(y, bias, bint relu):
    """y + bias, then max(y, 0) when relu, in place (the paths without the direct
    kernel's register epilogue)."""
    if bias is not None:
        np.add(y, bias, out=y)
    if relu:
        np.maximum(y, 0, out=y)
    return y


def conv2d_backward_input(dy, w, x_shape, strides=(1, 1), padding="VALID",
                          dilations=(1, 1), algorithm="auto"):
    """Gradient of conv2d_forward with respect to x.

    dy: (N, OH, OW, O), w: (KH, KW, C, O), same float dtype; x_shape: the forward input
    shape (N, H, W, C). Returns a new (N, H, W, C) array. Per block of images, computes
    the column gradient dy @ w.T with np.matmul into a reused buffer (<= 64 MiB), then folds
    it back (col2im) as a parallel gather over input rows. 1x1 stride-1 filters are one
    np.matmul into dx. Small-channel stride-1 shapes run the direct kernel instead (a
    convolution of the padded dy with the flipped filter); ``algorithm`` forces a path.
    """
    k = "conv2d_backward_input"
    dy = _float_array(k, "dy", dy, 4)
    w = _float_array(k, "w", w, 4)
    _same_dtype(k, "w", w, "dy", dy)
    xs = _shape4(k, "x_shape", x_shape)
    cdef Geom g = _conv_args(k, xs, w.shape, strides, padding, dilations)
    if dy.shape != (g.N, g.OH, g.OW, g.O):
        raise ValueError(f"{k}: dy has the wrong shape "
                         f"(expected {(g.N, g.OH, g.OW, g.O)}, got {dy.shape})")
    cdef int level = _direct_level(k, algorithm, g, _INPUT_GRAD, dy.dtype,
                                   dy.size == 0 or w.size == 0 or g.H * g.W == 0)
    if level >= 0:
        if (g.sh != 1 or g.sw != 1) and g.dh == 1 and g.dw == 1:
            return _direct_input_grad_phases(dy, w, g, level)
        return _direct_input_grad(dy, w, g, level)
    w2t = w.reshape(g.KH * g.KW * g.C, g.O).T
    if _one_by_one(g):
        return _one_by_one_input_grad(dy, w2t, g)
    dx = np.empty(xs, dtype=dy.dtype)
    cdef Py_ssize_t nb = _images_per_block(g, dy.itemsize), rows = g.OH * g.OW, n0, n1
    cdef Geom gb = g
    buf = np.empty((nb * rows, g.KH * g.KW * g.C), dtype=dy.dtype)
    dx3, dy2 = dx.reshape(g.N, g.H * g.W * g.C), dy.reshape(g.N * g.OH * g.OW, g.O)
    for n0 in range(0, g.N, nb):
        n1 = _imin(g.N, n0 + nb)
        gb.N = n1 - n0
        cb = buf[:gb.N * rows]
        np.matmul(dy2[n0 * rows:n1 * rows], w2t, out=cb)
        _col2im_run(cb, dx3[n0:n1], gb)
    return dx




def conv2d_backward_filter(x, dy, w_shape, strides=(1, 1), padding="VALID",
                           dilations=(1, 1), algorithm="auto"):
    """Gradient of conv2d_forward with respect to w.

    x: (N, H, W, C), dy: (N, OH, OW, O), same float dtype; w_shape: (KH, KW, C, O).
    Returns a new (KH, KW, C, O) array: im2col(x).T @ dy, accumulated over blocks of
    images through one reused im2col buffer (<= 64 MiB) (none for 1x1 stride-1 filters).
    Small-channel shapes accumulate it directly, per thread, with no im2col buffer;
    ``algorithm`` forces a path.
    """
    k = "conv2d_backward_filter"
    x = _float_array(k, "x", x, 4)
    dy = _float_array(k, "dy", dy, 4)
    _same_dtype(k, "dy", dy, "x", x)
    ws = _shape4(k, "w_shape", w_shape)
    cdef Geom g = _conv_args(k, x.shape, ws, strides, padding, dilations)
    if dy.shape != (g.N, g.OH, g.OW, g.O):
        raise ValueError(f"{k}: dy has the wrong shape "
                         f"(expected {(g.N, g.OH, g.OW, g.O)}, got {dy.shape})")
    cdef int level = _direct_level(k, algorithm, g, _FILTER_GRAD, x.dtype,
                                   dy.size == 0 or ws[0] * ws[1] * ws[2] * ws[3] == 0)
    if level >= 0:
        return np.ascontiguousarray(_direct_filter_grad(x, dy, g, level)).reshape(ws)
    dw = np.zeros(ws, dtype=x.dtype)
    dw2, dy2 = dw.reshape(g.KH * g.KW * g.C, g.O), dy.reshape(g.N * g.OH * g.OW, g.O)
    if _one_by_one(g):
        np.matmul(_one_by_one_pixels(x, g).T, dy2, out=dw2)
        return dw
    cdef Py_ssize_t nb = _images_per_block(g, x.itemsize), rows = g.OH * g.OW, n0, n1
    cdef Geom gb = g
    buf = np.empty((nb * rows, g.KH * g.KW * g.C), dtype=x.dtype)
    x3 = x.reshape(g.N, g.H * g.W * g.C)
    for n0 in range(0, g.N, nb):
        n1 = _imin(g.N, n0 + nb)
        gb.N = n1 - n0
        cb = buf[:gb.N * rows]
        _im2col_run(x3[n0:n1], cb, gb)
        if n0 == 0:
            np.matmul(cb.T, dy2[:n1 * rows], out=dw2)
        else:
            dw2 += np.matmul(cb.T, dy2[n0 * rows:n1 * rows])
    return dw


# -- pooling ------------------------------------------------------------------------------

cdef Geom _pool_args(kernel, x_shape, ksize, strides, padding) except *:
    ks = _pair(kernel, "ksize", ksize)
    st = _pair(kernel, "strides", strides)
    p = _padding(kernel, padding)
    try:
        return _geom(kernel, x_shape, ks[0], ks[1], x_shape[3], st, p, (1, 1))
    except ValueError as e:
        raise ValueError(f"{kernel}: {str(e).split(': ', 1)[1]}") from None


def pool2d_output_shape(x_shape, ksize, strides, padding="VALID"):
    """Output shape (N, OH, OW, C) of 2-D pooling of NHWC x_shape (TF padding rules)."""
    xs = _shape4("pool2d_output_shape", "x_shape", x_shape)
    cdef Geom g = _pool_args("pool2d_output_shape", xs, ksize, strides, padding)
    return (g.N, g.OH, g.OW, g.C)


def max_pool2d_forward(x, ksize, strides, padding="VALID"):
    """Max pooling of NHWC `x` (float32/float64) with window `ksize` and `strides`.

    Returns ``(y, argmax)``: new C-contiguous arrays of shape (N, OH, OW, C); y has x's
    dtype, argmax is int64 and holds, for each output, the flat index into
    ``x.reshape(-1)`` (global over the batch) of the first maximum in its window. 'SAME'
    padding behaves as padding with -inf (padded cells are never chosen).

    >>> y, am = max_pool2d_forward(np.arange(16.).reshape(1, 4, 4, 1), 2, 2)
    >>> y.ravel().tolist(), am.ravel().tolist()
    ([5.0, 7.0, 13.0, 15.0], [5, 7, 13, 15])
    """
    k = "max_pool2d_forward"
    x = _float_array(k, "x", x, 4)
    cdef Geom g = _pool_args(k, x.shape, ksize, strides, padding)
    y = np.empty((g.N, g.OH, g.OW, g.C), dtype=x.dtype)
    arg = np.empty((g.N, g.OH, g.OW, g.C), dtype=np.int64)
    if y.size == 0:
        return y, arg
    if x.dtype == np.float32:
        _max_pool_fwd[float](x.reshape(-1), y.reshape(-1), arg.reshape(-1), g)
    else:
        _max_pool_fwd[double](x.reshape(-1), y.reshape(-1), arg.reshape(-1), g)
    return y, arg


def max_pool2d_backward(dy, argmax, x_shape):
    """Gradient of max_pool2d_forward: scatter-add dy into a new zero array of x_shape.

    dy: float (N, OH, OW, C); argmax: int64 of the same shape, as returned by
    max_pool2d_forward (flat indices into x). Each index must lie in its own batch
    element's block of x, else ValueError. Allocates only dx.
    """
    k = "max_pool2d_backward"
    dy = _float_array(k, "dy", dy, 4)
    xs = _shape4(k, "x_shape", x_shape)
    if not isinstance(argmax, np.ndarray) or argmax.dtype != np.int64:
        raise ValueError(f"{k}: argmax must be an int64 array "
                         f"(expected int64, got {getattr(argmax, 'dtype', type(argmax))})")
    if argmax.shape != dy.shape:
        raise ValueError(f"{k}: argmax and dy shapes differ "
                         f"(expected {dy.shape}, got {argmax.shape})")
    if xs[0] != dy.shape[0] or xs[3] != dy.shape[3]:
        raise ValueError(f"{k}: x_shape does not match dy in batch/channels "
                         f"(expected (N, _, _, C) = {dy.shape[0], dy.shape[3]}, got {xs})")
    argmax = np.ascontiguousarray(argmax)
    dx = np.zeros(xs, dtype=dy.dtype)
    cdef Py_ssize_t N = xs[0], bad = 0
    if dy.size == 0 or dx.size == 0:
        return dx
    if dy.dtype == np.float32:
        bad = _max_pool_bwd[float](dy.reshape(-1), argmax.reshape(-1), dx.reshape(-1), N,
                                   dy.size // N, dx.size // N)
    else:
        bad = _max_pool_bwd[double](dy.reshape(-1), argmax.reshape(-1), dx.reshape(-1), N,
                                    dy.size // N, dx.size // N)
    if bad:
        raise ValueError(f"{k}: argmax holds indices outside their batch element "
                         f"(expected 0 <= index - n*H*W*C < {dx.size // N}, "
                         f"got {bad} bad indices)")
    return dx


def avg_pool2d_forward(x, ksize, strides, padding="VALID"):
    """Average pooling of NHWC `x` (float32/float64); returns a new (N, OH, OW, C) array.

    With 'SAME' padding each window is divided by its number of valid (non-padded)
    cells, as TensorFlow does.
    """
    k = "avg_pool2d_forward"
    x = _float_array(k, "x", x, 4)
    cdef Geom g = _pool_args(k, x.shape, ksize, strides, padding)
    y = np.empty((g.N, g.OH, g.OW, g.C), dtype=x.dtype)
    if y.size == 0:
        return y
    if x.dtype == np.float32:
        _avg_pool_fwd[float](x.reshape(-1), y.reshape(-1), g)
    else:
        _avg_pool_fwd[double](x.reshape(-1), y.reshape(-1), g)
    return y


def avg_pool2d_backward(dy, x_shape, ksize, strides, padding="VALID"):
    """Gradient of avg_pool2d_forward: returns a new array of x_shape and dy's dtype."""
    k = "avg_pool2d_backward"
    dy = _float_array(k, "dy", dy, 4)
    xs = _shape4(k, "x_shape", x_shape)
    cdef Geom g = _pool_args(k, xs, ksize, strides, padding)
    if dy.shape != (g.N, g.OH, g.OW, g.C):
        raise ValueError(f"{k}: dy has the wrong shape "
                         f"(expected {(g.N, g.OH, g.OW, g.C)}, got {dy.shape})")
    dx = np.empty(xs, dtype=dy.dtype)
    if dx.size == 0:
        return dx
    if dy.dtype == np.float32:
        _avg_pool_bwd[float](dy.reshape(-1), dx.reshape(-1), g)
    else:
        _avg_pool_bwd[double](dy.reshape(-1), dx.reshape(-1), g)
    return dx


# -- sigmoid ----------------------------------------------------------------------------

# ----------------------------------------------------------------------------------------
# Sums over a run of middle axes (bias gradients, global average pooling)
# ----------------------------------------------------------------------------------------

def sum_middle_axes(x, Py_ssize_t a0, Py_ssize_t a1):
    """np.add.reduce(x, axis=tuple(range(a0, a1))) for a C-contiguous float32/float64 x
    whose last axes (a1 onward) are kept. NumPy runs this reduction row by row, each row
    one call of its add loop (about 1.5 ns an element for 16 channels); this is the same
    sums in the same order (so bitwise the same results) in one tight loop."""
    # (cheap checks: this sums every bias gradient; another dtype or byte order fails the
    # typed memoryviews below, a non-contiguous x is copied by reshape)
    if not isinstance(x, np.ndarray):
        raise ValueError(f"sum_middle_axes: x must be a numpy array "
                         f"(expected numpy.ndarray, got {type(x).__name__})")
    if not 0 <= a0 <= a1 <= x.ndim:
        raise ValueError(f"sum_middle_axes: axes out of range (expected 0 <= a0 <= a1 <= "
                         f"{x.ndim}, got a0={a0}, a1={a1})")
    shape = x.shape
    cdef Py_ssize_t outer = 1, n = 1, inner = 1, k
    for k in range(a0):
        outer *= shape[k]
    for k in range(a0, a1):
        n *= shape[k]
    for k in range(a1, x.ndim):
        inner *= shape[k]
    out = np.empty(shape[:a0] + shape[a1:], dtype=x.dtype)
    if x.size == 0:                     # (no first element to point at)
        out[...] = 0
        return out
    cdef const float[::1] xf
    cdef float[::1] of
    cdef const double[::1] xd
    cdef double[::1] od
    if x.dtype == np.float32:
        xf = x.reshape(-1)
        of = out.reshape(-1)
        with nogil:
            fe_sum_rows_f32(&xf[0], outer, n, inner, &of[0])
    else:
        xd = x.reshape(-1)
        od = out.reshape(-1)
        with nogil:
            fe_sum_rows_f64(&xd[0], outer, n, inner, &od[0])
    return out


def relu_backward(g, x):
    """g * (x > 0) in g's dtype, one pass for float32/float64 arrays of one shape (NumPy's
    way takes three: the comparison, the cast, the product)."""
    if not (isinstance(g, np.ndarray) and isinstance(x, np.ndarray)) or \
            g.dtype != x.dtype or g.shape != x.shape or g.dtype.char not in "fd" or not g.size:
        return np.asarray(g) * (np.asarray(x) > 0).astype(np.asarray(g).dtype)
    g = g if g.flags.c_contiguous else g.copy()     # (ascontiguousarray makes 0-d 1-d)
    x = x if x.flags.c_contiguous else x.copy()
    out = np.empty(g.shape, dtype=g.dtype)
    cdef const float[::1] gf, xf
    cdef float[::1] of
    cdef const double[::1] gd, xd
    cdef double[::1] od
    if g.dtype == np.float32:
        gf, xf, of = g.reshape(-1), x.reshape(-1), out.reshape(-1)
        with nogil:
            fe_relu_grad_f32(&gf[0], &xf[0], &of[0], gf.shape[0])
    else:
        gd, xd, od = g.reshape(-1), x.reshape(-1), out.reshape(-1)
        with nogil:
            fe_relu_grad_f64(&gd[0], &xd[0], &od[0], gd.shape[0])
    return out


def relu_backward_sum(g, x):
    """(g * (x > 0), its sum over every axis but the last) in one pass, for float32/float64
    arrays of one shape and rank >= 1: relu's gradient and the bias gradient of a fused
    Dense or Conv2D. The sums run in NumPy's order (bitwise np.add.reduce's results)."""
    if not (isinstance(g, np.ndarray) and isinstance(x, np.ndarray)) or \
            g.dtype != x.dtype or g.shape != x.shape or g.dtype.char not in "fd" or g.ndim < 1:
        raise ValueError("relu_backward_sum: g and x must be float32 or float64 arrays of "
                         "one shape and rank >= 1 (got %s %s and %s %s)"
                         % (getattr(g, "dtype", type(g).__name__), getattr(g, "shape", ""),
                            getattr(x, "dtype", type(x).__name__), getattr(x, "shape", "")))
    g = g if g.flags.c_contiguous else g.copy()
    x = x if x.flags.c_contiguous else x.copy()
    cdef Py_ssize_t inner = g.shape[g.ndim - 1], rows = g.size // inner if inner else 0
    dz = np.empty(g.shape, dtype=g.dtype)
    total = np.zeros(inner, dtype=g.dtype)
    if rows == 0:
        return dz, total
    cdef const float[::1] gf, xf
    cdef float[::1] of, tf
    cdef const double[::1] gd, xd
    cdef double[::1] od, td
    if g.dtype == np.float32:
        gf, xf, of, tf = g.reshape(-1), x.reshape(-1), dz.reshape(-1), total
        with nogil:
            fe_relu_grad_sum_f32(&gf[0], &xf[0], &of[0], rows, inner, &tf[0])
    else:
        gd, xd, od, td = g.reshape(-1), x.reshape(-1), dz.reshape(-1), total
        with nogil:
            fe_relu_grad_sum_f64(&gd[0], &xd[0], &od[0], rows, inner, &td[0])
    return dz, total


def sigmoid_f32(x, out=None):
    """The logistic sigmoid of a float32 array in one vectorised pass (``fe_sigmoidf`` of
    _fastmath.h, within 3 ulp over the whole range); ``out`` (float32, x's shape) may be
    ``x`` itself. Returns ``out``."""
    if not isinstance(x, np.ndarray) or x.dtype != np.float32:
        raise ValueError("sigmoid_f32: x must be a float32 numpy array (expected float32, "
                         "got %s)" % getattr(x, "dtype", type(x).__name__))
    if out is None:
        out = np.empty(x.shape, np.float32)
    elif (not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != x.shape
          or not out.flags.c_contiguous or not out.flags.writeable):
        raise ValueError("sigmoid_f32: out must be a writable C-contiguous float32 array of "
                         "x's shape (expected %s, got %r)" % (x.shape, out))
    cdef const float[::1] a = np.ascontiguousarray(x).reshape(-1)
    cdef float[::1] d = out.reshape(-1)
    if a.shape[0]:
        with nogil:
            fe_sigmoid_loop(&a[0], &d[0], a.shape[0])
    return out


# -- softmax and cross-entropy ------------------------------------------------------------

def _softmax_common(kernel, logits, take_log):
    x = _float_array(kernel, "logits", logits)
    if x.ndim == 0:
        raise ValueError(f"{kernel}: logits must have at least one axis "
                         f"(expected ndim >= 1, got a scalar)")
    out = np.empty(x.shape, dtype=x.dtype)
    cdef Py_ssize_t K = x.shape[x.ndim - 1]  # no negative index: wraparound is off
    if x.size == 0:
        return out
    if x.dtype == np.float32:
        _softmax_rows[float](x.reshape(-1), out.reshape(-1), x.size // K, K, take_log)
    else:
        _softmax_rows[double](x.reshape(-1), out.reshape(-1), x.size // K, K, take_log)
    return out


def softmax(logits):
    """Softmax over the last axis of float `logits` (any rank >= 1); returns a new array.

    One max pass, one exp-and-sum pass, one scale pass per row, in the input dtype.
    """
    return _softmax_common("softmax", logits, False)


def log_softmax(logits):
    """log(softmax) over the last axis, computed as (x - max) - log(sum(exp(x - max)))."""
    return _softmax_common("log_softmax", logits, True)


def _xent_logits(kernel, logits):
    x = _float_array(kernel, "logits", logits, 2)
    if x.shape[1] == 0:
        raise ValueError(f"{kernel}: logits needs at least one class "
                         f"(expected shape (B, K >= 1), got {x.shape})")
    return x


def sparse_softmax_xent(logits, labels):
    """Fused softmax cross-entropy with integer class labels.

    logits: float32/float64 (B, K); labels: int32/int64 (B,) in [0, K). Returns new
    arrays ``(loss, dlogits)`` of shapes (B,) and (B, K) in logits' dtype, where
    ``loss = logsumexp(logits) - logits[label]`` and ``dlogits = softmax - onehot``
    (the gradient of each row's loss). Stable for large logits; -inf entries (masks)
    get zero gradient while the label's logit is finite.

    >>> loss, d = sparse_softmax_xent(np.zeros((1, 2)), np.array([0]))
    >>> round(float(loss[0]), 4), d.tolist()
    (0.6931, [[-0.5, 0.5]])
    """
    k = "sparse_softmax_xent"
    x = _xent_logits(k, logits)
    lab = np.asarray(labels)
    if lab.dtype not in (np.int32, np.int64):
        raise ValueError(f"{k}: labels must be integer class ids "
                         f"(expected int32 or int64, got {lab.dtype})")
    if lab.shape != (x.shape[0],):
        raise ValueError(f"{k}: labels must have one entry per row "
                         f"(expected shape {(x.shape[0],)}, got {lab.shape})")
    cdef Py_ssize_t B = x.shape[0], K = x.shape[1]
    loss = np.empty(B, dtype=x.dtype)
    d = np.empty((B, K), dtype=x.dtype)
    if B == 0:
        return loss, d
    lab = np.ascontiguousarray(lab, dtype=np.int64)
    cdef Py_ssize_t bad = _first_out_of_range(lab, K)
    if bad >= 0:
        raise ValueError(f"{k}: label out of range at row {bad} "
                         f"(expected 0 <= label < {K}, got {lab[bad]})")
    if x.dtype == np.float32:
        _sparse_xent[float](x.reshape(-1), lab, loss, d.reshape(-1), B, K)
    else:
        _sparse_xent[double](x.reshape(-1), lab, loss, d.reshape(-1), B, K)
    return loss, d


def softmax_xent(logits, labels):
    """Fused softmax cross-entropy with dense (probability) labels.

    logits and labels: (B, K), same float dtype. Returns new arrays ``(loss, dlogits)``
    with ``loss = -sum(labels * log_softmax(logits), axis=-1)`` (a zero label times a
    -inf logit counts as 0) and ``dlogits = softmax * sum(labels) - labels``.
    """
    k = "softmax_xent"
    x = _xent_logits(k, logits)
    y = _float_array(k, "labels", labels, 2)
    _same_dtype(k, "labels", y, "logits", x)
    if y.shape != x.shape:
        raise ValueError(f"{k}: labels and logits shapes differ "
                         f"(expected {x.shape}, got {y.shape})")
    cdef Py_ssize_t B = x.shape[0], K = x.shape[1]
    loss = np.empty(B, dtype=x.dtype)
    d = np.empty((B, K), dtype=x.dtype)
    if B == 0:
        return loss, d
    if x.dtype == np.float32:
        _dense_xent[float](x.reshape(-1), y.reshape(-1), loss, d.reshape(-1), B, K)
    else:
        _dense_xent[double](x.reshape(-1), y.reshape(-1), loss, d.reshape(-1), B, K)
    return loss, d


# -- optimizers ---------------------------------------------------------------------------

def _opt_state(kernel, name, a, var):
    """Check a state array that is updated in place: var's shape and dtype, C-contiguous,
    writable. Returns its flat view."""
    if not isinstance(a, np.ndarray):
        raise ValueError(f"{kernel}: {name} must be a numpy array "
                         f"(expected numpy.ndarray, got {type(a).__name__})")
    if a.dtype != var.dtype or a.shape != var.shape:
        raise ValueError(f"{kernel}: {name} must match var "
                         f"(expected {var.dtype}{list(var.shape)}, "
                         f"got {a.dtype}{list(a.shape)})")
    if not a.flags.c_contiguous or not a.flags.writeable:
        raise ValueError(f"{kernel}: {name} is updated in place "
                         f"(expected a writable C-contiguous array, got "
                         f"c_contiguous={a.flags.c_contiguous}, "
                         f"writeable={a.flags.writeable})")
    return a.reshape(-1)


def _opt_var(kernel, var, grad):
    if not isinstance(var, np.ndarray) or var.dtype not in _FLOATS:
        raise ValueError(f"{kernel}: var must be a float array "
                         f"(expected float32 or float64 ndarray, "
                         f"got {getattr(var, 'dtype', type(var).__name__)})")
    v = _opt_state(kernel, "var", var, var)
    g = _float_array(kernel, "grad", grad)
    if g.dtype != var.dtype or g.shape != var.shape:
        raise ValueError(f"{kernel}: grad must match var "
                         f"(expected {var.dtype}{list(var.shape)}, "
                         f"got {g.dtype}{list(g.shape)})")
    return v, g.reshape(-1)


def sgd_update(var, grad, lr, momentum=0.0, nesterov=False, velocity=None):
    """SGD step in place on `var` (and `velocity`), Keras 3 rules.

    momentum == 0: ``var -= lr * grad``. Otherwise ``velocity = momentum * velocity -
    lr * grad`` and ``var += velocity``, or with nesterov ``var += momentum * velocity -
    lr * grad``. var, velocity: writable C-contiguous float arrays; grad: same shape and
    dtype. Allocates nothing; on a ValueError nothing is modified.
    """
    k = "sgd_update"
    v, g = _opt_var(k, var, grad)
    lr, momentum = float(lr), float(momentum)
    use_mom = momentum != 0.0
    vel = None
    if use_mom:
        if velocity is None:
            raise ValueError(f"{k}: momentum needs a velocity array "
                             f"(expected an array like var, got None)")
        vel = _opt_state(k, "velocity", velocity, var)
    if var.dtype == np.float32:
        _sgd_loop[float](v, g, vel, lr, momentum, use_mom, bool(nesterov))
    else:
        _sgd_loop[double](v, g, vel, lr, momentum, use_mom, bool(nesterov))


def adam_update(var, m, v, grad, lr, beta_1, beta_2, epsilon, step, weight_decay=0.0,
                vhat=None):
    """Adam/AdamW/AMSGrad step in place on var, m, v (and vhat), Keras 3 rules.

    ``step`` is the 1-based step count (Keras' iterations + 1). With
    ``lr_t = lr * sqrt(1 - beta_2**step) / (1 - beta_1**step)``:
    ``m += (g - m) * (1 - beta_1)``, ``v += (g*g - v) * (1 - beta_2)``,
    amsgrad (vhat given): ``vhat = max(vhat, v)`` and vhat replaces v below;
    ``var -= m * lr_t / (sqrt(v) + epsilon)``. A non-zero weight_decay first applies
    the decoupled decay ``var -= var * weight_decay * lr`` (AdamW). Allocates nothing;
    on a ValueError nothing is modified.
    """
    k = "adam_update"
    pv, g = _opt_var(k, var, grad)
    mv = _opt_state(k, "m", m, var)
    vv = _opt_state(k, "v", v, var)
    hv = None if vhat is None else _opt_state(k, "vhat", vhat, var)
    step = float(step)
    if not step >= 1:
        raise ValueError(f"{k}: step counts from 1 (expected step >= 1, got {step})")
    lr, beta_1, beta_2 = float(lr), float(beta_1), float(beta_2)
    alpha = lr * (1.0 - beta_2 ** step) ** 0.5 / (1.0 - beta_1 ** step)
    decay = float(weight_decay) * lr
    args = (alpha, 1.0 - beta_1, 1.0 - beta_2, float(epsilon), decay, decay != 0.0,
            hv is not None)
    if var.dtype == np.float32:
        _adam_loop[float](pv, mv, vv, g, hv, *args)
    else:
        _adam_loop[double](pv, mv, vv, g, hv, *args)


def rmsprop_update(var, rms, grad, lr, rho=0.9, momentum=0.0, epsilon=1e-7,
                   centered=False, mom=None, mg=None):
    """RMSprop step in place on var, rms (and mom, mg), Keras 3 rules.

    ``rms = rho * rms + (1 - rho) * g**2``; centered: ``mg = rho * mg + (1 - rho) * g``
    and ``denom = rms - mg**2 + epsilon``, else ``denom = rms + epsilon``;
    ``increment = lr * g / sqrt(denom)``; momentum > 0: ``mom = momentum * mom +
    increment; var -= mom``, else ``var -= increment``. `mom` is required when
    momentum > 0 and `mg` when centered. Allocates nothing; on a ValueError nothing is
    modified.
    """
    k = "rmsprop_update"
    v, g = _opt_var(k, var, grad)
    r = _opt_state(k, "rms", rms, var)
    lr, rho, momentum = float(lr), float(rho), float(momentum)
    use_mom = momentum > 0.0
    mo = a = None
    if use_mom:
        if mom is None:
            raise ValueError(f"{k}: momentum > 0 needs a mom array "
                             f"(expected an array like var, got None)")
        mo = _opt_state(k, "mom", mom, var)
    if centered:
        if mg is None:
            raise ValueError(f"{k}: centered needs an mg array "
                             f"(expected an array like var, got None)")
        a = _opt_state(k, "mg", mg, var)
    args = (lr, rho, 1.0 - rho, momentum, float(epsilon), use_mom, bool(centered))
    if var.dtype == np.float32:
        _rmsprop_loop[float](v, r, g, mo, a, *args)
    else:
        _rmsprop_loop[double](v, r, g, mo, a, *args)


def adagrad_update(var, accum, grad, lr, epsilon=1e-7):
    """Adagrad step in place: ``accum += g**2; var -= lr * g / sqrt(accum + epsilon)``.

    Allocates nothing; on a ValueError nothing is modified.
    """
    k = "adagrad_update"
    v, g = _opt_var(k, var, grad)
    acc = _opt_state(k, "accum", accum, var)
    if var.dtype == np.float32:
        _adagrad_loop[float](v, acc, g, float(lr), float(epsilon))
    else:
        _adagrad_loop[double](v, acc, g, float(lr), float(epsilon))


# ---- Image codec inner loops (PNG unfiltering, GIF LZW) ---------------------------------
# Both are sequential byte loops (each byte depends on the one before it), which NumPy
# cannot vectorise; in Python they cost seconds per megapixel. The wrappers check every
# size so a hostile file can only make them raise, never read or write out of bounds.

cdef inline int _paeth(int a, int b, int c) noexcept nogil:
    cdef int p = a + b - c
    cdef int pa = p - a if p >= a else a - p
    cdef int pb = p - b if p >= b else b - p
    cdef int pc = p - c if p >= c else c - p
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


cdef Py_ssize_t _png_unfilter_loop(const unsigned char[::1] raw, unsigned char[:, ::1] out,
                                   Py_ssize_t bpp) noexcept nogil:
    # one loop per filter type and row (the first bpp bytes of a row have no left
    # neighbour, the first row no upper one): returns the first row with an unknown filter
    # type, or -1
    cdef Py_ssize_t height = out.shape[0], stride = out.shape[1]
    cdef Py_ssize_t y, i, lead = bpp if bpp < stride else stride
    cdef const unsigned char* src
    cdef unsigned char* cur
    cdef const unsigned char* up
    cdef int kind
    for y in range(height):
        src = &raw[y * (stride + 1)]
        kind = src[0]
        if kind > 4:
            return y
        if stride == 0:
            continue
        src += 1
        cur = &out[y, 0]
        up = &out[y - 1, 0] if y > 0 else NULL
        if kind == 0 or (kind == 2 and up == NULL):
            memcpy(cur, src, stride)
        elif kind == 1 or (kind == 4 and up == NULL):      # Paeth of a first row is Sub
            for i in range(lead):
                cur[i] = src[i]
            for i in range(lead, stride):
                cur[i] = <unsigned char>(src[i] + cur[i - bpp])
        elif kind == 2:
            for i in range(stride):
                cur[i] = <unsigned char>(src[i] + up[i])
        elif kind == 3:
            if up == NULL:
                for i in range(lead):
                    cur[i] = src[i]
                for i in range(lead, stride):
                    cur[i] = <unsigned char>(src[i] + (cur[i - bpp] >> 1))
            else:
                for i in range(lead):
                    cur[i] = <unsigned char>(src[i] + (up[i] >> 1))
                for i in range(lead, stride):
                    cur[i] = <unsigned char>(src[i] + ((cur[i - bpp] + up[i]) >> 1))
        else:
            for i in range(lead):           # no left neighbour: Paeth picks the upper one
                cur[i] = <unsigned char>(src[i] + up[i])
            for i in range(lead, stride):
                cur[i] = <unsigned char>(src[i] + _paeth(cur[i - bpp], up[i], up[i - bpp]))
    return -1


def png_unfilter(raw, Py_ssize_t height, Py_ssize_t stride, Py_ssize_t bpp):
    """The (height, stride) uint8 scanlines of PNG data ``raw`` (``height`` rows of a filter
    byte then ``stride`` bytes) with the filters undone; ``bpp`` is the filter's byte
    distance (bytes per pixel, at least 1). Raises ValueError on a short buffer, bad
    sizes or an unknown filter type (its row named)."""
    k = "png_unfilter"
    if height < 0 or stride < 0 or not 1 <= bpp <= 8:
        raise ValueError(f"{k}: bad geometry (expected height, stride >= 0 and bpp in "
                         f"1..8, got {height}, {stride}, {bpp})")
    cdef const unsigned char[::1] src = raw
    if src.shape[0] < height * (stride + 1):
        raise ValueError(f"{k}: data too short (expected {height * (stride + 1)} bytes, "
                         f"got {src.shape[0]})")
    out = np.empty((height, stride), np.uint8)
    cdef unsigned char[:, ::1] dst = out
    cdef Py_ssize_t bad
    with nogil:
        bad = _png_unfilter_loop(src, dst, bpp)
    if bad >= 0:
        raise ValueError(f"{k}: unknown filter type {src[bad * (stride + 1)]} in row {bad} "
                         f"(expected 0..4)")
    return out


# giflib's LZW decoder, code for code (DGifDecompressLine): code widths grow on its
# counter, the table stops growing at 4096 entries, and an undefined code is decoded as
# giflib decodes it (the previous string plus the byte 0x02, giflib's NO_SUCH_CODE cut to
# a byte) unless there is no previous string, which is a defective image, as is a chain
# that reaches an undefined entry. The status tells the caller which of giflib's errors
# to report: 1 for an end code before the image is complete, 2 for a defective image
# (giflib's verdict also when the sub-blocks end first).
cdef enum:
    _LZ_MAX = 4095
    _NO_CODE = 4098


cdef inline int _gif_root(const unsigned short* prefix, int code, int clear) noexcept nogil:
    # giflib's DGifGetPrefixChar: the first byte of a code's string (or _NO_CODE)
    cdef int steps = 0
    while code > clear and steps <= _LZ_MAX:
        steps += 1
        if code > _LZ_MAX:
            return _NO_CODE
        code = prefix[code]
    return code


cdef int _gif_lzw_loop(const unsigned char[::1] data, int min_size, unsigned char[::1] out,
                       unsigned short* prefix, unsigned char* suffix,
                       unsigned char* stack) noexcept nogil:
    cdef int clear = 1 << min_size, eoi = clear + 1
    cdef int bits = min_size + 1, running = eoi + 1, max1 = 1 << (min_size + 1)
    cdef int last = _NO_CODE, code, cur, top, n, first
    cdef Py_ssize_t pos = 0, done = 0, total = out.shape[0], size = data.shape[0]
    cdef unsigned long long acc = 0
    cdef int held = 0
    for n in range(_LZ_MAX + 1):
        prefix[n] = _NO_CODE
        suffix[n] = 0
    while done < total:
        while held < bits:
            if pos >= size:
                return 2                # giflib: an empty block where a code should be
            acc |= (<unsigned long long>data[pos]) << held
            pos += 1
            held += 8
        code = <int>(acc & ((1 << bits) - 1))
        acc >>= bits
        held -= bits
        if running < _LZ_MAX + 2:
            running += 1
            if running > max1 and bits < 12:
                max1 <<= 1
                bits += 1
        if code == eoi:
            return 1
        if code == clear:
            for n in range(_LZ_MAX + 1):
                prefix[n] = _NO_CODE
            running = eoi + 1
            bits = min_size + 1
            max1 = 1 << bits
            last = _NO_CODE
            continue
        top = 0
        if code < clear:
            cur = code
            first = code
        else:
            if prefix[code] == _NO_CODE:
                # the entry being defined (KwKwK) ends with the previous string's first
                # byte; any other undefined code with giflib's stray byte
                first = _gif_root(prefix, last if code == running - 2 else code, clear)
                stack[top] = <unsigned char>first
                top += 1
                suffix[running - 2] = <unsigned char>first     # (giflib writes it here too)
                cur = last
            else:
                cur = code
            while top < _LZ_MAX and clear < cur <= _LZ_MAX:
                stack[top] = suffix[cur]
                top += 1
                cur = prefix[cur]
            if top >= _LZ_MAX or cur > _LZ_MAX:
                return 2
            if prefix[code] != _NO_CODE:
                first = cur
        stack[top] = <unsigned char>cur
        top += 1
        while top > 0 and done < total:
            top -= 1
            out[done] = stack[top]
            done += 1
        if last != _NO_CODE and running - 2 <= _LZ_MAX and prefix[running - 2] == _NO_CODE:
            prefix[running - 2] = last
            suffix[running - 2] = <unsigned char>first
        last = code
    return 0


def gif_lzw_decode(data, int min_size, Py_ssize_t count):
    """``count`` palette indices of GIF LZW data ``data`` (the image's sub-blocks joined)
    with minimum code size ``min_size`` (0..8): (uint8 array, status), status 0 when all
    ``count`` were decoded, 1 when an end code came first, 2 for a defective image (an
    unusable code, or the data ended first); the array's values are then undefined."""
    k = "gif_lzw_decode"
    if not 0 <= min_size <= 8 or count < 0:
        raise ValueError(f"{k}: bad arguments (expected min_size in 0..8 and count >= 0, "
                         f"got {min_size}, {count})")
    cdef const unsigned char[::1] src = data
    out = np.empty(count, np.uint8)
    cdef unsigned char[::1] dst = out
    cdef unsigned short prefix[_LZ_MAX + 1]
    cdef unsigned char suffix[_LZ_MAX + 1]
    cdef unsigned char stack[_LZ_MAX + 1]
    cdef int status
    with nogil:
        status = _gif_lzw_loop(src, min_size, dst, prefix, suffix, stack)
    return out, status
