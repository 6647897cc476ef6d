"""tensor_scatter_nd_*: TensorFlow's documented examples and bad input (the op table
checks forward and gradients of every case in op_specs_scatter.py)."""
import numpy as np
import pytest

import fasteager as fe


def test_tensorflow_doc_examples():
    tensor = fe.constant([[1, 1], [1, 1], [1, 1]])
    got = fe.tensor_scatter_nd_update(tensor, [[0, 1], [2, 0]], [5, 10])
    np.testing.assert_array_equal(got.numpy(), [[1, 5], [1, 1], [10, 1]])
    t = fe.zeros([8], dtype=fe.int32)
    got = fe.tensor_scatter_nd_add(t + 1, [[4], [3], [1], [7]], [9, 10, 11, 12])
    np.testing.assert_array_equal(got.numpy(), [1, 12, 1, 11, 10, 1, 1, 13])
    got = fe.tensor_scatter_nd_max(fe.zeros([4], fe.int32), [[2], [3]], [-1, 4])
    np.testing.assert_array_equal(got.numpy(), [0, 0, 0, 4])
    got = fe.tensor_scatter_nd_min(fe.zeros([4], fe.int32), [[2], [3], [2]], [-1, 4, -3])
    np.testing.assert_array_equal(got.numpy(), [0, 0, -3, 0])
    got = fe.tensor_scatter_nd_sub(fe.constant([1., 2.]), [[1], [1]], [1., 2.])
    np.testing.assert_array_equal(got.numpy(), [1., -1.])
    # whole rows: indices of shape [2, 1] into a [3, 2] tensor
    got = fe.tensor_scatter_nd_update(fe.zeros([3, 2]), [[2], [0]], [[1., 2.], [3., 4.]])
    np.testing.assert_array_equal(got.numpy(), [[3, 4], [0, 0], [1, 2]])


def test_the_input_is_not_changed():
    t = fe.constant([1., 2., 3.])
    fe.tensor_scatter_nd_update(t, [[0]], [9.])
    np.testing.assert_array_equal(t.numpy(), [1., 2., 3.])


def test_max_splits_the_gradient_between_ties():
    x = fe.constant([[1., 5.], [2., 3.]])
    u = fe.constant([5., 7.])
    with fe.GradientTape() as tape:
        tape.watch([x, u])
        y = fe.reduce_sum(fe.tensor_scatter_nd_max(x, [[0, 1], [1, 0]], u)
                          * fe.constant([[1., 2.], [3., 4.]]))
    gx, gu = tape.gradient(y, [x, u])
    np.testing.assert_allclose(gx.numpy(), [[1., 1.], [0., 4.]])
    np.testing.assert_allclose(gu.numpy(), [1., 3.])


@pytest.mark.parametrize("fn", [fe.tensor_scatter_nd_update, fe.tensor_scatter_nd_add])
def test_bad_input_raises_typed_errors(fn):
    t = fe.zeros([3, 2])
    with pytest.raises(fe.errors.InvalidArgumentError, match=fn.__name__ + ".*out of range"):
        fn(t, [[3]], [[1., 2.]])
    with pytest.raises(fe.errors.InvalidArgumentError, match="updates have the wrong shape"):
        fn(t, [[1]], [1., 2., 3.])
    with pytest.raises(fe.errors.InvalidArgumentError, match="must be integers"):
        fn(t, [[1.5]], [[1., 2.]])
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"shape \[\.\.\., q\]"):
        fn(t, [[0, 0, 0]], [1.])
    with pytest.raises(fe.errors.InvalidArgumentError, match="dtype"):
        fn(t, [[1]], fe.constant([[1, 2]]))
