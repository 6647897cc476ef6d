"""CPU-side checks of the CUDA backend: they run everywhere (no GPU needed).

Every .cu file (and every generated elementwise source) compiles with ``nvcc --ptx``
where nvcc exists; the elementwise table covers the intended ops; the caching
allocator's bookkeeping and out-of-memory message (with fake driver calls); placement
and soft placement without a GPU.
"""
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import fasteager as fe
from fasteager import _core
from fasteager._src.state import placement
from fasteager.cuda import elementwise, kernels, memory

NVCC = shutil.which("nvcc")
CU_FILES = [m + ".cu" for m in kernels.MODULES]


def _nvcc(src, tmp_path, name):
    path = tmp_path / name
    path.write_text(src)
    res = subprocess.run([NVCC, "--ptx", "-arch=sm_90", "-std=c++17", str(path), "-o",
                          str(tmp_path / (name + ".ptx"))], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("filename", CU_FILES)
def test_cu_file_compiles(filename, tmp_path):
    _nvcc(kernels.read_source(filename), tmp_path, filename)


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("dtype", sorted(str(d) for d in elementwise.CTYPES))
def test_generated_elementwise_compiles(dtype, tmp_path):
    src = elementwise.generate(dtype)
    _nvcc(src, tmp_path, "elementwise_%s.cu" % dtype)
    ptx = (tmp_path / ("elementwise_%s.cu.ptx" % dtype)).read_text()
    # every table op for this dtype is an extern "C" entry point with the fe_<op>_<sfx> name
    for table in (elementwise.UNARY, elementwise.BINARY):
        for key, (_, kinds, _) in table.items():
            if np.dtype(dtype).kind in kinds:
                assert ".entry " + elementwise.symbol(elementwise.op_name(key), dtype) in ptx


def test_every_module_listed_has_a_file():
    import importlib.resources
    files = {p.name for p in importlib.resources.files("fasteager.cuda").joinpath(
        "kernels").iterdir() if p.name.endswith(".cu")}
    assert files == set(CU_FILES)


INTENDED_UNARY = {"negative", "abs", "sign", "square", "sqrt", "rsqrt", "reciprocal", "exp",
                  "expm1", "log", "log1p", "sin", "cos", "tan", "tanh", "erf", "sigmoid",
                  "floor", "ceil", "round", "relu", "relu6", "elu", "selu", "leaky_relu",
                  "softplus", "softsign", "silu", "logical_not", "invert", "is_nan", "is_inf",
                  "is_finite"}
INTENDED_BINARY = {"add", "subtract", "multiply", "truediv", "floordiv", "floormod", "pow",
                   "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
                   "greater_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and",
                   "bitwise_or", "bitwise_xor"}


def test_elementwise_table_covers_intended_ops():
    names = lambda t: {elementwise.op_name(k) for k in t}  # noqa: E731
    assert names(elementwise.UNARY) == INTENDED_UNARY
    assert names(elementwise.BINARY) == INTENDED_BINARY
    from fasteager.ops.registry import OPS
    missing = (INTENDED_UNARY | INTENDED_BINARY) - set(OPS)
    assert not missing, "table entries that are not fasteager ops: %s" % missing


def test_float_ops_have_float_kernels():
    for table in (elementwise.UNARY, elementwise.BINARY):
        for key in table:
            name = elementwise.op_name(key)
            from fasteager.ops.registry import OPS
            if "f" in OPS[name].kinds and name not in ("invert",):
                assert elementwise.entry(table, name, np.float32) is not None, name


def test_coverage_partitions_the_op_table():
    from fasteager.cuda import ops
    from fasteager.ops.registry import OPS
    on_gpu, fallback = ops.coverage()
    assert set(on_gpu) | set(fallback) == set(OPS)
    assert not set(on_gpu) & set(fallback)
    for name in ("add", "matmul", "reduce_sum", "softmax_cross_entropy_with_logits",
                 "transpose", "concat"):
        assert name in on_gpu


def test_coverage_is_documented():
    """docs/gpu.md lists every fallback op (so the list cannot go stale)."""
    import pathlib
    from fasteager.cuda import ops
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "gpu.md").read_text()
    on_gpu, fallback = ops.coverage()
    for name in on_gpu + fallback:
        assert "`%s`" % name in doc, name


# -- the caching allocator, with fake driver calls --------------------------------------------
class FakeDriver:
    def __init__(self, capacity):
        self.capacity, self.used, self.next, self.allocs, self.frees = capacity, 0, 4096, 0, 0

    def alloc(self, n):
        if self.used + n > self.capacity:
            raise MemoryError("fake OOM")
        self.used += n
        self.allocs += 1
        self.next += n
        return FakeHandle(self.next, n)

    def free(self, h):
        self.used -= h.n
        self.frees += 1

    def info(self):
        return self.capacity - self.used, self.capacity


class FakeHandle:
    def __init__(self, ptr, n):
        self.ptr, self.n = ptr, n

    def __int__(self):
        return self.ptr


def test_size_classes():
    assert memory.size_class(0) == 0
    assert memory.size_class(1) == 512
    assert memory.size_class(513) == 1024
    assert memory.size_class(1 << 20) == 1 << 20
    assert memory.size_class((1 << 20) + 1) == 2 << 20
    assert memory.size_class((5 << 20) + 1) == 6 << 20
    for n in (1, 100, 4097, 10 ** 6, 3 * 10 ** 7):
        assert memory.size_class(n) >= n


def test_allocator_reuses_blocks_of_a_size_class():
    d = FakeDriver(1 << 30)
    a = memory.CachingAllocator(d.alloc, d.free, d.info)
    b1 = a.malloc(1000)
    ptr = b1.ptr
    del b1
    assert a.cached_bytes == 1024 and a.in_use_bytes == 0
    b2 = a.malloc(900)                  # same class (1024): the cached block, no driver call
    assert b2.ptr == ptr and d.allocs == 1
    b3 = a.malloc(5000)
    assert d.allocs == 2 and a.in_use_bytes == 1024 + 8192
    del b2, b3
    a.empty_cache()
    assert d.used == 0 and d.frees == 2 and a.cached_bytes == 0


def test_allocator_empties_cache_then_reports_oom():
    d = FakeDriver(4 << 20)
    a = memory.CachingAllocator(d.alloc, d.free, d.info, device=0)
    blk = a.malloc(3 << 20)
    del blk                              # cached: 4 MiB class held by the pool
    big = a.malloc(3 << 20)              # reuses it
    del big
    other = a.malloc(1 << 20)            # a different class: the pool is emptied first
    assert d.frees == 1 and other.size == 1 << 20
    with pytest.raises(fe.errors.ResourceExhaustedError) as e:
        a.malloc(10 << 20)
    msg = str(e.value)
    assert "asked for %d bytes" % (10 << 20) in msg
    assert "free %d of %d bytes" % (3 << 20, 4 << 20) in msg
    assert isinstance(e.value, MemoryError)


# -- without PyCUDA or a GPU ------------------------------------------------------------------
def _no_gpu():
    return not fe.config.list_physical_devices("GPU")


@pytest.mark.skipif(not _no_gpu(), reason="a GPU is present")
def test_no_gpu_listing_and_backend_state():
    assert fe.config.list_physical_devices("GPU") == []
    assert fe.config.experimental.list_physical_devices("GPU") == []
    assert [d.device_type for d in fe.config.list_logical_devices()] == ["CPU"]
    assert placement.num_gpus() == 0
    fe.constant(1.0) + fe.constant(2.0)       # the first op probes the backend
    assert _core.gpu_backend_state() == 0


@pytest.mark.skipif(not _no_gpu(), reason="a GPU is present")
def test_import_does_not_touch_cuda():
    code = ("import sys, fasteager; "
            "assert 'pycuda.driver' not in sys.modules; "
            "assert fasteager._core.gpu_backend_state() == -1; print('ok')")
    import sys

    from tests.child_process import child_env
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=child_env())
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr


@pytest.mark.skipif(not _no_gpu(), reason="a GPU is present")
def test_soft_placement_runs_on_cpu_and_warns_once(monkeypatch):
    monkeypatch.setattr(placement, "_warned", False)
    x = fe.constant([1.0, 2.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with fe.device("/gpu:0"):
            y = fe.exp(x)
        with fe.device("GPU:0"):
            z = x.gpu()
    assert y.device.endswith("CPU:0") and z is x
    assert sum("soft device placement" in str(m.message) for m in w) == 1
    np.testing.assert_allclose(y.numpy(), np.exp([1.0, 2.0]), rtol=1e-6)


@pytest.mark.skipif(not _no_gpu(), reason="a GPU is present")
def test_hard_placement_raises_without_gpu():
    fe.config.set_soft_device_placement(False)
    try:
        with pytest.raises(fe.errors.InvalidArgumentError, match="no GPU is available"):
            with fe.device("/device:GPU:0"):
                pass
        with pytest.raises(fe.errors.InvalidArgumentError, match="no GPU"):
            fe.constant(1.0).gpu()
    finally:
        fe.config.set_soft_device_placement(True)


def test_cpu_scope_and_cpu_copy_are_identity_on_host():
    x = fe.constant([1.0])
    with fe.device("/cpu:0"):
        y = x * 2
    assert y.device.endswith("CPU:0") and x.cpu() is x


@pytest.mark.parametrize("name", ["/gpu:0", "/device:GPU:0", "GPU:0", "/cpu:0",
                                  "/job:localhost/replica:0/task:0/device:GPU:1"])
def test_parse_device_names(name):
    kind, index = placement.parse_device(name)
    assert kind in ("CPU", "GPU") and index in (0, 1)
