"""fe.random.stateless_*: a function of (shape, seed) alone; statistics; gradients through
mean and stddev; fe.function; seed helpers."""
import numpy as np
import pytest

import fasteager as tf

N = 200_000


def test_guide_stateless_normal_repeats():
    a = tf.random.stateless_normal(shape=[2, 3], seed=[1, 2])
    b = tf.random.stateless_normal(shape=[2, 3], seed=[1, 2])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    c = tf.random.stateless_normal(shape=[2, 3], seed=[1, 3])
    assert not np.array_equal(a.numpy(), c.numpy())
    assert a.dtype == tf.float32
    d = tf.random.stateless_normal(shape=[2, 3], seed=tf.constant([1, 2], tf.int64))
    np.testing.assert_array_equal(a.numpy(), d.numpy())


def test_statistics():
    s = [4, 5]
    x = tf.random.stateless_normal([N], s, mean=-1.0, stddev=0.5).numpy()
    assert abs(x.mean() + 1.0) < 0.01 and abs(x.std() - 0.5) < 0.01
    u = tf.random.stateless_uniform([N], s, minval=2.0, maxval=4.0, dtype=tf.float64)
    assert u.dtype == tf.float64
    u = u.numpy()
    assert u.min() >= 2.0 and u.max() < 4.0 and abs(u.mean() - 3.0) < 0.01
    t = tf.random.stateless_truncated_normal([N], s).numpy()
    assert np.abs(t).max() <= 2.0 and 0.85 < t.std() < 0.91
    i = tf.random.stateless_uniform([N], s, minval=0, maxval=5, dtype=tf.int64).numpy()
    assert i.dtype == np.int64 and set(np.unique(i)) == set(range(5))
    full = tf.random.stateless_uniform([100], s, minval=None, maxval=None, dtype=tf.int32)
    assert full.dtype == tf.int32
    with pytest.raises(tf.errors.InvalidArgumentError, match="both minval and maxval"):
        tf.random.stateless_uniform([2], s, maxval=None, dtype=tf.int32)
    logits = tf.math.log([[0.1, 0.2, 0.7]])
    c = tf.random.stateless_categorical(logits, 50_000, s).numpy()
    assert c.dtype == np.int64 and c.shape == (1, 50_000)
    np.testing.assert_allclose(np.bincount(c[0]) / 50_000, [0.1, 0.2, 0.7], atol=0.01)
    b = tf.random.stateless_binomial([N], s, counts=20, probs=0.25).numpy()
    assert abs(b.mean() - 5.0) < 0.05
    p = tf.random.stateless_poisson([N], s, lam=3.0).numpy()
    assert abs(p.mean() - 3.0) < 0.05


def test_seed_helpers():
    seeds = tf.random.experimental.stateless_split([1, 2], num=3)
    # the seed's dtype, as TensorFlow: int32 for a Python list
    assert seeds.shape == (3, 2) and seeds.dtype == tf.int32
    wide = tf.random.experimental.stateless_split(tf.constant([1, 2], tf.int64), num=3)
    assert wide.dtype == tf.int64
    np.testing.assert_array_equal(seeds.numpy(),
                                  tf.random.experimental.stateless_split([1, 2], 3).numpy())
    assert len({tuple(r) for r in seeds.numpy().tolist()}) == 3
    f1 = tf.random.experimental.stateless_fold_in([1, 2], 7)
    f2 = tf.random.experimental.stateless_fold_in([1, 2], 8)
    assert f1.shape == (2,) and not np.array_equal(f1.numpy(), f2.numpy())
    assert f1.numpy()[1] == 7 and f1.dtype == tf.int32   # [a draw, data] in data's dtype
    np.testing.assert_array_equal(f1.numpy(),
                                  tf.random.experimental.stateless_fold_in([1, 2], 7).numpy())


def test_bad_seed():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[2\]"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="integer"):
        tf.random.stateless_normal([2], seed=[1.5, 2.0])


def test_gradient_through_mean_and_stddev():
    mean = tf.Variable([1.0, 2.0])
    stddev = tf.Variable([0.5, 3.0])
    with tf.GradientTape() as tape:
        y = tf.random.stateless_normal([2], seed=[3, 4], mean=mean, stddev=stddev)
        loss = tf.reduce_sum(y)
    gm, gs = tape.gradient(loss, [mean, stddev])
    z = tf.random.stateless_normal([2], seed=[3, 4]).numpy()
    np.testing.assert_allclose(gm.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(gs.numpy(), z, rtol=1e-6)
    np.testing.assert_allclose(y.numpy(), z * stddev.numpy() + mean.numpy(), rtol=1e-6)


def test_in_function_follows_the_seed_argument():
    @tf.function(quiet_fallback=True)
    def f(seed):
        return tf.random.stateless_uniform([3], seed=seed)
    a = f(tf.constant([1, 2]))
    b = f(tf.constant([5, 6]))
    np.testing.assert_array_equal(a.numpy(), tf.random.stateless_uniform([3], [1, 2]).numpy())
    np.testing.assert_array_equal(b.numpy(), tf.random.stateless_uniform([3], [5, 6]).numpy())

    @tf.function
    def g():
        return tf.random.stateless_normal([3], seed=[1, 2])   # a constant seed: replayed
    np.testing.assert_array_equal(g().numpy(), g().numpy())


def test_device_short_names():
    for name in ("cpu", "CPU", "/cpu:0", "/CPU:0", "cpu:0", "/device:CPU:0",
                 "/job:localhost/replica:0/task:0/device:CPU:0"):
        with tf.device(name):
            assert (tf.constant(1.0) + 1.0).numpy() == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot parse"):
        tf.device("tpu:0")
