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
from cython.parallel cimport prange
from libc.math cimport exp, log, tanh, sqrt, sin, cos, fabs, log1p, expm1

import numpy as np

DEF KIND_OP = 0
DEF KIND_READ = 1
DEF KIND_EFFECT = 2
DEF KIND_FUSED = 3


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

    def __repr__(self):
        return "Step(%s %s -> %s)" % (self.name, self.ins, self.out)


def run(list steps, list regs):
    """Replay ``steps`` over ``regs`` (filled with inputs and constants) in place."""
    cdef Step s
    cdef Py_ssize_t i, n
    cdef object r, fn
    cdef tuple ins
    for s in steps:
        ins = s.ins
        n = len(ins)
        fn = s.fn
        try:
            if s.kind == KIND_OP:
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
                r = (<Fused>fn).run([regs[<Py_ssize_t>j] for j in ins])
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
# opcodes: unary ops read a, binary read a and b; every instruction writes register dst
DEF OP_ADD = 0
DEF OP_SUB = 1
DEF OP_MUL = 2
DEF OP_DIV = 3
DEF OP_MAX = 4
DEF OP_MIN = 5
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
DEF OP_SQDIFF = 25

OPCODES = {"add": OP_ADD, "subtract": OP_SUB, "multiply": OP_MUL, "truediv": OP_DIV,
           "maximum": OP_MAX, "minimum": OP_MIN, "negative": OP_NEG, "exp": OP_EXP,
           "log": OP_LOG, "tanh": OP_TANH, "sqrt": OP_SQRT, "sin": OP_SIN, "cos": OP_COS,
           "abs": OP_ABS, "square": OP_SQUARE, "sigmoid": OP_SIGMOID, "relu": OP_RELU,
           "reciprocal": OP_RECIP, "log1p": OP_LOG1P, "expm1": OP_EXPM1, "rsqrt": OP_RSQRT,
           "squared_difference": OP_SQDIFF}
BINARY = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MAX, OP_MIN, OP_SQDIFF}

DEF BLOCK = 128
DEF MAXREG = 48


cdef inline double _apply(int code, double a, double b) noexcept nogil:
    if code == OP_ADD:
        return a + b
    if code == OP_SUB:
        return a - b
    if code == OP_MUL:
        return a * b
    if code == OP_DIV:
        return a / b
    if code == OP_MAX:
        return a if a >= b or b != b else b
    if code == OP_MIN:
        return a if a <= b or b != b else b
    if code == OP_NEG:
        return -a
    if code == OP_EXP:
        return exp(a)
    if code == OP_LOG:
        return log(a)
    if code == OP_TANH:
        return tanh(a)
    if code == OP_SQRT:
        return sqrt(a)
    if code == OP_SIN:
        return sin(a)
    if code == OP_COS:
        return cos(a)
    if code == OP_ABS:
        return fabs(a)
    if code == OP_SQUARE:
        return a * a
    if code == OP_SIGMOID:
        return 1.0 / (1.0 + exp(-a))
    if code == OP_RELU:
        return a if a > 0 else (0.0 if a == a else a)
    if code == OP_RECIP:
        return 1.0 / a
    if code == OP_LOG1P:
        return log1p(a)
    if code == OP_EXPM1:
        return expm1(a)
    if code == OP_RSQRT:
        return 1.0 / sqrt(a)
    if code == OP_SQDIFF:
        return (a - b) * (a - b)
    return a


@cython.final
cdef class Fused:
    """A chain of elementwise ops on same-shape float arrays, run as one pass.

    Registers 0..n_in-1 hold the inputs, then one register per instruction; the program
    ``code`` is rows (opcode, a, b, dst); ``outs`` are the registers returned.
    Arithmetic is in double precision, rounded to the dtype at the outputs only when the
    dtype is float64; for float32, each instruction's result is rounded to float32 as
    the unfused ops would do.
    """
    cdef public object code        # int32 (m, 4)
    cdef public tuple outs
    cdef public int n_in
    cdef public int n_regs
    cdef public object dtype
    cdef public tuple shape

    def __init__(self, code, tuple outs, int n_in, int n_regs, dtype, tuple shape):
        self.code = np.ascontiguousarray(code, dtype=np.int32)
        self.outs = outs
        self.n_in = n_in
        self.n_regs = n_regs
        self.dtype = np.dtype(dtype)
        self.shape = shape

    def run(self, list arrays):
        cdef Py_ssize_t size = 1
        cdef int k
        for d in self.shape:
            size *= d
        results = [np.empty(self.shape, self.dtype) for _ in self.outs]
        ins = [np.ascontiguousarray(a, self.dtype).reshape(-1) for a in arrays]
        flat_out = [r.reshape(-1) for r in results]
        if self.dtype == np.float32:
            _run_f32(self, ins, flat_out, size)
        else:
            _run_f64(self, ins, flat_out, size)
        return results if len(results) > 1 else results[0]


ctypedef fused real:
    float
    double


cdef void _fused_loop(const int[:, ::1] code, real** ins, int n_in, real** outs,
                      const int* out_regs, int n_out, Py_ssize_t size, bint parallel) noexcept nogil:
    cdef Py_ssize_t nblocks = (size + BLOCK - 1) // BLOCK, blk
    if parallel:
        for blk in prange(nblocks, schedule="static"):
            _fused_block(code, ins, n_in, outs, out_regs, n_out, size, blk)
    else:
        for blk in range(nblocks):
            _fused_block(code, ins, n_in, outs, out_regs, n_out, size, blk)


cdef void _fused_block(const int[:, ::1] code, real** ins, int n_in, real** outs,
                       const int* out_regs, int n_out, Py_ssize_t size,
                       Py_ssize_t blk) noexcept nogil:
    cdef real regs[MAXREG][BLOCK]
    cdef Py_ssize_t start = blk * BLOCK, stop = start + BLOCK, i, n
    cdef int k, m = code.shape[0], op, a, b, dst
    if stop > size:
        stop = size
    n = stop - start
    for k in range(n_in):
        for i in range(n):
            regs[k][i] = ins[k][start + i]
    for k in range(m):
        op = code[k, 0]
        a = code[k, 1]
        b = code[k, 2]
        dst = code[k, 3]
        for i in range(n):
            regs[dst][i] = <real>_apply(op, regs[a][i], regs[b][i])
    for k in range(n_out):
        for i in range(n):
            outs[k][start + i] = regs[out_regs[k]][i]


cdef _run_f32(Fused f, list ins, list outs, Py_ssize_t size):
    _run_typed[float](f, ins, outs, size, 0.0)


cdef _run_f64(Fused f, list ins, list outs, Py_ssize_t size):
    _run_typed[double](f, ins, outs, size, 0.0)


cdef _run_typed(Fused f, list ins, list outs, Py_ssize_t size, real dummy):
    cdef const int[:, ::1] code = f.code
    cdef real* in_ptrs[MAXREG]
    cdef real* out_ptrs[MAXREG]
    cdef int out_regs[MAXREG]
    cdef const real[::1] cview
    cdef real[::1] view
    cdef int k
    for k in range(len(ins)):
        cview = ins[k]
        in_ptrs[k] = <real*>&cview[0] if cview.shape[0] else NULL
    for k in range(len(outs)):
        view = outs[k]
        out_ptrs[k] = &view[0] if view.shape[0] else NULL
        out_regs[k] = f.outs[k]
    cdef int n_in = len(ins), n_out = len(outs)
    if size == 0:
        return
    with nogil:
        _fused_loop(code, in_ptrs, n_in, out_ptrs, out_regs, n_out, size, size >= 65536)
