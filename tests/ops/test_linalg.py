"""fe.linalg and the contraction ops: tensordot, einsum, norm, matrix functions, errors."""
import json

import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

RNG = np.random.default_rng(1)
A = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
B = RNG.standard_normal((2, 3, 4))
Err = fe.errors.InvalidArgumentError


@pytest.mark.parametrize("axes", [1, 0, [[1, 2], [0, 1]], ([2], [0])])
def test_tensordot(axes):
    a = RNG.standard_normal((2, 3, 4))
    b = RNG.standard_normal((4, 4, 2)) if axes in (1, ([2], [0])) else (
        RNG.standard_normal((3, 4, 2)) if axes != 0 else RNG.standard_normal((2,)))
    np.testing.assert_allclose(fe.tensordot(a, b, axes).numpy(), np.tensordot(a, b, axes),
                               rtol=1e-12)
    check_grads(lambda x, y: fe.tensordot(x, y, axes), [a, b])


def test_tensordot_errors():
    with pytest.raises(Err, match="tensordot: contracted dimensions differ"):
        fe.tensordot(np.ones((2, 3)), np.ones((4, 2)), 1)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ij->ji", [(2, 3)]), ("ii", [(3, 3)]), ("i,j", [(2,), (3,)]), ("ij,jk,kl->il",
                                                                  [(2, 3), (3, 2), (2, 2)]),
    ("iij->j", [(2, 2, 3)]), ("ab,ab->", [(2, 3), (2, 3)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)]), ("...ij->...ji", [(2, 2, 3)]),
    ("i...->...", [(2, 3, 2)]), ("...i,...i", [(2, 3), (3,)]),
])
def test_einsum_forward_and_gradients(eq, shapes):
    xs = [RNG.standard_normal(s) for s in shapes]
    np.testing.assert_allclose(fe.einsum(eq, *xs).numpy(), np.einsum(eq, *xs), rtol=1e-12)
    check_grads(lambda *ts: fe.einsum(eq, *ts), xs)


def test_einsum_errors():
    with pytest.raises(Err, match="einsum: axis 'j' has two sizes"):
        fe.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(Err, match="einsum: subscripts"):
        fe.einsum("ijk->i", np.ones((2, 3)))
    with pytest.raises(Err, match="einsum: malformed"):
        fe.einsum("..i.j", np.ones((2, 3)))


@pytest.mark.parametrize("ord,axis", [("euclidean", None), (1, None), (np.inf, -1), (2, 1),
                                      (3, 0), ("fro", (0, 1)), (1, (0, 1)), (np.inf, (1, 2)),
                                      ("euclidean", [0, 2])])
def test_norm(ord, axis):
    x = B
    got = fe.norm(x, ord=ord, axis=axis)
    if axis is None:
        want = np.linalg.norm(x.reshape(-1), ord=None if ord == "euclidean" else ord)
    elif isinstance(axis, int):
        want = np.linalg.norm(x, ord=ord, axis=axis)
    elif ord == "euclidean":
        want = np.sqrt(np.sum(x * x, axis=tuple(axis)))
    else:
        want = np.linalg.norm(x, ord=ord, axis=tuple(axis))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    keep = fe.linalg.norm(x, ord=ord, axis=axis, keepdims=True)
    assert keep.ndim == x.ndim
    if ord not in (1, np.inf):   # max and |x| have kinks (ties are unlikely, but skip them)
        check_grads(lambda t: fe.norm(t, ord=ord, axis=axis), [x])


def test_norm_errors():
    with pytest.raises(Err, match="norm: ord"):
        fe.norm(B, ord=-1)
    with pytest.raises(Err, match="norm: matrix ord"):
        fe.norm(B, ord=2, axis=(0, 1))
    with pytest.raises(Err, match="norm: input must be floating"):
        fe.norm([1, 2])


def test_matrix_functions_forward():
    np.testing.assert_allclose(fe.linalg.inv(A).numpy(), np.linalg.inv(A), rtol=1e-12)
    np.testing.assert_allclose(fe.linalg.inv(A, adjoint=True).numpy(), np.linalg.inv(A.T),
                               rtol=1e-12)
    np.testing.assert_allclose(fe.linalg.det(A).numpy(), np.linalg.det(A), rtol=1e-12)
    spd = A @ A.T
    np.testing.assert_allclose(fe.linalg.logdet(spd).numpy(), np.linalg.slogdet(spd)[1],
                               rtol=1e-12)
    np.testing.assert_allclose(fe.linalg.trace(B).numpy(), np.trace(B, axis1=-2, axis2=-1))
    np.testing.assert_allclose(fe.linalg.diag_part(B).numpy(),
                               np.diagonal(B, axis1=-2, axis2=-1))
    np.testing.assert_allclose(fe.linalg.diag([1.0, 2.0]).numpy(), np.diag([1.0, 2.0]))
    np.testing.assert_allclose(fe.linalg.transpose(B).numpy(), np.swapaxes(B, -1, -2))
    np.testing.assert_allclose(fe.linalg.matmul(A, A).numpy(), A @ A)
    np.testing.assert_allclose(fe.linalg.eye(2, batch_shape=[3]).numpy(),
                               np.broadcast_to(np.eye(2), (3, 2, 2)))
    s = fe.linalg.svd(B, compute_uv=False)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(B, compute_uv=False), rtol=1e-12)
    s, u, v = fe.linalg.svd(B)
    np.testing.assert_allclose((u.numpy() * s.numpy()[..., None, :]) @ np.swapaxes(v.numpy(),
                                                                                   -1, -2), B)
    q, r = fe.linalg.qr(B)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), B)


def test_matrix_function_gradients_composites():
    check_grads(lambda t: fe.linalg.trace(t * t), [B])
    check_grads(lambda t: fe.linalg.diag(t) ** 2, [B])
    check_grads(lambda t: fe.linalg.logdet(fe.matmul(t, t, transpose_b=True) + 3 * fe.eye(
        3, dtype=fe.float64)), [A])
    check_grads(lambda t: fe.linalg.inv(t, adjoint=True), [A])


def test_float32_stays_float32():
    a32 = A.astype(np.float32)
    for fn in (fe.linalg.inv, fe.linalg.det, fe.linalg.cholesky, lambda t: fe.linalg.slogdet(t)[1],
               lambda t: fe.linalg.solve(t, t), fe.linalg.trace, fe.norm):
        assert fn(a32 @ a32.T).dtype == fe.float32


def test_linalg_errors():
    with pytest.raises(Err, match="inv: input must be a .*square"):
        fe.linalg.inv(np.ones((2, 3)))
    with pytest.raises(Err, match="inv: Singular matrix"):
        fe.linalg.inv(np.zeros((2, 2)))
    with pytest.raises(Err, match="cholesky: .*positive-definite"):
        fe.linalg.cholesky(-np.eye(2))
    with pytest.raises(Err, match="solve: rhs must have shape"):
        fe.linalg.solve(A, np.ones(3))
    with pytest.raises(Err, match="det: unsupported dtype"):
        fe.linalg.det(np.eye(2, dtype=np.int32))


# ---- tf.linalg.diag_part: offsets, bands and alignment against TensorFlow 2.21 ------------
def _diag_part_cases():
    from tests.tf_reference import load
    return sorted(load("diag_part").items())


@pytest.mark.parametrize("key, want", _diag_part_cases())
def test_diag_part_matches_tensorflow(key, want):
    shape_text, rest = key.split(") ")             # "(3, 4) [-1, 1] RIGHT_LEFT"
    k_text, align = rest.rsplit(" ", 1)
    shape = tuple(int(d) for d in shape_text.strip("(").split(","))
    k = json.loads(k_text)
    x = fe.constant(np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape))
    with fe.GradientTape() as t:
        t.watch(x)
        v = fe.linalg.diag_part(x, k=k, padding_value=9, align=align)
        s = fe.reduce_sum(v * v)
    np.testing.assert_array_equal(v.numpy(), np.array(want["value"]))
    np.testing.assert_array_equal(t.gradient(s, x).numpy(), np.array(want["grad"]))
