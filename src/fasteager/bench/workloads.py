"""The workloads: each a name, a description and one factory per framework.

A factory takes ``quick`` (smaller sizes) and returns a zero-argument callable that runs
one iteration; it raises ImportError when its framework is missing.
"""
import numpy as np


class Workload:
    """``base``: the entry the others are compared with (ratio base / entry).
    ``with_fasteager``: entries other than fasteager's own that import fasteager on
    purpose (the coexistence workloads); every other peer's process must not.
    ``processes``: how many fresh processes each entry is measured in (the rounds run
    in each; the samples are pooled)."""

    def __init__(self, name, description, base="fasteager", with_fasteager=(), processes=1):
        self.name = name
        self.description = description
        self.entries = {}
        self.base = base
        self.with_fasteager = frozenset(with_fasteager)
        self.processes = int(processes)

    def entry(self, framework):
        def register(factory):
            self.entries[framework] = factory
            return factory
        return register


_ALL = []


def workload(name, description, **kwargs):
    w = Workload(name, description, **kwargs)
    _ALL.append(w)
    return w


def all_workloads():
    return list(_ALL)


def _torch():
    import torch           # at its default thread count, as its users run it
    return torch


def _fasteager():
    """The framework under test, imported when one of its entries is built. The workload
    modules are also loaded, as plain files, in the peers' worker processes (_worker.py),
    which must never hold fasteager: so no workload module imports it at load, and each
    framework is imported by its own entries only, as ``_torch`` does for PyTorch."""
    import fasteager
    return fasteager


# ---- tiny-op dispatch -----------------------------------------------------------------------
dispatch = workload("dispatch_add", "a + b on float32 tensors of shape (1,), no tape")


@dispatch.entry("fasteager")
def _(quick):
    fe = _fasteager()
    a, b = fe.constant([1.0]), fe.constant([2.0])
    return lambda: a + b


@dispatch.entry("numpy")
def _(quick):
    a, b = np.ones(1, np.float32), np.ones(1, np.float32)
    return lambda: a + b


@dispatch.entry("torch")
def _(quick):
    torch = _torch()
    a, b = torch.ones(1), torch.ones(1)
    return lambda: a + b


@dispatch.entry("autograd")
def _(quick):
    import autograd.numpy as anp
    a, b = anp.ones(1, dtype=np.float32), anp.ones(1, dtype=np.float32)
    return lambda: anp.add(a, b)


@dispatch.entry("tensorflow")
def _(quick):
    import tensorflow as tf
    a, b = tf.constant([1.0]), tf.constant([2.0])
    return lambda: a + b


@dispatch.entry("jax")
def _(quick):
    import jax.numpy as jnp
    a, b = jnp.ones(1), jnp.ones(1)
    return lambda: (a + b).block_until_ready()


taped = workload("dispatch_add_taped", "a + b, shape (1,), under a tape watching a (100 ops/tape)")


@taped.entry("fasteager")
def _(quick):
    fe = _fasteager()
    a, b = fe.constant([1.0]), fe.constant([2.0])

    def run():
        with fe.GradientTape() as tape:
            tape.watch(a)
            for _ in range(100):
                a + b
    return run


@taped.entry("numpy")
def _(quick):
    a, b = np.ones(1, np.float32), np.ones(1, np.float32)

    def run():
        for _ in range(100):
            a + b
    return run


@taped.entry("torch")
def _(quick):
    torch = _torch()
    a, b = torch.ones(1, requires_grad=True), torch.ones(1)

    def run():
        for _ in range(100):
            a + b
    return run


@taped.entry("tensorflow")
def _(quick):
    import tensorflow as tf
    a, b = tf.constant([1.0]), tf.constant([2.0])

    def run():
        with tf.GradientTape() as tape:
            tape.watch(a)
            for _ in range(100):
                a + b
    return run


# ---- a chain of 100 small ops, forward and backward -------------------------------------
chain_fwd = workload("chain100_forward", "100 small ops (tanh, *, +) on shape (16,), recorded")
chain_bwd = workload("chain100_fwd_bwd", "the same chain recorded, then its gradient")


def _fe_chain(fe, x):
    y = x
    for _ in range(34):
        y = fe.tanh(y) * 0.9 + 0.1
    return fe.reduce_sum(y)


@chain_fwd.entry("fasteager")
def _(quick):
    fe = _fasteager()
    x = fe.constant(np.linspace(-1, 1, 16, dtype=np.float32))

    def run():
        with fe.GradientTape() as tape:
            tape.watch(x)
            _fe_chain(fe, x)
    return run


@chain_bwd.entry("fasteager")
def _(quick):
    fe = _fasteager()
    x = fe.constant(np.linspace(-1, 1, 16, dtype=np.float32))

    def run():
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = _fe_chain(fe, x)
        tape.gradient(y, x)
    return run


@chain_fwd.entry("torch")
def _(quick):
    torch = _torch()
    x = torch.linspace(-1, 1, 16, requires_grad=True)
    return lambda: _fe_chain(_TorchNS(torch), x)


@chain_bwd.entry("torch")
def _(quick):
    torch = _torch()
    x = torch.linspace(-1, 1, 16, requires_grad=True)

    def run():
        y = _fe_chain(_TorchNS(torch), x)
        y.backward()
        x.grad = None
    return run


@chain_fwd.entry("autograd")
def _(quick):
    import autograd.numpy as anp
    x = np.linspace(-1, 1, 16)
    return lambda: _fe_chain(_AutogradNS(anp), x)


@chain_bwd.entry("autograd")
def _(quick):
    import autograd
    import autograd.numpy as anp
    x = np.linspace(-1, 1, 16)
    g = autograd.grad(lambda v: _fe_chain(_AutogradNS(anp), v))
    return lambda: g(x)


class _TorchNS:
    def __init__(self, torch):
        self.tanh = torch.tanh
        self.reduce_sum = torch.sum


class _AutogradNS:
    def __init__(self, anp):
        self.tanh = anp.tanh
        self.reduce_sum = anp.sum


# ---- the guide's matmul benchmark -------------------------------------------------------------
matmul = workload("matmul_1000x200", "the guide's loop: x = x @ x, 1000x1000 float32, 200 times")


def _mm_size(quick):
    return (300, 20) if quick else (1000, 200)


@matmul.entry("fasteager")
def _(quick):
    fe = _fasteager()
    n, steps = _mm_size(quick)
    x0 = fe.random.normal((n, n)) * (1.0 / np.sqrt(n))

    def run():
        x = x0
        for _ in range(steps):
            x = fe.matmul(x, x)
        x.numpy()
    return run


@matmul.entry("numpy")
def _(quick):
    n, steps = _mm_size(quick)
    x0 = (np.random.default_rng(0).standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)

    def run():
        x = x0
        for _ in range(steps):
            x = np.matmul(x, x)
    return run


@matmul.entry("torch")
def _(quick):
    torch = _torch()
    n, steps = _mm_size(quick)
    x0 = torch.randn(n, n) / np.sqrt(n)

    def run():
        x = x0
        for _ in range(steps):
            x = torch.matmul(x, x)
    return run


# ---- checkpoint save + load -------------------------------------------------------------------
ckpt_io = workload("checkpoint_save_load",
                   "save then restore 25 float32 variables of 1M elements (100 MB): "
                   "fe.train.Checkpoint vs np.save/np.load of the same arrays")


def _ckpt_arrays(quick):
    n = 100_000 if quick else 1_000_000
    rng = np.random.default_rng(0)
    return [rng.standard_normal(n).astype(np.float32) for _ in range(25)]


def _bench_dir():
    import tempfile
    return tempfile.mkdtemp(prefix="fasteager-bench-ckpt-")


@ckpt_io.entry("fasteager")
def _(quick):
    import os

    fe = _fasteager()
    variables = [fe.Variable(a) for a in _ckpt_arrays(quick)]
    ckpt = fe.train.Checkpoint(vars=variables)
    prefix = os.path.join(_bench_dir(), "ckpt")

    def run():
        path = ckpt.write(prefix)
        ckpt.restore(path)
    return run


@ckpt_io.entry("numpy")
def _(quick):
    import os
    arrays = _ckpt_arrays(quick)
    directory = _bench_dir()
    paths = [os.path.join(directory, "a%d.npy" % i) for i in range(len(arrays))]

    def run():
        for p, a in zip(paths, arrays):
            np.save(p, a)
        for i, p in enumerate(paths):
            arrays[i] = np.load(p)
    return run


# ---- CRC-32C of TensorBoard event records -----------------------------------------------------
# Moved here from tests/summary (a unit test must not assert a speed): the summary writer
# frames every event with two CRCs, and the slicing-by-8 loop is meant to reach 300 MB/s.
crc = workload("crc32c_32mb",
               "CRC-32C of 32 MiB, the checksum of every summary record (aim: >= 300 MB/s); "
               "fe.summary's slicing-by-8 loop vs the crc32c package")


def _crc_data(quick):
    return np.random.default_rng(3).bytes((4 if quick else 32) << 20)


@crc.entry("fasteager")
def _(quick):
    from fasteager._src.io import _crc32c
    data = _crc_data(quick)
    return lambda: _crc32c.crc32c(data)


@crc.entry("crc32c")
def _(quick):
    import crc32c
    data = _crc_data(quick)
    return lambda: crc32c.crc32c(data)
