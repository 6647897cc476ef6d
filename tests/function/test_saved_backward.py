"""Gradients of fe.function calls from the forward's saved intermediates.

Under a tape, a traced function's replay keeps the intermediates its backward reads; when
no tape watches the backward (first-order gradients), the backward is a traced graph of
the VJPs alone, run on those saved arrays (the forward is not run again). When a tape
does watch it (higher order), the backward re-runs the forward from the inputs, so every
dependence is recorded.
"""
import numpy as np
import pytest

import fasteager as fe
from fasteager._src.tracing.replay import _Saving


def rand(*shape, seed=0):
    return fe.constant(np.random.default_rng(seed).standard_normal(shape).astype(np.float64))


def mlp(x, w1, w2):
    h = fe.tanh(fe.matmul(x, w1))
    return fe.reduce_sum(fe.square(fe.matmul(h, w2)) * 0.5) + fe.reduce_mean(h)


def grads(f, *args):
    with fe.GradientTape() as tape:
        for a in args:
            tape.watch(a)
        y = f(*args)
    return y, tape.gradient(y, list(args))


def test_first_order_gradients_come_from_saved_intermediates():
    f = fe.function(mlp)
    args = [rand(4, 3), rand(3, 5, seed=1), rand(5, 2, seed=2)]
    for k in range(4):              # trace; build the saved path; then use it
        args = [a * 1.1 for a in args]
        y, g = grads(f, *args)
        y0, g0 = grads(mlp, *args)
        np.testing.assert_allclose(y.numpy(), y0.numpy(), rtol=1e-12)
        for a, b in zip(g, g0):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)
    cf = f.get_concrete_function(*args)
    assert isinstance(cf._saving, _Saving) and cf._saving.saved
    # the backward graph replays only VJPs: smaller than forward + backward together
    with fe.GradientTape() as outer:           # a watched backward takes the other path
        outer.watch(args[0])
        grads(f, *args)
    safe = cf._grad_function.get_concrete_function(
        list(args), [fe.constant(1.0, dtype=fe.float64)])
    assert cf._saving.graph.graph_size < safe.graph_size


@pytest.mark.parametrize("persistent", [False, True])
def test_second_order_through_a_watched_backward(persistent):
    f = fe.function(lambda x: fe.reduce_sum(fe.sin(x) * x * x))
    x = rand(5)
    f(x)
    with fe.GradientTape(persistent=persistent) as t2:
        t2.watch(x)
        with fe.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        g = t1.gradient(y, x)
    gg = t2.gradient(g, x)
    xv = x.numpy()
    np.testing.assert_allclose(g.numpy(), np.cos(xv) * xv ** 2 + 2 * xv * np.sin(xv),
                               rtol=1e-12)
    np.testing.assert_allclose(
        gg.numpy(), -np.sin(xv) * xv ** 2 + 4 * xv * np.cos(xv) + 2 * np.sin(xv),
        rtol=1e-12)


def exp_times_x(x):
    """sum(x e^x): its gradient is e^x (x + 1), its second derivative e^x (x + 2)."""
    return fe.reduce_sum(fe.exp(x) * x)


def test_persistent_tape_reuses_the_saved_intermediates():
    f = fe.function(exp_times_x)
    x = rand(4)
    for _ in range(3):
        with fe.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = f(x)
        xv = x.numpy()
        for _ in range(2):                   # the same saved arrays, twice
            np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.exp(xv) * (xv + 1),
                                       rtol=1e-12)
        x = x + 0.5


def test_persistent_tape_second_order_inside_its_context():
    # the gradient is recorded by the same tape: the backward takes the recomputing path
    f = fe.function(exp_times_x)
    x = rand(4)
    for _ in range(3):
        with fe.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = f(x)
            g = tape.gradient(y, x)
        xv = x.numpy()
        np.testing.assert_allclose(g.numpy(), np.exp(xv) * (xv + 1), rtol=1e-12)
        np.testing.assert_allclose(tape.gradient(g, x).numpy(), np.exp(xv) * (xv + 2),
                                   rtol=1e-12)


def test_traced_model_forward_trains_like_eager():
    def run(traced):
        fe.random.set_seed(5)
        model = fe.keras.Sequential([fe.keras.layers.Dense(16, activation="relu"),
                                     fe.keras.layers.Dropout(0.0),
                                     fe.keras.layers.Dense(3)])
        x = rand(12, 6)
        y = fe.constant(np.arange(12) % 3)
        model(x)
        opt = fe.keras.optimizers.Adam(0.05)

        def loss(x, y):
            return fe.reduce_mean(fe.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=model(x)))
        f = fe.function(loss) if traced else loss
        losses = []
        for _ in range(6):
            with fe.GradientTape() as tape:
                value = f(x, y)
            opt.apply_gradients(zip(tape.gradient(value, model.trainable_variables),
                                    model.trainable_variables))
            losses.append(float(value))
        return losses, [w.numpy() for w in model.weights]
    (l1, w1), (l2, w2) = run(True), run(False)
    np.testing.assert_allclose(l1, l2, rtol=1e-6)
    for a, b in zip(w1, w2):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert l1[-1] < l1[0]


def test_gather_with_constant_indices():
    idx = [0, 2, 2, 5]
    f = fe.function(lambda p: fe.reduce_sum(fe.gather(p * 2.0, idx) ** 2))
    p = rand(6, 2)
    for _ in range(3):
        y, (gp,) = grads(f, p)
        want = np.zeros((6, 2))
        np.add.at(want, idx, 8.0 * p.numpy()[idx])
        np.testing.assert_allclose(gp.numpy(), want, rtol=1e-12)
        p = p + 1.0
    assert isinstance(f.get_concrete_function(p)._saving, _Saving)


@fe.custom_gradient
def clipped_identity(x, limit=1.0):
    # grad_fn reads this call's values (the Python float of the largest |dy|)
    def grad(dy):
        scale = max(float(fe.reduce_max(fe.abs(dy))), limit)
        return dy / scale
    return fe.identity(x), grad


@fe.custom_gradient
def square_with_saved(x):
    y = x * x
    return y, lambda dy: dy * 2.0 * x          # closes over this call's x


@pytest.mark.parametrize("inner", ["clipped", "square"])
def test_custom_gradients_inside_functions(inner):
    if inner == "clipped":
        def g(x):
            return fe.reduce_sum(clipped_identity(x * 3.0, limit=0.5) * x)
    else:
        def g(x):
            return fe.reduce_sum(fe.sin(square_with_saved(x + 1.0)))
    f = fe.function(g)
    for seed in range(4):                      # the trace, then replays
        x = rand(5, seed=seed)
        y, (gx,) = grads(f, x)
        y0, (gx0,) = grads(g, x)
        np.testing.assert_allclose(y.numpy(), y0.numpy(), rtol=1e-12)
        np.testing.assert_allclose(gx.numpy(), gx0.numpy(), rtol=1e-12)
    # the custom VJP really is in use: it differs from the plain one
    x = rand(5, seed=9)
    if inner == "clipped":
        with fe.GradientTape() as tape:
            tape.watch(x)
            plain = fe.reduce_sum(fe.identity(x * 3.0) * x)
        assert not np.allclose(tape.gradient(plain, x).numpy(), grads(f, x)[1][0].numpy())
    assert f.get_concrete_function(x)._saving is False


def test_integer_inputs_and_outputs():
    f = fe.function(lambda x, n: (fe.reduce_sum(x * fe.cast(n, fe.float64)), n * 2))
    x, n = rand(3), fe.constant([1, 2, 3])
    for _ in range(3):
        with fe.GradientTape() as tape:
            tape.watch(x)
            y, m = f(x, n)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 2.0, 3.0])
        assert m.numpy().tolist() == [2, 4, 6]
