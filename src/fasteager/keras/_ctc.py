"""CTC loss (Graves et al. 2006) for ``keras.losses.ctc``: -log p(labels | logits) by the
forward-backward algorithm in log space, in float64 NumPy, with its analytic gradient
softmax(logits) - (posterior class occupancy), as ``tf.nn.ctc_loss`` computes it (blank 0,
batch-major logits, the first ``label_length`` labels of each row)."""
import numpy as np

from .._src.autodiff.tape import custom_gradient
from ..ops.array_ops import constant, expand_dims


def _logsumexp(*xs):
    m = np.maximum.reduce(xs)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(sum(np.exp(x - safe) for x in xs))


def _shift(a, k):
    """``a`` moved ``k`` places right (left for k < 0), -inf filling the vacated places."""
    out = np.full_like(a, -np.inf)
    n = a.size - abs(k)
    if n > 0:
        if k > 0:
            out[k:] = a[:n]
        else:
            out[:n] = a[-k:]
    return out


def _ctc_one(lp, labels):
    """-log p(labels | lp) and d/d(logits) for one sequence: lp (T, C) log-softmax (float64),
    labels without blanks; blank is class 0. Forward-backward in log space."""
    T = lp.shape[0]
    ext = np.zeros(2 * len(labels) + 1, np.int64)
    ext[1::2] = labels
    S = ext.size
    # s-2 may be skipped where ext[s] is a label unlike the one two places back
    skip = np.zeros(S, bool)
    skip[2:] = (ext[2:] != 0) & (ext[2:] != ext[:-2])
    ninf = np.full(S, -np.inf)
    alpha = np.full((T, S), -np.inf)
    alpha[0, 0] = lp[0, 0]
    if S > 1:
        alpha[0, 1] = lp[0, ext[1]]
    for t in range(1, T):
        a = alpha[t - 1]
        a1 = _shift(a, 1)
        a2 = np.where(skip, _shift(a, 2), ninf)
        alpha[t] = _logsumexp(a, a1, a2) + lp[t, ext]
    beta = np.full((T, S), -np.inf)
    beta[T - 1, S - 1] = lp[T - 1, ext[S - 1]]
    if S > 1:
        beta[T - 1, S - 2] = lp[T - 1, ext[S - 2]]
    skip_next = np.zeros(S, bool)
    skip_next[:S - 2] = skip[2:]
    for t in range(T - 2, -1, -1):
        b = beta[t + 1]
        b1 = _shift(b, -1)
        b2 = np.where(skip_next, _shift(b, -2), ninf)
        beta[t] = _logsumexp(b, b1, b2) + lp[t, ext]
    ll = _logsumexp(alpha[T - 1, S - 1], alpha[T - 1, S - 2] if S > 1 else -np.inf)
    if not np.isfinite(ll):          # no alignment fits: infinite loss, no gradient
        return np.inf, np.zeros_like(lp)
    # posterior of each (time, class): alpha * beta counts the emission at t twice
    post = np.exp(alpha + beta - lp[:, ext] - ll)
    occ = np.zeros_like(lp)
    np.add.at(occ.T, ext, post.T)
    return -ll, np.exp(lp) - occ


def ctc_loss(labels, label_length, logits):
    """Per-sequence CTC loss of batch-major logits (B, T, C), blank 0, as tf.nn.ctc_loss."""
    z = logits._value.astype(np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    lp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    losses = np.empty(z.shape[0])
    grads = np.empty_like(z)
    for b in range(z.shape[0]):
        losses[b], grads[b] = _ctc_one(lp[b], labels[b, :label_length[b]])
    dt = logits.dtype

    @custom_gradient
    def f(x):
        def grad(dy):
            return expand_dims(expand_dims(dy, -1), -1) * constant(grads, dtype=dt)
        return constant(losses, dtype=dt), grad
    return f(logits)
