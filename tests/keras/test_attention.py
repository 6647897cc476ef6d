"""MultiHeadAttention and Attention against NumPy reference implementations written here,
masks, causal masks, scores, Keras 3 weight names/shapes, configs, symbolic calls and
finite-difference gradients."""
import numpy as np
import pytest

import fasteager as fe
from tests.keras.test_layers_more import check_layer_grads

L = fe.keras.layers
RNG = np.random.default_rng(1)


def rand(*shape):
    return RNG.standard_normal(shape)


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha_ref(weights, query, value, key=None, mask=None, causal=False):
    """Multi-head attention as Keras computes it, from the layer's weights in Keras's order
    (query, key, value, attention_output; kernel then bias)."""
    qk, qb, kk, kb, vk, vb, ok, ob = weights
    key = value if key is None else key
    q = np.einsum("btd,dhk->bthk", query, qk) + qb
    k = np.einsum("btd,dhk->bthk", key, kk) + kb
    v = np.einsum("btd,dhk->bthk", value, vk) + vb
    scores = np.einsum("bshk,bthk->bhts", k, q / np.sqrt(qk.shape[-1]))
    keep = np.ones(scores.shape[:1] + scores.shape[2:], bool)
    if mask is not None:
        keep = keep & mask.astype(bool)
    if causal:
        keep = keep & np.tril(np.ones(scores.shape[2:], bool))
    scores = scores + np.where(keep, 0.0, -1e9)[:, None]
    p = _softmax(scores)
    out = np.einsum("bhts,bshk->bthk", p, v)
    return np.einsum("bthk,hko->bto", out, ok) + ob, p


def _filled(layer):
    """Random (nonzero) biases, so the reference checks they are used where Keras uses them."""
    for w in layer.weights:
        w.assign(RNG.standard_normal(w.shape.as_list()) * 0.5)
    return [np.asarray(w.numpy()) for w in layer.weights]


def test_mha_weights_have_keras_names_and_shapes():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4)
    mha(fe.zeros([1, 5, 6]), fe.zeros([1, 7, 8]))
    # Keras 3: path 'multi_head_attention/query/kernel', name 'kernel'
    assert all(w.path == "%s/%s" % (mha.name, w.path.split("/", 1)[1]) and
               w.name == w.path.rsplit("/", 1)[1] for w in mha.weights)
    got = [(w.path.split("/", 1)[1], w.shape.as_list()) for w in mha.weights]
    assert got == [("query/kernel", [6, 2, 3]), ("query/bias", [2, 3]),
                   ("key/kernel", [8, 2, 3]), ("key/bias", [2, 3]),
                   ("value/kernel", [8, 2, 4]), ("value/bias", [2, 4]),
                   ("attention_output/kernel", [2, 4, 6]), ("attention_output/bias", [6])]
    assert mha.count_params() == 6 * 6 + 6 + 8 * 6 + 6 + 8 * 8 + 8 + 8 * 6 + 6
    no_bias = L.MultiHeadAttention(2, 3, use_bias=False, output_shape=5)
    assert no_bias(fe.zeros([1, 4, 6]), fe.zeros([1, 4, 6])).shape.as_list() == [1, 4, 5]
    assert [w.shape.as_list() for w in no_bias.weights] == [[6, 2, 3], [6, 2, 3], [6, 2, 3],
                                                            [2, 3, 5]]


@pytest.mark.parametrize("with_key", [False, True])
def test_mha_matches_the_numpy_reference(with_key):
    mha = L.MultiHeadAttention(num_heads=3, key_dim=4, value_dim=2, dtype="float64")
    q, v, k = rand(2, 5, 6), rand(2, 7, 8), rand(2, 7, 3)
    mha(q, v, k if with_key else None)
    weights = _filled(mha)
    out, scores = mha(q, v, k if with_key else None, return_attention_scores=True)
    want, want_p = mha_ref(weights, q, v, k if with_key else None)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(scores.numpy(), want_p, rtol=1e-10, atol=1e-12)
    # the fused path (no scores asked for) gives the same values
    np.testing.assert_allclose(mha(q, v, k if with_key else None).numpy(), want, rtol=1e-10)


def test_mha_masks_and_causal_mask():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3, dtype="float64")
    q, v = rand(2, 4, 5), rand(2, 6, 5)
    mha(q, v)
    weights = _filled(mha)
    mask = RNG.random((2, 4, 6)) > 0.4
    mask[0, 1] = False      # a query that sees nothing: finite scores, as Keras (no NaN)
    out, p = mha(q, v, attention_mask=mask, return_attention_scores=True)
    want, want_p = mha_ref(weights, q, v, mask=mask)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(p.numpy(), want_p, rtol=1e-9, atol=1e-12)
    assert np.all(np.isfinite(p.numpy()))
    np.testing.assert_allclose(mha(q, v, attention_mask=mask).numpy(), want, rtol=1e-9)
    x = rand(2, 5, 5)
    out, p = mha(x, x, use_causal_mask=True, return_attention_scores=True)
    want, want_p = mha_ref(weights, x, x, causal=True)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-12)
    assert np.all(np.triu(p.numpy()[0, 0], 1) < 1e-300)
    both = RNG.random((2, 5, 5)) > 0.3
    want, _ = mha_ref(weights, x, x, mask=both, causal=True)
    np.testing.assert_allclose(mha(x, x, attention_mask=both, use_causal_mask=True).numpy(),
                               want, rtol=1e-9, atol=1e-12)
    with pytest.raises(fe.errors.InvalidArgumentError, match="attention_mask must broadcast"):
        mha(q, v, attention_mask=np.ones((2, 3, 3), bool))


def test_mha_rank4_inputs_attend_over_all_middle_axes():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=2, dtype="float64")
    x = rand(2, 3, 2, 4)
    out = mha(x, x)
    assert out.shape.as_list() == [2, 3, 2, 4]
    weights = [np.asarray(w.numpy()) for w in mha.weights]
    flat = x.reshape(2, 6, 4)
    np.testing.assert_allclose(out.numpy().reshape(2, 6, 4), mha_ref(weights, flat, flat)[0],
                               rtol=1e-10)
    with pytest.raises(fe.errors.UnimplementedError, match="attention_axes"):
        L.MultiHeadAttention(2, 2, attention_axes=(2,))(x, x)


def test_mha_gradients_match_finite_differences():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=2, value_dim=3, dtype="float64")
    q, v = rand(2, 3, 4), rand(2, 4, 4)
    mha(q, v)
    _filled(mha)
    mask = np.array([[[1, 1, 0, 1]] * 3, [[1, 0, 1, 1]] * 3], bool)
    check_layer_grads(lambda a, b: mha(a, b, attention_mask=mask), [q, v], mha.weights)
    check_layer_grads(lambda a: mha(a, a, use_causal_mask=True), [q[:, :, :4]], [])


def test_mha_dropout_only_in_training():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=2, dropout=0.5)
    x = fe.constant(rand(2, 6, 4).astype("float32"))
    a, b = mha(x, x), mha(x, x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    out, p = mha(x, x, training=True, return_attention_scores=True)
    _, p_eval = mha(x, x, return_attention_scores=True)
    # Keras returns the scores before dropout; the output uses the dropped ones
    np.testing.assert_allclose(p.numpy(), p_eval.numpy(), rtol=1e-6)
    assert not np.allclose(out.numpy(), a.numpy())


def test_mha_symbolic_calls_config_and_errors():
    q, v = fe.keras.Input((None, 8)), fe.keras.Input((7, 6))
    mha = L.MultiHeadAttention(num_heads=2, key_dim=4, name="mha")
    out = mha(q, v)
    assert out.shape.as_list() == [None, None, 8]
    out, scores = mha(q, v, return_attention_scores=True)
    assert scores.shape.as_list() == [None, 2, None, 7]
    config = mha.get_config()
    assert {k: config[k] for k in ("num_heads", "key_dim", "value_dim", "dropout", "use_bias",
                                   "output_shape", "attention_axes")} == {
        "num_heads": 2, "key_dim": 4, "value_dim": 4, "dropout": 0.0, "use_bias": True,
        "output_shape": None, "attention_axes": None}
    clone = L.MultiHeadAttention.from_config(config)
    assert clone.get_config() == config
    with pytest.raises(ValueError, match="num_heads"):
        L.MultiHeadAttention(0, 4)
    with pytest.raises(TypeError, match="needs value"):
        L.MultiHeadAttention(2, 4)(fe.zeros([1, 2, 3]))


def attention_ref(q, v, k=None, scale=1.0, mode="dot", v_mask=None, causal=False,
                  concat_weight=1.0):
    k = v if k is None else k
    if mode == "dot":
        s = q @ np.swapaxes(k, 1, 2) * scale
    else:
        s = concat_weight * np.tanh(scale * (q[:, :, None] + k[:, None])).sum(-1)
    keep = np.ones(s.shape, bool)
    if v_mask is not None:
        keep &= v_mask[:, None, :]
    if causal:
        keep &= np.tril(np.ones(s.shape[1:], bool))
    p = _softmax(s - 1e9 * ~keep)
    return p @ v, p


@pytest.mark.parametrize("mode", ["dot", "concat"])
def test_attention_layer_matches_numpy(mode):
    q, v, k = rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 4)
    layer = L.Attention(use_scale=True, score_mode=mode, dtype="float64")
    layer([q, v, k])
    layer.scale.assign(0.7)
    if mode == "concat":
        layer.concat_score_weight.assign(1.3)
    out, p = layer([q, v, k], return_attention_scores=True)
    want, want_p = attention_ref(q, v, k, 0.7, mode, concat_weight=1.3)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(p.numpy(), want_p, rtol=1e-10)
    check_layer_grads(lambda a, b, c: layer([a, b, c]), [q, v, k], layer.weights)


def test_attention_layer_masks():
    q, v = rand(2, 4, 3), rand(2, 4, 3)
    layer = L.Attention(dtype="float64")
    v_mask = np.array([[1, 1, 0, 1], [1, 0, 0, 1]], bool)
    q_mask = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], bool)
    out = layer([q, v], mask=[q_mask, v_mask], use_causal_mask=True)
    want, _ = attention_ref(q, v, v_mask=v_mask, causal=True)
    np.testing.assert_allclose(out.numpy(), want * q_mask[..., None], rtol=1e-9, atol=1e-12)
    assert layer.weights == [] and layer.get_config()["score_mode"] == "dot"
    with pytest.raises(ValueError, match="score_mode"):
        L.Attention(score_mode="additive")
    with pytest.raises(ValueError, match=r"\[query, value\]"):
        L.Attention()(fe.zeros([1, 2, 3]))
    spec = L.Attention()([fe.keras.Input((None, 3)), fe.keras.Input((5, 3))])
    assert spec.shape.as_list() == [None, None, 3]


def test_attention_model_trains_in_traced_fit_steps():
    import warnings
    x = fe.keras.Input((6, 4))
    h = L.MultiHeadAttention(2, 2)(x, x, use_causal_mask=True)
    h = L.Attention()([h, x]) + h
    model = fe.keras.Model(x, L.Dense(1)(L.GlobalAveragePooling1D()(h)))
    model.compile("adam", "mse")
    data = RNG.random((64, 6, 4)).astype("float32")
    target = data.mean(axis=(1, 2))[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # a step that falls back to eager would warn
        hist = model.fit(data, target, epochs=4, batch_size=16, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]
