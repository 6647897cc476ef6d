"""Recurrent layers: Keras's weights and defaults, the fused and step-by-step paths agree,
masks, states, wrappers, gradients against finite differences, config round trips."""
import numpy as np
import pytest

import fasteager as fe
from fasteager.keras import layers as L
from tests.ops.op_specs_rnn import ref_gru, ref_lstm, ref_simple_rnn

B, T, D, U = 2, 4, 3, 2


def _x(shape=(B, T, D), seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _out(y):
    return [np.asarray(t) for t in (y if isinstance(y, list) else [y])]


def _tm(a):
    return np.ascontiguousarray(np.swapaxes(a, 0, 1))


def _randomize(layer, seed=1):
    """Weights of moderate size (the default zero bias would hide bias bugs)."""
    rng = np.random.default_rng(seed)
    layer.set_weights([0.6 * rng.standard_normal(w.shape) for w in layer.get_weights()])


def _twin(layer_cls, **kw):
    """Two float64 layers with equal weights, the fused path and the step-by-step one."""
    fused = layer_cls(U, dtype="float64", **kw)
    steps = layer_cls(U, dtype="float64", unroll=True, **kw)
    fused(_x())
    steps(_x())
    _randomize(fused)
    steps.set_weights(fused.get_weights())
    return fused, steps


def numeric_layer_grads(layer, x, v, eps=1e-6, **kw):
    """Central differences of sum(out * v) in x and in every trainable weight."""
    def total():
        return sum(float(np.sum(o * w)) for o, w in zip(_out(layer(fe.constant(x), **kw)), v))
    grads = []
    for arr, put in [(x, None)] + [(np.array(w.numpy()), w) for w in layer.trainable_weights]:
        g = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            old = arr[idx]
            vals = []
            for d in (eps, -eps):
                arr[idx] = old + d
                if put is not None:
                    put.assign(arr)
                vals.append(total())
            arr[idx] = old
            if put is not None:
                put.assign(arr)
            g[idx] = (vals[0] - vals[1]) / (2 * eps)
        grads.append(g)
    return grads


def tape_layer_grads(layer, x, v, **kw):
    xt = fe.constant(x)
    with fe.GradientTape() as tape:
        tape.watch(xt)
        outs = layer(xt, **kw)
        outs = outs if isinstance(outs, list) else [outs]
        loss = fe.add_n([fe.reduce_sum(o * w) for o, w in zip(outs, v)])
    return [np.asarray(g) for g in tape.gradient(loss, [xt] + layer.trainable_weights)]


def check_layer_grads(layer, x, **kw):
    outs = _out(layer(fe.constant(x), **kw))
    rng = np.random.default_rng(5)
    v = [rng.standard_normal(o.shape) for o in outs]
    for got, want in zip(tape_layer_grads(layer, x, v, **kw), numeric_layer_grads(layer, x, v,
                                                                                  **kw)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


# ---- weights and defaults ----------------------------------------------------------------

def test_lstm_weights_follow_keras():
    lstm = L.LSTM(U, name="lstm_w")
    lstm(fe.zeros([B, T, D]))
    assert [w.name for w in lstm.weights] == ["kernel", "recurrent_kernel", "bias"]
    assert [w.path for w in lstm.weights] == ["lstm_w/lstm_cell/kernel",
                                              "lstm_w/lstm_cell/recurrent_kernel",
                                              "lstm_w/lstm_cell/bias"]
    assert [w.shape.as_list() for w in lstm.weights] == [[D, 4 * U], [U, 4 * U], [4 * U]]
    # unit_forget_bias: ones for the forget gate, zeros elsewhere
    np.testing.assert_array_equal(lstm.cell.bias.numpy(), [0, 0, 1, 1, 0, 0, 0, 0])
    rk = lstm.cell.recurrent_kernel.numpy()
    np.testing.assert_allclose(rk @ rk.T, np.eye(U), atol=1e-5)     # orthogonal rows
    assert lstm.units == U and lstm.activation is fe.keras.activations.tanh
    assert lstm.recurrent_activation is fe.keras.activations.sigmoid


def test_gru_bias_shapes():
    gru = L.GRU(U)
    gru(fe.zeros([B, T, D]))
    assert [w.shape.as_list() for w in gru.weights] == [[D, 3 * U], [U, 3 * U], [2, 3 * U]]
    old = L.GRU(U, reset_after=False)
    old(fe.zeros([B, T, D]))
    assert old.weights[2].shape.as_list() == [3 * U]
    simple = L.SimpleRNN(U, use_bias=False)
    simple(fe.zeros([B, T, D]))
    assert [w.shape.as_list() for w in simple.weights] == [[D, U], [U, U]]


# ---- the layers against NumPy, and the two paths against each other ----------------------

def _ref_layer(layer, x, mask=None):
    w = layer.get_weights()
    m = np.ones((T, B)) if mask is None else mask.T.astype(float)
    if isinstance(layer, L.LSTM):
        return ref_lstm(_tm(x), np.zeros((B, U)), np.zeros((B, U)), *w, m)[0]
    if isinstance(layer, L.GRU):
        return ref_gru(_tm(x), np.zeros((B, U)), *w, m)[0]
    return ref_simple_rnn(_tm(x), np.zeros((B, U)), *w, m)


@pytest.mark.parametrize("cls", [L.LSTM, L.GRU, L.SimpleRNN])
@pytest.mark.parametrize("unroll", [False, True])
def test_sequences_match_numpy(cls, unroll):
    layer = cls(U, dtype="float64", return_sequences=True, unroll=unroll)
    x = _x()
    layer(x)
    _randomize(layer)
    np.testing.assert_allclose(layer(x).numpy(), _tm(_ref_layer(layer, x)), rtol=1e-10,
                               atol=1e-12)


MASK = np.array([[True, True, False, True], [True, False, False, False]])

SETTINGS = [dict(), dict(return_sequences=True), dict(return_state=True),
            dict(go_backwards=True, return_sequences=True),
            dict(return_sequences=True, return_state=True, zero_output_for_mask=True)]


@pytest.mark.parametrize("cls", [L.LSTM, L.GRU, L.SimpleRNN])
@pytest.mark.parametrize("kw", SETTINGS)
@pytest.mark.parametrize("mask", [None, MASK])
def test_fused_and_step_paths_agree(cls, kw, mask):
    fused, steps = _twin(cls, **kw)
    x = _x()
    rng = np.random.default_rng(3)
    init = [rng.standard_normal((B, U)) for _ in fused._state_sizes()]
    for call in (dict(mask=mask), dict(mask=mask, initial_state=init)):
        a, b = _out(fused(x, **call)), _out(steps(x, **call))
        assert [o.shape for o in a] == [o.shape for o in b]
        for p, q in zip(a, b):
            np.testing.assert_allclose(p, q, rtol=1e-10, atol=1e-12)
        v = [rng.standard_normal(o.shape) for o in a]
        for p, q in zip(tape_layer_grads(fused, x, v, **call),
                        tape_layer_grads(steps, x, v, **call)):
            np.testing.assert_allclose(p, q, rtol=1e-9, atol=1e-11)


def test_float32_fused_is_close_to_float64():
    lstm = L.LSTM(8, return_sequences=True)
    x = _x((3, 6, 5)).astype(np.float32)
    y = lstm(x)
    assert y.dtype == fe.float32
    ref = L.LSTM(8, return_sequences=True, dtype="float64")
    ref(x.astype(np.float64))
    ref.set_weights([w.astype(np.float64) for w in lstm.get_weights()])
    np.testing.assert_allclose(y.numpy(), ref(x.astype(np.float64)).numpy(), atol=1e-5)


# ---- masks -------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [L.LSTM, L.GRU, L.SimpleRNN])
def test_trailing_padding_is_the_shorter_sequence(cls):
    layer = cls(U, dtype="float64", return_state=True)
    x = _x()
    layer(x)
    _randomize(layer)
    mask = np.array([[True, True, True, False], [True, True, False, False]])
    got = _out(layer(x, mask=mask))
    for b, n in enumerate([3, 2]):
        want = _out(layer(x[b:b + 1, :n]))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g[b], w[0], rtol=1e-12)


def test_masked_steps_repeat_the_output_or_zero_it():
    layer = L.LSTM(U, dtype="float64", return_sequences=True)
    x = _x()
    y = layer(x, mask=MASK).numpy()
    np.testing.assert_array_equal(y[0, 2], y[0, 1])
    np.testing.assert_array_equal(y[1, 3], y[1, 0])
    zero = L.LSTM(U, dtype="float64", return_sequences=True, zero_output_for_mask=True)
    zero(x)
    zero.set_weights(layer.get_weights())
    z = zero(x, mask=MASK).numpy()
    np.testing.assert_array_equal(z[~MASK], 0)
    np.testing.assert_array_equal(z[MASK], y[MASK])


def test_embedding_mask_zero_and_masking_reach_the_rnn_in_sequential():
    ids = np.array([[3, 1, 0, 0], [2, 0, 0, 0]])
    model = fe.keras.Sequential([L.Embedding(5, 3, mask_zero=True), L.GRU(U)])
    emb, gru = model.layers
    np.testing.assert_array_equal(emb.compute_mask(ids).numpy(), ids != 0)
    y = model(ids).numpy()
    for b, n in enumerate([2, 1]):
        np.testing.assert_allclose(y[b], gru(emb(ids[b:b + 1, :n])).numpy()[0], rtol=1e-6)

    x = _x().astype(np.float32)
    x[0, 2:] = 0.0
    masking = L.Masking(0.0)
    np.testing.assert_array_equal(masking.compute_mask(x).numpy(), [[1, 1, 0, 0], [1] * 4])
    lstm = L.LSTM(U)
    seq = fe.keras.Sequential([masking, lstm])
    np.testing.assert_allclose(seq(x).numpy()[0], lstm(x[:1, :2]).numpy()[0], rtol=1e-6)
    assert L.Masking(2.0)(np.full((1, 2, 2), 2.0)).numpy().sum() == 0


# ---- states ------------------------------------------------------------------------------

def test_stateful_carries_states_between_calls_until_reset():
    layer = L.LSTM(U, dtype="float64", stateful=True)
    whole = L.LSTM(U, dtype="float64")
    x = _x()
    whole(x)
    layer(x[:, :2])
    layer.reset_states()
    layer.set_weights(whole.get_weights())
    layer(x[:, :2])
    np.testing.assert_allclose(layer(x[:, 2:]).numpy(), whole(x).numpy(), rtol=1e-12)
    layer.reset_states()
    assert all(np.all(s.numpy() == 0) for s in layer.states)
    np.testing.assert_allclose(layer(x[:, :2]).numpy(), whole(x[:, :2]).numpy(), rtol=1e-12)
    with pytest.raises(fe.errors.InvalidArgumentError, match="batch size"):
        layer(x[:1])
    with pytest.raises(AttributeError, match="stateful"):
        whole.reset_states()


def test_return_state_gives_the_last_states():
    layer = L.LSTM(U, dtype="float64", return_sequences=True, return_state=True)
    seq, h, c = layer(_x())
    np.testing.assert_array_equal(seq.numpy()[:, -1], h.numpy())
    assert c.shape == (B, U)


# ---- dropout -----------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(dropout=0.5), dict(recurrent_dropout=0.5),
                                dict(dropout=0.3, recurrent_dropout=0.3)])
def test_dropout_only_in_training(kw):
    layer = L.LSTM(4, return_sequences=True, dtype="float64", **kw)
    plain = L.LSTM(4, return_sequences=True, dtype="float64")
    x = _x((3, 5, 4))
    plain(x)
    layer(x)
    layer.set_weights(plain.get_weights())
    np.testing.assert_allclose(layer(x, training=False).numpy(), plain(x).numpy(), rtol=1e-12)
    trained = layer(x, training=True).numpy()
    assert not np.allclose(trained, plain(x).numpy())
    assert layer.cell._dropout_mask is None     # masks are per call


# ---- user cells and wrappers -------------------------------------------------------------

class MinimalCell(L.Layer):
    """The Keras guide's minimal cell: state_size and call(inputs, states)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=[input_shape[-1], self.units], name="kernel")
        self.recurrent_kernel = self.add_weight(shape=[self.units, self.units],
                                                initializer="orthogonal",
                                                name="recurrent_kernel")

    def call(self, inputs, states):
        h = fe.matmul(inputs, self.kernel) + fe.matmul(states[0], self.recurrent_kernel)
        return h, [h]


def test_rnn_with_a_user_cell():
    layer = L.RNN(MinimalCell(U, dtype="float64"), return_sequences=True, dtype="float64")
    x = _x()
    y = layer(x).numpy()
    k, r = (w.numpy() for w in layer.weights)
    h = np.zeros((B, U))
    for t in range(T):
        h = x[:, t] @ k + h @ r
        np.testing.assert_allclose(y[:, t], h, rtol=1e-12)
    check_layer_grads(layer, _x(), mask=MASK)


def test_rnn_of_builtin_cells_equals_the_layers():
    x = _x()
    for cls, cell_cls in [(L.LSTM, L.LSTMCell), (L.GRU, L.GRUCell),
                          (L.SimpleRNN, L.SimpleRNNCell)]:
        layer = cls(U, dtype="float64")
        rnn = L.RNN(cell_cls(U, dtype="float64"), dtype="float64")
        layer(x)
        rnn(x)
        _randomize(layer)
        rnn.set_weights(layer.get_weights())
        np.testing.assert_allclose(rnn(x, mask=MASK).numpy(), layer(x, mask=MASK).numpy(),
                                   rtol=1e-12)


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
def test_bidirectional_merges_forward_and_reversed_backward(merge_mode):
    bi = L.Bidirectional(L.GRU(U, return_sequences=True, dtype="float64"),
                         merge_mode=merge_mode, dtype="float64")
    x = _x()
    out = _out(bi(x, mask=MASK))
    # Keras 3: 'bidirectional/forward_gru/gru_cell/kernel'
    assert [w.path.split("/")[1:3] for w in bi.weights] == \
        [[bi.forward_layer.name, "gru_cell"]] * 3 + [[bi.backward_layer.name, "gru_cell"]] * 3
    assert all(w.path.startswith(bi.name + "/") for w in bi.weights)
    fwd = bi.forward_layer(x, mask=MASK).numpy()
    bwd = bi.backward_layer(x, mask=MASK).numpy()[:, ::-1]
    # padded steps are zeros on both sides, so the directions line up
    np.testing.assert_array_equal(fwd[~MASK], 0)
    want = {"concat": [np.concatenate([fwd, bwd], -1)], "sum": [fwd + bwd],
            "mul": [fwd * bwd], "ave": [(fwd + bwd) / 2], None: [fwd, bwd]}[merge_mode]
    for o, w in zip(out, want):
        np.testing.assert_allclose(o, w, rtol=1e-12)


def test_bidirectional_states_and_initial_state():
    bi = L.Bidirectional(L.LSTM(U, return_state=True, dtype="float64"), dtype="float64")
    out = bi(_x())
    assert len(out) == 5 and out[0].shape == (B, 2 * U)
    init = [fe.ones([B, U], dtype=fe.float64)] * 4
    again = bi(_x(), initial_state=init)
    assert not np.allclose(again[0].numpy(), out[0].numpy())
    with pytest.raises(ValueError, match="merge_mode"):
        L.Bidirectional(L.LSTM(U), merge_mode="max")
    with pytest.raises(ValueError, match="recurrent"):
        L.Bidirectional(L.Dense(U))


def test_time_distributed_applies_per_step():
    td = L.TimeDistributed(L.Dense(3, dtype="float64"), dtype="float64")
    x = _x()
    y = td(x).numpy()
    k, b = (w.numpy() for w in td.weights)
    np.testing.assert_allclose(y, x @ k + b, rtol=1e-12)
    assert td.compute_mask(x, MASK) is MASK


# ---- gradients against finite differences ------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: L.LSTM(U, return_sequences=True, dtype="float64"),
    lambda: L.LSTM(U, return_state=True, go_backwards=True, dtype="float64"),
    lambda: L.GRU(U, return_sequences=True, dtype="float64"),
    lambda: L.GRU(U, reset_after=False, return_sequences=True, dtype="float64"),
    lambda: L.SimpleRNN(U, activation="relu", return_sequences=True, dtype="float64"),
    lambda: L.LSTM(U, unroll=True, dtype="float64"),
    lambda: L.Bidirectional(L.LSTM(U, return_sequences=True, dtype="float64"),
                            dtype="float64"),
    lambda: L.TimeDistributed(L.Dense(3, dtype="float64"), dtype="float64"),
    lambda: L.Masking(dtype="float64"),
], ids=["lstm", "lstm_state_backwards", "gru", "gru_reset_before", "simple_relu",
        "lstm_unrolled", "bidirectional", "time_distributed", "masking"])
def test_layer_gradients_match_finite_differences(make):
    layer = make()
    x = _x()
    layer(x)
    _randomize(layer)
    kw = {} if isinstance(layer, (L.TimeDistributed, L.Masking)) else {"mask": MASK}
    check_layer_grads(layer, x, **kw)


def test_second_derivatives_through_the_step_path():
    layer = L.SimpleRNN(U, unroll=True, dtype="float64")
    layer(_x())
    k = layer.cell.kernel
    xt = fe.constant(_x())
    with fe.GradientTape() as outer:
        with fe.GradientTape() as inner:
            y = fe.reduce_sum(layer(xt) ** 2)
        g = inner.gradient(y, k)
        s = fe.reduce_sum(g * g)
    h = outer.gradient(s, k)
    assert h is not None and np.all(np.isfinite(h.numpy())) and np.any(h.numpy() != 0)


# ---- bad input ---------------------------------------------------------------------------

def test_errors_name_the_layer_and_what_was_expected():
    lstm = L.LSTM(U)
    with pytest.raises(fe.errors.InvalidArgumentError, match="expected ndim=3"):
        lstm(fe.zeros([B, D]))
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"initial state 1 .*expected \[2, 2\]"):
        lstm(fe.zeros([B, T, D]), initial_state=[fe.zeros([B, U]), fe.zeros([B, 3])])
    with pytest.raises(fe.errors.InvalidArgumentError, match="expected 2 initial state"):
        lstm(fe.zeros([B, T, D]), initial_state=[fe.zeros([B, U])])
    with pytest.raises(fe.errors.InvalidArgumentError, match="time >= 1"):
        lstm(fe.zeros([B, 0, D]))
    with pytest.raises(fe.errors.InvalidArgumentError, match="mask"):
        lstm(fe.zeros([B, T, D]), mask=np.ones((B, T + 1), bool))
    with pytest.raises(ValueError, match="units must be a positive integer"):
        L.GRU(0)
    with pytest.raises(ValueError, match="dropout must be in"):
        L.LSTM(2, dropout=1.5)
    with pytest.raises(ValueError, match="unknown constraint"):
        L.LSTM(2, kernel_constraint="no_such_constraint")
    with pytest.raises(fe.errors.InvalidArgumentError, match="lstm: activation must be one of"):
        fe.ops.rnn_ops.lstm(*(fe.zeros(s) for s in [(1, 1, 1), (1, 1), (1, 1), (1, 4), (1, 4),
                                                    (4,)]), activation="gelu")
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"gru: kernel has the wrong shape"):
        fe.ops.rnn_ops.gru(*(fe.zeros(s) for s in [(1, 1, 2), (1, 1), (1, 3), (1, 3),
                                                   (2, 3)]))


# ---- config and saving -------------------------------------------------------------------

def test_configs_round_trip_and_models_save(tmp_path):
    for layer in [L.LSTM(3, return_sequences=True, unit_forget_bias=False, dropout=0.1),
                  L.GRU(3, reset_after=False, go_backwards=True),
                  L.SimpleRNN(3, activation="relu"),
                  L.RNN(L.LSTMCell(3), return_state=True),
                  L.Bidirectional(L.LSTM(3, return_sequences=True), merge_mode="sum"),
                  L.TimeDistributed(L.Dense(2)), L.Masking(1.0)]:
        config = layer.get_config()
        again = type(layer).from_config(config)
        assert again.get_config().keys() == config.keys()
    model = fe.keras.Sequential([fe.keras.Input((T, D)),
                                 L.Bidirectional(L.LSTM(3, return_sequences=True)),
                                 L.GRU(2)])
    x = _x().astype(np.float32)
    want = model(x).numpy()
    path = str(tmp_path / "rnn.keras")
    model.save(path)
    loaded = fe.keras.models.load_model(path)
    np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-6)


def test_fit_traces_a_masked_recurrent_model(recwarn):
    # masks stay tensors end to end, so Model.fit's fe.function replays the step
    model = fe.keras.Sequential([fe.keras.Input((T, D)), L.Masking(),
                                 L.Bidirectional(L.LSTM(3, return_sequences=True)),
                                 L.GRU(U), L.Dense(2)])
    model.compile(optimizer="adam",
                  loss=fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x = _x((16, T, D)).astype(np.float32)
    x[:, 3:] = 0
    y = np.random.default_rng(0).integers(0, 2, 16)
    losses = model.fit(x, y, epochs=3, batch_size=8, verbose=0).history["loss"]
    assert all(np.isfinite(losses))
    assert not [w for w in recwarn if "runs eagerly" in str(w.message)]
    np.testing.assert_allclose(model.predict(x, verbose=0), model(x).numpy(), rtol=1e-5,
                               atol=1e-6)


def test_bidirectional_with_its_own_backward_layer_round_trips():
    bi = L.Bidirectional(L.LSTM(3, return_sequences=True),
                         backward_layer=L.GRU(3, return_sequences=True, go_backwards=True,
                                              name="backward_gru_own"))
    again = L.Bidirectional.from_config(bi.get_config())
    assert type(again.backward_layer) is L.GRU
    assert again.backward_layer.name == "backward_gru_own"
    assert bi(_x().astype(np.float32)).shape == (B, T, 6)
    with pytest.raises(ValueError, match="go_backwards must differ"):
        L.Bidirectional(L.LSTM(3), backward_layer=L.LSTM(3))


def test_second_derivatives_through_a_fused_layer_raise():
    layer = L.LSTM(U, dtype="float64")
    layer(_x())
    k = layer.cell.kernel
    xt = fe.constant(_x())
    with fe.GradientTape() as outer:
        with fe.GradientTape() as inner:
            y = fe.reduce_sum(layer(xt) ** 2)
        g = inner.gradient(y, k)         # first order works under the outer tape
        s = fe.reduce_sum(g * g)
    assert np.all(np.isfinite(g.numpy()))
    with pytest.raises(fe.errors.UnimplementedError, match="lstm: second derivatives.*unroll"):
        outer.gradient(s, k)
