"""AutoGraph: Python control flow on tensors inside fe.function is converted into graph
control flow (fe.cond / fe.while_loop), so a function is traced once per signature and
each call takes the branch, or runs the loop, its values ask for. The programs of
TensorFlow's tf.function guide ("AutoGraph transformations", "Conditionals", "Loops")
run with the output TensorFlow 2.21 prints."""
import traceback

import numpy as np
import pytest

import fasteager as fe
import fasteager as tf
from tests.function._control_support import control_steps as _control_steps
from tests.function._control_support import no_fallback as _no_fallback
from tests.gradcheck import check_grads

SCALE = 3.0          # a global the converted code reads


# -- the guide's programs ---------------------------------------------------------------------
def test_guide_conditional_return_traces_once():
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            return x
        else:
            return -x
    with _no_fallback():
        assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 2.0]
        assert f(tf.constant([-1.0, -2.0])).numpy().tolist() == [1.0, 2.0]
        assert f(tf.constant([3.0, -5.0])).numpy().tolist() == [-3.0, 5.0]
    assert f.experimental_get_tracing_count() == 1
    assert len(_control_steps(f, tf.constant([1.0, 2.0]))) == 1
    code = tf.autograph.to_code(f.python_function)
    assert "ag__.if_stmt" in code and "def if_body" in code


def test_guide_simple_while_loop(capfd):
    @tf.function
    def f(x):
        while tf.reduce_sum(x) > 1:
            tf.print(x)
            x = tf.tanh(x)
        return x
    x0 = np.array([0.5, 2.0], np.float32)
    expected = x0
    while expected.sum() > 1:
        expected = np.tanh(expected)
    with _no_fallback():
        np.testing.assert_allclose(f(tf.constant(x0)).numpy(), expected, rtol=1e-6)
        np.testing.assert_allclose(f(tf.constant([0.1, 0.2])).numpy(), [0.1, 0.2])
    assert f.experimental_get_tracing_count() == 1
    err = capfd.readouterr().err.splitlines()
    assert err == ["[0.5 2]", "[0.462117195 0.964027584]", "[0.431808203 0.746068]",
                   "[0.406831354 0.632797301]"]     # TensorFlow's lines (the second call
    assert "while_stmt" in tf.autograph.to_code(f.python_function)   # prints none)


def test_guide_fizzbuzz(capfd):
    @tf.function
    def fizzbuzz(n):
        for i in tf.range(1, n + 1):
            print('Tracing for loop')
            if i % 15 == 0:
                print('Tracing fizzbuzz branch')
                tf.print('fizzbuzz')
            elif i % 3 == 0:
                print('Tracing fizz branch')
                tf.print('fizz')
            elif i % 5 == 0:
                print('Tracing buzz branch')
                tf.print('buzz')
            else:
                print('Tracing default branch')
                tf.print(i)
    with _no_fallback():
        fizzbuzz(tf.constant(5))
        fizzbuzz(tf.constant(20))
    out, err = capfd.readouterr()
    assert out.splitlines() == ["Tracing for loop", "Tracing fizzbuzz branch",
                                "Tracing fizz branch", "Tracing buzz branch",
                                "Tracing default branch"]
    assert err.split() == ["1", "2", "fizz", "4", "buzz", "1", "2", "fizz", "4", "buzz",
                           "fizz", "7", "8", "fizz", "buzz", "11", "fizz", "13", "14",
                           "fizzbuzz", "16", "17", "fizz", "19", "buzz"]
    assert fizzbuzz.experimental_get_tracing_count() == 1


def test_guide_print_traced_with_and_executed_with(capfd):
    @tf.function
    def f(x):
        print("Traced with", x)
        tf.print("Executed with", x)
    f(tf.constant(1))
    f(tf.constant(2))
    out, err = capfd.readouterr()
    assert out == 'Traced with Tensor("x:0", shape=(), dtype=int32)\n'
    assert err == "Executed with 1\nExecuted with 2\n"


def test_print_names_graph_tensors_after_their_ops(capfd):
    @tf.function
    def f(x, y):
        a = x + y
        b = a + 1.0
        print(a, b, tf.reduce_sum(b * x), [a], 7)
        return b
    f(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
    assert capfd.readouterr().out == (
        'Tensor("add:0", shape=(2,), dtype=float32) Tensor("add_1:0", shape=(2,), '
        'dtype=float32) Tensor("Sum:0", shape=(), dtype=float32) '
        "[<fe.Tensor 'add:0' shape=(2,) dtype=float32>] 7\n")
    v = tf.Variable([1.0, 2.0], name="v")

    @tf.function
    def g():
        print(v)                     # a variable: read when the graph runs, so no value
        return v + 0.0
    g()
    assert capfd.readouterr().out == "<fe.Variable 'v:0' shape=(2,) dtype=float32>\n"
    print(tf.constant(1.5))          # eagerly, print is Python's own
    assert capfd.readouterr().out == "fe.Tensor(1.5, shape=(), dtype=float32)\n"


def test_guide_training_loop_over_a_dataset():
    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss
    data = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [2, 4, 9]))
    with _no_fallback():
        assert int(train(data)) == 1 + 2 + 6
        assert int(train(data)) == 9
    assert int(train([(1, 1)] * 3)) == 0          # Python data: a Python loop
    assert int(train([(1, 5)] * 10)) == 40


def test_guide_dynamic_rnn_with_a_tensor_array():
    def rnn_step(inp, state):
        return inp + state

    @tf.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        input_data = tf.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = tf.TensorArray(tf.float32, size=max_seq_len)
        state = initial_state
        for i in tf.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])
    x = np.random.default_rng(0).uniform(size=(2, 3, 4)).astype(np.float32)
    with _no_fallback():
        got = dynamic_rnn(rnn_step, tf.constant(x), tf.zeros([2, 4])).numpy()
    np.testing.assert_allclose(got, np.cumsum(x, axis=1), rtol=1e-6)


# -- loops --------------------------------------------------------------------------------------
def test_for_over_a_traced_range_traces_once():
    @fe.function
    def total(n):
        s = 0
        for i in fe.range(n):
            s += i
        return s
    with _no_fallback():
        assert [int(total(fe.constant(n))) for n in (0, 1, 5, 10)] == [0, 0, 10, 45]
    assert total.experimental_get_tracing_count() == 1

    @fe.function
    def steps(a, b):
        s = fe.constant(0.0)
        for v in range(a, b, 3):          # Python's range on tensors: staged too
            s = s + fe.cast(v, fe.float32)
        return s
    with _no_fallback():
        assert float(steps(fe.constant(1), fe.constant(11))) == 1 + 4 + 7 + 10
        assert float(steps(fe.constant(5), fe.constant(6))) == 5


def test_break_continue_and_return_in_tensor_loops():
    @fe.function
    def first_power_over(x, limit):
        i = fe.constant(0)
        while True:
            x = x * 2.0
            i += 1
            if x > limit:
                break
        return i, x

    @fe.function
    def odd_sum(n):
        s = fe.constant(0)
        for i in fe.range(n):
            if i % 2 == 0:
                continue
            s += i
        return s

    @fe.function
    def find(x, target):
        i = fe.constant(0)
        while i < 10:
            if x * fe.cast(i, fe.float32) >= target:
                return i
            i += 1
        return fe.constant(-1)
    with _no_fallback():
        i, x = first_power_over(fe.constant(1.0), fe.constant(20.0))
        assert (int(i), float(x)) == (5, 32.0)
        i, x = first_power_over(fe.constant(3.0), fe.constant(5.0))
        assert (int(i), float(x)) == (1, 6.0)
        assert [int(odd_sum(fe.constant(n))) for n in (0, 4, 7)] == [0, 4, 9]
        assert int(find(fe.constant(2.0), fe.constant(7.0))) == 4
        assert int(find(fe.constant(0.5), fe.constant(70.0))) == -1
    for f in (first_power_over, odd_sum, find):
        assert f.experimental_get_tracing_count() == 1


def test_python_loops_and_conditions_stay_python():
    @fe.function
    def f(x, training):
        for _ in range(3):            # a Python range: unrolled
            x = x + 1.0
        if training:                  # a Python bool: one branch traced
            x = x * 2.0
        return x
    with _no_fallback():
        assert float(f(fe.constant(1.0), True)) == 8.0
        assert float(f(fe.constant(1.0), False)) == 4.0
        assert _control_steps(f, fe.constant(1.0), True) == []


def test_break_on_a_tensor_in_a_python_loop():
    @fe.function
    def f(x):
        for step in [1.0, 2.0, 3.0, 4.0]:
            if x > 10.0:
                break
            x = x * step + 3.0
        return x
    with _no_fallback():
        for x0 in (0.0, 5.0, 20.0):
            expected = x0
            for step in [1.0, 2.0, 3.0, 4.0]:
                if expected > 10.0:
                    break
                expected = expected * step + 3.0
            assert float(f(fe.constant(x0))) == expected
    assert f.experimental_get_tracing_count() == 1


# -- expressions -------------------------------------------------------------------------------
def test_conditional_expressions_and_boolean_operators():
    @fe.function
    def f(x, y):
        a = x if x > y else y
        both = x > 0 and y > 0
        either = x > 0 or y > 0
        return a, both, either, not both
    with _no_fallback():
        for x, y in ((1.0, 2.0), (3.0, -1.0), (-2.0, -3.0)):
            a, both, either, neither = f(fe.constant(x), fe.constant(y))
            assert (float(a), bool(both), bool(either), bool(neither)) == (
                max(x, y), x > 0 and y > 0, x > 0 or y > 0, not (x > 0 and y > 0))
    assert f.experimental_get_tracing_count() == 1

    @fe.function
    def g(x, flag):
        return x * 2 if flag else x   # Python values keep Python's semantics
    assert float(g(fe.constant(1.0), 0)) == 1.0 and float(g(fe.constant(1.0), 1)) == 2.0


# -- errors as TensorFlow raises them ----------------------------------------------------------
def test_variable_undefined_on_one_branch():
    @fe.function
    def f(x):
        if x > 0:
            y = x * 2.0
        return y
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        f(fe.constant(1.0))

    @fe.function
    def local_to_a_branch(x):      # not read after the if: no error (TF's liveness)
        if x > 0:
            t = x * 2.0
            y = t + 1.0
        else:
            y = -x
        return y
    with _no_fallback():
        assert [float(local_to_a_branch(fe.constant(v))) for v in (1.0, -2.0)] == [3.0, 2.0]

    @fe.function
    def g(x):
        if x > 0:
            return x
    with pytest.raises(ValueError, match="the else branch must also have a return statement"):
        g(fe.constant(1.0))


def test_dtype_and_structure_errors():
    @fe.function
    def branches(x):
        if x > 0:
            y = fe.constant(1)
        else:
            y = fe.constant(1.0)
        return y
    with pytest.raises(TypeError, match="'y' has dtype int32 in the main branch, but dtype "
                                        "float32 in the else branch"):
        branches(fe.constant(1.0))

    @fe.function
    def loop(x):
        n = fe.constant(0)
        while fe.cast(n, fe.float32) < x:
            n = fe.cast(n, fe.float32) + 1.0
        return n
    with pytest.raises(TypeError, match="'n' has dtype int32 before the loop, but dtype "
                                        "float32 after one iteration"):
        loop(fe.constant(3.0))

    @fe.function
    def grow(x):
        while fe.reduce_sum(x) < 10.0:
            x = fe.concat([x, x], 0)
        return x
    with pytest.raises(ValueError, match=r"'x' has shape \(1,\) before the loop, but shape "
                                         r"\(2,\) after one iteration"):
        grow(fe.constant([1.0]))


def test_errors_point_at_the_users_line():
    @fe.function
    def f(x):
        if x > 0:
            y = x + 1.0
        else:
            y = fe.reshape(x, [5])            # the line that raises
        return y
    with pytest.raises(fe.errors.InvalidArgumentError) as info:
        f(fe.constant(1.0))
    frames = traceback.extract_tb(info.value.__traceback__)
    mine = [fr for fr in frames if fr.filename == __file__]
    assert mine[-1].line == "y = fe.reshape(x, [5])            # the line that raises"


# -- conversion: functions called, methods, closures, options ---------------------------------
def _clip_positive(v):          # a user function called from a converted one
    if fe.reduce_sum(v) > 0:
        v = fe.minimum(v, SCALE)
    return v


def test_called_functions_closures_and_globals():
    offset = fe.constant(0.5)

    @fe.function
    def f(x):
        if x > offset:                # a closure
            return _clip_positive(x) * SCALE
        return x - offset
    with _no_fallback():
        assert [float(f(fe.constant(v))) for v in (1.0, 10.0, 0.0)] == [3.0, 9.0, -0.5]
    assert f.experimental_get_tracing_count() == 1


def test_methods_of_modules_and_layers():
    class Gate(fe.Module):
        def __init__(self):
            super().__init__()
            self.w = fe.Variable(2.0)

        @fe.function
        def __call__(self, x):
            if x > 0:
                return x * self.w
            return x

    class Scaled(Gate):
        @fe.function
        def __call__(self, x):
            if x < 0:
                x = -x
            return super().__call__(x) + 1.0
    gate, scaled = Gate(), Scaled()
    with _no_fallback():
        assert [float(gate(fe.constant(v))) for v in (3.0, -1.0)] == [6.0, -1.0]
        assert [float(scaled(fe.constant(v))) for v in (3.0, -1.0)] == [7.0, 3.0]
        gate.w.assign(5.0)
        assert float(gate(fe.constant(2.0))) == 10.0

    class Dense(fe.keras.layers.Layer):
        def build(self, input_shape):
            self.k = self.add_weight(shape=(input_shape[-1], 1), initializer="ones")

        def call(self, x):
            y = fe.matmul(x, self.k)
            if fe.reduce_mean(y) < 0:
                y = -y
            return y
    layer = Dense()
    call = fe.function(layer.call)
    layer(fe.ones([1, 2]))
    with _no_fallback():
        assert call(fe.constant([[1.0, 2.0]])).numpy().tolist() == [[3.0]]
        assert call(fe.constant([[-1.0, -2.0]])).numpy().tolist() == [[3.0]]
    assert call.experimental_get_tracing_count() == 1


def test_autograph_false_and_do_not_convert_keep_the_eager_fallback():
    def body(x):
        if x > 0:
            return x
        return -x
    plain = fe.function(body, autograph=False)
    with pytest.warns(UserWarning, match="runs eagerly"):
        assert float(plain(fe.constant(-2.0))) == 2.0

    @fe.autograph.experimental.do_not_convert
    def helper(x):
        if x > 0:
            return x
        return -x
    calls = fe.function(lambda x: helper(x) * 1.0)
    with pytest.warns(UserWarning, match="runs eagerly"):
        assert float(calls(fe.constant(-3.0))) == 3.0
    with pytest.raises(ValueError, match="not a Python function"):
        fe.autograph.to_code(len)
    converted = fe.autograph.to_graph(body)
    assert converted is not body and float(converted(fe.constant(-4.0))) == 4.0  # eagerly


def test_function_without_source_runs_unconverted():
    namespace = {"fe": fe}
    exec("def f(x):\n    if x > 0:\n        return x\n    return -x\n", namespace)
    f = fe.function(namespace["f"], quiet_fallback=True)
    assert float(f(fe.constant(-1.0))) == 1.0 and float(f(fe.constant(2.0))) == 2.0
    with pytest.raises(ValueError, match="cannot convert f: no source"):
        fe.autograph.to_code(namespace["f"])


def test_lambdas_are_converted():
    absolute = fe.function(lambda x: x if x > 0 else -x)
    pair = (lambda v: v * 2.0, lambda v: v + 1.0 if v > 0 else v)   # told apart
    second = fe.function(pair[1])
    with _no_fallback():
        assert [float(absolute(fe.constant(v))) for v in (2.0, -3.0)] == [2.0, 3.0]
        assert [float(second(fe.constant(v))) for v in (2.0, -3.0)] == [3.0, -3.0]
    assert absolute.experimental_get_tracing_count() == 1
    assert "ag__.if_exp" in fe.autograph.to_code(pair[1])
    assert "if_exp" not in fe.autograph.to_code(pair[0])


def test_conversion_is_cached_per_function():
    def g(x):
        return x + 1.0
    first = fe.autograph.to_graph(g)
    assert fe.autograph.to_graph(g) is first


# -- gradients -----------------------------------------------------------------------------------
def test_gradients_through_converted_control_flow():
    @fe.function
    def f(x):
        if fe.reduce_sum(x) > 0:
            y = fe.sin(x) * x
        else:
            y = x * x * x
        i = 0
        while i < 2:
            y = fe.tanh(y) + x
            i += 1
        return y
    with _no_fallback():
        for sign in (1.0, -1.0, 1.0):
            check_grads(f, [sign * np.array([0.3, 0.7], np.float64)], order=1)
    assert f.experimental_get_tracing_count() == 1

    v = fe.Variable([0.5, -0.3])
    opt = fe.keras.optimizers.SGD(0.1)

    @fe.function
    def step(x, n):
        with fe.GradientTape() as tape:
            h = x
            for _ in fe.range(n):
                h = fe.tanh(h * v + x)
            loss = fe.reduce_sum(h * h)
        grads = tape.gradient(loss, [v])
        opt.apply_gradients(zip(grads, [v]))
        return loss
    with _no_fallback():
        losses = [float(step(fe.constant([0.2, 0.4]), fe.constant(n))) for n in (1, 3, 2)]
    assert step.experimental_get_tracing_count() == 1 and all(np.isfinite(losses))


def test_guide_python_side_effect_guard_and_recursion(capfd):
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:      # a Python int: a Python if, at trace time
                self.counter += 1
                self.v.assign_add(1)
            return self.v
    m = Model()
    assert [int(m().numpy()) for _ in range(3)] == [1, 2, 3]   # the guide's "1, 2, 3"

    @tf.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        else:
            return 1
    with pytest.raises(RecursionError):         # the guide: "maximum recursion error"
        recursive_fn(tf.constant(5))

    @tf.function
    def recursive_py(n):
        if n > 0:
            print('tracing')
            return recursive_py(n - 1)
        else:
            return 1
    assert recursive_py(5) == 1
    assert capfd.readouterr().out == "tracing\n" * 5


def test_statements_inside_converted_code():
    calls = 0

    @fe.function
    def f(x, *rest, scale=2.0, **options):
        nonlocal calls
        calls += 1

        def inner(v):                 # a nested function: converted with the outer one
            if v > 0:
                return v * scale
            return v
        if x > 0:
            try:
                y = inner(x)
                raise KeyError("k")
            except KeyError as e:     # (the except name is deleted after the block)
                y = y + 1.0 + 0.0 * len(str(e))
        else:
            y = -x
        if rest:
            y = y + rest[0]
        total = fe.constant(0.0)
        for i in fe.range(3):
            j = fe.constant(0)
            while j < i:
                total += fe.cast(j, fe.float32) + options.get("bias", 0.0)
                j += 1
        return y + total
    with _no_fallback():
        assert float(f(fe.constant(1.5))) == 4.0 + 1.0
        assert float(f(fe.constant(-1.5))) == 1.5 + 1.0
        assert float(f(fe.constant(1.5), 10.0, bias=1.0)) == 14.0 + 4.0
    assert calls == 2 and f.experimental_get_tracing_count() == 2

    @fe.function
    def uses_a_generator(x):
        def gen():
            yield x
            yield x * 2.0
        return sum(gen())
    with _no_fallback():
        assert float(uses_a_generator(fe.constant(1.0))) == 3.0


def test_training_loop_over_a_dataset_inside_the_function():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(24, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    dataset = fe.data.Dataset.from_tensor_slices((x, y)).batch(8)

    def run(traced):
        w = fe.Variable(np.zeros((3, 1), np.float32))
        opt = fe.keras.optimizers.SGD(0.1)

        def epoch(data):
            total = fe.constant(0.0)
            for xb, yb in data:
                with fe.GradientTape() as tape:
                    loss = fe.reduce_mean(fe.square(fe.matmul(xb, w) - yb))
                grads = tape.gradient(loss, [w])
                opt.apply_gradients(zip(grads, [w]))
                if loss > 0.5:                # a traced condition inside the data loop
                    total += loss
                else:
                    total += 0.5 * loss
            return total
        step = fe.function(epoch) if traced else epoch
        return [float(step(dataset)) for _ in range(3)], w.numpy(), step
    with _no_fallback():
        traced_totals, traced_w, step = run(True)
    eager_totals, eager_w, _ = run(False)
    np.testing.assert_allclose(traced_totals, eager_totals, rtol=1e-5)
    np.testing.assert_allclose(traced_w, eager_w, rtol=1e-5)
    assert step.experimental_get_tracing_count() == 1


def test_trace_and_set_verbosity(capfd):
    @fe.function
    def f(x):
        fe.autograph.trace("x is", x)
        return x + 1.0
    f(fe.constant(1.0))
    f(fe.constant(2.0))
    assert capfd.readouterr().out == 'x is Tensor("x:0", shape=(), dtype=float32)\n'
    namespace = {"fe": fe}
    exec("def g(x):\n    return x\n", namespace)
    fe.autograph.set_verbosity(1, alsologtostdout=True)
    try:
        fe.function(namespace["g"])(fe.constant(1.0))
    finally:
        fe.autograph.set_verbosity(0)
    assert "AutoGraph could not convert g, so it runs as written: no source" in \
        capfd.readouterr().out
