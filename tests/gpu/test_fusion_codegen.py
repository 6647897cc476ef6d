"""The generated CUDA kernels of fused fe.function chains (``cuda.fusion``), checked
without a GPU:

* the element function (the program as C++) is compiled on the host with g++ and run
  on the same inputs as the CPU ``_graph.Fused`` kernel: results must agree;
* the whole kernel compiles with ``nvcc --ptx`` where nvcc exists;
* ``_fusion.fuse`` groups GPU-traced steps (values are device arrays, steps run the GPU
  array forwards) into ``FusedGPU`` steps, and never mixes them with host steps.
"""
import ctypes
import shutil
import subprocess

import numpy as np
import pytest

import fasteager as fe
from fasteager import _graph
from fasteager._src.tracing import fusion as _fusion
from fasteager.cuda import fusion as gpu_fusion
from fasteager.ops.registry import OPS

GXX = shutil.which("g++")
NVCC = shutil.which("nvcc")
CTYPE = {np.float32: ctypes.c_float, np.float64: ctypes.c_double}

HOST_PRELUDE = """
#include <cmath>
using namespace std;            // float overloads of exp, tanh, ... as in CUDA C++
#define __device__
#define __forceinline__ inline
static inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }
static inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
"""


def every_opcode(x, y, s):
    a = x + y - x * y / (y + 1.0)
    a = fe.maximum(a, y) + fe.minimum(a, x) + fe.math.squared_difference(a, y)
    a = -a + fe.exp(x) + fe.math.log(y) + fe.tanh(a) + fe.sqrt(y) * s
    a = a + fe.sin(x) + fe.cos(y) + fe.abs(a) + fe.square(x) + fe.sigmoid(a)
    a = a + fe.nn.relu(a - 3.0) + fe.math.reciprocal(y) + fe.math.log1p(x)
    return a + fe.math.expm1(y) + fe.math.rsqrt(x) - s / 7.0


def chain(x, y, s):
    h = x
    for _ in range(4):
        h = fe.tanh(h * 0.5 + s) - h * 0.125 + y
    return fe.maximum(h, 0.05) * fe.sigmoid(h) - fe.minimum(h, -0.5) / 3.0


def biased(x, b, s):
    return fe.tanh(x + b * 0.5) * s + fe.square(b - s)


def programs(dtype):
    """The Fused kernels of the functions above, traced on the CPU, with their inputs."""
    rng = np.random.default_rng(0)
    x = fe.constant(rng.uniform(0.1, 2.0, (200,)).astype(dtype))
    y = fe.constant(rng.uniform(0.1, 2.0, (200,)).astype(dtype))
    s = fe.constant(np.asarray(0.75, dtype))
    m = fe.constant(rng.standard_normal((50, 4)).astype(dtype))
    b = fe.constant(rng.standard_normal(4).astype(dtype))      # a row: repeats every 4
    out = []
    for fn, args in ((every_opcode, (x, y, s)), (chain, (x, y, s)), (biased, (m, b, s))):
        cf = fe.function(fn).get_concrete_function(*args)
        (step,) = [st for st in cf._steps if type(st.fn) is _graph.Fused]
        regs = {r: t.numpy() for r, t in zip(cf._inputs, args)}
        regs.update({r: a for r, a in enumerate(cf._template) if a is not None})
        out.append((fn.__name__, step.fn, [regs[r] for r in step.ins]))
    return out


@pytest.mark.skipif(GXX is None, reason="g++ is not on PATH")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_element_function_matches_the_cpu_kernel(dtype, tmp_path):
    for name, fused, arrays in programs(dtype):
        ctype = gpu_fusion.CTYPES[np.dtype(dtype)][0]
        params = ", ".join("const %s* in%d" % (ctype, k) for k in range(fused.n_in))
        args = "".join(", in%d" % k for k in range(fused.n_in))
        src = HOST_PRELUDE + gpu_fusion.element_source(fused, "t") + (
            'extern "C" void run(long long n, %s, %s* out) {\n'
            "  for (long long i = 0; i < n; ++i) out[i] = fe_fused_elem_t(i%s);\n}\n"
            % (params, ctype, args))
        path = tmp_path / ("%s.cpp" % name)
        path.write_text(src)
        lib = tmp_path / ("%s.so" % name)
        res = subprocess.run([GXX, "-std=c++17", "-O1", "-shared", "-fPIC", str(path), "-o",
                              str(lib)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr + src
        run = ctypes.CDLL(str(lib)).run
        n = int(np.prod(fused.shape))
        out = np.empty(fused.shape, dtype)
        ptr = ctypes.POINTER(CTYPE[dtype])
        run(ctypes.c_longlong(n), *[np.ascontiguousarray(a).ctypes.data_as(ptr)
                                    for a in arrays], out.ctypes.data_as(ptr))
        want = fused.run(list(arrays))
        # libm's float32 tanh/exp (host) vs the kernel's: within an ulp or two, so an
        # absolute tolerance where results cancel to near 0
        np.testing.assert_allclose(out, want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                                   atol=1e-6 if dtype == np.float32 else 1e-14, err_msg=name)


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_generated_kernel_compiles_with_nvcc(dtype, tmp_path):
    for name, fused, _ in programs(dtype):
        src, symbol = gpu_fusion.kernel_source(fused)
        path = tmp_path / ("%s.cu" % name)
        path.write_text(src)
        ptx = tmp_path / ("%s.ptx" % name)
        res = subprocess.run([NVCC, "--ptx", "-arch=sm_90", "-std=c++17", str(path), "-o",
                              str(ptx)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr + src
        assert ".entry " + symbol in ptx.read_text()


def test_constants_are_exact_literals():
    for v in (0.1, -3.5, 1e-300, np.float32(0.1), 2.0 ** -140):
        lit = gpu_fusion._literal(v)
        assert float.fromhex(lit) == float(v)
    assert gpu_fusion._literal(np.inf) == "(__builtin_inf())"
    assert gpu_fusion._literal(-np.inf) == "(-__builtin_inf())"
    assert "nan" in gpu_fusion._literal(np.nan)


class DeviceArray:
    """Stands in for cuda.memory.DeviceArray in trace-time values (dtype and shape)."""

    def __init__(self, dtype, shape, host=None):
        self.dtype, self.shape, self.host = np.dtype(dtype), shape, host

    def get(self):
        return self.host


def _gpu_steps(names, on_gpu):
    """A replay list x -> op1 -> op2 ... with the given placement of each value."""
    from fasteager.cuda.ops import array_forward
    half = np.asarray(0.5, np.float32)
    values = [DeviceArray(np.float32, (8,)) if on_gpu[0] else np.zeros(8, np.float32),
              DeviceArray(np.float32, (), half) if on_gpu[0] else half]
    consts = {1: values[1]}
    steps, prev = [], 0
    for k, name in enumerate(names):
        op = OPS[name]
        gpu = on_gpu[k + 1]
        ins = (prev, 1) if name in ("add", "multiply") else (prev,)
        if len(ins) == 2 and gpu != on_gpu[0]:     # the constant, on the step's side
            values.append(DeviceArray(np.float32, (), half) if gpu else half)
            consts[len(values) - 1] = values[-1]
            ins = (prev, len(values) - 1)
        values.append(DeviceArray(np.float32, (8,)) if gpu else np.zeros(8, np.float32))
        fn = array_forward(op) if gpu else op.forward
        steps.append(_graph.Step(_fusion.KIND_OP, fn, ins, None, len(values) - 1, False,
                                 name, op))
        prev = len(values) - 1
    return steps, values, consts, prev


def test_gpu_steps_fuse_into_one_generated_kernel():
    steps, values, consts, out = _gpu_steps(["multiply", "tanh", "add", "relu"],
                                            [True] * 5)
    fused = _fusion.fuse(steps, {out}, values, consts)
    assert len(fused) == 1
    kernel = fused[0].fn
    assert isinstance(kernel, gpu_fusion.FusedGPU)
    assert kernel.names == ("multiply", "tanh", "add", "relu")
    assert "tanh(x)" in kernel.source and "0x1.0000000000000p-1" in kernel.source
    # the 0.5 constant (uploaded while tracing) is an immediate, not a kernel input
    assert fused[0].ins == (0,)


def test_gpu_and_host_steps_do_not_fuse_together():
    # x (GPU) -> multiply (GPU) -> tanh (GPU) -> add (host) -> relu (host)
    steps, values, consts, out = _gpu_steps(["multiply", "tanh", "add", "relu"],
                                            [True, True, True, False, False])
    fused = _fusion.fuse(steps, {out}, values, consts)
    assert isinstance(fused[0].fn, gpu_fusion.FusedGPU)
    assert fused[0].fn.names == ("multiply", "tanh")
    # the host add reads a device value: it stays a step of its own, as does relu
    assert [s.name for s in fused[1:]] == ["add", "relu"]
    # host steps on a host trace still use the Cython kernel
    steps, values, consts, out = _gpu_steps(["multiply", "tanh"], [False] * 3)
    assert type(_fusion.fuse(steps, {out}, values, consts)[0].fn) is _graph.Fused
