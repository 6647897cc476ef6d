"""A layer's call with Python control flow on tensors, inside fe.function and fit:
AutoGraph converts it (as TensorFlow's Keras does), so it is traced once, not run eagerly."""
import warnings

import numpy as np

import fasteager as fe


class Gate(fe.keras.layers.Layer):
    def call(self, x):
        if fe.reduce_sum(x) > 0:
            return x * 2.0
        return -x


class Gated(fe.keras.Model):
    def __init__(self):
        super().__init__()
        self.gate = Gate()
        self.dense = fe.keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, x):
        return self.dense(self.gate(x))


def test_layer_call_is_converted_inside_a_function():
    model = Gated()
    f = fe.function(lambda x: model(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no "runs eagerly" fallback
        up = f(fe.ones((2, 3)))
        down = f(-fe.ones((2, 3)))
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(up.numpy(), model(fe.ones((2, 3))).numpy())
    np.testing.assert_allclose(down.numpy(), [[3.0], [3.0]])     # -x of -1s, summed


def test_fit_traces_a_model_with_python_control_flow():
    model = Gated()
    model.compile(optimizer="sgd", loss="mse")
    rng = np.random.default_rng(0)
    x = (rng.random((64, 3)) - 0.5).astype("float32")
    y = rng.random((64, 1)).astype("float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
