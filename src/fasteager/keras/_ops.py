"""The neural-network ops the Keras layers use, with Keras's argument forms mapped onto
``fe.nn`` (NHWC layouts, 2-tuples of strides, ``labels``/``logits`` by keyword).

Every helper is one ``fe.nn`` op, fused and differentiable to any order; only ``elu``
with an ``alpha`` other than 1 (which ``tf.nn.elu`` does not take) is composed here.
"""
from .. import nn
from .._core import convert_to_tensor
from ..ops.elementwise_ops import expm1, minimum, where

# ---- activations --------------------------------------------------------------------------

def softmax(x, axis=-1):
    return nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return nn.log_softmax(x, axis=axis)


def softplus(x):
    return nn.softplus(x)


def elu(x, alpha=1.0):
    if alpha == 1.0:
        return nn.elu(x)
    x = convert_to_tensor(x)
    return where(x > 0, x, alpha * expm1(minimum(x, 0.)))


def selu(x):
    return nn.selu(x)


def gelu(x, approximate=False):
    return nn.gelu(x, approximate=approximate)


def silu(x):
    return nn.silu(x)


def leaky_relu(x, alpha=0.2):
    return nn.leaky_relu(x, alpha=alpha)


def relu6(x):
    return nn.relu6(x)


# ---- losses -------------------------------------------------------------------------------

def sparse_softmax_xent(labels, logits):
    """Per-example cross-entropy of integer ``labels`` against ``logits`` (last axis)."""
    return nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def softmax_xent(labels, logits, axis=-1):
    return nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, axis=axis)


def sigmoid_xent(labels, logits):
    return nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)


# ---- convolution and pooling (NHWC) -------------------------------------------------------

def conv2d(x, kernel, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    """2-D convolution, NHWC input and HWIO kernel."""
    return nn.conv2d(x, kernel, strides=[1, strides[0], strides[1], 1], padding=padding,
                     dilations=[1, dilations[0], dilations[1], 1])


def max_pool2d(x, ksize, strides, padding="VALID"):
    return nn.max_pool2d(x, ksize=list(ksize), strides=list(strides), padding=padding)


def avg_pool2d(x, ksize, strides, padding="VALID"):
    return nn.avg_pool2d(x, ksize=list(ksize), strides=list(strides), padding=padding)


# ---- normalisation ------------------------------------------------------------------------

def moments(x, axes, keepdims=False):
    return nn.moments(x, axes=list(axes), keepdims=keepdims)


def dropout(x, rate, noise_shape=None, seed=None):
    """Inverted dropout: zero each element with probability ``rate``, scale the rest."""
    return nn.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)

