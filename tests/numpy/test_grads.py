"""Gradients of NumPy-style programs written with fasteager.numpy, against finite differences."""
import numpy as np

import fasteager as fe
import fasteager.numpy as fnp
from fasteager.scipy.special import logsumexp
from tests.gradcheck import check_grads

RNG = np.random.default_rng(1)
X = RNG.standard_normal((6, 3))
Y = (RNG.random(6) > 0.5).astype(np.float64)
LABELS = np.array([0, 2, 1, 1, 0, 2])


def logistic_loss(w, b):
    p = 1 / (1 + fnp.exp(-(fnp.dot(X, w) + b)))
    return -fnp.mean(Y * fnp.log(p) + (1 - Y) * fnp.log(1 - p))


def softmax_xent(logits):
    # softmax cross-entropy with NumPy's fancy indexing x[np.arange(n), labels]
    z = logits - fnp.max(logits, axis=1, keepdims=True)
    logp = z - fnp.log(fnp.sum(fnp.exp(z), axis=1, keepdims=True))
    return -fnp.mean(logp[fnp.arange(logits.shape[0]), LABELS])


def tanh_mlp(w1, w2):
    h = fnp.tanh(fnp.matmul(X, w1))
    return fnp.sum(fnp.square(h.dot(w2) - Y[:, None]))


def ridge(w):
    # norm-regularised least squares
    r = fnp.dot(X, w) - Y
    return fnp.sum(r ** 2) + 0.1 * fnp.linalg.norm(w)


def test_logistic_regression():
    check_grads(logistic_loss, [RNG.standard_normal(3), 0.3])


def test_softmax_cross_entropy_fancy_indexing():
    check_grads(softmax_xent, [RNG.standard_normal((6, 3))])


def test_tanh_mlp():
    check_grads(tanh_mlp, [RNG.standard_normal((3, 4)) * 0.5, RNG.standard_normal((4, 1))],
                order=1)


def test_norm_regularised_least_squares():
    check_grads(ridge, [RNG.standard_normal(3)])


def test_methods_and_shape_functions():
    def f(x):
        y = fnp.concatenate([x, x.T.reshape(3, 2).T], axis=0)
        y = fnp.stack([y, fnp.flip(y, 0)]).transpose(1, 0, 2).sum(axis=1)
        return fnp.where(y > 0, y, 0.5 * y).mean() + fnp.var(x, axis=0).sum() + x.std() \
            + fnp.max(x) + logsumexp(x, axis=1).sum() + fnp.prod(x[0]) \
            + fnp.cumsum(x, axis=1)[:, -1].sum() + fnp.einsum("ij,ij->", x, x) \
            + fnp.tile(x, (1, 2)).sum() + fnp.clip(x, -0.5, 0.5).sum()
    check_grads(f, [RNG.standard_normal((2, 3))], order=1)


def test_linalg_grads():
    m = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    check_grads(lambda a: fnp.linalg.inv(a) + fnp.linalg.det(a), [m], order=1)
    check_grads(lambda a, b: fnp.linalg.solve(a, b), [m, RNG.standard_normal(3)], order=1)


def test_gradients_function_and_tape_agree():
    w = fnp.array(RNG.standard_normal(3))
    (g1,) = fe.gradients_function(lambda w: logistic_loss(w, 0.0))(w)
    with fe.GradientTape() as tape:
        tape.watch(w)
        loss = logistic_loss(w, 0.0)
    g2 = tape.gradient(loss, w)
    np.testing.assert_allclose(np.asarray(g1), np.asarray(g2))
    assert g1.dtype == np.float64


def test_fancy_index_gradient():
    x = fnp.array(RNG.standard_normal((4, 3)))
    labels = np.array([2, 0, 0, 1])
    with fe.GradientTape() as tape:
        tape.watch(x)
        picked = fnp.sum(x[fnp.arange(4), labels])
    want = np.zeros((4, 3))
    want[np.arange(4), labels] = 1
    np.testing.assert_array_equal(np.asarray(tape.gradient(picked, x)), want)


def test_array_of_tensors_is_differentiable():
    a = fnp.array(2.0)
    (g,) = fe.gradients_function(lambda a: fnp.sum(fnp.array([a, a * a, 3.0])))(a)
    assert float(g) == 5.0


def test_hips_autograd_style_mlp_trains():
    # the classic autograd example: a small tanh MLP fitted with plain gradient descent,
    # written purely in fasteager.numpy
    npr = fnp.random
    npr.seed(0)
    inputs = npr.uniform(-1, 1, size=(64, 2))
    targets = fnp.sin(3 * inputs[:, 0:1]) * fnp.cos(2 * inputs[:, 1:2])

    def init(scale, sizes):
        return [(scale * npr.randn(m, n), scale * npr.randn(n))
                for m, n in zip(sizes[:-1], sizes[1:])]

    def predict(params, x):
        for w, b in params:
            out = fnp.dot(x, w) + b
            x = fnp.tanh(out)
        return out

    def loss(flat):
        params = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
        return fnp.mean((predict(params, inputs) - targets) ** 2)

    flat = [p for layer in init(0.5, [2, 16, 16, 1]) for p in layer]
    first = float(loss(flat))
    for _ in range(200):
        flat = [p - 0.1 * g for p, g in zip(flat, _grads(loss, flat))]
    last = float(loss(flat))
    assert last < 0.5 * first, (first, last)


def _grads(loss, flat):
    with fe.GradientTape() as tape:
        tape.watch(flat)
        value = loss(flat)
    return tape.gradient(value, flat)
