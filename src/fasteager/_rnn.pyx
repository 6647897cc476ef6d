# cython: language_level=3
"""CPU kernels of the recurrent layers: LSTM, GRU and simple-RNN time loops, forward and
backward through time.

NumPy arrays in, NumPy arrays out; no Tensor and no autodiff here (``ops/rnn_ops.py``
wraps these as ops and owns the gradient bookkeeping). float32 stays float32 and float64
stays float64.

Every array is time-major: ``x`` is ``(T, B, D)``, states ``(B, U)``, sequences
``(T, B, U)``, so one step's slice is a contiguous ``(B, ·)`` matrix that OpenBLAS takes
without a copy. The layout of the work:

1. One GEMM projects the inputs of all steps at once, ``xp = x @ kernel + bias``.
2. Per step, one GEMM for the recurrence (``h_prev @ recurrent_kernel`` with ``np.dot``
   into a preallocated buffer), then one fused C loop (``_*_step``) that applies every
   gate nonlinearity, the state update and the mask.
3. Backward through time, per step, one fused C loop for the gate derivatives and one
   GEMM carrying the state gradient back (``dz @ recurrent_kernel.T``). The kernels return
   the pre-activation gradients of all steps; ``ops/rnn_ops.py`` turns them into ``dx``,
   ``dkernel`` and ``drecurrent_kernel`` with one GEMM each, only for the inputs that
   need a gradient.

Gates follow Keras's weight layout: LSTM ``[i, f, c, o]``, GRU ``[z, r, h]`` with
``reset_after=True`` (the recurrent bias is added before the reset gate multiplies).
A mask entry of 0 skips the step: the state is carried and the output repeats the last
one. Activations are given by code (see ``ACTIVATIONS``); the backward pass takes each
derivative from the activation's output, so nothing but the outputs is saved.
"""
from cython cimport floating
from libc.math cimport exp, tanh

import numpy as np

cdef extern from "_fastmath.h" nogil:
    float fe_tanhf(float x)
    float fe_sigmoidf(float x)
    void fe_tanh_loop(const float* a, float* d, ptrdiff_t n)
    void fe_sigmoid_loop(const float* a, float* d, ptrdiff_t n)

# activation name -> code of the fused loops; the backward pass needs f' as a function of
# f's output, which these have
ACTIVATIONS = {"linear": 0, "tanh": 1, "sigmoid": 2, "relu": 3}


# ----------------------------------------------------------------------------------------
# Point functions
# ----------------------------------------------------------------------------------------

cdef inline floating _act(int code, floating v) noexcept nogil:
    if code == 1:
        if floating is float:
            return fe_tanhf(v)
        else:
            return tanh(v)
    if code == 2:
        if floating is float:
            return fe_sigmoidf(v)
        else:
            # split by sign so exp never overflows
            if v >= 0:
                return 1.0 / (1.0 + exp(-v))
            return exp(v) / (1.0 + exp(v))
    if code == 3:
        return v if v > 0 else 0
    return v


cdef inline floating _dact(int code, floating y) noexcept nogil:
    """The activation's derivative, from its output ``y``."""
    if code == 1:
        return 1 - y * y
    if code == 2:
        return y * (1 - y)
    if code == 3:
        return 1 if y > 0 else 0
    return 1


cdef void _apply(int code, floating* p, Py_ssize_t n) noexcept nogil:
    """The activation in place over n contiguous values: one dispatch, then a tight loop
    (float32 tanh and sigmoid are _fastmath.h's SIMD loops)."""
    cdef Py_ssize_t k
    if code == 0:
        return
    if floating is float:
        if code == 1:
            fe_tanh_loop(p, p, n)
            return
        if code == 2:
            fe_sigmoid_loop(p, p, n)
            return
    if code == 1:
        for k in range(n):
            p[k] = tanh(p[k])
    elif code == 2:
        for k in range(n):
            p[k] = _act(2, p[k])
    else:
        for k in range(n):
            p[k] = p[k] if p[k] > 0 else 0


# ----------------------------------------------------------------------------------------
# Fused step loops (one time step, all batch rows)
# ----------------------------------------------------------------------------------------

cdef void _lstm_step(const floating[:, ::1] xp, const floating[:, ::1] h_prev,
                     const floating[:, ::1] c_prev, const floating[::1] m,
                     floating[:, ::1] h, floating[:, ::1] c, floating[:, ::1] gates,
                     floating[:, ::1] tmp, int act, int ract) noexcept nogil:
    """gates holds h_prev @ recurrent_kernel on entry, the activated gates on exit. Phased
    (add, activate per gate block, update) so that every loop is contiguous and simple."""
    cdef Py_ssize_t B = h.shape[0], U = h.shape[1], b, u, k
    cdef floating mb, cn
    cdef floating* g
    cdef const floating* x
    for b in range(B):
        g = &gates[b, 0]
        x = &xp[b, 0]
        for k in range(4 * U):
            g[k] = g[k] + x[k]
        _apply(ract, g, 2 * U)
        _apply(act, g + 2 * U, U)
        _apply(ract, g + 3 * U, U)
        mb = m[b]
        for u in range(U):
            cn = g[U + u] * c_prev[b, u] + g[u] * g[2 * U + u]
            tmp[b, u] = cn
            # a masked step carries the state (mb is 0 or 1)
            c[b, u] = mb * cn + (1 - mb) * c_prev[b, u]
    if B:
        _apply(act, &tmp[0, 0], B * U)
    for b in range(B):
        mb = m[b]
        g = &gates[b, 0]
        for u in range(U):
            h[b, u] = mb * (g[3 * U + u] * tmp[b, u]) + (1 - mb) * h_prev[b, u]


cdef inline void _lstm_back_row(floating* dh, floating* dc, const floating* gh,
                                const floating* gc_in, const floating* ggates,
                                const floating* gates, const floating* tcs,
                                const floating* c_prev, floating mb, floating* dz,
                                floating* dh_carry, Py_ssize_t U, int act,
                                int ract) noexcept nogil:
    cdef Py_ssize_t u
    cdef floating dht, dct, dhn, dcn, tc, gi, gf, gg, go
    for u in range(U):
        dht = dh[u] + gh[u]
        dct = dc[u] + gc_in[u]
        gi = gates[u]
        gf = gates[U + u]
        gg = gates[2 * U + u]
        go = gates[3 * U + u]
        tc = tcs[u]
        dhn = mb * dht
        dcn = mb * dct + dhn * go * _dact(act, tc)
        dz[u] = (dcn * gg + ggates[u]) * _dact(ract, gi)
        dz[U + u] = (dcn * c_prev[u] + ggates[U + u]) * _dact(ract, gf)
        dz[2 * U + u] = (dcn * gi + ggates[2 * U + u]) * _dact(act, gg)
        dz[3 * U + u] = (dhn * tc + ggates[3 * U + u]) * _dact(ract, go)
        dc[u] = (1 - mb) * dct + dcn * gf
        dh_carry[u] = (1 - mb) * dht


cdef void _lstm_step_back(floating[:, ::1] dh, floating[:, ::1] dc, const floating[:, ::1] gh,
                          const floating[:, ::1] gc_in, const floating[:, ::1] ggates,
                          const floating[:, ::1] gates, const floating[:, ::1] c,
                          const floating[:, ::1] c_prev, const floating[::1] m,
                          floating[:, ::1] dz, floating[:, ::1] dh_carry,
                          const floating[:, ::1] tcs, int act, int ract) noexcept nogil:
    """dh, dc: the state gradients from the later steps (dc updated in place to the
    gradient of c_prev); writes the pre-activation gradients dz and the part of
    dh_prev that skips the recurrent GEMM. tcs: activation(c) of this step."""
    cdef Py_ssize_t B = dh.shape[0], U = dh.shape[1], b
    for b in range(B):
        if act == 1 and ract == 2:
            # Keras's defaults, with the codes constant so the compiler can vectorise
            _lstm_back_row(&dh[b, 0], &dc[b, 0], &gh[b, 0], &gc_in[b, 0], &ggates[b, 0],
                           &gates[b, 0], &tcs[b, 0], &c_prev[b, 0], m[b], &dz[b, 0],
                           &dh_carry[b, 0], U, 1, 2)
        else:
            _lstm_back_row(&dh[b, 0], &dc[b, 0], &gh[b, 0], &gc_in[b, 0], &ggates[b, 0],
                           &gates[b, 0], &tcs[b, 0], &c_prev[b, 0], m[b], &dz[b, 0],
                           &dh_carry[b, 0], U, act, ract)


cdef void _gru_step(const floating[:, ::1] xp, const floating[:, ::1] hr,
                    const floating[:, ::1] h_prev, const floating[::1] m, floating[:, ::1] h,
                    floating[:, ::1] gates, floating[:, ::1] hrh, int act,
                    int ract) noexcept nogil:
    cdef Py_ssize_t B = h.shape[0], U = h.shape[1], b, u, k
    cdef floating mb, hn
    cdef floating* g
    cdef const floating* x
    cdef const floating* r
    for b in range(B):
        g = &gates[b, 0]
        x = &xp[b, 0]
        r = &hr[b, 0]
        for k in range(2 * U):
            g[k] = x[k] + r[k]
        _apply(ract, g, 2 * U)
        for u in range(U):
            hrh[b, u] = r[2 * U + u]
            g[2 * U + u] = x[2 * U + u] + g[U + u] * r[2 * U + u]
        _apply(act, g + 2 * U, U)
        mb = m[b]
        for u in range(U):
            hn = g[u] * h_prev[b, u] + (1 - g[u]) * g[2 * U + u]
            h[b, u] = mb * hn + (1 - mb) * h_prev[b, u]


cdef void _gru_step_back(const floating[:, ::1] dh, const floating[:, ::1] gh_in,
                         const floating[:, ::1] ggates, const floating[:, ::1] ghrh,
                         const floating[:, ::1] gates, const floating[:, ::1] hrh,
                         const floating[:, ::1] h_prev, const floating[::1] m,
                         floating[:, ::1] dxp, floating[:, ::1] dhr, floating[:, ::1] dh_carry,
                         int act, int ract) noexcept nogil:
    cdef Py_ssize_t B = dh.shape[0], U = dh.shape[1], b, u
    cdef floating mb, dht, dhn, gz, gr, gh, dgz, dgh, da, dgr
    for b in range(B):
        mb = m[b]
        for u in range(U):
            dht = dh[b, u] + gh_in[b, u]
            dhn = mb * dht
            gz = gates[b, u]
            gr = gates[b, U + u]
            gh = gates[b, 2 * U + u]
            dgz = dhn * (h_prev[b, u] - gh) + ggates[b, u]
            dgh = dhn * (1 - gz) + ggates[b, 2 * U + u]
            da = dgh * _dact(act, gh)
            dgr = da * hrh[b, u] + ggates[b, U + u]
            dxp[b, u] = dgz * _dact(ract, gz)
            dxp[b, U + u] = dgr * _dact(ract, gr)
            dxp[b, 2 * U + u] = da
            dhr[b, u] = dxp[b, u]
            dhr[b, U + u] = dxp[b, U + u]
            dhr[b, 2 * U + u] = da * gr + ghrh[b, u]
            dh_carry[b, u] = (1 - mb) * dht + dhn * gz


cdef void _simple_step(floating[:, ::1] h, const floating[:, ::1] xp,
                       const floating[:, ::1] h_prev, const floating[::1] m,
                       int act) noexcept nogil:
    """h holds h_prev @ recurrent_kernel on entry, the new state on exit."""
    cdef Py_ssize_t B = h.shape[0], U = h.shape[1], b, u
    cdef floating mb
    for b in range(B):
        for u in range(U):
            h[b, u] += xp[b, u]
    if B:
        _apply(act, &h[0, 0], B * U)
    for b in range(B):
        mb = m[b]
        if mb != 1:
            for u in range(U):
                h[b, u] = mb * h[b, u] + (1 - mb) * h_prev[b, u]


cdef void _simple_step_back(const floating[:, ::1] dh, const floating[:, ::1] gh_in,
                            const floating[:, ::1] h, const floating[::1] m, floating[:, ::1] da,
                            floating[:, ::1] dh_carry, int act) noexcept nogil:
    cdef Py_ssize_t B = dh.shape[0], U = dh.shape[1], b, u
    cdef floating mb, dht
    for b in range(B):
        mb = m[b]
        for u in range(U):
            dht = dh[b, u] + gh_in[b, u]
            da[b, u] = mb * dht * _dact(act, h[b, u])
            dh_carry[b, u] = (1 - mb) * dht


# ----------------------------------------------------------------------------------------
# Python wrappers: allocate, project the inputs, run the time loop
# ----------------------------------------------------------------------------------------

def _project(x, kernel, bias):
    """All steps' input projections in one GEMM: (T, B, D) @ (D, N) + bias -> (T, B, N)."""
    T, B, D = x.shape
    xp = np.empty((T * B, kernel.shape[1]), dtype=x.dtype)
    np.dot(np.ascontiguousarray(x).reshape(T * B, D), kernel, out=xp)
    if bias is not None:
        xp += bias
    return xp.reshape(T, B, kernel.shape[1])


def _mask_rows(mask, T, B, dtype):
    return np.ascontiguousarray(mask, dtype=dtype).reshape(T, B)


def _lstm_forward_impl(floating[:, :, ::1] xp, floating[:, ::1] tmp, h_seq_arr, c_seq_arr,
                       gates_arr, h0, c0, rkernel, const floating[:, ::1] m, int act, int ract):
    cdef floating[:, :, ::1] h_seq = h_seq_arr
    cdef floating[:, :, ::1] c_seq = c_seq_arr
    cdef floating[:, :, ::1] gates = gates_arr
    cdef const floating[:, ::1] h0m = h0, c0m = c0, hp, cp
    cdef Py_ssize_t t, T = xp.shape[0]
    for t in range(T):
        if t == 0:
            hp = h0m
            cp = c0m
        else:
            hp = h_seq[t - 1]
            cp = c_seq[t - 1]
        # the recurrent GEMM writes straight into this step's gates
        np.dot(h0 if t == 0 else h_seq_arr[t - 1], rkernel, out=gates_arr[t])
        with nogil:
            _lstm_step(xp[t], hp, cp, m[t], h_seq[t], c_seq[t], gates[t], tmp, act, ract)


def lstm_forward(x, h0, c0, kernel, rkernel, bias, mask, int act, int ract):
    """LSTM over time-major ``x``: returns (h_seq, c_seq, gates), gates activated [i,f,c,o]."""
    T, B, _ = x.shape
    U = rkernel.shape[0]
    dt = x.dtype
    xp = _project(x, kernel, bias)
    h_seq = np.empty((T, B, U), dtype=dt)
    c_seq = np.empty((T, B, U), dtype=dt)
    gates = np.empty((T, B, 4 * U), dtype=dt)
    tmp = np.empty((B, U), dtype=dt)
    h0 = np.ascontiguousarray(h0)
    c0 = np.ascontiguousarray(c0)
    _lstm_forward_impl(xp, tmp, h_seq, c_seq, gates, h0, c0, rkernel,
                       _mask_rows(mask, T, B, dt), act, ract)
    return h_seq, c_seq, gates


def _lstm_backward_impl(floating[:, ::1] dh, floating[:, ::1] dc, const floating[:, :, ::1] gh,
                        const floating[:, :, ::1] gc, const floating[:, :, ::1] ggates,
                        const floating[:, :, ::1] gates, const floating[:, :, ::1] c_seq,
                        const floating[:, ::1] c0, const floating[:, ::1] m,
                        floating[:, :, ::1] dz, floating[:, ::1] carry,
                        floating[:, :, ::1] tcs, rkernel_t, int act, int ract):
    cdef Py_ssize_t t, T = gates.shape[0]
    cdef const floating[:, ::1] cp
    if tcs.shape[0] * tcs.shape[1] * tcs.shape[2]:
        with nogil:     # activation(c) of every step in one pass
            _apply(act, &tcs[0, 0, 0], tcs.shape[0] * tcs.shape[1] * tcs.shape[2])
    dh_arr = np.asarray(dh)
    dz_arr = np.asarray(dz)
    carry_arr = np.asarray(carry)
    for t in range(T - 1, -1, -1):
        if t == 0:
            cp = c0
        else:
            cp = c_seq[t - 1]
        with nogil:
            _lstm_step_back(dh, dc, gh[t], gc[t], ggates[t], gates[t], c_seq[t], cp, m[t],
                            dz[t], carry, tcs[t], act, ract)
        np.dot(dz_arr[t], rkernel_t, out=dh_arr)
        dh_arr += carry_arr


def lstm_backward(c0, rkernel, mask, c_seq, gates, g_h, g_c, g_gates, int act, int ract):
    """Backward through time of ``lstm_forward`` given the gradients of its three outputs:
    (dz, dh0, dc0), dz the (T, B, 4U) gradients of the gate pre-activations, from which
    the weight and input gradients are single GEMMs (``ops/rnn_ops.py``)."""
    T, B, _ = gates.shape
    U = rkernel.shape[0]
    dt = gates.dtype
    dh = np.zeros((B, U), dtype=dt)
    dc = np.zeros((B, U), dtype=dt)
    dz = np.empty((T, B, 4 * U), dtype=dt)
    carry = np.empty((B, U), dtype=dt)
    c = np.ascontiguousarray
    _lstm_backward_impl(dh, dc, c(g_h), c(g_c), c(g_gates), c(gates), c(c_seq), c(c0),
                        _mask_rows(mask, T, B, dt), dz, carry, np.array(c_seq, dtype=dt),
                        c(rkernel.T), act, ract)
    return dz, dh, dc


def _gru_forward_impl(floating[:, :, ::1] xp, floating[:, :, ::1] hrbuf, h_seq_arr, gates_arr,
                      hrh_arr, h0, rkernel, rbias, const floating[:, ::1] m, int act,
                      int ract):
    cdef floating[:, :, ::1] h_seq = h_seq_arr
    cdef floating[:, :, ::1] gates = gates_arr
    cdef floating[:, :, ::1] hrh = hrh_arr
    cdef const floating[:, ::1] h0m = h0, hp
    cdef Py_ssize_t t, T = xp.shape[0]
    hr_arr = np.asarray(hrbuf)[0]
    for t in range(T):
        if t == 0:
            hp = h0m
        else:
            hp = h_seq[t - 1]
        np.dot(h0 if t == 0 else h_seq_arr[t - 1], rkernel, out=hr_arr)
        hr_arr += rbias
        with nogil:
            _gru_step(xp[t], hrbuf[0], hp, m[t], h_seq[t], gates[t], hrh[t], act, ract)


def gru_forward(x, h0, kernel, rkernel, bias, mask, int act, int ract):
    """GRU (reset_after) over time-major ``x``; ``bias`` is (2, 3U): input and recurrent.
    Returns (h_seq, gates, hrh): gates activated [z, r, h], hrh the recurrent part of the
    candidate before the reset gate multiplies (``h_prev @ R_h + b_rec_h``)."""
    T, B, _ = x.shape
    U = rkernel.shape[0]
    dt = x.dtype
    xp = _project(x, kernel, bias[0])
    h_seq = np.empty((T, B, U), dtype=dt)
    gates = np.empty((T, B, 3 * U), dtype=dt)
    hrh = np.empty((T, B, U), dtype=dt)
    hrbuf = np.empty((1, B, 3 * U), dtype=dt)
    h0 = np.ascontiguousarray(h0)
    _gru_forward_impl(xp, hrbuf, h_seq, gates, hrh, h0, rkernel, bias[1],
                      _mask_rows(mask, T, B, dt), act, ract)
    return h_seq, gates, hrh


def _gru_backward_impl(floating[:, ::1] dh, const floating[:, :, ::1] gh,
                       const floating[:, :, ::1] ggates, const floating[:, :, ::1] ghrh,
                       const floating[:, :, ::1] gates, const floating[:, :, ::1] hrh,
                       const floating[:, :, ::1] prev, const floating[:, ::1] m,
                       floating[:, :, ::1] dxp, floating[:, :, ::1] dhr, floating[:, ::1] carry,
                       rkernel_t, int act, int ract):
    cdef Py_ssize_t t, T = gates.shape[0]
    dh_arr = np.asarray(dh)
    dhr_arr = np.asarray(dhr)
    carry_arr = np.asarray(carry)
    for t in range(T - 1, -1, -1):
        with nogil:
            _gru_step_back(dh, gh[t], ggates[t], ghrh[t], gates[t], hrh[t], prev[t], m[t],
                           dxp[t], dhr[t], carry, act, ract)
        np.dot(dhr_arr[t], rkernel_t, out=dh_arr)
        dh_arr += carry_arr


def gru_backward(h0, rkernel, mask, h_seq, gates, hrh, g_h, g_gates, g_hrh, int act,
                 int ract):
    """Backward through time of ``gru_forward``: (dxp, dhr, dh0), the (T, B, 3U) gradients
    of the input projections and of the recurrent projections (``h_prev @ R + b_rec``)."""
    T, B, _ = gates.shape
    U = rkernel.shape[0]
    dt = gates.dtype
    dh = np.zeros((B, U), dtype=dt)
    dxp = np.empty((T, B, 3 * U), dtype=dt)
    dhr = np.empty((T, B, 3 * U), dtype=dt)
    carry = np.empty((B, U), dtype=dt)
    prev = np.empty((T, B, U), dtype=dt)
    if T:
        prev[0] = h0
        prev[1:] = h_seq[:T - 1]
    c = np.ascontiguousarray
    _gru_backward_impl(dh, c(g_h), c(g_gates), c(g_hrh), c(gates), c(hrh), prev,
                       _mask_rows(mask, T, B, dt), dxp, dhr, carry, c(rkernel.T), act, ract)
    return dxp, dhr, dh


def _simple_forward_impl(floating[:, :, ::1] xp, h_seq_arr, h0, rkernel,
                         const floating[:, ::1] m, int act):
    cdef floating[:, :, ::1] h_seq = h_seq_arr
    cdef const floating[:, ::1] h0m = h0, hp
    cdef Py_ssize_t t, T = xp.shape[0]
    for t in range(T):
        if t == 0:
            hp = h0m
        else:
            hp = h_seq[t - 1]
        np.dot(h0 if t == 0 else h_seq_arr[t - 1], rkernel, out=h_seq_arr[t])
        with nogil:
            _simple_step(h_seq[t], xp[t], hp, m[t], act)


def simple_rnn_forward(x, h0, kernel, rkernel, bias, mask, int act):
    """Simple RNN over time-major ``x``: returns h_seq."""
    T, B, _ = x.shape
    U = rkernel.shape[0]
    xp = _project(x, kernel, bias)
    h_seq = np.empty((T, B, U), dtype=x.dtype)
    h0 = np.ascontiguousarray(h0)
    _simple_forward_impl(xp, h_seq, h0, rkernel, _mask_rows(mask, T, B, x.dtype), act)
    return h_seq


def _simple_backward_impl(floating[:, ::1] dh, const floating[:, :, ::1] gh,
                          const floating[:, :, ::1] h_seq, const floating[:, ::1] m,
                          floating[:, :, ::1] da, floating[:, ::1] carry,
                          rkernel_t, int act):
    cdef Py_ssize_t t, T = h_seq.shape[0]
    dh_arr = np.asarray(dh)
    da_arr = np.asarray(da)
    carry_arr = np.asarray(carry)
    for t in range(T - 1, -1, -1):
        with nogil:
            _simple_step_back(dh, gh[t], h_seq[t], m[t], da[t], carry, act)
        np.dot(da_arr[t], rkernel_t, out=dh_arr)
        dh_arr += carry_arr


def simple_rnn_backward(rkernel, mask, h_seq, g_h, int act):
    """Backward through time of ``simple_rnn_forward``: (da, dh0), da the (T, B, U)
    gradients of the pre-activations."""
    T, B, U = h_seq.shape
    dt = h_seq.dtype
    dh = np.zeros((B, U), dtype=dt)
    da = np.empty((T, B, U), dtype=dt)
    carry = np.empty((B, U), dtype=dt)
    _simple_backward_impl(dh, np.ascontiguousarray(g_h), np.ascontiguousarray(h_seq),
                          _mask_rows(mask, T, B, dt), da, carry,
                          np.ascontiguousarray(rkernel.T), act)
    return da, dh
