"""Record what Keras 3.15.1 (TensorFlow 2.21 backend) computes for the activation,
activation-layer, LayerNormalization and Conv1D items of issue 34 (run with the TensorFlow
venv from the repository root; writes layer_args.json):

    /path/to/tf-venv/bin/python tests/tf_reference/record_layer_args.py

Every entry holds outputs and gradients (of ``sum(y * det(y.shape, 7))``, so each output
element has its own weight). Weights and inputs come from ``det(shape, k)``, which the
tests rebuild, so no random stream is shared.
"""
import os
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402


def det(shape, k=0):
    """Deterministic float32 values in [-0.5, 0.5] (the tests use the same formula)."""
    n = int(np.prod(shape))
    return (0.5 * np.sin(np.arange(n) * 0.37 + k)).astype(np.float32).reshape(shape)


def L(x):
    return np.asarray(x).tolist()


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (recording the class)
        return {"class": type(e).__name__, "message": str(e)}
    return None


# the grid: large and negative values, and every kink (0, +-1, +-3, 6, thresholds) exactly
GRID = [-100., -30., -20., -10., -6., -3.5, -3., -2.5, -1., -0.5, -0.1, 0., 0.1, 0.5, 1.,
        1.5, 2., 2.5, 3., 3.5, 5., 6., 6.5, 10., 20., 30., 100.]


def value_and_grad(fn, x):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
        s = tf.reduce_sum(y * det(y.shape, 7).astype(y.dtype.as_numpy_dtype))
    return {"y": L(y), "grad": L(tape.gradient(s, x))}


out = {"grid": GRID}

# ---- every activation fasteager.keras.activations has, under Keras 3's defaults ------------------
A = keras.activations
acts = {
    "relu": A.relu, "sigmoid": A.sigmoid, "tanh": A.tanh, "softmax": A.softmax,
    "log_softmax": A.log_softmax, "linear": A.linear, "elu": A.elu, "selu": A.selu,
    "gelu": A.gelu, "gelu_approximate": lambda x: A.gelu(x, approximate=True),
    "swish": A.swish, "silu": A.silu, "softplus": A.softplus, "softsign": A.softsign,
    "leaky_relu": A.leaky_relu, "relu6": A.relu6, "hard_sigmoid": A.hard_sigmoid,
    "exponential": A.exponential, "elu_alpha": lambda x: A.elu(x, alpha=0.5),
    "leaky_relu_slope": lambda x: A.leaky_relu(x, negative_slope=0.1),
}
RELU_ARGS = [dict(negative_slope=0.1), dict(max_value=5.0), dict(max_value=6.0),
             dict(threshold=2.0), dict(threshold=-1.0),
             dict(negative_slope=0.1, max_value=5.0), dict(negative_slope=0.1, threshold=2.0),
             dict(negative_slope=0.25, max_value=6.0, threshold=1.0),
             dict(max_value=3.0, threshold=1.0), dict(max_value=0.5, threshold=1.0)]
for kw in RELU_ARGS:
    key = "relu_" + "_".join("%s=%s" % kv for kv in sorted(kw.items()))
    acts[key] = (lambda kw: lambda x: A.relu(x, **kw))(kw)
out["activations"] = {}
for dtype in ("float32", "float64"):
    g = np.asarray(GRID, dtype)
    out["activations"][dtype] = {name: value_and_grad(fn, g) for name, fn in acts.items()}
out["relu_args"] = [sorted(kw.items()) for kw in RELU_ARGS]
out["activation_errors"] = {
    "relu_alpha": error(lambda: A.relu(np.float32([1.0]), alpha=0.1)),
    "leaky_relu_alpha": error(lambda: A.leaky_relu(np.float32([1.0]), alpha=0.1)),
}

# ---- ReLU and LeakyReLU layers -------------------------------------------------------------------
g32 = np.asarray(GRID, "float32")
layers = {}
RELU_LAYER_ARGS = [dict(), dict(negative_slope=0.1), dict(max_value=6.0),
                   dict(negative_slope=0.2, max_value=4.0, threshold=1.0),
                   dict(threshold=0.5)]
for kw in RELU_LAYER_ARGS:
    layer = keras.layers.ReLU(**kw)
    layers["ReLU_" + "_".join("%s=%s" % kv for kv in sorted(kw.items()))] = dict(
        args=kw, config={k: layer.get_config()[k]
                         for k in ("max_value", "negative_slope", "threshold")},
        **value_and_grad(layer, g32))
for key, kw in [("LeakyReLU", {}), ("LeakyReLU_negative_slope", dict(negative_slope=0.1)),
                ("LeakyReLU_alpha", dict(alpha=0.05))]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = keras.layers.LeakyReLU(**kw)
    cfg = layer.get_config()
    layers[key] = dict(args=kw, config={"negative_slope": cfg["negative_slope"],
                                        "has_alpha": "alpha" in cfg},
                       warnings=[str(w.message) for w in caught], **value_and_grad(layer, g32))
out["activation_layers"] = layers
out["activation_layer_errors"] = {
    "relu_max_value": error(lambda: keras.layers.ReLU(max_value=-1.0)),
    "relu_negative_slope": error(lambda: keras.layers.ReLU(negative_slope=-0.1)),
    "relu_threshold": error(lambda: keras.layers.ReLU(threshold=-0.5)),
    "leaky_negative_slope": error(lambda: keras.layers.LeakyReLU(negative_slope=-0.1)),
    "leaky_none": error(lambda: keras.layers.LeakyReLU(negative_slope=None)),
}

# ---- Softmax(axis)(x, mask=...) ------------------------------------------------------------------
x3 = det((2, 3, 4), 11) * 8
mask_full = (det((2, 3, 4), 12) > -0.1)
mask_full[0, 1, :] = False                     # a row masked entirely: all zeros out
mask_last = det((4,), 13) > 0                  # (4,): broadcast over the batch
mask_row = (det((2, 3, 1), 14) > 0)            # (2, 3, 1): whole rows
cases = {
    "none": (dict(), None),
    "bool": (dict(), mask_full),
    "float": (dict(), mask_full.astype("float32") * 0.8 + 0.1),   # > 0.5 keeps
    "int": (dict(), mask_full.astype("int32")),
    "broadcast_last": (dict(), mask_last),
    "broadcast_row": (dict(), mask_row),
    "axis1": (dict(axis=1), mask_full),
    "axis_tuple": (dict(axis=(1, 2)), mask_full),
    "axis_tuple1": (dict(axis=(1,)), None),
    "axis_neg_tuple": (dict(axis=(-2, -1)), None),
}
sm = {"x": L(x3)}
for key, (kw, mask) in cases.items():
    layer = keras.layers.Softmax(**kw)
    entry = value_and_grad(lambda x: layer(x, mask=mask), x3)
    entry["mask"] = None if mask is None else L(mask)
    entry["mask_dtype"] = None if mask is None else str(mask.dtype)
    entry["args"] = {k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()}
    sm[key] = entry
x16 = (det((2, 4), 15) * 8).astype("float16")
m16 = det((2, 4), 21) > 0
m16[1] = False                                 # all masked: -1e9 would be -inf (nan) here
sm["float16"] = {"x": L(x16.astype("float32")), "mask": L(m16),
                 **value_and_grad(lambda x: keras.layers.Softmax(dtype="float16")(x, mask=m16),
                                  x16)}
# the mask an Embedding(mask_zero=True) hands on reaches Softmax.call(mask=...) by itself:
# (batch, 4) against (batch, 4, 4) scores it masks the last axis (numpy broadcasting)
emb = keras.layers.Embedding(5, 4, mask_zero=True)
emb.build((None, 4))
emb.set_weights([det((5, 4), 17) * 4])
ids = np.array([[1, 2, 0, 0]])
ids2 = np.array([[1, 2, 0, 0], [3, 0, 4, 0]])     # (2, 4) against (2, 4, 4): refused
sm["embedding_mask"] = {"ids": L(ids), "y": L(keras.layers.Softmax()(emb(ids))),
                        "ids2": L(ids2), "error2": error(lambda: keras.layers.Softmax()(emb(ids2)))}
sm["errors"] = {
    "more_dims": error(lambda: keras.layers.Softmax()(x3, mask=np.ones((1, 2, 3, 4), bool))),
    "mismatch": error(lambda: keras.layers.Softmax()(x3, mask=np.ones((2, 3, 3), bool))),
}
out["softmax_mask"] = sm

# ---- LayerNormalization(rms_scaling=True) --------------------------------------------------------
ln = {}
for key, kw, shape in [("last", dict(rms_scaling=True), (3, 5)),
                       ("axes", dict(rms_scaling=True, axis=[1, 2], epsilon=1e-2), (2, 3, 4)),
                       ("axis1", dict(rms_scaling=True, axis=1), (2, 3, 4)),
                       ("no_scale", dict(rms_scaling=True, scale=False), (3, 5)),
                       ("no_center", dict(rms_scaling=True, center=False), (3, 5))]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = keras.layers.LayerNormalization(**kw)
    x = tf.constant(det(shape, 21) * 4 + 0.7)
    layer.build(shape)
    names = [w.name for w in layer.weights]
    layer.set_weights([det(w.shape, 22 + i) + 1.0 for i, w in enumerate(layer.weights)])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        s = tf.reduce_sum(y * det(y.shape, 7))
    grads = tape.gradient(s, [x] + list(layer.trainable_weights))
    ln[key] = {"args": kw, "shape": list(shape), "weights": names,
               "warnings": [str(w.message) for w in caught],
               "config_rms_scaling": layer.get_config()["rms_scaling"],
               "x": L(x), "y": L(y), "grad_x": L(grads[0]),
               "grad_weights": [L(g) for g in grads[1:]]}
out["layer_norm_rms"] = ln

# ---- Conv1D(padding="causal") --------------------------------------------------------------------
conv = {}
for key, kw, shape in [("k3", dict(filters=4, kernel_size=3), (2, 7, 3)),
                       ("k3_d2", dict(filters=4, kernel_size=3, dilation_rate=2), (2, 9, 3)),
                       ("k2_d3", dict(filters=2, kernel_size=2, dilation_rate=3), (1, 8, 2)),
                       ("k3_s2", dict(filters=3, kernel_size=3, strides=2), (2, 8, 2)),
                       ("k4_groups", dict(filters=4, kernel_size=4, groups=2), (2, 6, 4)),
                       ("channels_first", dict(filters=3, kernel_size=3, dilation_rate=2,
                                               data_format="channels_first"), (2, 2, 7)),
                       ("k5_short", dict(filters=2, kernel_size=5), (1, 3, 2))]:
    layer = keras.layers.Conv1D(padding="causal", **kw)
    x = tf.constant(det(shape, 31))
    layer.build(shape)
    layer.set_weights([det(w.shape, 32 + i) for i, w in enumerate(layer.get_weights())])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        s = tf.reduce_sum(y * det(y.shape, 7))
    gx, gk, gb = tape.gradient(s, [x, layer.kernel, layer.bias])
    sym = keras.layers.Conv1D(padding="causal", **kw).compute_output_shape((None,) + shape[1:])
    conv[key] = {"args": kw, "shape": list(shape), "y": L(y), "grad_x": L(gx),
                 "grad_kernel": L(gk), "grad_bias": L(gb),
                 "config_padding": layer.get_config()["padding"],
                 "symbolic_shape": list(sym)}
conv["errors"] = {
    "conv2d_causal": error(lambda: keras.layers.Conv2D(2, 3, padding="causal")),
    "conv1d_bad": error(lambda: keras.layers.Conv1D(2, 3, padding="full")),
}
out["conv1d_causal"] = conv

save("layer_args", out)
print("wrote layer_args.json")
