"""tf.math and tf.bitwise functions composed of other ops (counts, scans, order checks,
safe reciprocals, top-k checks, bit shifts): values, dtypes and errors as TensorFlow
2.21 gives them (literal values below were printed by TensorFlow), gradients against
finite differences."""
import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

m = fe.math


def close(t, want, dtype=None, rtol=1e-6, atol=1e-6):
    assert isinstance(t, fe.Tensor)
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    np.testing.assert_allclose(t.numpy(), np.asarray(want), rtol=rtol, atol=atol)


# ---- counting, reductions, elementwise ----------------------------------------------------

def test_count_nonzero_and_euclidean_norm():
    close(m.count_nonzero([[1, 0], [2, 3]], axis=1), [1, 2], fe.int64)
    close(m.count_nonzero([0., 1.], dtype=fe.int32), 1, fe.int32)
    close(m.reduce_euclidean_norm([[1, 2], [3, 4]]), 5, fe.int32)   # sqrt(30), truncated
    close(m.reduce_euclidean_norm([[1., 2], [3, 4]], axis=1, keepdims=True),
          [[2.236068], [5.]], fe.float32)
    close(m.reduce_euclidean_norm(np.array([[3 + 4j, 1j], [2, 0]], np.complex64), axis=1),
          [5.0990195, 2.], fe.complex64)


def test_scalar_mul_and_reciprocal_no_nan():
    close(m.scalar_mul(2, fe.constant([1., 2.])), [2., 4.], fe.float32)
    with pytest.raises(ValueError, match="0-D"):
        m.scalar_mul([2, 3], fe.constant([1., 2.]))
    close(m.reciprocal_no_nan([0., 2.]), [0., 0.5])
    with pytest.raises(fe.errors.InvalidArgumentError, match="reciprocal_no_nan"):
        m.reciprocal_no_nan([0, 2])


def test_rint_zero_fraction_nextafter():
    close(m.rint([0.5, 1.5, 2.5, -0.5, -1.7]), [0., 2., 2., -0., -2.])
    close(m.zero_fraction([0, 1, 0, 3]), 0.5, fe.float32)
    close(m.zero_fraction(fe.constant([0., 1.], fe.float64)), 0.5, fe.float32)
    close(m.nextafter(fe.constant([1., 2.]), fe.constant([2., 1.])),
          np.array([1.0000001, 1.9999999], np.float32), fe.float32, rtol=0, atol=0)


def test_in_top_k():
    close(m.in_top_k([1, 0], [[0.1, 0.9, 0.0], [0.5, 0.5, 0.1]], 1), [True, True])
    # ties count for the target; a row with a non-finite prediction gives False
    close(m.in_top_k([1, 2], [[0.5, 0.5, 0.5], [1., np.nan, 0.]], 1), [True, False])
    assert fe.nn.in_top_k is m.in_top_k


# ---- scans, order checks, permutations ----------------------------------------------------

def test_cumulative_logsumexp():
    close(m.cumulative_logsumexp([1., 2., 3.]), [1., 2.3132617, 3.4076061])
    close(m.cumulative_logsumexp([1., 2., 3.], exclusive=True), [-np.inf, 1., 2.3132617])
    close(m.cumulative_logsumexp([1., 2., 3.], reverse=True, exclusive=True),
          [3.3132617, 3., -np.inf])
    # stable for any spread of values (exp(-200) underflows float32)
    close(m.cumulative_logsumexp([-200., 0.]), [-200., 0.])


def test_order_checks_and_invert_permutation():
    close(m.is_non_decreasing([1, 2, 2]), True)
    close(m.is_strictly_increasing([1, 2, 2]), False)
    close(m.is_strictly_increasing([]), True)
    close(m.invert_permutation([3, 4, 0, 2, 1]), [2, 4, 3, 0, 1], fe.int32)
    with pytest.raises(fe.errors.InvalidArgumentError, match="duplicated"):
        m.invert_permutation([0, 0])


def test_aliases():
    assert m.softplus is fe.nn.softplus and m.log_softmax is fe.nn.log_softmax
    assert m.l2_normalize is fe.nn.l2_normalize and m.softsign is fe.nn.softsign
    assert fe.nn.top_k is m.top_k and fe.linalg.l2_normalize is fe.nn.l2_normalize


def test_composites_trace_in_function():
    @fe.function
    def f(x):
        return m.xlogy(x, x + 1.0) + m.reciprocal_no_nan(x) + m.count_nonzero(
            x, dtype=fe.float32)
    x = fe.constant([0., 1., 2.])
    close(f(x), m.xlogy(x, x + 1.0) + m.reciprocal_no_nan(x) + 2.0)
    close(f(fe.constant([3., 0., 0.])), [3 * np.log(4.) + 1 / 3 + 1, 1., 1.])


# ---- bitwise ------------------------------------------------------------------------------

def test_bitwise():
    bw = fe.bitwise
    close(bw.bitwise_and([5, 3], [1, 2]), [1, 2], fe.int32)
    close(bw.bitwise_or([5, 3], [1, 4]), [5, 7])
    close(bw.bitwise_xor([5, 3], [1, 2]), [4, 1])
    close(bw.invert(fe.constant([1], fe.int8)), [-2], fe.int8)
    close(bw.left_shift([1, 2], [3, 1]), [8, 4], fe.int32)
    close(bw.right_shift([-8, 16], [1, 2]), [-4, 4])
    with pytest.raises(fe.errors.InvalidArgumentError):
        bw.left_shift([1.0], [2.0])


def test_approx_top_k_is_exact():
    x = fe.constant([[1., 5., 3., 4.], [2., 0., 7., 1.]])
    values, indices = m.approx_max_k(x, 2)
    close(values, [[5., 4.], [7., 2.]])
    close(indices, [[1, 3], [2, 0]], fe.int32)
    low = m.approx_min_k(x, 1, reduction_dimension=0)
    close(low.values, [[1., 0., 3., 1.]])
    close(low.indices, [[0, 1, 0, 1]])
    assert fe.nn.approx_max_k is m.approx_max_k
    check_grads(lambda t: m.approx_max_k(t, 2).values, [[[0.3, -1.0, 2.0], [0.5, 0.1, -0.2]]])
