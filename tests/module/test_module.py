"""fe.Module: naming, tracking order, name scopes, and the intro_to_modules guide's programs."""
import numpy as np
import pytest

import fasteager as tf
from fasteager import Module, name_scope


class Dense(Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name='w')
        self.b = tf.Variable(tf.zeros([out_features]), name='b')

    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


class SequentialModule(Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


def test_guide_simple_module():
    class SimpleModule(Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.a_variable = tf.Variable(5.0, name="train_me")
            self.non_trainable_variable = tf.Variable(5.0, trainable=False, name="do_not_train_me")

        def __call__(self, x):
            return self.a_variable * x + self.non_trainable_variable

    simple_module = SimpleModule(name="simple")
    assert float(simple_module(tf.constant(5.0))) == 30.0
    assert [v.name for v in simple_module.trainable_variables] == ["train_me:0"]
    # sorted by attribute name: a_variable before non_trainable_variable
    assert [v.name for v in simple_module.variables] == ["train_me:0", "do_not_train_me:0"]
    assert [v.name for v in simple_module.non_trainable_variables] == ["do_not_train_me:0"]
    assert simple_module.name == "simple"


def test_guide_sequential_module_order_and_submodules():
    my_model = SequentialModule(name="the_model")
    out = my_model(tf.constant([[2.0, 2.0, 2.0]]))
    assert out.shape == (1, 2)
    subs = my_model.submodules
    assert isinstance(subs, tuple) and subs == (my_model.dense_1, my_model.dense_2)
    # own attributes sorted by name, then sub-modules depth first
    assert my_model.variables == (my_model.dense_1.b, my_model.dense_1.w,
                                  my_model.dense_2.b, my_model.dense_2.w)


def test_default_name_is_snake_case_and_names_are_validated():
    class MyHTTPModule2(Module):
        pass
    assert MyHTTPModule2().name == "my_http_module2"
    assert SequentialModule().name == "sequential_module"
    for bad in ("1abc", "a b", "a/b", "", 3):
        with pytest.raises(ValueError, match="not a valid module name"):
            Module(name=bad)


def test_tracks_nested_containers_each_variable_once():
    class Holder(Module):
        def __init__(self):
            super().__init__()
            a, b, c = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b"), \
                tf.Variable(3.0, name="c")
            self.z = {"y": [a, (b,)], "x": c}     # dict entries by sorted key: x before y
            self.again = a                         # seen once
            self.child = Module(name="child")
            self.child.v = tf.Variable(4.0, name="v")
            self.mods = [Module(name="m0")]
    h = Holder()
    # attribute order: again, child, mods, z; then sub-modules child, m0
    assert [v.name for v in h.variables] == ["a:0", "c:0", "b:0", "v:0"]
    assert [m.name for m in h.submodules] == ["child", "m0"]
    paths = [p for p, _ in h._flatten(predicate=lambda x: isinstance(x, tf.Variable),
                                      with_path=True)]
    assert ("z", "y", 0) in paths and ("again",) in paths and ("child", "v") in paths


def test_cycles_terminate():
    a, b = Module(name="a"), Module(name="b")
    a.b, b.a = b, a
    a.v = tf.Variable(1.0)
    assert a.submodules == (b,)
    assert len(a.variables) == 1


def test_name_scope_and_with_name_scope():
    with name_scope("outer") as scope:
        assert scope == "outer/"
        m = Module(name="inner")
    assert m.name_scope.name == "outer/inner/"

    class Scoped(Module):
        @Module.with_name_scope
        def where(self):
            with name_scope("op") as s:
                return s
    assert Scoped(name="s").where() == "s/op/"
    with name_scope("abs/") as s:
        assert s == "abs/"


def test_training_loop_on_module_variables():
    tf.random.set_seed(0)
    model = SequentialModule()
    x = tf.random.normal([16, 3])
    y = tf.random.normal([16, 2])
    opt = tf.keras.optimizers.SGD(0.1)
    losses = []
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    assert losses[-1] < losses[0]


def test_module_in_function():
    model = SequentialModule()
    f = tf.function(model)
    x = tf.constant([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(f(x).numpy(), model(x).numpy(), rtol=1e-6)
