"""GPU forwards of the ops, the placement rule, and the CPU fallback.

``execute(op, args, attrs)`` is the core's GPU hook (installed only when a GPU exists). It
decides where the op runs (API.md section 5): the innermost ``fe.device`` scope, else a
GPU input, else the default device, GPU 0 (``FASTEAGER_DEFAULT_DEVICE=cpu`` keeps
unscoped host-only ops on the CPU). It returns ``NotImplemented`` to let the core run
the op on the CPU. Inputs on the wrong device are copied, and the copy is recorded on
tapes so gradients flow back across devices.

On the GPU, an op runs its forward from ``GPU_FORWARDS`` when there is one for these
dtypes and attributes; otherwise it falls back: inputs copied to the host, the CPU
forward, the result copied back, and a one-time ``RuntimeWarning`` naming the op. The
list of which ops do what is docs/gpu.md ("Op coverage"); ``coverage()`` computes it.
"""
import os
import warnings

import numpy as np

from .. import _core
from .._src.state import placement
from .._src.tracing import tracer as _tracer
from ..errors import OpError
from ..ops.registry import OPS
from . import context, cublas, kernels
from .elementwise import BINARY, CTYPES, UNARY, entry, symbol
from .fusion import FusedGPU
from .memory import DeviceArray

_warned = set()
_meta_cache = {}


# -- placement and copies ------------------------------------------------------------------
def _default_gpu():
    return os.environ.get("FASTEAGER_DEFAULT_DEVICE", "gpu").lower() != "cpu"


def _target(values):
    scope = placement.current_device()
    if scope is not None:
        return scope
    for v in values:
        if type(v) is DeviceArray:
            return ("GPU", v.device)
    return ("GPU", 0) if _default_gpu() else None


def to_gpu(t, index=0):
    """A GPU copy of host tensor ``t``, recorded so its gradient comes back to the host."""
    if type(t._value) is DeviceArray and t._value.device == index:
        return t
    context.activate(index)
    out = _core.wrap(_upload(t._value, index))
    _core.record_custom((t,), (out,), lambda gs: [_to_host_tensor(gs[0])])
    _trace_copy(t, out, lambda a: _upload(a, index), lambda x: to_gpu(x, index))
    return out


def _upload(value, index):
    if type(value) is DeviceArray:
        if value.device == index:
            return value
        value = value.get()
    return DeviceArray.from_host(value, device=index)


def _trace_copy(t, out, array_fn, tensor_fn):
    """A copy inside an ``fe.function`` trace is a step of the graph (not a constant)."""
    tracer = _core.get_tracer()
    if tracer is not None:
        tracer.record_copy(t, out, array_fn, tensor_fn)


def to_cpu(t):
    """A host copy of GPU tensor ``t``, recorded so its gradient goes back to the GPU."""
    out = _core.wrap(t._value.get())
    dev = t._value.device
    _core.record_custom((t,), (out,), lambda gs: [to_gpu(gs[0], dev)])
    _trace_copy(t, out, lambda a: a.get() if type(a) is DeviceArray else a, to_cpu)
    return out


def _to_host_tensor(g):
    return g if type(g._value) is not DeviceArray else to_cpu(g)


def execute(op, args, attrs):
    tensors = []
    values = []
    for a in args:
        if isinstance(a, _core.VariableBase):
            a = a._read()
        if isinstance(a, _core.Tensor):
            tensors.append(a)
            values.append(a._value)
        else:
            tensors.append(a)
            values.append(None)
    target = _target(values)
    if target is None or target[0] == "CPU":
        if not any(type(v) is DeviceArray for v in values):
            return NotImplemented
        host = [to_cpu(t) if type(v) is DeviceArray else t for t, v in zip(tensors, values)]
        with placement.device("/cpu:0"):
            return _core.execute(op, tuple(host), attrs)
    index = target[1]
    context.activate(index)
    ref_dtype = next((v.dtype for v in values if v is not None), None)
    for i, (t, v) in enumerate(zip(tensors, values)):
        if v is None:
            if op.same_dtype and ref_dtype is not None and not isinstance(t, np.ndarray):
                t = _core.convert_to_tensor(np.asarray(t, dtype=ref_dtype))
            else:
                t = _core.convert_to_tensor(t)
        if type(t._value) is not DeviceArray:
            t = to_gpu(t, index)
        tensors[i] = t
    devs = [t._value for t in tensors]
    if not _dtypes_ok(op, devs):
        return _fallback(op, tensors, attrs, reason=None)
    fwd = GPU_FORWARDS.get(op.name)
    r = NotImplemented
    if fwd is not None:
        try:
            if op.check is not None:      # shape rules read .shape/.ndim/.dtype only
                op.check(*devs, **(attrs or {}))
        except OpError:
            raise
        except Exception:                 # a check that needs host data: the CPU decides
            fwd = None
        if fwd is not None:
            r = fwd(devs, attrs or {})
    if r is NotImplemented:
        return _fallback(op, tensors, attrs, reason="no GPU kernel for these arguments")
    return _core.gpu_finish(op, tuple(tensors), r, attrs)


def _dtypes_ok(op, devs):
    if any(d.dtype.kind not in op.kinds for d in devs):
        return False
    return not (op.same_dtype and any(d.dtype != devs[0].dtype for d in devs))


def _fallback(op, tensors, attrs, reason):
    """Run ``op`` on the CPU for GPU inputs; results come back to the GPU."""
    if reason is not None and op.name not in _warned:
        _warned.add(op.name)
        warnings.warn("fasteager: op %r has %s; it runs on the CPU (inputs and outputs are "
                      "copied; see docs/gpu.md)" % (op.name, reason), RuntimeWarning,
                      stacklevel=4)
    host = [t._value.get() for t in tensors]
    try:
        if op.check is not None:
            op.check(*host, **(attrs or {}))
        r = _host_forward(op, host, attrs or {}, tensors[0]._value.device)
    except Exception:
        # the CPU path builds the error message (and raises it)
        with placement.device("/cpu:0"):
            return _core.execute(op, tuple(_core.wrap(h) for h in host), attrs)
    return _core.gpu_finish(op, tuple(tensors), r, attrs)


def _host_forward(op, host, attrs, device):
    """``op``'s CPU forward on host arrays, its results uploaded to ``device``."""
    with np.errstate(all="ignore" if op.quiet else "warn"):
        r = op.forward(*host, **attrs)
    up = (lambda x: DeviceArray.from_host(np.asarray(x), device=device))
    return tuple(up(x) for x in r) if op.multi else up(r)


_array_forwards = {}


def array_forward(op):
    """``op`` on DeviceArrays: ``fn(*arrays, **attrs)`` runs its GPU forward, or the CPU
    fallback (host copies) when it has none for these arguments. ``fe.function`` replays
    of graphs traced on the GPU run these (one function per op, so fusion can tell which
    steps are GPU elementwise ops)."""
    fn = _array_forwards.get(op.name)
    if fn is None:
        fwd = GPU_FORWARDS.get(op.name)

        def fn(*arrays, **attrs):
            r = NotImplemented
            if fwd is not None and _dtypes_ok(op, arrays):
                r = fwd(list(arrays), attrs)
            if r is NotImplemented:
                device = next(a.device for a in arrays if type(a) is DeviceArray)
                r = _host_forward(op, [a.get() if type(a) is DeviceArray else a
                                       for a in arrays], attrs, device)
            return r
        _array_forwards[op.name] = fn
    return fn


# -- elementwise ---------------------------------------------------------------------------
def _unary(name, attr=None, default=0.0):
    def forward(v, attrs):
        (x,) = v
        e = entry(UNARY, name, x.dtype)
        if e is None or x.dtype not in CTYPES or set(attrs) - {attr}:
            return NotImplemented
        _, _, out_kind = e
        out = DeviceArray(x.shape, np.bool_ if out_kind == "bool" else x.dtype, device=x.device)
        if x.size:
            fn = kernels.function("elementwise", symbol(name, x.dtype), "qPPd", x.dtype)
            kernels.launch(fn, x.size, x.size, x.ptr, out.ptr, float(attrs.get(attr, default)))
        return out
    return forward


def _broadcast_meta(shape_a, shape_b, device):
    """(out shape, mode, meta pointer) for the binary kernels' broadcasting argument."""
    key = (shape_a, shape_b, device)
    hit = _meta_cache.get(key)
    if hit is not None:
        return hit
    out = np.broadcast_shapes(shape_a, shape_b)
    size_a, size_b = int(np.prod(shape_a)), int(np.prod(shape_b))
    meta = None
    if shape_a == shape_b:
        mode = 0
    elif size_b == 1 and shape_a == out:
        mode = -1
    elif size_a == 1 and shape_b == out:
        mode = -2
    else:
        nd = len(out)

        def strides(shape):
            shape = (1,) * (nd - len(shape)) + tuple(shape)
            st, acc = [0] * nd, 1
            for d in range(nd - 1, -1, -1):
                st[d] = 0 if shape[d] == 1 else acc
                acc *= shape[d]
            return st
        host = np.array(list(out) + strides(shape_a) + strides(shape_b), dtype=np.int64)
        meta = DeviceArray.from_host(host, device=device)
        mode = nd
    hit = (out, mode, meta)
    if len(_meta_cache) > 4096:
        _meta_cache.clear()
    _meta_cache[key] = hit
    return hit


def _binary(name):
    def forward(v, attrs):
        a, b = v
        e = entry(BINARY, name, a.dtype)
        if e is None or attrs or a.dtype not in CTYPES:
            return NotImplemented
        _, _, out_kind = e
        try:
            shape, mode, meta = _broadcast_meta(a.shape, b.shape, a.device)
        except ValueError:
            return NotImplemented      # the CPU path raises the shape error
        out = DeviceArray(shape, np.bool_ if out_kind == "bool" else a.dtype, device=a.device)
        n = out.size
        if n:
            fn = kernels.function("elementwise", symbol(name, a.dtype), "qPPPiP", a.dtype)
            kernels.launch(fn, n, n, a.ptr, b.ptr, out.ptr, mode, meta.ptr if meta else 0)
        return out
    return forward


def _select(v, attrs):
    c, a, b = v
    if not (c.shape == a.shape == b.shape) or a.dtype not in CTYPES or c.dtype != np.bool_:
        return NotImplemented
    out = DeviceArray(a.shape, a.dtype, device=a.device)
    if out.size:
        fn = kernels.function("elementwise", "fe_select_" + CTYPES[a.dtype][1], "qPPPP", a.dtype)
        kernels.launch(fn, out.size, out.size, c.ptr, a.ptr, b.ptr, out.ptr)
    return out


# -- data movement -------------------------------------------------------------------------
_MOVE = {1: "b1", 2: "b2", 4: "b4", 8: "b8"}


def _reshape(v, attrs):
    x = v[0]
    try:
        target = _infer_shape(x.size, attrs["shape"])
    except (ValueError, TypeError, KeyError):
        return NotImplemented
    return x.reshape(target)


def _infer_shape(size, shape):
    shape = [int(d) for d in np.atleast_1d(np.asarray(shape))] if np.ndim(shape) else []
    if shape.count(-1) > 1:
        raise ValueError("only one -1")
    known = int(np.prod([d for d in shape if d != -1])) if shape else 1
    shape = [size // max(known, 1) if d == -1 else d for d in shape]
    if int(np.prod(shape)) != size:
        raise ValueError("size mismatch")
    return tuple(shape)


def transpose_array(x, perm):
    perm = [int(p) % max(x.ndim, 1) for p in perm]
    out_shape = tuple(x.shape[p] for p in perm)
    out = DeviceArray(out_shape, x.dtype, device=x.device)
    if out.size == 0:
        return out
    if perm == sorted(perm):
        return x.reshape(out_shape)
    st, acc = [0] * x.ndim, 1
    for d in range(x.ndim - 1, -1, -1):
        st[d] = acc
        acc *= x.shape[d]
    key = ("T", x.shape, tuple(perm), x.device)
    meta = _meta_cache.get(key)
    if meta is None:
        meta = DeviceArray.from_host(
            np.array(list(out_shape) + [st[p] for p in perm], np.int64), device=x.device)
        _meta_cache[key] = meta
    sfx = _MOVE[x.dtype.itemsize]
    fn = kernels.function("array", "fe_transpose_" + sfx, "qiPPP")
    kernels.launch(fn, out.size, out.size, x.ndim, meta.ptr, x.ptr, out.ptr)
    return out


def _transpose(v, attrs):
    x = v[0]
    if x.dtype.itemsize not in _MOVE or x.dtype.kind == "c":
        return NotImplemented
    perm = attrs.get("perm")
    perm = list(range(x.ndim))[::-1] if perm is None else list(np.asarray(perm).ravel())
    return transpose_array(x, perm)


def _concat(v, attrs):
    axis = int(attrs["axis"])
    x0 = v[0]
    if x0.dtype.itemsize not in _MOVE or any(x.ndim != x0.ndim for x in v) or x0.ndim == 0:
        return NotImplemented
    axis %= x0.ndim
    for x in v:
        if x.shape[:axis] != x0.shape[:axis] or x.shape[axis + 1:] != x0.shape[axis + 1:]:
            return NotImplemented
    total = sum(x.shape[axis] for x in v)
    out_shape = x0.shape[:axis] + (total,) + x0.shape[axis + 1:]
    out = DeviceArray(out_shape, x0.dtype, device=x0.device)
    rows = int(np.prod(x0.shape[:axis]))
    inner = int(np.prod(x0.shape[axis + 1:]))
    fn = kernels.function("array", "fe_copy_block_" + _MOVE[x0.dtype.itemsize], "qqPqPq")
    offset = 0
    for x in v:
        cols = x.shape[axis] * inner
        if rows * cols:
            dst = out.ptr + offset * x0.dtype.itemsize
            kernels.launch(fn, rows * cols, rows, cols, x.ptr, cols, dst, total * inner)
        offset += cols
    return out


# -- reductions ----------------------------------------------------------------------------
def _reduce(kind):
    def forward(v, attrs):
        x = v[0]
        if x.dtype not in (np.dtype(np.float32), np.dtype(np.float64)) or x.size == 0:
            return NotImplemented
        axis = attrs.get("axis")
        keepdims = bool(attrs.get("keepdims", False))
        axes = tuple(range(x.ndim)) if axis is None else tuple(
            sorted(int(a) % max(x.ndim, 1) for a in np.atleast_1d(axis)))
        if x.ndim == 0:
            axes = ()
        rest = [d for d in range(x.ndim) if d not in axes]
        if axes and axes != tuple(range(axes[0], axes[-1] + 1)):
            x = transpose_array(x, rest + list(axes))     # reduced axes last, contiguous
            shape = x.shape
            first = len(rest)
            last = x.ndim - 1
        else:
            shape = x.shape
            first, last = (axes[0], axes[-1]) if axes else (0, -1)
        outer = int(np.prod(shape[:first]))
        r = int(np.prod(shape[first:last + 1])) if axes else 1
        inner = int(np.prod(shape[last + 1:])) if axes else int(np.prod(shape))
        kept = [1 if d in axes else v[0].shape[d] for d in range(v[0].ndim)] if keepdims \
            else [v[0].shape[d] for d in range(v[0].ndim) if d not in axes]
        out = DeviceArray(tuple(kept), x.dtype, device=x.device)
        name = "sum" if kind == "mean" else kind
        scale = 1.0 / r if kind == "mean" else 1.0
        sfx = CTYPES[x.dtype][1]
        f = "f" if x.dtype == np.float32 else "d"
        if inner == 1:
            fn = kernels.function("reduce", "fe_reduce_%s_rows_%s" % (name, sfx), "qqPP" + f)
            grid = (max(1, min(outer, 65535)), 1)
            fn.prepared_call(grid, (256, 1, 1), outer, r, x.ptr, out.ptr, scale)
        else:
            fn = kernels.function("reduce", "fe_reduce_%s_strided_%s" % (name, sfx), "qqqPP" + f)
            kernels.launch(fn, outer * inner, outer, r, inner, x.ptr, out.ptr, scale)
        return out
    return forward


# -- matmul --------------------------------------------------------------------------------
def matmul_arrays(a, b):
    """C = A @ B for DeviceArrays of rank >= 2 (batch dims equal, or one side rank 2)."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    ba, bb = a.shape[:-2], b.shape[:-2]
    if ba and bb and ba != bb:
        return NotImplemented
    batch = ba or bb
    nb = int(np.prod(batch)) if batch else 1
    out = DeviceArray(tuple(batch) + (m, n), a.dtype, device=a.device)
    if out.size == 0:
        return out
    if k == 0:
        return NotImplemented                     # zeros: the CPU path is simplest
    if cublas.gemm(a, b, out, m, n, k, nb, m * k if ba else 0, k * n if bb else 0):
        return out
    sfx = CTYPES[a.dtype][1]
    fn = kernels.function("matmul", "fe_matmul_" + sfx, "iiiPPPqqq")
    grid = ((n + 127) // 128, (m + 127) // 128, nb)
    fn.prepared_call(grid, (256, 1, 1), m, n, k, a.ptr, b.ptr, out.ptr,
                     m * k if ba else 0, k * n if bb else 0, m * n)
    return out


def _matmul(v, attrs):
    a, b = v
    if a.dtype not in (np.dtype(np.float32), np.dtype(np.float64)) or a.ndim < 2 or b.ndim < 2:
        return NotImplemented
    if attrs.get("transpose_a"):
        a = transpose_array(a, list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])
    if attrs.get("transpose_b"):
        b = transpose_array(b, list(range(b.ndim - 2)) + [b.ndim - 1, b.ndim - 2])
    if set(attrs) - {"transpose_a", "transpose_b"}:
        return NotImplemented
    return matmul_arrays(a, b)


# -- softmax cross-entropy -----------------------------------------------------------------
def _xent(v, attrs):
    labels, logits = v
    if logits.dtype not in (np.dtype(np.float32), np.dtype(np.float64)) or attrs \
            or labels.shape != logits.shape or logits.ndim == 0 or logits.size == 0:
        return NotImplemented
    k = logits.shape[-1]
    rows = logits.size // k
    loss = DeviceArray(logits.shape[:-1], logits.dtype, device=logits.device)
    d = DeviceArray(logits.shape, logits.dtype, device=logits.device)
    fn = kernels.function("nn", "fe_softmax_xent_" + CTYPES[logits.dtype][1], "qiPPPP")
    fn.prepared_call((max(1, min(rows, 65535)), 1), (256, 1, 1), rows, k, logits.ptr,
                     labels.ptr, loss.ptr, d.ptr)
    return loss, d


def _sparse_xent(v, attrs):
    labels, logits = v
    if logits.dtype not in (np.dtype(np.float32), np.dtype(np.float64)) or attrs \
            or logits.ndim == 0 or logits.size == 0 or labels.shape != logits.shape[:-1]:
        return NotImplemented
    k = logits.shape[-1]
    rows = logits.size // k
    if labels.dtype != np.int64:
        labels = DeviceArray.from_host(labels.get().astype(np.int64), device=logits.device)
    loss = DeviceArray(labels.shape, logits.dtype, device=logits.device)
    d = DeviceArray(logits.shape, logits.dtype, device=logits.device)
    fn = kernels.function("nn", "fe_sparse_softmax_xent_" + CTYPES[logits.dtype][1], "qiPPPP")
    fn.prepared_call((max(1, min(rows, 65535)), 1), (256, 1, 1), rows, k, logits.ptr,
                     labels.ptr, loss.ptr, d.ptr)
    return loss, d


def _bias_add(v, attrs):
    value, bias = v
    if attrs.get("nc"):
        bias = bias.reshape((bias.shape[0],) + (1,) * (value.ndim - 2))
    return _binary("add")([value, bias], {})


def _identity(v, attrs):
    return v[0]


# -- the table -----------------------------------------------------------------------------
GPU_FORWARDS = {}
for _name in {k.split("@")[0] for k in UNARY}:
    GPU_FORWARDS[_name] = _unary(_name, {"leaky_relu": "alpha", "silu": "beta"}.get(_name),
                                 {"leaky_relu": 0.2, "silu": 1.0}.get(_name, 0.0))
for _name in {k.split("@")[0] for k in BINARY}:
    GPU_FORWARDS[_name] = _binary(_name)
GPU_FORWARDS.update({
    "select": _select,
    "reshape": _reshape,
    "identity": _identity,
    "stop_gradient": _identity,
    "transpose": _transpose,
    "concat": _concat,
    "reduce_sum": _reduce("sum"),
    "reduce_mean": _reduce("mean"),
    "reduce_max": _reduce("max"),
    "reduce_min": _reduce("min"),
    "matmul": _matmul,
    "softmax_cross_entropy_with_logits": _xent,
    "sparse_softmax_cross_entropy_with_logits": _sparse_xent,
    "bias_add": _bias_add,
})


def coverage():
    """(ops with a GPU forward, ops that fall back to the CPU), from the op table."""
    on_gpu = sorted(n for n in OPS if n in GPU_FORWARDS)
    fallback = sorted(n for n in OPS if n not in GPU_FORWARDS)
    return on_gpu, fallback


# traces replay (and fuse) the steps that ran on the GPU with these; tracing never
# imports this package
_tracer.set_gpu_kernels(array_forward, FusedGPU)
