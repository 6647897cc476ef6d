"""fasteager's LSTM and GRU against torch.nn.LSTM / GRU with the same weights (float64):
outputs, final states and gradients of inputs and weights agree to 1e-5.

Layouts: torch stacks gates as rows of ``weight_ih`` (4U, D) / ``weight_hh`` (4U, U) with
two biases; Keras uses columns, ``kernel`` (D, 4U). LSTM gates are i, f, c(g), o in
both; the biases add. GRU gates are r, z, n in torch and z, r, h in Keras; with
``reset_after=True`` Keras's (2, 3U) bias rows are torch's ``bias_ih`` and ``bias_hh``.
"""
import numpy as np
import pytest

import fasteager as fe
from fasteager.keras import layers as L

torch = pytest.importorskip("torch")

B, T, D, U = 3, 6, 4, 5
TOL = dict(rtol=1e-5, atol=1e-8)


def _rng(seed=0):
    return np.random.default_rng(seed)


def _gru_rows_to_keras(w, U):
    """torch's [r, z, n] row blocks to Keras's [z, r, h] order."""
    r, z, n = w[:U], w[U:2 * U], w[2 * U:]
    return np.concatenate([z, r, n])


def _torch_module(kind, bidirectional=False):
    cls = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
    mod = cls(D, U, batch_first=True, bidirectional=bidirectional).double()
    gen = _rng(1)
    with torch.no_grad():
        for p in mod.parameters():
            p.copy_(torch.from_numpy(0.5 * gen.standard_normal(tuple(p.shape))))
    return mod


def _keras_weights(mod, kind, suffix=""):
    """[kernel, recurrent_kernel, bias] of one direction of a torch module."""
    w_ih, w_hh, b_ih, b_hh = (getattr(mod, name + suffix).detach().numpy()
                              for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                           "bias_hh_l0"))
    if kind == "lstm":
        return [w_ih.T, w_hh.T, b_ih + b_hh]
    return [_gru_rows_to_keras(w_ih, U).T, _gru_rows_to_keras(w_hh, U).T,
            np.stack([_gru_rows_to_keras(b_ih, U), _gru_rows_to_keras(b_hh, U)])]


def _keras_grads(grads, kind):
    """torch's weight gradients [w_ih, w_hh, b_ih, b_hh] in Keras's layout, to compare."""
    w_ih, w_hh, b_ih, b_hh = grads
    if kind == "lstm":
        # d bias = d b_ih = d b_hh (they add)
        return [w_ih.T, w_hh.T, b_ih]
    return [_gru_rows_to_keras(w_ih, U).T, _gru_rows_to_keras(w_hh, U).T,
            np.stack([_gru_rows_to_keras(b_ih, U), _gru_rows_to_keras(b_hh, U)])]


def _run_fe(layer, x, v_seq, v_states, initial_state=None):
    xt = fe.constant(x)
    with fe.GradientTape() as tape:
        tape.watch(xt)
        out = layer(xt, initial_state=initial_state)
        seq, states = out[0], out[1:]
        loss = fe.reduce_sum(seq * v_seq)
        for s, v in zip(states, v_states):
            loss = loss + fe.reduce_sum(s * v)
    grads = tape.gradient(loss, [xt] + layer.trainable_weights)
    return [seq.numpy()] + [s.numpy() for s in states], [g.numpy() for g in grads]


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("with_initial_state", [False, True])
@pytest.mark.parametrize("unroll", [False, True])
def test_matches_torch(kind, with_initial_state, unroll):
    mod = _torch_module(kind)
    cls = L.LSTM if kind == "lstm" else L.GRU
    layer = cls(U, return_sequences=True, return_state=True, unroll=unroll, dtype="float64")
    rng = _rng(2)
    x = rng.standard_normal((B, T, D))
    layer(x)
    layer.set_weights(_keras_weights(mod, kind))
    n_states = 2 if kind == "lstm" else 1
    init = [rng.standard_normal((B, U)) for _ in range(n_states)] if with_initial_state \
        else None
    v_seq = rng.standard_normal((B, T, U))
    v_states = [rng.standard_normal((B, U)) for _ in range(n_states)]

    outs, grads = _run_fe(layer, x, v_seq, v_states, init)

    xt = torch.from_numpy(x).requires_grad_(True)
    hx = None
    if init is not None:
        hx = tuple(torch.from_numpy(s)[None] for s in init)
        hx = hx if kind == "lstm" else hx[0]
    seq, hs = mod(xt, hx)
    states = [h[0] for h in (hs if kind == "lstm" else (hs,))]
    loss = (seq * torch.from_numpy(v_seq)).sum()
    for s, v in zip(states, v_states):
        loss = loss + (s * torch.from_numpy(v)).sum()
    loss.backward()

    for got, want in zip(outs, [seq.detach().numpy()] + [s.detach().numpy() for s in states]):
        np.testing.assert_allclose(got, want, **TOL)
    np.testing.assert_allclose(grads[0], xt.grad.numpy(), **TOL)
    want = _keras_grads([getattr(mod, n).grad.numpy() for n in
                         ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")], kind)
    for got, w in zip(grads[1:], want):
        np.testing.assert_allclose(got, w, **TOL)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_bidirectional_matches_torch(kind):
    mod = _torch_module(kind, bidirectional=True)
    cls = L.LSTM if kind == "lstm" else L.GRU
    bi = L.Bidirectional(cls(U, return_sequences=True, dtype="float64"), dtype="float64")
    rng = _rng(3)
    x = rng.standard_normal((B, T, D))
    bi(x)
    bi.set_weights(_keras_weights(mod, kind) + _keras_weights(mod, kind, "_reverse"))
    v = rng.standard_normal((B, T, 2 * U))
    xt = fe.constant(x)
    with fe.GradientTape() as tape:
        tape.watch(xt)
        y = bi(xt)
        loss = fe.reduce_sum(y * v)
    dx = tape.gradient(loss, xt)

    xtt = torch.from_numpy(x).requires_grad_(True)
    seq, _ = mod(xtt)
    (seq * torch.from_numpy(v)).sum().backward()
    np.testing.assert_allclose(y.numpy(), seq.detach().numpy(), **TOL)
    np.testing.assert_allclose(dx.numpy(), xtt.grad.numpy(), **TOL)


def test_trailing_padding_matches_torch_packed_sequences():
    # a masked (padded) batch and torch's packed sequences give the same final states
    mod = _torch_module("lstm")
    layer = L.LSTM(U, return_state=True, dtype="float64")
    rng = _rng(4)
    x = rng.standard_normal((B, T, D))
    lengths = [6, 4, 1]
    mask = np.arange(T)[None, :] < np.array(lengths)[:, None]
    layer(x)
    layer.set_weights(_keras_weights(mod, "lstm"))
    _, h, c = layer(x, mask=mask)
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.from_numpy(x), lengths,
                                                     batch_first=True)
    _, (th, tc) = mod(packed)
    np.testing.assert_allclose(h.numpy(), th[0].detach().numpy(), **TOL)
    np.testing.assert_allclose(c.numpy(), tc[0].detach().numpy(), **TOL)
