"""``next(iterator)`` inside fe.function happens at its place among the call's effects, as
in TensorFlow: a pull after a variable write, a print or a py_function call is a step of
the graph there (the pipeline sees the write; side effects interleave in program order;
at the end of the data the earlier effects have run). A pull before every effect is taken
before the call runs, which keeps a last smaller batch working."""
import numpy as np
import pytest

import fasteager as fe


def _logged_dataset(log, n):
    def note(x):
        log.append(("pull", int(x)))
        return x
    return fe.data.Dataset.range(n).map(lambda x: fe.py_function(note, [x], fe.int64))


def _mark(log, what):
    def record():
        log.append(what)
        return 0
    fe.py_function(record, [], fe.int32)


def test_side_effects_interleave_in_program_order():
    log = []
    it = iter(_logged_dataset(log, 3))

    @fe.function
    def f():
        _mark(log, "before")
        x = next(it)
        _mark(log, "after")
        return x * 2
    assert [int(f()) for _ in range(3)] == [0, 2, 4]
    assert log == ["before", ("pull", 0), "after", "before", ("pull", 1), "after",
                   "before", ("pull", 2), "after"]
    assert f.experimental_get_tracing_count() == 1


def test_the_pipeline_sees_a_write_made_before_next():
    v = fe.Variable(0, dtype=fe.int64)
    it = iter(fe.data.Dataset.range(5).map(lambda x: x + v))

    @fe.function
    def f():
        v.assign_add(100)
        return next(it)
    # eagerly: 100 + 0, then 200 + 1, 300 + 2
    assert [int(f()) for _ in range(3)] == [100, 201, 302]
    assert int(v.numpy()) == 300


def test_a_pull_before_the_effects_is_unchanged():
    v = fe.Variable(0, dtype=fe.int64)
    it = iter(fe.data.Dataset.range(5).map(lambda x: x + v))

    @fe.function
    def f():
        x = next(it)
        v.assign_add(100)
        return x
    assert [int(f()) for _ in range(3)] == [0, 101, 202]


def test_end_of_data_after_the_effects_before_next():
    steps = fe.Variable(0)
    it = iter(fe.data.Dataset.range(2))

    @fe.function
    def step():
        steps.assign_add(1)
        return next(it)
    assert [int(step()) for _ in range(2)] == [0, 1]
    with pytest.raises(fe.errors.OutOfRangeError, match="End of sequence"):
        step()
    assert int(steps.numpy()) == 3     # TensorFlow runs the write ordered before next()


def test_two_pulls_around_an_effect():
    log = []
    it = iter(_logged_dataset(log, 6))

    @fe.function
    def f():
        a = next(it)                  # taken before the call runs
        _mark(log, "middle")
        b = next(it)                  # a step after the mark
        return a * 10 + b
    assert [int(f()) for _ in range(3)] == [1, 23, 45]
    assert log == [("pull", 0), "middle", ("pull", 1), ("pull", 2), "middle", ("pull", 3),
                   ("pull", 4), "middle", ("pull", 5)]


def test_gradients_through_an_element_pulled_in_place():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    it = iter(fe.data.Dataset.from_tensor_slices(x))
    w = fe.Variable([1.0, -1.0])
    calls = fe.Variable(0)

    @fe.function
    def loss():
        calls.assign_add(1)
        return fe.reduce_sum(w * w * next(it))
    for row in x:
        with fe.GradientTape() as tape:
            value = loss()
        np.testing.assert_allclose(float(value), float(np.sum(row)))
        np.testing.assert_allclose(tape.gradient(value, w).numpy(),
                                   2 * np.array([1.0, -1.0]) * row)
    assert int(calls.numpy()) == 3


def test_an_element_of_another_shape_after_the_effects_is_a_clear_error():
    it = iter(fe.data.Dataset.range(5).batch(2))
    steps = fe.Variable(0)

    @fe.function
    def f():
        steps.assign_add(1)
        return fe.reduce_sum(next(it))
    assert [int(f()) for _ in range(2)] == [1, 5]
    with pytest.raises(fe.errors.InvalidArgumentError, match="drop_remainder"):
        f()
    # the element is given back: the iterator still holds it
    assert next(it).numpy().tolist() == [4]


def test_get_concrete_function_and_a_direct_call():
    it = iter(fe.data.Dataset.range(4))
    v = fe.Variable(0, dtype=fe.int64)

    @fe.function
    def f():
        v.assign_add(1)
        return next(it) + v
    cf = f.get_concrete_function()      # tracing alone leaves the iterator where it was
    assert int(v.numpy()) == 0 and int(cf()) == 1
    assert int(f()) == 3 and int(next(it)) == 2


def test_a_pure_cond_before_next_keeps_the_pull_first():
    # a cond with no effect in its branches is not an effect: a last smaller batch still
    # gets its own trace
    it = iter(fe.data.Dataset.range(5).batch(2))

    @fe.function
    def f(x):
        y = fe.cond(x > 0, lambda: x * 2, lambda: -x)
        return fe.reduce_sum(next(it)) + y
    one = fe.constant(1, fe.int64)
    assert [int(f(one)) for _ in range(3)] == [3, 7, 6]


def test_a_cond_writing_a_variable_before_next_is_an_effect():
    v = fe.Variable(0, dtype=fe.int64)
    it = iter(fe.data.Dataset.range(5).map(lambda x: x + v))

    @fe.function
    def f(x):
        fe.cond(x > 0, lambda: v.assign_add(10), lambda: v.assign_sub(1))
        return next(it)
    one = fe.constant(1, fe.int64)
    assert [int(f(one)) for _ in range(2)] == [10, 21]
    assert int(f(-one)) == 21          # v 19, element 2
