# cython: language_level=3
"""float32 matrix products for the thin shapes of small models (see _gemm.h, docs/gemm.md).

``sgemm(a, b, transpose_a, transpose_b, out)`` computes ``op(a) @ op(b)`` with the
register-blocked kernels of ``_gemm.h``; ``sgemm_pays`` says for which shapes that beats
``np.matmul`` (NumPy's OpenBLAS), so callers pick per call.
"""
cimport numpy as cnp
cimport openmp

import numpy as np

cnp.import_array()

cdef extern from "_gemm.h" nogil:
    ctypedef struct fe_gemm_args:
        Py_ssize_t M, N, K
        const float* a
        Py_ssize_t sam, sak
        const float* b
        Py_ssize_t ldb
        int bt
        float* c
        Py_ssize_t ldc
    int fe_gemm_level()
    void fe_sgemm(const fe_gemm_args* g, int level, int nthreads)
    void fe_gemm_pack_bt(const float* bs, Py_ssize_t ldbs, Py_ssize_t K, Py_ssize_t N,
                         float* out, int level)

cdef int _CPU_LEVEL = fe_gemm_level()
cdef int _level = _CPU_LEVEL      # tests lower it (_set_level) to run the other variants
cdef int _threads = 0             # 0: decided per call; tests force 1 or 2 (_set_threads)

# Threads, chosen per shape at run time. Waking the second thread of the (passive)
# OpenMP team costs several microseconds, and on a shared 2-vCPU VM the second thread
# often finds its core busy: there, 2 threads were 3-8 us slower than 1 on every product
# up to 32x512x128, while on a free core splitting 32x784 @ 784x128 in two panels halves
# ~47 us. So from _TUNE_MACS multiply-adds on, each shape keeps the wall times of its
# last _WINDOW calls on one thread and on all, runs with the lower median, and re-probes
# the other count every _PROBE_EVERY calls (the bits do not depend on the thread count,
# so switching changes nothing but the time). Below _TUNE_MACS (~8 us on one thread)
# one thread always.
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef Py_ssize_t _TUNE_MACS = 1 << 20
cdef enum:
    _WINDOW = 8
    _PROBE_EVERY = 64
    _MAX_SHAPES = 256


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


cdef double _median(double* t) noexcept:
    cdef double v[_WINDOW]
    cdef double x
    cdef int i, j
    for i in range(_WINDOW):       # insertion sort of a copy
        x = t[i]
        j = i - 1
        while j >= 0 and v[j] > x:
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = x
    return 0.5 * (v[_WINDOW // 2 - 1] + v[_WINDOW // 2])


cdef class _ThreadChoice:
    """The thread count for one shape: one thread (0) or all (1), by the lower median
    wall time of the last _WINDOW calls with each."""
    cdef double times[2][_WINDOW]
    cdef int counts[2]
    cdef long calls
    cdef int choice

    cdef int pick(self):
        cdef long c = self.calls
        self.calls += 1
        if c < 2 * _WINDOW:
            return c & 1                    # alternate until both windows are full
        if c % _PROBE_EVERY == 0:
            return 1 - self.choice
        return self.choice

    cdef void record(self, int option, double seconds):
        self.times[option][self.counts[option] % _WINDOW] = seconds
        self.counts[option] += 1
        if self.counts[0] >= _WINDOW and self.counts[1] >= _WINDOW:
            self.choice = _median(self.times[1]) < _median(self.times[0])


cdef dict _choices = {}


cdef _ThreadChoice _choice_for(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k, bint ta, bint tb):
    key = (m, n, k, ta, tb)
    cdef _ThreadChoice tc = _choices.get(key)
    if tc is None:
        if len(_choices) >= _MAX_SHAPES:
            _choices.clear()
        tc = _ThreadChoice()
        _choices[key] = tc
    return tc


def _max_threads():
    """The OpenMP team size sgemm may use (1: it never times the thread counts)."""
    return openmp.omp_get_max_threads()


def _thread_choice(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k, bint transpose_a=False,
                   bint transpose_b=False):
    """Test hook: (calls so far, threads in use: 1 or 'all') for a shape, or None."""
    cdef _ThreadChoice tc = _choices.get((m, n, k, transpose_a, transpose_b))
    if tc is None:
        return None
    return tc.calls, ("all" if tc.choice else 1)


cpu_level = _CPU_LEVEL
"""The kernel variant this CPU runs: 2 AVX-512F, 1 AVX2 + FMA, 0 the baseline."""


def _set_level(int level):
    """Test hook: run the kernels of ``level`` (at most the CPU's); returns the old one."""
    global _level
    old = _level
    _level = max(0, min(level, _CPU_LEVEL))
    return old


def _set_threads(int threads):
    """Test hook: force the thread count (0: decided by size); returns the old value."""
    global _threads
    old = _threads
    _threads = max(0, threads)
    return old


def sgemm_pays(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k, bint transpose_a=False,
               bint transpose_b=False):
    """Whether ``sgemm`` beats ``np.matmul`` for op(a) (m x k) @ op(b) (k x n).

    Decided from interleaved medians on the 2-vCPU Sapphire Rapids VM (docs/gemm.md has
    the table): with the AVX-512 kernels, sgemm is faster for every product measured up
    to 64x512x128 (4 M multiply-adds): 1.2-2x on the small Dense shapes (OpenBLAS's call
    and packing overhead), 1.4x on 32x784 @ 784x128. Not picked:
    - above 32 M multiply-adds, or above 16 M with M or K under 128: one thread of each
      (CPU time, loaded VM) ran 256x784 @ 784x128 in 604 us against 641, (256x784)^T @
      256x128 610 against 657, 128x1024 @ 1024x256 888 against 875, but 1792x28 @
      28x512 (the LSTM's input projection: C far beyond L2, K too short to hide the
      stores) 605 against 556 and 28x1792 @ 1792x512 721 against 701; beyond these
      sizes OpenBLAS's blocking for large sizes is the safer choice;
    - a transposed B of more than 16 Ki elements serving fewer than 12 rows: B is
      packed block by block inside the kernel, which pays once several row tiles reuse
      each block (1-thread CPU times: 8x512 @ (128x512)^T 20.8 us against 14.9, 1x128 @
      (784x128)^T 17.2 against 11.9; 12x256 @ (256x256)^T 22.0 against 52.3, 32x128 @
      (784x128)^T 70 against 142).
    A transposed A with N < 16 (a kernel gradient h^T g of a 10-unit layer) runs as
    C^T = B^T A (see sgemm): (256x128)^T @ 256x10 takes 7.2 us against OpenBLAS's 8.2
    (12.6 the direct way).
    With AVX2 only (level 1, 8 lanes, a 6x2 tile) sgemm is picked up to 64 Ki
    multiply-adds: forced to level 1 on the same VM it still beat OpenBLAS's AVX-512
    kernels there (32x128 @ 128x10: 3.5 against 4.1 us; 64x64 @ 64x10: 3.6 against 4.2)
    and lost above (256x128 @ 128x10: 13.5 against 11.9), so this is the conservative
    side for a machine whose OpenBLAS has only AVX2 too (the transposed-B rule above
    applies as well). The baseline is never picked.
    """
    return _pays(m, n, k, transpose_a, transpose_b)


cdef inline bint _pays(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k, bint ta, bint tb) noexcept:
    if _level < 1 or m <= 0 or n <= 0 or k <= 0:
        return False
    cdef Py_ssize_t macs = m * n * k
    if _level == 1 and macs > (1 << 16):
        return False
    if macs > (1 << 24) and (macs > (1 << 25) or m < 128 or k < 128):
        return False
    if tb and m < 12 and n * k > (1 << 14):
        return False
    return True


def sgemm_if_pays(a, b, bint transpose_a=False, bint transpose_b=False, out=None):
    """``sgemm(a, b, transpose_a, transpose_b, out)`` when a, b (and out) are 2-D float32
    arrays of matching shapes for which ``sgemm_pays``; else None (nothing computed), so
    the caller runs ``np.matmul``. One call: the checks cost well under a microsecond."""
    cdef cnp.ndarray A, B, C
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return None
    A = <cnp.ndarray>a
    B = <cnp.ndarray>b
    if (cnp.PyArray_NDIM(A) != 2 or cnp.PyArray_NDIM(B) != 2
            or cnp.PyArray_TYPE(A) != cnp.NPY_FLOAT32 or cnp.PyArray_TYPE(B) != cnp.NPY_FLOAT32):
        return None
    cdef Py_ssize_t k = cnp.PyArray_DIM(A, 0 if transpose_a else 1)
    if k != cnp.PyArray_DIM(B, 1 if transpose_b else 0):
        return None
    cdef Py_ssize_t m = cnp.PyArray_DIM(A, 1 if transpose_a else 0)
    cdef Py_ssize_t n = cnp.PyArray_DIM(B, 0 if transpose_b else 1)
    if not _pays(m, n, k, transpose_a, transpose_b):
        return None
    if out is not None:
        if not isinstance(out, np.ndarray):
            return None
        C = <cnp.ndarray>out
        if (cnp.PyArray_NDIM(C) != 2 or cnp.PyArray_TYPE(C) != cnp.NPY_FLOAT32
                or cnp.PyArray_DIM(C, 0) != m or cnp.PyArray_DIM(C, 1) != n
                or not cnp.PyArray_ISWRITEABLE(C)):
            return None
    return sgemm(a, b, transpose_a, transpose_b, out)


cdef object _finish(_ThreadChoice tc, int option, double t0, bint direct, out, C):
    """After a product: time it for the thread choice, and copy C into ``out`` when the
    kernel could not write there directly."""
    if tc is not None:
        tc.record(option, _now() - t0)
    if not direct:
        out[...] = C
        return out
    return C


cdef inline Py_ssize_t _elem_stride(cnp.ndarray x, int axis):
    # in elements; only called for aligned float32 arrays (strides are multiples of 4)
    return cnp.PyArray_STRIDE(x, axis) // 4


cdef _check(str name, x):
    if type(x) is not np.ndarray and not isinstance(x, np.ndarray):
        raise ValueError("sgemm: %s must be a NumPy array (expected a 2-D float32 ndarray, "
                         "got %s)" % (name, type(x).__name__))
    cdef cnp.ndarray arr = <cnp.ndarray>x
    if cnp.PyArray_TYPE(arr) != cnp.NPY_FLOAT32:
        raise ValueError("sgemm: %s must be float32 (expected dtype float32, got %s)"
                         % (name, arr.dtype))
    if cnp.PyArray_NDIM(arr) != 2:
        raise ValueError("sgemm: %s must be 2-D (expected a matrix, got shape %s)"
                         % (name, list((<object>arr).shape)))
    if not (cnp.PyArray_ISALIGNED(arr) and cnp.PyArray_ISNOTSWAPPED(arr)):
        arr = np.ascontiguousarray(arr, dtype=np.float32)   # aligned, native byte order
    return arr


def sgemm(a, b, transpose_a=False, transpose_b=False, out=None):
    """``op(a) @ op(b)`` for 2-D float32 arrays, op transposing where asked.

    Inputs may be any views (transposed, strided, read-only); a B whose unit stride is
    along K is packed block by block in the kernel, an input with no unit-stride axis is
    copied. Returns a new C-contiguous (M, N) array, or writes ``out`` (float32, shape
    (M, N)) and returns it. The same inputs give the same bits on every call, at every
    thread count and in every layout (each element is one FMA chain over k in order).
    """
    cdef cnp.ndarray A = _check("a", a)
    cdef cnp.ndarray B = _check("b", b)
    cdef bint ta = bool(transpose_a), tb = bool(transpose_b)
    cdef int ia_m = 1 if ta else 0, ib_k = 1 if tb else 0
    cdef Py_ssize_t M = cnp.PyArray_DIM(A, ia_m), K = cnp.PyArray_DIM(A, 1 - ia_m)
    cdef Py_ssize_t KB = cnp.PyArray_DIM(B, ib_k), N = cnp.PyArray_DIM(B, 1 - ib_k)
    if K != KB:
        raise ValueError(
            "sgemm: inner dimensions differ (a is %s%s, b is %s%s: expected %d == %d)"
            % (list((<object>A).shape), " transposed" if ta else "", list((<object>B).shape),
               " transposed" if tb else "", K, KB))
    cdef cnp.ndarray C
    cdef bint direct = True
    if out is None:
        C = np.zeros((M, N), np.float32) if K == 0 else np.empty((M, N), np.float32)
    else:
        if not isinstance(out, np.ndarray):
            raise ValueError("sgemm: out must be a NumPy array (expected a float32 ndarray "
                             "of shape %s, got %s)" % ([M, N], type(out).__name__))
        C = <cnp.ndarray>out
        if (cnp.PyArray_TYPE(C) != cnp.NPY_FLOAT32 or cnp.PyArray_NDIM(C) != 2
                or cnp.PyArray_DIM(C, 0) != M or cnp.PyArray_DIM(C, 1) != N):
            raise ValueError("sgemm: out must be float32 of shape %s (expected float32 %s, "
                             "got %s %s)" % ([M, N], [M, N], out.dtype, list(out.shape)))
        if not cnp.PyArray_ISWRITEABLE(C):
            raise ValueError("sgemm: out must be writeable (expected a writeable array, "
                             "got a read-only one)")
        if K == 0:
            C[...] = 0
            return C
        # the kernels write rows with unit stride, and must not overwrite their inputs
        direct = (cnp.PyArray_ISALIGNED(C) and cnp.PyArray_ISNOTSWAPPED(C)
                  and (N == 1 or cnp.PyArray_STRIDE(C, 1) == 4)
                  and not np.may_share_memory(C, A) and not np.may_share_memory(C, B))
        if not direct:
            C = np.empty((M, N), np.float32)
    if M == 0 or N == 0 or K == 0:
        if not direct:
            out[...] = C
        return out if out is not None else C

    cdef fe_gemm_args g
    g.M = M; g.N = N; g.K = K
    # A: any strides (broadcast reads); copied only when neither axis is contiguous
    cdef Py_ssize_t s_m = _elem_stride(A, ia_m), s_k = _elem_stride(A, 1 - ia_m)
    if M > 1 and K > 1 and s_m != 1 and s_k != 1:
        A = np.ascontiguousarray(A)
        s_m = _elem_stride(A, ia_m); s_k = _elem_stride(A, 1 - ia_m)
    g.a = <const float*>cnp.PyArray_DATA(A); g.sam = s_m; g.sak = s_k
    cdef Py_ssize_t t_k = _elem_stride(B, ib_k), t_n = _elem_stride(B, 1 - ib_k)
    cdef int threads = _threads, option = 0
    cdef _ThreadChoice tc = None
    cdef double t0 = 0
    if threads == 0:
        threads = 1
        if M * N * K >= _TUNE_MACS and openmp.omp_get_max_threads() > 1:
            tc = _choice_for(M, N, K, ta, tb)
            option = tc.pick()
            if option:
                threads = openmp.omp_get_max_threads()
            t0 = _now()
    cdef int level = _level
    cdef cnp.ndarray packed, ct
    if s_m == 1 and 1 < N < 16 and M >= 16 and _elem_stride(C, 0) == N:
        # A with unit stride along M (A^T of a kernel gradient) and a narrow C: compute
        # C^T = op(B)^T op(A), M wide (full vectors of A's rows) instead of one masked
        # vector per row of C, then transpose. Each element is the same FMA chain over
        # k (a*b and b*a round alike): the bits of the direct route.
        ct = np.empty((N, M), np.float32)
        g.M = N; g.N = M
        g.a = <const float*>cnp.PyArray_DATA(B); g.sam = t_n; g.sak = t_k
        g.b = <const float*>cnp.PyArray_DATA(A); g.ldb = s_k; g.bt = 0
        g.c = <float*>cnp.PyArray_DATA(ct); g.ldc = M
        with nogil:
            fe_sgemm(&g, level, threads)
            fe_gemm_pack_bt(<const float*>cnp.PyArray_DATA(ct), M, M, N,
                            <float*>cnp.PyArray_DATA(C), level)
        return _finish(tc, option, t0, direct, out, C)
    # B: unit stride along N read as it is; unit stride along K packed block by block
    # in the kernel; neither: copied
    g.bt = 0
    if N == 1 or t_n == 1:
        g.b = <const float*>cnp.PyArray_DATA(B); g.ldb = t_k
    elif K == 1 or t_k == 1:
        g.b = <const float*>cnp.PyArray_DATA(B); g.ldb = t_n; g.bt = 1
    else:
        packed = np.ascontiguousarray(B.T if tb else B)
        g.b = <const float*>cnp.PyArray_DATA(packed); g.ldb = N
    g.c = <float*>cnp.PyArray_DATA(C)
    g.ldc = _elem_stride(C, 0) if M > 1 else N
    with nogil:
        fe_sgemm(&g, level, threads)
    return _finish(tc, option, t0, direct, out, C)
