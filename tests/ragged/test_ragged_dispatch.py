"""TensorFlow's ops on ragged tensors: elementwise ops (through the core's dispatch),
reductions, concat, tile and map_fn, checked against Python computations on the rows."""
import math

import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError
from tests.gradcheck import check_grads

ROWS = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
FROWS = [[1.5, -2.0], [], [3.0], [0.25, 4.0, -1.0]]


def _map(fn, rows):
    return [[fn(x) for x in r] for r in rows]


def _close(rt, rows):
    got = rt.to_list()
    assert [len(r) for r in got] == [len(r) for r in rows]
    np.testing.assert_allclose(np.concatenate([np.ravel(r) for r in got] + [[]]),
                               np.concatenate([np.ravel(r) for r in rows] + [[]]), rtol=1e-6)


def test_guide_overview_cell():
    # the first cell of TensorFlow's ragged tensor guide, checked against Python
    digits = tf.ragged.constant(ROWS)
    words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert str(tf.add(digits, 3)) == "<fe.RaggedTensor %s>" % _map(lambda x: x + 3, ROWS)
    mean = tf.reduce_mean(digits, axis=1)
    assert mean.dtype == tf.float64
    want = [sum(r) / len(r) if r else float("nan") for r in ROWS]
    np.testing.assert_allclose(mean.numpy(), want)
    assert tf.concat([digits, [[5, 3]]], axis=0).to_list() == ROWS + [[5, 3]]
    assert tf.tile(digits, [1, 2]).to_list() == [r * 2 for r in ROWS]
    assert tf.strings.substr(words, 0, 2).to_list() == [[b"So", b"lo"],
                                                        [b"th", b"fo", b"al", b"th", b"fi"]]
    sq = tf.map_fn(tf.math.square, digits)
    assert isinstance(sq, tf.RaggedTensor) and sq.to_list() == _map(lambda x: x * x, ROWS)


def test_binary_ops_dispatch_on_ragged():
    digits = tf.ragged.constant(ROWS)
    assert tf.multiply(digits, digits).to_list() == _map(lambda x: x * x, ROWS)
    assert tf.add(3, digits).to_list() == _map(lambda x: x + 3, ROWS)
    assert tf.maximum(digits, 2).to_list() == _map(lambda x: max(x, 2), ROWS)
    assert tf.equal(digits, 1).to_list() == _map(lambda x: x == 1, ROWS)
    assert tf.math.floormod(digits, 2).to_list() == _map(lambda x: x % 2, ROWS)
    per_row = [[10 * (i + 1)] for i in range(len(ROWS))]       # [nrows, 1]: one per row
    assert tf.multiply(digits, per_row).to_list() == [[x * p[0] for x in r]
                                                      for r, p in zip(ROWS, per_row)]
    with pytest.raises(InvalidArgumentError, match="add: ragged operands must have the same "
                       "row partition"):
        tf.add(digits, tf.ragged.constant([[1]]))


@pytest.mark.parametrize("name", ["abs", "negative", "square", "sqrt", "exp", "log1p", "sin",
                                  "tanh", "sigmoid", "sign", "floor", "round", "reciprocal",
                                  "erf", "log_sigmoid", "is_nan", "real"])
def test_every_unary_math_op_keeps_the_rows(name):
    rt = tf.ragged.constant(FROWS)
    out = getattr(tf.math, name)(tf.abs(rt) if name in ("sqrt", "log1p") else rt)
    assert isinstance(out, tf.RaggedTensor)
    flat = np.abs(rt.flat_values.numpy()) if name in ("sqrt", "log1p") else \
        rt.flat_values.numpy()
    want = getattr(tf.math, name)(tf.constant(flat)).numpy()
    assert out.row_splits.numpy().tolist() == rt.row_splits.numpy().tolist()
    np.testing.assert_array_equal(out.flat_values.numpy(), want)


def test_math_functions_with_several_arguments():
    rt = tf.ragged.constant(FROWS)
    _close(tf.cast(rt, tf.int32), _map(int, FROWS))
    assert tf.cast(rt, tf.int32).dtype == tf.int32
    _close(tf.clip_by_value(rt, -1.0, 2.0), _map(lambda x: min(max(x, -1.0), 2.0), FROWS))
    _close(tf.where(rt > 0, rt, 0.0), _map(lambda x: x if x > 0 else 0.0, FROWS))
    _close(tf.add_n([rt, rt, rt]), _map(lambda x: 3 * x, FROWS))
    _close(tf.math.squared_difference(rt, 1.0), _map(lambda x: (x - 1) ** 2, FROWS))
    _close(tf.math.pow(rt, 2.0), _map(lambda x: x * x, FROWS))


def test_ops_that_are_not_elementwise_refuse_ragged():
    from fasteager import _core
    from fasteager.ops.registry import OPS
    rt = tf.ragged.constant(FROWS)
    with pytest.raises(InvalidArgumentError, match="matmul: does not take a RaggedTensor"):
        _core.execute(OPS["matmul"], (rt, rt), None)


@pytest.mark.parametrize("name,pad", [("reduce_sum", 0), ("reduce_prod", 1),
                                      ("reduce_max", np.iinfo(np.int32).min),
                                      ("reduce_min", np.iinfo(np.int32).max)])
def test_reductions_dispatch(name, pad):
    digits = tf.ragged.constant(ROWS)
    py = {"reduce_sum": sum, "reduce_prod": math.prod, "reduce_max": max,
          "reduce_min": min}[name]
    fn = getattr(tf, name)
    assert fn(digits, axis=1).numpy().tolist() == [py(r) if r else pad for r in ROWS]
    assert fn(digits, axis=-1).numpy().tolist() == [py(r) if r else pad for r in ROWS]
    cols = [[r[j] for r in ROWS if len(r) > j] for j in range(4)]
    assert fn(digits, axis=0).numpy().tolist() == [py(c) for c in cols]
    assert fn(digits).numpy() == py([x for r in ROWS for x in r])
    assert getattr(tf.math, name)(digits, axis=1, keepdims=True).shape == (len(ROWS), 1)


def test_reduce_mean_of_integers_is_float64_everywhere():
    digits = tf.ragged.constant(ROWS)
    total = tf.reduce_mean(digits)
    assert total.dtype == tf.float64
    flat = [x for r in ROWS for x in r]
    assert total.numpy() == pytest.approx(sum(flat) / len(flat))


def test_concat_along_rows_and_within_rows():
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    joined = tf.concat([x, y], axis=1)
    assert joined.to_list() == [a + b for a, b in zip(x.to_list(), y.to_list())]
    assert tf.concat([x, y], axis=-1).to_list() == joined.to_list()
    assert tf.concat([x, y], axis=0).to_list() == x.to_list() + y.to_list()
    # dense operands join as rows (the guide's sentence markers)
    marker = tf.fill([x.nrows(), 1], "#")
    padded = tf.concat([marker, x, marker], axis=1)
    assert padded.to_list() == [[b"#"] + r + [b"#"] for r in x.to_list()]
    deep = [[[1], [2, 3]], [[4]]]
    assert tf.concat([tf.ragged.constant(deep[:1]), tf.ragged.constant(deep[1:])],
                     axis=0).to_list() == deep
    with pytest.raises(InvalidArgumentError, match="same number of rows"):
        tf.concat([x, tf.ragged.constant([["a"]])], axis=1)


def test_concat_and_tile_are_differentiable_in_the_values():
    a = tf.constant([1.0, 2.0, 3.0], dtype=tf.float64)
    b = tf.constant([4.0, 5.0], dtype=tf.float64)

    def f(a, b):
        ra = tf.RaggedTensor.from_row_lengths(a, [2, 1])
        rb = tf.RaggedTensor.from_row_lengths(b, [0, 2])
        c = tf.concat([ra, rb], axis=1)
        t = tf.tile(c, [2, 2])
        return tf.reduce_sum(t.flat_values * tf.range(1.0, 21.0, dtype=tf.float64))
    check_grads(f, [a.numpy(), b.numpy()], order=2)


def test_tile():
    digits = tf.ragged.constant(ROWS)
    assert tf.tile(digits, [2, 1]).to_list() == ROWS * 2
    assert tf.tile(digits, [2, 3]).to_list() == [r * 3 for r in ROWS] * 2
    assert tf.tile(digits, [0, 1]).to_list() == []
    with pytest.raises(InvalidArgumentError, match="tile: multiples must hold one"):
        tf.tile(digits, [2])


def test_map_fn_dense_ragged_and_signatures():
    digits = tf.ragged.constant(ROWS)
    sums = tf.map_fn(tf.reduce_sum, digits, fn_output_signature=tf.int32)
    assert not isinstance(sums, tf.RaggedTensor)
    assert sums.numpy().tolist() == [sum(r) for r in ROWS]
    spec = tf.RaggedTensorSpec(shape=[None], dtype=tf.int32)
    doubled = tf.map_fn(lambda r: r * 2, digits, fn_output_signature=spec)
    assert doubled.to_list() == _map(lambda x: 2 * x, ROWS)
    m = tf.constant([[1, 2], [3, 4]])
    assert tf.map_fn(lambda r: r * 2, m).numpy().tolist() == [[2, 4], [6, 8]]
    # nested structures in and out
    a, b = tf.constant([1.0, 2.0]), tf.constant([10.0, 20.0])
    s, d = tf.map_fn(lambda xy: (xy[0] + xy[1], xy[0] - xy[1]), (a, b))
    assert s.numpy().tolist() == [11.0, 22.0] and d.numpy().tolist() == [-9.0, -18.0]
    assert tf.map_fn(lambda x: x, tf.zeros([0, 3])).shape == (0, 3)
    with pytest.raises(InvalidArgumentError, match="same size along axis 0"):
        tf.map_fn(lambda xy: xy[0], (a, tf.constant([1.0])))
    with pytest.raises(InvalidArgumentError, match="rank >= 1"):
        tf.map_fn(lambda x: x, tf.constant(1.0))


def test_map_fn_is_differentiable():
    x = np.array([[1.0, 2.0], [3.0, -1.0]])
    check_grads(lambda t: tf.map_fn(lambda r: tf.reduce_sum(r * r) * r, t), [x], order=2)


def test_ragged_tensor_spec():
    spec = tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)
    assert spec.ragged_rank == 1 and spec.dtype == tf.int32
    rt = tf.ragged.constant([[1, 2], [3]])
    assert spec.is_compatible_with(rt)
    assert tf.RaggedTensorSpec.from_value(rt) == tf.RaggedTensorSpec([2, None], tf.int32)


def test_float32_values_print_with_their_own_precision():
    rt = tf.sqrt(tf.ragged.constant([[2.0, 3.0], []]))
    want = [[str(np.float32(math.sqrt(2.0))), str(np.float32(math.sqrt(3.0)))], []]
    assert str(rt) == "<fe.RaggedTensor [[%s, %s], []]>" % tuple(want[0])


def test_tensor_inputs_never_reach_the_ragged_handlers():
    # the dispatch tables are looked at only for arguments that are not tensors
    from fasteager.ops import registry
    a = tf.constant([1.0, 2.0])
    assert tf.add(a, 1.0).numpy().tolist() == [2.0, 3.0]
    assert "reduce_sum" in registry.COMPOSITE_TYPES[tf.RaggedTensor]
    assert "concat" in registry.COMPOSITE_TYPES[tf.RaggedTensor]
    assert tf.Tensor not in registry.COMPOSITE_TYPES


def test_printing_follows_numpy_array2string_as_tensorflow_does():
    # TensorFlow prints the array its numpy() gives with array2string(separator=", ")
    uniform = tf.ragged.constant([[1, 2], [3, 4]])
    assert str(uniform) == "<fe.RaggedTensor %s>" % np.array2string(
        np.array([[1, 2], [3, 4]]), separator=", ")
    long = tf.tile(tf.ragged.constant(ROWS), [2, 1])
    text = str(long)
    assert "\n" in text and text.replace("\n", "").replace("  ", " ") == \
        "<fe.RaggedTensor %s>" % str(ROWS * 2).replace("  ", " ")
    assert str(tf.ragged.constant([[], []])) == "<fe.RaggedTensor [[], []]>"
    assert str(tf.ragged.constant([["a"], ["b", "c"]])) == \
        "<fe.RaggedTensor [[b'a'], [b'b', b'c']]>"


def test_shape_of_a_ragged_tensor_as_the_guide_uses_it():
    rows = [[1], [2, 3, 4], [], [5, 6]]
    rt = tf.ragged.constant(rows)
    rt_shape = tf.shape(rt)
    lengths = [len(rows), tuple(len(r) for r in rows)]
    assert str(rt_shape) == "<DynamicRaggedShape lengths=%s num_row_partitions=1>" % lengths
    assert rt_shape.rank == 2 and rt_shape.dtype == tf.int32
    assert rt_shape[0].numpy() == len(rows) and rt_shape[0].dtype == tf.int32
    with pytest.raises(ValueError, match="Index 1 is not uniform"):
        rt_shape[1]
    assert str(rt_shape[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    x = tf.constant([["a", "b"], ["c", "d"], ["e", "f"]])
    flat = [v for r in x.numpy().tolist() for v in r]
    splits = np.cumsum([0] + [len(r) for r in rows])
    assert tf.reshape(x, rt_shape).to_list() == [flat[a:b] for a, b in zip(splits, splits[1:])]
    assert tf.zeros(rt_shape).to_list() == _map(lambda v: 0.0, rows)
    assert tf.ones(rt_shape).dtype == tf.float32
    assert tf.fill(rt_shape, "x").to_list() == _map(lambda v: b"x", rows)
    inner = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert tf.shape(inner).static_lengths() == [2, (3, 1), 2]
    assert tf.shape(inner)[-1].numpy() == 2
    assert tf.shape(tf.ragged.constant([[[1], [2, 3]], [[4]]])).num_row_partitions == 2
    # dense tensors keep their dense shape
    assert tf.shape(x).numpy().tolist() == [3, 2]


def test_gather_reverse_and_stack_of_ragged():
    digits = tf.ragged.constant(ROWS)
    assert tf.gather(digits, [2, 0]).to_list() == [ROWS[2], ROWS[0]]
    assert tf.gather(digits, [-1, 3]).to_list() == [ROWS[-1], ROWS[3]]
    assert tf.gather(digits, 2).numpy().tolist() == ROWS[2]
    with pytest.raises(InvalidArgumentError, match="out of range"):
        tf.gather(digits, [5])
    with pytest.raises(InvalidArgumentError, match="axis 0 only"):
        tf.gather(digits, [0], axis=1)
    assert tf.reverse(digits, [1]).to_list() == [r[::-1] for r in ROWS]
    assert tf.reverse(digits, [0]).to_list() == ROWS[::-1]
    inner = [[[1, 2], [3, 4]], [[5, 6]]]
    assert tf.reverse(tf.ragged.constant(inner, ragged_rank=1), [2]).to_list() == \
        [[p[::-1] for p in r] for r in inner]
    assert tf.stack([digits, digits]).to_list() == [ROWS, ROWS]


def test_guide_palindrome_in_a_function():
    @tf.function
    def make_palindrome(x, axis):
        return tf.concat([x, tf.reverse(x, [axis])], axis)
    dense = [[1, 2], [3, 4], [5, 6]]
    assert make_palindrome(tf.constant(dense), axis=1).numpy().tolist() == \
        [r + r[::-1] for r in dense]
    rows = [[1, 2], [3], [4, 5, 6]]
    assert make_palindrome(tf.ragged.constant(rows), axis=1).to_list() == \
        [r + r[::-1] for r in rows]


def test_reverse_and_gather_are_differentiable():
    def f(v):
        rt = tf.RaggedTensor.from_row_lengths(v, [2, 0, 3])
        out = tf.reverse(tf.gather(rt, [2, 0, 2]), [1])
        return tf.reduce_sum(out.flat_values * tf.range(1.0, 9.0, dtype=tf.float64))
    check_grads(f, [np.array([1.0, 2.0, 3.0, 4.0, 5.0])], order=2)


def test_from_sparse_and_from_uniform_row_length():
    st = tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=["a", "b", "c"],
                         dense_shape=[3, 3])
    assert tf.RaggedTensor.from_sparse(st).to_list() == [[b"a"], [], [b"b", b"c"]]
    gap = tf.SparseTensor(indices=[[0, 1]], values=[1.0], dense_shape=[1, 2])
    with pytest.raises(InvalidArgumentError, match="left-aligned"):
        tf.RaggedTensor.from_sparse(gap)
    inner = tf.RaggedTensor.from_row_splits(list(range(10, 20)), [0, 3, 5, 9, 10])
    rt = tf.RaggedTensor.from_uniform_row_length(inner, 2)
    assert rt.shape.as_list() == [2, 2, None] and rt.ragged_rank == 2
    assert rt.to_list() == [[[10, 11, 12], [13, 14]], [[15, 16, 17, 18], [19]]]
    with pytest.raises(InvalidArgumentError, match="do not split into rows of 3"):
        tf.RaggedTensor.from_uniform_row_length(inner, 3)


def test_size_one_dense_axes_broadcast_over_ragged_ones():
    rows = [[[1, 2], [3, 4], [5, 6]], [[7, 8]]]
    x = tf.ragged.constant(rows, ragged_rank=1)
    assert (x + tf.constant([[10]])).to_list() == [[[v + 10 for v in p] for p in r]
                                                  for r in rows]
    with pytest.raises(InvalidArgumentError, match="does not broadcast"):
        tf.ragged.constant([[1, 2], [3]]) + tf.constant([[1, 2, 3, 4]] * 2)
