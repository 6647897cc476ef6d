"""CPU vs GPU parity (marked ``gpu``: skipped without PyCUDA and a GPU).

NOT YET RUN: written on a machine without a GPU; a GPU run must execute these.
"""
import numpy as np
import pytest

import fasteager as fe

pytestmark = pytest.mark.gpu
rng = np.random.default_rng(0)


def _both(fn, *arrays):
    with fe.device("/cpu:0"):
        cpu = fn(*[fe.constant(a) for a in arrays])
    with fe.device("/gpu:0"):
        gpu = fn(*[fe.constant(a) for a in arrays])
    return cpu, gpu


def _close(cpu, gpu, rtol=1e-5, atol=1e-6):
    if isinstance(cpu, (tuple, list)):
        for c, g in zip(cpu, gpu):
            _close(c, g, rtol, atol)
        return
    assert "GPU" in gpu.device
    np.testing.assert_allclose(np.asarray(gpu.numpy()), np.asarray(cpu.numpy()), rtol=rtol,
                               atol=atol)


UNARY = ["negative", "abs", "sign", "square", "sqrt", "rsqrt", "reciprocal", "exp", "expm1",
         "log", "log1p", "sin", "cos", "tan", "tanh", "sigmoid", "floor", "ceil", "round"]
NN_UNARY = ["relu", "relu6", "elu", "selu", "leaky_relu", "softplus", "softsign", "silu"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", UNARY + NN_UNARY)
def test_unary_forward_and_gradient(name, dtype):
    fn = getattr(fe.math, name, None) or getattr(fe.nn, name)
    x = rng.uniform(0.1, 2.0, (3, 5)).astype(dtype)

    def f(t):
        with fe.GradientTape() as tape:
            tape.watch(t)
            y = fn(t)
        return y, tape.gradient(y, t)
    _close(*_both(f, x), rtol=1e-4 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "truediv", "maximum",
                                  "minimum", "pow"])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), ()), ((), (4,)),
                                    ((4, 1, 3), (5, 1)), ((0, 3), (3,))])
def test_binary_broadcast_forward_and_gradient(name, shapes):
    fn = getattr(fe.math, name)
    a = rng.uniform(0.5, 2.0, shapes[0]).astype(np.float32)
    b = rng.uniform(0.5, 2.0, shapes[1]).astype(np.float32)

    def f(x, y):
        with fe.GradientTape() as tape:
            tape.watch([x, y])
            z = fn(x, y)
        return (z,) + tuple(tape.gradient(z, [x, y]))
    _close(*_both(f, a, b), rtol=1e-4)


@pytest.mark.parametrize("name", ["equal", "less", "greater_equal"])
def test_comparisons(name):
    a = rng.integers(0, 3, (4, 5)).astype(np.int32)
    b = rng.integers(0, 3, (5,)).astype(np.int32)
    _close(*_both(getattr(fe.math, name), a, b))


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2], [1, 2]])
def test_reductions(name, axis):
    x = rng.normal(size=(3, 4, 5)).astype(np.float32)
    _close(*_both(lambda t: getattr(fe.math, name)(t, axis=axis), x), rtol=1e-5)
    _close(*_both(lambda t: getattr(fe.math, name)(t, axis=axis, keepdims=True), x),
           rtol=1e-5)


@pytest.mark.parametrize("shapes", [((5, 7), (7, 3)), ((130, 257), (257, 129)),
                                    ((2, 33, 17), (2, 17, 9)), ((3, 4, 6), (6, 2))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_forward_and_gradient(shapes, dtype):
    a = rng.normal(size=shapes[0]).astype(dtype)
    b = rng.normal(size=shapes[1]).astype(dtype)

    def f(x, y):
        with fe.GradientTape() as tape:
            tape.watch([x, y])
            z = fe.matmul(x, y)
        return (z,) + tuple(tape.gradient(z, [x, y]))
    _close(*_both(f, a, b), rtol=1e-4, atol=1e-4)


def test_matmul_own_kernel_without_cublas(monkeypatch):
    from fasteager.cuda import cublas
    monkeypatch.setattr(cublas, "_lib", None)
    monkeypatch.setattr(cublas, "_tried", True)
    a = rng.normal(size=(300, 200)).astype(np.float32)
    b = rng.normal(size=(200, 100)).astype(np.float32)
    _close(*_both(lambda x, y: fe.matmul(x, y, transpose_b=False), a, b), rtol=1e-4, atol=1e-4)


def test_transpose_concat_reshape():
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    _close(*_both(lambda t: fe.transpose(t, [2, 0, 1]), x))
    _close(*_both(lambda t: fe.concat([t, t * 2], axis=1), x))
    _close(*_both(lambda t: fe.reshape(t, [4, -1]), x))


def test_softmax_cross_entropy():
    logits = rng.normal(size=(8, 10)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8)]
    sparse = rng.integers(0, 10, 8).astype(np.int64)
    _close(*_both(lambda y, x: fe.nn.softmax_cross_entropy_with_logits(labels=y, logits=x),
                  labels, logits), rtol=1e-5)
    _close(*_both(lambda y, x: fe.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=x), sparse, logits), rtol=1e-5)


def test_fallback_op_warns_once_and_matches():
    x = rng.normal(size=(1, 8, 8, 2)).astype(np.float32)
    k = rng.normal(size=(3, 3, 2, 4)).astype(np.float32)
    with pytest.warns(RuntimeWarning, match="conv2d"):
        _close(*_both(lambda a, b: fe.nn.conv2d(a, b, 1, "SAME"), x, k), rtol=1e-4, atol=1e-5)


def test_gpu_cpu_copies_and_device_names():
    x = fe.constant([1.0, 2.0])
    g = x.gpu()
    assert g.device.endswith("GPU:0") and x.device.endswith("CPU:0")
    y = g * 3                           # a GPU input keeps the op on the GPU
    assert "GPU" in y.device
    np.testing.assert_allclose(y.cpu().numpy(), [3.0, 6.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        z = fe.reduce_sum(x.gpu() * x.gpu())
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), [2.0, 4.0])


def test_out_of_memory_is_resource_exhausted():
    with fe.device("/gpu:0"):
        with pytest.raises(fe.errors.ResourceExhaustedError, match="asked for"):
            fe.zeros([1 << 40], dtype=fe.float32) + 1.0


def _training_data():
    """Inputs, labels and initial weights of the small softmax-regression runs."""
    return (rng.normal(size=(64, 20)).astype(np.float32),
            rng.integers(0, 3, 64).astype(np.int64),
            rng.normal(size=(20, 3)).astype(np.float32) * 0.1)


def test_small_model_trains_the_same_on_gpu():
    x, y, w0 = _training_data()

    def train(dev):
        w = fe.Variable(w0)
        with fe.device(dev):
            for _ in range(20):
                with fe.GradientTape() as tape:
                    loss = fe.reduce_mean(fe.nn.sparse_softmax_cross_entropy_with_logits(
                        labels=fe.constant(y), logits=fe.matmul(fe.constant(x), w)))
                g = tape.gradient(loss, w)
                w.assign_sub(0.5 * np.asarray(g.numpy()))
        return w.numpy(), float(loss.numpy())
    (wc, lc), (wg, lg) = train("/cpu:0"), train("/gpu:0")
    np.testing.assert_allclose(wg, wc, rtol=1e-4, atol=1e-5)
    assert abs(lg - lc) < 1e-4


# -- fe.function on the GPU: replays run the GPU kernels; elementwise chains fuse into one
#    generated CUDA kernel (cuda/fusion.py) --------------------------------------------------
def _fused_chain(x, s):
    h = x
    for _ in range(4):
        h = fe.tanh(h * 0.5 + s) - h * 0.125
    return fe.maximum(h, 0.05) * fe.sigmoid(h) + fe.math.squared_difference(h, s)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_function_fuses_a_gpu_chain_into_one_kernel(dtype):
    from fasteager.cuda.fusion import FusedGPU
    f = fe.function(_fused_chain)
    for seed in range(3):                      # the trace, then replays
        x = np.random.default_rng(seed).normal(size=(64, 33)).astype(dtype)
        s = np.asarray(0.25, dtype)
        with fe.device("/gpu:0"):
            got = f(fe.constant(x), fe.constant(s))
        want = _fused_chain(fe.constant(x), fe.constant(s))
        _close(want, got, rtol=1e-5 if dtype == np.float32 else 1e-12)
    with fe.device("/gpu:0"):
        cf = f.get_concrete_function(fe.constant(x), fe.constant(s))
    assert [type(k) for k in cf.fused_steps] == [FusedGPU]


def test_function_training_step_on_gpu_matches_cpu():
    x, y, w0 = _training_data()

    def train(dev):
        w = fe.Variable(w0)

        @fe.function
        def step(x, y):
            with fe.GradientTape() as tape:
                loss = fe.reduce_mean(fe.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=y, logits=fe.matmul(x, w)))
            w.assign_sub(0.5 * fe.identity(tape.gradient(loss, w)).cpu())
            return loss
        with fe.device(dev):
            xs, ys = fe.constant(x), fe.constant(y)
            losses = [float(np.asarray(step(xs, ys).numpy())) for _ in range(20)]
        return w.numpy(), losses
    (wc, lc), (wg, lg) = train("/cpu:0"), train("/gpu:0")
    np.testing.assert_allclose(wg, wc, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(lg, lc, rtol=1e-4)
