# cython: language_level=3
"""CPU kernels of the recurrent layers: LSTM, GRU and simple-RNN time loops, forward and
backward through time.

NumPy arrays in, NumPy arrays out; no Tensor and no autodiff here (``ops/rnn_ops.py``
wraps these as ops and owns the gradient bookkeeping). float32 stays float32 and float64
stays float64.

Every array is time-major: ``x`` is ``(T, B, D)``, states ``(B, U)``, sequences
``(T, B, U)``. The layout of the work:

1. The time loop (``_rnn_loops.h``) splits the batch rows between OpenMP threads: a row
   of the new state depends only on the same row of the old one, so each thread runs
   every step on its own rows with no barrier between steps. Per step it projects its
   rows of the input and multiplies its rows of the state by the recurrent kernel (both
   kernels packed once per call), then applies the gate nonlinearities, the state update
   and the mask in one pass over those rows.
2. Backward through time, the same split: per step, one fused loop for the gate
   derivatives, one product carrying the state gradient back (``dz @
   recurrent_kernel.T``), and the step's share of the weight gradients (``x_t^T dz``,
   ``h_prev^T dz``, the bias's sums), one partial sum per block, added at the end. The
   kernels also return the pre-activation gradients of all steps; ``ops/rnn_ops.py``
   makes ``dx`` from them with one GEMM, only where an input needs it.

No multithreaded BLAS call happens in a step (see ``_rnn_loops.h`` for why).

Gates follow Keras's weight layout: LSTM ``[i, f, c, o]``, GRU ``[z, r, h]`` with
``reset_after=True`` (the recurrent bias is added before the reset gate multiplies).
A mask entry of 0 skips the step: the state is carried and the output repeats the last
one. Activations are given by code (see ``ACTIVATIONS``); the backward pass takes each
derivative from the activation's output, so nothing but the outputs is saved.

Every entry checks what it is given before any pointer is taken (a loaded SavedModel's
graph is untrusted input): the leading array is a float32/float64 ndarray of the right
rank, every other array an ndarray of its dtype and of the exact shape the sizes it
implies (T, B, D, U) require, the mask (T, B) of any real dtype, the activation codes
known; a ``ValueError`` ``"<kernel>: <argument> ... (expected X, got Y)"`` otherwise,
which the op layer turns into the op's ``InvalidArgumentError``. The checks compare a
few integers per array (well under a microsecond a call).
"""
cimport numpy as cnp
from cython.parallel cimport prange
cimport openmp

import numpy as np

cnp.import_array()

cdef extern from "_rnn_loops.h" nogil:
    void fe_lstm_forward_f32(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                             Py_ssize_t, const float*, const float*, const float*,
                             const float*, const float*, const float*, const float*, float*,
                             float*, float*, float*, int, int)
    void fe_lstm_forward_f64(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                             Py_ssize_t, const double*, const double*, const double*,
                             const double*, const double*, const double*, const double*,
                             double*, double*, double*, double*, int, int)
    void fe_lstm_backward_f32(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                              Py_ssize_t, const float*, const float*, const float*,
                              const float*, const float*, const float*, const float*,
                              const float*, const float*, const float*, const float*, float*,
                              float*, float*, float*, float*, float*, float*, float*,
                              const float*, int, int)
    void fe_lstm_backward_f64(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                              Py_ssize_t, const double*, const double*, const double*,
                              const double*, const double*, const double*, const double*,
                              const double*, const double*, const double*, const double*,
                              double*, double*, double*, double*, double*, double*, double*,
                              double*, const double*, int, int)
    void fe_gru_forward_f32(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                            Py_ssize_t, const float*, const float*, const float*,
                            const float*, const float*, const float*, float*, float*, float*,
                            float*, float*, int, int)
    void fe_gru_forward_f64(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                            Py_ssize_t, const double*, const double*, const double*,
                            const double*, const double*, const double*, double*, double*,
                            double*, double*, double*, int, int)
    void fe_gru_backward_f32(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                             Py_ssize_t, const float*, const float*, const float*,
                             const float*, const float*, const float*, const float*,
                             const float*, const float*, const float*, float*, float*, float*,
                             float*, float*, float*, float*, const float*, int, int)
    void fe_gru_backward_f64(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                             Py_ssize_t, const double*, const double*, const double*,
                             const double*, const double*, const double*, const double*,
                             const double*, const double*, const double*, double*, double*,
                             double*, double*, double*, double*, double*, const double*, int,
                             int)
    void fe_simple_forward_f32(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                               Py_ssize_t, const float*, const float*, const float*,
                               const float*, const float*, const float*, float*, int)
    void fe_simple_forward_f64(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                               Py_ssize_t, const double*, const double*, const double*,
                               const double*, const double*, const double*, double*, int)
    void fe_simple_backward_f32(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                                Py_ssize_t, const float*, const float*, const float*,
                                const float*, const float*, const float*, float*, float*,
                                float*, float*, float*, float*, int)
    void fe_simple_backward_f64(Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                                Py_ssize_t, const double*, const double*, const double*,
                                const double*, const double*, const double*, double*, double*,
                                double*, double*, double*, double*, int)
    void fe_rnn_pack_f32(const float*, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t, float*)
    void fe_rnn_pack_f64(const double*, Py_ssize_t, Py_ssize_t, Py_ssize_t, Py_ssize_t,
                         double*)
    Py_ssize_t fe_rnn_packed_size_f32(Py_ssize_t, Py_ssize_t)
    Py_ssize_t fe_rnn_packed_size_f64(Py_ssize_t, Py_ssize_t)

# activation name -> code of the fused loops; the backward pass needs f' as a function of
# f's output, which these have
ACTIVATIONS = {"linear": 0, "tanh": 1, "sigmoid": 2, "relu": 3}

# Rows per thread at least: below this a thread's share of a step is too small to pay
# for waking it (a block is a whole time loop, so this is one wake-up per call).
cdef Py_ssize_t _MIN_ROWS = 8


# ----------------------------------------------------------------------------------------
# Helpers: pointers, packing, row blocks
# ----------------------------------------------------------------------------------------

cdef inline void* _ptr(object a) except NULL:
    """The data of a C-contiguous array (callers made it one); NULL for None is refused
    here, so optional inputs go through _optr."""
    return cnp.PyArray_DATA(<cnp.ndarray>a)


cdef inline void* _optr(object a):
    return NULL if a is None else cnp.PyArray_DATA(<cnp.ndarray>a)


def _c(a, dt):
    return np.ascontiguousarray(a, dtype=dt)


# The checks read the arrays' C structs (type number, byte order, rank, dimensions,
# contiguity): about 10 ns an array, against the microseconds of even a tiny time loop.
# Only a failing check builds its message.
cdef int _NCODES = 4      # activation codes 0..3 (ACTIVATIONS)


cdef str _got(object a):
    if not isinstance(a, np.ndarray):
        return type(a).__name__
    return "%s %s" % (a.dtype, list(a.shape))


cdef object _lead(str kernel, str name, object a, int ndim):
    """The array the sizes come from: a float32/float64 ndarray of rank ``ndim`` in native
    byte order, C-contiguous (copied once if not)."""
    cdef int t
    if not cnp.PyArray_Check(a):
        raise ValueError("%s: %s must be a NumPy array (expected a float32 or float64 "
                         "ndarray, got %s)" % (kernel, name, _got(a)))
    t = cnp.PyArray_TYPE(<cnp.ndarray>a)
    if (t != cnp.NPY_FLOAT32 and t != cnp.NPY_FLOAT64) or \
            not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>a):
        raise ValueError("%s: %s has an unsupported dtype (expected float32 or float64, "
                         "got %s)" % (kernel, name, a.dtype))
    if cnp.PyArray_NDIM(<cnp.ndarray>a) != ndim:
        raise ValueError("%s: %s has the wrong rank (expected rank %d, got shape %s)"
                         % (kernel, name, ndim, list(a.shape)))
    return a if cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>a) else np.ascontiguousarray(a)


cdef object _arr(str kernel, str name, object a, int typenum, int ndim, Py_ssize_t d0,
                 Py_ssize_t d1=0, Py_ssize_t d2=0):
    """``a`` checked to be an ndarray of type ``typenum`` (native byte order) and exactly
    the shape (d0, d1, d2)[:ndim], C-contiguous (copied once if not)."""
    cdef Py_ssize_t want[3]
    cdef cnp.npy_intp* dims
    cdef int i
    want[0] = d0
    want[1] = d1
    want[2] = d2
    if not cnp.PyArray_Check(a):
        raise ValueError("%s: %s must be a NumPy array (expected %s %s, got %s)"
                         % (kernel, name, np.dtype(cnp.PyArray_TypeObjectFromType(typenum)),
                            [want[i] for i in range(ndim)], _got(a)))
    if cnp.PyArray_TYPE(<cnp.ndarray>a) != typenum or \
            not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>a):
        raise ValueError("%s: %s has the wrong dtype (expected %s, got %s)"
                         % (kernel, name, np.dtype(cnp.PyArray_TypeObjectFromType(typenum)),
                            a.dtype))
    dims = cnp.PyArray_DIMS(<cnp.ndarray>a)
    bad = cnp.PyArray_NDIM(<cnp.ndarray>a) != ndim
    if not bad:
        for i in range(ndim):
            if dims[i] != want[i]:
                bad = True
    if bad:
        raise ValueError("%s: %s has the wrong shape (expected %s, got %s)"
                         % (kernel, name, [want[i] for i in range(ndim)], list(a.shape)))
    return a if cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>a) else np.ascontiguousarray(a)


cdef Py_ssize_t _units(str kernel, object h0, int typenum, Py_ssize_t B) except -1:
    """U from the initial state, which must be (B, U) of type ``typenum`` (the recurrent
    kernel is then checked against it)."""
    if not cnp.PyArray_Check(h0) or cnp.PyArray_NDIM(<cnp.ndarray>h0) != 2:
        raise ValueError("%s: h0 must be a 2-D array (expected (batch, units) with batch "
                         "%d, got %s)" % (kernel, B, _got(h0)))
    return cnp.PyArray_DIMS(<cnp.ndarray>h0)[1]


cdef object _mask(str kernel, object mask, Py_ssize_t T, Py_ssize_t B, int typenum):
    """The (T, B) mask, any real dtype, as C-contiguous 0/1 rows of type ``typenum``."""
    cdef cnp.npy_intp* dims
    if not cnp.PyArray_Check(mask) or mask.dtype.kind not in "biuf":
        raise ValueError("%s: mask must be a real NumPy array (expected (T, B) = %s, got "
                         "%s)" % (kernel, [T, B], _got(mask)))
    dims = cnp.PyArray_DIMS(<cnp.ndarray>mask)
    if cnp.PyArray_NDIM(<cnp.ndarray>mask) != 2 or dims[0] != T or dims[1] != B:
        raise ValueError("%s: mask has the wrong shape (expected %s, got %s)"
                         % (kernel, [T, B], list(mask.shape)))
    if cnp.PyArray_TYPE(<cnp.ndarray>mask) == typenum and \
            cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>mask) and \
            cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>mask):
        return mask
    return _mask_rows(mask, T, B, np.dtype(cnp.PyArray_TypeObjectFromType(typenum)))


cdef int _codes(str kernel, int act, int ract) except -1:
    if not (0 <= act < _NCODES and 0 <= ract < _NCODES):
        raise ValueError("%s: unknown activation code (expected 0..%d, got %d and %d)"
                         % (kernel, _NCODES - 1, act, ract))
    return 0


cdef _packed(rkernel, bint transpose, dt):
    """The recurrent kernel (or its transpose) packed in the loops' column strips (cdef:
    only the entries, which checked it to be a C-contiguous 2-D array of dtype ``dt``,
    call it)."""
    r = rkernel
    cdef Py_ssize_t K = r.shape[1] if transpose else r.shape[0]
    cdef Py_ssize_t N = r.shape[0] if transpose else r.shape[1]
    cdef Py_ssize_t sk = 1 if transpose else N, sj = K if transpose else 1
    if dt == np.float32:
        p = np.empty(fe_rnn_packed_size_f32(K, N), dtype=dt)
        fe_rnn_pack_f32(<float*>_ptr(r), sk, sj, K, N, <float*>_ptr(p))
    else:
        p = np.empty(fe_rnn_packed_size_f64(K, N), dtype=dt)
        fe_rnn_pack_f64(<double*>_ptr(r), sk, sj, K, N, <double*>_ptr(p))
    return p


cdef Py_ssize_t _blocks(Py_ssize_t B) noexcept:
    """How many row blocks (one per thread) to split B batch rows into."""
    cdef Py_ssize_t n = openmp.omp_get_max_threads()
    cdef Py_ssize_t most = B // _MIN_ROWS
    if most < n:
        n = most
    return n if n > 1 else 1


cdef inline Py_ssize_t _row0(Py_ssize_t blk, Py_ssize_t nblk, Py_ssize_t B) noexcept nogil:
    return blk * B // nblk


def _mask_rows(mask, T, B, dtype):
    return np.ascontiguousarray(mask, dtype=dtype).reshape(T, B)


# ----------------------------------------------------------------------------------------
# LSTM
# ----------------------------------------------------------------------------------------

def lstm_forward(x, h0, c0, kernel, rkernel, bias, mask, int act, int ract):
    """LSTM over time-major ``x``: returns (h_seq, c_seq, gates), gates activated [i,f,c,o].
    The input projection runs inside the loop too (no BLAS call: see _rnn_loops.h)."""
    k = "lstm_forward"
    x = _lead(k, "x", x, 3)
    dt = x.dtype
    cdef int tn = cnp.PyArray_TYPE(<cnp.ndarray>x)
    cdef Py_ssize_t T = x.shape[0], B = x.shape[1], D = x.shape[2]
    cdef Py_ssize_t U = _units(k, h0, tn, B)
    h0, c0 = _arr(k, "h0", h0, tn, 2, B, U), _arr(k, "c0", c0, tn, 2, B, U)
    rkernel = _arr(k, "recurrent_kernel", rkernel, tn, 2, U, 4 * U)
    kernel = _arr(k, "kernel", kernel, tn, 2, D, 4 * U)
    bias = None if bias is None else _arr(k, "bias", bias, tn, 1, 4 * U)
    m = _mask(k, mask, T, B, tn)
    _codes(k, act, ract)
    h_seq = np.empty((T, B, U), dtype=dt)
    c_seq = np.empty((T, B, U), dtype=dt)
    gates = np.empty((T, B, 4 * U), dtype=dt)
    W = _packed(kernel, False, dt)
    R = _packed(rkernel, False, dt)
    cdef Py_ssize_t nblk = _blocks(B), blk, b0, b1
    tmp = np.empty((nblk, U), dtype=dt)
    cdef bint f32 = dt == np.float32
    cdef void *px = _ptr(x), *pW = _ptr(W), *pb = _optr(bias), *ph0 = _ptr(h0)
    cdef void *pc0 = _ptr(c0), *pR = _ptr(R)
    cdef void *pm = _ptr(m), *ph = _ptr(h_seq), *pc = _ptr(c_seq), *pg = _ptr(gates)
    cdef char* ptmp = <char*>_ptr(tmp)
    cdef Py_ssize_t tmp_row = U * dt.itemsize
    for blk in prange(nblk, nogil=True, schedule="static", num_threads=nblk):
        b0 = _row0(blk, nblk, B)
        b1 = _row0(blk + 1, nblk, B)
        if f32:
            fe_lstm_forward_f32(T, B, U, D, b0, b1, <float*>px, <float*>pW, <float*>pb,
                                <float*>ph0, <float*>pc0, <float*>pR, <float*>pm,
                                <float*>ph, <float*>pc, <float*>pg,
                                <float*>(ptmp + blk * tmp_row), act, ract)
        else:
            fe_lstm_forward_f64(T, B, U, D, b0, b1, <double*>px, <double*>pW, <double*>pb,
                                <double*>ph0, <double*>pc0, <double*>pR, <double*>pm,
                                <double*>ph, <double*>pc, <double*>pg,
                                <double*>(ptmp + blk * tmp_row), act, ract)
    return h_seq, c_seq, gates


def lstm_backward(x, h0, c0, rkernel, mask, h_seq, c_seq, gates, g_h, g_c, g_gates, int act,
                  int ract):
    """Backward through time of ``lstm_forward`` given the gradients of its three outputs
    (``g_c`` and ``g_gates`` may be None: zero): (dz, dh0, dc0, dkernel,
    drecurrent_kernel, dbias), dz the (T, B, 4U) gradients of the gate pre-activations
    (``ops/rnn_ops.py`` makes dx from it where needed). The weight gradients are summed
    inside the loop, one partial sum per row block, added here."""
    k = "lstm_backward"
    x = _lead(k, "x", x, 3)
    dt = x.dtype
    cdef int tn = cnp.PyArray_TYPE(<cnp.ndarray>x)
    cdef Py_ssize_t T = x.shape[0], B = x.shape[1], D = x.shape[2]
    cdef Py_ssize_t U = _units(k, h0, tn, B), G = 4 * U
    h0, c0 = _arr(k, "h0", h0, tn, 2, B, U), _arr(k, "c0", c0, tn, 2, B, U)
    rkernel = _arr(k, "recurrent_kernel", rkernel, tn, 2, U, G)
    h_seq = _arr(k, "h_seq", h_seq, tn, 3, T, B, U)
    c_seq = _arr(k, "c_seq", c_seq, tn, 3, T, B, U)
    gates = _arr(k, "gates", gates, tn, 3, T, B, G)
    g_h = _arr(k, "g_h", g_h, tn, 3, T, B, U)
    g_c = None if g_c is None else _arr(k, "g_c", g_c, tn, 3, T, B, U)
    g_gates = None if g_gates is None else _arr(k, "g_gates", g_gates, tn, 3, T, B, G)
    m = _mask(k, mask, T, B, tn)
    _codes(k, act, ract)
    dh = np.empty((B, U), dtype=dt)
    dc = np.empty((B, U), dtype=dt)
    dz = np.empty((T, B, G), dtype=dt)
    Rt = _packed(rkernel, True, dt)
    cdef Py_ssize_t nblk = _blocks(B), blk, b0, b1
    carry = np.empty((B, U), dtype=dt)
    tc = np.empty((nblk, U), dtype=dt)
    zeros = np.zeros(U, dtype=dt)       # stands in for a gradient given as None
    dW = np.empty((nblk, D, G), dtype=dt)
    dR = np.empty((nblk, U, G), dtype=dt)
    db = np.empty((nblk, G), dtype=dt)
    cdef bint f32 = dt == np.float32
    cdef void *pgh = _ptr(g_h), *pgc = _optr(g_c), *pgg = _optr(g_gates), *pgt = _ptr(gates)
    cdef void *pcs = _ptr(c_seq), *pc0 = _ptr(c0), *pm = _ptr(m), *pR = _ptr(Rt)
    cdef void *px = _ptr(x), *ph0 = _ptr(h0), *phs = _ptr(h_seq)
    cdef void *pdz = _ptr(dz), *pdh = _ptr(dh), *pdc = _ptr(dc)
    cdef char *pcarry = <char*>_ptr(carry), *ptc = <char*>_ptr(tc)
    cdef char *pdW = <char*>_ptr(dW), *pdR = <char*>_ptr(dR), *pdb = <char*>_ptr(db)
    cdef void* pzeros = _ptr(zeros)
    cdef Py_ssize_t row = U * dt.itemsize, isz = dt.itemsize
    for blk in prange(nblk, nogil=True, schedule="static", num_threads=nblk):
        b0 = _row0(blk, nblk, B)
        b1 = _row0(blk + 1, nblk, B)
        if f32:
            fe_lstm_backward_f32(T, B, U, D, b0, b1, <float*>pgh, <float*>pgc, <float*>pgg,
                                 <float*>pgt, <float*>pcs, <float*>pc0, <float*>px,
                                 <float*>ph0, <float*>phs, <float*>pm, <float*>pR,
                                 <float*>pdz, <float*>pdh, <float*>pdc,
                                 <float*>(pdW + blk * D * G * isz),
                                 <float*>(pdR + blk * U * G * isz),
                                 <float*>(pdb + blk * G * isz),
                                 <float*>(pcarry + b0 * row), <float*>(ptc + blk * row),
                                 <float*>pzeros, act, ract)
        else:
            fe_lstm_backward_f64(T, B, U, D, b0, b1, <double*>pgh, <double*>pgc,
                                 <double*>pgg, <double*>pgt, <double*>pcs, <double*>pc0,
                                 <double*>px, <double*>ph0, <double*>phs, <double*>pm,
                                 <double*>pR, <double*>pdz, <double*>pdh, <double*>pdc,
                                 <double*>(pdW + blk * D * G * isz),
                                 <double*>(pdR + blk * U * G * isz),
                                 <double*>(pdb + blk * G * isz),
                                 <double*>(pcarry + b0 * row), <double*>(ptc + blk * row),
                                 <double*>pzeros, act, ract)
    return (dz, dh, dc) + _weight_grads(dW, dR, db, nblk)


# ----------------------------------------------------------------------------------------
# GRU (reset_after=True)
# ----------------------------------------------------------------------------------------

def _weight_grads(dW, dR, db, Py_ssize_t nblk):
    """The blocks' partial weight gradients added up."""
    if nblk == 1:
        return dW[0], dR[0], db[0]
    return dW.sum(axis=0), dR.sum(axis=0), db.sum(axis=0)


def gru_forward(x, h0, kernel, rkernel, bias, mask, int act, int ract):
    """GRU (reset_after) over time-major ``x``; ``bias`` is (2, 3U): input and recurrent.
    Returns (h_seq, gates, hrh): gates activated [z, r, h], hrh the recurrent part of the
    candidate before the reset gate multiplies (``h_prev @ R_h + b_rec_h``)."""
    k = "gru_forward"
    x = _lead(k, "x", x, 3)
    dt = x.dtype
    cdef int tn = cnp.PyArray_TYPE(<cnp.ndarray>x)
    cdef Py_ssize_t T = x.shape[0], B = x.shape[1], D = x.shape[2]
    cdef Py_ssize_t U = _units(k, h0, tn, B)
    h0 = _arr(k, "h0", h0, tn, 2, B, U)
    rkernel = _arr(k, "recurrent_kernel", rkernel, tn, 2, U, 3 * U)
    kernel = _arr(k, "kernel", kernel, tn, 2, D, 3 * U)
    bias = _arr(k, "bias", bias, tn, 2, 2, 3 * U)      # (input, recurrent): always read
    m = _mask(k, mask, T, B, tn)
    _codes(k, act, ract)
    h_seq = np.empty((T, B, U), dtype=dt)
    gates = np.empty((T, B, 3 * U), dtype=dt)
    hrh = np.empty((T, B, U), dtype=dt)
    xb = np.empty((B, 3 * U), dtype=dt)
    hr = np.empty((B, 3 * U), dtype=dt)
    W = _packed(kernel, False, dt)
    R = _packed(rkernel, False, dt)
    cdef Py_ssize_t nblk = _blocks(B), blk, b0, b1
    cdef bint f32 = dt == np.float32
    cdef void *px = _ptr(x), *pW = _ptr(W), *pb = _ptr(bias), *ph0 = _ptr(h0), *pR = _ptr(R)
    cdef void *pm = _ptr(m), *ph = _ptr(h_seq), *pg = _ptr(gates), *pq = _ptr(hrh)
    cdef char *pxb = <char*>_ptr(xb), *phr = <char*>_ptr(hr)
    cdef Py_ssize_t row = 3 * U * dt.itemsize
    for blk in prange(nblk, nogil=True, schedule="static", num_threads=nblk):
        b0 = _row0(blk, nblk, B)
        b1 = _row0(blk + 1, nblk, B)
        if f32:
            fe_gru_forward_f32(T, B, U, D, b0, b1, <float*>px, <float*>pW, <float*>pb,
                               <float*>ph0, <float*>pR, <float*>pm, <float*>ph, <float*>pg,
                               <float*>pq, <float*>(pxb + b0 * row), <float*>(phr + b0 * row),
                               act, ract)
        else:
            fe_gru_forward_f64(T, B, U, D, b0, b1, <double*>px, <double*>pW, <double*>pb,
                               <double*>ph0, <double*>pR, <double*>pm, <double*>ph,
                               <double*>pg, <double*>pq, <double*>(pxb + b0 * row),
                               <double*>(phr + b0 * row), act, ract)
    return h_seq, gates, hrh


def gru_backward(x, h0, rkernel, mask, h_seq, gates, hrh, g_h, g_gates, g_hrh, int act,
                 int ract):
    """Backward through time of ``gru_forward`` (``g_gates`` and ``g_hrh`` may be None:
    zero): (dxp, dhr, dh0, dkernel, drecurrent_kernel, dbias), dxp and dhr the (T, B, 3U)
    gradients of the input projections and of the recurrent projections
    (``h_prev @ R + b_rec``), dbias (2, 3U)."""
    k = "gru_backward"
    x = _lead(k, "x", x, 3)
    dt = x.dtype
    cdef int tn = cnp.PyArray_TYPE(<cnp.ndarray>x)
    cdef Py_ssize_t T = x.shape[0], B = x.shape[1], D = x.shape[2]
    cdef Py_ssize_t U = _units(k, h0, tn, B), G = 3 * U
    h0 = _arr(k, "h0", h0, tn, 2, B, U)
    rkernel = _arr(k, "recurrent_kernel", rkernel, tn, 2, U, G)
    h_seq = _arr(k, "h_seq", h_seq, tn, 3, T, B, U)
    gates = _arr(k, "gates", gates, tn, 3, T, B, G)
    hrh = _arr(k, "hrh", hrh, tn, 3, T, B, U)
    g_h = _arr(k, "g_h", g_h, tn, 3, T, B, U)
    g_gates = None if g_gates is None else _arr(k, "g_gates", g_gates, tn, 3, T, B, G)
    g_hrh = None if g_hrh is None else _arr(k, "g_hrh", g_hrh, tn, 3, T, B, U)
    m = _mask(k, mask, T, B, tn)
    _codes(k, act, ract)
    dh = np.empty((B, U), dtype=dt)
    dxp = np.empty((T, B, G), dtype=dt)
    dhr = np.empty((T, B, G), dtype=dt)
    carry = np.empty((B, U), dtype=dt)
    Rt = _packed(rkernel, True, dt)
    zeros = np.zeros(G, dtype=dt)   # stands in for a gradient given as None
    cdef Py_ssize_t nblk = _blocks(B), blk, b0, b1
    dW = np.empty((nblk, D, G), dtype=dt)
    dR = np.empty((nblk, U, G), dtype=dt)
    db = np.empty((nblk, 2, G), dtype=dt)
    cdef bint f32 = dt == np.float32
    cdef void *pgh = _ptr(g_h), *pgg = _optr(g_gates), *pgq = _optr(g_hrh), *pg = _ptr(gates)
    cdef void *pq = _ptr(hrh), *px = _ptr(x), *ph0 = _ptr(h0), *ph = _ptr(h_seq), *pm = _ptr(m)
    cdef void *pR = _ptr(Rt), *pdx = _ptr(dxp), *pdr = _ptr(dhr), *pdh = _ptr(dh)
    cdef void *pzeros = _ptr(zeros)
    cdef char *pcarry = <char*>_ptr(carry)
    cdef char *pdW = <char*>_ptr(dW), *pdR = <char*>_ptr(dR), *pdb = <char*>_ptr(db)
    cdef Py_ssize_t row = U * dt.itemsize, isz = dt.itemsize
    for blk in prange(nblk, nogil=True, schedule="static", num_threads=nblk):
        b0 = _row0(blk, nblk, B)
        b1 = _row0(blk + 1, nblk, B)
        if f32:
            fe_gru_backward_f32(T, B, U, D, b0, b1, <float*>pgh, <float*>pgg, <float*>pgq,
                                <float*>pg, <float*>pq, <float*>px, <float*>ph0, <float*>ph,
                                <float*>pm, <float*>pR, <float*>pdx, <float*>pdr, <float*>pdh,
                                <float*>(pdW + blk * D * G * isz),
                                <float*>(pdR + blk * U * G * isz),
                                <float*>(pdb + blk * 2 * G * isz),
                                <float*>(pcarry + b0 * row), <float*>pzeros, act, ract)
        else:
            fe_gru_backward_f64(T, B, U, D, b0, b1, <double*>pgh, <double*>pgg, <double*>pgq,
                                <double*>pg, <double*>pq, <double*>px, <double*>ph0,
                                <double*>ph, <double*>pm, <double*>pR, <double*>pdx,
                                <double*>pdr, <double*>pdh,
                                <double*>(pdW + blk * D * G * isz),
                                <double*>(pdR + blk * U * G * isz),
                                <double*>(pdb + blk * 2 * G * isz),
                                <double*>(pcarry + b0 * row), <double*>pzeros, act, ract)
    return (dxp, dhr, dh) + _weight_grads(dW, dR, db, nblk)


# ----------------------------------------------------------------------------------------
# Simple RNN
# ----------------------------------------------------------------------------------------

def simple_rnn_forward(x, h0, kernel, rkernel, bias, mask, int act):
    """Simple RNN over time-major ``x``: returns h_seq."""
    k = "simple_rnn_forward"
    x = _lead(k, "x", x, 3)
    dt = x.dtype
    cdef int tn = cnp.PyArray_TYPE(<cnp.ndarray>x)
    cdef Py_ssize_t T = x.shape[0], B = x.shape[1], D = x.shape[2]
    cdef Py_ssize_t U = _units(k, h0, tn, B)
    h0 = _arr(k, "h0", h0, tn, 2, B, U)
    rkernel = _arr(k, "recurrent_kernel", rkernel, tn, 2, U, U)
    kernel = _arr(k, "kernel", kernel, tn, 2, D, U)
    bias = None if bias is None else _arr(k, "bias", bias, tn, 1, U)
    m = _mask(k, mask, T, B, tn)
    _codes(k, act, 0)
    h_seq = np.empty((T, B, U), dtype=dt)
    W = _packed(kernel, False, dt)
    R = _packed(rkernel, False, dt)
    cdef Py_ssize_t nblk = _blocks(B), blk, b0, b1
    cdef bint f32 = dt == np.float32
    cdef void *px = _ptr(x), *pW = _ptr(W), *pb = _optr(bias), *ph0 = _ptr(h0), *pR = _ptr(R)
    cdef void *pm = _ptr(m), *ph = _ptr(h_seq)
    for blk in prange(nblk, nogil=True, schedule="static", num_threads=nblk):
        b0 = _row0(blk, nblk, B)
        b1 = _row0(blk + 1, nblk, B)
        if f32:
            fe_simple_forward_f32(T, B, U, D, b0, b1, <float*>px, <float*>pW, <float*>pb,
                                  <float*>ph0, <float*>pR, <float*>pm, <float*>ph, act)
        else:
            fe_simple_forward_f64(T, B, U, D, b0, b1, <double*>px, <double*>pW, <double*>pb,
                                  <double*>ph0, <double*>pR, <double*>pm, <double*>ph, act)
    return h_seq


def simple_rnn_backward(x, h0, rkernel, mask, h_seq, g_h, int act):
    """Backward through time of ``simple_rnn_forward``: (da, dh0, dkernel,
    drecurrent_kernel, dbias), da the (T, B, U) gradients of the pre-activations."""
    k = "simple_rnn_backward"
    x = _lead(k, "x", x, 3)
    dt = x.dtype
    cdef int tn = cnp.PyArray_TYPE(<cnp.ndarray>x)
    cdef Py_ssize_t T = x.shape[0], B = x.shape[1], D = x.shape[2]
    cdef Py_ssize_t U = _units(k, h0, tn, B)
    h0 = _arr(k, "h0", h0, tn, 2, B, U)
    rkernel = _arr(k, "recurrent_kernel", rkernel, tn, 2, U, U)
    h_seq = _arr(k, "h_seq", h_seq, tn, 3, T, B, U)
    g_h = _arr(k, "g_h", g_h, tn, 3, T, B, U)
    m = _mask(k, mask, T, B, tn)
    _codes(k, act, 0)
    dh = np.empty((B, U), dtype=dt)
    da = np.empty((T, B, U), dtype=dt)
    carry = np.empty((B, U), dtype=dt)
    Rt = _packed(rkernel, True, dt)
    cdef Py_ssize_t nblk = _blocks(B), blk, b0, b1
    dW = np.empty((nblk, D, U), dtype=dt)
    dR = np.empty((nblk, U, U), dtype=dt)
    db = np.empty((nblk, U), dtype=dt)
    cdef bint f32 = dt == np.float32
    cdef void *pgh = _ptr(g_h), *px = _ptr(x), *ph0 = _ptr(h0), *ph = _ptr(h_seq)
    cdef void *pm = _ptr(m), *pR = _ptr(Rt), *pda = _ptr(da), *pdh = _ptr(dh)
    cdef char *pcarry = <char*>_ptr(carry)
    cdef char *pdW = <char*>_ptr(dW), *pdR = <char*>_ptr(dR), *pdb = <char*>_ptr(db)
    cdef Py_ssize_t row = U * dt.itemsize, isz = dt.itemsize
    for blk in prange(nblk, nogil=True, schedule="static", num_threads=nblk):
        b0 = _row0(blk, nblk, B)
        b1 = _row0(blk + 1, nblk, B)
        if f32:
            fe_simple_backward_f32(T, B, U, D, b0, b1, <float*>pgh, <float*>px, <float*>ph0,
                                   <float*>ph, <float*>pm, <float*>pR, <float*>pda,
                                   <float*>pdh, <float*>(pdW + blk * D * U * isz),
                                   <float*>(pdR + blk * U * U * isz),
                                   <float*>(pdb + blk * U * isz),
                                   <float*>(pcarry + b0 * row), act)
        else:
            fe_simple_backward_f64(T, B, U, D, b0, b1, <double*>pgh, <double*>px,
                                   <double*>ph0, <double*>ph, <double*>pm, <double*>pR,
                                   <double*>pda, <double*>pdh,
                                   <double*>(pdW + blk * D * U * isz),
                                   <double*>(pdR + blk * U * U * isz),
                                   <double*>(pdb + blk * U * isz),
                                   <double*>(pcarry + b0 * row), act)
    return (da, dh) + _weight_grads(dW, dR, db, nblk)
