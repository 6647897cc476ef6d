"""fe.saved_model: custom_gradient calls keep their custom gradient after loading (orders 1
and 2); functions with None dimensions in their input_signature are saved shape-generic
(attributes and integer constants that follow the sizes are fitted), and what cannot be
is refused at save time, naming the op."""
import numpy as np
import pytest

import fasteager as tf


@tf.custom_gradient
def clip_gradient(x):
    def grad(dy):
        return tf.clip_by_value(dy, -0.1, 0.1)     # not the true gradient (1)
    return tf.identity(x), grad


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tf.math.log(1 + e), grad


@tf.custom_gradient
def scaled(x):
    # reads a variable: grad_fn gives (input gradients, variable gradients)
    y = x * Clipped.scale

    def grad(dy, variables=None):
        return [dy * 0.5], [tf.reduce_sum(dy * x) * 3.0]
    return y, grad


class Clipped(tf.Module):
    scale = None

    def __init__(self):
        super().__init__()
        self.v = tf.Variable([1.0, 2.0, 3.0])
        self.s = tf.Variable(2.0)
        Clipped.scale = self.s

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64)])
    def f(self, x):
        y = clip_gradient(x * tf.cast(self.v, tf.float64)) ** 2
        return tf.reduce_sum(y, axis=1) + log1pexp(x)[:, 0]

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64)])
    def h(self, x):
        return tf.reduce_sum(clip_gradient(x) * 3.0)

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def g(self, x):
        return tf.reduce_sum(scaled(x) ** 2)


def _x(n):
    return tf.constant(np.random.RandomState(n).randn(n, 3))


def _first_and_second(fn, x, variables):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(fn(x))
        grads = inner.gradient(y, [x] + list(variables))
        z = tf.reduce_sum(grads[0] ** 2)
    second = outer.gradient(z, x)
    return y, grads, second


def test_custom_gradient_survives_save_and_load(tmp_path):
    m = Clipped()
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    for n in (2, 5):
        x = _x(n)
        y0, g0, s0 = _first_and_second(m.f, x, [m.v])
        y1, g1, s1 = _first_and_second(loaded.f, x, [loaded.v])
        np.testing.assert_array_equal(y1.numpy(), y0.numpy())
        for a, b in zip(g1, g0):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
        np.testing.assert_allclose(s1.numpy(), s0.numpy(), rtol=1e-12)
    # the loaded gradient is the clipped one: the true gradient of sum(3 x) is 3
    x = tf.constant([[10.0, -10.0, 0.5]], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loaded.h(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0.1, 0.1, 0.1]])


def test_custom_gradient_with_variables(tmp_path):
    m = Clipped()
    tf.saved_model.save(m, str(tmp_path / "v"))
    loaded = tf.saved_model.load(str(tmp_path / "v"))
    x = tf.constant([1.0, -2.0, 0.5])
    for mod in (m, loaded):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = mod.g(x)
        gx, gs = tape.gradient(y, [x, mod.s])
        # dy/d(scaled) = 2 * scaled(x) = 4x; the custom rule halves it for x, and gives
        # 3 * sum(4x * x) for the variable
        np.testing.assert_allclose(gx.numpy(), 0.5 * 4 * x.numpy(), rtol=1e-6)
        np.testing.assert_allclose(gs.numpy(), 3.0 * np.sum(4 * x.numpy() ** 2), rtol=1e-6)


def test_without_custom_gradients_option_the_ops_gradient_is_used(tmp_path):
    m = Clipped()
    options = tf.saved_model.SaveOptions(experimental_custom_gradients=False)
    tf.saved_model.save(m, str(tmp_path / "plain"), options=options)
    loaded = tf.saved_model.load(str(tmp_path / "plain"))
    x = tf.constant([1.0, -2.0, 0.5])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loaded.g(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * 2.0 * x.numpy() * 2.0,
                               rtol=1e-6)


def test_shape_generic_reshape_and_integer_constants(tmp_path):
    class Shapes(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, None, 2], tf.float32)])
        def flat(self, x):
            return tf.reshape(x, [tf.shape(x)[0], tf.shape(x)[1] * 2]), tf.shape(x) + 1
    m = Shapes()
    tf.saved_model.save(m, str(tmp_path / "s"))
    loaded = tf.saved_model.load(str(tmp_path / "s"))
    for shape in [(1, 1, 2), (4, 3, 2), (6, 7, 2), (2, 0, 2)]:
        x = tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
        (a, sa), (b, sb) = loaded.flat(x), m.flat(x)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        np.testing.assert_array_equal(sa.numpy(), sb.numpy())
    with pytest.raises(TypeError, match="Can not cast"):   # TensorFlow 2.21: TypeError
        loaded.flat(tf.zeros([2, 3, 4]))


def test_shape_dependence_that_cannot_be_fitted_is_refused(tmp_path):
    class Halves(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def first_half(self, x):
            return x[: x.shape[0] // 2]
    with pytest.raises(tf.errors.UnimplementedError, match="getitem|strided_slice|slice"):
        tf.saved_model.save(Halves(), str(tmp_path / "h"))

    class Square(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
        def f(self, x):
            return tf.matmul(x, x)            # needs equal sizes: tracing at 2 x 3 fails
    with pytest.raises(tf.errors.UnimplementedError, match="tracing it at sizes"):
        tf.saved_model.save(Square(), str(tmp_path / "q"))


def test_batch_size_shared_by_inputs(tmp_path):
    class Two(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32),
                                      tf.TensorSpec([None, 3], tf.float32)])
        def f(self, x, y):
            return tf.reshape(x + y, [tf.shape(x)[0] * 3])
    m = Two()
    tf.saved_model.save(m, str(tmp_path / "t"))
    loaded = tf.saved_model.load(str(tmp_path / "t"))
    x = tf.ones([4, 3])
    np.testing.assert_array_equal(loaded.f(x, x).numpy(), m.f(x, x).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="one size"):
        loaded.f(x, tf.ones([2, 3]))
    # the save traced at other sizes privately: the function's own traces are unchanged
    assert m.f.experimental_get_tracing_count() == 1


def test_shape_generic_product_of_sizes(tmp_path):
    class Flatten(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, None, None], tf.float32)])
        def f(self, x):
            return tf.reshape(x, [tf.shape(x)[0], tf.shape(x)[1] * tf.shape(x)[2]]) * 2.0
    m = Flatten()
    tf.saved_model.save(m, str(tmp_path / "p"))
    loaded = tf.saved_model.load(str(tmp_path / "p"))
    for shape in [(1, 4, 5), (3, 2, 7), (2, 6, 1)]:
        x = tf.constant(np.random.RandomState(0).randn(*shape).astype(np.float32))
        np.testing.assert_array_equal(loaded.f(x).numpy(), m.f(x).numpy())
