"""Fusion of elementwise chains in ``fe.function`` replay lists (see ``_graph.Fused``).

``fuse`` groups the elementwise float ops of a replay list into single-output DAGs and
replaces each group of two or more ops by one ``KIND_FUSED`` step that runs the whole
group in one Cython pass. A group:

* holds ops of ``_graph.OPCODES`` (the library's own kernels: ``step.fn`` is the
  registered op's forward), without attributes, whose inputs and output all have one
  float dtype (float32 or float64) and whose shapes are the group's output shape, or
  broadcast to it along leading axes only (a scalar, a bias row: ``x @ w + b``); other
  broadcasting (a column ``(m, 1)`` against ``(m, n)``) stays unfused. A member whose
  result is smaller than the group's is computed once per output element;
* has one output (the group's last op, its "sink"): every other member's result is read
  only by members of the group -- not by another step (an op outside, a gradient step a
  tape recorded inside the function that reads a saved intermediate, an effect such as
  ``fe.print``), and not a graph output;
* lies between two effect steps (variable writes, prints), so moving the group's work to
  the sink's position cannot see a variable written in between.

A full ``reduce_sum``/``reduce_mean`` (no axis) that is the only reader of a group's result
is folded into the group on the CPU: the kernel sums each block as it goes (in double
precision) and the full-size result is never written.

Constants captured as 0-d arrays become immediates of the program (equal values shared);
other inputs are passed to the kernel. Temporaries are allocated registers, reused once
dead. Each fused step keeps a fallback that replays the original kernels, used when an
input does not have the traced dtype and shape.

Groups traced on the GPU (values are ``cuda.memory.DeviceArray``, steps run the GPU
forwards) are fused the same way, never with host groups, and run as one generated
CUDA kernel (``cuda.fusion.FusedGPU``) instead of the Cython loop.
"""
import numpy as np

from ... import _graph
from ..._graph import KIND_EFFECT, KIND_FUSED, KIND_OP
from ...ops.registry import OPS
from . import tracer as _tracer

MIN_OPS = 2
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# The kernel evaluates these with scalar libm calls in double precision; NumPy's float32
# versions are SIMD and several times faster per element, so on float32 arrays larger
# than SLOW_F32_MAX elements they are left to NumPy (the ops around them still fuse).
# (float32 exp, log, tanh and sigmoid have vectorised versions in _fastmath.h.)
SLOW_F32 = frozenset({"sin", "cos", "log1p", "expm1"})
SLOW_F32_MAX = 256


def _library_ops():
    return OPS


def _meta(v):
    """(dtype, shape, on the GPU) of a trace-time value, or None when it is neither a
    NumPy value nor a device array."""
    if isinstance(v, (np.ndarray, np.generic)):
        return v.dtype, v.shape, False
    if type(v).__name__ == "DeviceArray":
        return v.dtype, v.shape, True
    return None


def _eligible(s, values, ops):
    """The (dtype, shape, on the GPU) key of an op step a fused kernel can run, else None."""
    if s.kind != KIND_OP or s.multi or s.attrs is not None:
        return None
    code = _graph.OPCODES.get(s.name)
    if code is None:
        return None
    op = ops.get(s.name)
    if op is None or s.op is not op:
        return None
    if len(s.ins) != (2 if code in _graph.BINARY else 1):
        return None
    m = _meta(values[s.out])
    if m is None or m[0] not in _FLOATS:
        return None
    dtype, shape, gpu = m
    if gpu:
        if s.fn is not _tracer.gpu_kernels[0](op):
            return None
    elif s.fn is not op.forward:
        return None
    if not gpu and dtype == np.float32 and s.name in SLOW_F32 \
            and int(np.prod(shape)) > SLOW_F32_MAX:
        return None
    for r in s.ins:
        mi = _meta(values[r])
        if mi is None or mi[0] != dtype or mi[2] != gpu \
                or (mi[1] != shape and not _graph.broadcastable_suffix(mi[1], shape)):
            return None
    return dtype, shape, gpu


def fuse(steps, outputs, values=None, consts=None):
    """Replace maximal single-output groups of elementwise ops by fused steps.

    ``outputs``: the graph's output registers; ``values``: the trace-time value of every
    register (dtypes and shapes); ``consts``: register -> captured constant array.
    Returns a new list (the same steps when nothing fuses).
    """
    if values is None or len(steps) < MIN_OPS:
        return steps
    consts = consts or {}
    outputs = set(outputs)
    ops = _library_ops()
    n = len(steps)
    keys = [_eligible(s, values, ops) for s in steps]
    if not any(keys):
        return steps
    segment = []
    seg = 0
    for s in steps:
        if s.kind == KIND_EFFECT:
            seg += 1
            segment.append(-1)
        else:
            segment.append(seg)
    readers = {}
    for i, s in enumerate(steps):
        for r in s.ins:
            readers.setdefault(r, []).append(i)
    # consumers are seen before producers: a producer joins its consumers' group when
    # all of its readers are in that one group
    group = [None] * n
    for i in range(n - 1, -1, -1):
        key = keys[i]
        if key is None:
            continue
        s = steps[i]
        g = i
        rs = readers.get(s.out)
        if s.out not in outputs and rs:
            gs = {group[j] for j in rs}
            if len(gs) == 1:
                g0 = gs.pop()
                if g0 is not None and segment[g0] == segment[i]:
                    dtype, shape, gpu = keys[g0]
                    if key[0] == dtype and key[2] == gpu and (
                            key[1] == shape or _graph.broadcastable_suffix(key[1], shape)):
                        g = g0
        group[i] = g
    members = {}
    for i, g in enumerate(group):
        if g is not None:
            members.setdefault(g, []).append(i)
    fused_at = {}
    dropped = set()
    for sink, idx in members.items():
        reduce_at = _folded_reduction(steps, sink, keys[sink], readers, outputs, segment, ops)
        if len(idx) + (reduce_at is not None) < MIN_OPS:
            continue
        reducer = steps[reduce_at] if reduce_at is not None else None
        step = _build([steps[i] for i in idx], keys[sink], values, consts, reducer)
        if step is None:
            continue
        fused_at[sink] = step
        dropped.update(idx)
        if reduce_at is not None:
            dropped.add(reduce_at)
    if not fused_at:
        return steps
    out = []
    for i, s in enumerate(steps):
        if i in fused_at:
            out.append(fused_at[i])
        elif i not in dropped:
            out.append(s)
    return out


_REDUCTIONS = {"reduce_sum": _graph.REDUCE_SUM, "reduce_mean": _graph.REDUCE_MEAN}


def _folded_reduction(steps, sink, key, readers, outputs, segment, ops):
    """Index of a full reduce_sum/reduce_mean that is the only reader of the group's
    result, which the fused kernel then computes instead of the result (CPU only)."""
    out = steps[sink].out
    rs = readers.get(out)
    if key[2] or out in outputs or not rs or len(rs) != 1:
        return None
    j = rs[0]
    r = steps[j]
    op = ops.get(r.name)
    if r.name not in _REDUCTIONS or r.kind != KIND_OP or r.attrs is not None or r.multi \
            or op is None or r.op is not op or r.fn is not op.forward \
            or segment[j] != segment[sink]:
        return None
    return j


def _build(members, key, values, consts, reducer=None):
    """The fused step of one group (members in step order, the sink last), computing
    ``reducer``'s (a full reduce_sum/reduce_mean of the sink) result when given."""
    dtype, shape, gpu = key
    produced = {s.out for s in members}
    in_regs = []          # graph registers passed to the kernel
    const_vals = []       # immediates
    const_key = {}        # value bytes -> index in const_vals
    where = {}            # graph register -> program register (inputs and constants)
    for s in members:
        for r in s.ins:
            if r in produced or r in where:
                continue
            c = consts.get(r)
            if gpu and type(c).__name__ == "DeviceArray" and c.shape == ():
                c = c.get()           # a constant uploaded while tracing: read it once
            if c is not None and isinstance(c, np.ndarray) and c.shape == () \
                    and c.dtype == dtype:
                kb = c.tobytes()
                if kb not in const_key:
                    const_key[kb] = len(const_vals)
                    const_vals.append(float(c))
                where[r] = ("c", const_key[kb])
            else:
                where[r] = ("i", len(in_regs))
                in_regs.append(r)
    n_in = len(in_regs)
    base = n_in + len(const_vals)
    prog_reg = {}
    for r, (kind, k) in where.items():
        prog_reg[r] = k if kind == "i" else n_in + k
    # last use of each produced register within the group
    last = {}
    for j, s in enumerate(members):
        for r in s.ins:
            if r in produced:
                last[r] = j
    free = []
    n_regs = base
    code = []
    names = []
    for j, s in enumerate(members):
        opcode = _graph.OPCODES[s.name]
        a = prog_reg[s.ins[0]]
        b = prog_reg[s.ins[1]] if len(s.ins) == 2 else a
        for r in set(s.ins):
            if r in produced and last.get(r) == j:
                free.append(prog_reg[r])      # dead after this op: dst may reuse it
        if free:
            dst = free.pop()
        else:
            dst = n_regs
            n_regs += 1
        prog_reg[s.out] = dst
        code.append((opcode, a, b, dst))
        names.append(s.name)
    in_shapes = tuple(_meta(values[r])[1] for r in in_regs)
    last = members + ([reducer] if reducer is not None else [])
    fallback = _make_fallback(last, in_regs, consts)
    if reducer is not None:
        names.append(reducer.name)
    kernel = _graph.Fused(np.array(code, np.int32).reshape(-1, 4), n_in, const_vals, n_regs,
                          dtype, tuple(shape), in_shapes, fallback, tuple(names),
                          _REDUCTIONS[reducer.name] if reducer is not None else 0)
    if gpu:
        kernel = _tracer.gpu_kernels[1](kernel)
    return _graph.Step(KIND_FUSED, kernel, tuple(in_regs), None, last[-1].out, False,
                       "fused(%s)" % "+".join(names))


def _make_fallback(members, in_regs, consts):
    """Replay of the original kernels (inputs of an unexpected dtype or shape)."""
    steps = [(s.fn, s.ins, s.out) for s in members]
    fixed = {r: consts[r] for s in members for r in s.ins if r in consts}

    def fallback(arrays):
        regs = dict(fixed)
        regs.update(zip(in_regs, arrays))
        r = None
        for fn, ins, out in steps:
            r = regs[out] = fn(*[regs[x] for x in ins])
        return r
    return fallback
