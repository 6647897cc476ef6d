"""QR and SVD gradients outside the op-table walk: the cases they do not cover raise a
clear UnimplementedError, float32 stays float32, and the s-only gradient is U V^T."""
import numpy as np
import pytest

import fasteager as fe


def _grad(fn, a):
    a = fe.constant(a)
    with fe.GradientTape() as tape:
        tape.watch(a)
        loss = fn(a)
    return tape.gradient(loss, a)


def _sum_all(outs):
    return fe.add_n([fe.reduce_sum(o * o) for o in outs])


def test_qr_tall_full_matrices_has_no_gradient():
    a = np.random.default_rng(0).standard_normal((4, 2))
    with pytest.raises(fe.errors.UnimplementedError, match="qr: .*full_matrices=True.*tall"):
        _grad(lambda t: _sum_all(fe.linalg.qr(t, full_matrices=True)), a)
    # NotImplementedError is the built-in it matches
    with pytest.raises(NotImplementedError):
        _grad(lambda t: _sum_all(fe.linalg.qr(t, full_matrices=True)), a)


def test_svd_full_matrices_non_square_has_no_gradient():
    a = np.random.default_rng(0).standard_normal((4, 2))
    with pytest.raises(fe.errors.UnimplementedError, match="svd: .*full_matrices=True"):
        _grad(lambda t: _sum_all(fe.linalg.svd(t, full_matrices=True)[1:]), a)
    # s alone has a gradient in every case
    g = _grad(lambda t: fe.reduce_sum(fe.linalg.svd(t, full_matrices=True)[0]), a)
    u, _, vt = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(g.numpy(), u @ vt, rtol=1e-12)


def test_svd_repeated_singular_values():
    a = np.diag([2.0, 2.0, 1.0])
    with pytest.raises(fe.errors.UnimplementedError, match="svd: .*repeated singular"):
        _grad(lambda t: fe.reduce_sum(fe.linalg.svd(t)[1] ** 2 * np.array([1.0, 2.0, 3.0])), a)
    # the gradient of s is still defined there: d sum(s) = U V^T = I
    g = _grad(lambda t: fe.reduce_sum(fe.linalg.svd(t)[0]), a)
    np.testing.assert_allclose(g.numpy(), np.eye(3), atol=1e-14)
    g = _grad(lambda t: fe.reduce_sum(fe.linalg.svd(t, compute_uv=False)), a)
    np.testing.assert_allclose(g.numpy(), np.eye(3), atol=1e-14)


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5)])
def test_qr_and_svd_gradients_stay_float32(shape):
    a = np.random.default_rng(1).standard_normal(shape)
    for fn in (lambda t: _sum_all(fe.linalg.qr(t)),
               lambda t: fe.reduce_sum(fe.linalg.svd(t)[0])
               + fe.reduce_sum(fe.linalg.svd(t)[1] ** 4)):
        g32, g64 = _grad(fn, a.astype(np.float32)), _grad(fn, a)
        assert g32.dtype == fe.float32
        np.testing.assert_allclose(g32.numpy(), g64.numpy(), rtol=2e-3, atol=2e-4)


def test_rank_deficient_inputs_name_the_op():
    # the formulas divide by r's diagonal and by s: a typed error, not inf/NaN gradients
    # or an error from solve
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])     # rank 1: r[1, 1] is ~1e-16
    with pytest.raises(fe.errors.InvalidArgumentError, match="qr: .*rank-deficient"):
        _grad(lambda t: _sum_all(fe.linalg.qr(t)), a)
    with pytest.raises(fe.errors.InvalidArgumentError, match="svd: .*rank-deficient"):
        _grad(lambda t: fe.reduce_sum(fe.linalg.svd(t)[1] ** 4), np.array([[1.0, 0.0, 0.0],
                                                                          [0.0, 0.0, 0.0]]))
