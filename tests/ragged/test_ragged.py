"""RaggedTensor and fe.ragged: the programs of TensorFlow's ragged-tensor guide that use
what fasteager has (printed as TensorFlow prints them), factories, partitions, dense
conversion, indexing, operators, reductions, gradients and bad input."""
import contextlib
import io
import warnings

import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError
from tests.gradcheck import check_grads


def _printed(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue().splitlines()


def test_guide_overview_prints_as_tensorflow():
    def program():
        digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
        words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
        print(tf.ragged.reduce_mean(digits, axis=1))
        print(tf.strings.substr(words, 0, 2))
        print(digits[0])
        print(digits[:, :2])
        print(digits[:, -2:])
        print(digits + 3)
        print(digits + tf.ragged.constant([[1, 2, 3, 4], [], [5, 6, 7], [8], []]))
        times_two_plus_one = lambda x: x * 2 + 1      # noqa: E731 - the guide's code
        print(tf.ragged.map_flat_values(times_two_plus_one, digits))
        print(digits.to_list())
    assert _printed(program) == [
        "fe.Tensor([2.25              nan 5.33333333 6.                nan], shape=(5,), "
        "dtype=float64)",
        "<fe.RaggedTensor [[b'So', b'lo'], [b'th', b'fo', b'al', b'th', b'fi']]>",
        "fe.Tensor([3 1 4 1], shape=(4,), dtype=int32)",
        "<fe.RaggedTensor [[3, 1], [], [5, 9], [6], []]>",
        "<fe.RaggedTensor [[4, 1], [], [9, 2], [6], []]>",
        "<fe.RaggedTensor [[6, 4, 7, 4], [], [8, 12, 5], [9], []]>",
        "<fe.RaggedTensor [[4, 3, 7, 5], [], [10, 15, 9], [14], []]>",
        "<fe.RaggedTensor [[7, 3, 9, 3], [], [11, 19, 5], [13], []]>",
        "[[3, 1, 4, 1], [], [5, 9, 2], [6], []]",
    ]


def test_mean_of_integers_is_float64_as_in_tensorflow():
    got = tf.ragged.reduce_mean(tf.ragged.constant([[3, 1, 4, 1], [5, 9, 2], [6]]), axis=1)
    assert got.dtype == tf.float64
    np.testing.assert_allclose(got.numpy(), [2.25, 16 / 3, 6.])
    got = tf.ragged.reduce_mean(tf.ragged.constant([[1., 2.], []]), axis=1)
    assert got.dtype == tf.float32
    assert got.numpy()[0] == 1.5 and np.isnan(got.numpy()[1])


def test_guide_construction_prints_as_tensorflow():
    def program():
        print(tf.RaggedTensor.from_value_rowids(values=[3, 1, 4, 1, 5, 9, 2],
                                                value_rowids=[0, 0, 0, 0, 2, 2, 3]))
        print(tf.RaggedTensor.from_row_lengths(values=[3, 1, 4, 1, 5, 9, 2],
                                               row_lengths=[4, 0, 2, 1]))
        print(tf.RaggedTensor.from_row_splits(values=[3, 1, 4, 1, 5, 9, 2],
                                              row_splits=[0, 4, 4, 6, 7]))
        print(tf.ragged.constant([["Hi"], ["How", "are", "you"]]))
        print(tf.ragged.constant([[[1, 2], [3]], [[4, 5]]]))
        print(tf.ragged.constant([["Hi"], ["How", "are", "you"]]).shape)
        print(tf.ragged.constant([["Hi"], ["How", "are", "you"]]).bounding_shape())
    assert _printed(program) == [
        "<fe.RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>",
        "<fe.RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>",
        "<fe.RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>",
        "<fe.RaggedTensor [[b'Hi'], [b'How', b'are', b'you']]>",
        "<fe.RaggedTensor [[[1, 2], [3]], [[4, 5]]]>",
        "(2, None)",
        "fe.Tensor([2 3], shape=(2,), dtype=int64)",
    ]
    with pytest.raises(ValueError):
        tf.ragged.constant([["one", "two"], [3, 4]])     # multiple types
    with pytest.raises(ValueError, match="same nesting depth"):
        tf.ragged.constant(["A", ["B", "C"]])             # multiple nesting depths


def test_partitions():
    rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert rt.row_splits.numpy().tolist() == [0, 4, 4, 7, 8, 8]
    assert rt.row_splits.dtype == tf.int64
    assert rt.row_lengths().numpy().tolist() == [4, 0, 3, 1, 0]
    assert rt.value_rowids().numpy().tolist() == [0, 0, 0, 0, 2, 2, 2, 3]
    assert int(rt.nrows()) == 5 and rt.ragged_rank == 1
    assert rt.values.numpy().tolist() == rt.flat_values.numpy().tolist() == [3, 1, 4, 1, 5, 9,
                                                                            2, 6]
    assert rt.row_starts().numpy().tolist() == [0, 4, 4, 7, 8]
    assert rt.row_limits().numpy().tolist() == [4, 4, 7, 8, 8]
    assert rt.shape == (5, None) and rt.dtype == tf.int32
    r3 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert r3.ragged_rank == 2 and r3.shape == (2, None, None)
    assert [s.numpy().tolist() for s in r3.nested_row_splits] == [[0, 2, 3], [0, 2, 3, 4]]
    assert tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1).shape == \
        (2, None, 2)
    assert tf.RaggedTensor.from_row_starts([1, 2, 3], [0, 2]).to_list() == [[1, 2], [3]]
    assert tf.RaggedTensor.from_row_limits([1, 2, 3], [1, 3]).to_list() == [[1], [2, 3]]
    assert tf.RaggedTensor.from_nested_row_lengths([1, 2, 3], [[1, 1], [2, 1]]).to_list() == \
        [[[1, 2]], [[3]]]


def test_to_tensor_and_from_tensor():
    rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    np.testing.assert_array_equal(rt.to_tensor().numpy(),
                                  [[3, 1, 4, 1], [0] * 4, [5, 9, 2, 0], [6, 0, 0, 0], [0] * 4])
    np.testing.assert_array_equal(rt.to_tensor(default_value=-1, shape=[None, 2]).numpy(),
                                  [[3, 1], [-1, -1], [5, 9], [6, -1], [-1, -1]])
    np.testing.assert_array_equal(rt.to_tensor(shape=[2, 5]).numpy(),
                                  [[3, 1, 4, 1, 0], [0] * 5])
    words = tf.ragged.constant([["a", "bc"], ["d"]])
    assert words.to_tensor().numpy().tolist() == [[b"a", b"bc"], [b"d", b""]]
    dense = tf.constant([[1, 0, 0], [2, 3, 0], [0, 0, 0]])
    assert tf.RaggedTensor.from_tensor(dense, padding=0).to_list() == [[1], [2, 3], []]
    assert tf.RaggedTensor.from_tensor(dense, lengths=[1, 3, 0]).to_list() == [[1], [2, 3, 0],
                                                                                []]
    assert tf.RaggedTensor.from_tensor(dense).to_list() == dense.numpy().tolist()
    r3 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    np.testing.assert_array_equal(r3.to_tensor().numpy(), [[[1, 2], [3, 0]], [[4, 0], [0, 0]]])


def test_operators_and_broadcasting():
    rt = tf.ragged.constant([[1., 2.], [3.]])
    assert (rt * rt).to_list() == [[1., 4.], [9.]]
    assert (2 - rt).to_list() == [[1., 0.], [-1.]]
    assert (-rt).to_list() == [[-1., -2.], [-3.]]
    assert (rt > 1.5).to_list() == [[False, True], [True]]
    assert (rt + tf.constant([[10.], [20.]])).to_list() == [[11., 12.], [23.]]
    with pytest.raises(InvalidArgumentError, match="same row partition"):
        rt + tf.ragged.constant([[1.], [2., 3.]])
    with pytest.raises(InvalidArgumentError, match="does not broadcast"):
        rt + tf.constant([[1., 2.], [3., 4.]])


def test_reductions():
    rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert tf.ragged.reduce_sum(rt, axis=1).numpy().tolist() == [9, 0, 16, 6, 0]
    assert tf.ragged.reduce_sum(rt, axis=0).numpy().tolist() == [14, 10, 6, 1]
    assert int(tf.ragged.reduce_sum(rt)) == 31
    # an empty row's max is the dtype's lowest value, as in TensorFlow
    assert tf.ragged.reduce_max(rt, axis=1).numpy().tolist() == [4, -2**31, 9, 6, -2**31]
    assert tf.ragged.reduce_min(rt, axis=1).numpy().tolist()[:3] == [1, 2**31 - 1, 2]
    assert tf.ragged.reduce_prod(rt, axis=1).numpy().tolist() == [12, 1, 90, 6, 1]
    got = tf.ragged.reduce_mean(tf.ragged.constant([[1., 2.], [3.]]), axis=0)
    np.testing.assert_allclose(got.numpy(), [2., 2.])
    assert tf.ragged.reduce_sum(rt, axis=1, keepdims=True).shape == (5, 1)


def test_indexing_and_iteration():
    rt = tf.ragged.constant([[1, 2], [], [3, 4, 5]])
    assert rt[-1].numpy().tolist() == [3, 4, 5]
    assert rt[2, 1].numpy() == 4
    assert rt[1:].to_list() == [[], [3, 4, 5]]
    assert [r.numpy().tolist() for r in rt] == [[1, 2], [], [3, 4, 5]]
    assert len(rt) == 3
    with pytest.raises(InvalidArgumentError, match="row 3 is out of range"):
        rt[3]
    r3 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert r3[0].to_list() == [[1, 2], [3]]
    assert r3[0, 0].numpy().tolist() == [1, 2]
    rows = tf.ragged.boolean_mask(rt, [True, False, True])
    assert rows.to_list() == [[1, 2], [3, 4, 5]]


def test_to_sparse():
    sp = tf.ragged.constant([["John"], ["a", "big", "dog"]]).to_sparse()
    assert sp.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1], [1, 2]]
    assert sp.dense_shape.numpy().tolist() == [2, 3]
    assert tf.sparse.to_dense(sp).numpy().tolist() == [[b"John", b"", b""],
                                                       [b"a", b"big", b"dog"]]


def test_gradients_reach_the_flat_values():
    lengths = [2, 0, 3]

    def dense_of(values):
        rt = tf.RaggedTensor.from_row_lengths(values, lengths)
        return rt.to_tensor(default_value=0.5)
    check_grads(dense_of, [np.arange(5.) + 1])

    def reduced(values):
        rt = tf.RaggedTensor.from_row_lengths(values, lengths)
        return [tf.ragged.reduce_sum(rt * rt, axis=1), tf.ragged.reduce_mean(rt, axis=0)]
    check_grads(reduced, [np.array([0.3, -1.2, 0.7, 2.1, -0.4])])

    def row_max(values):
        return tf.ragged.reduce_max(tf.RaggedTensor.from_row_lengths(values, [2, 3]), axis=1)
    check_grads(row_max, [np.array([0.3, -1.2, 0.7, 2.1, -0.4])], order=1)


def test_bad_partitions():
    with pytest.raises(InvalidArgumentError, match="row_splits must start at 0"):
        tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2])
    with pytest.raises(InvalidArgumentError, match="row_lengths must be non-negative"):
        tf.RaggedTensor.from_row_lengths([1, 2], [3, -1])
    with pytest.raises(InvalidArgumentError, match="value_rowids must be sorted"):
        tf.RaggedTensor.from_value_rowids([1, 2], [1, 0])
    with pytest.raises(InvalidArgumentError, match="row_splits must be integers"):
        tf.RaggedTensor.from_row_splits([1, 2], [0., 2.])
    with pytest.raises(TypeError, match="factory"):
        tf.RaggedTensor([1], [0, 1])


def test_function_returns_ragged_tensors():
    @tf.function
    def rows(values, n):
        return tf.RaggedTensor.from_row_splits(values * 2, tf.constant([0, 1, 3], tf.int64))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = rows(tf.constant([1., 2., 3.]), 1)
        b = rows(tf.constant([4., 5., 6.]), 1)
    assert a.to_list() == [[2.], [4., 6.]] and b.to_list() == [[8.], [10., 12.]]


def test_function_reading_a_traced_partition_runs_eagerly_and_stays_right():
    @tf.function
    def padded(s):
        return tf.strings.split(s).to_tensor()
    with pytest.warns(UserWarning, match="row partition of a ragged tensor"):
        first = padded(tf.constant(["a b", "c"]))
    second = padded(tf.constant(["d", "e f g"]))
    assert first.numpy().tolist() == [[b"a", b"b"], [b"c", b""]]
    assert second.numpy().tolist() == [[b"d", b"", b""], [b"e", b"f", b"g"]]
