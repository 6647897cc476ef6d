"""Kernels take read-only inputs (dataset batches and NumPy views are often read-only):
every convolution path, the relu gradient and the middle-axes sums."""
import numpy as np
import pytest

from fasteager import _kernels


def _ro(a):
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("algorithm", ["direct", "im2col"])
@pytest.mark.parametrize("stride,padding", [(1, "VALID"), (1, "SAME"), (2, "SAME")])
def test_convolutions_take_read_only_arrays(algorithm, stride, padding):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 9, 9, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 8)).astype(np.float32)
    y = _kernels.conv2d_forward(x, w, (stride, stride), padding, algorithm=algorithm)
    np.testing.assert_array_equal(
        _kernels.conv2d_forward(_ro(x), _ro(w), (stride, stride), padding,
                                algorithm=algorithm), y)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dx = _kernels.conv2d_backward_input(dy, w, x.shape, (stride, stride), padding,
                                        algorithm=algorithm)
    np.testing.assert_array_equal(
        _kernels.conv2d_backward_input(_ro(dy), _ro(w), x.shape, (stride, stride), padding,
                                       algorithm=algorithm), dx)
    dw = _kernels.conv2d_backward_filter(x, dy, w.shape, (stride, stride), padding,
                                         algorithm=algorithm)
    np.testing.assert_array_equal(
        _kernels.conv2d_backward_filter(_ro(x), _ro(dy), w.shape, (stride, stride), padding,
                                        algorithm=algorithm), dw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_gradient_and_middle_sums_take_read_only_arrays(dtype):
    rng = np.random.default_rng(1)
    g = rng.standard_normal((4, 5, 6, 16)).astype(dtype)
    x = rng.standard_normal((4, 5, 6, 16)).astype(dtype)
    np.testing.assert_array_equal(_kernels.relu_backward(_ro(g), _ro(x)), g * (x > 0))
    np.testing.assert_allclose(_kernels.sum_middle_axes(_ro(x), 1, 3),
                               x.sum(axis=(1, 2)), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_takes_read_only_arrays(dtype):
    from fasteager import _norm
    rng = np.random.default_rng(2)
    x = rng.standard_normal((40, 3)).astype(dtype)
    gamma, beta = np.ones(3, dtype), np.zeros(3, dtype)
    y, mean, var = _norm.batch_norm_train(_ro(x), _ro(gamma), _ro(beta), 1e-3)
    np.testing.assert_allclose(mean, x.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4,
                               atol=1e-5)
