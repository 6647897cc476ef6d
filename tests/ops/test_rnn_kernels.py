"""The recurrent time loops (``fasteager/_rnn.pyx``, ``_rnn_loops.h``) on problems large
enough for their every path: batch rows split between threads in uneven blocks, the
GEMM's 8-, 4- and 1-row blocks, partial column strips, masks. The op-table cases
(``op_specs_rnn.py``) are small; these compare the kernels with the same NumPy references
(forward) and with complex-step derivatives of them (backward)."""
import numpy as np
import pytest

from fasteager import _rnn
from tests.ops.op_specs_rnn import complex_step_vjp, ref_gru_core, ref_lstm_core, ref_simple_core

TANH, SIGMOID, RELU = _rnn.ACTIVATIONS["tanh"], _rnn.ACTIVATIONS["sigmoid"], \
    _rnn.ACTIVATIONS["relu"]
# (T, B, D, U): B = 17 and 23 split into uneven row blocks (on two or more threads) with
# 1- and 4-row remainders; U = 9 and 5 leave partial column strips for both dtypes. Small,
# because the complex-step references cost one loop per input entry.
SHAPES = [(2, 17, 2, 9), (3, 23, 3, 5), (2, 8, 3, 8)]


def _problem(T, B, D, U, gates, dtype, seed=0):
    r = np.random.default_rng(seed)
    x = r.standard_normal((T, B, D))
    h0 = r.standard_normal((B, U)) * 0.5
    kernel = r.standard_normal((D, gates * U)) * 0.3
    rkernel = r.standard_normal((U, gates * U)) * 0.3
    mask = (r.random((T, B)) > 0.25).astype(np.float64)
    return [a.astype(dtype) for a in (x, h0, kernel, rkernel, mask)], r


def _tol(dtype):
    return dict(rtol=2e-4, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-10,
                                                                       atol=1e-12)


def _check_weight_grads(got, x, h0, h_seq, dproj, drec, dtype):
    """The kernels' in-loop weight gradients against x^T dproj, h_prev^T drec and the
    bias sums of the reference pre-activation gradients."""
    T, B, D = x.shape
    U = h0.shape[1]
    prev = np.concatenate([h0[None], h_seq[:T - 1]]).astype(np.float64)
    dp, dr = dproj.reshape(T * B, -1), drec.reshape(T * B, -1)
    want = (x.reshape(T * B, D).astype(np.float64).T @ dp, prev.reshape(T * B, U).T @ dr,
            dp.sum(axis=0))
    tol = {k: v * 10 for k, v in _tol(dtype).items()}
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_lstm_kernels_match_reference(shape, dtype):
    T, B, D, U = shape
    (x, h0, kernel, rkernel, mask), r = _problem(T, B, D, U, 4, dtype)
    c0 = (r.standard_normal((B, U)) * 0.5).astype(dtype)
    bias = (r.standard_normal(4 * U) * 0.1).astype(dtype)
    out = _rnn.lstm_forward(x, h0, c0, kernel, rkernel, bias, mask, TANH, SIGMOID)
    xp = x.astype(np.float64) @ kernel + bias
    ref = ref_lstm_core(xp, h0.astype(np.float64), c0.astype(np.float64), rkernel, mask)
    for got, want in zip(out, ref):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, **_tol(dtype))
    h_seq, c_seq, gates = out
    g_h, g_c = r.standard_normal(h_seq.shape), r.standard_normal(c_seq.shape)
    g_g = r.standard_normal(gates.shape)
    dz, dh0, dc0, dW, dR, db = _rnn.lstm_backward(
        x, h0, c0, rkernel, mask, h_seq, c_seq, gates, g_h.astype(dtype), g_c.astype(dtype),
        g_g.astype(dtype), TANH, SIGMOID)
    want = complex_step_vjp(lambda *a: ref_lstm_core(*a, rkernel.astype(np.float64), mask),
                            [xp, h0, c0], [g_h, g_c, g_g])
    for got, w in zip((dz, dh0, dc0), want):
        np.testing.assert_allclose(got, w, **_tol(dtype))
    # the weight gradients summed in the loop, per row block
    _check_weight_grads((dW, dR, db), x, h0, h_seq, want[0], want[0], dtype)
    # None stands for a zero gradient of c_seq and of the gates
    zero = np.zeros_like
    with_zeros = _rnn.lstm_backward(x, h0, c0, rkernel, mask, h_seq, c_seq, gates,
                                    g_h.astype(dtype), zero(c_seq), zero(gates), TANH,
                                    SIGMOID)
    with_none = _rnn.lstm_backward(x, h0, c0, rkernel, mask, h_seq, c_seq, gates,
                                   g_h.astype(dtype), None, None, TANH, SIGMOID)
    for a, b in zip(with_zeros, with_none):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_gru_kernels_match_reference(shape, dtype):
    T, B, D, U = shape
    (x, h0, kernel, rkernel, mask), r = _problem(T, B, D, U, 3, dtype, seed=1)
    bias = (r.standard_normal((2, 3 * U)) * 0.1).astype(dtype)
    out = _rnn.gru_forward(x, h0, kernel, rkernel, bias, mask, TANH, SIGMOID)
    xp = x.astype(np.float64) @ kernel + bias[0]
    offsets = np.zeros((T, B, 3 * U))
    R64, rb64 = rkernel.astype(np.float64), bias[1].astype(np.float64)
    ref = ref_gru_core(xp, offsets, h0.astype(np.float64), R64, rb64, mask)
    for got, want in zip(out, ref):
        np.testing.assert_allclose(got, want, **_tol(dtype))
    h_seq, gates, hrh = out
    cot = [r.standard_normal(a.shape) for a in out]
    dxp, dhr, dh0, dW, dR, db = _rnn.gru_backward(
        x, h0, rkernel, mask, h_seq, gates, hrh, *[c.astype(dtype) for c in cot], TANH,
        SIGMOID)
    want = complex_step_vjp(lambda a, off, h: ref_gru_core(a, off, h, R64, rb64, mask),
                            [xp, offsets, h0], cot)
    for got, w in zip((dxp, dhr, dh0), want):
        np.testing.assert_allclose(got, w, **_tol(dtype))
    _check_weight_grads((dW, dR, db[0]), x, h0, h_seq, want[0], want[1], dtype)
    np.testing.assert_allclose(db[1], want[1].reshape(-1, 3 * U).sum(axis=0),
                               **{k: v * 10 for k, v in _tol(dtype).items()})
    with_none = _rnn.gru_backward(x, h0, rkernel, mask, h_seq, gates, hrh,
                                  cot[0].astype(dtype), None, None, TANH, SIGMOID)
    with_zeros = _rnn.gru_backward(x, h0, rkernel, mask, h_seq, gates, hrh,
                                   cot[0].astype(dtype), np.zeros_like(gates),
                                   np.zeros_like(hrh), TANH, SIGMOID)
    for a, b in zip(with_zeros, with_none):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_simple_rnn_kernels_match_reference(shape, dtype):
    T, B, D, U = shape
    (x, h0, kernel, rkernel, mask), r = _problem(T, B, D, U, 1, dtype, seed=2)
    bias = (r.standard_normal(U) * 0.1).astype(dtype)
    h_seq = _rnn.simple_rnn_forward(x, h0, kernel, rkernel, bias, mask, TANH)
    xp = x.astype(np.float64) @ kernel + bias
    R64 = rkernel.astype(np.float64)
    np.testing.assert_allclose(h_seq, ref_simple_core(xp, h0.astype(np.float64), R64, mask),
                               **_tol(dtype))
    g_h = r.standard_normal(h_seq.shape)
    da, dh0, dW, dR, db = _rnn.simple_rnn_backward(x, h0, rkernel, mask, h_seq,
                                                   g_h.astype(dtype), TANH)
    want = complex_step_vjp(lambda *a: ref_simple_core(*a, R64, mask), [xp, h0], [g_h])
    for got, w in zip((da, dh0), want):
        np.testing.assert_allclose(got, w, **_tol(dtype))
    _check_weight_grads((dW, dR, db), x, h0, h_seq, want[0], want[0], dtype)


def test_non_default_activations_take_the_generic_loops():
    """relu / sigmoid swapped: the loops that read the activation codes at run time."""
    (x, h0, kernel, rkernel, mask), r = _problem(4, 17, 3, 9, 4, np.float64, seed=3)
    c0 = np.zeros_like(h0)
    bias = np.zeros(36)
    h_seq, c_seq, gates = _rnn.lstm_forward(x, h0, c0, kernel, rkernel, bias, mask, RELU,
                                            TANH)
    g_h = r.standard_normal(h_seq.shape)
    dz = _rnn.lstm_backward(x, h0, c0, rkernel, mask, h_seq, c_seq, gates, g_h, None, None,
                            RELU, TANH)[0]
    # the same problem through the default-activation loop must differ: the codes are read
    h2 = _rnn.lstm_forward(x, h0, c0, kernel, rkernel, bias, mask, TANH, SIGMOID)[0]
    assert not np.allclose(h_seq, h2)
    # and the gradient agrees with a central finite difference of sum(g_h * h_seq)
    xp = x @ kernel + bias
    eps, i = 1e-6, (1, 5, 7)

    def loss(xp_):   # x = xp_ and an identity kernel: the projections are xp_ itself
        return np.sum(g_h * _rnn.lstm_forward(xp_, h0, c0, np.eye(36), rkernel, None, mask,
                                              RELU, TANH)[0])
    d = np.zeros_like(xp)
    d[i] = eps
    fd = (loss(xp + d) - loss(xp - d)) / (2 * eps)
    assert abs(fd - dz[i]) < 1e-6 * max(1.0, abs(fd))


def test_backprop_ops_take_absent_cotangents_as_zero():
    """The ops' ``given`` flags: an output gradient left out counts as zero, exactly."""
    import fasteager as fe
    from fasteager.ops import rnn_ops
    from fasteager.ops.registry import execute
    (x, h0, kernel, rkernel, mask), r = _problem(3, 17, 4, 6, 4, np.float64, seed=4)
    x, h0 = fe.constant(x), fe.constant(h0)
    m = rnn_ops._float_mask(mask, x)
    hs, cs, gates = execute(rnn_ops.lstm_op, x, h0, h0, kernel, rkernel, np.zeros(24), m)
    g_h = fe.constant(r.standard_normal(hs.shape))
    full = execute(rnn_ops.lstm_backprop_op, x, h0, h0, rkernel, m, hs, cs, gates, g_h,
                   fe.zeros_like(cs), fe.zeros_like(gates))
    for given, rest in [((False, False), []), ((True, False), [fe.zeros_like(cs)]),
                        ((False, True), [fe.zeros_like(gates)])]:
        out = execute(rnn_ops.lstm_backprop_op, x, h0, h0, rkernel, m, hs, cs, gates, g_h,
                      *rest, given=given)
        for a, b in zip(full, out):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(fe.errors.InvalidArgumentError, match="given"):
        execute(rnn_ops.lstm_backprop_op, x, h0, h0, rkernel, m, hs, cs, gates, g_h, cs,
                given=(False, False))
    kernel3, rkernel3 = (r.standard_normal((4, 18)) * 0.3, r.standard_normal((6, 18)) * 0.3)
    outs = execute(rnn_ops.gru_op, x, h0, kernel3, rkernel3, np.zeros((2, 18)), m)
    g_h = fe.constant(r.standard_normal(outs[0].shape))
    full = execute(rnn_ops.gru_backprop_op, x, h0, rkernel3, m, *outs, g_h,
                   fe.zeros_like(outs[1]), fe.zeros_like(outs[2]))
    out = execute(rnn_ops.gru_backprop_op, x, h0, rkernel3, m, *outs, g_h,
                  given=(False, False))
    for a, b in zip(full, out):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
