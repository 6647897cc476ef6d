"""Extreme inputs: TensorFlow's results (inf, nan) without NumPy warnings, and int rules."""
import warnings

import numpy as np

import fasteager as fe


def test_log_and_sqrt_at_zero():
    x = fe.constant([0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no RuntimeWarning leaks out
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = fe.log(x)
            z = fe.sqrt(x)
        assert np.isneginf(y.numpy()[0]) and y.numpy()[1] == 0.0
        assert z.numpy().tolist() == [0.0, 1.0]


def test_gradients_at_zero_are_inf_as_tensorflow():
    x = fe.constant([0.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with fe.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = fe.log(x)
            z = fe.sqrt(x)
        gy = tape.gradient(y, x).numpy()
        gz = tape.gradient(z, x).numpy()
    assert np.isposinf(gy[0]) and gy[1] == 0.25
    assert np.isposinf(gz[0]) and gz[1] == 0.25


def test_overflow_in_float32_gives_inf():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = fe.exp(fe.constant(100.0))
        assert np.isposinf(y.numpy()) and y.dtype == fe.float32
        assert np.isposinf((fe.constant(1.0) / 0.0).numpy())


def test_integer_arithmetic_wraps():
    big = fe.constant(np.int32(2**31 - 1))
    assert (big + 1).numpy() == -(2**31)
    assert (fe.constant(np.uint8(250)) + np.uint8(10)).numpy() == 4
    assert fe.constant(7) // fe.constant(-2) == -4      # floor division, as TF's floordiv


def test_matmul_overflow_gives_inf_without_warning():
    # the eager guide's matmul loop squares a random matrix 200 times: inf, silently, in TF
    x = fe.constant(np.full((4, 4), 1e30, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = fe.matmul(x, x)
        g = tape.gradient(y, x)
    assert np.isposinf(y.numpy()).all() and np.isfinite(g.numpy()).all()
