"""Scaled dot-product attention as one op: ``softmax(q @ k^T * scale + bias) @ v``.

The forward is one NumPy pass over the last two axes (two batched GEMMs and the softmax
op's Cython kernel on the scores), instead of the five or six ops (and their
temporaries and tape records) of the composite. The op has two outputs, O = P v and the
probabilities P, which the public function drops: the backward reads P instead of
recomputing it. With S the scaled scores and (g, gP) the incoming gradients::

    dv = P^T g        dP = g v^T + gP        dS = P * (dP - rowsum(dP * P))
    dq = dS k * scale          dk = dS^T q * scale          dbias = unbroadcast(dS)

written with fasteager ops on the recorded output P, so second derivatives follow (gP is
what the first backward pass sends back through P).

>>> q = fe.ones([2, 4, 8]); k = v = fe.ones([2, 6, 8])
>>> scaled_dot_product_attention(q, k, v).shape
TensorShape([2, 4, 8])
"""


import numpy as np

from .. import _core, _kernels
from ..errors import InvalidArgumentError
from .elementwise_ops import cast
from .linalg_ops import matmul
from .nn_ops import _on_kernel_dtype
from .reduction_ops import reduce_sum
from .registry import defop, execute, FLOAT, unbroadcast


# what a masked-out score gets: large enough that exp() underflows to 0 next to any real
# score, finite so that a row with every position masked is uniform (as Keras's softmax
# with a mask), not NaN
_MASKED = {np.dtype(np.float16): -3e4}
_MASKED_DEFAULT = -1e9


def _err(msg):
    return InvalidArgumentError("scaled_dot_product_attention: " + msg)


def _check(q, k, v, bias, scale):
    if not (q.ndim == k.ndim == v.ndim) or q.ndim < 2:
        raise _err("query, key and value must have the same rank >= 2 (got shapes %s, %s and "
                   "%s)" % (list(q.shape), list(k.shape), list(v.shape)))
    if q.shape[:-2] != k.shape[:-2] or q.shape[:-2] != v.shape[:-2]:
        raise _err("query, key and value must have the same leading (batch, heads) dimensions "
                   "(got shapes %s, %s and %s)" % (list(q.shape), list(k.shape), list(v.shape)))
    if q.shape[-1] != k.shape[-1]:
        raise _err("query and key must have the same depth (last dimension) (got %d and %d)"
                   % (q.shape[-1], k.shape[-1]))
    if k.shape[-2] != v.shape[-2]:
        raise _err("key and value must have the same length (dimension -2) (got %d and %d)"
                   % (k.shape[-2], v.shape[-2]))
    scores = q.shape[:-1] + (k.shape[-2],)
    try:
        if np.broadcast_shapes(bias.shape, scores) != scores:
            raise ValueError
    except ValueError:
        raise _err("the mask/bias must broadcast to the scores' shape (expected a shape "
                   "broadcastable to %s, got %s)" % (list(scores), list(bias.shape))) from None


def _forward(q, k, v, bias, scale):
    s = np.matmul(q, np.swapaxes(k, -1, -2))
    s *= s.dtype.type(scale)
    if bias.ndim or bias.any():     # no pass for the zero scalar of an unmasked call
        s += bias
    # the softmax op's Cython kernel: one pass per row (NumPy's max/sum along a short last
    # axis cost more than the two GEMMs)
    p = _on_kernel_dtype(_kernels.softmax, s) if s.size else s
    return np.matmul(p, v), p


def _grad(g, ans, inputs, attrs, needs):
    q, k, v, bias = inputs
    scale = attrs["scale"]
    g_out, g_p = g
    p = ans[1]
    dv = matmul(p, g_out, transpose_a=True) if needs[2] else None
    if not (needs[0] or needs[1] or needs[3]):
        return [None, None, dv, None]
    dp = matmul(g_out, v, transpose_b=True) + g_p
    ds = p * (dp - reduce_sum(dp * p, axis=-1, keepdims=True))
    dq = matmul(ds, k) * scale if needs[0] else None
    dk = matmul(ds, q, transpose_a=True) * scale if needs[1] else None
    dbias = unbroadcast(ds, bias) if needs[3] else None
    return [dq, dk, dv, dbias]


# outputs (O, P): the attention and the probabilities (the public function returns O)
sdpa_op = defop("scaled_dot_product_attention", _forward, kinds=FLOAT, check=_check, nin=4,
                attrs=("scale",), multi=True, joint_grad=_grad)


def mask_to_bias(mask, dtype):
    """A mask (True or 1 = attend) as the additive bias the op takes (0 or a large negative
    number); a floating mask is taken as a bias already."""
    m = _core.convert_to_tensor(mask)
    arr = m._value
    if arr.dtype.kind == "f":
        return m
    if arr.dtype.kind not in "biu":
        raise _err("mask must be boolean, integer or floating (got %s)" % arr.dtype)
    big = _MASKED.get(np.dtype(dtype), _MASKED_DEFAULT)
    return _core.wrap(np.where(arr.astype(bool), 0, big).astype(dtype))


def causal_mask(q_len, k_len):
    """True where query i may attend key j: j <= i (lower triangular, diagonal included)."""
    return np.tril(np.ones((q_len, k_len), dtype=bool))


def scaled_dot_product_attention(query, key, value, mask=None, scale=None, is_causal=False,
                                 name=None):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two axes, as one op.

    ``query`` is (..., Lq, d), ``key`` (..., Lk, d), ``value`` (..., Lk, dv); the leading
    dimensions (batch, heads) must match. ``mask`` broadcasts to (..., Lq, Lk): boolean or
    0/1 (True = attend; masked scores get -1e9, so a fully masked row is uniform) or a
    floating additive bias. ``scale`` defaults to 1/sqrt(d); ``is_causal`` also masks
    keys after each query position.
    """
    q = _core.convert_to_tensor(query)
    k = _core.convert_to_tensor(key)
    v = _core.convert_to_tensor(value)
    for argname, t in (("query", q), ("key", k), ("value", v)):
        if t._value.dtype.kind != "f":
            raise _err("%s must be floating (got %s)" % (argname, t._value.dtype))
    dtype = q._value.dtype
    if q._value.ndim < 2:
        raise _err("query must have rank >= 2 (got shape %s)" % list(q._value.shape))
    if scale is None:
        scale = 1.0 / np.sqrt(q._value.shape[-1]) if q._value.shape[-1] else 1.0
    bias = _core.wrap(np.zeros((), dtype)) if mask is None else mask_to_bias(mask, dtype)
    if bias._value.dtype != dtype:
        bias = cast(bias, dtype)
    if is_causal:
        causal = mask_to_bias(causal_mask(q._value.shape[-2], k._value.shape[-2]), dtype)
        bias = bias + causal
    return execute(sdpa_op, q, k, v, bias, scale=float(scale))[0]
