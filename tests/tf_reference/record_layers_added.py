"""Record Keras 3.15.1's values for the layers added in issue 34 (topic "layers_added").

Run from the repository root with the TensorFlow venv:
    /work/tfenv/bin/python tests/tf_reference/record_layers_added.py
Each case: the layer's config, its output on a fixed input and the gradients of
``sum(output * w)`` (w fixed) with respect to the input and the layer's weights.
Random layers record inference outputs and training-time statistics on a large input.
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

L = keras.layers


def _jsonable(v):
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    return v


def det_case(name, make, shape, weights=None, seed=0, kwargs=None):
    """A deterministic layer: output and gradients for a fixed input."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype("float32")
    layer = make()
    layer.build(x.shape)
    ws = [rng.standard_normal(tuple(v.shape)).astype("float32") for v in layer.weights] \
        if weights is None else weights
    for v, w in zip(layer.weights, ws):
        v.assign(w)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt, **(kwargs or {}))
        g = rng.standard_normal(tuple(y.shape)).astype("float32")
        loss = tf.reduce_sum(y * g)
    grads = tape.gradient(loss, [xt] + [v.value for v in layer.weights])
    return {"config": _jsonable(layer.get_config()), "x": x.tolist(),
            "weights": [w.tolist() for w in ws], "g": g.tolist(),
            "y": np.asarray(y).tolist(), "output_shape": list(y.shape),
            "grads": [np.asarray(t).tolist() for t in grads],
            "losses": [float(t) for t in layer.losses]}


def random_case(make, shape, seed=1):
    """A random layer: inference output, training output's shape and statistics.
    The input is ``default_rng(seed).standard_normal(shape) * 0.5 + 1``."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 0.5 + 1.0).astype("float32")
    layer = make()
    y_inf = np.asarray(layer(x, training=False))
    y = np.asarray(layer(x, training=True))
    # (the input is regenerated from the seed by the test: not stored, it is large)
    return {"config": _jsonable(layer.get_config()), "seed": seed, "shape": list(shape),
            "x_checksum": float(x.sum()),
            "inference_is_input": bool(np.array_equal(y_inf, x)), "train_shape": list(y.shape),
            "train_mean": float(y.mean()), "train_std": float(y.std()),
            "train_diff_std": float((y - x).std()),
            "train_zero_fraction": float((y == 0).mean())}


def main():
    out = {"det": {}, "random": {}}
    det = out["det"]
    det["Identity"] = det_case("Identity", lambda: L.Identity(), (3, 4))
    det["ELU"] = det_case("ELU", lambda: L.ELU(alpha=0.7), (3, 5))
    det["ELU_default"] = det_case("ELU", lambda: L.ELU(), (2, 4))
    det["PReLU"] = det_case("PReLU", lambda: L.PReLU(), (2, 3, 4))
    det["PReLU_shared"] = det_case("PReLU", lambda: L.PReLU(shared_axes=[1, 2]), (2, 3, 4, 5))
    det["ActivityRegularization"] = det_case(
        "ActivityRegularization", lambda: L.ActivityRegularization(l1=0.01, l2=0.02), (4, 3))
    det["UnitNormalization"] = det_case("UnitNormalization", lambda: L.UnitNormalization(),
                                        (3, 5))
    det["UnitNormalization_axes"] = det_case(
        "UnitNormalization", lambda: L.UnitNormalization(axis=[1, 2]), (2, 3, 4))
    det["RMSNormalization"] = det_case("RMSNormalization", lambda: L.RMSNormalization(),
                                       (3, 6))
    det["RMSNormalization_axes"] = det_case(
        "RMSNormalization", lambda: L.RMSNormalization(axis=[2, 1], epsilon=1e-3), (2, 3, 4))
    det["GroupNormalization"] = det_case(
        "GroupNormalization", lambda: L.GroupNormalization(groups=2), (3, 4, 6))
    det["GroupNormalization_instance"] = det_case(
        "GroupNormalization", lambda: L.GroupNormalization(groups=-1, epsilon=1e-2),
        (2, 3, 3, 4))
    det["GroupNormalization_axis1"] = det_case(
        "GroupNormalization", lambda: L.GroupNormalization(groups=3, axis=1, center=False),
        (2, 6, 5))
    det["MaxPooling1D"] = det_case("MaxPooling1D", lambda: L.MaxPooling1D(), (2, 7, 3))
    det["MaxPooling1D_same"] = det_case(
        "MaxPooling1D", lambda: L.MaxPooling1D(3, strides=2, padding="same"), (2, 8, 3))
    det["AveragePooling1D"] = det_case(
        "AveragePooling1D", lambda: L.AveragePooling1D(3, strides=2, padding="same"), (2, 8, 3))
    det["AveragePooling1D_cf"] = det_case(
        "AveragePooling1D", lambda: L.AveragePooling1D(2, data_format="channels_first"), (2, 3, 6))
    det["MaxPooling3D"] = det_case("MaxPooling3D", lambda: L.MaxPooling3D(), (2, 4, 5, 4, 3))
    det["MaxPooling3D_same"] = det_case(
        "MaxPooling3D", lambda: L.MaxPooling3D((2, 3, 2), strides=(1, 2, 2), padding="same"),
        (1, 3, 5, 4, 2))
    det["AveragePooling3D"] = det_case(
        "AveragePooling3D", lambda: L.AveragePooling3D((2, 2, 2), padding="same"), (2, 3, 5, 4, 2))
    det["AveragePooling3D_cf"] = det_case(
        "AveragePooling3D", lambda: L.AveragePooling3D(2, data_format="channels_first"),
        (1, 2, 4, 4, 4))
    det["GlobalAveragePooling3D"] = det_case(
        "GlobalAveragePooling3D", lambda: L.GlobalAveragePooling3D(), (2, 3, 4, 2, 3))
    det["GlobalMaxPooling3D"] = det_case(
        "GlobalMaxPooling3D", lambda: L.GlobalMaxPooling3D(keepdims=True), (2, 3, 4, 2, 3))
    det["GlobalMaxPooling3D_cf"] = det_case(
        "GlobalMaxPooling3D", lambda: L.GlobalMaxPooling3D(data_format="channels_first"),
        (2, 3, 4, 2, 3))
    det["Cropping3D"] = det_case("Cropping3D", lambda: L.Cropping3D(), (2, 4, 5, 3, 2))
    det["Cropping3D_cf"] = det_case(
        "Cropping3D", lambda: L.Cropping3D(((0, 1), 2, (1, 0)), data_format="channels_first"),
        (1, 2, 3, 6, 4))
    det["ZeroPadding3D"] = det_case("ZeroPadding3D", lambda: L.ZeroPadding3D(), (1, 2, 3, 2, 2))
    det["ZeroPadding3D_cf"] = det_case(
        "ZeroPadding3D", lambda: L.ZeroPadding3D((1, 0, 2), data_format="channels_first"),
        (1, 2, 2, 3, 2))
    det["UpSampling3D"] = det_case("UpSampling3D", lambda: L.UpSampling3D(), (1, 2, 3, 2, 2))
    det["UpSampling3D_cf"] = det_case(
        "UpSampling3D", lambda: L.UpSampling3D((1, 3, 2), data_format="channels_first"),
        (2, 2, 2, 3, 2))
    det["Conv1DTranspose"] = det_case("Conv1DTranspose", lambda: L.Conv1DTranspose(4, 3),
                                      (2, 5, 3))
    det["Conv1DTranspose_same"] = det_case(
        "Conv1DTranspose", lambda: L.Conv1DTranspose(2, 3, strides=2, padding="same",
                                                     activation="tanh"), (2, 5, 3))
    det["Conv1DTranspose_outpad"] = det_case(
        "Conv1DTranspose", lambda: L.Conv1DTranspose(3, 4, strides=3, output_padding=1,
                                                     use_bias=False), (1, 4, 2))
    det["Conv1DTranspose_dilated_cf"] = det_case(
        "Conv1DTranspose", lambda: L.Conv1DTranspose(2, 3, dilation_rate=2,
                                                     data_format="channels_first"), (2, 3, 6))

    rnd = out["random"]
    big = (2000, 50)
    rnd["GaussianNoise"] = random_case(lambda: L.GaussianNoise(0.3, seed=3), big)
    rnd["GaussianDropout"] = random_case(lambda: L.GaussianDropout(0.4, seed=3), big)
    rnd["AlphaDropout"] = random_case(lambda: L.AlphaDropout(0.25, seed=3), big)
    rnd["SpatialDropout1D"] = random_case(lambda: L.SpatialDropout1D(0.5, seed=3), (200, 8, 60))
    rnd["SpatialDropout2D"] = random_case(lambda: L.SpatialDropout2D(0.3, seed=3),
                                          (100, 4, 5, 40))
    rnd["SpatialDropout2D_cf"] = random_case(
        lambda: L.SpatialDropout2D(0.3, data_format="channels_first", seed=3), (100, 40, 4, 5))
    rnd["SpatialDropout3D"] = random_case(lambda: L.SpatialDropout3D(0.2, seed=3),
                                          (60, 3, 2, 4, 30))
    save("layers_added", out)


if __name__ == "__main__":
    main()
