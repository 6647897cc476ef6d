"""What ``assign``/``assign_add``/``assign_sub`` return, eagerly and inside fe.function: a
plain variable's TensorFlow 'UnreadVariable' view (read after the write, on every replay),
a Keras weight's new value as a tensor; such functions save and load."""
import numpy as np
import pytest

import fasteager as fe
from fasteager._src.state.variables import _UnreadVariable


def test_eager_assign_returns_an_unread_view():
    v = fe.Variable(1.0)
    r = v.assign(2.0)
    assert type(r) is _UnreadVariable and r.name == "UnreadVariable"
    assert r.numpy() == 2.0 and v.assign(3.0).numpy() == 3.0
    assert repr(v.assign_add(1.0)) == \
        "<fe.Variable 'UnreadVariable' shape=() dtype=float32, numpy=4.0>"
    view = v.assign_sub(1.0)
    v.assign(10.0)
    assert float(view) == 10.0            # the view reads the variable when used
    assert v.assign(0.0, read_value=False) is None


def test_traced_assign_add_returned_reads_each_replay():
    v = fe.Variable(0.0)

    @fe.function
    def step():
        return v.assign_add(1.0)
    got = [step() for _ in range(3)]
    assert all(type(t) is fe.Tensor for t in got)
    assert [float(t) for t in got] == [1.0, 2.0, 3.0]
    assert step.experimental_get_tracing_count() == 1


def test_inside_the_trace_the_result_is_the_same_kind_as_eager():
    v = fe.Variable([1.0, 2.0])
    seen = []

    @fe.function
    def f(x):
        r = v.assign(x)
        seen.append((type(r), r.name, r.shape, r.dtype))
        return v.assign_add(x) * 2.0, r + 0.0, v.assign_sub(x, read_value=False)
    for x in ([1.0, 1.0], [2.0, 3.0], [0.5, 0.0]):
        doubled, after, none = f(fe.constant(x))
        np.testing.assert_allclose(doubled.numpy(), 4 * np.array(x))
        # ``r`` is read after the assign_add that follows it (it is a view, not a value)
        np.testing.assert_allclose(after.numpy(), 2 * np.array(x))
        assert none is None
        np.testing.assert_allclose(v.numpy(), x)
    assert seen == [(_UnreadVariable, "UnreadVariable", fe.TensorShape([2]), fe.float32)]


def test_returned_in_structures_and_chained():
    v = fe.Variable(5, dtype=fe.int64)

    @fe.function
    def f():
        a = v.assign_sub(1)
        return {"a": a, "b": [v.assign_add(10) + 1]}
    out = f()
    assert int(out["a"]) == 14 and int(out["b"][0]) == 15   # both read after both writes
    out = f()
    assert int(out["a"]) == 23 and int(out["b"][0]) == 24


def test_gradient_through_the_value_assign_returns():
    v = fe.Variable(2.0)
    x = fe.constant(3.0)

    @fe.function
    def f(x):
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = v.assign(x * x) * x        # the read of v after the write is not x's
        return y, tape.gradient(y, x)
    y, g = f(x)
    assert float(y) == 27.0 and float(g) == 9.0    # TF: the variable read has no gradient


def test_keras_weights_and_optimizer_state_return_tensors_traced_and_eager():
    opt = fe.keras.optimizers.SGD(0.1)
    metric = fe.keras.metrics.Mean()
    total = metric.variables[0]

    @fe.function
    def f():
        return opt.iterations.assign_add(1), total.assign_add(2.0)
    for n in (1, 2):
        it, t = f()
        assert type(it) is fe.Tensor and type(t) is fe.Tensor
        assert int(it) == n and float(t) == 2.0 * n
    eager = opt.iterations.assign_add(1)
    assert type(eager) is fe.Tensor and int(eager) == 3


def test_wrong_shape_in_a_trace_is_the_eager_error():
    v = fe.Variable([1.0, 2.0])
    f = fe.function(lambda: v.assign([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="Shape mismatch"):
        f()


def test_saved_function_returning_assign_add(tmp_path):
    class Counter(fe.Module):
        def __init__(self):
            super().__init__()
            self.count = fe.Variable(0.0)

        @fe.function(input_signature=[fe.TensorSpec([], fe.float32)])
        def bump(self, by):
            return self.count.assign_add(by)

        @fe.function(input_signature=[])
        def twice(self):
            return self.count.assign(self.count * 2.0) + 1.0
    module = Counter()
    assert float(module.bump(fe.constant(1.0))) == 1.0
    fe.saved_model.save(module, str(tmp_path / "counter"))
    loaded = fe.saved_model.load(str(tmp_path / "counter"))
    got = [float(loaded.bump(fe.constant(2.0))) for _ in range(3)]
    assert got == [3.0, 5.0, 7.0] and float(loaded.count.numpy()) == 7.0
    assert float(loaded.twice()) == 15.0 and float(loaded.count.numpy()) == 14.0
    assert float(module.count.numpy()) == 1.0       # the original is not touched


def test_numpy_of_what_assign_returned_is_not_frozen_by_the_trace():
    v = fe.Variable(0.0)
    f = fe.function(lambda: v.assign_add(1.0).numpy())
    with pytest.warns(UserWarning, match="numpy"):
        first = f()
    # a value read as Python data cannot be replayed: the function runs eagerly, so each
    # call sees its own write (TensorFlow refuses numpy() inside a function)
    assert [float(first), float(f()), float(f())] == [1.0, 2.0, 3.0]
    w = fe.Variable([1.0, 2.0])
    g = fe.function(lambda: np.asarray(w) * 2, quiet_fallback=True)
    np.testing.assert_array_equal(g(), [2.0, 4.0])
    w.assign([3.0, 4.0])
    np.testing.assert_array_equal(g(), [6.0, 8.0])
