"""Fused elementwise chains of ``fe.function`` graphs on the GPU: one generated kernel.

``_fusion`` groups the elementwise ops of a trace into single-output programs
(``_graph.Fused``: rows ``(opcode, a, b, dst)`` over a register file, inputs first, then
constants, then temporaries). On the CPU the program is interpreted by a Cython loop; on
the GPU, ``FusedGPU`` turns it into CUDA C, one kernel per program, compiled with
PyCUDA's ``SourceModule`` on first use and cached by source text:

* the element function ``fe_fused_elem_<hash>(i, in0, in1, ...)`` holds the program as
  straight-line code over scalar registers, each op written with the C expression of the
  GPU elementwise table (``cuda/elementwise.py``), so fused and unfused GPU results
  agree; constants are exact hexadecimal literals; scalar inputs are read at index 0 and
  inputs broadcast along leading axes (a bias row of p elements) at ``i % p``;
* the kernel ``fe_fused_<hash>(n, in0, ..., out)`` runs it in a grid-stride loop.

The element function is plain C++ apart from the CUDA qualifiers, so a test compiles it
on the host (with g++) and checks it against the CPU kernel on machines without a GPU.
"""
import hashlib

import numpy as np

from .. import _graph
from . import context, kernels
from .elementwise import BINARY, CTYPES, UNARY, entry
from .memory import DeviceArray

# fused ops with no entry of their own in the GPU elementwise table
_EXTRA = {"squared_difference": "(a - b) * (a - b)"}
_NAMES = {code: name for name, code in _graph.OPCODES.items()}


def _literal(value):
    """An exact C literal of a float64 constant."""
    v = float(value)
    if v != v:
        return "__builtin_nan(\"\")"
    if v in (float("inf"), float("-inf")):
        return "(%s__builtin_inf())" % ("-" if v < 0 else "")
    return v.hex()


def _expression(name, dtype):
    if name in _EXTRA:
        return _EXTRA[name], True
    binary = _graph.OPCODES[name] in _graph.BINARY
    e = entry(BINARY if binary else UNARY, name, dtype)
    if e is None:
        raise ValueError("cuda.fusion: op %r has no GPU expression for %s" % (name, dtype))
    return e[1], binary


def element_source(fused, tag):
    """C++ of the element function of ``fused`` (a ``_graph.Fused``)."""
    dtype = np.dtype(fused.dtype)
    ctype = CTYPES[dtype][0]
    n_in = fused.n_in
    index = []                # how each input is read at output element i
    for s in fused.in_shapes:
        p = int(np.prod(s, dtype=np.int64))
        index.append("i" if s == fused.shape else "0" if p == 1 else "i %% %dLL" % p)
    params = ", ".join("const %s* __restrict__ in%d" % (ctype, k) for k in range(n_in))
    lines = ["// fused %s (%s)" % ("+".join(fused.names), dtype),
             "__device__ __forceinline__ %s fe_fused_elem_%s(long long i%s) {"
             % (ctype, tag, ", " + params if params else ""),
             "  typedef %s T;" % ctype]
    regs = ["r%d" % k for k in range(fused.n_regs)]
    for k in range(n_in):
        lines.append("  T r%d = in%d[%s];" % (k, k, index[k]))
    for k, c in enumerate(np.asarray(fused.consts, np.float64)):
        lines.append("  const T r%d = T(%s);" % (n_in + k, _literal(c)))
    temps = regs[n_in + len(fused.consts):]
    if temps:
        lines.append("  T %s;" % ", ".join(temps))
    code = np.asarray(fused.code).reshape(-1, 4)
    for opcode, a, b, dst in code:
        expr, binary = _expression(_NAMES[int(opcode)], dtype)
        if binary:
            lines.append("  { T a = r%d; T b = r%d; r%d = (T)(%s); }" % (a, b, dst, expr))
        else:
            lines.append("  { T x = r%d; r%d = (T)(%s); }" % (a, dst, expr))
    lines.append("  return r%d;" % code[-1][3])
    lines.append("}")
    return "\n".join(lines) + "\n"


def kernel_source(fused):
    """(CUDA source, kernel symbol) of ``fused``."""
    body = element_source(fused, "TAG")
    tag = hashlib.sha1(body.encode()).hexdigest()[:16]
    body = body.replace("TAG", tag)
    ctype = CTYPES[np.dtype(fused.dtype)][0]
    ins = "".join("const %s* __restrict__ in%d, " % (ctype, k) for k in range(fused.n_in))
    args = "".join(", in%d" % k for k in range(fused.n_in))
    symbol = "fe_fused_" + tag
    src = "\n".join([
        "#define FE_GRID_LOOP(i, n) \\",
        "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \\",
        "       i += (long long)blockDim.x * gridDim.x)",
        body,
        'extern "C" __global__ void %s(long long n, %s%s* __restrict__ out) {'
        % (symbol, ins, ctype),
        "  FE_GRID_LOOP(i, n) { out[i] = fe_fused_elem_%s(i%s); }" % (tag, args),
        "}", ""])
    return src, symbol


_compiled = {}      # (source, context handle) -> prepared function


class FusedGPU:
    """A ``_graph.Fused`` program run as one generated CUDA kernel on DeviceArrays.

    ``run(arrays, out=None)``: inputs of another type, dtype or shape than traced take
    the CPU program's fallback (the original kernels, which route through the GPU ops).
    """

    def __init__(self, fused):
        if fused.reduce:
            raise ValueError("FusedGPU: reducing chains run on the CPU only (got %r)" % fused)
        self.fused = fused
        self.names = fused.names
        self.dtype = np.dtype(fused.dtype)
        self.shape = tuple(fused.shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.source, self.symbol = kernel_source(fused)

    def __repr__(self):
        return "FusedGPU(%d ops %s, %s %s)" % (len(self.names), "/".join(self.names),
                                                self.dtype, self.shape)

    def _function(self):
        key = (self.source, kernels._context_key())
        fn = _compiled.get(key)
        if fn is None:
            from pycuda.compiler import SourceModule
            mod = SourceModule(self.source, no_extern_c=True, options=["-std=c++17", "-O3"])
            fn = mod.get_function(self.symbol)
            fn.prepare("q" + "P" * (self.fused.n_in + 1))
            _compiled[key] = fn
        return fn

    def run(self, arrays, out=None):
        f = self.fused
        if len(arrays) != f.n_in:
            raise ValueError("FusedGPU: expected %d inputs (got %d)" % (f.n_in, len(arrays)))
        device = None
        for a, shape in zip(arrays, f.in_shapes):
            if type(a) is not DeviceArray or a.dtype != self.dtype or a.shape != shape \
                    or (device is not None and a.device != device):
                return f._fallback(arrays)
            device = a.device
        if device is None:
            return f._fallback(arrays)
        if out is None:
            out = DeviceArray(self.shape, self.dtype, device=device)
        if self.size:
            context.activate(device)
            kernels.launch(self._function(), self.size, self.size,
                           *[a.ptr for a in arrays], out.ptr)
        return out
