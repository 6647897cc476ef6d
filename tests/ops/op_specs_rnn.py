"""Op-table entries of the fused recurrent ops (``fasteager/ops/rnn_ops.py``).

The references are plain NumPy time loops (time-major, Keras's gate layouts). They also
run on complex arrays, so the ``*_backprop`` references are complex-step derivatives of
them (exact to rounding: ``f'(x) v = Im f(x + i h v) / h``), independent of the kernels.
The forward ops' gradients are checked at order 1 only: their backward kernels have no
derivative of their own (``*_backprop`` are in NO_GRADIENT).
"""
import numpy as np

from fasteager.ops import rnn_ops
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import Spec

# fixed masks (a fraction of steps skipped) for the cases below, by (T, B)
_MASKS = {}


def mask_for(T, B):
    if (T, B) not in _MASKS:
        m = (np.random.default_rng(7).random((T, B)) > 0.3).astype(np.float64)
        _MASKS[(T, B)] = m
    return _MASKS[(T, B)]


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def ref_lstm(x, h0, c0, kernel, rkernel, bias, mask):
    return ref_lstm_core(x @ kernel + bias, h0, c0, rkernel, mask)


def ref_lstm_core(xp, h0, c0, rkernel, mask):
    """The LSTM loop from the input projections ``xp = x @ kernel + bias``."""
    U = h0.shape[1]
    h, c = h0, c0
    hs, cs, gs = [], [], []
    for t in range(xp.shape[0]):
        z = xp[t] + h @ rkernel
        i, f = _sigmoid(z[:, :U]), _sigmoid(z[:, U:2 * U])
        g, o = np.tanh(z[:, 2 * U:3 * U]), _sigmoid(z[:, 3 * U:])
        m = mask[t][:, None]
        c = m * (f * c + i * g) + (1 - m) * c
        h = m * (o * np.tanh(c)) + (1 - m) * h
        hs.append(h)
        cs.append(c)
        gs.append(np.concatenate([i, f, g, o], axis=1))
    return _stacked(hs, xp, h0), _stacked(cs, xp, h0), _stacked(gs, xp, h0, 4)


def _stacked(steps, xp, h0, k=1):
    if steps:
        return np.stack(steps)
    return np.zeros((0, h0.shape[0], k * h0.shape[1]), dtype=np.result_type(xp, h0))


def ref_gru(x, h0, kernel, rkernel, bias, mask):
    hr_offsets = np.zeros((x.shape[0], h0.shape[0], rkernel.shape[1]), dtype=x.dtype)
    return ref_gru_core(x @ kernel + bias[0], hr_offsets, h0, rkernel, bias[1], mask)


def ref_gru_core(xp, hr_offsets, h0, rkernel, rbias, mask):
    """The GRU loop from the input projections; ``hr_offsets[t]`` is added to step t's
    recurrent projection (zeros; its gradient is that projection's)."""
    U = h0.shape[1]
    h = h0
    hs, gs, hrhs = [], [], []
    for t in range(xp.shape[0]):
        hr = h @ rkernel + rbias + hr_offsets[t]
        z = _sigmoid(xp[t, :, :U] + hr[:, :U])
        r = _sigmoid(xp[t, :, U:2 * U] + hr[:, U:2 * U])
        hh = np.tanh(xp[t, :, 2 * U:] + r * hr[:, 2 * U:])
        m = mask[t][:, None]
        h = m * (z * h + (1 - z) * hh) + (1 - m) * h
        hs.append(h)
        gs.append(np.concatenate([z, r, hh], axis=1))
        hrhs.append(hr[:, 2 * U:])
    return _stacked(hs, xp, h0), _stacked(gs, xp, h0, 3), _stacked(hrhs, xp, h0)


def ref_simple_rnn(x, h0, kernel, rkernel, bias, mask):
    return ref_simple_core(x @ kernel + bias, h0, rkernel, mask)


def ref_simple_core(xp, h0, rkernel, mask):
    h = h0
    hs = []
    for t in range(xp.shape[0]):
        m = mask[t][:, None]
        h = m * np.tanh(xp[t] + h @ rkernel) + (1 - m) * h
        hs.append(h)
    return _stacked(hs, xp, h0)


def _listed(out):
    return list(out) if isinstance(out, tuple) else [out]


def complex_step_vjp(fn, inputs, cotangents, step=1e-30):
    """The gradient of sum(<cotangent, output>) of ``fn`` by the complex step, per input."""
    inputs = [np.asarray(a, dtype=np.complex128) for a in inputs]
    grads = []
    for k, a in enumerate(inputs):
        g = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            a[idx] += 1j * step
            outs = _listed(fn(*inputs))
            g[idx] = sum(np.sum(np.asarray(w) * o.imag) for o, w in zip(outs, cotangents)) / step
            a[idx] -= 1j * step
        grads.append(g)
    return grads


def _as(out, like):
    return [np.asarray(o, dtype=like.dtype) for o in _listed(out)]


# ---- forward ops: fn over the differentiable inputs, the mask fixed per (T, B) ----------

def _lstm_fn(x, h0, c0, kernel, rkernel, bias):
    return list(rnn_ops.lstm(x, h0, c0, kernel, rkernel, bias, mask_for(*x.shape[:2])))


def _lstm_ref(x, h0, c0, kernel, rkernel, bias):
    return _as(ref_lstm(x, h0, c0, kernel, rkernel, bias, mask_for(*x.shape[:2])), x)


def _gru_fn(x, h0, kernel, rkernel, bias):
    return list(rnn_ops.gru(x, h0, kernel, rkernel, bias, mask_for(*x.shape[:2])))


def _gru_ref(x, h0, kernel, rkernel, bias):
    return _as(ref_gru(x, h0, kernel, rkernel, bias, mask_for(*x.shape[:2])), x)


def _simple_fn(x, h0, kernel, rkernel, bias):
    return rnn_ops.simple_rnn(x, h0, kernel, rkernel, bias, mask_for(*x.shape[:2]))


def _simple_ref(x, h0, kernel, rkernel, bias):
    return _as(ref_simple_rnn(x, h0, kernel, rkernel, bias, mask_for(*x.shape[:2])), x)


def _cases(gates, extra_states, bias_shape):
    """(T, B, D, U) problems as shape tuples: x, states, kernel, recurrent_kernel, bias."""
    out = []
    for T, B, D, U in [(3, 2, 3, 2), (1, 1, 2, 3), (2, 0, 2, 2)]:
        out.append(((T, B, D),) + ((B, U),) * extra_states
                   + ((D, gates * U), (U, gates * U), bias_shape(U)))
    return out


# ---- backward ops: forward op, then its backprop op on given output cotangents ----------

def _mask_tensor(x):
    return rnn_ops._float_mask(mask_for(*x.shape[:2]), x)


def _lstm_back_fn(x, h0, c0, kernel, rkernel, bias, g_h, g_c, g_gates):
    m = _mask_tensor(x)
    h_seq, c_seq, gates = execute(rnn_ops.lstm_op, x, h0, c0, kernel, rkernel, bias, m)
    return list(execute(rnn_ops.lstm_backprop_op, x, h0, c0, rkernel, m, h_seq, c_seq, gates,
                        g_h, g_c, g_gates))


def _lstm_back_ref(x, h0, c0, kernel, rkernel, bias, g_h, g_c, g_gates):
    # (d xp, d h0, d c0): gradients of the input projections and the initial states, then
    # the kernels' and the bias's
    m = mask_for(*x.shape[:2])
    dxp, dh0, dc0 = complex_step_vjp(lambda *a: ref_lstm_core(*a, rkernel, m),
                                     [x @ kernel + bias, h0, c0], [g_h, g_c, g_gates])
    h_seq = ref_lstm(x, h0, c0, kernel, rkernel, bias, m)[0]
    return _as((dxp, dh0, dc0) + _weight_grads(x, h0, h_seq, dxp, dxp), x)


def _weight_grads(x, h0, h_seq, dproj, drec):
    """x^T dproj, h_prev^T drec and the bias sums: the kernels' and biases' gradients."""
    T, B, D = x.shape
    U = h0.shape[1]
    prev = np.concatenate([h0[None], h_seq[:T - 1]]) if T else h_seq
    dp, dr = dproj.reshape(T * B, dproj.shape[-1]), drec.reshape(T * B, drec.shape[-1])
    return x.reshape(T * B, D).T @ dp, prev.reshape(T * B, U).T @ dr, dp.sum(axis=0)


def _gru_back_fn(x, h0, kernel, rkernel, bias, g_h, g_gates, g_hrh):
    m = _mask_tensor(x)
    outs = execute(rnn_ops.gru_op, x, h0, kernel, rkernel, bias, m)
    return list(execute(rnn_ops.gru_backprop_op, x, h0, rkernel, m, *outs, g_h, g_gates,
                        g_hrh))


def _gru_back_ref(x, h0, kernel, rkernel, bias, g_h, g_gates, g_hrh):
    # (d xp, d hr, d h0): the input and recurrent projections' gradients, then h0's; then
    # the kernels' and the (2, 3U) bias's
    m = mask_for(*x.shape[:2])
    offsets = np.zeros(x.shape[:2] + (rkernel.shape[1],))
    dxp, dhr, dh0 = complex_step_vjp(
        lambda xp, off, h: ref_gru_core(xp, off, h, rkernel, bias[1], m),
        [x @ kernel + bias[0], offsets, h0], [g_h, g_gates, g_hrh])
    h_seq = ref_gru(x, h0, kernel, rkernel, bias, m)[0]
    dW, dR, db0 = _weight_grads(x, h0, h_seq, dxp, dhr)
    db1 = dhr.reshape(-1, dhr.shape[-1]).sum(axis=0) if dhr.size else np.zeros(dhr.shape[-1])
    return _as((dxp, dhr, dh0, dW, dR, np.stack([db0, db1])), x)


def _simple_back_fn(x, h0, kernel, rkernel, bias, g_h):
    m = _mask_tensor(x)
    h_seq = execute(rnn_ops.simple_rnn_op, x, h0, kernel, rkernel, bias, m)
    return list(execute(rnn_ops.simple_rnn_backprop_op, x, h0, rkernel, m, h_seq, g_h))


def _simple_back_ref(x, h0, kernel, rkernel, bias, g_h):
    m = mask_for(*x.shape[:2])
    da, dh0 = complex_step_vjp(lambda *a: ref_simple_core(*a, rkernel, m),
                               [x @ kernel + bias, h0], [g_h])
    h_seq = ref_simple_rnn(x, h0, kernel, rkernel, bias, m)
    return _as((da, dh0) + _weight_grads(x, h0, h_seq, da, da), x)


def _with_cotangents(cases, outputs):
    """Each forward case plus the shapes of the cotangents of its outputs."""
    out = []
    for case in cases:
        (T, B, _), U = case[0], case[1][1]
        out.append(case + tuple((T, B, k * U) for k in outputs))
    return out


_LSTM = _cases(4, 2, lambda u: (4 * u,))
_GRU = _cases(3, 1, lambda u: (2, 3 * u))
_SIMPLE = _cases(1, 1, lambda u: (u,))

# float32 runs the tanh/sigmoid of _fastmath.h (within 3 ulp) through a recurrence
_RTOL32 = 1e-5

AREA_SPECS = {
    "lstm": Spec(_lstm_fn, _lstm_ref, cases=_LSTM, order=1),
    "gru": Spec(_gru_fn, _gru_ref, cases=_GRU, order=1),
    "simple_rnn": Spec(_simple_fn, _simple_ref, cases=_SIMPLE, order=1),
    "lstm_backprop": Spec(_lstm_back_fn, _lstm_back_ref, cases=_with_cotangents(_LSTM, (1, 1, 4)),
                          grad=False),
    "gru_backprop": Spec(_gru_back_fn, _gru_back_ref, cases=_with_cotangents(_GRU, (1, 3, 1)),
                         grad=False),
    "simple_rnn_backprop": Spec(_simple_back_fn, _simple_back_ref,
                                cases=_with_cotangents(_SIMPLE, (1,)), grad=False),
}
