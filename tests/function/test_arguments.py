"""fe.function arguments: NumPy scalars act as they do eagerly (as Python numbers)."""
import numpy as np
import pytest

import fasteager as fe


@pytest.mark.parametrize("n", [np.int64(3), np.int32(-2), np.float64(2.5), np.float32(0.5),
                               np.bool_(True)], ids=lambda n: type(n).__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numpy_scalar_arguments_promote_as_eagerly(n, dtype):
    def body(x, n):
        return x * n + n
    x = fe.constant(np.array([1.5, -2.0], dtype))
    want = body(x, n)
    f = fe.function(body)
    for _ in range(2):                    # the trace, then the replay
        got = f(x, n)
        assert got.dtype == want.dtype == x.dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_numpy_scalar_arguments_key_the_trace_by_value():
    f = fe.function(lambda x, n: x * n)
    x = fe.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x, np.int64(2)).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(f(x, np.int64(2)).numpy(), [2.0, 4.0])
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(f(x, np.int64(3)).numpy(), [3.0, 6.0])
    np.testing.assert_array_equal(f(x, np.float64(3)).numpy(), [3.0, 6.0])
    assert f.experimental_get_tracing_count() == 3       # new value, new NumPy type
    nan = f(x, np.float64("nan"))
    assert np.isnan(nan.numpy()).all()
    f(x, np.float64("nan"))
    assert f.experimental_get_tracing_count() == 4       # NaN matches NaN


def test_numpy_scalar_used_as_python_value_inside_the_body():
    @fe.function
    def f(x, n):
        for _ in range(n):                # a Python loop count, as eagerly
            x = x * 2.0
        return x
    assert float(f(fe.constant(1.0), np.int64(3)).numpy()) == 8.0
    assert float(f(fe.constant(1.0), np.int64(4)).numpy()) == 16.0


def test_numpy_arrays_and_signatures_still_make_tensors():
    f = fe.function(lambda x: x * 2)
    np.testing.assert_array_equal(f(np.array([1, 2], np.int64)).numpy(), [2, 4])
    np.testing.assert_array_equal(f(np.array([3, 4], np.int64)).numpy(), [6, 8])
    assert f.experimental_get_tracing_count() == 1
    g = fe.function(lambda x: x + 1.0, input_signature=[fe.TensorSpec([], fe.float32)])
    assert float(g(np.float64(2.0)).numpy()) == 3.0
    assert float(g(np.float64(5.0)).numpy()) == 6.0
    assert g.experimental_get_tracing_count() == 1
