"""padded_batch, window, flat_map, interleave, counter and list_files: values and dtypes
as tf.data gives them, element_spec, cardinality, errors, and iterator checkpoints that
restore the position."""
import numpy as np
import pytest

import fasteager as tf
from fasteager.data import Dataset, DatasetSpec, TensorSpec
from fasteager.errors import InvalidArgumentError


def _np(ds):
    return [tf.nest.map_structure(np.asarray, e) for e in ds.as_numpy_iterator()]


def _filled(n):
    # element x is the vector [x] * x, as in the tf.data guide
    return Dataset.range(n).map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))


# -- padded_batch -------------------------------------------------------------------------
def test_padded_batch_pads_to_the_batch_maximum():
    ds = _filled(7).padded_batch(3, padded_shapes=(None,))
    out = _np(ds)
    assert [b.shape for b in out] == [(3, 2), (3, 5), (1, 6)]
    for b, start in zip(out, (0, 3, 6)):
        assert b.dtype == np.int64
        for row, x in zip(b, range(start, start + len(b))):
            np.testing.assert_array_equal(row, [x] * x + [0] * (b.shape[1] - x))
    assert ds.element_spec == TensorSpec([None, None], tf.int64)
    assert int(ds.cardinality()) == 3
    # padded_shapes defaults to padding every dimension to the batch maximum; a
    # TensorShape or an int64 vector with -1 says the same
    for shapes in (None, tf.TensorShape([None]), tf.constant([-1], tf.int64)):
        for a, b in zip(_np(_filled(7).padded_batch(3, padded_shapes=shapes)), out):
            np.testing.assert_array_equal(a, b)
    flags = Dataset.range(4).map(lambda x: tf.fill([tf.cast(x, tf.int32)], True))
    padded = next(iter(flags.padded_batch(4))).numpy()
    assert padded.dtype == np.bool_ and padded.sum(axis=1).tolist() == [0, 1, 2, 3]


def test_padded_batch_fixed_shape_values_and_drop_remainder():
    ds = Dataset.range(5).map(lambda x: (x, tf.fill([tf.cast(x, tf.int32)], x)))
    pb = ds.padded_batch(2, padded_shapes=([], [6]),
                         padding_values=(tf.constant(0, tf.int64), tf.constant(-1, tf.int64)),
                         drop_remainder=True)
    out = _np(pb)
    assert len(out) == 2 and int(pb.cardinality()) == 2
    ids, rows = out[1]
    np.testing.assert_array_equal(ids, [2, 3])
    np.testing.assert_array_equal(rows, [[2, 2, -1, -1, -1, -1], [3, 3, 3, -1, -1, -1]])
    assert pb.element_spec == (TensorSpec([2], tf.int64), TensorSpec([2, 6], tf.int64))
    # one scalar pads every component
    one = _np(ds.padded_batch(2, padding_values=tf.constant(7, tf.int64)))
    np.testing.assert_array_equal(one[0][1], [[7], [1]])


def test_padded_batch_nested_dict_strings_and_2d():
    def gen():
        for n in (1, 3, 2):
            yield {"word": np.array([b"ab"] * n, object), "grid": np.ones((n, 4 - n), "f4")}
    ds = Dataset.from_generator(gen, output_signature={
        "word": TensorSpec([None], tf.string), "grid": TensorSpec([None, None], tf.float32)})
    (batch,) = list(ds.padded_batch(3))
    words, grid = batch["word"].numpy(), batch["grid"].numpy()
    assert batch["word"].dtype == tf.string and words.shape == (3, 3)
    assert words.tolist() == [[b"ab", b"", b""], [b"ab"] * 3, [b"ab", b"ab", b""]]
    assert grid.shape == (3, 3, 3) and grid.dtype == np.float32
    np.testing.assert_array_equal(grid[1], np.pad(np.ones((3, 1)), ((0, 0), (0, 2))))
    assert grid.sum() == 3 + 3 + 4


def test_padded_batch_errors():
    with pytest.raises(InvalidArgumentError, match="smaller size"):
        list(_filled(6).padded_batch(3, padded_shapes=[4]))
    with pytest.raises(TypeError, match="dtype int32 .*expected int64"):
        list(_filled(3).padded_batch(2, padding_values=-1))     # int32 pads an int64 column
    with pytest.raises(ValueError, match="rank"):
        list(_filled(3).padded_batch(2, padded_shapes=[None, None]))
    with pytest.raises(ValueError, match="element structure"):
        list(Dataset.range(3).map(lambda x: (x, x)).padded_batch(2, padded_shapes=([],)))
    with pytest.raises(InvalidArgumentError, match="batch_size"):
        Dataset.range(3).padded_batch(0)


def test_padded_batch_of_the_guide_generator():
    # tf.data guide: ds_series.shuffle(20).padded_batch(10)
    rng = np.random.default_rng(0)
    sizes = rng.integers(0, 10, 40)

    def gen_series():
        for i, n in enumerate(sizes):
            yield i, rng.normal(size=(n,))
    ds = Dataset.from_generator(gen_series, output_types=(tf.int32, tf.float32),
                                output_shapes=((), (None,)))
    ids, seqs = next(iter(ds.shuffle(20).padded_batch(10)))
    assert ids.dtype == tf.int32 and seqs.dtype == tf.float32
    assert seqs.shape == (10, max(sizes[i] for i in ids.numpy()))
    for i, row in zip(ids.numpy(), seqs.numpy()):
        assert np.count_nonzero(row[sizes[i]:]) == 0


# -- window, flat_map, interleave ---------------------------------------------------------
def test_window_elements_are_datasets():
    windows = Dataset.range(7).window(3, shift=2)
    assert int(windows.cardinality()) == 4
    assert windows.element_spec == DatasetSpec(TensorSpec([], tf.int64))
    first = next(iter(windows))
    assert isinstance(first, Dataset)
    assert repr(first).startswith("<_VariantDataset element_spec=TensorSpec(shape=()")
    assert [list(map(int, w.as_numpy_iterator())) for w in windows] == \
        [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    dropped = Dataset.range(7).window(3, shift=2, drop_remainder=True)
    assert int(dropped.cardinality()) == 3 and len(list(dropped)) == 3
    with pytest.raises(TypeError, match="as_numpy_iterator"):
        next(windows.as_numpy_iterator())
    with pytest.raises(TypeError, match="cannot be batched"):
        next(iter(windows.batch(2)))


@pytest.mark.parametrize("size,shift,stride,drop", [
    (5, 1, 1, True), (10, 5, 3, True), (3, None, 1, False), (4, 3, 2, False), (2, 5, 1, False)])
def test_window_matches_index_arithmetic(size, shift, stride, drop):
    n = 23
    got = [list(map(int, w.as_numpy_iterator()))
           for w in Dataset.range(n).window(size, shift, stride, drop)]
    step = size if shift is None else shift
    want = []
    for start in range(0, n, step):
        w = list(range(start, n, stride))[:size]
        if drop and len(w) < size:
            break
        want.append(w)
    assert got == want
    assert int(Dataset.range(n).window(size, shift, stride, drop).cardinality()) == len(want)


def test_window_tuple_elements_and_guide_flat_map():
    ds = Dataset.zip((Dataset.range(6), Dataset.range(6).map(lambda x: x * 10)))
    a, b = next(iter(ds.window(2)))
    assert [int(v) for v in a] == [0, 1] and [int(v) for v in b] == [0, 10]
    # the guide's make_window_dataset: windows batched back into tensors
    range_ds = Dataset.range(100000)
    batches = range_ds.window(10, shift=5, stride=3).flat_map(
        lambda sub: sub.batch(10, drop_remainder=True))
    out = [b.numpy() for b in batches.take(3)]
    for k, b in enumerate(out):
        np.testing.assert_array_equal(b, np.arange(10) * 3 + 5 * k)
    flat = [int(x) for x in range_ds.window(5, shift=1).flat_map(lambda x: x).take(7)]
    assert flat == [0, 1, 2, 3, 4, 1, 2]


def test_flat_map_and_interleave():
    ds = Dataset.range(1, 4).flat_map(lambda x: Dataset.from_tensors(x).repeat(x))
    assert [int(v) for v in ds] == [1, 2, 2, 3, 3, 3]
    with pytest.raises(TypeError, match="must return a Dataset"):
        list(Dataset.range(2).flat_map(lambda x: x))
    # the order TensorFlow's documentation gives for this interleave
    il = Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(6),
                                       cycle_length=2, block_length=4)
    assert [int(v) for v in il] == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4,
                                    4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5]
    uneven = Dataset.from_tensor_slices([3, 1, 2]).interleave(
        lambda n: Dataset.range(tf.cast(n, tf.int64)).map(lambda i: n * 10 + tf.cast(i, tf.int32)),
        cycle_length=2)
    # the slot of the exhausted [10] is refilled only when the cycle comes back to it
    assert [int(v) for v in uneven] == [30, 10, 31, 32, 20, 21]


def test_interleave_text_files_as_the_guide(tmp_path):
    paths = []
    for name in "abc":
        p = tmp_path / ("%s.txt" % name)
        p.write_text("".join("%s%d\n" % (name, i) for i in range(3)))
        paths.append(str(p))
    lines = Dataset.from_tensor_slices(paths).interleave(tf.data.TextLineDataset, cycle_length=3)
    assert [line.numpy() for line in lines] == [b"a0", b"b0", b"c0", b"a1", b"b1", b"c1",
                                                b"a2", b"b2", b"c2"]


def test_counter_and_enumerate_zip_over_text_lines(tmp_path):
    c = tf.data.experimental.Counter(start=5, step=2)
    assert [int(v) for v in c.take(3)] == [5, 7, 9]
    assert int(c.cardinality()) == tf.data.INFINITE_CARDINALITY
    assert Dataset.counter(dtype=tf.int32).element_spec == TensorSpec([], tf.int32)
    # the guide's zip((counter, lines)).shuffle(...).batch(...) unpacks into (n, lines)
    p = tmp_path / "lines.txt"
    p.write_text("".join("line %d\n" % i for i in range(30)))
    ds = Dataset.zip((tf.data.experimental.Counter(), tf.data.TextLineDataset(str(p))))
    n, line_batch = next(iter(ds.shuffle(buffer_size=10, seed=3).batch(20)))
    assert n.shape == (20,) and line_batch.shape == (20,)
    for i, line in zip(n.numpy(), line_batch.numpy()):
        assert line == b"line %d" % i


def test_list_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text("x")
    pattern = str(tmp_path / "*.txt")
    ordered = [f.numpy() for f in Dataset.list_files(pattern, shuffle=False)]
    assert ordered == [str(tmp_path / "a.txt").encode(), str(tmp_path / "b.txt").encode()]
    shuffled = Dataset.list_files([pattern, str(tmp_path / "*.csv")], seed=4)
    assert sorted(f.numpy() for f in shuffled) == sorted(ordered + [
        str(tmp_path / "c.csv").encode()])
    assert shuffled.element_spec == TensorSpec([], tf.string)
    with pytest.raises(InvalidArgumentError, match="no files matched pattern"):
        Dataset.list_files(str(tmp_path / "*.png"))


def test_spec_value_types():
    sparse = Dataset.from_tensors(tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2],
                                                  dense_shape=[3, 4]))
    assert sparse.element_spec.value_type is tf.SparseTensor
    assert tf.RaggedTensorSpec([None, None], tf.int32).value_type is tf.RaggedTensor
    assert tf.TensorSpec([2]).value_type is tf.Tensor
    assert DatasetSpec(TensorSpec([], tf.int64)).value_type is Dataset


# -- checkpoints --------------------------------------------------------------------------
def _values(e):
    if isinstance(e, Dataset):
        return [_values(x) for x in e]
    return tf.nest.map_structure(lambda t: t.numpy().tolist(), e)


@pytest.mark.parametrize("make", [
    lambda: _filled(30).padded_batch(4),
    lambda: Dataset.range(40).shuffle(10, seed=2).map(lambda x: tf.fill([x % 5], x))
    .padded_batch(3, padded_shapes=[6], drop_remainder=True),
    lambda: Dataset.range(50).window(4, shift=3),
    lambda: Dataset.range(50).window(5, 2, 2).flat_map(lambda w: w.batch(5)),
    lambda: Dataset.range(4).interleave(lambda x: Dataset.range(x * 10, x * 10 + 5),
                                        cycle_length=3, block_length=2),
], ids=["padded", "shuffle-padded", "window", "window-flat_map", "interleave"])
def test_checkpoint_restores_position(tmp_path, make):
    it = iter(make())
    [next(it) for _ in range(3)]
    ckpt = tf.train.Checkpoint(iterator=it)
    path = ckpt.save(str(tmp_path / "ckpt"))
    after = [_values(next(it)) for _ in range(3)]
    next(it)
    ckpt.restore(path).assert_consumed()
    assert [_values(next(it)) for _ in range(3)] == after
