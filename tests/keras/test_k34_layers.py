"""keras.layers names added by issue 34 part L3 (adaptive pooling, Conv3DTranspose,
DepthwiseConv1D, SeparableConv1D, EinsumDense, AdditiveAttention), compared with values
recorded from Keras 3.15.1 by tests/tf_reference/record_k34_layers.py: outputs,
gradients for the inputs and weights, and the config (with its from_config round trip)."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

L = fe.keras.layers
REF = load("k34_layers")
KEYS = sorted(REF)


def _plain(config):
    """Keras's config as fasteager writes it: the dtype policy as its name, serialized
    objects compared by class name, activity_regularizer only when set."""
    out = {}
    for k, v in config.items():
        if k == "dtype" and isinstance(v, dict):
            v = v["config"]["name"]
        elif isinstance(v, dict) and "class_name" in v:
            v = v["class_name"]
        elif isinstance(v, (list, tuple)):
            v = list(v)
        if k == "activity_regularizer" and v is None:
            continue
        out[k] = v
    return out


def _run(key, layer=None):
    case = REF[key]
    if layer is None:
        layer = getattr(L, case["cls"])(**case["kwargs"])
    xs = [fe.constant(np.array(x, np.float32)) for x in case["xs"]]
    layer.build([x.shape for x in xs] if len(xs) > 1 else xs[0].shape)
    assert len(layer.weights) == len(case["weights"])
    for v, w in zip(layer.weights, case["weights"]):
        assert list(v.shape) == list(np.shape(w))
        v.assign(np.array(w, np.float32))
    with fe.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = layer(xs if len(xs) > 1 else xs[0], **case["call_kwargs"])
        loss = fe.reduce_sum(y * fe.constant(np.array(case["g"], np.float32)))
    grads = tape.gradient(loss, xs + list(layer.weights))
    return case, layer, y, grads


@pytest.mark.parametrize("key", KEYS)
def test_values_and_gradients_match_keras(key):
    case, layer, y, grads = _run(key)
    assert list(y.shape) == case["output_shape"]
    np.testing.assert_allclose(y.numpy(), np.array(case["y"], np.float32), rtol=1e-5,
                               atol=1e-5)
    assert len(grads) == len(case["grads"])
    for got, want in zip(grads, case["grads"]):
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(np.asarray(got), np.array(want, np.float32),
                                       rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("key", KEYS)
def test_config_matches_keras_and_round_trips(key):
    case = REF[key]
    layer = getattr(L, case["cls"])(**case["kwargs"])
    want = _plain(case["config"])
    got = _plain(layer.get_config())
    assert set(got) == set(want)
    for k in want:
        if k != "name":
            assert got[k] == want[k], k
    # from_config of fasteager's own config, and of Keras's serialized config
    again = type(layer).from_config(layer.get_config())
    assert _plain(again.get_config()) == got
    restored = L.deserialize(L.serialize(layer))
    assert type(restored) is type(layer)
    _, _, y, _ = _run(key, restored)
    np.testing.assert_allclose(y.numpy(), np.array(case["y"], np.float32), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("name,bad,err", [
    ("AdaptiveAveragePooling1D", (2, 3), ValueError),
    ("AdaptiveMaxPooling2D", (2, 3, 4), TypeError),
    ("AdaptiveAveragePooling3D", "3", TypeError),
])
def test_adaptive_pooling_rejects_bad_output_size(name, bad, err):
    with pytest.raises(err, match="output_size"):
        getattr(L, name)(bad)


def test_adaptive_pooling_bad_data_format():
    with pytest.raises(ValueError, match="Invalid data_format"):
        L.AdaptiveMaxPooling1D(2, data_format="nwc")


def test_einsum_dense_bad_equations():
    with pytest.raises(ValueError, match="Invalid einsum equation"):
        L.EinsumDense("ab->b", 3)
    with pytest.raises(ValueError, match="Bias dimension 'z'"):
        L.EinsumDense("ab,bc->ac", 3, bias_axes="z").build((2, 4))
    with pytest.raises(ValueError, match="do not match at shared"):
        L.EinsumDense("abc,cd->abd", (5, 6)).build((2, 3, 4))
    assert L.EinsumDense("abc,cd->abd", (None, 6)).compute_output_shape((2, 3, 4)) \
        == (2, 3, 6)


def test_aliases():
    assert L.Convolution3DTranspose is L.Conv3DTranspose
    assert L.SeparableConvolution1D is L.SeparableConv1D


SPECIAL = load("k34_layers_special")
# Embedding's own config differs from Keras 3.15's in these keys (fasteager's Embedding
# writes input_length and no quantization_config): not ReversibleEmbedding's part
_EMBEDDING_KEYS = {"input_length", "quantization_config"}


@pytest.mark.parametrize("key", sorted(SPECIAL["ReversibleEmbedding"]))
def test_reversible_embedding_matches_keras(key):
    case = SPECIAL["ReversibleEmbedding"][key]
    layer = L.ReversibleEmbedding(**case["kwargs"])
    layer.build((2, 3))
    assert [v.name for v in layer.weights] == case["weight_names"]
    for v, w in zip(layer.weights, case["weights"]):
        v.assign(np.array(w, np.float32))
    ids = np.array(case["ids"], np.int32)
    np.testing.assert_allclose(layer(ids).numpy(), np.array(case["y"], np.float32))
    mask = layer.compute_mask(fe.constant(ids))
    if case["kwargs"].get("mask_zero"):
        np.testing.assert_array_equal(mask.numpy(), ids != 0)
    else:
        assert mask is None
    h = fe.constant(np.array(case["h"], np.float32))
    with fe.GradientTape() as tape:
        tape.watch(h)
        logits = layer(h, reverse=True)
        loss = fe.reduce_sum(logits * fe.constant(np.array(case["g"], np.float32)))
    assert layer.compute_mask(h) is None
    np.testing.assert_allclose(logits.numpy(), np.array(case["logits"], np.float32),
                               rtol=1e-5, atol=1e-5)
    grads = tape.gradient(loss, [h] + list(layer.weights))
    for got, want in zip(grads, case["grads"]):
        if want is None:          # (untied: the lookup table is not in the reverse pass)
            assert got is None
            continue
        np.testing.assert_allclose(np.asarray(got), np.array(want, np.float32), rtol=1e-5,
                                   atol=1e-5)
    want = _plain(case["config"])
    got = _plain(layer.get_config())
    assert set(got) - _EMBEDDING_KEYS == set(want) - _EMBEDDING_KEYS
    for k in set(want) - _EMBEDDING_KEYS - {"name"}:
        assert got[k] == want[k], k
    again = L.deserialize(L.serialize(layer))
    assert again.get_config() == layer.get_config()


@pytest.mark.parametrize("key", sorted(SPECIAL["SpectralNormalization"]))
def test_spectral_normalization_matches_keras(key):
    case = SPECIAL["SpectralNormalization"][key]
    # (Keras 3.15's Dense config has quantization_config, which fasteager's Dense does
    # not take: the wrapped layer's, not this wrapper's)
    inner_config = {k: v for k, v in _plain(case["config"]["layer"]["config"]).items()
                    if k != "quantization_config"}
    inner = L.deserialize({"class_name": case["config"]["layer"]["class_name"],
                           "config": inner_config})
    layer = L.SpectralNormalization(inner, power_iterations=case["power_iterations"])
    layer.build(tuple(case["shape"]))
    for name, var in (("kernel", inner.kernel), ("bias", inner.bias),
                      ("vector_u", layer.vector_u)):
        var.assign(np.array(case["weights"][name], np.float32))
    assert not layer.vector_u.trainable
    x = np.array(case["x"], np.float32)
    np.testing.assert_allclose(layer(x, training=False).numpy(),
                               np.array(case["y_inference"], np.float32), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(layer(x, training=True).numpy(),
                               np.array(case["y_train"], np.float32), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(inner.kernel.numpy(),
                               np.array(case["kernel_after"], np.float32), rtol=1e-4,
                               atol=1e-6)
    np.testing.assert_allclose(layer.vector_u.numpy(),
                               np.array(case["vector_u_after"], np.float32), rtol=1e-4,
                               atol=1e-6)
    config = layer.get_config()
    assert set(config) == set(case["config"])
    assert config["power_iterations"] == case["power_iterations"]
    assert config["layer"]["class_name"] == case["config"]["layer"]["class_name"]
    again = L.SpectralNormalization.from_config(config)
    assert type(again.layer) is type(inner) and again.power_iterations == \
        case["power_iterations"]


def test_spectral_normalization_errors():
    with pytest.raises(ValueError, match="power_iterations"):
        L.SpectralNormalization(L.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match="nor 'embeddings'"):
        L.SpectralNormalization(L.Flatten()).build((2, 3))
    # an all-zero kernel is left as it is in training (no division by a zero norm)
    layer = L.SpectralNormalization(L.Dense(2, kernel_initializer="zeros"))
    y = layer(np.ones((1, 3), np.float32), training=True)
    assert np.all(np.isfinite(y.numpy())) and not np.any(layer.layer.kernel.numpy())


def test_wrapper_config_matches_keras_and_round_trips():
    want = SPECIAL["Wrapper_config"]
    w = L.Wrapper(L.Dense(2))
    config = w.get_config()
    assert set(config) == set(want)
    assert config["layer"]["class_name"] == want["layer"]["class_name"] == "Dense"
    again = L.Wrapper.from_config(config)
    assert isinstance(again.layer, L.Dense) and again.layer.units == 2
    assert isinstance(L.SpectralNormalization(L.Dense(1)), L.Wrapper)
    with pytest.raises(ValueError, match="isn't a supported layer type"):
        L.Wrapper("dense")


@pytest.mark.parametrize("key", sorted(SPECIAL["GroupQueryAttention"]))
def test_group_query_attention_matches_keras(key):
    case = SPECIAL["GroupQueryAttention"][key]
    layer = L.GroupQueryAttention(**case["kwargs"])
    xs = [fe.constant(np.array(x, np.float32)) for x in case["xs"]]
    layer.build(*[x.shape for x in xs])
    assert [list(v.shape) for v in layer.weights] == case["weight_shapes"]
    for v, w in zip(layer.weights, case["weights"]):
        v.assign(np.array(w, np.float32))
    kw = {k: (np.array(v, bool) if k.endswith("mask") and k != "use_causal_mask" else v)
          for k, v in case["call_kwargs"].items()}
    with fe.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        res = layer(*xs, **kw)
        y, scores = res if isinstance(res, tuple) else (res, None)
        loss = fe.reduce_sum(y * fe.constant(np.array(case["g"], np.float32)))
    np.testing.assert_allclose(y.numpy(), np.array(case["y"], np.float32), rtol=1e-4,
                               atol=1e-5)
    if case["scores"] is not None:
        np.testing.assert_allclose(scores.numpy(), np.array(case["scores"], np.float32),
                                   rtol=1e-5, atol=1e-6)
    grads = tape.gradient(loss, xs + list(layer.weights))
    for got, want in zip(grads, case["grads"]):
        np.testing.assert_allclose(np.asarray(got), np.array(want, np.float32), rtol=1e-4,
                                   atol=1e-4)
    want = _plain(case["config"])
    got = _plain(layer.get_config())
    assert set(got) == set(want)
    for k in want:
        if k != "name":
            assert got[k] == want[k], k
    again = L.deserialize(L.serialize(layer))
    assert type(again) is L.GroupQueryAttention
    assert again.get_config() == layer.get_config()


def test_group_query_attention_errors():
    with pytest.raises(ValueError, match="divisible"):
        L.GroupQueryAttention(2, 3, 2)
    with pytest.raises(ValueError, match="sliding_window"):
        L.GroupQueryAttention(2, 2, 1, sliding_window=0)
    with pytest.raises(ValueError, match="flash attention"):
        L.GroupQueryAttention(2, 2, 1, dropout=0.1, flash_attention=True)


@pytest.mark.parametrize("key", sorted(SPECIAL["StackedRNNCells"]))
def test_stacked_rnn_cells_match_keras(key):
    case = SPECIAL["StackedRNNCells"][key]
    stacked = L.StackedRNNCells([getattr(L, c)(**kw) for c, kw in case["cells"]])
    layer = L.RNN(stacked, **case["rnn_kwargs"])
    layer.build(tuple(case["shape"]))
    assert len(layer.weights) == len(case["weights"])
    for v, w in zip(layer.weights, case["weights"]):
        v.assign(np.array(w, np.float32))
    x = fe.constant(np.array(case["x"], np.float32))
    init = None if case["initial_state"] is None else [
        [fe.constant(np.array(a, np.float32)) for a in c] for c in case["initial_state"]]
    with fe.GradientTape() as tape:
        tape.watch(x)
        res = layer(x) if init is None else layer(x, initial_state=init)
        flat = fe.nest.flatten(res)
        loss = fe.add_n([fe.reduce_sum(t * fe.constant(np.array(g, np.float32)))
                         for t, g in zip(flat, case["g"])])
    assert [list(t.shape) for t in flat] == case["structure"]
    if case["rnn_kwargs"].get("return_state"):
        # one list of states per cell, as Keras returns them
        assert all(isinstance(s, list) for s in res[1:]) and len(res) == 1 + len(case["cells"])
    for got, want in zip(flat, case["outputs"]):
        np.testing.assert_allclose(got.numpy(), np.array(want, np.float32), rtol=1e-5,
                                   atol=1e-5)
    grads = tape.gradient(loss, [x] + list(layer.weights))
    for got, want in zip(grads, case["grads"]):
        np.testing.assert_allclose(np.asarray(got), np.array(want, np.float32), rtol=1e-4,
                                   atol=1e-5)
    config = stacked.get_config()
    want = case["cell_config"]
    assert set(config) == set(want)
    assert [c["class_name"] for c in config["cells"]] == \
        [c["class_name"] for c in want["cells"]]
    assert layer.get_config()["cell"]["class_name"] == "StackedRNNCells"
    again = L.RNN.from_config(layer.get_config())
    assert [type(c) for c in again.cell.cells] == [type(c) for c in stacked.cells]
    assert again.cell.state_size == stacked.state_size


def test_rnn_takes_a_list_of_cells():
    layer = L.RNN([L.SimpleRNNCell(3), L.LSTMCell(2)])
    assert isinstance(layer.cell, L.StackedRNNCells)
    assert layer.cell.state_size == [3, [2, 2]] and layer.cell.output_size == 2
    assert layer(np.ones((2, 4, 5), np.float32)).shape == (2, 2)
    with pytest.raises(ValueError, match="state_size"):
        L.StackedRNNCells([L.Dense(2)])


class _Probe(L.Layer):
    """A layer whose only check is its input_spec."""

    def call(self, inputs):
        return inputs


@pytest.mark.parametrize("index", range(len(SPECIAL["InputSpec"]["single"])))
def test_input_spec_matches_keras(index):
    case = SPECIAL["InputSpec"]["single"][index]
    kwargs = dict(case["kwargs"])
    if "axes" in kwargs:
        kwargs["axes"] = {int(k): v for k, v in kwargs["axes"].items()}
    spec = fe.keras.InputSpec(**kwargs)
    assert fe.keras.layers.InputSpec is fe.keras.InputSpec
    assert repr(spec) == case["repr"]
    config = spec.get_config()
    want = dict(case["config"], axes={int(k): v for k, v in case["config"]["axes"].items()})
    if want["shape"] is not None:
        want["shape"] = tuple(want["shape"])
    assert config == want
    assert fe.keras.InputSpec.from_config(config).get_config() == config
    for (shape, dtype), result in zip(case["inputs"], case["results"]):
        layer = _Probe(name="probe")
        layer.input_spec = spec
        x = fe.zeros(shape, dtype=dtype)
        if result is None:
            assert layer(x).shape == tuple(shape)
        else:
            with pytest.raises(ValueError) as info:
                layer(x)
            assert str(info.value) == result


def test_input_spec_several_inputs_match_keras():
    from fasteager.keras.layers.input_spec import assert_input_compatibility
    two = [fe.keras.InputSpec(ndim=2, name="a"), fe.keras.InputSpec(ndim=3, name="b")]
    values = {"list_ok": [fe.zeros((1, 2)), fe.zeros((1, 2, 3))],
              "dict_ok": {"b": fe.zeros((1, 2, 3)), "a": fe.zeros((1, 2))},
              "dict_missing": {"a": fe.zeros((1, 2))}, "too_few": [fe.zeros((1, 2))]}
    for label, want in SPECIAL["InputSpec"]["multi"].items():
        if want is None:
            assert_input_compatibility(two, values[label], "probe")
        else:
            with pytest.raises(ValueError) as info:
                assert_input_compatibility(two, values[label], "probe")
            assert str(info.value) == want


def test_input_spec_set_in_build_is_checked_after_build():
    class Built(L.Layer):
        def build(self, input_shape):
            self.input_spec = fe.keras.InputSpec(axes={-1: 2})

        def call(self, inputs):
            return inputs

    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 2"):
        Built()(fe.zeros((1, 3)))
    with pytest.raises(TypeError, match="integer keys"):
        fe.keras.InputSpec(axes={"x": 1})
    with pytest.raises(ValueError, match="greater than the maximum"):
        fe.keras.InputSpec(ndim=2, axes={3: 1})


@pytest.mark.parametrize("key", sorted(SPECIAL["ConvLSTM"]))
def test_conv_lstm_matches_keras(key):
    case = SPECIAL["ConvLSTM"][key]
    layer = getattr(L, case["cls"])(**case["kwargs"])
    layer.build(tuple(case["shape"]))
    assert [list(v.shape) for v in layer.weights] == case["weight_shapes"]
    for v, w in zip(layer.weights, case["weights"]):
        v.assign(np.array(w, np.float32))
    x = fe.constant(np.array(case["x"], np.float32))
    with fe.GradientTape() as tape:
        tape.watch(x)
        flat = fe.nest.flatten(layer(x))
        loss = fe.add_n([fe.reduce_sum(t * fe.constant(np.array(g, np.float32)))
                         for t, g in zip(flat, case["g"])])
    assert [list(t.shape) for t in flat] == case["structure"]
    for got, want in zip(flat, case["outputs"]):
        np.testing.assert_allclose(got.numpy(), np.array(want, np.float32), rtol=1e-4,
                                   atol=1e-5)
    grads = tape.gradient(loss, [x] + list(layer.weights))
    for got, want in zip(grads, case["grads"]):
        np.testing.assert_allclose(np.asarray(got), np.array(want, np.float32), rtol=1e-4,
                                   atol=1e-4)
    want = _plain(case["config"])
    got = _plain(layer.get_config())
    assert set(got) == set(want)
    for k in want:
        if k != "name":
            assert got[k] == want[k], k
    again = L.deserialize(L.serialize(layer))
    assert type(again) is type(layer) and again.get_config() == layer.get_config()


def test_conv_lstm_defaults_mask_dropout_and_errors():
    layer = L.ConvLSTM2D(2, 3)
    layer.build((2, 3, 5, 5, 1))
    # the forget gate's bias starts at 1 (unit_forget_bias), the others at 0
    np.testing.assert_array_equal(layer.cell.bias.numpy(), [0, 0, 1, 1, 0, 0, 0, 0])
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5, 1)).astype(np.float32)
    # a masked last step keeps the state of the step before
    full = L.ConvLSTM2D(2, 3, return_sequences=True)
    seq = full(x)
    last = L.ConvLSTM2D.from_config(dict(full.get_config(), return_sequences=False))
    last.build(x.shape)
    last.set_weights(full.get_weights())
    y = last(x, mask=np.array([[1, 1, 0], [1, 1, 1]], bool))
    np.testing.assert_allclose(y.numpy()[0], seq.numpy()[0, 1], rtol=1e-6)
    np.testing.assert_allclose(y.numpy()[1], seq.numpy()[1, 2], rtol=1e-6)
    # dropout: training calls differ from inference, inference is deterministic
    drop = L.ConvLSTM1D(2, 2, dropout=0.5, recurrent_dropout=0.5, seed=1)
    x1 = np.ones((2, 3, 4, 2), np.float32)
    a, b = drop(x1), drop(x1)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.allclose(drop(x1, training=True).numpy(), a.numpy())
    with pytest.raises(ValueError, match="strides > 1"):
        L.ConvLSTM2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="expected ndim=5, got ndim=4"):
        L.ConvLSTM2D(2, 3)(np.ones((1, 2, 3, 3), np.float32))


def test_einsum_dense_initializer_fans_from_the_kernel_axes():
    # Keras's EinsumDense gives a VarianceScaling initializer the kernel's input axes
    # (c: 64) and output axes (d, e: 8 * 16); Glorot's uniform limit is then
    # sqrt(6 / (64 + 128)), not the receptive-field fans of a 3-D kernel
    layer = L.EinsumDense("abc,cde->abde", (None, 8, 16),
                          kernel_initializer=fe.keras.initializers.GlorotUniform(seed=1))
    layer.build((2, 3, 64))
    k = layer.kernel.numpy()
    limit = np.sqrt(6.0 / (64 + 128))
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.95 * limit
    np.testing.assert_allclose(k.std(), limit / np.sqrt(3), rtol=0.05)
    # the layer's own initializer (and config) keep the axes unset, as Keras's
    assert layer.get_config()["kernel_initializer"]["config"]["input_axes"] is None
