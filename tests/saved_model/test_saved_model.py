"""fe.saved_model: save a Module with its fe.function traces, load it without its class,
call and differentiate the loaded functions; the clear errors for what cannot be saved."""
import json
import os

import numpy as np
import pytest

import fasteager as tf
from tests.gradcheck import check_grads


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name='w')
        self.b = tf.Variable(tf.zeros([out_features]), name='b')

    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


class MySequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    @tf.function
    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64)])
    def smooth(self, x):
        w = tf.cast(self.dense_1.w, tf.float64)
        return {"tanh": tf.tanh(tf.matmul(x, w)), "sum": tf.reduce_sum(x * x, axis=1)}


def test_guide_save_and_load(tmp_path):
    my_model = MySequentialModule(name="the_model")
    a = my_model([[2.0, 2.0, 2.0]])
    b = my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]])
    path = str(tmp_path / "the_saved_model")
    tf.saved_model.save(my_model, path)
    assert sorted(os.listdir(path)) == ["constants.safetensors", "fasteager_saved_model.json",
                                        "variables.safetensors"]
    new_model = tf.saved_model.load(path)
    assert not isinstance(new_model, MySequentialModule)
    np.testing.assert_array_equal(new_model([[2.0, 2.0, 2.0]]).numpy(), a.numpy())
    np.testing.assert_array_equal(new_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]).numpy(),
                                  b.numpy())
    # the variables come back, by attribute path, with their names
    np.testing.assert_array_equal(new_model.dense_1.w.numpy(), my_model.dense_1.w.numpy())
    assert new_model.dense_2.b.name == "b:0"
    assert len(new_model.trainable_variables) == 4
    with pytest.raises(tf.errors.InvalidArgumentError, match="matches none"):
        new_model([[1.0, 2.0, 3.0]])       # a signature that was never traced


def test_input_signature_traced_at_save_and_differentiable(tmp_path):
    model = MySequentialModule()
    model(tf.ones([1, 3]))
    path = str(tmp_path / "m")
    tf.saved_model.save(model, path)       # smooth was never called: traced for its signature
    loaded = tf.saved_model.load(path)
    x = np.random.RandomState(1).randn(1, 3)
    got = loaded.smooth(x)
    want = model.smooth(x)
    np.testing.assert_allclose(got["tanh"].numpy(), want["tanh"].numpy(), rtol=1e-12)
    np.testing.assert_allclose(got["sum"].numpy(), want["sum"].numpy(), rtol=1e-12)
    check_grads(lambda t: loaded.smooth(t)["tanh"], [x], order=2)
    # gradients reach the loaded variables
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(loaded.smooth(x)["tanh"])
    g = tape.gradient(y, loaded.dense_1.w)
    with tf.GradientTape() as tape:
        y2 = tf.reduce_sum(model.smooth(x)["tanh"])
    np.testing.assert_allclose(g.numpy(), tape.gradient(y2, model.dense_1.w).numpy(),
                               rtol=1e-5)


def test_loaded_variables_are_live(tmp_path):
    model = MySequentialModule()
    x = tf.ones([1, 3])
    model(x)
    path = str(tmp_path / "live")
    tf.saved_model.save(model, path)
    loaded = tf.saved_model.load(path)
    loaded.dense_2.b.assign([5.0, 5.0])
    model.dense_2.b.assign([5.0, 5.0])
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


def test_what_cannot_be_saved_raises(tmp_path):
    class Prints(tf.Module):
        @tf.function
        def show(self, x):
            tf.print(x)
            return x
    m = Prints()
    m.show(tf.constant(1.0))
    with pytest.raises(tf.errors.UnimplementedError, match="print"):
        tf.saved_model.save(m, str(tmp_path / "a"))

    class Never(tf.Module):
        @tf.function
        def f(self, x):
            return x
    tf.saved_model.save(Never(), str(tmp_path / "n"))     # saved with no traces, as in TF
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 traced signatures"):
        tf.saved_model.load(str(tmp_path / "n")).f(tf.constant(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="trackable"):
        tf.saved_model.save(3, str(tmp_path / "x"))


def test_guide_mutate_assigns_variables(tmp_path):
    class CustomModule(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.)

        @tf.function
        def __call__(self, x):
            return x * self.v

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def mutate(self, new_v):
            self.v.assign(new_v)

        @tf.function
        def bump(self, x):
            self.v.assign_add(x)
            return self.v * 2.0               # a read after the write
    module = CustomModule()
    module(tf.constant(0.))
    module.bump(tf.constant(0.0))
    tf.saved_model.save(module, str(tmp_path / "m"))
    assert float(module.v) == 1.0            # tracing mutate at save time wrote nothing
    imported = tf.saved_model.load(str(tmp_path / "m"))
    assert imported(tf.constant(3.)).numpy() == 3
    imported.mutate(tf.constant(2.))
    assert imported(tf.constant(3.)).numpy() == 6
    assert float(imported.bump(tf.constant(1.0))) == 6.0 and float(imported.v) == 3.0
    assert float(module.v) == 1.0            # the original is untouched
    # the guide's fine-tuning loop through the loaded function
    optimizer = tf.keras.optimizers.SGD(0.05)
    for _ in range(10):
        with tf.GradientTape() as tape:
            loss = (10. - imported(tf.constant(2.))) ** 2
        variables = tape.watched_variables()
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    assert abs(float(imported.v) - 5.0) < 0.05


def test_load_errors(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="no fasteager SavedModel"):
        tf.saved_model.load(str(tmp_path))
    model = MySequentialModule()
    path = str(tmp_path / "m")
    tf.saved_model.save(model, path)
    graph = os.path.join(path, "fasteager_saved_model.json")
    with open(graph) as f:
        desc = json.load(f)
    desc["format"] = "something-else"
    with open(graph, "w") as f:
        json.dump(desc, f)
    with pytest.raises(tf.errors.DataLossError, match="not a fasteager SavedModel"):
        tf.saved_model.load(path)


def test_python_values_returned_by_a_traced_function(tmp_path):
    # a returned int is a value, not a graph register (it used to index the registers)
    class Consts(tf.Module):
        @tf.function
        def f(self):
            return 3

        @tf.function
        def g(self, x):
            return x * 2.0, 7, {"k": 1}
    m = Consts()
    assert m.f() == 3 and m.f() == 3
    out = [m.g(tf.constant(1.0)), m.g(tf.constant(1.0))]
    for y, seven, d in out:
        assert float(y) == 2.0 and seven == 7 and d == {"k": 1}
    tf.saved_model.save(m, str(tmp_path / "c"))
    loaded = tf.saved_model.load(str(tmp_path / "c"))
    assert loaded.f() == 3
    y, seven, d = loaded.g(tf.constant(1.0))
    assert float(y) == 2.0 and seven == 7 and d == {"k": 1}
