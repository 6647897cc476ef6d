"""fe.saved_model for functions with fe.cond and fe.while_loop: the control steps are saved
as nested sub-graphs; loaded functions take either branch and any iteration count, and
their gradients (orders 1 and 2, inputs and variables) match the original's. Older format
versions still load; what stays unsaveable is refused with a clear error."""
import numpy as np
import pytest

import fasteager as tf
from tests.gradcheck import check_grads
from tests.saved_model._files import read_description, write_copy


class Controlled(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)
        self.iterations = tf.Variable(0)
        self.scale = tf.constant(1.5, tf.float64)

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float64), tf.TensorSpec([], tf.int32)])
    def f(self, x, n):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.sin(x) * self.v, lambda: x - self.v)
        i, s = tf.while_loop(lambda i, s: i < n,
                             lambda i, s: (i + 1, s * self.scale + y * tf.cos(s)), (0, x))
        self.iterations.assign_add(i)
        return s

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def grow(self, x):
        # shape-generic (a None dimension), bounded by maximum_iterations
        return tf.while_loop(lambda s: tf.reduce_sum(s) < 100.0, lambda s: s * 2.0 + 1.0,
                             [x], maximum_iterations=5)[0]

    @tf.function(input_signature=[tf.TensorSpec([], tf.float64)])
    def nested(self, x):
        def body(i, acc):
            acc = tf.cond(i % 2 == 0, lambda: acc + x * tf.cast(i, tf.float64),
                          lambda: tf.while_loop(lambda k, a: k < i, lambda k, a: (k + 1, a * x),
                                                (0, acc))[1])
            return i + 1, acc
        return tf.while_loop(lambda i, acc: i < 4, body, (0, tf.constant(1.0, tf.float64)))[1]

    @tf.function(input_signature=[tf.TensorSpec([], tf.float64)])
    def write_in_branch(self, x):
        tf.cond(x > 0, lambda: self.v.assign_add([1.0, 1.0, 1.0]),
                lambda: self.v.assign_sub([1.0, 1.0, 1.0]))
        return self.v * x


@pytest.fixture()
def saved(tmp_path):
    module = Controlled()
    path = str(tmp_path / "controlled")
    tf.saved_model.save(module, path)
    return module, tf.saved_model.load(path), path


def _args(x, n):
    return tf.constant(x, tf.float64), tf.constant(n)


@pytest.mark.parametrize("x, n", [([0.3, 0.6, -0.2], 0), ([0.3, 0.6, -0.2], 1),
                                  ([0.3, 0.6, -0.2], 4), ([-0.5, -0.1, 0.2], 3)])
def test_both_branches_and_any_iteration_count(saved, x, n):
    module, loaded, _ = saved
    np.testing.assert_allclose(loaded.f(*_args(x, n)).numpy(), module.f(*_args(x, n)).numpy(),
                               rtol=1e-12)
    assert int(loaded.iterations.numpy()) == n and int(module.iterations.numpy()) == n


@pytest.mark.parametrize("x, n", [([0.3, 0.6, -0.2], 3), ([-0.5, -0.1, 0.2], 2)])
def test_gradients_match_the_original(saved, x, n):
    module, loaded, _ = saved
    xs, ns = _args(x, n)
    grads = []
    for m in (module, loaded):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xs)
            y = tf.reduce_sum(m.f(xs, ns) ** 2)
        grads.append([g.numpy() for g in tape.gradient(y, [xs, m.v])])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-10)
    # and against finite differences, orders 1 and 2, through the loaded graph
    check_grads(lambda x: loaded.f(x, ns), [np.array(x)])


def test_shape_generic_loop_with_maximum_iterations(saved):
    module, loaded, _ = saved
    for x in ([1.0], [1.0, 2.0, 3.0], [200.0, 1.0], [0.0] * 7):
        x = tf.constant(x, tf.float32)
        np.testing.assert_array_equal(loaded.grow(x).numpy(), module.grow(x).numpy())
    # five doublings at most: 0 -> 31
    assert loaded.grow(tf.constant([0.0])).numpy().tolist() == [31.0]


def test_maximum_iterations_from_a_none_dimension(tmp_path):
    module = tf.Module()
    module.f = tf.function(
        lambda x: tf.while_loop(lambda s: tf.reduce_sum(s) < 1e6, lambda s: s * 2.0, [x],
                                maximum_iterations=x.shape[0])[0],
        input_signature=[tf.TensorSpec([None], tf.float32)])
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    for n in (1, 2, 4, 9):           # at most n doublings, n the call's size
        assert loaded.f(tf.ones([n])).numpy().tolist() == [2.0 ** n] * n


def test_nested_control_flow(saved):
    module, loaded, _ = saved
    for x in (0.5, -1.5, 2.0):
        x = tf.constant(x, tf.float64)
        np.testing.assert_allclose(loaded.nested(x).numpy(), module.nested(x).numpy(),
                                   rtol=1e-12)
    check_grads(loaded.nested, [np.array(0.7)])


def test_variable_writes_inside_branches(saved):
    module, loaded, _ = saved
    np.testing.assert_allclose(loaded.write_in_branch(tf.constant(2.0, tf.float64)).numpy(),
                               [4.0, 6.0, 8.0])
    np.testing.assert_allclose(loaded.write_in_branch(tf.constant(-1.0, tf.float64)).numpy(),
                               [-1.0, -2.0, -3.0])
    np.testing.assert_allclose(loaded.v.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(module.v.numpy(), [1.0, 2.0, 3.0])   # the original untouched


def test_the_file_holds_nested_graphs(saved):
    description = read_description(saved[2])
    assert description["format"] == "fasteager-saved-model-3"
    steps = description["functions"]["f"]["traces"][0]["steps"]
    controls = [s for s in steps if "control" in s]
    assert [s["control"] for s in controls] == ["cond", "while_loop"]
    loop = controls[1]
    assert loop["loop_vars"] == 2 and loop["maximum_iterations"] is None
    assert all(set(g) >= {"inputs", "steps", "outputs", "consts", "variables"}
               for s in controls for g in s["graphs"])


def test_signature_with_a_cond(tmp_path):
    module = tf.Module()
    module.f = tf.function(lambda x: tf.cond(x > 0, lambda: x * 2.0, lambda: -x),
                           input_signature=[tf.TensorSpec([], tf.float32, name="x")])
    tf.saved_model.save(module, str(tmp_path / "m"), signatures=module.f)
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    serve = loaded.signatures["serving_default"]
    assert float(serve(x=tf.constant(3.0))["output_0"]) == 6.0
    assert float(serve(x=tf.constant(-3.0))["output_0"]) == 3.0


def test_keras_layer_with_a_cond(tmp_path):
    class Gate(tf.keras.layers.Layer):
        def call(self, x):
            return tf.cond(tf.reduce_mean(x) > 0, lambda: x * 2.0, lambda: x * 0.5)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3), Gate()])
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
    model(x)
    tf.saved_model.save(model, str(tmp_path / "k"))
    loaded = tf.saved_model.load(str(tmp_path / "k"))
    for batch in (x, -x, x[:1]):
        np.testing.assert_allclose(loaded(batch).numpy(), model(batch).numpy(), rtol=1e-6)


def test_an_older_format_still_loads_and_may_not_hold_control_steps(tmp_path, saved):
    module = tf.Module()
    module.v = tf.Variable(2.0)
    module.f = tf.function(lambda x: x * module.v,
                           input_signature=[tf.TensorSpec([], tf.float32)])
    path = str(tmp_path / "plain")
    tf.saved_model.save(module, path)
    _, _, controlled = saved
    for directory in (path, controlled):
        description = read_description(directory)
        description["format"] = "fasteager-saved-model-2"
        write_copy(directory, directory, description)
    assert float(tf.saved_model.load(path).f(tf.constant(3.0))) == 6.0
    # a control step in a version-2 file is corruption
    with pytest.raises(tf.errors.DataLossError, match="control step"):
        tf.saved_model.load(controlled)


def test_a_gradient_across_control_flow_inside_the_function_is_refused(tmp_path):
    module = tf.Module()

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cond(x > 0, lambda: x * x, lambda: -x)
        return tape.gradient(y, x)
    module.f = tf.function(f, input_signature=[tf.TensorSpec([], tf.float32)])
    assert float(module.f(tf.constant(3.0))) == 6.0
    with pytest.raises(tf.errors.UnimplementedError, match="gradient across fe.cond"):
        tf.saved_model.save(module, str(tmp_path / "m"))


def test_a_function_calling_next_is_refused_with_tensorflows_reason(tmp_path):
    it = iter(tf.data.Dataset.range(3))
    module = tf.Module()
    module.f = tf.function(lambda: next(it) + 1, input_signature=[])
    with pytest.raises(tf.errors.UnimplementedError, match="'untracked' resource"):
        tf.saved_model.save(module, str(tmp_path / "untracked"))
    module.it = it                       # tracked: TensorFlow would save it
    with pytest.raises(tf.errors.UnimplementedError, match="fasteager does not"):
        tf.saved_model.save(module, str(tmp_path / "tracked"))
    assert int(next(it)) == 0            # saving took no element
