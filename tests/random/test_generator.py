"""fe.random.Generator, the global generator and stateless ops: determinism, dtypes,
loose statistics over many seeded draws, checkpoints, fe.function; the random_numbers
guide's programs."""
import numpy as np
import pytest

import fasteager as tf

N = 200_000


def test_guide_generator_basics():
    g1 = tf.random.Generator.from_seed(1)
    a = g1.normal(shape=[2, 3])
    assert a.shape == (2, 3) and a.dtype == tf.float32
    g2 = tf.random.get_global_generator()
    assert g2.normal(shape=[2, 3]).shape == (2, 3)
    assert tf.random.get_global_generator() is g2
    g1 = tf.random.Generator.from_seed(1, alg='philox')
    np.testing.assert_array_equal(g1.normal(shape=[2, 3]).numpy(), a.numpy())
    g = tf.random.Generator.from_non_deterministic_state()
    assert g.normal(shape=[2, 3]).shape == (2, 3)


def test_reset_from_seed_repeats_and_draws_advance():
    g = tf.random.Generator.from_seed(1)
    x, y = float(g.normal([])), float(g.normal([]))
    assert x != y
    g.reset_from_seed(1)
    assert float(g.normal([])) == x
    state = g.state.numpy()
    z = g.uniform([5]).numpy()
    g.reset(state)
    np.testing.assert_array_equal(g.uniform([5]).numpy(), z)
    assert g.state.dtype == tf.int64 and g.state.shape == (3,)


def test_split_gives_independent_streams_and_advances_parent():
    g = tf.random.Generator.from_seed(1)
    before = g.state.numpy().copy()
    new_gs = g.split(3)
    assert len(new_gs) == 3 and not np.array_equal(g.state.numpy(), before)
    draws = [ng.normal([1000]).numpy() for ng in new_gs]
    for i in range(3):
        for j in range(i + 1, 3):
            assert abs(np.corrcoef(draws[i], draws[j])[0, 1]) < 0.15
    # splitting is deterministic given the parent's state
    np.testing.assert_array_equal(tf.random.Generator.from_seed(1).split(3)[1].normal([4]).numpy(),
                                  tf.random.Generator.from_seed(1).split(3)[1].normal([4]).numpy())


def test_set_global_generator():
    old = tf.random.get_global_generator()
    try:
        g = tf.random.Generator.from_seed(7)
        tf.random.set_global_generator(g)
        assert tf.random.get_global_generator() is g
        assert tf.random.experimental.get_global_generator() is g
        with pytest.raises(TypeError):
            tf.random.set_global_generator(3)
    finally:
        tf.random.set_global_generator(old)


def test_statistics_and_dtypes():
    g = tf.random.Generator.from_seed(123)
    x = g.normal([N], mean=2.0, stddev=3.0).numpy()
    assert abs(x.mean() - 2.0) < 0.05 and abs(x.std() - 3.0) < 0.05
    assert g.normal([2], dtype=tf.float64).dtype == tf.float64
    assert g.normal([2], dtype=tf.float16).dtype == tf.float16
    u = g.uniform([N], minval=-1.0, maxval=3.0).numpy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.03
    t = g.truncated_normal([N], mean=1.0, stddev=2.0).numpy()
    assert t.min() >= 1.0 - 4.0 and t.max() <= 1.0 + 4.0
    assert abs(t.mean() - 1.0) < 0.05 and 1.65 < t.std() < 1.85   # 0.88 * stddev
    i = g.uniform([N], minval=3, maxval=9, dtype=tf.int32)
    assert i.dtype == tf.int32
    counts = np.bincount(i.numpy())
    assert set(np.nonzero(counts)[0]) == set(range(3, 9))
    assert counts[3:].min() > N / 6 * 0.9
    full = g.uniform([1000], minval=None, maxval=None, dtype=tf.int64).numpy()
    assert full.dtype == np.int64 and (full < 0).any() and (full > 0).any()
    assert g.uniform_full_int([3]).dtype == tf.uint64
    b = g.binomial([N], counts=10, probs=0.3).numpy()
    assert b.dtype == np.int32 and b.min() >= 0 and b.max() <= 10 and abs(b.mean() - 3) < 0.05
    with pytest.raises(tf.errors.InvalidArgumentError, match="maxval"):
        g.uniform([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="floating"):
        g.normal([2], dtype=tf.int32)


def test_make_seeds_feed_stateless_ops():
    g = tf.random.Generator.from_seed(5)
    seeds = g.make_seeds(4)
    assert seeds.shape == (2, 4) and seeds.dtype == tf.int64
    a = tf.random.stateless_normal([3], seed=seeds[:, 0])
    b = tf.random.stateless_normal([3], seed=seeds[:, 0])
    c = tf.random.stateless_normal([3], seed=seeds[:, 1])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


def test_guide_checkpoint_repeats_stream(tmp_path):
    filename = str(tmp_path / "checkpoint")
    g = tf.random.Generator.from_seed(1)
    cp = tf.train.Checkpoint(generator=g)
    g.normal([])
    cp.write(filename)
    after_save = [float(g.normal([])), float(g.normal([]))]
    cp.restore(filename)
    assert [float(g.normal([])), float(g.normal([]))] == after_save
    names = [n for n, _ in tf.train.list_variables(filename)]
    assert "generator/_state_var/.ATTRIBUTES/VARIABLE_VALUE" in names
    # into a fresh generator of another seed
    other = tf.random.Generator.from_seed(99)
    tf.train.Checkpoint(generator=other).restore(filename).assert_consumed()
    assert [float(other.normal([])), float(other.normal([]))] == after_save


def test_in_function_draws_fresh_values_each_call():
    g = tf.random.Generator.from_seed(1)

    @tf.function(quiet_fallback=True)
    def foo():
        return g.normal([])
    a, b = float(foo()), float(foo())
    assert a != b
    ref = tf.random.Generator.from_seed(1)
    assert [a, b] == [float(ref.normal([])), float(ref.normal([]))]


def test_generator_created_on_first_call_of_function():
    holder = {}

    @tf.function(quiet_fallback=True)
    def foo():
        if "g" not in holder:
            holder["g"] = tf.random.Generator.from_seed(1)
        return holder["g"].normal([])
    assert float(foo()) != float(foo())


def test_generator_argument_draws_from_that_generator():
    # (TensorFlow traces once for both; here a function that draws runs eagerly on each
    # call, so its Python body runs each time, but each call uses its own generator)
    @tf.function(quiet_fallback=True)
    def foo(g):
        return g.normal([])
    a = float(foo(tf.random.Generator.from_seed(1)))
    b = float(foo(tf.random.Generator.from_seed(2)))
    assert a == float(tf.random.Generator.from_seed(1).normal([]))
    assert b == float(tf.random.Generator.from_seed(2).normal([]))


def test_bad_arguments():
    with pytest.raises(tf.errors.InvalidArgumentError, match="algorithm"):
        tf.random.Generator.from_seed(1, alg="mt19937")
    with pytest.raises(tf.errors.InvalidArgumentError, match="state"):
        tf.random.Generator.from_state([1, 2], alg="philox")
    with pytest.raises(tf.errors.InvalidArgumentError, match="seed"):
        tf.random.Generator.from_seed(1.5)
    g = tf.random.Generator.from_key_counter(key=[7], counter=[0, 0], alg="philox")
    h = tf.random.Generator.from_key_counter(key=[7], counter=[0, 0], alg="philox")
    np.testing.assert_array_equal(g.normal([3]).numpy(), h.normal([3]).numpy())
    g.skip(10)
    assert not np.array_equal(g.state.numpy(), h.state.numpy())
