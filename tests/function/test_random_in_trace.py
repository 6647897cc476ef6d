"""Dropout inside fe.function is part of the graph: every call draws a new mask (a step
of the graph draws its seed), gradients use the mask of the call they differentiate, and
a training step with Dropout stays a replayed graph (no eager fallback)."""
import warnings

import numpy as np
import pytest

import fasteager as fe


@pytest.fixture(autouse=True)
def _no_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # "runs eagerly on every call" would fail
        yield


def _dropped(rate=0.5):
    return fe.function(lambda x: fe.nn.dropout(x, rate=rate))


def test_every_call_draws_a_new_mask_with_the_rate_and_scale():
    f = _dropped(0.25)
    x = fe.ones([200, 50])
    masks = [f(x).numpy() for _ in range(3)]
    for m in masks:
        assert set(np.unique(m).tolist()) <= {0.0, np.float32(1 / 0.75)}
        assert abs((m == 0).mean() - 0.25) < 0.02
    assert not np.array_equal(masks[0], masks[1])
    assert not np.array_equal(masks[1], masks[2])
    assert f.experimental_get_tracing_count() == 1


def test_set_seed_makes_the_calls_repeat():
    f = _dropped()
    x = fe.ones([6, 7])
    fe.random.set_seed(5)
    first = [f(x).numpy() for _ in range(3)]
    fe.random.set_seed(5)
    again = [f(x).numpy() for _ in range(3)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


def test_op_seed_streams_are_replayed_too():
    f = fe.function(lambda x: fe.nn.dropout(x, rate=0.5, seed=3))
    x = fe.ones([8, 8])
    assert not np.array_equal(f(x).numpy(), f(x).numpy())


def test_gradients_use_the_calls_own_mask():
    f = _dropped()
    x = fe.constant(np.arange(1.0, 41.0, dtype=np.float32).reshape(5, 8))
    for _ in range(3):                      # the first backward builds the saved path
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
            loss = fe.reduce_sum(y * y)
        g = tape.gradient(loss, x).numpy()
        scale = (y.numpy() / x.numpy())        # 0 or 2 per entry: this call's mask
        np.testing.assert_allclose(g, 2 * y.numpy() * scale, rtol=1e-6)


def test_second_order_gradients_use_the_calls_mask():
    f = _dropped()
    x = fe.constant(np.linspace(1, 2, 12, dtype=np.float32).reshape(3, 4))
    with fe.GradientTape() as outer:
        outer.watch(x)
        with fe.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
            loss = fe.reduce_sum(y * x)
        g = inner.gradient(loss, x)
    h = outer.gradient(g, x).numpy()
    mask = y.numpy() / x.numpy()
    np.testing.assert_allclose(g.numpy(), 2 * mask * x.numpy(), rtol=1e-6)
    np.testing.assert_allclose(h, 2 * mask, rtol=1e-6)


def test_training_step_with_dropout_is_a_graph_and_learns():
    fe.random.set_seed(1)
    rng = np.random.RandomState(0)
    x = rng.randn(64, 6).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    model = fe.keras.Sequential([fe.keras.layers.Dense(16, activation="relu"),
                                 fe.keras.layers.Dropout(0.3),
                                 fe.keras.layers.Dense(2)])
    opt = fe.keras.optimizers.Adam(0.05)
    loss_fn = fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @fe.function
    def step(x, y):
        with fe.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    losses = [float(step(x, y)) for _ in range(60)]
    cf = step.get_concrete_function(fe.constant(x), fe.constant(y))
    assert not cf._eager_only
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:5])
    logits = model(x, training=False).numpy()
    assert (logits.argmax(1) == y).mean() > 0.9


def test_fit_with_dropout_does_not_fall_back():
    model = fe.keras.Sequential([fe.keras.layers.Dense(8, activation="relu"),
                                 fe.keras.layers.Dropout(0.2), fe.keras.layers.Dense(3)])
    model.compile("adam", fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    x = np.random.rand(64, 4).astype(np.float32)
    model.fit(x, np.random.randint(0, 3, 64), batch_size=16, epochs=2, verbose=0)


# -- fe.random.normal / uniform / truncated_normal: graph ops on a per-call seed ----------
@pytest.mark.parametrize("draw, check", [
    (lambda: fe.random.normal([4000], mean=1.0, stddev=0.5),
     lambda a: abs(a.mean() - 1.0) < 0.05 and abs(a.std() - 0.5) < 0.05),
    (lambda: fe.random.uniform([4000], 2.0, 3.0),
     lambda a: a.min() >= 2.0 and a.max() < 3.0 and abs(a.mean() - 2.5) < 0.05),
    (lambda: fe.random.uniform([4000], 0, 10, dtype=fe.int32),
     lambda a: a.dtype == np.int32 and a.min() >= 0 and a.max() <= 9),
    (lambda: fe.random.truncated_normal([4000], seed=7),
     lambda a: np.abs(a).max() <= 2.0 and abs(a.mean()) < 0.1),
])
def test_global_random_ops_draw_anew_on_every_call(draw, check):
    f = fe.function(draw)
    first, second = f().numpy(), f().numpy()
    assert check(first) and check(second)
    assert not np.array_equal(first, second)
    assert f.experimental_get_tracing_count() == 1


def test_reparameterized_gradients_use_the_calls_noise():
    mean, log_scale = fe.Variable([1.0, 2.0]), fe.Variable([0.5, -0.5])

    @fe.function
    def step():
        with fe.GradientTape() as tape:
            eps = fe.random.normal([2])
            z = mean + fe.exp(log_scale) * eps
            loss = fe.reduce_sum(z * z)
        return tape.gradient(loss, [mean, log_scale]), eps

    for _ in range(3):
        (g_mean, g_scale), eps = step()
        z = mean.numpy() + np.exp(log_scale.numpy()) * eps.numpy()
        np.testing.assert_allclose(g_mean.numpy(), 2 * z, rtol=1e-6)
        np.testing.assert_allclose(g_scale.numpy(), 2 * z * np.exp(log_scale.numpy()) *
                                   eps.numpy(), rtol=1e-6)


def test_a_shape_given_as_a_tensor_still_works():
    f = fe.function(lambda x: fe.random.normal(fe.shape(x)), quiet_fallback=True)
    assert f(fe.ones([3, 2])).shape == (3, 2)


def test_a_layer_built_inside_a_trace_draws_the_eager_weights():
    # initializers run outside the trace (TensorFlow's init_scope)
    def weights(traced):
        fe.random.set_seed(11)
        layer = fe.keras.layers.Dense(3)
        call = fe.function(lambda x: layer(x)) if traced else layer
        call(fe.ones([2, 4]))
        return layer.kernel.numpy()
    np.testing.assert_array_equal(weights(True), weights(False))
