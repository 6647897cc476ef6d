"""Gradients that used to be wrong or imprecise at particular points (issue 14 item 9):
sigmoid's tails, log_sigmoid at 0 and far out, reduce_prod's derivatives at zeros."""
import numpy as np
import pytest

import fasteager as fe


def _grad(fn, x, dtype=fe.float64):
    x = fe.constant(x, dtype=dtype)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x).numpy()


def _sigmoid64(x):
    x = np.asarray(x, np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x < 0, e, 1) / (1 + e)


def test_sigmoid_float32_tails_and_gradient():
    # (1 + tanh(x/2)) / 2 gave 4.5389e-05 at -10 (2e-4 off), s (1 - s) cancelled at +10
    x = np.float32([-10.0, -30.0, 0.0, 10.0, 15.0])
    s = _sigmoid64(x)
    got = fe.sigmoid(fe.constant(x)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, s, rtol=3e-7)
    np.testing.assert_allclose(_grad(fe.sigmoid, x, fe.float32), s * _sigmoid64(-x), rtol=1e-6)


def test_log_sigmoid_gradient_is_sigmoid_of_minus_x():
    # the min(x, 0) - log1p(exp(-|x|)) composite gave 1.0 at 0 (a kink in min and in abs)
    x = np.array([0.0, -800.0, -30.0, -1.5, 2.0, 40.0, 800.0])
    np.testing.assert_allclose(_grad(fe.math.log_sigmoid, x), _sigmoid64(-x), rtol=1e-14)
    np.testing.assert_allclose(fe.math.log_sigmoid(x).numpy(),
                               np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))), rtol=1e-15)
    # second derivative: -sigmoid(x) sigmoid(-x), -0.25 at 0
    xs = fe.constant(x)
    with fe.GradientTape() as outer:
        outer.watch(xs)
        with fe.GradientTape() as inner:
            inner.watch(xs)
            y = fe.math.log_sigmoid(xs)
        g = inner.gradient(y, xs)
    np.testing.assert_allclose(outer.gradient(g, xs).numpy(), -_sigmoid64(x) * _sigmoid64(-x),
                               rtol=1e-12, atol=1e-300)
    with pytest.raises(fe.errors.InvalidArgumentError, match="log_sigmoid"):
        fe.math.log_sigmoid(fe.constant([1, 2]))


def _hvp(fn, x, v):
    x = fe.constant(x, dtype=fe.float64)
    with fe.GradientTape() as outer:
        outer.watch(x)
        with fe.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        gv = fe.reduce_sum(inner.gradient(y, x) * v)
    return outer.gradient(gv, x).numpy()


def _prod_hessian(x):
    # H_ik = prod_{j not in {i, k}} x_j off the diagonal, 0 on it
    n = len(x)
    return np.array([[0.0 if i == k else np.prod(np.delete(x, [i, k])) for k in range(n)]
                     for i in range(n)])


@pytest.mark.parametrize("x", [[0.0, 2.0, 3.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0],
                               [1.5, -2.0, 0.5, 4.0], [2.0, 0.0, -1.0, 0.0, 3.0]])
def test_reduce_prod_derivatives_exact_at_zeros(x):
    x = np.array(x)
    g = _grad(fe.reduce_prod, x)
    np.testing.assert_array_equal(g, [np.prod(np.delete(x, i)) for i in range(len(x))])
    v = np.linspace(1.0, 2.0, len(x))
    np.testing.assert_allclose(_hvp(fe.reduce_prod, x, v), _prod_hessian(x) @ v, rtol=1e-14)
    if list(x) == [0.0, 2.0, 3.0]:
        np.testing.assert_array_equal(_hvp(fe.reduce_prod, x, np.ones(3)), [5.0, 3.0, 2.0])


def test_reduce_prod_hessian_over_several_axes():
    # the reduced axes (0 and 2) are flattened into one; keepdims keeps the shape of g
    x = np.arange(12.0).reshape(2, 3, 2) - 5.0       # one zero, at [1, 2, 0]
    v = np.cos(np.arange(12.0)).reshape(2, 3, 2)
    for keepdims in (False, True):
        w = np.array([1.0, -2.0, 0.5]).reshape((1, 3, 1) if keepdims else (3,))
        got = _hvp(lambda t: fe.reduce_sum(fe.reduce_prod(t, axis=[0, 2], keepdims=keepdims)
                                           * w), x, v)
        want = np.zeros_like(x)
        for j, w in enumerate([1.0, -2.0, 0.5]):
            col = x[:, j, :].reshape(-1)
            want[:, j, :] = w * (_prod_hessian(col) @ v[:, j, :].reshape(-1)).reshape(2, 2)
        np.testing.assert_allclose(got, want, rtol=1e-13)
