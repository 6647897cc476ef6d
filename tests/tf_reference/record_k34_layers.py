"""Record Keras 3.15.1's values for the keras.layers names added by issue 34 part L3
(topics "k34_layers" and "k34_layers_special"): adaptive pooling, Conv3DTranspose,
DepthwiseConv1D, SeparableConv1D, EinsumDense, AdditiveAttention; ReversibleEmbedding,
SpectralNormalization, Wrapper, GroupQueryAttention, StackedRNNCells, InputSpec and
ConvLSTM1D/2D/3D in the second file.

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
    save("k34_layers_special", special())


def reversible_case(kwargs, seed=0):
    """ReversibleEmbedding: the forward lookup of fixed ids, and the reverse logits of a
    fixed hidden state with their gradients (hidden state and weights)."""
    rng = np.random.default_rng(seed)
    layer = L.ReversibleEmbedding(**kwargs)
    layer.build((2, 3))
    ws = [rng.standard_normal(tuple(v.shape)).astype("float32") for v in layer.weights]
    for v, w in zip(layer.weights, ws):
        v.assign(w)
    ids = rng.integers(0, kwargs["input_dim"], (2, 3)).astype("int32")
    h = rng.standard_normal((2, 3, kwargs["output_dim"])).astype("float32")
    y = layer(ids)
    ht = tf.constant(h)
    with tf.GradientTape() as tape:
        tape.watch(ht)
        logits = layer(ht, reverse=True)
        g = rng.standard_normal(tuple(logits.shape)).astype("float32")
        loss = tf.reduce_sum(logits * g)
    grads = tape.gradient(loss, [ht] + [v.value for v in layer.weights])
    return {"kwargs": kwargs, "config": _jsonable(layer.get_config()),
            "weight_names": [v.name for v in layer.weights],
            "weights": [w.tolist() for w in ws], "ids": ids.tolist(),
            "y": np.asarray(y).tolist(), "h": h.tolist(), "g": g.tolist(),
            "logits": np.asarray(logits).tolist(),
            "grads": [np.asarray(t).tolist() for t in grads]}


def spectral_case(make_inner, shape, power_iterations, seed=0):
    """SpectralNormalization: inference output, then a training call's output and the
    updated kernel and vector_u (weights set by attribute: kernel, bias, vector_u)."""
    rng = np.random.default_rng(seed)
    layer = L.SpectralNormalization(make_inner(), power_iterations=power_iterations)
    layer.build(shape)
    named = {"kernel": layer.layer.kernel, "bias": layer.layer.bias,
             "vector_u": layer.vector_u}
    ws = {k: rng.standard_normal(tuple(v.shape)).astype("float32") for k, v in named.items()}
    for k, v in named.items():
        v.assign(ws[k])
    x = rng.standard_normal(shape).astype("float32")
    y_inf = layer(x, training=False)
    y_train = layer(x, training=True)
    return {"config": _jsonable(layer.get_config()), "shape": list(shape),
            "power_iterations": power_iterations,
            "weights": {k: w.tolist() for k, w in ws.items()}, "x": x.tolist(),
            "y_inference": np.asarray(y_inf).tolist(),
            "y_train": np.asarray(y_train).tolist(),
            "kernel_after": np.asarray(layer.layer.kernel).tolist(),
            "vector_u_after": np.asarray(layer.vector_u).tolist()}


def special():
    out = {"ReversibleEmbedding": {}, "SpectralNormalization": {}}
    r = out["ReversibleEmbedding"]
    r["tied"] = reversible_case({"input_dim": 7, "output_dim": 4})
    r["untied_soft_cap"] = reversible_case({"input_dim": 6, "output_dim": 5,
                                            "tie_weights": False, "logit_soft_cap": 1.5})
    r["mask_zero"] = reversible_case({"input_dim": 5, "output_dim": 3, "mask_zero": True})
    s = out["SpectralNormalization"]
    s["dense"] = spectral_case(lambda: L.Dense(3), (4, 5), 1)
    s["dense_3_iterations"] = spectral_case(lambda: L.Dense(4, use_bias=True), (2, 3), 3, 1)
    s["conv2d"] = spectral_case(lambda: L.Conv2D(2, 2), (1, 4, 4, 3), 2, 2)
    out["Wrapper_config"] = _jsonable(L.Wrapper(L.Dense(2)).get_config())
    g = out["GroupQueryAttention"] = {}
    g["self"] = gqa_case({"head_dim": 4, "num_query_heads": 4, "num_key_value_heads": 2},
                         [(2, 3, 6), (2, 3, 6)], {})
    g["cross_key"] = gqa_case({"head_dim": 3, "num_query_heads": 6,
                               "num_key_value_heads": 3}, [(2, 3, 5), (2, 4, 5), (2, 4, 7)],
                              {}, seed=1)
    g["gate_no_bias_causal"] = gqa_case(
        {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1, "use_gate": True,
         "use_bias": False}, [(2, 4, 3), (2, 4, 3)], {"use_causal_mask": True}, seed=2)
    g["sliding_window_masks"] = gqa_case(
        {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 4,
         "sliding_window": 2}, [(2, 5, 4), (2, 5, 4)],
        {"query_mask": [[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]],
         "value_mask": [[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]}, seed=3)
    g["scores_attention_mask"] = gqa_case(
        {"head_dim": 2, "num_query_heads": 4, "num_key_value_heads": 2},
        [(1, 3, 4), (1, 4, 4)],
        {"attention_mask": [[[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1]]],
         "return_attention_scores": True}, seed=4)
    g["scores_masked_row"] = gqa_case(
        {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1},
        [(2, 3, 4), (2, 3, 4)],
        {"query_mask": [[1, 0, 1], [1, 1, 1]], "return_attention_scores": True}, seed=5)
    st = out["StackedRNNCells"] = {}
    st["simple_simple"] = stacked_case([("SimpleRNNCell", {"units": 3}),
                                        ("SimpleRNNCell", {"units": 2})], {}, (2, 4, 3))
    st["lstm_gru_sequences_state"] = stacked_case(
        [("LSTMCell", {"units": 3}), ("GRUCell", {"units": 2})],
        {"return_sequences": True, "return_state": True}, (2, 5, 4), seed=1)
    st["lstm_lstm_initial_state_backwards"] = stacked_case(
        [("LSTMCell", {"units": 2}), ("LSTMCell", {"units": 3, "activation": "relu"})],
        {"go_backwards": True}, (3, 4, 2), seed=2, initial_state=True)
    out["InputSpec"] = input_spec_cases()
    cl = out["ConvLSTM"] = {}
    cl["1d"] = conv_lstm_case("ConvLSTM1D", {"filters": 2, "kernel_size": 3}, (2, 3, 6, 2))
    cl["2d_same_sequences_state"] = conv_lstm_case(
        "ConvLSTM2D", {"filters": 3, "kernel_size": 2, "padding": "same",
                       "return_sequences": True, "return_state": True}, (2, 3, 4, 4, 2),
        seed=1)
    cl["2d_channels_first_strided_backwards"] = conv_lstm_case(
        "ConvLSTM2D", {"filters": 2, "kernel_size": (2, 3), "strides": 2,
                       "data_format": "channels_first", "go_backwards": True,
                       "activation": "relu", "use_bias": False}, (1, 3, 2, 5, 6), seed=2)
    cl["3d_dilated"] = conv_lstm_case(
        "ConvLSTM3D", {"filters": 2, "kernel_size": 2, "dilation_rate": 2,
                       "return_sequences": True}, (1, 2, 4, 5, 4, 1), seed=3)
    return out


def conv_lstm_case(cls, kwargs, shape, seed=0):
    """A ConvLSTM layer: outputs (and states) and gradients of ``sum(y * g)`` over every
    output, for the input and the weights; its config."""
    rng = np.random.default_rng(seed)
    layer = getattr(L, cls)(**kwargs)
    layer.build(shape)
    ws = [rng.standard_normal(tuple(v.shape)).astype("float32") * 0.5 for v in layer.weights]
    for v, w in zip(layer.weights, ws):
        v.assign(w)
    x = rng.standard_normal(shape).astype("float32")
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        flat = tf.nest.flatten(layer(xt))
        gs = [rng.standard_normal(tuple(t.shape)).astype("float32") for t in flat]
        loss = tf.add_n([tf.reduce_sum(t * g) for t, g in zip(flat, gs)])
    grads = tape.gradient(loss, [xt] + [v.value for v in layer.weights])
    return {"cls": cls, "kwargs": _jsonable(kwargs), "shape": list(shape),
            "config": _jsonable(layer.get_config()), "x": x.tolist(),
            "weights": [w.tolist() for w in ws], "weight_shapes": [list(w.shape) for w in ws],
            "structure": [list(t.shape) for t in flat],
            "outputs": [np.asarray(t).tolist() for t in flat], "g": [g.tolist() for g in gs],
            "grads": [np.asarray(t).tolist() for t in grads]}


def input_spec_cases():
    """InputSpec: configs and reprs, and what a layer's call says (nothing, or the
    ValueError's message) for inputs against specs."""
    from keras.src.layers.input_spec import assert_input_compatibility
    specs = [{"ndim": 2}, {"min_ndim": 2}, {"max_ndim": 3}, {"dtype": "float32"},
             {"shape": (None, 3)}, {"ndim": 3, "axes": {-1: 4}},
             {"shape": (None, 3, 1), "allow_last_axis_squeeze": True},
             {"axes": {1: 3, 2: None}, "min_ndim": 2}]
    inputs = [((2, 3), "float32"), ((2, 3, 4), "float32"), ((2, 3, 1), "float32"),
              ((2, 3), "int32"), ((5,), "float32"), ((2, 4, 4, 1), "float32")]
    cases = []
    for kw in specs:
        spec = keras.InputSpec(**kw)
        results = []
        for shape, dtype in inputs:
            x = tf.zeros(shape, dtype)
            try:
                assert_input_compatibility(spec, x, "probe")
                results.append(None)
            except ValueError as e:
                results.append(str(e))
        cases.append({"kwargs": _jsonable(kw), "config": _jsonable(spec.get_config()),
                      "repr": repr(spec), "inputs": [[list(s), d] for s, d in inputs],
                      "results": results})
    multi = {}
    two = [keras.InputSpec(ndim=2, name="a"), keras.InputSpec(ndim=3, name="b")]
    for label, value in (("list_ok", [tf.zeros((1, 2)), tf.zeros((1, 2, 3))]),
                         ("dict_ok", {"b": tf.zeros((1, 2, 3)), "a": tf.zeros((1, 2))}),
                         ("dict_missing", {"a": tf.zeros((1, 2))}),
                         ("too_few", [tf.zeros((1, 2))])):
        try:
            assert_input_compatibility(two, value, "probe")
            multi[label] = None
        except ValueError as e:
            multi[label] = str(e)
    return {"single": cases, "multi": multi}


def stacked_case(cells, rnn_kwargs, shape, seed=0, initial_state=False):
    """RNN(StackedRNNCells(cells)): outputs (and states), gradients of ``sum(y * g)``
    over every output, for the input and the weights; configs."""
    rng = np.random.default_rng(seed)
    stacked = L.StackedRNNCells([getattr(L, c)(**kw) for c, kw in cells])
    layer = L.RNN(stacked, **rnn_kwargs)
    layer.build(shape)
    ws = [rng.standard_normal(tuple(v.shape)).astype("float32") * 0.5 for v in layer.weights]
    for v, w in zip(layer.weights, ws):
        v.assign(w)
    x = rng.standard_normal(shape).astype("float32")
    init = None
    if initial_state:
        init = [[rng.standard_normal((shape[0], d)).astype("float32")
                 for d in (c.state_size if isinstance(c.state_size, (list, tuple))
                           else [c.state_size])] for c in stacked.cells]
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        res = layer(xt) if init is None else layer(xt, initial_state=init)
        flat = tf.nest.flatten(res)
        gs = [rng.standard_normal(tuple(t.shape)).astype("float32") for t in flat]
        loss = tf.add_n([tf.reduce_sum(t * g) for t, g in zip(flat, gs)])
    grads = tape.gradient(loss, [xt] + [v.value for v in layer.weights])
    return {"cells": cells, "rnn_kwargs": rnn_kwargs, "shape": list(shape),
            "config": _jsonable(layer.get_config()),
            "cell_config": _jsonable(stacked.get_config()),
            "x": x.tolist(), "weights": [w.tolist() for w in ws],
            "initial_state": None if init is None else [[a.tolist() for a in c]
                                                        for c in init],
            "structure": [list(t.shape) for t in flat],
            "outputs": [np.asarray(t).tolist() for t in flat], "g": [g.tolist() for g in gs],
            "grads": [np.asarray(t).tolist() for t in grads]}


def gqa_case(kwargs, shapes, call_kwargs, seed=0):
    """GroupQueryAttention(query, value[, key], **call_kwargs): output (and scores) and
    the gradients of ``sum(output * g)`` for the inputs and weights."""
    rng = np.random.default_rng(seed)
    layer = L.GroupQueryAttention(**kwargs)
    xs = [rng.standard_normal(sh).astype("float32") for sh in shapes]
    layer.build(*shapes)
    ws = [rng.standard_normal(tuple(v.shape)).astype("float32") for v in layer.weights]
    for v, w in zip(layer.weights, ws):
        v.assign(w)
    ts = [tf.constant(x) for x in xs]
    ckw = {k: (np.array(v, bool) if k.endswith("mask") and k != "use_causal_mask" else v)
           for k, v in call_kwargs.items()}
    with tf.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        res = layer(*ts, **ckw)
        y, scores = res if isinstance(res, tuple) else (res, None)
        gw = rng.standard_normal(tuple(y.shape)).astype("float32")
        loss = tf.reduce_sum(y * gw)
    grads = tape.gradient(loss, ts + [v.value for v in layer.weights])
    return {"kwargs": kwargs, "call_kwargs": call_kwargs,
            "config": _jsonable(layer.get_config()),
            "weight_shapes": [list(v.shape) for v in layer.weights],
            "xs": [x.tolist() for x in xs], "weights": [w.tolist() for w in ws],
            "g": gw.tolist(), "y": np.asarray(y).tolist(),
            "scores": None if scores is None else np.asarray(scores).tolist(),
            "grads": [None if t is None else np.asarray(t).tolist() for t in grads]}


if __name__ == "__main__":
    main()
