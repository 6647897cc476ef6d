"""Record Keras 3.15.1's dtype policies, mixed precision (layers, LossScaleOptimizer,
fit with mixed_float16) and keras.config switches for tests/keras/test_k34_policies.py
(issue 34, part L4).

Run from the repository root with the TensorFlow venv:
    /work/tfenv/bin/python tests/tf_reference/record_k34_policies.py
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from __init__ import save  # noqa: E402


def lst(a):
    return np.asarray(a).tolist()


def error(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the class and message are what we record
        return [type(e).__name__, str(e)]
    return None


rec = {}
rng = np.random.default_rng(34)

# ---- policies -------------------------------------------------------------------------
pol = []
for name in ["float32", "float16", "float64", "mixed_float16", "int32"]:
    p = keras.DTypePolicy(name)
    pol.append({"name": name, "compute": p.compute_dtype, "variable": p.variable_dtype,
                "config": p.get_config(), "serialized": keras.dtype_policies.serialize(p),
                "repr": repr(p), "quantization_mode": p.quantization_mode,
                "float_repr": repr(keras.FloatDTypePolicy(name)),
                "eq_float": keras.FloatDTypePolicy(name) == p})
rec["policies"] = pol
rec["policy_errors"] = {"foo": error(lambda: keras.DTypePolicy("foo")),
                        "int": error(lambda: keras.DTypePolicy(3))}
rec["get"] = {
    "none": keras.dtype_policies.get(None).name,
    "str": keras.dtype_policies.get("mixed_float16").name,
    "dict": keras.dtype_policies.get({"class_name": "DTypePolicy",
                                      "config": {"name": "float16"}}).name,
    "bad": error(lambda: keras.dtype_policies.get(3.5)),
}
pm = keras.dtype_policies.DTypePolicyMap(default_policy="float32")
pm["encoder/dense"] = "mixed_float16"
pm["encoder/.*"] = "float16"
pm["decoder"] = keras.DTypePolicy("float64")
rec["policy_map"] = {
    "config": pm.get_config(),
    "lookups": {k: pm[k].name for k in ["encoder/dense", "encoder/attention", "decoder",
                                         "decoder/attention", "other"]},
    "name": pm.name, "compute": pm.compute_dtype, "variable": pm.variable_dtype,
    "serialized": keras.dtype_policies.serialize(pm),
    "dup": error(lambda: pm.__setitem__("decoder", "float32")),
}
pm2 = keras.dtype_policies.DTypePolicyMap()
rec["policy_map_default"] = {"config": pm2.get_config(), "name": pm2.name}

# ---- global policy --------------------------------------------------------------------
g = {"default": keras.config.dtype_policy().name,
     "legacy_default": keras.mixed_precision.global_policy().name}
keras.config.set_dtype_policy("mixed_float16")
d = keras.layers.Dense(2)
g["after_set"] = {"global": keras.mixed_precision.global_policy().name,
                  "dense": d.dtype_policy.name, "dtype": d.dtype,
                  "compute": d.compute_dtype, "variable": d.variable_dtype,
                  "float32_layer": keras.layers.Dense(2, dtype="float32").dtype_policy.name}
keras.mixed_precision.set_global_policy("float32")
g["reset"] = keras.config.dtype_policy().name
g["bad"] = error(lambda: keras.config.set_dtype_policy(3))
rec["global"] = g

# ---- layers under mixed_float16 -------------------------------------------------------
layers = []


def record_layer(kind, make, x):
    layer = make()
    layer.build(x.shape)
    weights = [np.abs(rng.normal(size=w.shape)).astype("float32") * 0.5 + 0.5
               if "variance" in w.name else
               rng.normal(size=w.shape).astype("float32") * 0.5 for w in layer.weights]
    layer.set_weights(weights)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        y = layer(xt)
        s = tf.reduce_sum(tf.cast(y, "float32") ** 2)
    grads = tape.gradient(s, layer.trainable_weights)
    grads = [tf.convert_to_tensor(gr) for gr in grads]     # (Embedding: IndexedSlices)
    layers.append({"kind": kind, "config": layer.get_config(), "x": lst(x),
                   "x_dtype": str(x.dtype),
                   "weights": [lst(w) for w in weights],
                   "weight_dtypes": [w.dtype for w in layer.weights],
                   "y": lst(np.asarray(y, "float32")), "y_dtype": y.dtype.name,
                   "grads": [lst(gr) for gr in grads],
                   "grad_dtypes": [gr.dtype.name for gr in grads],
                   "dtype": layer.dtype, "compute": layer.compute_dtype,
                   "variable": layer.variable_dtype})


record_layer("Dense", lambda: keras.layers.Dense(3, activation="tanh", dtype="mixed_float16"),
             rng.normal(size=(4, 5)).astype("float32"))
record_layer("Conv2D", lambda: keras.layers.Conv2D(2, 3, padding="same",
                                                   dtype="mixed_float16"),
             rng.normal(size=(2, 5, 5, 3)).astype("float32"))
record_layer("LayerNormalization", lambda: keras.layers.LayerNormalization(
    dtype="mixed_float16"), rng.normal(size=(3, 6)).astype("float32"))
record_layer("Dense_float16", lambda: keras.layers.Dense(3, dtype="float16"),
             rng.normal(size=(4, 5)).astype("float32"))
record_layer("BatchNormalization", lambda: keras.layers.BatchNormalization(
    dtype="mixed_float16"), rng.normal(size=(4, 3)).astype("float32"))
record_layer("LSTM", lambda: keras.layers.LSTM(3, dtype="mixed_float16"),
             rng.normal(size=(2, 4, 3)).astype("float32"))
record_layer("Embedding", lambda: keras.layers.Embedding(6, 3, dtype="mixed_float16"),
             np.array([[1, 2, 5], [0, 3, 3]], "int32"))
rec["layers"] = layers

# a functional model: mixed layers, a float32 head, float64 input cast
inp = keras.Input((4,))
h = keras.layers.Dense(3, dtype="mixed_float16", name="mixed")(inp)
out = keras.layers.Dense(2, dtype="float32", name="head")(h)
model = keras.Model(inp, out)
ws = [rng.normal(size=w.shape).astype("float32") * 0.5 for w in model.weights]
model.set_weights(ws)
xm = rng.normal(size=(3, 4))
rec["model"] = {"x": lst(xm), "weights": [lst(w) for w in ws],
                "y": lst(model(xm)), "y_dtype": model(xm).dtype.name,
                "hidden_dtype": h.dtype,
                "loss_dtype": keras.losses.MeanSquaredError()(
                    np.ones((3, 3), "float32"), model.get_layer("mixed")(xm)).dtype.name}

# ---- LossScaleOptimizer ---------------------------------------------------------------
opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=8.0,
                                          dynamic_growth_steps=2)
v = keras.Variable(np.array([1.0, 2.0], "float32"))
steps = []
for grad in [[8.0, 16.0], [4.0, -8.0], [np.inf, 1.0], [8.0, 8.0], [np.nan, 0.0],
             [2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]:
    opt.apply([tf.constant(np.array(grad, "float32"))], [v])
    steps.append({"grad": [float(x) if np.isfinite(x) else str(x) for x in grad],
                  "v": lst(v), "scale": float(opt.dynamic_scale.numpy()),
                  "counter": int(opt.step_counter.numpy()),
                  "iterations": int(opt.iterations.numpy())})
rec["loss_scale"] = {
    "steps": steps, "config": opt.get_config(),
    "scaled_loss": float(opt.scale_loss(tf.constant(1.5))),
    "default_config": keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam()).get_config(),
    "mixed_precision_is_same": keras.mixed_precision.LossScaleOptimizer is
    keras.optimizers.LossScaleOptimizer,
    "errors": {"dynamic": error(lambda: keras.optimizers.LossScaleOptimizer(
        keras.optimizers.SGD(), dynamic=False)),
        "clipnorm": error(lambda: keras.optimizers.LossScaleOptimizer(
            keras.optimizers.SGD(), clipnorm=1.0)),
        "other": error(lambda: keras.optimizers.LossScaleOptimizer(
            keras.optimizers.SGD(), foo=1))},
}

# ---- fit with mixed_float16 -----------------------------------------------------------
keras.config.set_dtype_policy("mixed_float16")
xf = rng.normal(size=(32, 4)).astype("float32")
yf = (xf @ np.array([[1.0], [-2.0], [0.5], [3.0]]) + 0.25).astype("float32")
fm = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                       keras.layers.Dense(1)])
fws = [rng.normal(size=w.shape).astype("float32") * 0.5 for w in fm.weights]
fm.set_weights(fws)
fm.compile(optimizer=keras.optimizers.SGD(0.02), loss="mse")
hist = fm.fit(xf, yf, epochs=4, batch_size=8, shuffle=False, verbose=0)
rec["fit"] = {"x": lst(xf), "y": lst(yf), "weights": [lst(w) for w in fws],
              "loss": hist.history["loss"], "optimizer": type(fm.optimizer).__name__,
              "scale": float(fm.optimizer.dynamic_scale.numpy()),
              "iterations": int(fm.optimizer.iterations.numpy()),
              "final": [lst(w) for w in fm.get_weights()],
              "weight_dtypes": [w.dtype for w in fm.weights],
              "out_dtype": fm(xf).dtype.name}
keras.config.set_dtype_policy("float32")

# ---- keras.config switches ------------------------------------------------------------
c = {"max_epochs": keras.config.max_epochs(),
     "max_steps_per_epoch": keras.config.max_steps_per_epoch(),
     "flash": keras.config.is_flash_attention_enabled(),
     "traceback": keras.config.is_traceback_filtering_enabled(),
     "interactive": keras.config.is_interactive_logging_enabled()}
keras.config.disable_flash_attention()
keras.config.disable_traceback_filtering()
keras.config.disable_interactive_logging()
c["disabled"] = [keras.config.is_flash_attention_enabled(),
                 keras.config.is_traceback_filtering_enabled(),
                 keras.config.is_interactive_logging_enabled()]
keras.config.enable_flash_attention()
keras.config.enable_traceback_filtering()
keras.config.enable_interactive_logging()
c["enabled"] = [keras.config.is_flash_attention_enabled(),
                keras.config.is_traceback_filtering_enabled(),
                keras.config.is_interactive_logging_enabled()]
keras.config.set_max_epochs(2)
keras.config.set_max_steps_per_epoch(3)
lm = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
lm.compile("sgd", "mse")
lh = lm.fit(np.ones((40, 2), "float32"), np.ones((40, 1), "float32"), batch_size=4,
            epochs=5, verbose=0)
xl = np.arange(80, dtype="float32").reshape(40, 2) / 40
lm.set_weights([np.array([[0.5], [-1.0]], "float32"), np.array([0.25], "float32")])
c["limited"] = {"epochs": len(lh.history["loss"]),
                "iterations": int(lm.optimizer.iterations.numpy()),
                "predict_rows": len(lm.predict(xl, batch_size=4, verbose=0)),
                "evaluate": lm.evaluate(xl, np.zeros((40, 1), "float32"), batch_size=4,
                                        verbose=0)}
keras.config.set_max_epochs(None)
keras.config.set_max_steps_per_epoch(None)
rec["config"] = c

save("k34_policies", rec)
print("recorded", {k: len(v) if isinstance(v, (list, dict)) else 1 for k, v in rec.items()})
