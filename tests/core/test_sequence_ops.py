"""tf.roll, searchsorted, sequence_mask, unique, unravel_index, reverse_sequence,
dynamic_partition/stitch, histograms and space_to_batch/batch_to_space
(fasteager/ops/sequence_ops.py). Expected values were read from TensorFlow 2.21."""
import warnings

import numpy as np
import pytest

import fasteager as fe
from fasteager.errors import InvalidArgumentError
from tests.gradcheck import check_grads


def _np(t):
    return t.numpy().tolist()


def test_roll():
    x = fe.reshape(fe.range(6), (2, 3))
    assert _np(fe.roll(x, shift=[1, -1], axis=[0, 1])) == [[4, 5, 3], [1, 2, 0]]
    assert _np(fe.roll(fe.range(5), shift=[1, 2], axis=[0, 0])) == [2, 3, 4, 0, 1]
    assert _np(fe.roll(fe.range(5), shift=fe.constant(2), axis=0)) == [3, 4, 0, 1, 2]
    with pytest.raises(InvalidArgumentError, match="same size"):
        fe.roll(fe.range(5), shift=[1, 2], axis=[0])
    check_grads(lambda a: fe.roll(a, [1, 2], [0, 1]), [np.arange(6.0).reshape(2, 3)])


def test_searchsorted():
    got = fe.searchsorted([[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]], [[2, 4, 9], [0, 2, 6]])
    assert got.dtype == fe.int32 and _np(got) == [[1, 2, 2], [0, 1, 5]]
    right = fe.searchsorted(fe.constant([1.0, 2.0, 2.0, 3.0]), fe.constant([2.0, 2.5]),
                            side="right", out_type=fe.int64)
    assert right.dtype == fe.int64 and _np(right) == [3, 3]
    with pytest.raises(ValueError, match="side"):
        fe.searchsorted([1, 2, 3], [2], side="middle")
    with pytest.raises(InvalidArgumentError, match="leading dimensions"):
        fe.searchsorted([[1, 2, 3]], [[2], [3]])


def test_sequence_mask():
    assert _np(fe.sequence_mask([1, 3, 2], 5)) == [[True, False, False, False, False],
                                                   [True, True, True, False, False],
                                                   [True, True, False, False, False]]
    m = fe.sequence_mask([[1, 3], [2, 0]])
    assert m.shape == (2, 2, 3) and _np(m)[1] == [[True, True, False], [False, False, False]]
    f = fe.sequence_mask([1, 2], 3, dtype=fe.float32)
    assert f.dtype == fe.float32 and _np(f) == [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]


def test_unique_and_counts():
    y, idx = fe.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])
    assert _np(y) == [1, 2, 4, 7, 8] and _np(idx) == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    assert idx.dtype == fe.int32
    first = fe.unique(fe.constant([3.0, 1.0, 3.0, 2.0]), out_idx=fe.int64)
    assert _np(first.y) == [3.0, 1.0, 2.0] and _np(first.idx) == [0, 1, 0, 2]
    assert first.idx.dtype == fe.int64
    u = fe.unique_with_counts([1, 1, 2, 4, 4, 4, 7, 8, 8])
    assert _np(u.count) == [2, 1, 3, 1, 2] and u.count.dtype == fe.int32
    s = fe.unique(fe.constant(["a", "b", "a"]))
    assert s.y.numpy().tolist() == [b"a", b"b"] and _np(s.idx) == [0, 1, 0]
    with pytest.raises(InvalidArgumentError, match="1-D"):
        fe.unique([[1, 2]])


def test_unique_has_no_gradient_as_in_tensorflow():
    x = fe.constant([1.0, 2.0, 1.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(fe.unique(x).y ** 2)
    with pytest.raises(LookupError, match="Unique"):
        tape.gradient(y, x)


def test_unique_and_unravel_index_replay_inside_function():
    traces = []

    @fe.function
    def f(x):
        traces.append(1)
        u = fe.unique_with_counts(x)
        return u.y, u.idx, u.count, fe.unravel_index(x, [3, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no eager fallback
        for xs in ([1, 1, 5], [8, 0, 2], [4, 4, 4]):       # y's length changes
            y, idx, count, coords = f(fe.constant(xs))
            values = list(dict.fromkeys(xs))
            assert _np(y) == values and _np(idx) == [values.index(v) for v in xs]
            assert _np(count) == [xs.count(v) for v in values]
            assert _np(coords) == np.stack(np.unravel_index(xs, (3, 3))).tolist()
    assert len(traces) == 1


def test_unravel_index():
    got = fe.unravel_index([2, 5, 7], [3, 3])
    assert got.dtype == fe.int32 and _np(got) == [[0, 1, 2], [2, 2, 1]]
    assert _np(fe.unravel_index(5, [3, 3])) == [1, 2]
    wide = fe.unravel_index(fe.constant([5], fe.int64), fe.constant([3, 3], fe.int64))
    assert wide.dtype == fe.int64 and _np(wide) == [[1], [2]]
    with pytest.raises(InvalidArgumentError, match="out of bound"):
        fe.unravel_index([9], [3, 3])


def test_reverse_sequence():
    x = fe.reshape(fe.range(12), (3, 4))
    assert _np(fe.reverse_sequence(x, [1, 4, 2], seq_axis=1, batch_axis=0)) == \
        [[0, 1, 2, 3], [7, 6, 5, 4], [9, 8, 10, 11]]
    y = fe.reshape(fe.range(12), (4, 3))
    assert _np(fe.reverse_sequence(y, [2, 3, 1], seq_axis=0, batch_axis=1)) == \
        [[3, 7, 2], [0, 4, 5], [6, 1, 8], [9, 10, 11]]
    with pytest.raises(InvalidArgumentError, match="seq_lengths"):
        fe.reverse_sequence(x, [1, 5, 2], seq_axis=1)
    with pytest.raises(TypeError):
        fe.reverse_sequence(x, [1, 4, 2])
    check_grads(lambda a: fe.reverse_sequence(a, [2, 0, 3], seq_axis=1, batch_axis=0),
                [np.arange(9.0).reshape(3, 3)])


def test_dynamic_partition_and_stitch():
    parts = fe.dynamic_partition([10, 20, 30, 40, 50], [0, 0, 1, 1, 0], 2)
    assert [_np(p) for p in parts] == [[10, 20, 50], [30, 40]]
    parts = fe.dynamic_partition(fe.reshape(fe.range(6), (3, 2)), [1, 0, 1], 3)
    assert [_np(p) for p in parts] == [[[2, 3]], [[0, 1], [4, 5]], []]
    assert parts[2].shape == (0, 2)
    with pytest.raises(InvalidArgumentError, match=r"partitions\[1\] = 3 is not in \[0, 2\)"):
        fe.dynamic_partition([10, 20], [0, 3], 2)
    merged = fe.dynamic_stitch([[6], [4, 1], [[5, 2], [0, 3]]],
                               [[61.0], [41.0, 11.0], [[51.0, 21.0], [1.0, 31.0]]])
    assert _np(merged) == [1.0, 11.0, 21.0, 31.0, 41.0, 51.0, 61.0]
    assert _np(fe.dynamic_stitch([[0, 1], [1, 3]], [[1, 2], [3, 4]])) == [1, 3, 0, 4]
    check_grads(lambda a: fe.dynamic_partition(a, [1, 0, 1], 2), [[[1.0, 2.0], [3.0, 4.0],
                                                                   [5.0, 6.0]]])
    check_grads(lambda a, b: fe.dynamic_stitch([[0, 2], [2, 1]], [a, b]),
                [[1.0, 2.0], [3.0, 4.0]])


def test_histograms():
    h = fe.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15], [0.0, 5.0], nbins=5)
    assert h.dtype == fe.int32 and _np(h) == [2, 1, 1, 0, 2]
    assert _np(fe.histogram_fixed_width([1, 2, 3, 9], [0, 10], nbins=4)) == [2, 1, 0, 1]
    bins = fe.histogram_fixed_width_bins([[-1.0, 0.0, 1.5], [2.0, 5.0, 15]], [0.0, 5.0],
                                         nbins=5)
    assert _np(bins) == [[0, 0, 1], [2, 4, 4]]
    with pytest.raises(InvalidArgumentError, match="value_range"):
        fe.histogram_fixed_width([1.0], [5.0, 0.0], nbins=5)
    with pytest.raises(InvalidArgumentError, match="nbins"):
        fe.histogram_fixed_width([1.0], [0.0, 5.0], nbins=0)


def test_space_to_batch_and_back():
    x = fe.reshape(fe.range(16.0), (1, 4, 4, 1))
    s = fe.space_to_batch(x, [2, 2], [[0, 0], [0, 0]])
    assert _np(s[..., 0]) == [[[0.0, 2.0], [8.0, 10.0]], [[1.0, 3.0], [9.0, 11.0]],
                              [[4.0, 6.0], [12.0, 14.0]], [[5.0, 7.0], [13.0, 15.0]]]
    assert _np(fe.batch_to_space(s, [2, 2], [[0, 0], [0, 0]])) == _np(x)
    padded = fe.space_to_batch_nd(fe.reshape(fe.range(12.0), (1, 2, 3, 2)), [2, 2],
                                  [[0, 0], [0, 1]])
    assert _np(padded) == [[[[0.0, 1.0], [4.0, 5.0]]], [[[2.0, 3.0], [0.0, 0.0]]],
                           [[[6.0, 7.0], [10.0, 11.0]]], [[[8.0, 9.0], [0.0, 0.0]]]]
    cropped = fe.batch_to_space(fe.reshape(fe.range(16.0), (4, 2, 2, 1)), [2, 2],
                                [[0, 1], [1, 0]])
    assert _np(cropped[..., 0]) == [[[4.0, 1.0, 5.0], [12.0, 9.0, 13.0], [6.0, 3.0, 7.0]]]
    with pytest.raises(InvalidArgumentError, match="not divisible by block_shape"):
        fe.space_to_batch(x, [3, 3], [[0, 0], [0, 0]])
    with pytest.raises(InvalidArgumentError, match="not divisible by the product"):
        fe.batch_to_space(fe.ones((3, 2, 2, 1)), [2, 2], [[0, 0], [0, 0]])
    check_grads(lambda a: fe.space_to_batch_nd(a, [2, 1], [[1, 1], [0, 0]]),
                [np.arange(12.0).reshape(1, 2, 3, 2)])
    check_grads(lambda a: fe.batch_to_space(a, [2], [[1, 0]]),
                [np.arange(8.0).reshape(2, 2, 2)])


def test_parallel_stack():
    assert _np(fe.parallel_stack([fe.constant([1, 2]), fe.constant([3, 4])])) == [[1, 2], [3, 4]]


def test_searchsorted_reverse_sequence_and_sequence_mask_replay_inside_function():
    traces = []

    @fe.function
    def f(x, lens, edges):
        traces.append(1)
        return (fe.reverse_sequence(x, lens, seq_axis=1), fe.sequence_mask(lens, 3),
                fe.searchsorted(edges, x), fe.roll(x, 1, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no eager fallback
        for xs, ls in [([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [2, 3]),
                       ([[6.0, 6.0, 1.0], [4.0, 5.0, 8.0]], [1, 0])]:
            rev, mask, pos, rolled = f(fe.constant(xs), fe.constant(ls),
                                       fe.constant([[0.0, 5.0], [2.0, 6.0]]))
            assert _np(rev) == [list(r[:n][::-1]) + list(r[n:]) for r, n in zip(xs, ls)]
            assert _np(mask) == (np.arange(3)[None] < np.array(ls)[:, None]).tolist()
            assert _np(pos) == [np.searchsorted(e, r).tolist()
                                for e, r in zip([[0.0, 5.0], [2.0, 6.0]], xs)]
            assert _np(rolled) == np.roll(np.array(xs), 1, 1).tolist()
    assert len(traces) == 1


@pytest.mark.filterwarnings("ignore:.*runs eagerly:UserWarning")
def test_sequence_ops_inside_function():
    @fe.function
    def f(x, lens):
        return (fe.roll(x, 1, 0), fe.reverse_sequence(x, lens, seq_axis=1),
                fe.sequence_mask(lens, 3), fe.unique(fe.reshape(x, [-1])).y,
                fe.histogram_fixed_width(x, [0.0, 10.0], nbins=2))
    for xs, ls in [([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [2, 3]),
                   ([[6.0, 6.0, 1.0], [4.0, 5.0, 8.0]], [1, 0])]:
        got = f(fe.constant(xs), fe.constant(ls))     # (the data-dependent ops run eagerly)
        x = np.array(xs)
        want_rev = [list(row[:n][::-1]) + list(row[n:]) for row, n in zip(xs, ls)]
        assert _np(got[0]) == np.roll(x, 1, 0).tolist() and _np(got[1]) == want_rev
        assert _np(got[2]) == (np.arange(3)[None] < np.array(ls)[:, None]).tolist()
        assert _np(got[3]) == list(dict.fromkeys(x.reshape(-1).tolist()))
        assert _np(got[4]) == np.histogram(x, 2, (0.0, 10.0))[0].tolist()


def test_unique_keeps_every_nan_as_its_own_value():
    y, idx = fe.unique(fe.constant([np.nan, 1.0, np.nan, 1.0]))      # TensorFlow 2.21's
    np.testing.assert_array_equal(y.numpy(), [np.nan, 1.0, np.nan])
    assert idx.numpy().tolist() == [0, 1, 2, 1]
