"""fe.function semantics: retracing, side effects, variables, gradients, nesting, models."""
import numpy as np
import pytest

import fasteager as fe


def c(x, dtype=np.float32):
    return fe.constant(np.asarray(x, dtype))


# -- retracing -----------------------------------------------------------------------------
def test_same_signature_does_not_retrace():
    f = fe.function(lambda x: x * 2.0 + 1.0)
    for v in ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]):
        np.testing.assert_allclose(f(c(v)).numpy(), np.asarray(v) * 2 + 1)
    assert f.experimental_get_tracing_count() == 1


def test_new_shape_dtype_or_python_value_retraces():
    f = fe.function(lambda x, k: x * k)
    f(c([1.0]), 2)
    f(c([2.0]), 2)
    assert f.experimental_get_tracing_count() == 1
    f(c([1.0, 2.0]), 2)          # shape
    assert f.experimental_get_tracing_count() == 2
    f(c([1.0], np.float64), 2)   # dtype
    assert f.experimental_get_tracing_count() == 3
    assert f(c([1.0]), 3).numpy()[0] == 3.0   # Python value
    assert f.experimental_get_tracing_count() == 4


def test_input_signature_none_dims():
    f = fe.function(lambda x: fe.reduce_sum(x, axis=1),
                    input_signature=[fe.TensorSpec([None, 3], fe.float32)])
    for n in (1, 4, 7, 4):
        x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        np.testing.assert_allclose(f(x).numpy(), x.sum(1))
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="Can not cast"):   # TensorFlow 2.21: TypeError
        f(np.zeros((2, 4), np.float32))


def test_get_concrete_function():
    v = fe.Variable(1.0)

    @fe.function
    def f(x):
        v.assign_add(1.0)
        return x + v
    cf = f.get_concrete_function(fe.TensorSpec([2], fe.float32))
    assert v.numpy() == 1.0            # tracing for a spec does not write variables
    np.testing.assert_allclose(cf(c([1.0, 2.0])).numpy(), [3.0, 4.0])
    assert v.numpy() == 2.0
    assert f.experimental_get_tracing_count() == 1
    f(c([0.0, 0.0]))
    assert f.experimental_get_tracing_count() == 1


# -- side effects ----------------------------------------------------------------------------
def test_python_print_at_trace_time_fe_print_every_call(capsys):
    @fe.function
    def f(x):
        print("python", fe.executing_eagerly())
        fe.print("fe", x)
        return x + 1

    for v in (1.0, 2.0, 3.0):
        f(c(v))
    captured = capsys.readouterr()
    assert captured.out.splitlines().count("python False") == 1
    # fe.print writes to stderr, numbers as tf.print writes them
    assert captured.err.splitlines() == ["fe 1", "fe 2", "fe 3"]
    assert fe.executing_eagerly()


# -- variables -------------------------------------------------------------------------------
def test_variables_captured_by_reference():
    v = fe.Variable([1.0, 2.0])

    @fe.function
    def f(x):
        v.assign(v * x)
        return v.read_value() + 1.0, v * 1.0

    a, b = f(c(2.0))
    np.testing.assert_allclose(v.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(a.numpy(), [3.0, 5.0])
    a, b = f(c(2.0))
    np.testing.assert_allclose(v.numpy(), [4.0, 8.0])
    np.testing.assert_allclose(b.numpy(), [4.0, 8.0])
    v.assign([1.0, 1.0])       # a change outside is seen by the next call
    a, b = f(c(3.0))
    np.testing.assert_allclose(v.numpy(), [3.0, 3.0])
    assert f.experimental_get_tracing_count() == 1


def test_assign_add_sub_and_old_value_kept():
    v = fe.Variable(5.0)

    @fe.function
    def f():
        old = v.read_value()
        v.assign_add(2.0)
        v.assign_sub(1.0)
        return old, v.read_value()

    for want_old in (5.0, 6.0, 7.0):
        old, new = f()
        assert old.numpy() == want_old and new.numpy() == want_old + 1


def test_variables_only_on_first_trace():
    holder = []

    @fe.function
    def f(x):
        if not holder:
            holder.append(fe.Variable(2.0))
        return x * holder[0]

    assert f(c(3.0)).numpy() == 6.0
    assert f(c([1.0, 2.0])).shape == (2,)    # retrace without creating: fine

    @fe.function
    def g(x):
        return x * fe.Variable(2.0)
    with pytest.raises(ValueError, match="first call"):   # TF's second trace refuses it
        g(c(1.0))


# -- gradients -------------------------------------------------------------------------------
def test_gradients_orders_1_and_2():
    w = fe.Variable([0.3, -0.2])

    def body(x):
        return fe.reduce_sum(fe.tanh(x * w) * x)
    f = fe.function(body)
    x = c([0.5, 1.5])

    def derivs(fn):
        with fe.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with fe.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            gx, gw = inner.gradient(y, [x, w])
            s = fe.reduce_sum(gx) + fe.reduce_sum(gw)
        return [y, gx, gw] + outer.gradient(s, [x, w])

    want = derivs(body)
    for _ in range(3):
        got = derivs(f)
        for g, e in zip(got, want):
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)


def test_train_step_with_optimizer_matches_eager():
    rng = np.random.default_rng(0)
    x = c(rng.standard_normal((16, 8)))
    y = fe.constant(rng.integers(0, 3, 16))

    def run(traced):
        fe.random.set_seed(1)
        model = fe.keras.Sequential([fe.keras.layers.Dense(10, activation="relu"),
                                     fe.keras.layers.Dense(3)])
        opt = fe.keras.optimizers.Adam(0.01)
        loss_fn = fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        def step(x, y):
            with fe.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        step = fe.function(step) if traced else step
        losses = [float(step(x, y)) for _ in range(5)]
        return losses, [v.numpy() for v in model.trainable_variables], opt.iterations.numpy()

    le, we, ie = run(False)
    lf, wf, i_f = run(True)
    np.testing.assert_allclose(lf, le, rtol=1e-5)
    assert ie == i_f == 5
    for a, b in zip(wf, we):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# -- nesting, methods, errors ----------------------------------------------------------------
def test_nested_functions():
    inner = fe.function(lambda x: fe.exp(x) + 1.0)

    @fe.function
    def outer(x):
        return inner(x) * inner(x * 2.0)

    for v in (0.1, 0.2):
        np.testing.assert_allclose(outer(c(v)).numpy(),
                                   (np.exp(v) + 1) * (np.exp(2 * v) + 1), rtol=1e-6)
    assert outer.experimental_get_tracing_count() == 1


def test_methods_of_models_and_layers():
    class M(fe.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = fe.keras.layers.Dense(4)

        @fe.function
        def call(self, x):
            return fe.nn.relu(self.d(x))

    m1, m2 = M(), M()
    x = c(np.ones((2, 3)))
    a, b = m1(x), m1(x)
    np.testing.assert_allclose(a.numpy(), b.numpy())
    assert not np.allclose(m2(x).numpy(), a.numpy())   # each instance has its own trace
    layer = fe.keras.layers.Dense(2)
    traced = fe.function(layer)
    np.testing.assert_allclose(traced(x).numpy(), layer(x).numpy())


def test_errors_name_the_function_and_the_users_line():
    import inspect

    @fe.function
    def bad(x):
        y = x * 2.0
        return fe.matmul(y, y)

    with pytest.raises(fe.errors.InvalidArgumentError) as info:
        bad(c([[1.0, 2.0, 3.0]]))
    assert "matmul" in str(info.value)
    line = inspect.getsourcelines(bad.python_function)[1] + 3    # the matmul line
    notes = getattr(info.value, "__notes__", [])
    assert any("bad" in n and n.endswith("%s:%d)" % (__file__, line)) for n in notes), notes


def test_data_dependent_python_falls_back_to_eager():
    @fe.function(autograph=False)       # (AutoGraph makes this `if` a graph cond)
    def f(x):
        if fe.reduce_sum(x) > 0:
            return x * 2.0
        return x * -1.0

    with pytest.warns(UserWarning, match="runs eagerly"):
        assert f(c(1.0)).numpy() == 2.0
    assert f(c(-1.0)).numpy() == 1.0


def test_replay_runs_fewer_steps_and_fuses():
    @fe.function
    def f(x):
        y = x
        for _ in range(20):
            y = fe.tanh(y * 0.5 + 0.1)
        return y

    x = c(np.linspace(-1, 1, 1000))
    want = x
    for _ in range(20):
        want = fe.tanh(want * 0.5 + 0.1)
    for _ in range(2):
        np.testing.assert_allclose(f(x).numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_fit_traced_by_default_equals_run_eagerly():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 5)).astype(np.float32)
    y = rng.integers(0, 3, 64)

    def train(run_eagerly):
        fe.random.set_seed(3)
        model = fe.keras.Sequential([fe.keras.layers.Dense(8, activation="relu"),
                                     fe.keras.layers.Dense(3)])
        model.compile("adam", fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"], run_eagerly=run_eagerly)
        h = model.fit(x, y, batch_size=20, epochs=2, verbose=0, shuffle=False)
        return h.history, model.evaluate(x, y, verbose=0), model.predict(x, verbose=0), model

    he, ee, pe, me = train(True)
    hf, ef, pf, mf = train(False)
    assert "train" in mf._traced_steps and not me._traced_steps
    for k in he:
        np.testing.assert_allclose(hf[k], he[k], rtol=1e-5)
    np.testing.assert_allclose(ef, ee, rtol=1e-5)
    np.testing.assert_allclose(pf, pe, rtol=1e-5, atol=1e-6)


def test_random_ops_are_not_frozen():
    f = fe.function(lambda x: fe.nn.dropout(x, rate=0.5))
    x = fe.ones([1000])
    a, b = f(x).numpy(), f(x).numpy()
    assert not np.array_equal(a, b)


def test_the_same_tensor_twice_is_its_own_signature():
    # f(x, x) aliases its arguments: a trace for distinct tensors must not serve it
    @fe.function
    def f(a, b):
        return a * 2.0 + b

    x, y = c([1.0, 2.0]), c([10.0, 20.0])
    np.testing.assert_allclose(f(x, y).numpy(), [12.0, 24.0])
    np.testing.assert_allclose(f(x, y).numpy(), [12.0, 24.0])     # replay
    np.testing.assert_allclose(f(x, x).numpy(), [3.0, 6.0])
    np.testing.assert_allclose(f(x, x).numpy(), [3.0, 6.0])
    np.testing.assert_allclose(f(y, x).numpy(), [21.0, 42.0])
    assert f.experimental_get_tracing_count() == 2
    # keywords, Python values and nested arguments take the general path
    np.testing.assert_allclose(f(a=x, b=y).numpy(), [12.0, 24.0])
    np.testing.assert_allclose(f(x, 1.0).numpy(), [3.0, 5.0])


def test_python_return_values_become_tensors_as_in_tensorflow():
    # the tf.function guide's "buggy_add": the trace captured foo = 1, and the result
    # is an int32 tensor on every call (TF 2.21 converts Python outputs to constants)
    state = {"foo": 1}

    @fe.function
    def buggy_add():
        return 1 + state["foo"]

    first = buggy_add()
    state["foo"] = 100
    for out in (first, buggy_add()):
        assert isinstance(out, fe.Tensor) and out.dtype == fe.int32 and int(out) == 2
    out = fe.function(lambda x: [1, 2.0, None, "s", {"k": True}, x])(fe.constant(3.0))
    assert [o.dtype for o in out[:2]] == [fe.int32, fe.float32]
    assert out[2] is None and out[3].numpy() == b"s" and out[4]["k"].dtype == fe.bool
    assert float(out[5]) == 3.0


def test_unknown_rank_spec_prints_as_tensorflow():
    assert repr(fe.TensorSpec(None, fe.float32)) == \
        "TensorSpec(shape=<unknown>, dtype=fe.float32, name=None)"
