"""Record Keras 3.15.1's values for the keras.layers names added by issue 34 part L3
(topic "k34_layers"): adaptive pooling, Conv3DTranspose, DepthwiseConv1D,
SeparableConv1D, EinsumDense, AdditiveAttention.

Run from the repository root with the TensorFlow venv:
    /work/tfenv/bin/python tests/tf_reference/record_k34_layers.py
Each case: the constructor's arguments, Keras's config, the fixed input(s), the weights
(random values assigned after build), the output and the gradients of ``sum(output * g)``
(g fixed) with respect to the input(s) and the weights.
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


def case(cls, kwargs, shapes, seed=0, call_kwargs=None):
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal(s).astype("float32") for s in shapes]
    layer = getattr(L, cls)(**kwargs)
    layer.build(list(shapes) if len(shapes) > 1 else shapes[0])
    ws = [rng.standard_normal(tuple(v.shape)).astype("float32") for v in layer.weights]
    for v, w in zip(layer.weights, ws):
        v.assign(w)
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        y = layer(ts if len(ts) > 1 else ts[0], **(call_kwargs or {}))
        g = rng.standard_normal(tuple(y.shape)).astype("float32")
        loss = tf.reduce_sum(y * g)
    grads = tape.gradient(loss, ts + [v.value for v in layer.weights])
    return {"cls": cls, "kwargs": _jsonable(kwargs), "call_kwargs": call_kwargs or {},
            "config": _jsonable(layer.get_config()),
            "xs": [x.tolist() for x in xs], "weights": [w.tolist() for w in ws],
            "weight_names": [v.name for v in layer.weights],
            "g": g.tolist(), "y": np.asarray(y).tolist(), "output_shape": list(y.shape),
            "grads": [None if t is None else np.asarray(t).tolist() for t in grads]}


def main():
    out = {}
    for kind in ("Average", "Max"):
        for n, shapes in ((1, [(2, 7, 3)]), (2, [(2, 5, 7, 3)]), (3, [(1, 5, 4, 6, 2)])):
            name = "Adaptive%sPooling%dD" % (kind, n)
            out[name] = case(name, {"output_size": 3}, shapes)
            sizes = {1: [4], 2: [2, 4], 3: [2, 3, 4]}[n]
            cf = [(s[0], s[-1]) + s[1:-1] for s in shapes]
            out[name + "_channels_first"] = case(
                name, {"output_size": sizes, "data_format": "channels_first"}, cf)
    out["Conv3DTranspose"] = case("Conv3DTranspose", {"filters": 2, "kernel_size": 3},
                                  [(1, 3, 4, 3, 2)])
    out["Conv3DTranspose_strided_same"] = case(
        "Conv3DTranspose", {"filters": 3, "kernel_size": (2, 3, 2), "strides": 2,
                            "padding": "same", "activation": "tanh"}, [(2, 3, 2, 3, 2)])
    out["Conv3DTranspose_output_padding"] = case(
        "Conv3DTranspose", {"filters": 2, "kernel_size": 3, "strides": (2, 1, 2),
                            "output_padding": (1, 0, 1), "use_bias": False},
        [(1, 2, 3, 2, 2)])
    out["Conv3DTranspose_channels_first"] = case(
        "Conv3DTranspose", {"filters": 2, "kernel_size": 2, "data_format": "channels_first",
                            "dilation_rate": 2}, [(1, 3, 4, 3, 3)])
    out["DepthwiseConv1D"] = case("DepthwiseConv1D", {"kernel_size": 3}, [(2, 7, 4)])
    out["DepthwiseConv1D_options"] = case(
        "DepthwiseConv1D", {"kernel_size": 2, "strides": 2, "padding": "same",
                            "depth_multiplier": 3, "activation": "relu"}, [(2, 9, 2)])
    out["DepthwiseConv1D_channels_first"] = case(
        "DepthwiseConv1D", {"kernel_size": 3, "dilation_rate": 2,
                            "data_format": "channels_first", "depth_multiplier": 2},
        [(2, 3, 11)])
    out["SeparableConv1D"] = case("SeparableConv1D", {"filters": 5, "kernel_size": 3},
                                  [(2, 7, 4)])
    out["SeparableConv1D_options"] = case(
        "SeparableConv1D", {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same",
                            "depth_multiplier": 2, "use_bias": False}, [(2, 8, 3)])
    out["SeparableConv1D_channels_first"] = case(
        "SeparableConv1D", {"filters": 3, "kernel_size": 2, "data_format": "channels_first",
                            "dilation_rate": 3, "activation": "sigmoid"}, [(1, 2, 9)])
    out["EinsumDense"] = case("EinsumDense", {"equation": "ab,bc->ac", "output_shape": 4},
                              [(3, 5)])
    out["EinsumDense_bias"] = case(
        "EinsumDense", {"equation": "abc,cd->abd", "output_shape": (None, 6),
                        "bias_axes": "d", "activation": "relu"}, [(2, 3, 4)])
    out["EinsumDense_heads"] = case(
        "EinsumDense", {"equation": "abc,cde->abde", "output_shape": (None, 2, 3),
                        "bias_axes": "de"}, [(2, 3, 4)])
    out["EinsumDense_left_ellipsis"] = case(
        "EinsumDense", {"equation": "...b,bc->...c", "output_shape": 3, "bias_axes": "c"},
        [(2, 3, 4)])
    out["EinsumDense_right_ellipsis"] = case(
        "EinsumDense", {"equation": "ab...,bc->ac...", "output_shape": 3, "bias_axes": "c"},
        [(2, 4, 5)])
    out["AdditiveAttention"] = case("AdditiveAttention", {}, [(2, 3, 4), (2, 5, 4)])
    out["AdditiveAttention_key"] = case("AdditiveAttention", {}, [(2, 3, 4), (2, 5, 4),
                                                                 (2, 5, 4)])
    out["AdditiveAttention_no_scale_causal"] = case(
        "AdditiveAttention", {"use_scale": False}, [(2, 4, 3), (2, 4, 3)],
        call_kwargs={"use_causal_mask": True})
    save("k34_layers", out)


if __name__ == "__main__":
    main()
