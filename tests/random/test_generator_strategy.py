"""fe.random.Generator with fe.distribute.MirroredStrategy (TensorFlow's random numbers
guide, "Interacting with distribution strategies" and "Saving and restoring"): which
replicas get equal or different numbers, and how the state advances and restores."""
import os

import numpy as np

import fasteager as fe


def _strategy(n=2):
    return fe.distribute.MirroredStrategy(devices=["cpu:%d" % i for i in range(n)])


def _values(per_replica):
    return [float(v.numpy()) for v in per_replica.values]


def test_generator_made_outside_a_scope_serializes_the_replicas_draws():
    g = fe.random.Generator.from_seed(1)
    s = _strategy()
    with s.scope():
        out = s.run(lambda: g.normal([]))
    reference = fe.random.Generator.from_seed(1)
    expected = sorted(float(reference.normal([]).numpy()) for _ in range(2))
    assert sorted(_values(out)) == expected   # each replica took the next draw
    np.testing.assert_array_equal(g.state.numpy(), reference.state.numpy())


def test_generator_made_in_a_scope_gives_each_replica_its_own_stream():
    s = _strategy()
    with s.scope():
        g = fe.random.Generator.from_seed(1)
        first = _values(s.run(lambda: g.normal([])))
        second = _values(s.run(lambda: g.normal([])))
    assert first[0] != first[1] and second[0] != second[1]
    assert first != second
    plain = fe.random.Generator.from_seed(1)
    assert float(plain.normal([]).numpy()) not in first   # not the stream outside a strategy
    # a deterministic function of the seed and the replica id
    s2 = _strategy()
    with s2.scope():
        g2 = fe.random.Generator.from_seed(1)
        assert _values(s2.run(lambda: g2.normal([]))) == first
    # every replica advanced the state as one draw does: g.state is every replica's state
    reference = fe.random.Generator.from_seed(1)
    reference.normal([])
    reference.normal([])
    np.testing.assert_array_equal(g.state.numpy(), reference.state.numpy())


def test_generator_made_inside_run_is_local_to_its_replica():
    s = _strategy()

    def f():
        g = fe.random.Generator.from_seed(1)
        return fe.stack([g.normal([]), g.normal([])])

    with s.scope():
        a = s.run(f)
        b = s.run(f)
    for x, y in zip(a.values, b.values):
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    assert not np.array_equal(a.values[0].numpy(), a.values[1].numpy())
    # the same streams as a generator of the same seed made in the scope
    with s.scope():
        g = fe.random.Generator.from_seed(1)
        firsts = s.run(lambda: g.normal([]))
    assert _values(firsts) == [float(v.numpy()[0]) for v in a.values]


def test_checkpoint_restores_every_replica_stream(tmp_path):
    path = os.path.join(str(tmp_path), "ckpt")
    s = _strategy()
    with s.scope():
        g = fe.random.Generator.from_seed(1)
        cp = fe.train.Checkpoint(my_generator=g)
        s.run(lambda: g.normal([]))
        cp.write(path)
        after_save = [_values(s.run(lambda: g.normal([]))) for _ in range(2)]
        cp.restore(path)
        after_restore = [_values(s.run(lambda: g.normal([]))) for _ in range(2)]
    assert after_restore == after_save

    # restored into a strategy with more replicas: the first two continue their streams
    s3 = _strategy(3)
    with s3.scope():
        g3 = fe.random.Generator.from_seed(1)
        fe.train.Checkpoint(my_generator=g3).restore(path)
        three = [_values(s3.run(lambda: g3.normal([]))) for _ in range(2)]
    assert [t[:2] for t in three] == after_save
    assert all(t[2] not in t[:2] for t in three)


class _Module(fe.Module):
    def __init__(self):
        super().__init__()
        self.g = fe.random.Generator.from_seed(0)

    @fe.function
    def __call__(self):
        return self.g.normal([])

    @fe.function
    def state(self):
        return self.g.state


def test_draws_in_a_function_are_graph_steps_that_save_and_load(tmp_path, recwarn):
    m = _Module()
    reference = fe.random.Generator.from_seed(0)
    for _ in range(3):   # the trace, then two replays: the stream an eager generator gives
        assert float(m().numpy()) == float(reference.normal([]).numpy())
    np.testing.assert_array_equal(m.state().numpy(), reference.state.numpy())
    assert not [w for w in recwarn if "runs eagerly" in str(w.message)]
    path = os.path.join(str(tmp_path), "saved_model")
    fe.saved_model.save(m, path)
    expected = [float(reference.normal([]).numpy()) for _ in range(2)]
    loaded = fe.saved_model.load(path)
    np.testing.assert_array_equal(loaded.state().numpy(), m.state().numpy())
    assert [float(loaded().numpy()) for _ in range(2)] == expected
    np.testing.assert_array_equal(loaded.state().numpy(), reference.state.numpy())


def test_saved_module_made_under_a_strategy(tmp_path):
    s = _strategy()
    with s.scope():
        m = _Module()
        first = _values(s.run(m))
        m.state()                            # traced before saving, as the guide does
        path = os.path.join(str(tmp_path), "saved_model")
        fe.saved_model.save(m, path)
        second = _values(s.run(m))
    # the traced draw gives each replica the stream an eager draw gives it
    with s.scope():
        g = fe.random.Generator.from_seed(0)
        assert _values(s.run(lambda: g.normal([]))) == first
        assert _values(s.run(lambda: g.normal([]))) == second
    loaded = fe.saved_model.load(path)       # outside any strategy: the plain stream
    reference = fe.random.Generator.from_seed(0)
    reference.normal([])
    np.testing.assert_array_equal(loaded.state().numpy(), reference.state.numpy())
    assert float(loaded().numpy()) == float(reference.normal([]).numpy())


def test_module_with_functions_under_a_strategy():
    class MyModule(fe.Module):
        def __init__(self):
            super().__init__()
            self.g = fe.random.Generator.from_seed(0)

        @fe.function
        def __call__(self):
            return self.g.normal([])

        @fe.function
        def state(self):
            return self.g.state

    s = _strategy()
    with s.scope():
        m = MyModule()
        out = s.run(m)
        state = m.state().numpy()
    values = _values(out)
    assert values[0] != values[1]
    reference = fe.random.Generator.from_seed(0)
    reference.normal([])
    np.testing.assert_array_equal(state, reference.state.numpy())
