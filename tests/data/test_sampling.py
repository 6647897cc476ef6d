"""sample_from_datasets, choose_from_datasets and rejection_resample (also as the
tf.data.experimental functions): proportions, exhaustion rules, seeds, errors, and
checkpointed iterators over them."""
import numpy as np
import pytest

import fasteager as tf
from fasteager.data import Dataset
from fasteager.errors import InvalidArgumentError


def _ints(ds):
    return [int(v) for v in ds]


def test_sample_from_datasets_follows_weights():
    a, b = Dataset.range(0, 1).repeat(), Dataset.range(1, 2).repeat()
    picks = _ints(Dataset.sample_from_datasets([a, b], [0.8, 0.2], seed=5).take(4000))
    share = np.mean(picks)
    assert 0.17 < share < 0.23          # 0.2 within ~5 standard deviations
    uniform = _ints(Dataset.sample_from_datasets([a, b], seed=5).take(4000))
    assert 0.45 < np.mean(uniform) < 0.55
    assert int(Dataset.sample_from_datasets([a, b]).cardinality()) == tf.data.INFINITE_CARDINALITY


def test_sample_from_datasets_exhaustion_and_seeds():
    a, b = Dataset.range(5), Dataset.range(100, 103)
    mixed = Dataset.sample_from_datasets([a, b], [0.5, 0.5], seed=3)
    out = _ints(mixed)
    assert sorted(out) == [0, 1, 2, 3, 4, 100, 101, 102]      # every element, once
    assert [x for x in out if x < 100] == [0, 1, 2, 3, 4]      # each input keeps its order
    assert _ints(mixed) == out                                  # same draws every iteration
    assert _ints(Dataset.sample_from_datasets([a, b], [0.5, 0.5], seed=3)) == out
    assert int(mixed.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    long = Dataset.range(50)
    full = _ints(Dataset.sample_from_datasets([long, b], [0.5, 0.5], seed=3))
    stopped = _ints(Dataset.sample_from_datasets([long, b], [0.5, 0.5], seed=3,
                                                 stop_on_empty_dataset=True))
    # ends at the first draw of the exhausted b: after its 3 elements, before range(50)'s end
    assert len(full) == 53 and len(stopped) < 53 and stopped == full[:len(stopped)]
    assert [x for x in stopped if x >= 100] == [100, 101, 102]
    rerandomized = Dataset.sample_from_datasets([a.repeat(), b.repeat()], seed=3,
                                                rerandomize_each_iteration=True).take(30)
    assert _ints(rerandomized) != _ints(rerandomized)
    # zero weight: never drawn
    assert set(_ints(Dataset.sample_from_datasets([a, b], [1.0, 0.0], seed=1))) == set(range(5))


def test_sample_from_datasets_weights_dataset_and_experimental_alias():
    a, b = Dataset.range(0, 1).repeat(), Dataset.range(1, 2).repeat()
    weights = Dataset.from_tensor_slices(tf.constant([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 3))
    assert _ints(Dataset.sample_from_datasets([a, b], weights, seed=0)) == [0, 0, 0, 1, 1, 1]
    alias = tf.data.experimental.sample_from_datasets([Dataset.range(3)], seed=2)
    assert _ints(alias) == [0, 1, 2]


def test_sample_from_datasets_errors():
    a = Dataset.range(3)
    with pytest.raises(ValueError, match="one weight per dataset"):
        Dataset.sample_from_datasets([a, a], [1.0])
    with pytest.raises(TypeError, match="non-empty list of datasets"):
        Dataset.sample_from_datasets([])
    with pytest.raises(TypeError, match="incompatible dataset elements"):
        Dataset.sample_from_datasets([a, a.map(lambda x: tf.cast(x, tf.float32))])
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        Dataset.sample_from_datasets([a, a], [-1.0, 2.0])


def test_choose_from_datasets():
    datasets = [Dataset.from_tensors(tf.constant("foo")).repeat(),
                Dataset.from_tensors(tf.constant("bar")).repeat(),
                Dataset.from_tensors(tf.constant("baz")).repeat()]
    choice = Dataset.range(3).repeat(3)
    out = [v.numpy() for v in Dataset.choose_from_datasets(datasets, choice)]
    assert out == [b"foo", b"bar", b"baz"] * 3
    short = [Dataset.range(2), Dataset.range(10, 15)]
    picks = Dataset.from_tensor_slices(tf.constant([0, 0, 0, 1, 1], tf.int64))
    assert _ints(Dataset.choose_from_datasets(short, picks)) == [0, 1]     # stops when empty
    assert _ints(tf.data.experimental.choose_from_datasets(short, picks)) == [0, 1, 10, 11]
    with pytest.raises(TypeError, match="int64 scalars"):
        Dataset.choose_from_datasets(short, Dataset.range(2).map(lambda x: tf.cast(x, tf.int32)))
    with pytest.raises(InvalidArgumentError, match="out of range"):
        list(Dataset.choose_from_datasets(short, Dataset.range(5)))


def _labelled(n_neg, n_pos):
    labels = np.array([0] * n_neg + [1] * n_pos, np.int32)
    np.random.default_rng(0).shuffle(labels)
    features = np.arange(labels.size, dtype=np.float32)
    return Dataset.from_tensor_slices((features, labels)), features, labels


@pytest.mark.parametrize("initial", [[0.95, 0.05], None], ids=["known", "estimated"])
def test_rejection_resample_balances_classes(initial):
    ds, _, labels = _labelled(9500, 500)
    resampled = ds.rejection_resample(lambda f, label: label, target_dist=[0.5, 0.5],
                                      initial_dist=initial, seed=7)
    seen = []
    for cls, (f, label) in resampled:
        assert int(cls) == int(label) == labels[int(f.numpy())]
        seen.append(int(label))
    assert 0.4 < np.mean(seen) < 0.6
    assert sum(seen) > 400      # most of the rare class is kept
    batched = tf.data.experimental.rejection_resample(
        lambda f, label: label, [0.5, 0.5], [0.95, 0.05], seed=7)(ds).batch(10)
    extra, (_, label) = next(iter(batched))
    assert extra.shape == label.shape == (10,)


def test_rejection_resample_errors():
    ds, _, _ = _labelled(10, 10)
    with pytest.raises(InvalidArgumentError, match="summing to 1"):
        ds.rejection_resample(lambda f, label: label, [0.5, 0.6])
    with pytest.raises(InvalidArgumentError, match="out of range"):
        list(ds.rejection_resample(lambda f, label: label + 1, [0.5, 0.5], [0.5, 0.5]))
    with pytest.raises(InvalidArgumentError, match="integer scalar"):
        list(ds.rejection_resample(lambda f, label: f, [0.5, 0.5], [0.5, 0.5]))


@pytest.mark.parametrize("make", [
    lambda: Dataset.sample_from_datasets([Dataset.range(30), Dataset.range(100, 130)]),
    lambda: Dataset.sample_from_datasets(
        [Dataset.range(20).shuffle(5), Dataset.range(50, 60)], [0.3, 0.7], seed=1).batch(2),
    lambda: Dataset.choose_from_datasets([Dataset.range(10), Dataset.range(20, 30)],
                                         Dataset.range(2).repeat(8)),
    lambda: _labelled(60, 20)[0].rejection_resample(lambda f, label: label, [0.5, 0.5]),
], ids=["sample", "sample-shuffle-batch", "choose", "rejection"])
def test_checkpoint_restores_position(tmp_path, make):
    it = iter(make())
    [next(it) for _ in range(3)]
    ckpt = tf.train.Checkpoint(iterator=it)
    path = ckpt.save(str(tmp_path / "ckpt"))
    def values(e):
        return [t.numpy().tolist() for t in tf.nest.flatten(e)]
    after = [values(next(it)) for _ in range(4)]
    next(it)
    ckpt.restore(path).assert_consumed()
    assert [values(next(it)) for _ in range(4)] == after
