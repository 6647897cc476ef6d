"""Variables passed to an fe.function are traced by dtype and shape (TensorFlow's
VariableSpec): another variable of the same kind reuses the trace, which reads and writes
that variable; a new dtype, shape or aliasing pattern traces again."""
import numpy as np

import fasteager as fe


def test_same_dtype_and_shape_reuse_the_trace():
    traces = []

    @fe.function
    def foo(v):
        traces.append(1)
        return v.read_value()
    a, b = fe.Variable(1), fe.Variable(2)
    assert int(foo(a)) == 1 and int(foo(b)) == 2 and int(foo(a)) == 1
    assert len(traces) == 1
    foo(fe.Variable([1, 2]))
    foo(fe.Variable(1.0))
    assert len(traces) == 3 and foo.experimental_get_tracing_count() == 3


def test_writes_go_to_the_variable_passed():
    traces = []

    @fe.function
    def inc(v, by):
        traces.append(1)
        v.assign_add(by)
        return v.read_value() * 2
    a, b = fe.Variable([1.0, 1.0]), fe.Variable([10.0, 20.0])
    np.testing.assert_array_equal(inc(a, fe.constant([1.0, 2.0])).numpy(), [4.0, 6.0])
    np.testing.assert_array_equal(inc(b, fe.constant([1.0, 2.0])).numpy(), [22.0, 44.0])
    np.testing.assert_array_equal(inc(a, fe.constant([1.0, 1.0])).numpy(), [6.0, 8.0])
    np.testing.assert_array_equal(a.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(b.numpy(), [11.0, 22.0])
    assert len(traces) == 1


def test_aliasing_is_part_of_the_signature():
    traces = []

    @fe.function
    def add(x, y):
        traces.append(1)
        x.assign_add(y.read_value())
        return x.read_value()
    a, b = fe.Variable(1), fe.Variable(2)
    assert int(add(a, b)) == 3
    assert int(add(b, b)) == 4          # the same variable twice: another trace
    assert int(add(b, a)) == 7
    assert (int(a.numpy()), int(b.numpy())) == (3, 7)
    assert len(traces) == 2


def test_gradients_through_a_reused_trace_reach_the_variable_passed():
    f = fe.function(lambda v, x: fe.reduce_sum(v * x))
    x = fe.constant([1.0, 2.0])
    a, b = fe.Variable([3.0, 4.0]), fe.Variable([5.0, 6.0])
    for v in (a, b, a):
        with fe.GradientTape() as tape:
            y = f(v, x)
        assert float(y) == float(np.sum(v.numpy() * [1.0, 2.0]))
        np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [1.0, 2.0])
    assert f.experimental_get_tracing_count() == 1


def test_an_optimizer_update_is_not_reused_for_other_variables():
    # its effect is bound to the variables it updates: another variable traces again
    opt = fe.keras.optimizers.SGD(0.5)
    traces = []

    @fe.function
    def step(v):
        traces.append(1)
        with fe.GradientTape() as tape:
            loss = fe.reduce_sum(v * v)
        opt.apply_gradients([(tape.gradient(loss, v), v)])
        return loss
    a, b = fe.Variable([1.0]), fe.Variable([2.0])
    step(a)
    step(b)
    np.testing.assert_allclose(a.numpy(), [0.0])
    np.testing.assert_allclose(b.numpy(), [0.0])
    assert len(traces) >= 2
