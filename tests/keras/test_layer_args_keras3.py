"""Keras 3 arguments and formulas of the activations and of the activation, normalization
and convolution layers (issue 34), compared (outputs and gradients, same weights) with
values recorded from Keras 3.15.1 by tests/tf_reference/record_layer_args.py."""
import warnings

import numpy as np
import pytest

import fasteager as fe
import fasteager.keras as keras
from tests.tf_reference import load

REF = load("layer_args")
A = keras.activations
L = keras.layers


def det(shape, k=0):
    """The recorder's deterministic values (weights and inputs shared with Keras)."""
    n = int(np.prod(shape))
    return (0.5 * np.sin(np.arange(n) * 0.37 + k)).astype(np.float32).reshape(shape)


def value_and_grad(fn, x):
    """``fn(x)`` and the gradient of ``sum(fn(x) * det(shape, 7))``, as the recorder takes."""
    x = fe.constant(x)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
        s = fe.reduce_sum(y * det(y.shape.as_list(), 7).astype(y.dtype.as_numpy_dtype))
    return y.numpy(), tape.gradient(s, x).numpy()


def close(got, want, dtype="float32"):
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == "float32" else dict(rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got, np.asarray(want, dtype=dtype), **tol)


# ---- activations on a grid of large, negative and kink values ------------------------------------

ACTS = {
    "relu": A.relu, "sigmoid": A.sigmoid, "tanh": A.tanh, "softmax": A.softmax,
    "log_softmax": A.log_softmax, "linear": A.linear, "elu": A.elu, "selu": A.selu,
    "gelu": A.gelu, "gelu_approximate": lambda x: A.gelu(x, approximate=True),
    "swish": A.swish, "silu": A.silu, "softplus": A.softplus, "softsign": A.softsign,
    "leaky_relu": A.leaky_relu, "relu6": A.relu6, "hard_sigmoid": A.hard_sigmoid,
    "exponential": A.exponential, "elu_alpha": lambda x: A.elu(x, alpha=0.5),
    "leaky_relu_slope": lambda x: A.leaky_relu(x, negative_slope=0.1),
}
for _kw in REF["relu_args"]:
    _kw = dict(_kw)
    ACTS["relu_" + "_".join("%s=%s" % kv for kv in sorted(_kw.items()))] = \
        (lambda kw: lambda x: A.relu(x, **kw))(_kw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(ACTS))
def test_activation_values_and_gradients_match_keras3(name, dtype):
    ref = REF["activations"][dtype][name]
    y, g = value_and_grad(ACTS[name], np.asarray(REF["grid"], dtype))
    assert y.dtype == dtype
    close(y, ref["y"], dtype)
    close(g, ref["grad"], dtype)


def test_every_activation_of_the_module_is_compared():
    # a new activation in fasteager.keras.activations needs a recorded Keras value too (here,
    # or in test_activations_added.py's activations_added.json for the names added in #34)
    added = {case["name"] for case in load("activations_added")["cases"].values()}
    assert set(A._BY_NAME) <= set(ACTS) | added


def test_hard_sigmoid_is_keras3_relu6_formula():
    # Keras 3: relu6(x + 3) / 6 (TF 2's 0.2 x + 0.5 differs at x = 2: 0.8333 vs 0.9)
    np.testing.assert_allclose(A.hard_sigmoid(fe.constant([2.0, -2.0])).numpy(),
                               [5 / 6, 1 / 6], rtol=1e-6)
    assert A.get("hard_sigmoid") is A.hard_sigmoid


@pytest.mark.parametrize("fn, key", [(A.relu, "relu_alpha"), (A.leaky_relu, "leaky_relu_alpha")])
def test_keras2_alpha_keyword_is_refused_as_in_keras3(fn, key):
    ref = REF["activation_errors"][key]
    assert ref["class"] == "TypeError"
    with pytest.raises(TypeError, match="alpha"):
        fn(fe.constant([1.0]), alpha=0.1)


# ---- ReLU and LeakyReLU layers -------------------------------------------------------------------

@pytest.mark.parametrize("key", sorted(REF["activation_layers"]))
def test_activation_layers_match_keras3(key):
    ref = REF["activation_layers"][key]
    cls = L.ReLU if key.startswith("ReLU") else L.LeakyReLU
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = cls(**ref["args"])
    if "warnings" in ref:
        assert [str(w.message) for w in caught] == ref["warnings"]
        cfg = layer.get_config()
        assert cfg["negative_slope"] == pytest.approx(ref["config"]["negative_slope"])
        assert ("alpha" in cfg) is ref["config"]["has_alpha"]
    else:
        cfg = layer.get_config()
        for k, v in ref["config"].items():
            assert cfg[k] == (None if v is None else pytest.approx(v))
    y, g = value_and_grad(layer, np.asarray(REF["grid"], "float32"))
    close(y, ref["y"])
    close(g, ref["grad"])
    # the config rebuilds the same layer
    again = cls.from_config(cfg)
    close(again(fe.constant(REF["grid"])).numpy(), ref["y"])


@pytest.mark.parametrize("key, make", [
    ("relu_max_value", lambda: L.ReLU(max_value=-1.0)),
    ("relu_negative_slope", lambda: L.ReLU(negative_slope=-0.1)),
    ("relu_threshold", lambda: L.ReLU(threshold=-0.5)),
    ("leaky_negative_slope", lambda: L.LeakyReLU(negative_slope=-0.1)),
    ("leaky_none", lambda: L.LeakyReLU(negative_slope=None)),
])
def test_activation_layer_argument_errors_match_keras3(key, make):
    ref = REF["activation_layer_errors"][key]
    with pytest.raises(ValueError) as info:
        make()
    assert ref["class"] == "ValueError"
    assert str(info.value) == ref["message"]


# ---- Softmax(axis)(x, mask=...) ------------------------------------------------------------------

@pytest.mark.parametrize("key", ["none", "bool", "float", "int", "broadcast_last",
                                 "broadcast_row", "axis1", "axis_tuple", "axis_tuple1",
                                 "axis_neg_tuple"])
def test_softmax_layer_mask_and_axes_match_keras3(key):
    ref = REF["softmax_mask"][key]
    sm = REF["softmax_mask"]
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in ref["args"].items()}
    mask = None if ref["mask"] is None else np.asarray(ref["mask"], ref["mask_dtype"])
    layer = L.Softmax(**kw)
    y, g = value_and_grad(lambda x: layer(x, mask=mask), np.asarray(sm["x"], "float32"))
    close(y, ref["y"])
    close(g, ref["grad"])


def test_softmax_layer_mask_float16_uses_keras3s_smaller_fill():
    ref = REF["softmax_mask"]["float16"]
    x = np.asarray(ref["x"], "float16")
    y, g = value_and_grad(lambda t: L.Softmax(dtype="float16")(t, mask=np.asarray(ref["mask"])),
                          x)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.astype("float32"), ref["y"], rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(g.astype("float32"), ref["grad"], rtol=2e-3, atol=2e-3)


def test_softmax_layer_takes_the_mask_an_embedding_hands_on():
    # Keras 3 passes the travelling mask to Softmax.call(mask=...) without being asked
    ref = REF["softmax_mask"]["embedding_mask"]
    emb = L.Embedding(5, 4, mask_zero=True)
    emb.build((None, 4))
    emb.set_weights([det((5, 4), 17) * 4])
    close(L.Softmax()(emb(np.asarray(ref["ids"]))).numpy(), ref["y"])
    # a (2, 4) mask does not broadcast to (2, 4, 4) scores: Keras 3 refuses it
    assert ref["error2"]["class"] == "ValueError"
    with pytest.raises(ValueError) as info:
        L.Softmax()(emb(np.asarray(ref["ids2"])))
    assert str(info.value) in ref["error2"]["message"]


@pytest.mark.parametrize("key, mask_shape", [("more_dims", (1, 2, 3, 4)),
                                             ("mismatch", (2, 3, 3))])
def test_softmax_layer_mask_shape_errors_match_keras3(key, mask_shape):
    ref = REF["softmax_mask"]["errors"][key]
    assert ref["class"] == "ValueError"
    x = np.asarray(REF["softmax_mask"]["x"], "float32")
    with pytest.raises(ValueError) as info:
        L.Softmax()(x, mask=np.ones(mask_shape, bool))
    # Keras wraps the message in its call-context banner; the core text is the same
    assert str(info.value) in ref["message"]


# ---- LayerNormalization(rms_scaling=True) --------------------------------------------------------

@pytest.mark.parametrize("key", sorted(REF["layer_norm_rms"]))
def test_layer_norm_rms_scaling_matches_keras3(key):
    ref = REF["layer_norm_rms"][key]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = L.LayerNormalization(**ref["args"])
    assert [str(w.message) for w in caught][:1] == ref["warnings"][:1]
    layer.build(tuple(ref["shape"]))
    assert [w.name for w in layer.weights] == ref["weights"]
    layer.set_weights([det(w.shape.as_list(), 22 + i) + 1.0 for i, w in enumerate(layer.weights)])
    x = fe.constant(np.asarray(ref["x"], "float32"))
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        s = fe.reduce_sum(y * det(y.shape.as_list(), 7))
    grads = tape.gradient(s, [x] + list(layer.trainable_weights))
    close(y.numpy(), ref["y"])
    close(grads[0].numpy(), ref["grad_x"])
    for g, want in zip(grads[1:], ref["grad_weights"]):
        close(g.numpy(), want)
    assert layer.get_config()["rms_scaling"] is ref["config_rms_scaling"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = L.LayerNormalization.from_config(layer.get_config())
    again.build(tuple(ref["shape"]))
    again.set_weights(layer.get_weights())
    close(again(x).numpy(), ref["y"])


# ---- Conv1D(padding="causal") --------------------------------------------------------------------

@pytest.mark.parametrize("key", sorted(k for k in REF["conv1d_causal"] if k != "errors"))
def test_conv1d_causal_matches_keras3(key):
    ref = REF["conv1d_causal"][key]
    layer = L.Conv1D(padding="causal", **ref["args"])
    shape = tuple(ref["shape"])
    layer.build(shape)
    layer.set_weights([det(np.shape(w), 32 + i) for i, w in enumerate(layer.get_weights())])
    x = fe.constant(det(shape, 31))
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        s = fe.reduce_sum(y * det(y.shape.as_list(), 7))
    gx, gk, gb = tape.gradient(s, [x, layer.kernel, layer.bias])
    close(y.numpy(), ref["y"])
    close(gx.numpy(), ref["grad_x"])
    close(gk.numpy(), ref["grad_kernel"])
    close(gb.numpy(), ref["grad_bias"])
    assert layer.get_config()["padding"] == ref["config_padding"]
    out_shape = L.Conv1D(padding="causal", **ref["args"]).compute_output_shape(
        (None,) + shape[1:])
    assert list(out_shape) == ref["symbolic_shape"]


def test_conv1d_causal_in_a_functional_model():
    inp = keras.Input((None, 3))
    out = L.Conv1D(2, 3, padding="causal", dilation_rate=2)(inp)
    model = keras.Model(inp, out)
    x = det((1, 6, 3), 3)
    full = model(x).numpy()
    # causal: the first 4 outputs never see the last 2 steps
    x2 = x.copy()
    x2[:, 4:] += 1.0
    np.testing.assert_allclose(model(x2).numpy()[:, :4], full[:, :4], rtol=1e-6)
    assert full.shape == (1, 6, 2)


@pytest.mark.parametrize("key, make", [
    ("conv2d_causal", lambda: L.Conv2D(2, 3, padding="causal")),
    ("conv1d_bad", lambda: L.Conv1D(2, 3, padding="full")),
])
def test_causal_padding_only_for_conv1d_as_keras3(key, make):
    ref = REF["conv1d_causal"]["errors"][key]
    assert ref["class"] == "ValueError"
    with pytest.raises(ValueError, match="causal" if key == "conv1d_bad" else "padding"):
        make()
