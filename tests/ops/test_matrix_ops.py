"""tf.linalg beyond the core matrix ops (ops/matrix_ops.py: band parts, diagonals, LU,
solves, matrix functions, tridiagonal systems): values as TensorFlow 2.21 gives them
(literal values below were printed by TensorFlow), gradients against finite differences."""
import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

la = fe.linalg


def close(t, want, dtype=None, rtol=1e-6, atol=1e-6):
    assert isinstance(t, fe.Tensor)
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    np.testing.assert_allclose(t.numpy(), np.asarray(want), rtol=rtol, atol=atol)


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
