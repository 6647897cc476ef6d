"""Checkpoint(iterator=iter(dataset)): the position (and shuffle order) of a tf.data
iterator is saved and restored, also with CheckpointManager; map functions do not run
again for the elements before the position."""
import numpy as np
import pytest

import fasteager as tf


def _take(it, n):
    return [tf.nest.map_structure(lambda t: t.numpy(), next(it)) for _ in range(n)]


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(tf.nest.flatten(x), tf.nest.flatten(y)):
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("make", [
    lambda: tf.data.Dataset.range(20),
    lambda: tf.data.Dataset.from_tensor_slices(np.arange(30.0)).shuffle(8).batch(4),
    lambda: tf.data.Dataset.from_tensor_slices((np.arange(12), np.arange(12) * 2))
    .repeat(3).shuffle(5).batch(5, drop_remainder=True),
    lambda: tf.data.Dataset.range(40).shuffle(10).map(lambda x: x * 3).batch(3).prefetch(2),
    lambda: tf.data.Dataset.range(50).filter(lambda x: x % 3 == 0).enumerate().skip(2).take(9),
    lambda: tf.data.Dataset.zip((tf.data.Dataset.range(9), tf.data.Dataset.range(9).map(
        lambda x: -x))),
], ids=["range", "slices-shuffle-batch", "repeat-shuffle-batch", "shuffle-map-batch-prefetch",
        "filter-enumerate-skip-take", "zip"])
def test_restore_continues_where_saved(tmp_path, make):
    it = iter(make())
    _take(it, 2)
    ckpt = tf.train.Checkpoint(iterator=it)
    path = ckpt.save(str(tmp_path / "ckpt"))
    after = _take(it, 3)
    _take(it, 1)
    ckpt.restore(path).assert_consumed()
    _same(_take(it, 3), after)


def test_guide_manager_with_iterator(tmp_path):
    # the checkpoint guide's training loop, shortened: model, optimizer and iterator
    column = np.arange(10, dtype=np.float32)[:, None]
    toy = tf.data.Dataset.from_tensor_slices({"x": column, "y": column})
    dataset = toy.repeat().batch(2)
    iterator = iter(dataset)
    net = tf.keras.layers.Dense(1)
    opt = tf.keras.optimizers.Adam(0.1)
    ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net, iterator=iterator)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "tf_ckpts"), max_to_keep=3)
    for _ in range(5):
        example = next(iterator)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.abs(net(example["x"]) - example["y"]))
        grads = tape.gradient(loss, net.trainable_variables)
        opt.apply_gradients(zip(grads, net.trainable_variables))
        ckpt.step.assign_add(1)
        manager.save()
    expected = [next(iterator)["x"].numpy() for _ in range(2)]
    iterator2 = iter(dataset)
    net2 = tf.keras.layers.Dense(1)
    ckpt2 = tf.train.Checkpoint(step=tf.Variable(1), optimizer=tf.keras.optimizers.Adam(0.1),
                                net=net2, iterator=iterator2)
    ckpt2.restore(tf.train.CheckpointManager(ckpt2, str(tmp_path / "tf_ckpts"), 3)
                  .latest_checkpoint)
    assert int(ckpt2.step) == 6
    _same([next(iterator2)["x"].numpy() for _ in range(2)], expected)


def test_map_functions_do_not_rerun_for_skipped_elements(tmp_path):
    calls = []

    def traced(x):
        calls.append(1)
        return x + 1
    ds = tf.data.Dataset.from_tensor_slices(np.arange(100)).map(traced).batch(10)
    it = iter(ds)
    _take(it, 5)
    path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "i"))
    it2 = iter(ds)
    before = len(calls)
    tf.train.Checkpoint(iterator=it2).restore(path)
    first = next(it2).numpy()
    np.testing.assert_array_equal(first, np.arange(50, 60) + 1)
    assert len(calls) - before == 10          # only the batch returned after the position


def test_unseeded_shuffle_order_comes_back_in_a_new_iterator(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices(np.arange(50)).shuffle(50)
    it = iter(ds)
    _take(it, 7)
    path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "s"))
    rest = _take(it, 10)
    fresh = iter(ds)                           # another epoch: another order...
    tf.train.Checkpoint(iterator=fresh).restore(path)
    _same(_take(fresh, 10), rest)              # ...until restored


def test_mismatched_pipeline_raises_and_changes_nothing(tmp_path):
    it = iter(tf.data.Dataset.range(10).shuffle(4))
    _take(it, 3)
    path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "m"))
    other = iter(tf.data.Dataset.range(10))            # no shuffle: a different state shape
    next(other)
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        tf.train.Checkpoint(iterator=other).restore(path)
    assert int(next(other)) == 1


def test_exhausted_iterator_restores_exhausted(tmp_path):
    it = iter(tf.data.Dataset.range(3))
    _take(it, 3)
    path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "e"))
    it2 = iter(tf.data.Dataset.range(3))
    tf.train.Checkpoint(iterator=it2).restore(path)
    with pytest.raises(StopIteration):
        next(it2)
