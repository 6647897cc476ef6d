"""fe.TensorArray, fe.py_function and fe.init_scope, eager and inside fe.function, with
gradients (finite differences through tests.gradcheck)."""
import numpy as np
import pytest

import fasteager as tf
from tests.gradcheck import check_grads

# ---- TensorArray ---------------------------------------------------------------------------

def test_write_read_stack_and_functional_style():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    for i in range(3):
        ta = ta.write(i, tf.constant([float(i), 2.0 * i]))
    assert int(ta.size()) == 3 and ta.size().dtype == tf.int32
    assert ta.element_shape == (2,)
    np.testing.assert_array_equal(ta.stack().numpy(), [[0, 0], [1, 2], [2, 4]])
    np.testing.assert_array_equal(ta.read(1).numpy(), [1, 2])
    np.testing.assert_array_equal(ta.gather([2, 0]).numpy(), [[2, 4], [0, 0]])
    np.testing.assert_array_equal(ta.concat().numpy(), [0, 0, 1, 2, 2, 4])
    assert ta.write(3, [1.0, 1.0]) is ta       # eager arrays change in place, as TF's


def test_python_values_take_the_dtype_and_wrong_dtypes_raise():
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.write(0, 1).write(1, 2.5)
    assert ta.stack().dtype == tf.float32
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype"):
        ta.write(0, tf.constant(1.0, tf.float64))
    with pytest.raises(ValueError, match="incompatible shape"):
        ta.write(1, [1.0, 2.0])


def test_fixed_size_and_clear_after_read():
    ta = tf.TensorArray(tf.int32, size=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not resizeable"):
        ta.write(2, 5)
    ta.write(0, 7)
    assert int(ta.read(0)) == 7
    with pytest.raises(tf.errors.InvalidArgumentError, match="twice"):
        ta.read(0)
    with pytest.raises(tf.errors.OutOfRangeError, match="size is: 2"):
        ta.read(5)
    # an element never written reads as zeros once the element shape is known
    assert int(ta.read(1)) == 0
    with pytest.raises(ValueError, match="size"):
        tf.TensorArray(tf.float32)


def test_unstack_scatter_split():
    x = tf.reshape(tf.range(6.0), [3, 2])
    ta = tf.TensorArray(tf.float32, size=3).unstack(x)
    np.testing.assert_array_equal(ta.stack().numpy(), x.numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="static size"):
        tf.TensorArray(tf.float32, size=2).unstack(x)
    ta = tf.TensorArray(tf.float32, size=3, element_shape=[2]).scatter([2, 0], x[:2])
    np.testing.assert_array_equal(ta.stack().numpy(), [[2, 3], [0, 0], [0, 1]])
    ta = tf.TensorArray(tf.float32, size=2).split(tf.range(5.0), [2, 3])
    np.testing.assert_array_equal(ta.read(1).numpy(), [2, 3, 4])
    np.testing.assert_array_equal(
        tf.TensorArray(tf.float32, size=2).split(tf.range(5.0), [2, 3]).concat().numpy(),
        range(5))
    empty = tf.TensorArray(tf.float32, size=0, element_shape=[3])
    assert empty.stack().shape == (0, 3)


def test_guide_loop_in_function_matches_eager():
    def running_sum(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        acc = tf.zeros_like(x[0])
        for i in range(x.shape[0]):
            acc = acc + x[i]
            ta = ta.write(i, acc)
        return ta.stack()
    x = tf.random.normal([4, 3])
    f = tf.function(running_sum)
    np.testing.assert_allclose(f(x).numpy(), np.cumsum(x.numpy(), axis=0), rtol=1e-6)
    y = tf.random.normal([4, 3])
    np.testing.assert_allclose(f(y).numpy(), np.cumsum(y.numpy(), axis=0), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_gradients_through_stack_and_read():
    def f(x):
        ta = tf.TensorArray(x.dtype, size=3)
        for i in range(3):
            ta = ta.write(i, x * float(i + 1))
        return ta.stack() * ta.read(2)
    check_grads(f, [np.random.RandomState(0).randn(2)], order=2)

    g = tf.function(f)
    x = tf.constant([0.5, -1.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(g(x))
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        y2 = tf.reduce_sum(f(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), tape2.gradient(y2, x).numpy())


# ---- py_function ---------------------------------------------------------------------------

def test_py_function_eager_and_tout_forms():
    def np_square(x):
        return np.square(x.numpy())
    x = tf.constant([1.0, 2.0])
    y = tf.py_function(np_square, [x], Tout=tf.float32)
    assert y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), [1, 4])
    _, b = tf.py_function(lambda u, v: (u + v, u * v), [x, x], Tout=[tf.float32, tf.float32])
    np.testing.assert_array_equal(b.numpy(), [1, 4])
    assert tf.py_function(lambda u: None, [x], Tout=None) is None
    with pytest.raises(ValueError, match="returned 1 values"):
        tf.py_function(lambda u: u, [x], Tout=[tf.float32, tf.float32])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expects float32"):
        tf.py_function(lambda u: tf.cast(u, tf.float64), [x], Tout=tf.float32)


def test_py_function_gradient_through_its_ops():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.py_function(lambda v: v * v * v, [x], Tout=tf.float32)
    assert float(tape.gradient(y, x)) == 27.0


def test_py_function_runs_every_call_inside_function():
    calls = []

    def log_and_double(v):
        calls.append(float(v.numpy()))         # a Python side effect and a NumPy read
        return v * 2.0

    @tf.function
    def f(x):
        y = tf.py_function(log_and_double, [x + 1.0], Tout=tf.float32)
        return y * 10.0
    assert float(f(tf.constant(1.0))) == 40.0
    assert float(f(tf.constant(2.0))) == 60.0
    assert float(f(tf.constant(3.0))) == 80.0
    assert calls == [2.0, 3.0, 4.0]
    assert f.experimental_get_tracing_count() == 1
    # a py_function whose result is unused still runs (it may have side effects)

    @tf.function
    def g(x):
        tf.py_function(log_and_double, [x], Tout=tf.float32)
        return x + 1.0
    g(tf.constant(5.0))
    g(tf.constant(6.0))
    assert calls[-2:] == [5.0, 6.0]


def test_py_function_gradient_inside_function():
    @tf.function
    def f(x):
        return tf.py_function(lambda v: tf.sin(v) * v, [x], Tout=tf.float64)
    for value in (0.3, 1.2):             # the first call traces, the second replays
        x = tf.constant(value, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        np.testing.assert_allclose(float(tape.gradient(y, x)),
                                   np.cos(value) * value + np.sin(value), rtol=1e-12)


# ---- init_scope ----------------------------------------------------------------------------

def test_init_scope_lifts_out_of_function_and_tapes():
    seen = []
    holder = {}

    @tf.function
    def f(x):
        with tf.init_scope():
            seen.append(tf.executing_eagerly())
            if "v" not in holder:
                holder["v"] = tf.Variable(2.0)
        seen.append(tf.executing_eagerly())
        return x * holder["v"]
    assert float(f(tf.constant(3.0))) == 6.0
    assert seen == [True, False]
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tf.init_scope():
            hidden = x * x
        visible = x * x
    assert tape.gradient(hidden, x) is None
    assert float(tape.gradient(visible, x)) == 4.0


def test_guide_dynamic_rnn_with_tensor_array():
    # the tf.function guide's "accumulating values in a loop" program
    batch_size = 2
    seq_len = 3
    feature_size = 4

    def rnn_step(inp, state):
        return inp + state

    @tf.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        # [batch, time, features] -> [time, batch, features]
        input_data = tf.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = tf.TensorArray(tf.float32, size=max_seq_len)
        state = initial_state
        for i in tf.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])

    for _ in range(2):                  # the second call replays the trace
        x = tf.random.uniform([batch_size, seq_len, feature_size])
        out = dynamic_rnn(rnn_step, x, tf.zeros([batch_size, feature_size]))
        np.testing.assert_allclose(out.numpy(), np.cumsum(x.numpy(), axis=1), rtol=1e-6)
    assert dynamic_rnn.experimental_get_tracing_count() == 1
