"""fe.cond and fe.while_loop: eager semantics and errors as TensorFlow 2.21, gradients
against finite differences, and inside fe.function one trace whose replay picks the
branch / runs the loop on every call (no eager fallback)."""
import warnings

import numpy as np
import pytest

import fasteager as fe
from tests.function._control_support import control_steps as _control_steps
from tests.function._control_support import no_fallback as _no_fallback
from tests.gradcheck import check_grads



# -- eager --------------------------------------------------------------------------------
def test_eager_cond():
    assert int(fe.cond(fe.constant(2.0) > 1.0, lambda: fe.constant(1),
                       lambda: fe.constant(-1))) == 1
    assert fe.cond(False, lambda: 1, lambda: 2) == 2          # Python values stay Python
    assert fe.cond(fe.constant(1.0), lambda: "a", lambda: "b") == "a"
    with pytest.raises(TypeError, match="'true_fn' argument required"):
        fe.cond(True, None, lambda: 2)
    with pytest.raises(TypeError, match="'false_fn' must be callable"):
        fe.cond(True, lambda: 1, 2)
    with pytest.raises(ValueError, match="scalar"):
        fe.cond(fe.constant([True, False]), lambda: 1, lambda: 2)


def test_eager_while_loop():
    i, s = fe.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2.0), (0, 1.0))
    assert (int(i), float(s)) == (3, 8.0) and i.dtype == fe.int32 and s.dtype == fe.float32
    out = fe.while_loop(lambda i: i < 3, lambda i: [i + 1], [0])
    assert isinstance(out, list) and int(out[0]) == 3
    assert int(fe.while_loop(lambda i: i < 30, lambda i: (i + 1,), (fe.constant(0),),
                             maximum_iterations=5)[0]) == 5
    nested = fe.while_loop(lambda d: d["a"] < 3, lambda d: ({"a": d["a"] + 1},),
                           ({"a": fe.constant(0)},))
    assert int(nested[0]["a"]) == 3


def test_while_loop_errors():
    with pytest.raises(TypeError, match="'cond' must be callable"):
        fe.while_loop(1, lambda i: i, [1])
    with pytest.raises(TypeError, match="'body' must be callable"):
        fe.while_loop(lambda i: True, None, [1])
    with pytest.raises(ValueError, match="'loop_vars' must be provided"):
        fe.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(TypeError, match="tuple or list"):
        fe.while_loop(lambda i: i < 3, lambda i: i + 1, fe.constant(0))
    with pytest.raises(ValueError, match="structure of loop_vars"):
        fe.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,), [fe.constant(0), 0])


def test_eager_gradients_match_finite_differences():
    def f(x):
        return fe.cond(fe.reduce_sum(x) > 0, lambda: fe.sin(x) * x, lambda: x * x * x)

    def g(x):
        _, y = fe.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, fe.tanh(y) * x),
                             (0, x))
        return y
    for sign in (1.0, -1.0):
        x = sign * np.array([0.3, 0.7], np.float64)
        check_grads(f, [x], order=2)
        check_grads(g, [x], order=2)


# -- inside fe.function -------------------------------------------------------------------
def test_cond_in_a_function_traces_once_and_picks_the_branch_per_call():
    @fe.function
    def f(x):
        return fe.cond(x > 0, lambda: x * 2.0, lambda: -x)
    with _no_fallback():
        assert [float(f(fe.constant(v))) for v in (3.0, -4.0, 0.5, -1.0)] == [6.0, 4.0,
                                                                              1.0, 1.0]
        assert f.experimental_get_tracing_count() == 1
        assert len(_control_steps(f, fe.constant(1.0))) == 1


def test_while_loop_in_a_function_runs_a_value_dependent_number_of_times():
    @fe.function
    def power(x, n):
        _, y = fe.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x),
                             (fe.constant(0), fe.constant(1.0)))
        return y
    with _no_fallback():
        got = [float(power(fe.constant(x), fe.constant(n))) for x, n in
               [(2.0, 3), (3.0, 4), (5.0, 0), (2.0, 10)]]
        assert got == [8.0, 81.0, 1.0, 1024.0]
        assert power.experimental_get_tracing_count() == 1


def test_gradients_through_a_function_with_control_flow():
    @fe.function
    def f(x):
        y = fe.cond(fe.reduce_sum(x) > 0, lambda: fe.sin(x) * x, lambda: x * x * x)
        _, z = fe.while_loop(lambda i, z: i < 2, lambda i, z: (i + 1, fe.tanh(z) + x),
                             (0, y))
        return z
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for sign in (1.0, -1.0, 1.0):
            check_grads(f, [sign * np.array([0.3, 0.7], np.float64)], order=1)
    assert f.experimental_get_tracing_count() == 1    # both signs: one trace
    with _no_fallback():
        assert float(f(fe.constant(1.0))) == pytest.approx(
            np.tanh(np.tanh(np.sin(1.0)) + 1.0) + 1.0, rel=1e-6)


def test_branches_assign_variables_on_every_call():
    v = fe.Variable(0.0)

    @fe.function
    def f(x):
        fe.cond(x > 0, lambda: v.assign_add(x), lambda: v.assign_sub(1.0))
        return v + 0.0                       # a read after the branch sees its write
    with _no_fallback():
        assert [float(f(fe.constant(a))) for a in (2.0, -1.0, 5.0)] == [2.0, 1.0, 6.0]
    assert float(v.numpy()) == 6.0


def test_effects_only_branches_are_kept():
    v = fe.Variable(0.0)

    @fe.function
    def f(x):
        def bump():
            v.assign_add(1.0)
        fe.cond(x > 0, bump, lambda: None)
        return x
    with _no_fallback():
        for a in (1.0, -1.0, 1.0, 1.0):
            f(fe.constant(a))
    assert float(v.numpy()) == 3.0


def test_concrete_function_for_specs_undoes_branch_writes():
    v = fe.Variable(1.0)

    @fe.function
    def f(x):
        return fe.cond(x > 0, lambda: v.assign_add(x) + 0.0, lambda: v + 0.0)
    cf = f.get_concrete_function(fe.TensorSpec([], fe.float32))
    assert float(v.numpy()) == 1.0
    assert float(cf(fe.constant(2.0))) == 3.0 and float(v.numpy()) == 3.0


def test_nested_control_flow_captures_through_levels():
    @fe.function
    def f(x, n):
        def body(i, acc):
            return i + 1, acc + fe.cond(fe.cast(i, fe.float32) < x, lambda: x, lambda: -x)
        return fe.while_loop(lambda i, acc: i < n, body, (fe.constant(0), fe.constant(0.0)))[1]
    with _no_fallback():
        assert float(f(fe.constant(2.0), fe.constant(4))) == 2.0 + 2.0 - 2.0 - 2.0
        assert float(f(fe.constant(3.0), fe.constant(5))) == 3.0 * 3 - 3.0 * 2
        assert f.experimental_get_tracing_count() == 1


def test_loop_reading_a_variable_sees_its_current_value():
    limit = fe.Variable(3)

    @fe.function
    def count():
        return fe.while_loop(lambda i: i < limit, lambda i: (i + 1,), (fe.constant(0),))[0]
    with _no_fallback():
        assert int(count()) == 3
        limit.assign(7)
        assert int(count()) == 7


def test_trace_errors_match_tensorflow():
    g = fe.function(lambda x: fe.cond(x > 0, lambda: x, lambda: fe.cast(x, fe.int32)))
    with pytest.raises(TypeError, match="same dtypes"):
        g(fe.constant(1.0))
    h = fe.function(lambda x: fe.cond(x > 0, lambda: x, lambda: (x, x)))
    with pytest.raises(ValueError, match="same structure"):
        h(fe.constant(1.0))
    w = fe.function(lambda x: fe.while_loop(lambda i: fe.reduce_sum(i) < 10.0,
                                            lambda i: (fe.concat([i, i], 0),), (x,)))
    with pytest.raises(ValueError, match="enters the loop with shape"):
        w(fe.constant([1.0]))
    w2 = fe.function(lambda x: fe.while_loop(lambda i: i < 10, lambda i: (fe.cast(i, fe.float32),),
                                             (x,)))
    with pytest.raises(TypeError, match="enters the loop with dtype"):
        w2(fe.constant(1))


def test_what_cannot_replay_runs_eagerly_and_stays_right():
    shapes = fe.function(lambda x: fe.cond(x > 0, lambda: fe.ones([2]), lambda: fe.ones([3])))
    grow = fe.function(lambda x: fe.while_loop(
        lambda i: fe.reduce_sum(i) < 10.0, lambda i: (fe.concat([i, i], 0),), (x,),
        shape_invariants=(fe.TensorShape([None]),))[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert shapes(fe.constant(1.0)).shape == (2,) and shapes(fe.constant(-1.0)).shape == (3,)
        assert grow(fe.constant([3.0])).shape == (4,) and grow(fe.constant([1.0])).shape == (16,)


def test_gradient_inside_the_function_is_a_control_step_too():
    @fe.function
    def f(x):
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = fe.cond(x > 0, lambda: x * x, lambda: x * x * x)
        return tape.gradient(y, x)
    with _no_fallback():
        assert [float(f(fe.constant(a))) for a in (3.0, -2.0, 1.0)] == [6.0, 12.0, 2.0]
        assert f.experimental_get_tracing_count() == 1


def test_training_step_with_a_loop_inside_the_function():
    w = fe.Variable([0.5, -0.3])
    opt = fe.keras.optimizers.SGD(0.1)

    def loss_of(x, n):
        _, h = fe.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, fe.tanh(h * w + x)),
                             (fe.constant(0), x))
        return fe.reduce_sum(h * h)

    @fe.function
    def step(x, n):
        with fe.GradientTape() as tape:
            loss = loss_of(x, n)
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w]))
        return grads[0]

    def reference(x, n):
        with fe.GradientTape() as tape:
            loss = loss_of(x, n)
        return tape.gradient(loss, w)
    x = fe.constant([0.2, 0.4])
    with _no_fallback():
        for n in (1, 3, 2):
            expected = reference(x, fe.constant(n)).numpy()
            before = w.numpy().copy()
            np.testing.assert_allclose(step(x, fe.constant(n)).numpy(), expected, rtol=1e-5)
            np.testing.assert_allclose(w.numpy(), before - 0.1 * expected, rtol=1e-5)
        assert step.experimental_get_tracing_count() == 1


def test_saved_model_saves_control_steps(tmp_path):
    # (the format and its corruption tests: tests/saved_model/test_control_flow_saved.py)
    module = fe.Module()
    module.f = fe.function(lambda x: fe.cond(x > 0, lambda: x, lambda: -x),
                           input_signature=[fe.TensorSpec([], fe.float32)])
    fe.saved_model.save(module, str(tmp_path / "m"))
    loaded = fe.saved_model.load(str(tmp_path / "m"))
    assert [float(loaded.f(fe.constant(v))) for v in (2.0, -3.0)] == [2.0, 3.0]


def test_gradients_inside_for_two_captures_and_a_variable():
    v = fe.Variable(2.0)

    @fe.function
    def f(x, z):
        with fe.GradientTape(persistent=True) as tape:
            tape.watch([x, z])
            y = fe.cond(x > z, lambda: x + z + v, lambda: x * z * v)
        return tape.gradient(y, [x, z, v])
    with _no_fallback():
        for a, b in ((3.0, 1.0), (1.0, 3.0), (5.0, -1.0), (-2.0, 4.0)):
            got = [float(g) for g in f(fe.constant(a), fe.constant(b))]
            assert got == ([1.0, 1.0, 1.0] if a > b else [b * 2.0, a * 2.0, a * b])


def test_a_loop_variable_starting_as_a_captured_tensor_stays_apart():
    @fe.function
    def f(x, n):
        return fe.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, h * 2.0 + x),
                             (fe.constant(0), x))[1]
    with _no_fallback():
        for n, expected in ((0, 1.0), (1, 3.0), (3, 15.0)):
            assert float(f(fe.constant(1.0), fe.constant(n))) == expected


def test_outside_gradients_follow_a_branch_chosen_by_an_integer():
    @fe.function
    def f(x, n):
        scale = fe.cond(n > 2, lambda: fe.constant(2.0), lambda: fe.cast(n, fe.float32))
        return x * scale
    x = fe.constant(1.5)
    with _no_fallback():
        for n, expected in ((5, 2.0), (1, 1.0), (0, 0.0), (7, 2.0), (2, 2.0)):
            with fe.GradientTape() as tape:
                tape.watch(x)
                y = f(x, fe.constant(n))
            assert float(tape.gradient(y, x)) == expected


def test_maximum_iterations_inside_a_function():
    @fe.function
    def f(limit):
        return fe.while_loop(lambda i: i < 100, lambda i: (i + 1,), (fe.constant(0),),
                             maximum_iterations=limit)[0]
    with _no_fallback():
        assert [int(f(n)) for n in (3, 5)] == [3, 5]    # (a Python value: one trace each)


def test_keras_fit_with_a_cond_in_a_layer_matches_eager_training():
    keras = fe.keras

    class Gate(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], 1), initializer="ones")

        def call(self, x):
            return fe.cond(fe.reduce_mean(x) > 0, lambda: fe.matmul(x, self.w),
                           lambda: -0.5 * fe.matmul(x, self.w))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [2.0], [-1.0]], np.float32)
    losses = []
    for run_eagerly in (False, True):
        model = keras.Sequential([keras.Input((3,)), Gate()])
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse",
                      run_eagerly=run_eagerly)
        with _no_fallback():
            history = model.fit(x, y, epochs=3, batch_size=16, verbose=0, shuffle=False)
        losses.append(history.history["loss"])
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
