"""TensorFlow's ops on SparseTensor: the zero-preserving unary ops, cast and division by a
scalar run on the values and keep the indices; other ops refuse a SparseTensor."""
import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError
from tests.gradcheck import check_grads

DENSE = np.array([[0.0, -1.5, 0.0], [2.0, 0.0, 0.25]], dtype=np.float32)


@pytest.mark.parametrize("name", ["abs", "negative", "sign", "square", "sqrt", "sin", "tan",
                                  "asin", "atan", "tanh", "asinh", "atanh", "erf"])
def test_zero_preserving_ops_keep_the_indices(name):
    sp = tf.sparse.from_dense(DENSE)
    out = getattr(tf.math, name)(sp)
    assert isinstance(out, tf.SparseTensor)
    assert out.indices.numpy().tolist() == sp.indices.numpy().tolist()
    want = getattr(tf.math, name)(tf.constant(DENSE)).numpy()
    np.testing.assert_array_equal(tf.sparse.to_dense(out).numpy(), want)


def test_cast_and_division_by_a_scalar():
    sp = tf.sparse.from_dense(DENSE)
    c = tf.cast(sp, tf.int32)
    assert isinstance(c, tf.SparseTensor) and c.dtype == tf.int32
    assert c.values.numpy().tolist() == [int(v) for v in DENSE[DENSE != 0]]
    d = tf.divide(sp, 2.0)
    np.testing.assert_array_equal(tf.sparse.to_dense(d).numpy(), DENSE / 2)
    with pytest.raises(InvalidArgumentError, match="divides by a scalar only"):
        tf.divide(sp, tf.ones([2, 3]))


def test_other_ops_refuse_sparse():
    sp = tf.sparse.from_dense(DENSE)
    for fn in (tf.exp, tf.math.cos, lambda x: tf.multiply(x, 2.0), tf.math.sigmoid):
        with pytest.raises(InvalidArgumentError, match="does not take a SparseTensor"):
            fn(sp)


def test_gradients_flow_to_the_values():
    indices = [[0, 1], [1, 0]]

    def f(v):
        sp = tf.SparseTensor(indices, v, [2, 2])
        return tf.reduce_sum(tf.square(tf.math.tanh(sp)).values)
    check_grads(f, [np.array([0.5, -1.0])], order=2)
