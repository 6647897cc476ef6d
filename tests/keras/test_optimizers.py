"""Keras and TF1 optimizers against NumPy references of their update formulas."""
import warnings

import numpy as np
import pytest

import fasteager as fe
from fasteager import train as T
from fasteager.keras import optimizers as O
from fasteager.keras.optimizers import schedules

STEPS = 4
RNG = np.random.default_rng(0)
W0 = RNG.normal(size=(3, 2))
GRADS = [RNG.normal(size=(3, 2)) for _ in range(STEPS)]
TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-12, atol=1e-13)}


def f32(x):
    """Keras keeps the learning rate in a float32 variable."""
    return float(np.float32(x))


def run(opt, dtype, grads=GRADS, w0=W0):
    w = fe.Variable(w0.astype(dtype))
    for g in grads:
        opt.apply_gradients([(fe.constant(g.astype(dtype)), w)])
    return w.numpy()


# -- NumPy references (Keras 3 update_step, in float64) ----------------------------------
def ref_sgd(lr, momentum=0.0, nesterov=False, wd=0.0):
    w, vel = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        w = w - w * wd * lr
        if momentum:
            vel = momentum * vel - lr * g
            w = w + (momentum * vel - lr * g if nesterov else vel)
        else:
            w = w - lr * g
    return w


def ref_adam(lr, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False, wd=0.0):
    w, m, v, vhat = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for t, g in enumerate(GRADS, 1):
        w = w - w * wd * lr
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        vv = v
        if amsgrad:
            vhat = np.maximum(vhat, v)
            vv = vhat
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - m * alpha / (np.sqrt(vv) + eps)
    return w


def ref_rmsprop(lr, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
    w, r, mom, mg = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for g in GRADS:
        r = rho * r + (1 - rho) * g * g
        if centered:
            mg = rho * mg + (1 - rho) * g
            denom = r - mg * mg + eps
        else:
            denom = r + eps
        inc = lr * g / np.sqrt(denom)
        if momentum:
            mom = momentum * mom + inc
            inc = mom
        w = w - inc
    return w


def ref_adagrad(lr, init=0.1, eps=1e-7):
    w, acc = W0.copy(), np.full_like(W0, init)
    for g in GRADS:
        acc = acc + g * g
        w = w - lr * g / np.sqrt(acc + eps)
    return w


CASES = [
    ("sgd", lambda: O.SGD(), lambda: ref_sgd(f32(0.01))),
    ("sgd_momentum", lambda: O.SGD(0.1, momentum=0.9), lambda: ref_sgd(f32(0.1), 0.9)),
    ("sgd_nesterov", lambda: O.SGD(0.1, momentum=0.9, nesterov=True),
     lambda: ref_sgd(f32(0.1), 0.9, True)),
    ("sgd_wd", lambda: O.SGD(0.1, weight_decay=0.01), lambda: ref_sgd(f32(0.1), wd=0.01)),
    ("adam", lambda: O.Adam(), lambda: ref_adam(f32(0.001))),
    ("adam_lr", lambda: O.Adam(0.1, beta_1=0.8, beta_2=0.99, epsilon=1e-3),
     lambda: ref_adam(f32(0.1), 0.8, 0.99, 1e-3)),
    ("amsgrad", lambda: O.Adam(0.1, amsgrad=True), lambda: ref_adam(f32(0.1), amsgrad=True)),
    ("adamw", lambda: O.AdamW(0.1), lambda: ref_adam(f32(0.1), wd=0.004)),
    ("rmsprop", lambda: O.RMSprop(), lambda: ref_rmsprop(f32(0.001))),
    ("rmsprop_mom_centered", lambda: O.RMSprop(0.01, momentum=0.5, centered=True),
     lambda: ref_rmsprop(f32(0.01), momentum=0.5, centered=True)),
    ("adagrad", lambda: O.Adagrad(0.1), lambda: ref_adagrad(f32(0.1))),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,make,ref", CASES, ids=[c[0] for c in CASES])
def test_update_matches_reference(name, make, ref, dtype):
    got = run(make(), dtype)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, ref(), **TOL[dtype])


def test_defaults_match_keras():
    a = O.Adam()
    assert (f32(0.001), 0.9, 0.999, 1e-7, False) == (
        float(a.learning_rate.numpy()), a.beta_1, a.beta_2, a.epsilon, a.amsgrad)
    s = O.SGD()
    assert (s.momentum, s.nesterov) == (0.0, False)
    assert float(s.learning_rate.numpy()) == f32(0.01)
    r = O.RMSprop()
    assert (r.rho, r.momentum, r.epsilon, r.centered) == (0.9, 0.0, 1e-7, False)
    g = O.Adagrad()
    assert (g.initial_accumulator_value, g.epsilon) == (0.1, 1e-7)
    assert O.AdamW().weight_decay == 0.004


def test_scalar_variable_and_iterations():
    v = fe.Variable(3.0)
    opt = O.SGD(0.1)
    assert opt.iterations.dtype == fe.int64 and not opt.iterations.trainable
    for _ in range(3):
        opt.minimize(lambda: v * v)
    assert int(opt.iterations.numpy()) == 3
    np.testing.assert_allclose(v.numpy(), 3.0 * 0.8 ** 3, rtol=1e-6)


def test_clipnorm_clipvalue_global_clipnorm():
    g = np.array([3.0, 4.0])  # norm 5
    w = fe.Variable([0.0, 0.0], dtype=fe.float64)
    O.SGD(1.0, clipnorm=1.0).apply_gradients([(fe.constant(g), w)])
    np.testing.assert_allclose(w.numpy(), [-0.6, -0.8])
    w.assign([0.0, 0.0])
    O.SGD(1.0, clipvalue=3.5).apply_gradients([(fe.constant(g), w)])
    np.testing.assert_allclose(w.numpy(), [-3.0, -3.5])
    a, b = fe.Variable([0.0], dtype=fe.float64), fe.Variable([0.0], dtype=fe.float64)
    O.SGD(1.0, global_clipnorm=1.0).apply_gradients(
        [(fe.constant([3.0], fe.float64), a), (fe.constant([4.0], fe.float64), b)])
    np.testing.assert_allclose([a.numpy()[0], b.numpy()[0]], [-0.6, -0.8])
    with pytest.raises(ValueError, match="only one of"):
        O.SGD(clipnorm=1.0, clipvalue=1.0)


def test_schedules():
    s = schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5, staircase=True)
    assert [round(float(s(i)), 6) for i in (0, 9, 10, 25)] == [0.1, 0.1, 0.05, 0.025]
    s = schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    np.testing.assert_allclose(float(s(5)), 0.1 * 0.5 ** 0.5, rtol=1e-6)
    p = schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    assert [float(p(i)) for i in (0, 10, 11, 20, 21)] == [1.0, 1.0, 0.5, 0.5, np.float32(0.1)]
    i = schedules.InverseTimeDecay(1.0, 10, 1.0)
    np.testing.assert_allclose(float(i(10)), 0.5)
    c = schedules.CosineDecay(1.0, 10, alpha=0.1)
    np.testing.assert_allclose([float(c(0)), float(c(5)), float(c(20))], [1.0, 0.55, 0.1],
                               rtol=1e-6)


def test_optimizer_uses_schedule_per_iteration():
    sched = schedules.ExponentialDecay(1.0, decay_steps=1, decay_rate=0.5, staircase=True)
    opt = O.SGD(sched)
    w = fe.Variable(0.0, dtype=fe.float64)
    for _ in range(3):
        opt.apply_gradients([(fe.constant(1.0, fe.float64), w)])
    np.testing.assert_allclose(w.numpy(), -(1.0 + 0.5 + 0.25))
    np.testing.assert_allclose(float(opt.learning_rate), 0.125)


def test_learning_rate_settable_and_lr_alias():
    opt = O.SGD(0.5)
    opt.learning_rate = 0.1
    np.testing.assert_allclose(opt.lr.numpy(), 0.1)
    opt.learning_rate.assign(0.25)
    w = fe.Variable(1.0)
    opt.apply_gradients([(fe.constant(1.0), w)])
    np.testing.assert_allclose(w.numpy(), 0.75)


def test_none_gradients_skipped_with_warning():
    a, b = fe.Variable(1.0, name="a"), fe.Variable(1.0, name="skipme")
    opt = O.SGD(0.5)
    with pytest.warns(UserWarning, match="skipme"):
        opt.apply_gradients(zip([fe.constant(1.0), None], [a, b]))
    assert a.numpy() == 0.5 and b.numpy() == 1.0
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="no gradients"):
        opt.apply_gradients([(None, a)])


def test_minimize_default_var_list_reads_trainable_only():
    w = fe.Variable(2.0)
    frozen = fe.Variable(5.0, trainable=False)
    unused = fe.Variable(7.0)
    O.SGD(0.1).minimize(lambda: w * w * frozen)
    np.testing.assert_allclose(w.numpy(), 2.0 - 0.1 * 2 * 2.0 * 5.0)
    assert frozen.numpy() == 5.0 and unused.numpy() == 7.0
    # explicit var_list, and a tensor loss with its tape
    with fe.GradientTape() as tape:
        loss = unused * 2.0
    O.SGD(0.5).minimize(loss, var_list=[unused], tape=tape)
    assert unused.numpy() == 6.0


def test_recorded_value_unchanged_by_update():
    w = fe.Variable([1.0, 2.0])
    with fe.GradientTape(persistent=True) as tape:
        y = w * w
    before = tape.gradient(y, w).numpy().copy()
    O.Adam(0.5).apply_gradients([(fe.constant([1.0, 1.0]), w)])
    assert not np.allclose(w.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), before)
    np.testing.assert_array_equal(y.numpy(), [1.0, 4.0])


def test_slots_variables_and_restore():
    w = fe.Variable(np.ones((2, 2), np.float32), name="kernel")
    opt = O.Adam(0.1)
    other = fe.Variable([1.0, 2.0], name="bias")
    opt._restore_slot(other, "m", [0.5, 0.5])   # deferred until the slot exists
    opt.apply_gradients([(fe.ones((2, 2)), w), (fe.constant([1.0, 1.0]), other)])
    m = opt.get_slot(w, "m")
    # Keras 3's names: the variable's name (its path for a layer weight) and the slot's word
    assert m.name == "kernel_momentum" and m.path == "adam/kernel_momentum" and not m.trainable
    assert opt.get_slot_names() == ["m", "v"]
    np.testing.assert_allclose(opt.get_slot(other, "m").numpy(), 0.5 * 0.9 + 0.1)
    names = [v.name for v in opt.variables()]
    assert names == ["iteration", "learning_rate", "kernel_momentum", "kernel_velocity",
                     "bias_momentum", "bias_velocity"]
    assert opt.iterations.path == "adam/iteration"
    assert opt.variables is opt.variables()
    assert opt._tracked_variables == [w, other]
    assert set(opt._slots[w._var_id]) == {"m", "v"}
    with pytest.raises(KeyError):
        opt.get_slot(w, "nope")


def test_get_config_roundtrip_and_get():
    opt = O.Adam(0.01, beta_1=0.8, amsgrad=True, clipnorm=2.0)
    again = O.Adam.from_config(opt.get_config())
    assert again.get_config() == opt.get_config()
    sched = schedules.ExponentialDecay(0.1, 10, 0.9)
    cfg = O.serialize(O.SGD(sched, momentum=0.5))
    back = O.deserialize(cfg)
    assert isinstance(back, O.SGD) and back.momentum == 0.5
    assert isinstance(back._learning_rate, schedules.ExponentialDecay)
    assert isinstance(O.get("adam"), O.Adam) and isinstance(O.get("RMSprop"), O.RMSprop)
    assert O.get(opt) is opt
    with pytest.raises(ValueError, match="unknown optimizer"):
        O.get("nadamx")


def test_gradient_shape_mismatch_is_clear():
    w = fe.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match=r"expected \[2\], got \[3\]"):
        O.SGD().apply_gradients([(fe.constant([1.0, 2.0, 3.0]), w)])


def test_dtype_of_gradient_converted():
    w = fe.Variable([1.0, 2.0], dtype=fe.float64)
    O.SGD(0.5).apply_gradients([(np.array([1.0, 1.0], np.float32), w)])
    np.testing.assert_allclose(w.numpy(), [0.5, 1.5])


# -- TF1 optimizers ------------------------------------------------------------------------
def test_legacy_gradient_descent_and_global_step():
    w = fe.Variable([1.0, 2.0])
    step = fe.Variable(0, dtype=fe.int64, trainable=False)
    opt = T.GradientDescentOptimizer(learning_rate=0.1)
    grads = fe.implicit_gradients(lambda: fe.reduce_sum(w * w))()
    opt.apply_gradients(grads, global_step=step)
    opt.minimize(lambda: fe.reduce_sum(w * w), global_step=step)
    np.testing.assert_allclose(w.numpy(), np.array([1.0, 2.0]) * 0.8 ** 2, rtol=1e-6)
    assert int(step.numpy()) == 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_legacy_adam_tf1_epsilon(dtype):
    got = run(T.AdamOptimizer(0.01), dtype)
    np.testing.assert_allclose(got, ref_adam(f32(0.01), eps=1e-8), **TOL[dtype])


def test_legacy_momentum_and_rmsprop():
    lr = f32(0.1)
    got = run(T.MomentumOptimizer(0.1, 0.9), np.float64)
    w, acc = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        acc = 0.9 * acc + g
        w = w - lr * acc
    np.testing.assert_allclose(got, w, rtol=1e-12)
    got = run(T.RMSPropOptimizer(0.1), np.float64)
    w, ms = W0.copy(), np.ones_like(W0)
    for g in GRADS:
        ms = 0.9 * ms + 0.1 * g * g
        w = w - lr * g / np.sqrt(ms + 1e-10)
    np.testing.assert_allclose(got, w, rtol=1e-12)


def test_legacy_skips_none_silently():
    a, b = fe.Variable(1.0), fe.Variable(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        T.GradientDescentOptimizer(0.5).apply_gradients([(fe.constant(1.0), a), (None, b)])
    assert a.numpy() == 0.5
