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
    return np.where(x < 0, np.exp(x) / (1 + np.exp(x)), 1 / (1 + np.exp(-x)))


def test_sigmoid_float32_tails_and_gradient():
    # (1 + tanh(x/2)) / 2 gave 4.5389e-05 at -10 (2e-4 off), s (1 - s) cancelled at +10
    x = np.float32([-10.0, -30.0, 0.0, 10.0, 15.0])
    s = _sigmoid64(x)
    got = fe.sigmoid(fe.constant(x)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, s, rtol=3e-7)
    np.testing.assert_allclose(_grad(fe.sigmoid, x, fe.float32), s * _sigmoid64(-x), rtol=1e-6)
