"""next(iterator) and loops over datasets inside fe.function: each call takes the next
elements (the trace does not freeze the first one), the end of the data raises
OutOfRangeError as in TensorFlow, and a last smaller batch gets its own trace."""
import warnings

import numpy as np
import pytest

import fasteager as fe


def test_next_advances_on_every_call():
    it = iter(fe.data.Dataset.range(4))

    @fe.function
    def f():
        return next(it) * 10
    assert [int(f()) for _ in range(4)] == [0, 10, 20, 30]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(fe.errors.OutOfRangeError, match="End of sequence"):
        f()


def test_out_of_range_is_catchable_as_in_a_training_loop():
    it = iter(fe.data.Dataset.range(3))
    total = fe.Variable(0, dtype=fe.int64)

    @fe.function
    def step():
        total.assign_add(next(it))
    steps = 0
    while True:
        try:
            step()
        except fe.errors.OutOfRangeError:
            break
        steps += 1
    assert steps == 3 and int(total.numpy()) == 3


def test_batched_slices_with_a_last_smaller_batch():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.arange(5)
    it = iter(fe.data.Dataset.from_tensor_slices((x, y)).batch(2))

    @fe.function
    def f():
        a, b = next(it)
        return fe.reduce_sum(a, axis=1), b * 2
    got = [f() for _ in range(3)]
    assert [s.numpy().tolist() for s, _ in got] == [[1.0, 5.0], [9.0, 13.0], [17.0]]
    assert [b.numpy().tolist() for _, b in got] == [[0, 2], [4, 6], [8]]
    assert f.experimental_get_tracing_count() == 1     # one signature, as TensorFlow
    with pytest.raises(fe.errors.OutOfRangeError):
        f()


def test_iterator_passed_as_an_argument_and_dict_elements():
    ds = fe.data.Dataset.from_tensor_slices({"a": [1.0, 2.0, 3.0], "b": [4, 5, 6]})
    it = iter(ds)

    @fe.function
    def f(iterator):
        e = next(iterator)
        return e["a"] + fe.cast(e["b"], fe.float32)
    assert [float(f(it)) for _ in range(3)] == [5.0, 7.0, 9.0]


def test_two_pulls_per_call_keep_their_order():
    it = iter(fe.data.Dataset.range(6))

    @fe.function
    def f():
        first = next(it)
        return first * 100 + next(it)
    assert [int(f()) for _ in range(3)] == [1, 203, 405]


def test_gradients_through_pulled_elements():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    it = iter(fe.data.Dataset.from_tensor_slices(x))
    w = fe.Variable([1.0, 1.0])

    @fe.function
    def f():
        with fe.GradientTape() as tape:
            loss = fe.reduce_sum(w * w * next(it))
        return tape.gradient(loss, w)
    for row in x:
        np.testing.assert_allclose(f().numpy(), 2 * row)


def test_tape_outside_the_function_sees_pulled_values():
    it = iter(fe.data.Dataset.from_tensor_slices(np.array([2.0, 3.0, 5.0])))
    f = fe.function(lambda v: v * next(it))
    v = fe.constant(1.0, fe.float64)
    for expected in (2.0, 3.0, 5.0):
        with fe.GradientTape() as tape:
            tape.watch(v)
            y = f(v) * v
        assert float(tape.gradient(y, v)) == 2 * expected


def test_get_concrete_function_does_not_take_an_element():
    it = iter(fe.data.Dataset.range(3))
    f = fe.function(lambda: next(it) + 1)
    cf = f.get_concrete_function()
    assert int(cf()) == 1 and int(f()) == 2 and int(next(it)) == 2


def test_for_loop_over_a_dataset_runs_the_whole_dataset_each_call():
    ds = fe.data.Dataset.range(5).map(lambda v: v * v)

    @fe.function
    def f(scale):
        total = fe.constant(0, fe.int64)
        for v in ds:
            total += v * scale
        return total
    two = fe.constant(2, fe.int64)
    assert int(f(two)) == 60 and int(f(two)) == 60
    assert f.experimental_get_tracing_count() == 1


def test_for_loop_over_a_shuffled_dataset_sees_each_epochs_order():
    ds = fe.data.Dataset.range(6).shuffle(6, seed=1)
    orders = []

    @fe.function
    def f():
        out = []
        for v in ds:
            out.append(v)  # noqa: PERF402 - the loop statement is what is tested
        return fe.stack(out)
    for _ in range(3):
        orders.append(f().numpy().tolist())
    eager = [list(ds.as_numpy_iterator()) for _ in range(3)]
    assert all(sorted(o) == list(range(6)) for o in orders)
    assert len({tuple(o) for o in orders}) > 1       # reshuffled on each call
    assert len({tuple(o) for o in eager}) > 1


def test_loop_length_changes_run_eagerly_and_stay_right():
    n = fe.Variable(3, dtype=fe.int64)   # read by the dataset's filter at iteration time
    ds = fe.data.Dataset.range(6).filter(lambda v: v < n)

    @fe.function
    def f():
        total = fe.constant(0, fe.int64)
        for v in ds:
            total += v
        return total
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # the pipeline runs outside the graph: no fallback
        assert int(f()) == 3
        assert f.get_concrete_function()._eager_only is None
    n.assign(5)
    assert int(f()) == 10                   # the loop ran longer than traced: eagerly
    n.assign(2)
    assert int(f()) == 1


def test_for_loop_over_an_outside_iterator_runs_eagerly():
    ds = fe.data.Dataset.range(4)

    @fe.function
    def f(iterator):
        total = fe.constant(0, fe.int64)
        for v in iterator:
            total += v
        return total
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert int(f(iter(ds))) == 6
        assert int(f(iter(ds))) == 6


def test_concrete_function_call_refuses_an_element_of_another_shape():
    it = iter(fe.data.Dataset.from_tensor_slices(np.ones((3, 2), np.float32)).batch(2))
    f = fe.function(lambda: fe.reduce_sum(next(it)))
    cf = f.get_concrete_function()
    assert float(cf()) == 4.0
    with pytest.raises(fe.errors.InvalidArgumentError, match="does not match the trace"):
        cf()
    assert float(f()) == 2.0                # the element was given back: f retraces


def test_saved_model_refuses_a_function_that_pulls(tmp_path):
    it = iter(fe.data.Dataset.range(3))
    module = fe.Module()
    module.f = fe.function(lambda: next(it) + 1, input_signature=[])
    with pytest.raises(fe.errors.UnimplementedError, match="next\\(\\) on an fe.data iterator"):
        fe.saved_model.save(module, str(tmp_path / "m"))


def test_checkpointed_position_counts_elements_given_back(tmp_path):
    ds = fe.data.Dataset.from_tensor_slices(np.arange(5, dtype=np.float32)).batch(2)
    it = iter(ds)
    f = fe.function(lambda: fe.reduce_sum(next(it)))
    assert float(f()) == 1.0 and float(f()) == 5.0
    ckpt = fe.train.Checkpoint(iterator=it)
    path = ckpt.write(str(tmp_path / "ckpt"))
    assert float(f()) == 4.0        # the last batch (traced again for its shape)
    ckpt.restore(path)
    assert next(it).numpy().tolist() == [4.0]
