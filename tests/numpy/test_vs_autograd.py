"""Gradients of NumPy programs through fasteager.numpy equal HIPS autograd's (where installed)."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


def _programs(m):
    def logistic(w, x, y):
        p = 1 / (1 + m.exp(-m.dot(x, w)))
        return -m.mean(y * m.log(p) + (1 - y) * m.log(1 - p))

    def tanh_mlp(w1, w2, x, labels):
        h = m.tanh(m.dot(x, w1))
        z = m.dot(h, w2)
        z = z - m.max(z, axis=1, keepdims=True)
        logp = z - m.log(m.sum(m.exp(z), axis=1, keepdims=True))
        return -m.mean(logp[m.arange(x.shape[0]), labels])

    def ridge(w, x, y):
        r = m.dot(x, w) - y
        return m.sum(r * r) + 0.1 * m.sqrt(m.sum(w * w))
    return {"logistic": logistic, "tanh_mlp": tanh_mlp, "ridge": ridge}


def _args(name, rng):
    if name == "logistic":
        return [rng.standard_normal(4), rng.standard_normal((10, 4)),
                (rng.random(10) > 0.5).astype(float)], [0]
    if name == "tanh_mlp":
        return [rng.standard_normal((4, 5)) * 0.5, rng.standard_normal((5, 3)) * 0.5,
                rng.standard_normal((6, 4)), rng.integers(0, 3, 6)], [0, 1]
    return [rng.standard_normal(3), rng.standard_normal((8, 3)), rng.standard_normal(8)], [0]


@pytest.mark.parametrize("name", ["logistic", "tanh_mlp", "ridge"])
def test_gradients_equal_autograds(name):
    rng = np.random.default_rng(0)
    args, params = _args(name, rng)
    ours = fe.gradients_function(_programs(fnp)[name], params=params)(
        *[fnp.asarray(a) for a in args])
    theirs = autograd.grad(_programs(anp)[name], argnum=tuple(params))(*args)
    for g, t in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(g), t, rtol=1e-10, atol=1e-12)
