"""Fused optimizer updates on variables: NumPy references over several steps, validation
before any write, and snapshot semantics (a value a tape saved is never changed)."""
import numpy as np
import pytest

import fasteager as fe
from fasteager.ops import optimizer_ops as oo

STEPS = 4


def _setup(dtype, shape=(3, 2), seed=0):
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal(shape).astype(dtype)
    grads = [rng.standard_normal(shape).astype(dtype) for _ in range(STEPS)]
    return w0, grads


def _close(var, ref, dtype):
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(var.numpy(), ref, rtol=tol, atol=tol)
    assert var.numpy().dtype == dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_matches_numpy(dtype, momentum, nesterov):
    w0, grads = _setup(dtype)
    var, vel = fe.Variable(w0), fe.Variable(np.zeros_like(w0))
    w, v = w0.astype(np.float64), np.zeros(w0.shape)
    lr = 0.1
    for g in grads:
        oo.apply_sgd(var, fe.constant(g), lr, momentum, nesterov, vel)
        if momentum:
            v = momentum * v - lr * g
            w = w + (momentum * v - lr * g if nesterov else v)
        else:
            w = w - lr * g
    _close(var, w, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weight_decay,amsgrad", [(0.0, False), (0.01, False), (0.0, True)])
def test_adam_matches_numpy(dtype, weight_decay, amsgrad):
    w0, grads = _setup(dtype)
    var = fe.Variable(w0)
    m_var, v_var = fe.Variable(np.zeros_like(w0)), fe.Variable(np.zeros_like(w0))
    vhat_var = fe.Variable(np.zeros_like(w0)) if amsgrad else None
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-7
    w, m, v, vhat = w0.astype(np.float64), np.zeros(w0.shape), np.zeros(w0.shape), np.zeros(w0.shape)
    for t, g in enumerate(grads, start=1):
        oo.apply_adam(var, m_var, v_var, g, lr, b1, b2, eps, t, weight_decay, vhat_var)
        w = w - w * weight_decay * lr
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        vv = v
        if amsgrad:
            vhat = np.maximum(vhat, v)
            vv = vhat
        w = w - m * (lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)) / (np.sqrt(vv) + eps)
    _close(var, w, dtype)
    _close(m_var, m, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("momentum,centered", [(0.0, False), (0.5, False), (0.5, True)])
def test_rmsprop_matches_numpy(dtype, momentum, centered):
    w0, grads = _setup(dtype)
    var, rms = fe.Variable(w0), fe.Variable(np.zeros_like(w0))
    mom, mg = fe.Variable(np.zeros_like(w0)), fe.Variable(np.zeros_like(w0))
    lr, rho, eps = 0.01, 0.9, 1e-7
    w, r, mo, a = w0.astype(np.float64), np.zeros(w0.shape), np.zeros(w0.shape), np.zeros(w0.shape)
    for g in grads:
        oo.apply_rmsprop(var, rms, g, lr, rho, momentum, eps, centered, mom, mg)
        r = rho * r + (1 - rho) * g * g
        denom = r + eps
        if centered:
            a = rho * a + (1 - rho) * g
            denom = r - a * a + eps
        inc = lr * g / np.sqrt(denom)
        if momentum:
            mo = momentum * mo + inc
            inc = mo
        w = w - inc
    _close(var, w, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adagrad_matches_numpy(dtype):
    w0, grads = _setup(dtype)
    var, acc = fe.Variable(w0), fe.Variable(np.full_like(w0, 0.1))
    w, a = w0.astype(np.float64), np.full(w0.shape, 0.1)
    for g in grads:
        oo.apply_adagrad(var, acc, list(g.tolist()), fe.constant(np.float64(0.05)), 1e-7)
        a = a + g * g
        w = w - 0.05 * g / np.sqrt(a + 1e-7)
    _close(var, w, dtype)


def test_value_saved_on_tape_is_unchanged():
    var = fe.Variable([1.0, 2.0, 3.0])
    with fe.GradientTape() as tape:
        y = fe.reduce_sum(var * var)          # the tape saves var's value for the gradient
    saved = var.read_value()
    oo.apply_sgd(var, fe.constant([1.0, 1.0, 1.0]), 0.5)
    np.testing.assert_allclose(var.numpy(), [0.5, 1.5, 2.5])
    np.testing.assert_allclose(saved.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(tape.gradient(y, var).numpy(), [2.0, 4.0, 6.0])


def test_unshared_variable_is_updated_in_place():
    var = fe.Variable(np.ones(5, np.float32))
    address = var._tensor._value.ctypes.data   # holding the array itself would force a copy
    oo.apply_sgd(var, np.ones(5, np.float32), 0.5)
    assert var._tensor._value.ctypes.data == address
    np.testing.assert_allclose(var.numpy(), 0.5)


def test_grad_aliasing_the_variable():
    var = fe.Variable([1.0, 2.0])
    oo.apply_sgd(var, var.read_value(), 0.5)
    np.testing.assert_allclose(var.numpy(), [0.5, 1.0])


def test_grad_is_converted_to_var_dtype():
    var = fe.Variable(np.ones(2, np.float64))
    oo.apply_sgd(var, np.array([1, 2], np.float32), 1.0)
    assert var.numpy().dtype == np.float64
    np.testing.assert_allclose(var.numpy(), [0.0, -1.0])


@pytest.mark.parametrize("call", [
    lambda v, m, s: oo.apply_adam(v, m, s, np.ones(4), 0.1, 0.9, 0.999, 1e-7, 1),  # bad grad shape
    lambda v, m, s: oo.apply_adam(v, m, fe.Variable(np.zeros(4)), np.ones(3), 0.1, 0.9, 0.999,
                                  1e-7, 1),                                     # slot dtype
    lambda v, m, s: oo.apply_adam(v, m, s, np.ones(3), 0.1, 0.9, 0.999, 1e-7, 0),  # step 0
    lambda v, m, s: oo.apply_adam(v, m, m, np.ones(3), 0.1, 0.9, 0.999, 1e-7, 1),  # aliasing
    lambda v, m, s: oo.apply_sgd(v, np.ones(3), 0.1, momentum=0.9),               # no velocity
    lambda v, m, s: oo.apply_rmsprop(v, m, np.ones(3), 0.1, centered=True),      # no mg
    lambda v, m, s: oo.apply_sgd(fe.constant([1.0]), np.ones(1), 0.1),             # not a Variable
    lambda v, m, s: oo.apply_sgd(v, np.array(["a", "b", "c"]), 0.1),              # non-numeric
])
def test_errors_modify_nothing(call):
    v = fe.Variable(np.ones(3, np.float32))
    m = fe.Variable(np.full(3, 2.0, np.float32))
    s = fe.Variable(np.full(3, 3.0, np.float32))
    with pytest.raises(fe.errors.InvalidArgumentError) as e:
        call(v, m, s)
    assert str(e.value).startswith("apply_")
    np.testing.assert_array_equal(v.numpy(), 1.0)
    np.testing.assert_array_equal(m.numpy(), 2.0)
    np.testing.assert_array_equal(s.numpy(), 3.0)


def test_int_variable_is_rejected():
    with pytest.raises(fe.errors.InvalidArgumentError, match="apply_adagrad: var must be float"):
        oo.apply_adagrad(fe.Variable([1, 2]), fe.Variable([0, 0]), [1, 1], 0.1)


def test_updates_record_nothing():
    var = fe.Variable([1.0, 2.0])
    with fe.GradientTape() as tape:
        oo.apply_sgd(var, fe.constant([1.0, 1.0]), 0.5)
        y = fe.reduce_sum(var)
    np.testing.assert_allclose(tape.gradient(y, var).numpy(), [1.0, 1.0])


def test_scalar_variables_update():
    import fasteager as fe
    from fasteager.ops import optimizer_ops as oo
    v = fe.Variable(1.0)
    oo.apply_sgd(v, fe.constant(2.0), 0.1)
    assert abs(float(v.numpy()) - 0.8) < 1e-7 and v.shape == ()
    m, s = fe.Variable(0.0), fe.Variable(0.0)
    oo.apply_adam(v, m, s, fe.constant(1.0), 0.1, 0.9, 0.999, 1e-7, 1)
    assert abs(float(v.numpy()) - 0.7) < 1e-5
