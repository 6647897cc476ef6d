"""fe.sparse: TensorFlow's sparse-tensor guide (the parts without Keras and tf.data) run with
only the import changed, each operation against dense NumPy, gradients by finite
differences, fe.function, and bad input."""
import runpy
import contextlib
import io
import pathlib

import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError
from tests.gradcheck import check_grads

GUIDE = pathlib.Path(__file__).with_name("sparse_guide.py")


def test_guide_program_prints_as_tensorflow():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(GUIDE), run_name="__main__")
    text = out.getvalue()
    assert text.startswith(
        "SparseTensor(indices=fe.Tensor(\n[[0 3]\n [2 4]], shape=(2, 2), dtype=int64), "
        "values=fe.Tensor([10 20], shape=(2,), dtype=int32), "
        "dense_shape=fe.Tensor([ 3 10], shape=(2,), dtype=int64))\n")
    # st_sum: the two entries at [0, 2] add up, indices come out sorted
    assert "<SparseTensor shape=[4, 10] \n values={\n  [0, 2]: 87\n  [3, 0]: 38\n" \
           "  [3, 4]: 2}>" in text
    assert "fe.Tensor(\n[[ 78]\n [162]], shape=(2, 1), dtype=int32)" in text
    assert "fe.Tensor([], shape=(8, 0), dtype=int32)" in text
    assert text.rstrip().endswith("fe.Tensor(\n[[225   0   0]\n [  0   0   0]\n "
                                  "[  0   0 625]], shape=(3, 3), dtype=int32)")


def _random_sparse(rng, shape, n):
    flat = rng.choice(int(np.prod(shape)), size=n, replace=False)
    idx = np.stack(np.unravel_index(np.sort(flat), shape), axis=-1)
    return idx, rng.standard_normal(n)


def test_dense_round_trip_and_reorder():
    rng = np.random.default_rng(0)
    idx, vals = _random_sparse(rng, (4, 5), 7)
    st = tf.sparse.SparseTensor(idx, vals, [4, 5])
    dense = np.zeros((4, 5))
    dense[tuple(idx.T)] = vals
    np.testing.assert_array_equal(tf.sparse.to_dense(st).numpy(), dense)
    back = tf.sparse.from_dense(dense)
    np.testing.assert_array_equal(back.indices.numpy(), idx)
    assert back.shape == (4, 5) and st.dtype == tf.float64
    shuffled = tf.sparse.SparseTensor(idx[::-1], vals[::-1], [4, 5])
    with pytest.raises(InvalidArgumentError, match="out of order"):
        tf.sparse.to_dense(shuffled)
    np.testing.assert_array_equal(tf.sparse.to_dense(tf.sparse.reorder(shuffled)).numpy(), dense)
    filled = tf.sparse.to_dense(st, default_value=-1.)
    assert filled.numpy()[tuple(idx.T)].tolist() == vals.tolist()
    assert (filled.numpy() == -1).sum() == 20 - 7


def test_matmul_reduce_add_transpose_match_numpy():
    rng = np.random.default_rng(1)
    idx, vals = _random_sparse(rng, (3, 4), 5)
    st = tf.sparse.SparseTensor(idx, vals, [3, 4])
    a = tf.sparse.to_dense(st).numpy()
    b = rng.standard_normal((4, 2))
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(st, b).numpy(), a @ b)
    np.testing.assert_allclose(
        tf.sparse.sparse_dense_matmul(st, b.T, adjoint_b=True).numpy(), a @ b)
    c = rng.standard_normal((3, 2))
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(st, c, adjoint_a=True).numpy(),
                               a.T @ c)
    np.testing.assert_allclose(tf.sparse.reduce_sum(st, axis=1).numpy(), a.sum(1))
    np.testing.assert_allclose(tf.sparse.reduce_sum(st, axis=0, keepdims=True).numpy(),
                               a.sum(0, keepdims=True))
    np.testing.assert_allclose(float(tf.sparse.reduce_sum(st)), a.sum())
    np.testing.assert_allclose(tf.sparse.add(st, np.ones((3, 4))).numpy(), a + 1)
    np.testing.assert_allclose(tf.sparse.to_dense(tf.sparse.add(st, st)).numpy(), 2 * a)
    np.testing.assert_allclose(tf.sparse.to_dense(tf.sparse.transpose(st)).numpy(), a.T)
    cut = tf.sparse.slice(st, [1, 1], [5, 2])
    np.testing.assert_allclose(tf.sparse.to_dense(cut).numpy(), a[1:, 1:3])
    np.testing.assert_allclose(tf.sparse.to_dense(st * 2.).numpy(), 2 * a)


def test_add_threshold_drops_small_sums():
    a = tf.sparse.SparseTensor([[0, 0], [0, 1]], [1., 0.05], [1, 2])
    b = tf.sparse.SparseTensor([[0, 0]], [-0.98], [1, 2])
    got = tf.sparse.add(a, b, threshold=0.03)     # |1 - 0.98| < 0.03 is dropped
    assert got.indices.numpy().tolist() == [[0, 1]]
    np.testing.assert_allclose(got.values.numpy(), [0.05])


def test_gradients_in_values_and_dense_operand():
    idx = np.array([[0, 1], [1, 0], [2, 1], [2, 3]])

    def product(values, b):
        return tf.sparse.sparse_dense_matmul(tf.sparse.SparseTensor(idx, values, [3, 4]), b)
    rng = np.random.default_rng(2)
    check_grads(product, [rng.standard_normal(4), rng.standard_normal((4, 2))])

    def densified(values, d):
        st = tf.sparse.SparseTensor(idx, values, [3, 4])
        return [tf.sparse.to_dense(st, default_value=0.25),
                tf.sparse.add(st, d), tf.sparse.reduce_sum(st, axis=0)]
    check_grads(densified, [rng.standard_normal(4), rng.standard_normal((3, 4))])


def test_function_returns_sparse_tensors():
    @tf.function
    def scaled(v):
        return tf.sparse.SparseTensor([[0, 1], [1, 0]], v * 2, [2, 2])
    a = scaled(tf.constant([1., 2.]))
    b = scaled(tf.constant([3., 4.]))
    assert a.values.numpy().tolist() == [2., 4.] and b.values.numpy().tolist() == [6., 8.]
    assert scaled.experimental_get_tracing_count() == 1


def test_string_values():
    st = tf.sparse.SparseTensor([[0, 1]], ["x"], [1, 2])
    assert tf.sparse.to_dense(st).numpy().tolist() == [[b"", b"x"]]
    assert tf.sparse.to_dense(st, default_value="-").numpy().tolist() == [[b"-", b"x"]]


def test_bad_input():
    with pytest.raises(InvalidArgumentError, match=r"index \[3, 0\] is out of bounds"):
        tf.sparse.SparseTensor([[3, 0]], [1], [3, 3])
    with pytest.raises(InvalidArgumentError, match="one value per index"):
        tf.sparse.SparseTensor([[0, 0]], [1, 2], [3, 3])
    with pytest.raises(InvalidArgumentError, match="indices must have rank 2"):
        tf.sparse.SparseTensor([0, 0], [1], [3, 3])
    st = tf.sparse.SparseTensor([[0, 0], [0, 0]], [1., 2.], [2, 2])
    with pytest.raises(InvalidArgumentError, match="repeated"):
        tf.sparse.to_dense(st)
    with pytest.raises(InvalidArgumentError, match="inner dimensions differ"):
        tf.sparse.sparse_dense_matmul(st, np.ones((3, 1)))
    with pytest.raises(InvalidArgumentError, match="same dtype"):
        tf.sparse.sparse_dense_matmul(st, np.ones((2, 1), np.float64))
    with pytest.raises(InvalidArgumentError, match="same dense_shape"):
        tf.sparse.add(st, tf.sparse.SparseTensor([[0, 0]], [1.], [3, 3]))
    with pytest.raises(InvalidArgumentError, match="must be a SparseTensor"):
        tf.sparse.to_dense(tf.constant([1.]))
    with pytest.raises(InvalidArgumentError, match="other than axis 1 must agree"):
        tf.sparse.concat(1, [st, tf.sparse.SparseTensor([[0, 0]], [1.], [3, 3])])


def test_function_reading_traced_entries_runs_eagerly_and_stays_right():
    @tf.function
    def column_sums(x):
        return tf.sparse.reduce_sum(tf.sparse.from_dense(x), axis=0)
    with pytest.warns(UserWarning, match="entries of a sparse tensor"):
        a = column_sums(tf.constant([[1., 0.], [0., 2.]]))
    b = column_sums(tf.constant([[0., 3.], [0., 2.]]))
    assert a.numpy().tolist() == [1., 2.] and b.numpy().tolist() == [0., 5.]
