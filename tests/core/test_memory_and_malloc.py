"""The memory target (DESIGN.md): a training loop's peak RSS grows by < 5 MB after step
100; and fasteager's array cache, which reuses its own large blocks and leaves everyone
else's allocations (NumPy outside fasteager, glibc's settings) as they were."""
import os
import resource
import subprocess
import sys

import numpy as np
import pytest

import fasteager as fe
from tests.child_process import child_env


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB on Linux")
def test_training_loop_peak_memory_is_flat_after_warm_up():
    fe.random.set_seed(0)
    model = fe.keras.Sequential([fe.keras.layers.Dense(128, activation="relu"),
                                 fe.keras.layers.Dense(10)])
    opt = fe.keras.optimizers.Adam(1e-3)
    rng = np.random.default_rng(0)
    x = fe.constant(rng.random((32, 784), dtype=np.float32))
    y = fe.constant(rng.integers(0, 10, 32))
    for step in range(1, 2001):
        with fe.GradientTape() as tape:
            loss = fe.reduce_mean(fe.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=model(x)))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if step == 100:
            after_warm_up = peak_rss_mb()
    assert peak_rss_mb() - after_warm_up < 5.0


try:
    from numpy._core.multiarray import get_handler_name
except ImportError:          # NumPy 1.x
    from numpy.core.multiarray import get_handler_name


def _handler_name(arr):
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return get_handler_name(arr)


def test_large_kernels_allocate_from_the_cache_and_numpy_outside_does_not():
    x = fe.constant(np.ones((256, 256), np.float32))           # 256 KiB input
    y = fe.tanh(x * x + x)
    assert _handler_name(y._value) == "fasteager_array_cache"
    assert _handler_name(np.ones((256, 256))) == "default_allocator"
    assert get_handler_name() == "default_allocator"       # the caller's, restored
    small = fe.constant([1.0, 2.0]) + 1.0                     # small kernels: NumPy's own
    assert _handler_name(small._value) == "default_allocator"


def test_freed_blocks_are_reused_and_calloc_zeroes_reused_memory():
    fe.config.experimental.empty_array_cache()
    x = fe.constant(np.full((512, 256), 3.0, np.float32))     # 512 KiB
    for _ in range(3):
        del_me = fe.exp(x)                                     # leaves dirty blocks behind
        del del_me
    before = fe.config.experimental.get_array_cache_info()
    assert before["cached_blocks"] >= 1
    zeros = fe.zeros_like(x)                                   # np.zeros_like: calloc
    assert float(fe.reduce_max(fe.abs(zeros))) == 0.0
    for _ in range(5):
        fe.exp(x)
    after = fe.config.experimental.get_array_cache_info()
    assert after["hits"] >= before["hits"] + 5


def test_cache_limit_and_empty():
    info = fe.config.experimental.get_array_cache_info()
    try:
        fe.config.experimental.set_array_cache_limit(0)
        assert fe.config.experimental.get_array_cache_info()["cached_bytes"] == 0
        x = fe.constant(np.ones((512, 256), np.float32))
        fe.exp(x)
        assert fe.config.experimental.get_array_cache_info()["cached_blocks"] == 0
    finally:
        fe.config.experimental.set_array_cache_limit(info["limit_bytes"])
    fe.exp(fe.constant(np.ones((512, 256), np.float32)))
    assert fe.config.experimental.empty_array_cache() > 0
    assert fe.config.experimental.get_array_cache_info()["cached_bytes"] == 0
    for bad in (-1, 1.5, "1", True):
        with pytest.raises(ValueError, match="set_array_cache_limit"):
            fe.config.experimental.set_array_cache_limit(bad)


def test_cache_is_safe_across_threads():
    import threading
    x = fe.constant(np.ones((256, 256), np.float32))
    errors = []

    def work():
        try:
            for _ in range(200):
                assert float(fe.reduce_sum(fe.exp(x) - np.e)) < 1.0
        except Exception as e:   # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# A glibc probe: does a 16 MiB malloc by someone else get its own mapping (glibc's
# default, below the 32 MiB cap of its adaptive threshold) or come from the heap (what a
# process-wide mallopt(M_MMAP_THRESHOLD, 32 MiB) would do)?
GLIBC_PROBE = """
import ctypes, sys
import numpy as np
libc = ctypes.CDLL(None)
class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc.mallinfo2.restype = MallInfo2
libc.malloc.restype = ctypes.c_void_p
if sys.argv[1] == "with":
    import fasteager as fe
    x = fe.constant(np.ones((256, 1024), np.float32))
    w = fe.Variable(np.ones((1024, 1024), np.float32) * 1e-3)
    for _ in range(20):
        with fe.GradientTape() as tape:
            loss = fe.reduce_sum(fe.tanh(fe.matmul(x, w)))
        w.assign_sub(0.1 * tape.gradient(loss, w))
before = libc.mallinfo2().hblks
p = libc.malloc(16 << 20)
print(libc.mallinfo2().hblks - before)
libc.free(ctypes.c_void_p(p))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_other_code_keeps_glibc_malloc_behaviour():
    import ctypes
    try:
        ctypes.CDLL(None).mallinfo2
    except AttributeError:
        pytest.skip("not glibc >= 2.33")
    env = child_env()
    for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"):
        env.pop(name, None)

    def mapped(mode):
        out = subprocess.run([sys.executable, "-c", GLIBC_PROBE, mode], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip().splitlines()[-1]
    baseline = mapped("without")
    if baseline != "1":
        pytest.skip("this glibc does not map a 16 MiB block by default")
    assert mapped("with") == baseline
