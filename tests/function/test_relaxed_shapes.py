"""None dimensions (an input_signature's, or reduce_retracing's generalized shape): the
Python function is traced once, as in TensorFlow, when the shadow check shows the trace
computes the same thing at other sizes (src/fasteager/_relax.py); otherwise it is traced
again for each new shape, so results are always the eager ones."""
import numpy as np
import pytest

import fasteager as fe


def _counting(fn, **kw):
    traces = []

    def wrapped(x):
        print("Tracing with", x)       # (converted: the graph tensor's text)
        traces.append(1)
        return fn(x)
    return fe.function(wrapped, **kw), traces


SIG = dict(input_signature=[fe.TensorSpec([None], fe.int32)])
SIG_F = dict(input_signature=[fe.TensorSpec([None], fe.float32)])


def test_signature_with_none_traces_once_and_prints_the_symbolic_shape(capsys):
    f, traces = _counting(lambda x: fe.where(x % 2 == 0, x // 2, 3 * x + 1), **SIG)
    for n in (2, 3, 5, 2, 7):
        x = np.arange(1, n + 1, dtype=np.int32)
        np.testing.assert_array_equal(f(fe.constant(x)).numpy(),
                                      np.where(x % 2 == 0, x // 2, 3 * x + 1))
    assert capsys.readouterr().out == 'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
    assert f.experimental_get_tracing_count() == 1
    text = f.pretty_printed_concrete_signatures()
    assert text.count("TensorSpec(shape=(None,), dtype=fe.int32") == 2     # in and out


def test_reduce_retracing_generalizes_on_the_second_shape(capsys):
    f, traces = _counting(lambda x: x * 2, reduce_retracing=True)
    for n in (3, 5, 7, 9):
        np.testing.assert_array_equal(f(fe.range(n)).numpy(), np.arange(n) * 2)
    assert capsys.readouterr().out.splitlines() == [
        'Tracing with Tensor("x:0", shape=(3,), dtype=int32)',
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)']
    assert f.experimental_get_tracing_count() == 2
    # another rank is another trace
    f(fe.ones([2, 2], fe.int32))
    assert len(traces) == 3


# Library code (a module of fasteager) reads the concrete shape inside a relaxed trace; a
# body defined in such a module's namespace stands for it here. (User code sees None.)
_LIBRARY = {"__name__": "fasteager._relaxed_test_library", "fe": fe, "np": np}
exec("""
def sum_over_count(x): return fe.reduce_sum(x) / x.shape[0]
def reshape_by_count(x): return fe.reshape(x, [x.shape[0], -1])
def plus_row_numbers(x): return x + fe.constant(np.arange(x.shape[0], dtype=x.dtype.as_numpy_dtype))
def rows(x): return fe.stack(fe.unstack(x)[::-1])
""", _LIBRARY)


@pytest.mark.parametrize("body, expected", [
    # numbers taken from the concrete shape
    (_LIBRARY["sum_over_count"], lambda x: x.sum() / len(x)),
    (_LIBRARY["reshape_by_count"], lambda x: x.reshape(len(x), -1)),
    (_LIBRARY["plus_row_numbers"], lambda x: x + np.arange(len(x))),
    (_LIBRARY["rows"], lambda x: x[::-1]),
    # a legitimate sum over the None dimension: checked as changed, so traced per shape
    (lambda x: fe.reduce_sum(x), lambda x: x.sum()),
    (lambda x: fe.cumsum(x), lambda x: np.cumsum(x)),
    # the gradient of a mean over the rows: each row's share halves with twice the rows
    (lambda x: _grad_of_mean(x), lambda x: np.full(x.shape, 2.0 / len(x)) * x),
])
def test_shape_dependent_traces_are_traced_per_shape_and_stay_right(body, expected):
    f, traces = _counting(body, **SIG_F)
    for n in (2, 3, 4, 3):
        x = np.arange(1, n + 1, dtype=np.float32)
        np.testing.assert_allclose(f(fe.constant(x)).numpy(), expected(x), rtol=1e-6)
    assert len(traces) == 3                    # once per distinct size
    assert f.experimental_get_tracing_count() == 1


def _grad_of_mean(x):
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_mean(x * x)
    return tape.gradient(y, x)


def test_user_code_sees_the_none_dimensions(capsys):
    seen = []

    @fe.function(input_signature=[fe.TensorSpec([None, 3], fe.float32)])
    def f(x):
        seen.append((x.shape, x.get_shape().as_list()))
        print(x.shape)
        return fe.reshape(x, [-1, x.shape[1]]) * 2.0
    f(fe.ones([4, 3]))
    f(fe.ones([2, 3]))
    assert seen == [(fe.TensorShape([None, 3]), [None, 3])]
    assert capsys.readouterr().out == "(None, 3)\n"

    @fe.function(input_signature=[fe.TensorSpec([None], fe.float32)])
    def g(x):
        return x[:x.shape[0] - 1]     # TensorFlow: None - 1 raises TypeError too
    with pytest.raises(TypeError):
        g(fe.ones([3]))


def test_a_single_row_is_not_relaxed():
    # at one row a constant made from the shape would broadcast to any size unseen
    f, traces = _counting(_LIBRARY["plus_row_numbers"], **SIG)
    assert f(fe.constant([5], fe.int32)).numpy().tolist() == [5]
    assert f(fe.constant([5, 5], fe.int32)).numpy().tolist() == [5, 6]
    assert len(traces) == 2


def test_training_step_with_a_none_batch_matches_eager():
    def make():
        fe.random.set_seed(3)
        model = fe.keras.Sequential([fe.keras.layers.Dense(5, activation="relu"),
                                     fe.keras.layers.Dense(3)])
        model.build((None, 4))
        return model, fe.keras.optimizers.SGD(0.1)

    def step_fn(model, opt):
        loss_fn = fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        def step(x, y):
            with fe.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return step

    rng = np.random.RandomState(0)
    batches = [(rng.randn(n, 4).astype(np.float32), rng.randint(0, 3, n).astype(np.int64))
               for n in (8, 8, 5, 8, 3)]
    m1, o1 = make()
    eager = [float(step_fn(m1, o1)(fe.constant(x), fe.constant(y))) for x, y in batches]
    m2, o2 = make()
    traced_step = step_fn(m2, o2)
    traces = []

    def counted(x, y):
        traces.append(1)
        return traced_step(x, y)
    f = fe.function(counted, input_signature=[fe.TensorSpec([None, 4], fe.float32),
                                              fe.TensorSpec([None], fe.int64)])
    traced = [float(f(x, y)) for x, y in batches]
    np.testing.assert_allclose(traced, eager, rtol=1e-5)
    for a, b in zip(m1.trainable_variables, m2.trainable_variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    # one signature, traced once: the recorded gradients read their shapes at run time
    # (the batch sizes 8, 5 and 3 are served by the one trace)
    assert f.experimental_get_tracing_count() == 1
    assert len(traces) == 1


def test_gradients_through_a_relaxed_trace_at_a_new_size():
    w = fe.Variable([[1.0], [2.0]])
    f = fe.function(lambda x: fe.matmul(x, w) ** 2,
                    input_signature=[fe.TensorSpec([None, 2], fe.float32)])
    for n in (2, 3, 3):
        x = fe.constant(np.arange(2 * n, dtype=np.float32).reshape(n, 2))
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = fe.reduce_sum(f(x))
        gx, gw = tape.gradient(y, [x, w])
        xv = x.numpy()
        r = xv @ np.array([[1.0], [2.0]], np.float32)
        np.testing.assert_allclose(gx.numpy(), 2 * r @ np.array([[1.0, 2.0]], np.float32))
        np.testing.assert_allclose(gw.numpy(), xv.T @ (2 * r))
    assert f.experimental_get_tracing_count() == 1


def test_effects_run_once_per_call_at_every_size(capsys):
    total = fe.Variable(0)
    calls = []

    @fe.function(input_signature=[fe.TensorSpec([None], fe.int32)])
    def f(x):
        calls.append(1)
        total.assign_add(fe.reduce_max(x))
        fe.print("max", fe.reduce_max(x))
        return x + 1

    for n in (2, 4, 6, 4):
        assert f(fe.range(n)).numpy().tolist() == list(range(1, n + 1))
    assert int(total.numpy()) == 1 + 3 + 5 + 3
    assert capsys.readouterr().err.split("\n")[:4] == ["max 1", "max 3", "max 5", "max 3"]
    assert len(calls) == 1


def test_two_none_dimensions(capsys):
    f, traces = _counting(lambda x: fe.transpose(x) * 2.0,
                          input_signature=[fe.TensorSpec([None, None], fe.float32)])
    for shape in ((2, 3), (4, 2), (3, 5)):
        x = np.random.rand(*shape).astype(np.float32)
        np.testing.assert_allclose(f(fe.constant(x)).numpy(), x.T * 2)
    assert capsys.readouterr().out == \
        'Tracing with Tensor("x:0", shape=(None, None), dtype=float32)\n'
