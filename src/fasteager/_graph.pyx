# cython: language_level=3, boundscheck=False, wraparound=False
"""The replay loop of ``fe.function`` graphs, and the fused elementwise kernel.

A traced graph is a list of ``Step`` objects over a register file (a Python list of
ndarrays). ``run`` walks the steps once: it calls each recorded kernel on the arrays in
its input registers and stores the result, with none of the eager path's conversion,
dtype checks, placement, wrapping or tape bookkeeping; registers whose last reader has
run are dropped, so buffers are freed (and variables can be updated in place) as early
as in the eager program.

``Fused`` runs a chain of elementwise ops on same-shape float arrays as one pass: a tiny
bytecode program over a register file per element, evaluated over blocks of elements
(so every intermediate stays in cache) with the loop parallel over blocks when large.
"""
cimport cython
cimport numpy as cnp
from cython.parallel cimport prange, threadid
cimport openmp
from libc.math cimport exp, log, tanh, sqrt, sin, cos, fabs, log1p, expm1
from libc.stdlib cimport malloc, calloc, free

cdef extern from "_fastmath.h" nogil:
    void fe_exp_loop(const float* a, float* d, Py_ssize_t n)
    void fe_log_loop(const float* a, float* d, Py_ssize_t n)
    void fe_tanh_loop(const float* a, float* d, Py_ssize_t n)
    void fe_sigmoid_loop(const float* a, float* d, Py_ssize_t n)
    void fe_sqrt_loop(const float* a, float* d, Py_ssize_t n)
    void fe_rsqrt_loop(const float* a, float* d, Py_ssize_t n)
    void fe_sqrt_loop_f64(const double* a, double* d, Py_ssize_t n)
    void fe_rsqrt_loop_f64(const double* a, double* d, Py_ssize_t n)

import numpy as np

cnp.import_array()

# The kinds of replay steps: their one definition. An anonymous ``cpdef enum`` is a C
# constant in the loop below and a plain Python int for fe.function's modules
# (``fasteager._src.tracing``), which import them from here.
cpdef enum:
    KIND_OP = 0         # a kernel: fn(*arrays, **attrs) -> array(s)
    KIND_READ = 1       # a variable read: fn is the variable
    KIND_EFFECT = 2     # fn(*arrays) run for its effect (a write, a print); no output
    KIND_FUSED = 3      # a fused elementwise chain (a Fused or a GPU kernel)
    KIND_COPY = 4       # a copy between host and GPU: fn(array) -> array
    KIND_PY_CALL = 5    # fe.py_function: fn(*arrays) -> tuple of arrays
    KIND_CONTROL = 6    # fe.cond / fe.while_loop: fn(*arrays) -> tuple; attrs["eager"]
# kinds COPY, PY_CALL and CONTROL run as fn(*arrays) -> the output register(s)


@cython.final
cdef class Step:
    """One entry of a replay list."""
    cdef public int kind
    cdef public object fn          # the kernel; the variable (KIND_READ); a callable
    cdef public tuple ins          # input registers
    cdef public dict attrs         # keyword attributes of the kernel, or None
    cdef public object out         # output register (int), a tuple for multi, -1: none
    cdef public bint multi
    cdef public str name           # op name, for error messages
    cdef public object op          # the Op (None for reads and effects)
    cdef public tuple frees        # registers whose last use is this step
    cdef public int buf            # index of the reused output buffer, or -1
    cdef public object into        # the kernel writing into that buffer

    def __init__(self, int kind, fn, tuple ins, attrs, out, bint multi, str name, op=None):
        self.kind = kind
        self.fn = fn
        self.ins = ins
        self.attrs = attrs if attrs else None
        self.out = out
        self.multi = multi
        self.name = name
        self.op = op
        self.frees = ()
        self.buf = -1
        self.into = None

    def __repr__(self):
        return "Step(%s %s -> %s)" % (self.name, self.ins, self.out)


# A replay allocates from fasteager's array cache (see _alloc.pyx), as large eager
# kernels do; the caller's allocator is back when it returns.
from . import _alloc
cdef object _array_cache = _alloc.handler


def _set_array_cache(handler):
    """Use ``handler`` (None: NumPy's default allocator) during replays."""
    global _array_cache
    _array_cache = handler


# fe.profiler: while a profiler runs, each replayed step is an event reported to
# ``_profile_hook(name, start_ns, end_ns)`` (one C test per replay otherwise)
cdef object _profile_hook = None
cdef object _perf_ns = None


def set_profile_hook(hook):
    global _profile_hook, _perf_ns
    import time
    _perf_ns = time.perf_counter_ns
    _profile_hook = hook


cdef _run_profiled(list steps, list regs, list bufs):
    cdef Step s
    for s in steps:
        start = _perf_ns()
        try:
            _run([s], regs, bufs)
        finally:
            hook = _profile_hook
            if hook is not None:
                hook(s.name or "step", start, _perf_ns())


def run(list steps, list regs, list bufs=None):
    """Replay ``steps`` over ``regs`` (filled with inputs and constants) in place.

    ``bufs``: the reused output buffers (None: every step allocates its result)."""
    prev_alloc = cnp.PyDataMem_SetHandler(_array_cache) if _array_cache is not None else None
    try:
        if _profile_hook is None:
            _run(steps, regs, bufs)
        else:
            _run_profiled(steps, regs, bufs)
    finally:
        if prev_alloc is not None:
            cnp.PyDataMem_SetHandler(prev_alloc)


cdef _run(list steps, list regs, list bufs):
    cdef Step s
    cdef Py_ssize_t i, n
    cdef object r, fn
    cdef tuple ins
    for s in steps:
        ins = s.ins
        n = len(ins)
        fn = s.fn
        try:
            if s.buf >= 0 and bufs is not None:
                if s.kind == KIND_FUSED:
                    r = fn.run([regs[<Py_ssize_t>j] for j in ins], bufs[s.buf])
                elif s.attrs is None:
                    if n == 1:
                        r = s.into(regs[<Py_ssize_t>ins[0]], bufs[s.buf])
                    elif n == 2:
                        r = s.into(regs[<Py_ssize_t>ins[0]], regs[<Py_ssize_t>ins[1]],
                                   bufs[s.buf])
                    else:
                        r = s.into(*[regs[<Py_ssize_t>j] for j in ins], bufs[s.buf])
                else:
                    r = s.into(*[regs[<Py_ssize_t>j] for j in ins], bufs[s.buf],
                               **s.attrs)
            elif s.kind == KIND_OP:
                if s.attrs is None:
                    if n == 1:
                        r = fn(regs[<Py_ssize_t>ins[0]])
                    elif n == 2:
                        r = fn(regs[<Py_ssize_t>ins[0]], regs[<Py_ssize_t>ins[1]])
                    else:
                        r = fn(*[regs[<Py_ssize_t>j] for j in ins])
                else:
                    r = fn(*[regs[<Py_ssize_t>j] for j in ins], **s.attrs)
            elif s.kind == KIND_READ:
                r = fn._tensor._value
            elif s.kind == KIND_FUSED:
                if type(fn) is Fused:
                    r = (<Fused>fn).run([regs[<Py_ssize_t>j] for j in ins])
                else:           # a GPU kernel (cuda.fusion.FusedGPU)
                    r = fn.run([regs[<Py_ssize_t>j] for j in ins])
            else:
                r = fn(*[regs[<Py_ssize_t>j] for j in ins])
        except Exception as e:
            if hasattr(e, "add_note"):
                e.add_note("(while replaying op %s of an fe.function graph)" % s.name)
            raise
        if s.multi:
            for i in range(len(<tuple>s.out)):
                regs[<Py_ssize_t>(<tuple>s.out)[i]] = r[i]
        elif s.kind != KIND_EFFECT:
            regs[<Py_ssize_t>s.out] = r
        for j in s.frees:
            regs[<Py_ssize_t>j] = None


# ----------------------------------------------------------------------------------------
# Fused elementwise chains
# ----------------------------------------------------------------------------------------
# A program is rows (opcode, a, b, dst) over a register file of blocks of BLOCK elements:
# registers 0..n_in-1 are the inputs (full arrays are read in place; 0-d inputs are
# broadcast into their register once per thread), then the constants (broadcast once),
# then temporaries (``_fusion`` allocates them, reusing dead ones). The last instruction
# writes straight into the output. Unary ops read a (b == a).
DEF OP_ADD = 0
DEF OP_SUB = 1
DEF OP_MUL = 2
DEF OP_DIV = 3
DEF OP_MAX = 4
DEF OP_MIN = 5
DEF OP_SQDIFF = 6
DEF OP_NEG = 10
DEF OP_EXP = 11
DEF OP_LOG = 12
DEF OP_TANH = 13
DEF OP_SQRT = 14
DEF OP_SIN = 15
DEF OP_COS = 16
DEF OP_ABS = 17
DEF OP_SQUARE = 18
DEF OP_SIGMOID = 19
DEF OP_RELU = 20
DEF OP_RECIP = 21
DEF OP_LOG1P = 22
DEF OP_EXPM1 = 23
DEF OP_RSQRT = 24

# op name -> opcode; each is computed as fasteager's NumPy kernel computes it, in the
# array's precision (float32 results are rounded to float32 after every step, as the
# unfused ufuncs do). float32 exp/log/tanh/sigmoid use the vectorised versions of
# _fastmath.h (within 2-3 ulp of NumPy's); the other transcendental ops, and all of
# float64, use libm in double precision, so they may differ from NumPy's SIMD versions in
# the last place.
OPCODES = {"add": OP_ADD, "subtract": OP_SUB, "multiply": OP_MUL, "truediv": OP_DIV,
           "maximum": OP_MAX, "minimum": OP_MIN, "squared_difference": OP_SQDIFF,
           "negative": OP_NEG, "exp": OP_EXP, "log": OP_LOG, "tanh": OP_TANH,
           "sqrt": OP_SQRT, "sin": OP_SIN, "cos": OP_COS, "abs": OP_ABS,
           "square": OP_SQUARE, "sigmoid": OP_SIGMOID, "relu": OP_RELU,
           "reciprocal": OP_RECIP, "log1p": OP_LOG1P, "expm1": OP_EXPM1, "rsqrt": OP_RSQRT}
BINARY = frozenset({OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MAX, OP_MIN, OP_SQDIFF})

DEF BLOCK = 256
DEF RED_SUM = 1
DEF RED_MEAN = 2
REDUCE_SUM = RED_SUM            # Fused(reduce=...): the chain's result summed / averaged
REDUCE_MEAN = RED_MEAN
DEF PARALLEL_MIN = 65536       # elements times instructions below which one thread runs

ctypedef fused real:
    float
    double


def broadcastable_suffix(tuple shape, tuple out):
    """Whether ``shape`` broadcasts to ``out`` by repeating along leading axes only (its
    elements then repeat every ``prod(shape)`` elements of the flat ``out``)."""
    cdef Py_ssize_t k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    core = shape[k:]
    return len(shape) <= len(out) and (not core or tuple(out[len(out) - len(core):]) == core)


@cython.final
cdef class Fused:
    """A single-output chain (a DAG) of elementwise ops on float arrays, run as one pass
    over blocks of elements (parallel over blocks when large).

    ``code``: int32 rows (opcode, a, b, dst); ``n_in`` inputs, whose shapes must be
    ``in_shapes``: the output's shape, ``()`` (a scalar, broadcast), or the output's
    trailing axes (``broadcastable_suffix``: a bias row, repeated every ``period``
    elements of the flat output); ``consts``: values of the constant
    registers n_in..n_in+len(consts)-1; ``fallback(arrays)`` computes the same result
    with the original kernels, used when an input is not a float ndarray of the traced
    dtype and shape (a variable whose shape changed, a device array).
    """
    cdef public object code
    cdef public int n_in
    cdef public object consts
    cdef public int n_regs
    cdef public object dtype
    cdef public tuple shape
    cdef public tuple in_shapes
    cdef public object fallback
    cdef public tuple names          # op names, for repr and tests
    cdef public int reduce           # 0: elementwise result; REDUCE_SUM/REDUCE_MEAN: 0-d
    cdef int typenum
    cdef Py_ssize_t size
    cdef int[:, ::1] codev
    cdef double[::1] constv
    cdef Py_ssize_t[::1] period       # per input: 0 full, 1 scalar, p > 1 repeats every p

    def __init__(self, code, int n_in, consts, int n_regs, dtype, tuple shape,
                 tuple in_shapes, fallback=None, tuple names=(), int reduce=0):
        self.code = np.ascontiguousarray(code, dtype=np.int32).reshape(-1, 4)
        self.codev = self.code
        self.n_in = n_in
        self.consts = np.ascontiguousarray(consts, dtype=np.float64).reshape(-1)
        self.constv = self.consts
        self.n_regs = n_regs
        self.dtype = np.dtype(dtype)
        if self.dtype != np.float32 and self.dtype != np.float64:
            raise TypeError("Fused: float32 or float64 only (got %s)" % self.dtype)
        self.typenum = self.dtype.num
        self.shape = tuple(shape)
        self.in_shapes = tuple(tuple(s) for s in in_shapes)
        if len(self.in_shapes) != n_in:
            raise ValueError("Fused: %d input shapes for %d inputs" % (len(in_shapes), n_in))
        periods = []
        for s in self.in_shapes:
            if s == self.shape:
                periods.append(0)
            elif broadcastable_suffix(s, self.shape):
                periods.append(max(1, int(np.prod(s, dtype=np.int64))))
            else:
                raise ValueError("Fused: input shape %s is neither %s, () nor its trailing "
                                 "axes" % (s, self.shape))
        self.period = np.array(periods + [0], dtype=np.intp)
        self.size = 1
        for d in self.shape:
            self.size *= d
        if self.code.shape[0] < 1:
            raise ValueError("Fused: empty program")
        if n_in + len(self.consts) > n_regs:
            raise ValueError("Fused: too few registers")
        for row in self.code:
            for x in row[1:]:
                if not 0 <= x < n_regs:
                    raise ValueError("Fused: register %d out of range" % x)
            if row[3] < n_in + len(self.consts):
                raise ValueError("Fused: an instruction writes an input or a constant")
        self.fallback = fallback
        self.names = names
        if reduce not in (0, REDUCE_SUM, REDUCE_MEAN):
            raise ValueError("Fused: reduce must be 0, 1 (sum) or 2 (mean) (got %d)" % reduce)
        self.reduce = reduce

    @property
    def out_shape(self):
        """The result's shape: ``shape``, or ``()`` for a reducing chain."""
        return () if self.reduce else self.shape

    def __repr__(self):
        return "Fused(%d ops %s, %s %s)" % (self.code.shape[0], "/".join(self.names),
                                             self.dtype, self.shape)

    def run(self, list arrays, out=None):
        """The chain's result; written into ``out`` (an array of the traced dtype and
        shape) when given, unless the inputs take the fallback."""
        cdef Py_ssize_t k, n = len(arrays)
        cdef object a
        if n != self.n_in:
            raise ValueError("Fused: expected %d inputs (got %d)" % (self.n_in, n))
        arrs = [None] * n
        for k in range(n):
            a = arrays[k]
            if not cnp.PyArray_CheckExact(a):
                if isinstance(a, (float, np.floating)):
                    a = np.asarray(a)
                else:
                    return self._fallback(arrays)
            if (cnp.PyArray_TYPE(<cnp.ndarray>a) != self.typenum
                    or (<object>a).shape != self.in_shapes[k]):
                return self._fallback(arrays)
            if not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>a):
                a = np.ascontiguousarray(a)
            arrs[k] = a
        if out is None:
            out = np.empty(() if self.reduce else self.shape, self.dtype)
        if self.size == 0:
            if self.reduce:            # as np.sum / np.mean of nothing
                out[()] = 0.0 if self.reduce == REDUCE_SUM else np.nan
            return out
        if self.typenum == cnp.NPY_FLOAT:
            _run_typed[float](self, arrs, out, <float>0)
        else:
            _run_typed[double](self, arrs, out, <double>0)
        return out

    def _fallback(self, arrays):
        if self.fallback is None:
            raise TypeError("Fused: inputs of another dtype or shape than traced (%s %s)"
                            % (self.dtype, self.shape))
        return self.fallback(arrays)


cdef _run_typed(Fused f, list arrs, out, real dummy):
    cdef int n_in = f.n_in, k
    cdef real** ins = <real**>malloc((n_in + 1) * sizeof(real*))
    if ins == NULL:
        raise MemoryError()
    for k in range(n_in):
        ins[k] = <real*>cnp.PyArray_DATA(<cnp.ndarray>arrs[k])
    cdef real* dst = <real*>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef bint par = f.size * f.codev.shape[0] >= PARALLEL_MIN and f.size >= 2 * BLOCK
    try:
        with nogil:
            _fused_loop(&f.codev[0, 0], <int>f.codev.shape[0], ins, &f.period[0], n_in,
                        &f.constv[0] if f.constv.shape[0] else NULL,
                        <int>f.constv.shape[0], f.n_regs, dst, f.size, par, f.reduce)
    finally:
        free(ins)


cdef int _fused_loop(const int* code, int m, real** ins, const Py_ssize_t* period, int n_in,
                     const double* consts, int n_const, int n_regs, real* out,
                     Py_ssize_t size, bint par, int reduce) except -1 nogil:
    cdef Py_ssize_t nblocks = (size + BLOCK - 1) // BLOCK, blk
    cdef int nthreads = 1, tid
    if par:
        nthreads = openmp.omp_get_max_threads()
        if nthreads > nblocks:
            nthreads = <int>nblocks
        if nthreads < 1:
            nthreads = 1
    # one register file and pointer table per thread
    cdef real* regs = <real*>malloc(nthreads * n_regs * BLOCK * sizeof(real))
    cdef real** ptr = <real**>malloc(nthreads * n_regs * sizeof(real*))
    # a reducing chain: each thread adds its blocks' results into its own partial sum
    cdef double* acc = <double*>calloc(nthreads, sizeof(double)) if reduce else NULL
    cdef double total = 0
    if regs == NULL or ptr == NULL or (reduce and acc == NULL):
        free(regs)
        free(ptr)
        free(acc)
        with gil:
            raise MemoryError()
    for tid in range(nthreads):
        _init_regs(regs + tid * n_regs * BLOCK, ptr + tid * n_regs, ins, period, n_in,
                   consts, n_const, n_regs)
    if nthreads > 1:
        for blk in prange(nblocks, schedule="static", num_threads=nthreads):
            tid = threadid()
            _fused_block(code, m, ins, period, n_in, ptr + tid * n_regs, out, size, blk,
                         acc + tid if reduce else NULL)
    else:
        for blk in range(nblocks):
            _fused_block(code, m, ins, period, n_in, ptr, out, size, blk, acc)
    if reduce:
        for tid in range(nthreads):
            total += acc[tid]
        out[0] = <real>(total if reduce == RED_SUM else total / size)
    free(regs)
    free(ptr)
    free(acc)
    return 0


cdef void _init_regs(real* regs, real** ptr, real** ins, const Py_ssize_t* period, int n_in,
                     const double* consts, int n_const, int n_regs) noexcept nogil:
    """Point every register at its block; broadcast 0-d inputs and constants into theirs."""
    cdef int k
    cdef Py_ssize_t i
    cdef real v
    for k in range(n_regs):
        ptr[k] = regs + k * BLOCK
    for k in range(n_in + n_const):
        if k < n_in:
            if period[k] != 1:
                continue
            v = ins[k][0]
        else:
            v = <real>consts[k - n_in]
        for i in range(BLOCK):
            ptr[k][i] = v


cdef void _fused_block(const int* code, int m, real** ins, const Py_ssize_t* period, int n_in,
                       real** ptr, real* out, Py_ssize_t size, Py_ssize_t blk,
                       double* acc) noexcept nogil:
    """One block of the program; the last instruction writes the output block, or (when
    reducing) its register, whose sum is added to ``acc``."""
    cdef Py_ssize_t start = blk * BLOCK, n = BLOCK, i, j, p
    cdef int k, op
    cdef real* pa
    cdef real* pb
    cdef real* pd
    cdef real t
    if start + n > size:
        n = size - start
    for k in range(n_in):
        p = period[k]
        if p == 0:                       # full inputs are read in place
            ptr[k] = ins[k] + start
        elif p > 1:                      # repeating inputs are copied into their block
            pd = ptr[k]
            j = start % p
            for i in range(n):
                pd[i] = ins[k][j]
                j += 1
                if j == p:
                    j = 0
    for k in range(m):
        op = code[4 * k]
        pa = ptr[code[4 * k + 1]]
        pb = ptr[code[4 * k + 2]]
        pd = out + start if k == m - 1 and acc == NULL else ptr[code[4 * k + 3]]
        if op == OP_ADD:
            for i in range(n):
                pd[i] = pa[i] + pb[i]
        elif op == OP_SUB:
            for i in range(n):
                pd[i] = pa[i] - pb[i]
        elif op == OP_MUL:
            for i in range(n):
                pd[i] = pa[i] * pb[i]
        elif op == OP_DIV:
            for i in range(n):
                pd[i] = pa[i] / pb[i]
        elif op == OP_MAX:               # np.maximum: NaN propagates
            for i in range(n):
                pd[i] = pa[i] if (pa[i] >= pb[i] or pa[i] != pa[i]) else pb[i]
        elif op == OP_MIN:
            for i in range(n):
                pd[i] = pa[i] if (pa[i] <= pb[i] or pa[i] != pa[i]) else pb[i]
        elif op == OP_SQDIFF:            # np.square(x - y)
            for i in range(n):
                t = pa[i] - pb[i]
                pd[i] = t * t
        elif op == OP_NEG:
            for i in range(n):
                pd[i] = -pa[i]
        elif op == OP_EXP:
            if real is float:
                fe_exp_loop(pa, pd, n)
            else:
                for i in range(n):
                    pd[i] = <real>exp(<double>pa[i])
        elif op == OP_LOG:
            if real is float:
                fe_log_loop(pa, pd, n)
            else:
                for i in range(n):
                    pd[i] = <real>log(<double>pa[i])
        elif op == OP_TANH:
            if real is float:
                fe_tanh_loop(pa, pd, n)
            else:
                for i in range(n):
                    pd[i] = <real>tanh(<double>pa[i])
        elif op == OP_SQRT:
            if real is float:
                fe_sqrt_loop(pa, pd, n)
            else:
                fe_sqrt_loop_f64(pa, pd, n)
        elif op == OP_SIN:
            for i in range(n):
                pd[i] = <real>sin(<double>pa[i])
        elif op == OP_COS:
            for i in range(n):
                pd[i] = <real>cos(<double>pa[i])
        elif op == OP_ABS:
            for i in range(n):
                pd[i] = <real>fabs(<double>pa[i])
        elif op == OP_SQUARE:
            for i in range(n):
                pd[i] = pa[i] * pa[i]
        elif op == OP_SIGMOID:           # e = exp(-|x|): 1/(1+e), or e/(1+e) for x < 0
            if real is float:
                fe_sigmoid_loop(pa, pd, n)
            else:
                for i in range(n):
                    t = <real>exp(-fabs(<double>pa[i]))
                    pd[i] = (t if pa[i] < 0 else <real>1) / (<real>1 + t)
        elif op == OP_RELU:              # np.maximum(x, 0)
            for i in range(n):
                pd[i] = pa[i] if (pa[i] >= 0 or pa[i] != pa[i]) else <real>0
        elif op == OP_RECIP:
            for i in range(n):
                pd[i] = <real>1 / pa[i]
        elif op == OP_LOG1P:
            for i in range(n):
                pd[i] = <real>log1p(<double>pa[i])
        elif op == OP_EXPM1:
            for i in range(n):
                pd[i] = <real>expm1(<double>pa[i])
        elif op == OP_RSQRT:             # 1 / np.sqrt(x)
            if real is float:
                fe_rsqrt_loop(pa, pd, n)
            else:
                fe_rsqrt_loop_f64(pa, pd, n)
        else:
            for i in range(n):
                pd[i] = pa[i]
    if acc != NULL:
        acc[0] += _block_sum(pd, n)


cdef double _block_sum(real* x, Py_ssize_t n) noexcept nogil:
    """Sum in double precision, eight partial sums (independent adds, in a fixed order)."""
    cdef double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0
    cdef Py_ssize_t i = 0
    while i + 8 <= n:
        s0 += x[i]
        s1 += x[i + 1]
        s2 += x[i + 2]
        s3 += x[i + 3]
        s4 += x[i + 4]
        s5 += x[i + 5]
        s6 += x[i + 6]
        s7 += x[i + 7]
        i += 8
    while i < n:
        s0 += x[i]
        i += 1
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
