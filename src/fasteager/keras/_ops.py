"""The neural-network ops the Keras layers use, through the public ``fe.nn`` API.

Each helper calls the ``fe.nn`` op when it exists and otherwise composes the same math
from public elementwise, slicing and matmul ops (all differentiable, to any order), so
the layers work while the op library grows and get faster as fused ops land.
"""
import numpy as np

import fasteager as fe
from fasteager import nn as _nn


def _has(name):
    return hasattr(_nn, name)


def _t(x, dtype=None):
    return fe.convert_to_tensor(x, dtype)


# ---- activations --------------------------------------------------------------------------

def softmax(x, axis=-1):
    if _has("softmax"):
        return _nn.softmax(x, axis=axis)
    x = _t(x)
    z = x - fe.stop_gradient(fe.reduce_max(x, axis=axis, keepdims=True))
    e = fe.exp(z)
    return e / fe.reduce_sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    if _has("log_softmax"):
        return _nn.log_softmax(x, axis=axis)
    x = _t(x)
    z = x - fe.stop_gradient(fe.reduce_max(x, axis=axis, keepdims=True))
    return z - fe.log(fe.reduce_sum(fe.exp(z), axis=axis, keepdims=True))


def softplus(x):
    if _has("softplus"):
        return _nn.softplus(x)
    x = _t(x)
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large |x|
    return fe.maximum(x, 0.) + fe.log1p(fe.exp(-fe.abs(x)))


def elu(x, alpha=1.0):
    if _has("elu") and alpha == 1.0:
        return _nn.elu(x)
    x = _t(x)
    return fe.where(x > 0, x, alpha * fe.expm1(fe.minimum(x, 0.)))


def selu(x):
    if _has("selu"):
        return _nn.selu(x)
    # constants from Klambauer et al. 2017, "Self-Normalizing Neural Networks"
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    x = _t(x)
    return scale * fe.where(x > 0, x, alpha * fe.expm1(fe.minimum(x, 0.)))


def gelu(x, approximate=False):
    if _has("gelu"):
        return _nn.gelu(x, approximate=approximate)
    x = _t(x)
    if approximate:
        c = np.sqrt(2.0 / np.pi)
        return 0.5 * x * (1.0 + fe.tanh(c * (x + 0.044715 * x * x * x)))
    if hasattr(fe.math, "erf"):
        return 0.5 * x * (1.0 + fe.math.erf(x / np.sqrt(2.0)))
    c = np.sqrt(2.0 / np.pi)
    return 0.5 * x * (1.0 + fe.tanh(c * (x + 0.044715 * x * x * x)))


def silu(x):
    if _has("silu"):
        return _nn.silu(x)
    x = _t(x)
    return x * fe.sigmoid(x)


def leaky_relu(x, alpha=0.2):
    if _has("leaky_relu"):
        return _nn.leaky_relu(x, alpha=alpha)
    x = _t(x)
    return fe.where(x > 0, x, x * alpha)


def relu6(x):
    if _has("relu6"):
        return _nn.relu6(x)
    return fe.clip_by_value(_t(x), 0., 6.)


# ---- losses -------------------------------------------------------------------------------

def sparse_softmax_xent(labels, logits):
    """Per-example cross-entropy of integer ``labels`` against ``logits`` (last axis)."""
    if _has("sparse_softmax_cross_entropy_with_logits"):
        return _nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    logits = _t(logits)
    lab = np.asarray(_t(labels).numpy()).astype(np.int64)
    k = logits.shape[-1]
    onehot = (lab[..., None] == np.arange(k)).astype(logits.dtype.as_numpy_dtype)
    return -fe.reduce_sum(log_softmax(logits) * onehot, axis=-1)


def softmax_xent(labels, logits, axis=-1):
    if _has("softmax_cross_entropy_with_logits"):
        return _nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, axis=axis)
    logits = _t(logits)
    return -fe.reduce_sum(_t(labels, logits.dtype) * log_softmax(logits, axis), axis=axis)


def sigmoid_xent(labels, logits):
    if _has("sigmoid_cross_entropy_with_logits"):
        return _nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    logits = _t(logits)
    labels = _t(labels, logits.dtype)
    # max(x, 0) - x z + log(1 + e^-|x|), the stable form TensorFlow documents
    return (fe.maximum(logits, 0.) - logits * labels
            + fe.log1p(fe.exp(-fe.abs(logits))))


# ---- convolution and pooling (NHWC) -------------------------------------------------------

def _pad_hw(x, pads, value=0.0):
    """Pad axes 1 and 2 of an NHWC tensor by ((top, bottom), (left, right))."""
    (t, b), (lft, r) = pads
    if not (t or b or lft or r):
        return x
    if hasattr(fe, "pad") and value == 0.0:
        return fe.pad(x, [[0, 0], [t, b], [lft, r], [0, 0]])
    n, h, w, c = x.shape.as_list()
    dt = x.dtype.as_numpy_dtype
    parts = []
    if t:
        parts.append(fe.constant(np.full((n, t, w, c), value, dt)))
    parts.append(x)
    if b:
        parts.append(fe.constant(np.full((n, b, w, c), value, dt)))
    x = fe.concat(parts, axis=1) if len(parts) > 1 else x
    h2 = h + t + b
    parts = []
    if lft:
        parts.append(fe.constant(np.full((n, h2, lft, c), value, dt)))
    parts.append(x)
    if r:
        parts.append(fe.constant(np.full((n, h2, r, c), value, dt)))
    return fe.concat(parts, axis=2) if len(parts) > 1 else x


def _same_pads(size, k, s, d=1):
    """TensorFlow's SAME padding for one axis: (output size, pad before, pad after)."""
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return out, total // 2, total - total // 2


def _windows(x, kh, kw, sh, sw, dh, dw, padding, pad_value=0.0):
    """The kh*kw strided views of ``x`` (NHWC) that a window op combines, and the output size."""
    n, h, w, c = x.shape.as_list()
    if padding == "SAME":
        ho, pt, pb = _same_pads(h, kh, sh, dh)
        wo, pl, pr = _same_pads(w, kw, sw, dw)
        x = _pad_hw(x, ((pt, pb), (pl, pr)), pad_value)
    else:
        ho = (h - (kh - 1) * dh - 1) // sh + 1
        wo = (w - (kw - 1) * dw - 1) // sw + 1
    if ho <= 0 or wo <= 0:
        raise fe.errors.InvalidArgumentError(
            "conv/pool: the window (%d, %d) is larger than the input (%d, %d) with VALID "
            "padding" % (kh, kw, h, w))
    views = []
    for i in range(kh):
        for j in range(kw):
            views.append(x[:, i * dh: i * dh + sh * (ho - 1) + 1: sh,
                           j * dw: j * dw + sw * (wo - 1) + 1: sw, :])
    return views, ho, wo


def conv2d(x, kernel, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    """2-D convolution, NHWC input and HWIO kernel."""
    if _has("conv2d"):
        return _nn.conv2d(x, kernel, strides=[1, strides[0], strides[1], 1], padding=padding,
                          dilations=[1, dilations[0], dilations[1], 1])
    kh, kw, cin, cout = kernel.shape.as_list()
    views, ho, wo = _windows(x, kh, kw, strides[0], strides[1], dilations[0], dilations[1],
                             padding)
    patches = fe.concat(views, axis=-1) if len(views) > 1 else views[0]
    n = x.shape[0]
    cols = fe.reshape(patches, [n * ho * wo, kh * kw * cin])
    out = fe.matmul(cols, fe.reshape(kernel, [kh * kw * cin, cout]))
    return fe.reshape(out, [n, ho, wo, cout])


def max_pool2d(x, ksize, strides, padding="VALID"):
    if _has("max_pool2d"):
        return _nn.max_pool2d(x, ksize=list(ksize), strides=list(strides), padding=padding)
    views, _, _ = _windows(x, ksize[0], ksize[1], strides[0], strides[1], 1, 1, padding,
                           pad_value=-np.inf)
    return fe.reduce_max(fe.stack(views, axis=0), axis=0)


def avg_pool2d(x, ksize, strides, padding="VALID"):
    if _has("avg_pool2d"):
        return _nn.avg_pool2d(x, ksize=list(ksize), strides=list(strides), padding=padding)
    views, _, _ = _windows(x, ksize[0], ksize[1], strides[0], strides[1], 1, 1, padding)
    total = fe.add_n(views) if len(views) > 1 else views[0]
    if padding == "VALID":
        return total / float(ksize[0] * ksize[1])
    # SAME: average over the real (unpadded) elements of each window, as TensorFlow does
    ones = fe.ones([1] + x.shape.as_list()[1:3] + [1], dtype=x.dtype)
    cviews, _, _ = _windows(ones, ksize[0], ksize[1], strides[0], strides[1], 1, 1, padding)
    count = fe.add_n(cviews) if len(cviews) > 1 else cviews[0]
    return total / count


# ---- normalisation ------------------------------------------------------------------------

def moments(x, axes, keepdims=False):
    if _has("moments"):
        return _nn.moments(x, axes=list(axes), keepdims=keepdims)
    mean = fe.reduce_mean(x, axis=list(axes), keepdims=True)
    var = fe.reduce_mean(fe.square(x - mean), axis=list(axes),
                         keepdims=True)
    if not keepdims:
        mean = fe.squeeze(mean, axis=list(axes))
        var = fe.squeeze(var, axis=list(axes))
    return mean, var


def dropout(x, rate, noise_shape=None, seed=None):
    """Inverted dropout: zero each element with probability ``rate``, scale the rest."""
    if _has("dropout"):
        return _nn.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)
    x = _t(x)
    shape = x.shape.as_list() if noise_shape is None else list(noise_shape)
    keep = fe.random.uniform(shape, dtype=x.dtype, seed=seed) >= rate
    return x * fe.cast(keep, x.dtype) * (1.0 / (1.0 - rate))
