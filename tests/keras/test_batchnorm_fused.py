"""BatchNormalization on the fused ops (``ops/norm_ops.py``) against NumPy's formula.

Covers the fused path (one axis, any position), the composed path (several axes, a
mask), training and inference, gradients against finite differences, second
derivatives, ``fe.function`` replays, ``fit`` and the moving-statistics update."""
import numpy as np
import pytest

import fasteager as fe
from fasteager import _norm
from fasteager.ops import norm_ops
from tests.gradcheck import _numeric_grad

L = fe.keras.layers
EPS = 1e-3


def _ref_train(x, axes, gamma, beta, eps=EPS):
    """Keras 3's training output and batch statistics, in float64."""
    red = tuple(a for a in range(x.ndim) if a not in axes)
    x = x.astype(np.float64)
    mean = x.mean(axis=red, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=red, keepdims=True)
    shape = [x.shape[a] if a in axes else 1 for a in range(x.ndim)]
    y = (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)
    return y, mean.reshape(gamma.shape), var.reshape(gamma.shape)


def _random_params(bn, rng):
    bn.gamma.assign(rng.uniform(0.5, 1.5, bn.gamma.shape.as_list()).astype(bn.gamma.dtype.name))
    bn.beta.assign(rng.standard_normal(bn.beta.shape.as_list()).astype(bn.beta.dtype.name))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", [((64, 5), -1), ((4, 6, 6, 3), -1), ((4, 3, 6, 6), 1),
                                        ((5, 4, 3), 1), ((4, 6, 5, 3), [1, 3])])
def test_training_forward_and_moving_statistics(dtype, shape, axis):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 2 + 3).astype(dtype)
    bn = L.BatchNormalization(axis=axis, momentum=0.9, dtype=np.dtype(dtype).name)
    bn.build(x.shape)
    _random_params(bn, rng)
    y = bn(fe.constant(x), training=True)
    assert y.dtype == fe.as_dtype(dtype) and y.shape == x.shape
    axes = bn._axes
    want, mean, var = _ref_train(x, axes, bn.gamma.numpy().astype(np.float64),
                                 bn.beta.numpy().astype(np.float64))
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y.numpy(), want, rtol=tol, atol=tol)
    # Keras 3: moving = moving * momentum + batch * (1 - momentum), biased variance
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [-1, 1])
def test_inference_uses_the_moving_statistics(dtype, axis):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4, 5, 6)).astype(dtype)
    bn = L.BatchNormalization(axis=axis, dtype=np.dtype(dtype).name)
    bn.build(x.shape)
    _random_params(bn, rng)
    C = x.shape[axis]
    bn.moving_mean.assign(rng.standard_normal(C).astype(dtype))
    bn.moving_variance.assign(rng.uniform(0.5, 2.0, C).astype(dtype))
    shape = [C if a == axis % 4 else 1 for a in range(4)]
    want = ((x - bn.moving_mean.numpy().reshape(shape))
            / np.sqrt(bn.moving_variance.numpy().reshape(shape) + EPS)
            * bn.gamma.numpy().reshape(shape) + bn.beta.numpy().reshape(shape))
    before = bn.moving_mean.numpy().copy()
    for training in (False, None):
        y = bn(fe.constant(x), training=training)
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(y.numpy(), want, rtol=tol, atol=tol)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)
    # a frozen layer normalises with the moving statistics even in training
    bn.trainable = False
    np.testing.assert_allclose(bn(fe.constant(x), training=True).numpy(), want, rtol=tol,
                               atol=tol)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)


def _layer_grads(bn, x, v, training):
    xt = fe.constant(x)
    with fe.GradientTape() as tape:
        tape.watch(xt)
        loss = fe.reduce_sum(bn(xt, training=training) * v)
    return tape.gradient(loss, [xt, bn.gamma, bn.beta])


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape,axis", [((6, 3, 2, 4), -1), ((5, 3, 4), 1), ((4, 3, 2, 5),
                                                                            [1, 3])])
def test_gradients_match_finite_differences(training, shape, axis):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    v = rng.standard_normal(shape)
    bn = L.BatchNormalization(axis=axis, dtype="float64")
    bn.build(x.shape)
    _random_params(bn, rng)
    bn.moving_variance.assign(rng.uniform(0.5, 2.0, bn.moving_variance.shape.as_list()))
    gamma, beta = bn.gamma.numpy(), bn.beta.numpy()
    got = _layer_grads(bn, x, v, training)
    frozen_stats = [bn.moving_mean.numpy().copy(), bn.moving_variance.numpy().copy()]

    def loss(xt, g, b):
        bn.gamma.assign(g)
        bn.beta.assign(b)
        bn.moving_mean.assign(frozen_stats[0])
        bn.moving_variance.assign(frozen_stats[1])
        return fe.reduce_sum(bn(xt, training=training) * v)

    want = _numeric_grad(loss, [x.copy(), gamma.copy(), beta.copy()])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-6, atol=1e-7)


def test_second_derivatives_match_the_composed_formula():
    # a gradient penalty through the fused layer vs the same layer on two axes' formula
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 2, 2, 3))
    v = rng.standard_normal(x.shape)

    def penalty_grad(bn, xv):
        xt = fe.constant(xv)
        vt = fe.constant(v.reshape(xv.shape))
        with fe.GradientTape() as outer:
            outer.watch(xt)
            with fe.GradientTape() as inner:
                inner.watch(xt)
                loss = fe.reduce_sum(fe.square(bn(xt, training=True)) * vt)
            gx = inner.gradient(loss, xt)
            pen = fe.reduce_sum(gx * gx)
        return outer.gradient(pen, [xt, bn.gamma])

    fused = L.BatchNormalization(dtype="float64")
    fused.build(x.shape)
    got = penalty_grad(fused, x)
    # the same statistics through the composed path: a size-1 extra axis in the
    # normalised set leaves the per-channel groups unchanged
    composed = L.BatchNormalization(axis=[3, 4], dtype="float64")
    composed.build(x.shape + (1,))
    want = penalty_grad(composed, x[..., None])
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy()[..., 0], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy()[:, 0], rtol=1e-9, atol=1e-10)

    def pen_of(xt):
        with fe.GradientTape() as inner:
            inner.watch(xt)
            loss = fe.reduce_sum(fe.square(fused(xt, training=True)) * v)
        gx = inner.gradient(loss, xt)
        return fe.reduce_sum(gx * gx)

    np.testing.assert_allclose(got[0].numpy(), _numeric_grad(pen_of, [x.copy()])[0],
                               rtol=1e-5, atol=1e-6)


def test_mask_uses_keras3_masked_statistics():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 7, 3)) * 2 + 1
    mask = rng.random((4, 7)) > 0.3
    bn = L.BatchNormalization(momentum=0.5, dtype="float64")
    y = bn(fe.constant(x), training=True, mask=fe.constant(mask)).numpy()
    keep = np.broadcast_to(mask[..., None], x.shape)
    count = keep.sum(axis=(0, 1)) + 1e-7
    mean = np.where(keep, x, 0).sum(axis=(0, 1)) / count
    var = np.where(keep, x - mean, 0) ** 2
    var = var.sum(axis=(0, 1)) / count
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + EPS), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * mean, rtol=1e-12)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.5 + 0.5 * var, rtol=1e-12)
    with pytest.raises(ValueError, match="one dimension less"):
        bn(fe.constant(x), training=True, mask=fe.constant(np.ones((4, 7, 3), bool)))


def test_float16_inputs_normalise_in_float32():
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((16, 4)) * 3 + 100).astype(np.float16)
    bn = L.BatchNormalization(dtype="float16")
    y = bn(fe.constant(x), training=True)
    assert y.dtype == fe.float16 and bn.moving_mean.dtype == fe.float16
    want, _, _ = _ref_train(x, [1], np.ones(4), np.zeros(4))
    np.testing.assert_allclose(y.numpy().astype(np.float64), want, atol=5e-3)


def test_traced_training_step_replays_the_update():
    rng = np.random.default_rng(6)
    xs = [rng.standard_normal((8, 4, 4, 3)).astype(np.float32) for _ in range(3)]
    eager = L.BatchNormalization()
    traced = L.BatchNormalization()
    for bn in (eager, traced):
        bn.build(xs[0].shape)

    def step(bn, x):
        with fe.GradientTape() as tape:
            loss = fe.reduce_sum(fe.square(bn(x, training=True)) * x)
        return [loss] + tape.gradient(loss, [bn.gamma, bn.beta])

    traced_step = fe.function(lambda x: step(traced, x))
    for x in xs:
        want = step(eager, fe.constant(x))
        got = traced_step(fe.constant(x))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(traced.moving_mean.numpy(), eager.moving_mean.numpy(),
                                   rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(traced.moving_variance.numpy(),
                                   eager.moving_variance.numpy(), rtol=1e-6)


def test_fit_trains_and_predict_uses_moving_statistics():
    fe.random.set_seed(0)
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((64, 6, 6, 2)) * 3 + 2).astype(np.float32)
    y = (x.mean(axis=(1, 2, 3)) > 2).astype(np.int64)
    model = fe.keras.Sequential([fe.keras.Input((6, 6, 2)),
                                 L.Conv2D(4, 3, use_bias=False), L.BatchNormalization(),
                                 L.ReLU(), L.GlobalAveragePooling2D(), L.Dense(2)])
    model.compile(optimizer=fe.keras.optimizers.SGD(0.1, momentum=0.9),
                  loss=fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    hist = model.fit(x, y, batch_size=16, epochs=4, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    bn = model.layers[1]
    assert np.all(bn.moving_mean.numpy() != 0)
    # inference: the moving statistics, not the batch's
    conv_out = model.layers[0](fe.constant(x[:5])).numpy()
    want = ((conv_out - bn.moving_mean.numpy()) / np.sqrt(bn.moving_variance.numpy() + EPS)
            * bn.gamma.numpy() + bn.beta.numpy())
    got = model.layers[1](fe.constant(conv_out), training=False).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# ---- the kernels and the compat.v1 function ----------------------------------------------

def test_kernel_statistics_are_accurate_for_float32_with_a_large_mean():
    # per-channel sums in double, two-pass variance: no cancellation at mean/std = 1e4
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((100_003, 4)) + 1e4).astype(np.float32)
    _, mean, var = _norm.batch_norm_train(x, np.ones(4, np.float32), np.zeros(4, np.float32),
                                          EPS)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mean, x64.mean(0), rtol=1e-7)
    np.testing.assert_allclose(var, x64.var(0), rtol=1e-5)
    # float32 sums about the first row: an outlier there (1000 standard deviations) costs
    # about eps_double * 1e6 relative, still far below float32's resolution
    x[0] += 1000
    _, mean, var = _norm.batch_norm_train(x, np.ones(4, np.float32), np.zeros(4, np.float32),
                                          EPS)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mean, x64.mean(0), rtol=1e-7)
    np.testing.assert_allclose(var, x64.var(0), rtol=1e-6)


def test_kernel_statistics_across_chunk_boundaries():
    # row counts below, at and past the chunk size (a partial last chunk included) give
    # NumPy's float64 statistics
    rng = np.random.default_rng(9)
    for rows in (1, _norm.CHUNK_ROWS - 1, _norm.CHUNK_ROWS, 3 * _norm.CHUNK_ROWS + 5):
        x = rng.standard_normal((rows, 3))
        _, mean, var = _norm.batch_norm_train(x, np.ones(3), np.zeros(3), EPS)
        np.testing.assert_allclose(mean, x.mean(0), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(var, x.var(0), rtol=1e-12, atol=1e-15)


def test_bad_arguments_raise_typed_errors():
    x = fe.zeros([4, 3])
    with pytest.raises(fe.errors.InvalidArgumentError, match="fused_batch_norm: scale"):
        norm_ops.fused_batch_norm_train(x, fe.ones([2]), fe.zeros([3]))
    with pytest.raises(fe.errors.InvalidArgumentError, match="rank >= 2"):
        norm_ops.fused_batch_norm_train(fe.zeros([3]), fe.ones([3]), fe.zeros([3]))
    with pytest.raises(fe.errors.InvalidArgumentError, match="epsilon must be positive"):
        norm_ops.fused_batch_norm_train(x, fe.ones([3]), fe.zeros([3]), epsilon=0.0)
    with pytest.raises(fe.errors.InvalidArgumentError, match="fused_batch_norm"):
        norm_ops.fused_batch_norm_train(fe.zeros([4, 3], fe.int32), fe.ones([3], fe.int32),
                                        fe.zeros([3], fe.int32))
    with pytest.raises(fe.errors.InvalidArgumentError, match="data_format"):
        fe.compat.v1.nn.fused_batch_norm(fe.zeros([2, 3, 3, 4]), fe.ones([4]), fe.zeros([4]),
                                         data_format="HWCN")
    with pytest.raises(fe.errors.InvalidArgumentError, match="required for inference"):
        fe.compat.v1.nn.fused_batch_norm(fe.zeros([2, 3, 3, 4]), fe.ones([4]), fe.zeros([4]),
                                         is_training=False)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_compat_v1_fused_batch_norm(data_format):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((3, 4, 5, 2)).astype(np.float32)
    axis = 3 if data_format == "NHWC" else 1
    C = x.shape[axis]
    scale = rng.uniform(0.5, 1.5, C).astype(np.float32)
    offset = rng.standard_normal(C).astype(np.float32)
    y, mean, var = fe.compat.v1.nn.fused_batch_norm(x, scale, offset, data_format=data_format)
    want, m, v = _ref_train(x, [axis], scale.astype(np.float64), offset.astype(np.float64))
    n = x.size / C
    np.testing.assert_allclose(y.numpy(), want, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(mean.numpy(), m, rtol=1e-5, atol=1e-6)
    # TensorFlow returns the batch variance with Bessel's correction
    np.testing.assert_allclose(var.numpy(), v * n / (n - 1), rtol=1e-5)
    old_m, old_v = np.zeros(C, np.float32), np.ones(C, np.float32)
    _, mean2, var2 = fe.compat.v1.nn.fused_batch_norm(
        x, scale, offset, mean=old_m, variance=old_v, data_format=data_format,
        exponential_avg_factor=0.25)
    np.testing.assert_allclose(mean2.numpy(), 0.25 * m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var2.numpy(), 0.75 + 0.25 * v * n / (n - 1), rtol=1e-5)
    y_inf, m_inf, _ = fe.compat.v1.nn.fused_batch_norm(
        x, scale, offset, mean=m.astype(np.float32), variance=v.astype(np.float32),
        is_training=False, data_format=data_format)
    np.testing.assert_allclose(y_inf.numpy(), want, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(m_inf.numpy(), m, rtol=1e-6)


def test_forward_mode_through_the_fused_op():
    # fe.forward derives the JVP from the VJP with a helper tape (the composed gradient)
    rng = np.random.default_rng(11)
    x, t = rng.standard_normal((6, 3)), rng.standard_normal((6, 3))
    scale, offset = fe.constant(rng.standard_normal(3)), fe.constant(rng.standard_normal(3))
    xt = fe.constant(x)
    with fe.autodiff.ForwardAccumulator(xt, fe.constant(t)) as acc:
        y, _, _ = norm_ops.fused_batch_norm_train(xt, scale, offset)
    h = 1e-6

    def f(v):
        return norm_ops.fused_batch_norm_train(fe.constant(v), scale, offset)[0].numpy()

    np.testing.assert_allclose(acc.jvp(y).numpy(), (f(x + h * t) - f(x - h * t)) / (2 * h),
                               rtol=1e-6, atol=1e-8)


def test_empty_inputs():
    # no channels: empty outputs; no rows: empty y and NaN statistics (NumPy's mean of none)
    for shape in [(4, 0), (2, 0, 3), (0, 3)]:
        C = shape[-1]
        y, mean, _ = norm_ops.fused_batch_norm_train(fe.zeros(shape), fe.ones([C]),
                                                     fe.zeros([C]))
        assert y.shape == shape and mean.shape == [C]
        assert np.isnan(mean.numpy()).all()
        y = norm_ops.batch_norm_inference(fe.zeros(shape), fe.zeros([C]), fe.ones([C]),
                                          fe.ones([C]), fe.zeros([C]))
        assert y.shape == shape


def test_compat_v1_float16_keeps_statistics_in_float32():
    x = np.random.default_rng(12).random((2, 3, 4, 5)).astype(np.float16)
    y, mean, var = fe.compat.v1.nn.fused_batch_norm(x, np.ones(5, np.float32),
                                                    np.zeros(5, np.float32))
    assert (y.dtype, mean.dtype, var.dtype) == (fe.float16, fe.float32, fe.float32)
