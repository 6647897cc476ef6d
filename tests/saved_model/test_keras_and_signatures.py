"""fe.saved_model for Keras models (Sequential, functional, subclassed; save and export)
and the signatures= of the TensorFlow guide: reloaded without the Python classes, the
same outputs bit for bit, the same gradients, dicts of named outputs."""
import os

import numpy as np
import pytest

import fasteager as tf


def _sequential():
    return tf.keras.Sequential([tf.keras.layers.Flatten(),
                                tf.keras.layers.Dense(5, activation="relu"),
                                tf.keras.layers.Dense(2)])


def _functional():
    x = tf.keras.Input(shape=(3, 2), name="pixels")
    h = tf.keras.layers.Flatten()(x)
    h = tf.keras.layers.Dense(4, activation="tanh")(h)
    return tf.keras.Model(x, tf.keras.layers.Dense(2, name="logits")(h))


class _Subclassed(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.flatten = tf.keras.layers.Flatten()
        self.hidden = tf.keras.layers.Dense(4, activation="sigmoid")
        self.drop = tf.keras.layers.Dropout(0.5)
        self.out = tf.keras.layers.Dense(2)

    def call(self, x, training=None):
        return self.out(self.drop(self.hidden(self.flatten(x)), training=training))


def _recurrent():
    # the LSTM's zero initial state (batch, units) is a constant that follows the batch
    return tf.keras.Sequential([tf.keras.layers.LSTM(4), tf.keras.layers.Dense(2)])


def _x(n, seed=0):
    return np.random.RandomState(seed).randn(n, 3, 2).astype(np.float32)


def _grads(fn, variables, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(fn(x) ** 2)
    return [g.numpy() for g in tape.gradient(loss, variables)]


@pytest.mark.parametrize("make", [_sequential, _functional, _Subclassed, _recurrent],
                         ids=["sequential", "functional", "subclassed", "lstm"])
def test_keras_model_save_load(tmp_path, make):
    model = make()
    model(_x(4))
    path = str(tmp_path / "model")
    tf.saved_model.save(model, path)
    loaded = tf.saved_model.load(path)
    assert not isinstance(loaded, tf.keras.Model)
    assert list(loaded.signatures.keys()) == ["serving_default"]
    for n in (1, 4, 9):                      # the batch dimension is None: any size
        x = _x(n, seed=n)
        want = model(x, training=False).numpy()
        np.testing.assert_array_equal(loaded(x).numpy(), want)
        out = loaded.signatures["serving_default"](inputs=tf.constant(x))
        assert list(out) == ["output_0"]
        np.testing.assert_array_equal(out["output_0"].numpy(), want)
    # TensorFlow restores a Keras 3 weight (path 'sequential/dense/kernel') as a
    # tf.Variable named 'sequential/dense/kernel:0'
    assert [v.name for v in loaded.variables] == [v.path + ":0" for v in model.variables]
    assert len(loaded.trainable_variables) == len(model.trainable_variables) >= 4
    for a, b in zip(loaded.variables, model.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    x = _x(3, seed=7)
    for g_loaded, g_model in zip(_grads(loaded, loaded.trainable_variables, x),
                                 _grads(lambda t: model(t, training=False),
                                        model.trainable_variables, x)):
        np.testing.assert_array_equal(g_loaded, g_model)


def test_export_serve_endpoint_and_named_inputs(tmp_path, capsys):
    a = tf.keras.Input(shape=(3,), name="a")
    b = tf.keras.Input(shape=(2,), name="b")
    h = tf.keras.layers.Concatenate()([a, b])
    model = tf.keras.Model([a, b], tf.keras.layers.Dense(1, name="out")(h))
    path = str(tmp_path / "exported")
    model.export(path)
    assert "Saved artifact at" in capsys.readouterr().out
    loaded = tf.saved_model.load(path)
    xa = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    xb = np.random.RandomState(1).randn(5, 2).astype(np.float32)
    want = model([xa, xb]).numpy()
    np.testing.assert_array_equal(loaded.serve([xa, xb]).numpy(), want)
    got = loaded.signatures["serving_default"](a=xa, b=xb)
    np.testing.assert_array_equal(got["output_0"].numpy(), want)
    assert len(loaded.variables) == 2
    # inputs of another batch size each: fine; inputs disagreeing on the batch: refused
    np.testing.assert_array_equal(loaded.serve([xa[:2], xb[:2]]).numpy(),
                                  model([xa[:2], xb[:2]]).numpy())
    with pytest.raises(ValueError):
        loaded.serve([xa, xb[:2]])
    with pytest.raises(ValueError, match="format"):
        model.export(str(tmp_path / "x"), format="onnx")


def test_keras_model_not_built_raises(tmp_path):
    with pytest.raises(ValueError, match="not yet been built"):
        tf.saved_model.save(_sequential(), str(tmp_path / "m"))


class CustomModule(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(1.)

    @tf.function
    def __call__(self, x):
        return x * self.v


def test_guide_signatures(tmp_path):
    module = CustomModule()
    module(tf.constant(0.))
    tf.saved_model.save(module, str(tmp_path / "none"))
    assert len(tf.saved_model.load(str(tmp_path / "none")).signatures) == 0
    call = module.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    tf.saved_model.save(module, str(tmp_path / "one"), signatures=call)
    one = tf.saved_model.load(str(tmp_path / "one"))
    assert list(one.signatures.keys()) == ["serving_default"]
    assert float(one.signatures["serving_default"](x=tf.constant(3.))["output_0"]) == 3.0
    signatures = {"serving_default": call,
                  "array_input": module.__call__.get_concrete_function(
                      tf.TensorSpec([None], tf.float32))}
    tf.saved_model.save(module, str(tmp_path / "two"), signatures=signatures)
    two = tf.saved_model.load(str(tmp_path / "two"))
    assert sorted(two.signatures.keys()) == ["array_input", "serving_default"]
    module.v.assign(2.0)                        # the saved value is what the files hold
    for n in (1, 3, 6):                         # TensorSpec([None]): every length
        x = tf.constant(np.arange(n, dtype=np.float32))
        np.testing.assert_array_equal(two.signatures["array_input"](x)["output_0"].numpy(),
                                      x.numpy())
    with pytest.raises(TypeError, match="unexpected input"):
        two.signatures["array_input"](y=tf.constant([1.0]))
    with pytest.raises(TypeError, match="missing"):
        two.signatures["array_input"]()


def test_guide_output_names_and_structured_outputs(tmp_path):
    class CustomModuleWithOutputName(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.)

        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def __call__(self, x):
            return {'custom_output_name': x * self.v}
    module_output = CustomModuleWithOutputName()
    call_output = module_output.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    path = str(tmp_path / "named")
    tf.saved_model.save(module_output, path, signatures={'serving_default': call_output})
    imported = tf.saved_model.load(path)
    sig = imported.signatures['serving_default']
    spec = sig.structured_outputs["custom_output_name"]
    assert list(sig.structured_outputs) == ["custom_output_name"]
    assert spec.dtype == tf.float32 and spec.name == "custom_output_name"
    assert float(sig(x=tf.constant(4.0))["custom_output_name"]) == 4.0


def test_signature_errors(tmp_path):
    module = CustomModule()
    with pytest.raises(tf.errors.InvalidArgumentError, match="input_signature"):
        tf.saved_model.save(module, str(tmp_path / "a"), signatures=module.__call__)
    with pytest.raises(tf.errors.InvalidArgumentError, match="signatures must be"):
        tf.saved_model.save(module, str(tmp_path / "b"), signatures=[1])
    tuple_out = tf.function(lambda x: (x, 2.0 * x),
                            input_signature=[tf.TensorSpec([2], tf.float32)])
    module.pair = tuple_out
    tf.saved_model.save(module, str(tmp_path / "c"), signatures=tuple_out)
    out = tf.saved_model.load(str(tmp_path / "c")).signatures["serving_default"](
        tf.constant([1.0, 2.0]))
    assert sorted(out) == ["output_0", "output_1"]
    np.testing.assert_array_equal(out["output_1"].numpy(), [2.0, 4.0])


def test_saved_files_are_fasteager_format(tmp_path):
    model = _functional()
    model(_x(2))
    path = str(tmp_path / "m")
    tf.saved_model.save(model, path)
    assert sorted(os.listdir(path)) == ["constants.safetensors", "fasteager_saved_model.json",
                                        "variables.safetensors"]


def test_export_with_input_signature(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    model(np.ones((1, 3), np.float32))
    path = str(tmp_path / "sig")
    model.export(path, verbose=False,
                 input_signature=[tf.TensorSpec((None, 3), tf.float32, name="features")])
    loaded = tf.saved_model.load(path)
    x = np.random.RandomState(3).randn(6, 3).astype(np.float32)
    out = loaded.signatures["serving_default"](features=x)
    np.testing.assert_array_equal(out["output_0"].numpy(), model(x).numpy())
    assert "__call__" not in loaded.__dict__         # Keras's export has serve only
