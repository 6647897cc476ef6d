"""Keras 3 names of the variables Keras objects create (issue 16): ``name`` is short and
``path`` holds the name scopes. Expected values were read from keras 3 on
tensorflow-cpu 2.21 (layer counters aside)."""
import copy
import threading

import numpy as np
import pytest

import fasteager as fe

keras = fe.keras
L = keras.layers


def test_dense_built_alone():
    d = L.Dense(3, name="dense")
    d.build((None, 2))
    assert (d.kernel.name, d.kernel.path) == ("kernel", "dense/kernel")
    assert (d.bias.name, d.bias.path) == ("bias", "dense/bias")
    assert repr(d.bias) == ("<Variable path=dense/bias, shape=(3,), dtype=float32, "
                            "value=[0. 0. 0.]>")
    assert isinstance(d.kernel, fe.Variable)


def test_sequential_with_input_nests_its_name():
    m = keras.Sequential([keras.Input((2,)), L.Dense(3, name="d1"), L.Dense(1, name="out")],
                         name="seq")
    assert [(w.name, w.path) for w in m.weights] == [
        ("kernel", "seq/d1/kernel"), ("bias", "seq/d1/bias"),
        ("kernel", "seq/out/kernel"), ("bias", "seq/out/bias")]


def test_sequential_built_by_its_first_call_nests_its_name():
    m = keras.Sequential([L.Dense(2, name="a")], name="lazy")
    m(np.ones((1, 3), np.float32))
    assert [w.path for w in m.weights] == ["lazy/a/kernel", "lazy/a/bias"]


def test_functional_layers_are_built_outside_the_model():
    x = keras.Input((2,))
    y = L.Dense(2, name="f")(x)
    model = keras.Model(x, y, name="fm")
    assert [w.path for w in model.weights] == ["f/kernel", "f/bias"]


def test_subclassed_layer_nests_layers_built_in_its_call():
    class Block(L.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.d = L.Dense(2, name="inner")

        def build(self, shape):
            self.scale = self.add_weight(shape=(2,), initializer="ones", name="scale")

        def call(self, x):
            return self.d(x) * self.scale

    b = Block(name="block")
    b(np.ones((1, 2), np.float32))
    assert [(w.name, w.path) for w in b.weights] == [
        ("scale", "block/scale"), ("kernel", "block/inner/kernel"),
        ("bias", "block/inner/bias")]
    # the scope closed: a layer built afterwards is not nested
    d = L.Dense(1, name="after")
    d(np.ones((1, 2), np.float32))
    assert d.kernel.path == "after/kernel"


def test_scope_closes_when_a_call_raises():
    class Broken(L.Layer):
        def call(self, x):
            raise RuntimeError("boom")

    try:
        Broken(name="broken")(np.ones((1, 2), np.float32))
    except RuntimeError:
        pass
    d = L.Dense(1, name="clean")
    d(np.ones((1, 2), np.float32))
    assert d.kernel.path == "clean/kernel"


def test_recurrent_and_wrapper_paths():
    m = keras.Sequential([keras.Input((3, 2)), L.LSTM(2, name="lstm_w")], name="s")
    assert [(w.name, w.path) for w in m.weights] == [
        ("kernel", "s/lstm_w/lstm_cell/kernel"),
        ("recurrent_kernel", "s/lstm_w/lstm_cell/recurrent_kernel"),
        ("bias", "s/lstm_w/lstm_cell/bias")]
    bi = L.Bidirectional(L.GRU(2), name="bi")
    bi(np.zeros((1, 3, 2), np.float32))
    assert [w.path for w in bi.weights][::3] == [
        "bi/%s/gru_cell/kernel" % bi.forward_layer.name,
        "bi/%s/gru_cell/kernel" % bi.backward_layer.name]
    td = L.TimeDistributed(L.Dense(2, name="td_dense"), name="td")
    td(np.zeros((1, 3, 2), np.float32))
    assert td.weights[0].path == "td/td_dense/kernel"


def test_optimizer_and_metric_variables():
    m = keras.Sequential([keras.Input((2,)), L.Dense(1, name="d")], name="m")
    opt = keras.optimizers.Adam()
    opt.apply_gradients([(fe.ones_like(w), w) for w in m.trainable_variables])
    assert [(v.name, v.path) for v in opt.variables][:4] == [
        ("iteration", "adam/iteration"), ("learning_rate", "adam/learning_rate"),
        ("m_d_kernel_momentum", "adam/m_d_kernel_momentum"),
        ("m_d_kernel_velocity", "adam/m_d_kernel_velocity")]
    rms = keras.optimizers.RMSprop(momentum=0.9, centered=True)
    rms.apply_gradients([(fe.ones_like(w), w) for w in m.trainable_variables])
    assert [v.name for v in rms.variables][2:5] == [
        "m_d_kernel_velocity", "m_d_kernel_momentum", "m_d_kernel_average_gradient"]
    mean = keras.metrics.Mean(name="mean")
    assert [(v.name, v.path) for v in mean.variables] == [("total", "mean/total"),
                                                          ("count", "mean/count")]


def test_plain_variables_keep_tensorflow_names():
    v = fe.Variable(1.0)
    assert v.name == "Variable:0" and not hasattr(v, "path")
    assert fe.Variable(1.0, name="w").name == "w:0"


def test_deepcopy_keeps_names_and_scopes_are_per_thread():
    d = L.Dense(1, name="c")
    d.build((None, 2))
    k = copy.deepcopy(d.kernel)
    assert (k.name, k.path) == ("kernel", "c/kernel") and k is not d.kernel
    seen = []

    class Slow(L.Layer):
        def call(self, x):
            t = threading.Thread(target=lambda: seen.append(self._thread_dense()))
            t.start()
            t.join()
            return x

        def _thread_dense(self):
            other = L.Dense(1, name="other_thread")
            other.build((None, 2))
            return other.kernel.path

    Slow(name="outer")(np.ones((1, 2), np.float32))
    assert seen == ["other_thread/kernel"]     # another thread's scopes are its own


def test_tensorboard_histograms_are_tagged_by_path(tmp_path):
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    model = keras.Sequential([keras.Input((2,)), L.Dense(2, name="h1"), L.Dense(1, name="h2")],
                             name="tb")
    model.compile("sgd", "mse")
    x = np.ones((8, 2), np.float32)
    model.fit(x, np.ones((8, 1), np.float32), epochs=1, verbose=0,
              callbacks=[keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=1)])
    acc = ea.EventAccumulator(str(tmp_path / "train"), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    tags = set(acc.Tags()["tensors"]) | set(acc.Tags()["histograms"])
    assert {"tb/h1/kernel/histogram", "tb/h1/bias/histogram", "tb/h2/kernel/histogram",
            "tb/h2/bias/histogram"} <= tags, tags


def test_keras_variable_assign_returns_the_value_as_keras_3():
    d = L.Dense(2, name="asg")
    d.build((None, 2))
    r = d.bias.assign_add(np.ones(2, np.float32))
    assert isinstance(r, fe.Tensor)
    np.testing.assert_array_equal(r.numpy(), [1.0, 1.0])
    assert isinstance(d.kernel.assign(np.zeros((2, 2), np.float32)), fe.Tensor)
    assert d.bias.assign_sub(np.ones(2, np.float32), read_value=False) is None
    np.testing.assert_array_equal(d.bias.numpy(), [0.0, 0.0])
