"""The rest of tf.math, tf.linalg and tf.bitwise: values, dtypes and errors as TensorFlow
2.21 gives them (literal values below were printed by TensorFlow), gradients of the
composites against finite differences."""
import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

m = fe.math
la = fe.linalg


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


def test_xlogy_family():
    close(m.xlogy([0., 1., 2.], [0., 2., 0.]), [0., 0.6931472, -np.inf])
    close(m.xdivy([0., 1., 2.], [0., 2., 0.]), [0., 0.5, np.inf])
    close(m.xlog1py([0., 1., 2.], [-1., 2., 0.]), [0., 1.0986123, 0.])
    # x = 0 takes no gradient from log(y) even where y = 0 (TensorFlow's rule)
    x, y = fe.constant([0., 2.]), fe.constant([0., 3.])
    with fe.GradientTape() as tape:
        tape.watch([x, y])
        z = fe.reduce_sum(m.xlogy(x, y))
    gx, gy = tape.gradient(z, [x, y])
    close(gx, [0., np.log(3.)])
    close(gy, [0., 2. / 3.])
    check_grads(lambda a, b: m.xlogy(a, b), [[0.5, 1.5], [0.7, 2.0]])
    check_grads(lambda a, b: m.xdivy(a, b), [[0.5, 1.5], [0.7, 2.0]])


def test_rint_zero_fraction_nextafter():
    close(m.rint([0.5, 1.5, 2.5, -0.5, -1.7]), [0., 2., 2., -0., -2.])
    close(m.zero_fraction([0, 1, 0, 3]), 0.5, fe.float32)
    close(m.zero_fraction(fe.constant([0., 1.], fe.float64)), 0.5, fe.float32)
    close(m.nextafter(fe.constant([1., 2.]), fe.constant([2., 1.])),
          np.array([1.0000001, 1.9999999], np.float32), fe.float32, rtol=0, atol=0)


def test_polyval_accumulate_n_lbeta():
    close(m.polyval([2., 3., 4.], 2.), 18.)
    close(m.polyval([fe.constant([1., 2.]), 3.], fe.constant([1., 2.])), [4., 7.])
    close(m.polyval([], 2.), 0.)
    close(m.accumulate_n([[1., 2.], [3., 4.]]), [4., 6.])
    close(m.lbeta([[1., 2.], [3., 4.]]), [-0.6931472, -4.0943446])
    close(m.lbeta(fe.zeros([2, 0])), [-np.inf, -np.inf])
    check_grads(lambda c0, x: m.polyval([c0, 3.0 * c0, fe.constant(1.0, fe.float64)], x),
                [[0.5, -1.0], [1.5, 0.3]])


def test_in_top_k():
    close(m.in_top_k([1, 0], [[0.1, 0.9, 0.0], [0.5, 0.5, 0.1]], 1), [True, True])
    # ties count for the target; a row with a non-finite prediction gives False
    close(m.in_top_k([1, 2], [[0.5, 0.5, 0.5], [1., np.nan, 0.]], 1), [True, False])
    assert fe.nn.in_top_k is m.in_top_k


def test_bincount():
    close(m.bincount([1, 1, 3]), [0, 2, 0, 1], fe.int32)
    close(m.bincount([1, 1, 3], weights=[0.5, 1., 2.]), [0., 1.5, 0., 2.], fe.float32)
    close(m.bincount([1, 1, 3], minlength=6, maxlength=2), [0, 2])
    close(m.bincount([[1, 1], [0, 3]], axis=-1), [[0, 2, 0, 0], [1, 0, 0, 1]])
    close(m.bincount([1, 1, 3], binary_output=True), [0, 1, 0, 1])
    with pytest.raises(fe.errors.InvalidArgumentError, match="non-negative"):
        m.bincount([1, -1, 3])
    w = fe.constant([0.5, 1., 2.])
    with fe.GradientTape() as tape:
        tape.watch(w)
        total = fe.reduce_sum(m.bincount([1, 1, 3], weights=w) * fe.constant([1., 2., 3., 4.]))
    close(tape.gradient(total, w), [2., 2., 4.])


def test_confusion_matrix():
    want = np.zeros((5, 5), np.int32)
    want[1, 2] = want[2, 2] = want[4, 4] = 1
    close(m.confusion_matrix([1, 2, 4], [2, 2, 4]), want, fe.int32)
    cm = m.confusion_matrix([1, 2, 4], [2, 2, 4], num_classes=5, weights=[1., 2., 3.],
                            dtype=fe.float32)
    close(cm, want * np.array([[1], [1], [2], [1], [3]]), fe.float32)
    with pytest.raises(fe.errors.InvalidArgumentError, match="out of bound"):
        m.confusion_matrix([1, 2, 4], [2, 2, 4], num_classes=3)


# ---- segments -----------------------------------------------------------------------------

DATA = [[1., 2.], [3., 4.], [5., 6.]]
F32_MAX = np.finfo(np.float32).max


def test_sorted_segments():
    close(m.segment_max(DATA, [0, 0, 2]), [[3., 4.], [0., 0.], [5., 6.]])
    close(m.segment_min(DATA, [0, 0, 2]), [[1., 2.], [0., 0.], [5., 6.]])
    close(m.segment_mean(DATA, [0, 0, 2]), [[2., 3.], [0., 0.], [5., 6.]])
    close(m.segment_prod(DATA, [0, 0, 2]), [[3., 8.], [1., 1.], [5., 6.]])
    close(m.segment_max([1, 2, 3], [0, 0, 2]), [2, 0, 3], fe.int32)
    with pytest.raises(fe.errors.InvalidArgumentError, match="sorted"):
        m.segment_max(DATA, [1, 0, 2])


def test_unsorted_segments():
    ids = [2, 0, 2]
    close(m.unsorted_segment_max(DATA, ids, 4),
          [[3., 4.], [-F32_MAX] * 2, [5., 6.], [-F32_MAX] * 2], rtol=0)
    close(m.unsorted_segment_min(DATA, ids, 4),
          [[3., 4.], [F32_MAX] * 2, [1., 2.], [F32_MAX] * 2], rtol=0)
    close(m.unsorted_segment_mean(DATA, ids, 4), [[3., 4.], [0., 0.], [3., 4.], [0., 0.]])
    close(m.unsorted_segment_prod(DATA, ids, 4), [[3., 4.], [1., 1.], [5., 12.], [1., 1.]])
    close(m.unsorted_segment_sqrt_n(DATA, ids, 4),
          [[3., 4.], [0., 0.], [4.242641, 5.656854], [0., 0.]])
    close(m.unsorted_segment_max([1, 2, 3], [2, 0, -1], 3), [2, -2147483648, 1], fe.int32)
    with pytest.raises(fe.errors.InvalidArgumentError, match="out of range"):
        m.unsorted_segment_max(DATA, [0, 5, 1], 3)


def test_segment_max_gradient_shares_ties():
    x = fe.constant([2., 2., 1., 5.])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(m.segment_max(x, [0, 0, 0, 1]) * fe.constant([1., 10.]))
    close(tape.gradient(y, x), [0.5, 0.5, 0., 10.])


def test_segment_prod_gradient_at_zeros():
    # one zero: its gradient is the product of the others; two zeros: all zero
    x = fe.constant([0., 2., 3., 0., 0., 4.])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(m.unsorted_segment_prod(x, [0, 0, 0, 1, 1, 1], 2))
    close(tape.gradient(y, x), [6., 0., 0., 0., 0., 0.])
    check_grads(lambda t: m.segment_prod(t, [0, 0, 1, 1, 1]), [[0.5, -1.5, 2.0, 0.0, 1.2]])


def test_segment_mean_gradient():
    check_grads(lambda t: m.unsorted_segment_mean(t, [1, 0, 1, 3], 4),
                [[[0.5, 1.0], [-1.5, 2.0], [0.3, 0.1], [1.0, 2.0]]])
    check_grads(lambda t: m.unsorted_segment_sqrt_n(t, [1, 0, 1], 2), [[0.5, -1.5, 2.0]])


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


# ---- special functions (values printed by TensorFlow 2.21) --------------------------------

def test_inverse_error_functions():
    close(m.erfinv([-0.5, 0., 0.5, 1.]), [-0.4769363, 0., 0.4769363, np.inf])
    close(m.erfcinv([1e-10, 0.5, 1., 1.5]), [4.572825, 0.4769363, 0., -0.4769363])
    close(m.ndtri(fe.constant([1e-30, 0.025, 0.5, 0.999, 0.], fe.float64)),
          [-11.46402469, -1.95996398, 0., 3.09023231, -np.inf], rtol=1e-8)
    # y tiny: (1 + y) / 2 would round y away; erfinv(y) ~ sqrt(pi)/2 y
    close(m.erfinv(fe.constant([1e-20], fe.float64)), [0.5 * np.sqrt(np.pi) * 1e-20],
          rtol=1e-14, atol=0)


def test_zeta_gamma_beta_bessel():
    close(m.zeta([2., 3., 1., 0.5], [1., 2., 1., 1.]), [1.644934, 0.20205691, np.inf, np.nan])
    close(m.igamma([0.5, 1., 3., 10.], [0.2, 1., 2., 30.]),
          [0.47291067, 0.6321205, 0.3233236, 0.9999929], rtol=2e-6)
    close(m.igammac([0.5, 1., 3., 10.], [0.2, 1., 2., 30.]),
          [5.2708936e-01, 3.6787945e-01, 6.7667639e-01, 7.1217551e-06], rtol=2e-6)
    close(m.betainc([0.5, 1., 3.], [2., 1., 5.], [0.2, 0.5, 0.9]),
          [0.62609905, 0.5, 0.9998235])
    close(m.bessel_i0([-1., 0., 1., 10.]), [1.2660660, 1., 1.2660660, 2815.7166], rtol=2e-7)
    close(m.bessel_i0e([-1., 0., 1., 1000.]), [0.46575963, 1., 0.46575963, 0.01261724])
    close(m.bessel_i1([-1., 0., 1., 10.]), [-0.56515908, 0., 0.56515908, 2670.9883])
    close(m.bessel_i1e([-1., 0., 1., 1000.]), [-0.20791042, 0., 0.20791042, 0.01261093])


def test_gradients_of_partial_special_functions():
    # TensorFlow: zeta has no x-gradient, betainc none in a and b
    x, q = fe.constant(2.5, fe.float64), fe.constant(1.5, fe.float64)
    a, b = fe.constant(1.5, fe.float64), fe.constant(2.0, fe.float64)
    with fe.GradientTape(persistent=True) as tape:
        tape.watch([x, q, a, b])
        z = m.zeta(x, q)
        beta = m.betainc(a, b, q / 4)
    assert tape.gradient(z, x) is None and tape.gradient(beta, a) is None
    close(tape.gradient(z, q), -2.5 * m.zeta(3.5, 1.5).numpy())
    # igamma's second derivative in a goes through IgammaGradA, which has none (as TF)
    a = fe.constant(1.5, fe.float64)
    with fe.GradientTape() as outer:
        outer.watch(a)
        with fe.GradientTape() as inner:
            inner.watch(a)
            p = m.igamma(a, 2.0)
        da = inner.gradient(p, a)
    with pytest.raises(LookupError, match="IgammaGradA"):
        outer.gradient(da, a)


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


# ---- linalg -------------------------------------------------------------------------------

A = [[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]]


def test_band_part_cross_matvec():
    x = np.arange(16.).reshape(4, 4)
    close(la.band_part(x, 1, -1), np.triu(x, -1))
    close(la.band_part(np.arange(12.).reshape(3, 4), 0, 0),
          [[0, 0, 0, 0], [0, 5, 0, 0], [0, 0, 10, 0]])
    close(la.cross([1., 2., 3.], [4., 5., 6.]), [-3., 6., -3.])
    with pytest.raises(fe.errors.FailedPreconditionError, match="3-element"):
        la.cross([1., 2.], [4., 5.])
    close(la.matvec(A, [1., 0., 1.]), [4., 10., 17.])
    close(la.matvec(A, [1., 0., 1.], transpose_a=True), [8., 10., 13.])
    check_grads(lambda a, b: la.cross(a, b), [[1., 2., 3.], [0.5, -1., 2.]])


def test_normalize_global_norm():
    n, norm = la.normalize([[3., 4.]], axis=1)
    close(n, [[0.6, 0.8]])
    close(norm, [[5.]])
    close(la.normalize([[3., 4.]], ord=1)[1], [[7.]])
    close(la.global_norm([fe.constant([3.]), None, fe.constant([[4.]])]), 5.)


def test_set_diag_and_tensor_diag():
    close(la.set_diag(fe.zeros([3, 3]), [1., 2., 3.]), np.diag([1., 2., 3.]))
    close(la.set_diag(fe.zeros([3, 4]), [1., 2., 3.], k=1), np.eye(3, 4, 1) * [0, 1, 2, 3])
    band = [[1., 5., 0.], [0., 2., 6.], [0., 0., 3.]]
    close(la.set_diag(fe.zeros([3, 3]), [[0., 5., 6.], [1., 2., 3.]], k=(0, 1)), band)
    close(la.set_diag(fe.zeros([3, 3]), [[5., 6., 0.], [1., 2., 3.]], k=(0, 1),
                      align="LEFT_RIGHT"), band)
    close(la.tensor_diag([1., 2.]), np.diag([1., 2.]))
    assert la.tensor_diag([[1., 2.], [3, 4]]).shape == (2, 2, 2, 2)
    close(la.tensor_diag_part(np.arange(16.).reshape(2, 2, 2, 2)), [[0., 5.], [10., 15.]])
    check_grads(lambda x, d: la.set_diag(x, d), [np.ones((2, 3, 3)), np.ones((2, 3)) * 2])


def test_lu_family():
    lu, p = la.lu(A)
    close(lu, [[7., 8., 10.], [0.14285715, 0.8571428, 1.5714285],
               [0.5714286, 0.4999998, -0.49999982]], rtol=2e-6)
    close(p, [2, 0, 1], fe.int32)
    close(la.lu_reconstruct(lu, p), A, rtol=1e-5)
    close(la.lu_solve(lu, p, [[1.], [2.], [3.]]), [[-1 / 3], [2 / 3], [0.]], atol=1e-6)
    batch = np.random.default_rng(0).standard_normal((2, 4, 4))
    lu_b, p_b = la.lu(batch)
    close(la.lu_reconstruct(lu_b, p_b), batch, atol=1e-12)


def test_solves_rank_expm_sqrtm():
    chol = la.cholesky([[4., 2.], [2., 3.]])
    close(la.cholesky_solve(chol, [[1.], [2.]]), [[-0.125], [0.75]])
    tall = [[1., 0.], [1., 1.], [1., 2.]]
    close(la.lstsq(tall, [[1.], [2.], [2.]]), [[1.1666666], [0.5]])
    close(la.lstsq(tall, [[1.], [2.], [2.]], l2_regularizer=0.5), [[0.92682934], [0.58536583]])
    close(la.lstsq([[1., 0., 1.], [1., 1., 2.]], [[1.], [2.]]),
          [[1 / 3], [1 / 3], [2 / 3]])
    close(la.lstsq(tall, [[1.], [2.], [2.]], fast=False), [[1.1666666], [0.5]])
    close(la.matrix_rank([[1., 2.], [2., 4.]]), 1, fe.int32)
    close(la.matrix_rank([[1., 2.], [2., 4.1]], tol=0.5), 1)
    rot = la.expm(fe.constant([[0., 1.], [-1., 0.]], fe.float64))
    close(rot, [[np.cos(1), np.sin(1)], [-np.sin(1), np.cos(1)]], rtol=1e-14, atol=1e-14)
    # a large norm goes through scaling and squaring (reference: SciPy's expm, float64)
    close(la.expm(fe.constant(A, fe.float64))[0],
          [1892793.80197202, 2319804.34844063, 2921688.79429348], rtol=1e-10)
    close(la.sqrtm([[4., 1.], [0., 9.]]), [[2., 0.2], [0., 3.]])
    check_grads(la.expm, [[[0.1, 0.5], [-0.3, 0.2]]])
    check_grads(lambda a, b: la.lstsq(a, b), [[[1., 0.], [1., 1.], [1., 2.]], [[1.], [2.], [2.]]])


def test_lu_matrix_inverse():
    close(la.lu_matrix_inverse(*la.lu([[1., 2.], [3., 4.]])), [[-2., 1.], [1.5, -0.5]])
    batch = np.random.default_rng(5).standard_normal((3, 4, 4)) + 4 * np.eye(4)
    close(la.lu_matrix_inverse(*la.lu(batch)), np.linalg.inv(batch), rtol=1e-12, atol=1e-12)


def test_special_function_edges_as_tensorflow():
    v = np.array([0., -1., np.nan, np.inf, 0.5, 3.])
    a, x = np.meshgrid(v, v, indexing="ij")
    nan = np.nan
    # rows a, columns x; printed by TensorFlow 2.21 (Eigen's edge rules)
    close(m.igamma(a, x), [[0., nan, nan, nan, nan, nan], [0., nan, nan, nan, nan, nan],
                           [0., nan, nan, nan, nan, nan], [0., nan, nan, 0., 0., 0.],
                           [0., nan, nan, 1., 0.68268949, 0.98569412],
                           [0., nan, nan, 1., 0.01438768, 0.57680992]])
    close(m.igammac(a, x), [[nan] * 6, [nan] * 6, [nan] * 6, [1., nan, nan, 0., 1., 1.],
                            [1., nan, nan, 0., 0.31731051, 0.01430588],
                            [1., nan, nan, 0., 0.98561232, 0.42319008]])
    close(m.zeta(fe.constant([np.inf, np.inf, np.inf, 1e300, 61., 100.], fe.float64),
                 fe.constant([1., 0.5, 2., 1., 20., 1e5], fe.float64)),
          [1., np.inf, 0., 1., 4.57180475e-80, 0.], rtol=1e-8, atol=0)
    # subnormal probabilities keep Acklam's estimate (SciPy: -38.26912534)
    close(m.ndtri(fe.constant([1e-320, 1e-300], fe.float64)), [-38.26912534, -37.0470963],
          rtol=1e-8)


def test_tridiagonal_and_banded():
    compact = [[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]
    close(la.tridiagonal_matmul(compact, [[1.], [2.], [3.]]), [[6.], [24.], [36.]])
    close(la.tridiagonal_solve([[2., 3., 0.], [4., 5., 6.], [0., 8., 9.]], [1., 2., 3.]),
          [0.0357143, 0.4285714, -0.1428571])
    seq = (fe.constant([0., 2., 3.]), fe.constant([4., 5., 6.]), fe.constant([7., 8., 0.]))
    close(la.tridiagonal_solve(seq, [[1.], [2.], [3.]], diagonals_format="sequence"),
          [[0.25], [-0.2], [0.5]])
    close(la.tridiagonal_solve([[4., 7., 0.], [2., 5., 8.], [0., 3., 6.]], [[1.], [2.], [3.]],
                               diagonals_format="matrix"), [[-1.5], [1.], [0.]])
    bands = [[1., 2., 3.], [4., 5., 6.]]
    close(la.banded_triangular_solve(bands, [[1.], [2.], [3.]]), [[1.], [-1.5], [4.]])
    close(la.banded_triangular_solve(bands, [[1.], [2.], [3.]], lower=False),
          [[0.2], [0.2], [0.5]])
    rng = np.random.default_rng(8)
    d = rng.standard_normal((3, 4)) + np.array([[0.], [4.], [0.]])
    check_grads(lambda t, b: la.tridiagonal_solve(t, b), [d, rng.standard_normal((4, 2))])
    check_grads(lambda t, b: la.banded_triangular_solve(t, b),
                [d[1:], rng.standard_normal((4, 1))])   # band 0, the diagonal, near 4


def test_logm():
    rng = np.random.default_rng(9)
    b = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4) + 1j * rng.standard_normal((3, 4, 4))
    close(la.expm(la.logm(b)), b, rtol=1e-12, atol=1e-12)
    # a diagonal matrix: the logarithm of each entry
    close(la.logm(np.diag([1., np.e, np.e ** 2]).astype(np.complex64)), np.diag([0., 1., 2.]),
          atol=1e-6)
    with pytest.raises(fe.errors.InvalidArgumentError, match="complex"):
        la.logm(np.eye(2))
    check_grads(lambda t: fe.math.real(la.logm(fe.cast(t, fe.complex128))),
                [np.array([[2., 0.5], [0.3, 3.]])])


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


def test_eigh_tridiagonal():
    a, b = fe.constant([2., 3., 4.], fe.float64), fe.constant([1., 0.5], fe.float64)
    close(la.eigh_tridiagonal(a, b), [1.35502746, 3.35285982, 4.29211272], rtol=1e-8)
    close(la.eigh_tridiagonal(a, b, select="i", select_range=[1, 2]), [3.35285982, 4.29211272],
          rtol=1e-8)
    close(la.eigh_tridiagonal(a, b, select="v", select_range=[2.5, 5.]),
          [3.35285982, 4.29211272], rtol=1e-8)
    w, v = la.eigh_tridiagonal(a, b, eigvals_only=False, select="i", select_range=[0, 1])
    dense = np.diag([2., 3., 4.]) + np.diag([1., 0.5], 1) + np.diag([1., 0.5], -1)
    close(fe.matmul(dense, v), v * w, rtol=1e-10, atol=1e-10)   # columns are eigenvectors
    assert v.shape == (3, 2)
    check_grads(lambda x, y: la.eigh_tridiagonal(x, y), [[2., 3., 4.], [1., 0.5]])
