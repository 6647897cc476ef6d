"""``keras.ops.nn``: Keras 3's neural-network ops (activations, convolutions, pools, one-hot
encodings, cross-entropies, CTC, normalisations, attention) on fasteager's op table.

Each function takes Keras 3.15's arguments and defaults and gives the values and dtypes of
Keras's TensorFlow backend; the activations shared with ``keras.activations`` are that
module's functions (one implementation), the rest compose ``fe.nn`` ops, so every result
is differentiable by GradientTape.
"""
import math as _pymath

import numpy as np

from ... import errors
from ... import nn as fe_nn
from ... import sparse as fe_sparse
from ..._core import convert_to_tensor
from ...ops import (
    array_ops,
    elementwise_ops,
    indexing_ops,
    linalg_ops,
    matrix_ops,
    reduction_ops,
    sequence_ops,
)
from ...ops.elementwise_ops import cast
from .. import _ctc, activations, backend
from .._image_utils import standardize_data_format
from . import _ctc_decode
from ..backend import result_type, standardize_dtype

__all__ = [
    "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
    "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
    "ctc_decode", "ctc_loss", "depth_to_space", "depthwise_conv", "dot_product_attention",
    "elu", "fold", "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish",
    "hard_tanh", "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax",
    "max_pool", "moments", "multi_hot", "normalize", "one_hot", "polar", "psnr", "relu",
    "relu6", "rms_normalization", "selu", "separable_conv", "sigmoid", "silu", "soft_shrink",
    "softmax", "softplus", "softsign", "space_to_depth", "sparse_categorical_crossentropy",
    "sparse_plus", "sparse_sigmoid", "sparsemax", "squareplus", "swish", "tanh_shrink",
    "threshold", "unfold",
]


def _t(x):
    return convert_to_tensor(x)


def _dtype_name(x):
    return standardize_dtype(x.dtype)


# ---- activations --------------------------------------------------------------------------

def relu(x):
    return fe_nn.relu(_t(x))


def relu6(x):
    return fe_nn.relu6(_t(x))


def sigmoid(x):
    return elementwise_ops.sigmoid(_t(x))


def sparse_sigmoid(x):
    return activations.sparse_sigmoid(x)


def softplus(x):
    return fe_nn.softplus(_t(x))


def softsign(x):
    return fe_nn.softsign(_t(x))


def _no_float_scalar(opname, x, *values):
    """TensorFlow cannot convert a Python float to an integer tensor's dtype; Keras's
    composed activations fail so on integer inputs, and so do these."""
    x = _t(x)
    bad = next((v for v in values if isinstance(v, float)), None)
    if bad is not None and not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError("%s: cannot convert %r to a tensor of dtype %s (integer inputs take "
                        "integer thresholds)" % (opname, bad, x.dtype.name))
    return x


def soft_shrink(x, threshold=0.5):
    return activations.soft_shrink(_no_float_scalar("soft_shrink", x, threshold), threshold)


def sparse_plus(x):
    return activations.sparse_plus(x)


def silu(x):
    return fe_nn.silu(_t(x))


swish = silu


def squareplus(x, b=4):
    return activations.squareplus(x, b)


def log_sigmoid(x):
    return activations.log_sigmoid(x)


def leaky_relu(x, negative_slope=0.2):
    return fe_nn.leaky_relu(_t(x), alpha=negative_slope)


def hard_sigmoid(x):
    return activations.hard_sigmoid(x)


def hard_silu(x):
    return activations.hard_silu(x)


hard_swish = hard_silu


def elu(x, alpha=1.0):
    x = _t(x)
    res = fe_nn.elu(x)
    if alpha == 1:
        return res
    # Keras scales the negative branch of elu(x) (so the gradient there is alpha * exp(x))
    return elementwise_ops.where(x > cast(0, x.dtype), res, cast(alpha, x.dtype) * res)


def selu(x):
    return fe_nn.selu(_t(x))


def gelu(x, approximate=True):
    return fe_nn.gelu(_t(x), approximate=approximate)


def celu(x, alpha=1.0):
    return activations.celu(x, alpha)


def glu(x, axis=-1):
    return activations.glu(x, axis)


def tanh_shrink(x):
    return activations.tanh_shrink(x)


def hard_tanh(x):
    return activations.hard_tanh(_no_float_scalar("hard_tanh", x, -1.0, 1.0))


def hard_shrink(x, threshold=0.5):
    return activations.hard_shrink(_no_float_scalar("hard_shrink", x, threshold), threshold)


def threshold(x, threshold, default_value):
    return activations.threshold(x, threshold, default_value)


def sparsemax(x, axis=-1):
    return activations.sparsemax(x, axis)


def _over_axes(fn, x, axis):
    """``fn`` (a last-axis op) over ``axis``: None means all axes, a tuple several (Keras
    moves them last and flattens them into one)."""
    x = _t(x)
    rank = len(x.shape)
    if axis is None:
        return array_ops.reshape(fn(array_ops.reshape(x, [-1])), array_ops.shape(x))
    if isinstance(axis, (tuple, list)):
        axes = [a % rank for a in axis]
        keep = [a for a in range(rank) if a not in axes]
        perm = keep + axes
        xt = array_ops.transpose(x, perm)
        flat = array_ops.reshape(xt, [x.shape[a] for a in keep] + [-1])
        y = array_ops.reshape(fn(flat), array_ops.shape(xt))
        return array_ops.transpose(y, sorted(range(rank), key=perm.__getitem__))
    return fn(x, axis)


def softmax(x, axis=-1):
    return _over_axes(lambda v, a=-1: fe_nn.softmax(v, axis=a), x, axis)


def log_softmax(x, axis=-1):
    return _over_axes(lambda v, a=-1: fe_nn.log_softmax(v, axis=a), x, axis)


# ---- pooling ------------------------------------------------------------------------------

def _spatial_rank(opname, x):
    n = len(x.shape) - 2
    if n not in (1, 2, 3):
        raise ValueError("%s: inputs must have rank 3, 4 or 5 (1D, 2D or 3D), got shape %s"
                         % (opname, tuple(x.shape)))
    return n


def _to_last(x, data_format):
    if data_format == "channels_first":
        rank = len(x.shape)
        return array_ops.transpose(x, [0] + list(range(2, rank)) + [1])
    return x


def _from_last(y, data_format):
    if data_format == "channels_first":
        rank = len(y.shape)
        return array_ops.transpose(y, [0, rank - 1] + list(range(1, rank - 1)))
    return y


_TF_FORMAT = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _padding(opname, padding, error=ValueError):
    p = str(padding).lower()
    if p not in ("valid", "same"):
        raise error("%s: `padding` must be 'valid' or 'same'. Received: padding=%s"
                         % (opname, padding))
    return p.upper()


def _pool(opname, kind, inputs, pool_size, strides, padding, data_format):
    data_format = standardize_data_format(data_format)
    x = _t(inputs)
    n = _spatial_rank(opname, x)
    pool_size = _tuple(pool_size, n)
    strides = pool_size if strides is None else _tuple(strides, n)
    x = _to_last(x, data_format)
    # TensorFlow's pool op is what rejects a bad padding in Keras: its error class
    padding = _padding(opname, padding, errors.InvalidArgumentError)
    y = fe_nn.pool(x, pool_size, kind, strides=strides, padding=padding,
                   data_format=_TF_FORMAT[n])
    return _from_last(y, data_format)


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool("max_pool", "MAX", inputs, pool_size, strides, padding, data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    return _pool("average_pool", "AVG", inputs, pool_size, strides, padding, data_format)


def _adaptive_axis(x, axis, out, kind):
    """Adaptive pooling of channels-last ``x`` along spatial ``axis`` to ``out`` places, as
    Keras computes it: pool every window of the two window sizes (ceil(L/out) and one more)
    at stride 1, then gather, for each output place, the window starting at
    floor(i L / out) of its size (windows end at ceil((i+1) L / out))."""
    rank = len(x.shape)
    length = x.shape[axis]
    small = -(-length // out)
    big = small + 1
    perm = [a for a in range(rank) if a != axis and a != rank - 1] + [axis, rank - 1]
    xt = array_ops.transpose(x, perm)
    lead = list(xt.shape[:-2])
    flat = array_ops.reshape(xt, [-1, length, x.shape[-1]])
    pools = []
    for w in (small, big):
        if w <= length:
            pools.append(fe_nn.pool(flat, [w], kind, strides=[1], padding="VALID",
                                    data_format="NWC"))
        else:   # Keras's window wider than the input pools nothing (empty)
            pools.append(flat[:, :0])
    combined = array_ops.concat(pools, axis=1)
    small_len = max(1, length - small + 1)
    idx = []
    for i in range(out):
        start = min((i * length) // out, length - 1)
        end = min(-(-((i + 1) * length) // out), length)
        idx.append(start + small_len if end - start == big else start)
    pooled = indexing_ops.gather(combined, idx, axis=1)
    pooled = array_ops.reshape(pooled, lead + [out, x.shape[-1]])
    return array_ops.transpose(pooled, sorted(range(rank), key=perm.__getitem__))


def _adaptive(opname, kind, inputs, output_size, data_format):
    data_format = standardize_data_format(data_format)
    x = _t(inputs)
    n = len(x.shape) - 2
    if n not in (1, 2, 3):
        raise ValueError("%s supports 1D, 2D, or 3D inputs only." % opname)
    out = _tuple(output_size, n)
    x = _to_last(x, data_format)
    for i in range(n):
        x = _adaptive_axis(x, 1 + i, out[i], kind)
    return _from_last(x, data_format)


def adaptive_max_pool(inputs, output_size, data_format=None):
    return _adaptive("adaptive_max_pool", "MAX", inputs, output_size, data_format)


def adaptive_average_pool(inputs, output_size, data_format=None):
    return _adaptive("adaptive_average_pool", "AVG", inputs, output_size, data_format)


# ---- convolutions -------------------------------------------------------------------------

def _check_channels(opname, x, kernel, data_format):
    cin = x.shape[-1] if data_format == "channels_last" else x.shape[1]
    if cin != kernel.shape[-2]:
        raise ValueError("%s: the number of input channels must match the kernel's input "
                         "channels. Received: input channels=%s, kernel input channels=%s, "
                         "data_format='%s'." % (opname, cin, kernel.shape[-2], data_format))


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    data_format = standardize_data_format(data_format)
    x, kernel = _t(inputs), _t(kernel)
    n = _spatial_rank("conv", x)
    x = _to_last(x, data_format)
    strides, dilations = _tuple(strides, n), _tuple(dilation_rate, n)
    padding = _padding("conv", padding)
    if n == 3:
        y = fe_nn.conv3d(x, kernel, (1,) + strides + (1,), padding,
                         dilations=(1,) + dilations + (1,))
    else:
        y = fe_nn.convolution(x, kernel, strides=strides, padding=padding,
                              data_format=_TF_FORMAT[n], dilations=dilations)
    if 0 in tuple(y.shape) and 0 not in tuple(x.shape):
        raise ValueError("conv: the convolution operation resulted in an empty output. "
                         "Output shape: %s. This can happen if the input is too small for "
                         "the given kernel size, strides, dilation rate, and padding mode."
                         % (tuple(y.shape),))
    return _from_last(y, data_format)


def _depthwise_last(x, kernel, strides, padding, dilations):
    """Depthwise 2-D convolution of NHWC ``x``; stride with dilation is computed as the
    dilated convolution at stride 1, subsampled (the same values; Keras does the same)."""
    if any(s > 1 for s in strides) and any(d > 1 for d in dilations):
        if padding == "SAME":
            pads = [[0, 0]]
            for i, k in enumerate(kernel.shape[:2]):
                size, s, d = x.shape[1 + i], strides[i], dilations[i]
                eff = (k - 1) * d + 1
                total = max((-(-size // s) - 1) * s + eff - size, 0)
                pads.append([total // 2, total - total // 2])
            x = array_ops.pad(x, pads + [[0, 0]])
        y = fe_nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "VALID", dilations=dilations)
        return y[:, ::strides[0], ::strides[1], :]
    return fe_nn.depthwise_conv2d(x, kernel, [1, strides[0], strides[1], 1], padding,
                                  dilations=dilations)


def _depthwise_setup(opname, inputs, kernel, strides, padding, data_format, dilation_rate):
    data_format = standardize_data_format(data_format)
    x, kernel = _t(inputs), _t(kernel)
    n = len(x.shape) - 2
    if n not in (1, 2):
        raise ValueError("%s: `inputs` rank must be 3 (1D conv) or 4 (2D conv). Received: %d."
                         % (opname, len(x.shape)))
    _check_channels(opname, x, kernel, data_format)
    strides, dilations = _tuple(strides, n), _tuple(dilation_rate, n)
    x = _to_last(x, data_format)
    if n == 1:      # as a 2-D convolution over a height of 1
        x = array_ops.expand_dims(x, 1)
        kernel = array_ops.expand_dims(kernel, 0)
        strides, dilations = (1,) + strides, (1,) + dilations
    return x, kernel, n, strides, dilations, _padding(opname, padding), data_format


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    x, kernel, n, strides, dilations, padding, data_format = _depthwise_setup(
        "depthwise_conv", inputs, kernel, strides, padding, data_format, dilation_rate)
    y = _depthwise_last(x, kernel, strides, padding, dilations)
    if n == 1:
        y = array_ops.squeeze(y, [1])
    return _from_last(y, data_format)


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    x, dw, n, strides, dilations, padding, data_format = _depthwise_setup(
        "separable_conv", inputs, depthwise_kernel, strides, padding, data_format,
        dilation_rate)
    pw = _t(pointwise_kernel)
    if n == 1:
        pw = array_ops.expand_dims(pw, 0)
    y = _depthwise_last(x, dw, strides, padding, dilations)
    y = fe_nn.conv2d(y, pw, [1, 1, 1, 1], "VALID")
    if n == 1:
        y = array_ops.squeeze(y, [1])
    return _from_last(y, data_format)


def _transpose_size(size, k, stride, padding, output_padding, dilation):
    k = (k - 1) * dilation + 1
    if padding == "VALID":
        extra = max(k, stride) - k if output_padding is None else output_padding
        return (size - 1) * stride + k + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + k % 2 + output_padding


def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    data_format = standardize_data_format(data_format)
    x, kernel = _t(inputs), _t(kernel)
    n = _spatial_rank("conv_transpose", x)
    cin = x.shape[-1] if data_format == "channels_last" else x.shape[1]
    if cin != kernel.shape[-1]:
        raise ValueError("conv_transpose: the number of input channels must match the "
                         "kernel's last dimension. Received: input channels=%s, kernel "
                         "shape=%s" % (cin, tuple(kernel.shape)))
    padding = _padding("conv_transpose", padding)
    strides, dilations = _tuple(strides, n), _tuple(dilation_rate, n)
    out_pad = None if output_padding is None else _tuple(output_padding, n)
    x = _to_last(x, data_format)
    spatial = [_transpose_size(x.shape[1 + i], kernel.shape[i], strides[i], padding,
                               None if out_pad is None else out_pad[i], dilations[i])
               for i in range(n)]
    out_shape = [x.shape[0]] + spatial + [kernel.shape[-2]]
    y = fe_nn.conv_transpose(x, kernel, out_shape, strides, padding=padding,
                             data_format=_TF_FORMAT[n], dilations=dilations)
    return _from_last(y, data_format)


# ---- encodings ----------------------------------------------------------------------------

def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    dtype = standardize_dtype(dtype) if dtype is not None else backend.floatx()
    x = cast(_t(x), "int64")
    if dtype == "bool":
        out = array_ops.one_hot(x, num_classes, on_value=True, off_value=False, axis=axis,
                                dtype="bool")
    else:
        out = array_ops.one_hot(x, num_classes, axis=axis, dtype=dtype)
    return fe_sparse.from_dense(out) if sparse else out


def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    if num_classes is None and "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if num_classes is None:
        raise ValueError("multi_hot: argument `num_classes` must be specified.")
    x = _t(inputs)
    reduction_axis = 1 if len(x.shape) > 1 else 0
    dtype = standardize_dtype(dtype) if dtype is not None else None
    hot = one_hot(x, num_classes, axis=axis, dtype=dtype)
    if dtype == "bool":
        out = reduction_ops.reduce_any(hot, axis=reduction_axis)
    else:
        out = reduction_ops.reduce_max(hot, axis=reduction_axis)
    return fe_sparse.from_dense(out) if sparse else out


# ---- cross-entropies ----------------------------------------------------------------------

def _same_shape(opname, target, output):
    if len(target.shape) != len(output.shape):
        raise ValueError("%s: arguments `target` and `output` must have the same rank (ndim). "
                         "Received: target.shape=%s, output.shape=%s"
                         % (opname, tuple(target.shape), tuple(output.shape)))
    if tuple(target.shape) != tuple(output.shape):
        raise ValueError("%s: arguments `target` and `output` must have the same shape. "
                         "Received: target.shape=%s, output.shape=%s"
                         % (opname, tuple(target.shape), tuple(output.shape)))


def _clip_eps(output):
    eps = backend.epsilon()
    return elementwise_ops.clip_by_value(output, cast(eps, output.dtype),
                                         cast(1.0 - eps, output.dtype))


def binary_crossentropy(target, output, from_logits=False):
    target, output = _t(target), _t(output)
    _same_shape("binary_crossentropy", target, output)
    if from_logits:
        return fe_nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = _clip_eps(output)
    bce = target * elementwise_ops.log(output)
    bce = bce + (1 - target) * elementwise_ops.log(1 - output)
    return -bce


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    target, output = _t(target), _t(output)
    if len(target.shape) < 1:
        raise ValueError("categorical_crossentropy: arguments `target` and `output` must be "
                         "at least rank 1. Received: target.shape=%s, output.shape=%s"
                         % (tuple(target.shape), tuple(output.shape)))
    _same_shape("categorical_crossentropy", target, output)
    if from_logits:
        return fe_nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    # rescale so each row sums to 1, then clip away from 0 and 1 (Keras's epsilon)
    output = output / reduction_ops.reduce_sum(output, axis, keepdims=True)
    output = _clip_eps(output)
    return -reduction_ops.reduce_sum(target * elementwise_ops.log(output), axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    output = _t(output)
    if axis != -1 and axis != len(output.shape) - 1:
        raise ValueError("sparse_categorical_crossentropy: only axis=-1 is currently "
                         "supported. Received: axis=%s" % (axis,))
    target = cast(_t(target), "int64")
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = array_ops.squeeze(target, axis=-1)
    if len(output.shape) < 1:
        raise ValueError("sparse_categorical_crossentropy: argument `output` must be at "
                         "least rank 1. Received: output.shape=%s" % (tuple(output.shape),))
    if tuple(target.shape) != tuple(output.shape[:-1]):
        raise ValueError("sparse_categorical_crossentropy: arguments `target` and `output` "
                         "must have the same shape up until the last dimension: "
                         "target.shape=%s, output.shape=%s"
                         % (tuple(target.shape), tuple(output.shape)))
    if not from_logits:
        output = elementwise_ops.log(_clip_eps(output))
    return fe_nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


# ---- CTC ----------------------------------------------------------------------------------

def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """CTC loss per batch row of batch-major ``output`` logits (B, T, C), ``mask_index`` the
    blank class; row ``b`` uses its first ``output_length[b]`` steps and
    ``target_length[b]`` labels."""
    output = _t(output)
    target = _t(target)._value.astype("int64")
    target_length = _t(target_length)._value.astype("int64").reshape(-1)
    output_length = _t(output_length)._value.astype("int64").reshape(-1)
    result_dtype = result_type(output.dtype, "float32")
    # TensorFlow's CTC runs in float32 (float64 inputs too), and so does Keras
    compute = "float32" if result_dtype == "float64" else result_dtype
    output = cast(output, compute)
    classes = output.shape[-1]
    blank = mask_index % classes
    if blank != 0:
        # the forward-backward helper counts class 0 as blank: move the blank column first
        order = [blank] + [c for c in range(classes) if c != blank]
        output = indexing_ops.gather(output, order, axis=-1)
        target = target + (target < blank)
    rows = []
    for b in range(output.shape[0]):
        steps = int(output_length[b])
        rows.append(_ctc.ctc_loss(target[b:b + 1], target_length[b:b + 1],
                                  output[b:b + 1, :steps]))
    loss = array_ops.concat(rows, axis=0)
    return cast(loss, result_dtype)


def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    """CTC decoding of batch-major ``inputs`` (B, T, C): ``(decoded, scores)`` with decoded
    (top_paths, B, T) int32 padded with -1. "greedy": the best class per step, repeats
    merged (``merge_repeated``), blanks dropped; scores (B, 1) minus the sum of the best
    values. "beam_search": TensorFlow's beam search (repeats never merged, as
    ``tf.nn.ctc_beam_search_decoder``); scores (B, top_paths) its log-probabilities."""
    x = _t(inputs)
    x = cast(x, result_type(x.dtype, "float32"))
    if strategy not in ("greedy", "beam_search"):
        raise ValueError("ctc_decode: invalid strategy %s. Supported values are 'greedy' and "
                         "'beam_search'." % (strategy,))
    lengths = _t(sequence_lengths)._value.astype("int64").reshape(-1)
    batch, steps, classes = x.shape
    if strategy == "greedy":
        blank = mask_index % classes if mask_index is not None else classes - 1
        valid = sequence_ops.sequence_mask(lengths, steps, dtype=x.dtype)
        scores = -reduction_ops.reduce_sum(reduction_ops.reduce_max(x, axis=-1) * valid,
                                           axis=1, keepdims=True)
        paths = [_ctc_decode.greedy(x.numpy(), lengths, blank, merge_repeated)]
    else:
        values = x.numpy()
        if mask_index is not None:
            # TensorFlow's beam search takes the blank last: Keras moves it there by slicing
            # around mask_index as given (so a negative index slices as Python does), then
            # shifts the labels at or above it back up
            values = np.concatenate([values[..., :mask_index],
                                     values[..., mask_index:mask_index + 1],
                                     values[..., mask_index + 1:]][::2] +
                                    [values[..., mask_index:mask_index + 1]], axis=-1)
            mask = mask_index + classes if mask_index < 0 else mask_index
        paths, logp = _ctc_decode.beam_search(values, lengths, beam_width, top_paths)
        if mask_index is not None:
            paths = [[[c + 1 if c >= mask else c for c in row] for row in rank]
                     for rank in paths]
        scores = array_ops.constant(logp)
    dense = [[row + [-1] * (steps - len(row)) for row in rank] for rank in paths]
    return array_ops.constant(np.asarray(dense, np.int32).reshape(len(paths), batch, steps)), \
        scores


# ---- statistics and normalisation ---------------------------------------------------------

def moments(x, axes, keepdims=False, synchronized=False):
    x = _t(x)
    dtype = _dtype_name(x)
    # float16 statistics are computed in float32 and clipped back to float16's range
    if dtype in ("float16", "bfloat16"):
        x = cast(x, "float32")
    mean, variance = fe_nn.moments(x, axes, keepdims=keepdims)
    if dtype in ("float16", "bfloat16"):
        big = 65504.0
        mean = cast(elementwise_ops.clip_by_value(mean, -big, big), dtype)
        variance = cast(elementwise_ops.clip_by_value(variance, -big, big), dtype)
    return mean, variance


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    x, mean, variance = _t(x), _t(mean), _t(variance)
    if axis != -1:
        shape = [1] * len(x.shape)
        shape[axis] = mean.shape[0]
        mean = array_ops.reshape(mean, shape)
        variance = array_ops.reshape(variance, shape)
        offset = None if offset is None else array_ops.reshape(_t(offset), shape)
        scale = None if scale is None else array_ops.reshape(_t(scale), shape)
    return fe_nn.batch_normalization(x, mean, variance, offset, scale, epsilon)


def normalize(x, axis=-1, order=2, epsilon=None):
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError("normalize: argument `order` must be an int >= 1. Received: order=%s"
                         % (order,))
    x = _t(x)
    if len(x.shape) == 0:
        x = array_ops.expand_dims(x, 0)
    if epsilon is None:
        epsilon = backend.epsilon()
    if order == 2:
        square_sum = reduction_ops.reduce_sum(elementwise_ops.square(x), axis=axis,
                                              keepdims=True)
        # min(rsqrt(s), 1/eps) as rsqrt(max(s, eps**2)): the same values, and a zero row's
        # gradient stays finite (TensorFlow's rsqrt gradient is 0 where the min drops it)
        inv = elementwise_ops.rsqrt(elementwise_ops.maximum(
            square_sum, cast(epsilon * epsilon, x.dtype)))
        return x * inv
    norm = linalg_ops.norm(x, ord=order, axis=axis, keepdims=True)
    return x / elementwise_ops.maximum(norm, cast(epsilon, norm.dtype))


def _axes(axis):
    return sorted(axis) if isinstance(axis, (tuple, list)) else axis


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    epsilon = backend.epsilon() if epsilon is None else epsilon
    x = _t(x)
    original = _dtype_name(x)
    x = cast(x, result_type(x.dtype, "float32"))    # at least float32 for half inputs
    if len(x.shape) == 0:
        x = array_ops.expand_dims(x, 0)
    mean_sq = reduction_ops.reduce_mean(elementwise_ops.square(x), axis=_axes(axis),
                                        keepdims=True)
    out = x * elementwise_ops.rsqrt(mean_sq + cast(epsilon, x.dtype))
    if scale is not None:
        out = out * cast(_t(scale), x.dtype)
    return cast(out, original)


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    rms_scaling = kwargs.pop("rms_scaling", False)
    epsilon = backend.epsilon() if epsilon is None else epsilon
    x = _t(x)
    original = _dtype_name(x)
    x = cast(x, result_type(x.dtype, "float32"))
    rank = len(x.shape)
    axes = sorted(a % rank for a in ([axis] if isinstance(axis, int) else axis))
    bshape = [1] * rank
    for a in axes:
        bshape[a] = x.shape[a]

    def _broadcast(v):
        if v is None:
            return None
        v = cast(_t(v), x.dtype)
        if len(v.shape) != rank and axes != [rank - 1]:
            return array_ops.reshape(v, bshape)
        return v

    gamma, beta = _broadcast(gamma), _broadcast(beta)
    eps = cast(epsilon, x.dtype)
    if rms_scaling:     # Keras's deprecated form: scales by the variance
        _, variance = fe_nn.moments(x, axes, keepdims=True)
        out = x * elementwise_ops.rsqrt(variance + eps)
        if gamma is not None:
            out = out * gamma
        return cast(out, original)
    mean, variance = moments(x, axes, keepdims=True)
    inv = elementwise_ops.rsqrt(variance + eps)
    if gamma is not None:
        inv = inv * gamma
    res = -mean * inv
    if beta is not None:
        res = res + beta
    return cast(x * inv + res, original)


def psnr(x1, x2, max_val):
    x1, x2 = _t(x1), _t(x2)
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError("psnr: input shapes %s and %s must match for PSNR calculation."
                         % (tuple(x1.shape), tuple(x2.shape)))
    max_val = cast(_t(max_val), x2.dtype)
    mse = reduction_ops.reduce_mean(elementwise_ops.square(x1 - x2))

    def log10(v):
        if not v.dtype.is_floating:
            v = cast(v, backend.floatx())
        return elementwise_ops.log(v) / cast(_pymath.log(10.0), v.dtype)

    return 20 * log10(max_val) - 10 * log10(mse)


# ---- attention ----------------------------------------------------------------------------

def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    if attn_logits_soft_cap is not None:
        raise ValueError("dot_product_attention: attn_logits_soft_cap is only supported for "
                         "JAX on TPU. Set attn_logits_soft_cap=None.")
    if flash_attention:
        raise ValueError("dot_product_attention: flash attention is not supported (as on "
                         "Keras's TensorFlow backend).")
    query, key, value = _t(query), _t(key), _t(value)
    if len(query.shape) != 4:
        raise ValueError("dot_product_attention: only supports 4D inputs. Received: "
                         "query.shape=%s, key.shape=%s, value.shape=%s"
                         % (tuple(query.shape), tuple(key.shape), tuple(value.shape)))
    dtype = result_type(query.dtype, key.dtype, value.dtype)
    query, key, value = cast(query, dtype), cast(key, dtype), cast(value, dtype)
    q_heads, kv_heads = query.shape[2], key.shape[2]
    if q_heads > kv_heads > 1:     # grouped-query attention: each kv head serves a group
        key = indexing_ops.repeat(key, q_heads // kv_heads, axis=2)
        value = indexing_ops.repeat(value, q_heads // kv_heads, axis=2)
    if scale is None:
        scale = 1.0 / _pymath.sqrt(float(key.shape[-1]))
    logits = linalg_ops.einsum("BTNH,BSNH->BNTS", query, key)
    logits = cast(logits, result_type(query.dtype, "float32"))
    logits = logits * cast(scale, logits.dtype)
    if bias is not None:
        logits = logits + cast(_t(bias), logits.dtype)
    if mask is not None or is_causal:
        keep = array_ops.ones_like(logits, dtype="bool")
        if mask is not None:
            keep = elementwise_ops.logical_and(keep, cast(_t(mask), "bool"))
        if is_causal:
            t, s = logits.shape[2], logits.shape[3]
            causal = matrix_ops.band_part(array_ops.ones((t, s), dtype="bool"), -1, 0)
            keep = elementwise_ops.logical_and(keep, causal[None, None])
        big = 65500.0 if _dtype_name(logits) == "float16" else 3.38953e38
        logits = elementwise_ops.where(keep, logits, cast(big * -0.7, logits.dtype))
    probs = fe_nn.softmax(cast(logits, result_type(logits.dtype, "float32")), axis=-1)
    return linalg_ops.einsum("BNTS,BSNH->BTNH", cast(probs, key.dtype), value)


# ---- complex, patches, blocks -------------------------------------------------------------

def polar(abs_, angle):
    abs_, angle = _t(abs_), _t(angle)
    return elementwise_ops.complex(abs_ * elementwise_ops.cos(angle),
                                   abs_ * elementwise_ops.sin(angle))


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding (kH, kW) blocks of NCHW ``x`` as (N, C*kH*kW, L), PyTorch's ``unfold``."""
    x = _t(x)
    if len(x.shape) != 4:
        raise ValueError("unfold: input must be a 4D tensor. Received: input.shape=%s"
                         % (tuple(x.shape),))
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (_pair(kernel_size), _pair(dilation),
                                              _pair(padding), _pair(stride))
    n, c = x.shape[0], x.shape[1]
    if ph or pw:
        x = array_ops.pad(x, [[0, 0], [0, 0], [ph, ph], [pw, pw]])
    nh = (x.shape[2] - dh * (kh - 1) - 1) // sh + 1
    nw = (x.shape[3] - dw * (kw - 1) - 1) // sw + 1
    taps = [x[:, :, i * dh:i * dh + (nh - 1) * sh + 1:sh, j * dw:j * dw + (nw - 1) * sw + 1:sw]
            for i in range(kh) for j in range(kw)]
    return array_ops.reshape(array_ops.stack(taps, axis=2), [n, c * kh * kw, nh * nw])


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The sum of (N, C*kH*kW, L) blocks back into (N, C, oH, oW), PyTorch's ``fold``
    (the adjoint of ``unfold``: overlapping blocks add)."""
    x = _t(x)
    if len(x.shape) != 3:
        raise ValueError("fold: input must be a 3D tensor. Received: input.shape=%s"
                         % (tuple(x.shape),))
    (oh, ow), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (
        _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))
    n, ckk = x.shape[0], x.shape[1]
    c = ckk // (kh * kw)
    nh = (oh + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    nw = (ow + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    blocks = array_ops.reshape(x, [n, c, kh, kw, nh, nw])
    # scatter into (oH_pad, oW_pad, N, C): each kernel tap adds its (nH, nW) grid of values
    blocks = array_ops.transpose(blocks, [2, 3, 4, 5, 0, 1])
    ohp, owp = oh + 2 * ph, ow + 2 * pw
    out = array_ops.zeros([ohp, owp, n, c], dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            idx = [[i * dh + r * sh, j * dw + q * sw] for r in range(nh) for q in range(nw)]
            upd = array_ops.reshape(blocks[i, j], [nh * nw, n, c])
            out = indexing_ops.tensor_scatter_nd_add(out, idx, upd)
    out = array_ops.transpose(out, [2, 3, 0, 1])
    return out[:, :, ph:ohp - ph, pw:owp - pw]


def _block_op(opname, fn, x, block_size, data_format):
    data_format = standardize_data_format(data_format)
    if block_size < 2:
        raise ValueError("%s: `block_size` must be at least 2. Received: block_size=%s"
                         % (opname, block_size))
    x = _t(x)
    if data_format == "channels_first":
        return array_ops.transpose(fn(array_ops.transpose(x, [0, 2, 3, 1]), block_size),
                                   [0, 3, 1, 2])
    return fn(x, block_size)


def depth_to_space(x, block_size, data_format="channels_last"):
    return _block_op("depth_to_space", fe_nn.depth_to_space, x, block_size, data_format)


def space_to_depth(x, block_size, data_format="channels_last"):
    return _block_op("space_to_depth", fe_nn.space_to_depth, x, block_size, data_format)
