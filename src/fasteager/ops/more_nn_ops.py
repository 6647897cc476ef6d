"""The rest of ``tf.nn``: block rearrangements, losses, moment statistics, local response
normalization, separable and transposed 1-D convolution, N-D pooling.

Everything here composes existing ops (reshape/transpose, slices, pad, conv2d,
depthwise_conv2d, max_pool2d), so gradients of every order come from those ops' own.
``pool`` with dilations, or with a window rank the 2-D kernels do not cover (3-D
``avg_pool3d``/``max_pool3d``), runs as one strided slice per window tap combined with
``maximum`` or a sum, and ``conv3d`` as one matmul per filter tap: exact, and slow only
for large windows.
"""
import collections
import itertools
import math

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .array_ops import _index_backward, concat, getitem, pad, reshape, transpose, zeros_like
from .conv_ops import (avg_pool1d, avg_pool2d, conv2d, conv2d_transpose, depthwise_conv2d,
                       max_pool1d, max_pool2d)
from .math_ops import (convert_same, exp, greater_equal, less_equal, log, log1p, logical_and,
                       matmul, maximum, reduce_sum, square, where)
from .nn_ops import relu
from .registry import as_int, execute, normalize_axis

convert_to_tensor = _core.convert_to_tensor


def _float(opname, x):
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError("%s: input must be floating point (got %s)"
                                   % (opname, x._value.dtype))
    return x


# ---- depth_to_space / space_to_depth ------------------------------------------------------

def _block(opname, x, block_size, data_format):
    if data_format not in ("NHWC", "NCHW"):
        raise InvalidArgumentError("%s: data_format must be 'NHWC' or 'NCHW' (got %r)"
                                   % (opname, data_format))
    b = as_int(opname, block_size, "block_size")
    if b < 2:
        raise InvalidArgumentError("%s: block_size must be at least 2 (got %d)" % (opname, b))
    x = convert_to_tensor(x)
    if x._value.ndim != 4:
        raise InvalidArgumentError("%s: input must be 4-D (got shape %s)"
                                   % (opname, list(x._value.shape)))
    return (x if data_format == "NHWC" else transpose(x, (0, 2, 3, 1))), b


def _back(y, data_format):
    return y if data_format == "NHWC" else transpose(y, (0, 3, 1, 2))


def depth_to_space(input, block_size, data_format="NHWC", name=None):
    """Moves channel blocks into ``block_size x block_size`` spatial tiles.

    >>> fe.nn.depth_to_space(fe.reshape(fe.range(4.), [1, 1, 1, 4]), 2)[0, :, :, 0].numpy()
    array([[0., 1.],
           [2., 3.]], dtype=float32)
    """
    x, b = _block("depth_to_space", input, block_size, data_format)
    n, h, w, c = x._value.shape
    if c % (b * b):
        raise InvalidArgumentError("depth_to_space: input depth dimension %d should be "
                                   "divisible by: %d" % (c, b * b))
    y = transpose(reshape(x, (n, h, w, b, b, c // (b * b))), (0, 1, 3, 2, 4, 5))
    return _back(reshape(y, (n, h * b, w * b, c // (b * b))), data_format)


def space_to_depth(input, block_size, data_format="NHWC", name=None):
    """Moves each ``block_size x block_size`` spatial tile into the channels (the inverse
    of ``depth_to_space``)."""
    x, b = _block("space_to_depth", input, block_size, data_format)
    n, h, w, c = x._value.shape
    if h % b or w % b:
        raise InvalidArgumentError("space_to_depth: image width %d and height %d should be "
                                   "divisible by block_size: %d" % (w, h, b))
    y = transpose(reshape(x, (n, h // b, b, w // b, b, c)), (0, 1, 3, 2, 4, 5))
    return _back(reshape(y, (n, h // b, w // b, b * b * c)), data_format)


# ---- activations and losses ---------------------------------------------------------------

def crelu(features, axis=-1, name=None):
    """``concat([relu(x), relu(-x)], axis)``: the positive and negative parts side by side."""
    x = convert_to_tensor(features)
    return concat([relu(x), relu(-x)], axis)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``exp(log_input) - log_input * targets``; ``compute_full_loss`` adds Stirling's
    approximation of ``log(targets!)`` where ``targets > 1``.

    >>> fe.nn.log_poisson_loss([1., 3.], [-1., 2.]).numpy()
    array([1.3678794, 1.3890562], dtype=float32)
    """
    log_input, targets = convert_same(log_input, targets)
    if log_input._value.shape != targets._value.shape:
        raise ValueError("log_poisson_loss: log_input and targets must have the same shape "
                         "(%s vs %s)" % (list(log_input._value.shape),
                                         list(targets._value.shape)))
    result = exp(log_input) - log_input * targets
    if not compute_full_loss:
        return result
    zeros = zeros_like(targets)
    small = logical_and(greater_equal(targets, zeros), less_equal(targets, zeros + 1))
    safe = where(small, zeros + 1, targets)    # log() only where the branch is taken
    stirling = safe * log(safe) - safe + 0.5 * log(2 * math.pi * safe)
    return result + where(small, zeros, stirling)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight``, in the
    stable form ``(1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + max(-x, 0))``."""
    logits, labels, pos_weight = convert_same(logits, labels, pos_weight)
    if logits._value.shape != labels._value.shape:
        raise ValueError("weighted_cross_entropy_with_logits: logits and labels must have "
                         "the same shape (%s vs %s)" % (list(logits._value.shape),
                                                        list(labels._value.shape)))
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (log1p(exp(-abs(logits))) + relu(-logits))


# ---- moments ------------------------------------------------------------------------------

def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """``(count, sum(x - shift), sum((x - shift)^2), shift)`` over ``axes`` (the moments
    before division; ``shift`` None sums ``x`` itself)."""
    x = _float("sufficient_statistics", x)
    axes = normalize_axis("sufficient_statistics", axes, x._value.ndim) or ()
    count = _core.wrap(np.array(np.prod([x._value.shape[a] for a in axes]),
                                x._value.dtype))
    if shift is not None:
        shift = convert_same(x, shift)[1]
        centred = x - shift
    else:
        centred = x
    m_ss = reduce_sum(centred, axes, keepdims=bool(keepdims))
    v_ss = reduce_sum(square(centred), axes, keepdims=bool(keepdims))
    return count, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """``(mean, variance)`` from ``sufficient_statistics``'s sums."""
    mean_ss, counts, variance_ss = convert_same(mean_ss, counts, variance_ss)
    shifted_mean = mean_ss / counts
    mean = shifted_mean if shift is None else shifted_mean + convert_same(mean_ss, shift)[1]
    return mean, variance_ss / counts - square(shifted_mean)


# ---- local response normalization ---------------------------------------------------------

def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                                 name=None):
    """``x / (bias + alpha * sum(x^2 over the 2r+1 nearest channels)) ** beta`` (NHWC)."""
    x = _float("local_response_normalization", input)
    if x._value.ndim != 4:
        raise InvalidArgumentError("local_response_normalization: input must be 4-D (got "
                                   "shape %s)" % list(x._value.shape))
    r = as_int("local_response_normalization", depth_radius, "depth_radius")
    if r < 0:
        raise InvalidArgumentError("local_response_normalization: depth_radius must be >= 0 "
                                   "(got %d)" % r)
    c = x._value.shape[-1]
    padded = pad(square(x), [[0, 0]] * 3 + [[r, r]])
    sqr_sum = None
    for k in range(2 * r + 1):      # the window as 2r+1 shifted channel slices
        part = execute(getitem, padded, key=(Ellipsis, slice(k, k + c)))
        sqr_sum = part if sqr_sum is None else sqr_sum + part
    return x * exp(-beta * log(bias + alpha * sqr_sum))


lrn = local_response_normalization


# ---- convolutions -------------------------------------------------------------------------

def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,
                     data_format=None, dilations=None, name=None):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution mixing channels."""
    fmt = data_format or "NHWC"
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format=fmt,
                                 dilations=dilations)
    return conv2d(depthwise, pointwise_filter, 1, "VALID", data_format=fmt)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",
                     dilations=None, name=None):
    """The transpose of ``conv1d`` (``filters`` is [width, out_channels, in_channels]),
    computed as ``conv2d_transpose`` of a height-1 image."""
    if data_format not in ("NWC", "NCW"):
        raise InvalidArgumentError("conv1d_transpose: data_format must be 'NWC' or 'NCW' "
                                   "(got %r)" % (data_format,))
    x = _float("conv1d_transpose", input)
    w = _float("conv1d_transpose", filters)
    if x._value.ndim != 3 or w._value.ndim != 3:
        raise InvalidArgumentError("conv1d_transpose: input and filters must be 3-D (got %s "
                                   "and %s)" % (list(x._value.shape), list(w._value.shape)))
    shape = [int(d) for d in np.asarray(output_shape).tolist()]
    if len(shape) != 3:
        raise InvalidArgumentError("conv1d_transpose: output_shape must have 3 entries (got "
                                   "%r)" % (output_shape,))
    if data_format == "NCW":
        x = transpose(x, (0, 2, 1))
        shape = [shape[0], shape[2], shape[1]]
    s = _single("conv1d_transpose", "strides", strides)
    d = 1 if dilations is None else _single("conv1d_transpose", "dilations", dilations)
    n, width, c = x._value.shape
    y = conv2d_transpose(reshape(x, (n, 1, width, c)), reshape(w, (1,) + w._value.shape),
                         [shape[0], 1, shape[1], shape[2]], (1, s), padding, dilations=(1, d))
    y = reshape(y, shape)
    return transpose(y, (0, 2, 1)) if data_format == "NCW" else y


def _single(opname, argname, v):
    vals = np.asarray(v).reshape(-1).tolist()
    if len(vals) == 3 and vals[0] == 1 and vals[2] == 1:
        vals = vals[1:2]
    if len(vals) != 1:
        raise InvalidArgumentError("%s: %s must be an int or [1, s, 1] (got %r)"
                                   % (opname, argname, v))
    return int(vals[0])


# ---- pooling ------------------------------------------------------------------------------

def _per_dim(opname, argname, v, rank):
    vals = [int(i) for i in np.asarray(1 if v is None else v).reshape(-1).tolist()]
    if len(vals) == 1:
        vals = vals * rank
    if len(vals) != rank or min(vals) < 1:
        raise InvalidArgumentError("%s: %s must be %d positive ints (got %r)"
                                   % (opname, argname, rank, v))
    return vals


def _tap_geometry(spatial, window, strides, padding, dilations):
    """(pads, output sizes) of a windowed op over channels-last spatial dims (TF's rule:
    SAME puts the odd cell of padding after)."""
    pads, outs = [], []
    for size, k, s, d in zip(spatial, window, strides, dilations):
        span = (k - 1) * d + 1
        if padding == "VALID":
            out = max(-(-(size - span + 1) // s), 0)
            pads.append((0, 0))
        else:
            out = -(-size // s)
            total = max((out - 1) * s + span - size, 0)
            pads.append((total // 2, total - total // 2))
        outs.append(out)
    return pads, outs


def _taps(window, strides, dilations, outs):
    """For each window tap: (tap, the strided spatial slices it reads of the padded input)."""
    for tap in itertools.product(*[range(k) for k in window]):
        yield tap, tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                         for t, d, o, s in zip(tap, dilations, outs, strides))


def _taps_pool(x, window, strides, padding, dilations, pooling_type):
    """Pooling of channels-last ``x`` as one strided slice per window tap."""
    spatial = x._value.shape[1:-1]
    pads, outs = _tap_geometry(spatial, window, strides, padding, dilations)
    widths = [[0, 0]] + [list(p) for p in pads] + [[0, 0]]
    is_max = pooling_type == "MAX"
    fill = np.finfo(x._value.dtype).min if is_max else 0
    padded = pad(x, widths, constant_values=fill) if any(map(any, pads)) else x
    inside = np.pad(np.ones(spatial, np.float64), pads)     # cells of the input, for AVG
    total, count = None, 0
    for _, key in _taps(window, strides, dilations, outs):
        part = execute(getitem, padded, key=(slice(None),) + key + (slice(None),))
        if total is None:
            total = part
        else:
            total = maximum(total, part) if is_max else total + part
        count = count + inside[key]
    if is_max:
        return total
    count = count.reshape((1,) + count.shape + (1,)).astype(x._value.dtype)
    return total / _core.wrap(count)


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    """3-D convolution of NDHWC ``input`` with [d, h, w, in, out] ``filters``: one matmul
    per filter tap over a strided slice of the (padded) input, summed."""
    if data_format not in ("NDHWC", "NCDHW"):
        raise InvalidArgumentError("conv3d: data_format must be 'NDHWC' or 'NCDHW' (got %r)"
                                   % (data_format,))
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError("conv3d: padding must be 'SAME' or 'VALID' (got %r)"
                                   % (padding,))
    x = _float("conv3d", input)
    w = convert_same(x, filters)[1]
    if x._value.ndim != 5 or w._value.ndim != 5:
        raise InvalidArgumentError("conv3d: input and filters must be 5-D (got %s and %s)"
                                   % (list(x._value.shape), list(w._value.shape)))
    if data_format == "NCDHW":
        x = transpose(x, (0, 2, 3, 4, 1))
    c_in, c_out = w._value.shape[3:]
    if x._value.shape[-1] != c_in:
        raise InvalidArgumentError("conv3d: input depth %d does not match the filters' %d "
                                   "input channels" % (x._value.shape[-1], c_in))
    strides = _spatial3("strides", "conv3d", strides, data_format)
    dilations = _spatial3("dilations", "conv3d", 1 if dilations is None else dilations,
                          data_format)
    if max(strides) > 1 and max(dilations) > 1:
        raise InvalidArgumentError("conv3d: strides > 1 together with dilations > 1 is not "
                                   "supported (got %s and %s)" % (strides, dilations))
    window = list(w._value.shape[:3])
    pads, outs = _tap_geometry(x._value.shape[1:4], window, strides, padding, dilations)
    if min(outs) <= 0:
        raise InvalidArgumentError("conv3d: the filter window is larger than the input "
                                   "(filters %s, input %s)"
                                   % (window, list(x._value.shape[1:4])))
    padded = pad(x, [[0, 0]] + [list(p) for p in pads] + [[0, 0]])
    n = x._value.shape[0]
    total = None
    for tap, key in _taps(window, strides, dilations, outs):
        part = execute(getitem, padded, key=(slice(None),) + key + (slice(None),))
        term = matmul(reshape(part, (-1, c_in)), execute(getitem, w, key=tap))
        total = term if total is None else total + term
    y = reshape(total, [n] + outs + [c_out])
    return transpose(y, (0, 4, 1, 2, 3)) if data_format == "NCDHW" else y


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NDHWC", dilations=None, name=None):
    """The transpose (adjoint) of ``conv3d``: ``filters`` is [d, h, w, out, in]; each filter
    tap's matmul is scatter-added at its strided slice of the (padded) output."""
    if data_format not in ("NDHWC", "NCDHW"):
        raise InvalidArgumentError("conv3d_transpose: data_format must be 'NDHWC' or "
                                   "'NCDHW' (got %r)" % (data_format,))
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError("conv3d_transpose: padding must be 'SAME' or 'VALID' "
                                   "(got %r)" % (padding,))
    x = _float("conv3d_transpose", input)
    w = convert_same(x, filters)[1]
    if x._value.ndim != 5 or w._value.ndim != 5:
        raise InvalidArgumentError("conv3d_transpose: input and filters must be 5-D (got %s "
                                   "and %s)" % (list(x._value.shape), list(w._value.shape)))
    shape = [int(d) for d in np.asarray(output_shape).reshape(-1).tolist()]
    if len(shape) != 5:
        raise InvalidArgumentError("conv3d_transpose: output_shape must have 5 entries (got "
                                   "%r)" % (output_shape,))
    if data_format == "NCDHW":
        x = transpose(x, (0, 2, 3, 4, 1))
        shape = [shape[0]] + shape[2:] + [shape[1]]
    c_out, c_in = w._value.shape[3:]
    if x._value.shape[-1] != c_in or shape[-1] != c_out:
        raise InvalidArgumentError("conv3d_transpose: filters [.., %d, %d] do not match the "
                                   "input's %d channels and output_shape's %d"
                                   % (c_out, c_in, x._value.shape[-1], shape[-1]))
    strides = _spatial3("strides", "conv3d_transpose", strides, data_format)
    dilations = _spatial3("dilations", "conv3d_transpose", 1 if dilations is None
                          else dilations, data_format)
    window = list(w._value.shape[:3])
    pads, outs = _tap_geometry(shape[1:4], window, strides, padding, dilations)
    if outs != list(x._value.shape[1:4]) or shape[0] != x._value.shape[0]:
        raise InvalidArgumentError("conv3d_transpose: output_shape %s does not give the "
                                   "input's shape %s under conv3d (it gives %s)"
                                   % (shape, list(x._value.shape), [shape[0]] + outs + [c_in]))
    padded_shape = tuple([shape[0]] + [n + a + b for n, (a, b) in zip(shape[1:4], pads)]
                         + [c_out])
    flat = reshape(x, (-1, c_in))
    total = None
    for tap, key in _taps(window, strides, dilations, outs):
        part = reshape(matmul(flat, execute(getitem, w, key=tap), transpose_b=True),
                       [shape[0]] + outs + [c_out])
        placed = execute(_index_backward, part, key=(slice(None),) + key + (slice(None),),
                         shape=padded_shape)
        total = placed if total is None else total + placed
    y = execute(getitem, total, key=(slice(None),) + tuple(
        slice(a, a + n) for n, (a, _) in zip(shape[1:4], pads)) + (slice(None),))
    return transpose(y, (0, 4, 1, 2, 3)) if data_format == "NCDHW" else y


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,
                   dilations=None, name=None):
    """conv1d_transpose, conv2d_transpose or conv3d_transpose, by the rank of ``input``."""
    x = convert_to_tensor(input)
    rank = x._value.ndim
    if rank not in (3, 4, 5):
        raise InvalidArgumentError("conv_transpose: input must be 3-D, 4-D or 5-D (got shape "
                                   "%s)" % list(x._value.shape))
    fn, default = {3: (conv1d_transpose, "NWC"), 4: (conv2d_transpose, "NHWC"),
                   5: (conv3d_transpose, "NDHWC")}[rank]
    return fn(x, filters, output_shape, strides, padding, data_format or default, dilations)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with the filter taps ``rate`` apart (dilations = rate)."""
    return conv2d(value, filters, 1, padding, dilations=as_int("atrous_conv2d", rate, "rate"))


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """``(mean, variance)`` of ``x`` over ``axes`` with each entry counted
    ``frequency_weights`` times (broadcast against ``x``); the variance's gradient treats the
    mean as a constant, as TensorFlow's."""
    from .array_ops import squeeze, stop_gradient
    from .math_ops import divide_no_nan, squared_difference
    x = _float("weighted_moments", x)
    w = convert_same(x, frequency_weights)[1]
    axes = normalize_axis("weighted_moments", axes, x._value.ndim) or ()
    total = reduce_sum(w * x, axes, keepdims=True)
    weight_sum = reduce_sum(w + zeros_like(x), axes, keepdims=True)
    mean = divide_no_nan(total, weight_sum)
    spread = reduce_sum(w * squared_difference(x, stop_gradient(mean)), axes, keepdims=True)
    variance = divide_no_nan(spread, weight_sum)
    if keepdims:
        return mean, variance
    return squeeze(mean, list(axes)), squeeze(variance, list(axes))


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,
         dilations=None, name=None):
    """Max or average pooling over N-D windows (N = 1, 2 or 3), with strides or dilations
    (not both; dilations with VALID padding only), as ``tf.nn.pool``; SAME average pooling
    divides by the cells inside the input.

    >>> fe.nn.pool(fe.reshape(fe.range(16.), [1, 4, 4, 1]), [2, 2], "AVG",
    ...            strides=[2, 2])[0, :, :, 0].numpy()
    array([[ 2.5,  4.5],
           [10.5, 12.5]], dtype=float32)
    """
    x = _float("pool", input)
    rank = x._value.ndim - 2
    if rank not in (1, 2, 3):
        raise InvalidArgumentError("pool: input must be 3-D, 4-D or 5-D (got shape %s)"
                                   % list(x._value.shape))
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError("pool: pooling_type must be 'MAX' or 'AVG' (got %r)" % (pooling_type,))
    if padding not in ("SAME", "VALID"):
        raise ValueError("pool: padding must be 'SAME' or 'VALID' (got %r)" % (padding,))
    window = _per_dim("pool", "window_shape", window_shape, rank)
    strides = _per_dim("pool", "strides", strides, rank)
    dilations = _per_dim("pool", "dilations", dilations, rank)
    if max(strides) > 1 and max(dilations) > 1:
        raise ValueError("pool: strides > 1 not supported in conjunction with dilations > 1 "
                         "(got strides %s and dilations %s)" % (strides, dilations))
    if padding == "SAME" and max(dilations) > 1:
        raise ValueError("pool: pooling with 'SAME' padding is not implemented for "
                         "dilations > 1 (got dilations %s)" % (dilations,))
    channels_first = data_format is not None and data_format.startswith("NC")
    if channels_first:
        x = transpose(x, (0,) + tuple(range(2, rank + 2)) + (1,))
    if max(dilations) == 1 and rank < 3:
        fn = {("MAX", 1): max_pool1d, ("AVG", 1): avg_pool1d, ("MAX", 2): max_pool2d,
              ("AVG", 2): avg_pool2d}[pooling_type, rank]
        y = fn(x, window, strides, padding)
    else:
        y = _taps_pool(x, window, strides, padding, dilations, pooling_type)
    if channels_first:
        y = transpose(y, (0, rank + 1) + tuple(range(1, rank + 1)))
    return y


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Max over 3-D windows of NDHWC ``input``."""
    return _pool3d("max_pool3d", "MAX", input, ksize, strides, padding, data_format)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Mean over 3-D windows (with 'SAME', over the cells inside the input)."""
    return _pool3d("avg_pool3d", "AVG", input, ksize, strides, padding, data_format)


def _pool3d(opname, kind, input, ksize, strides, padding, data_format):
    if data_format not in ("NDHWC", "NCDHW"):
        raise InvalidArgumentError("%s: data_format must be 'NDHWC' or 'NCDHW' (got %r)"
                                   % (opname, data_format))
    x = _float(opname, input)
    if x._value.ndim != 5:
        raise InvalidArgumentError("%s: input must be 5-D (got shape %s)"
                                   % (opname, list(x._value.shape)))
    k, s = _spatial3("ksize", opname, ksize, data_format), _spatial3("strides", opname,
                                                                     strides, data_format)
    return pool(x, k, kind, strides=s, padding=padding, data_format=data_format)


def _spatial3(argname, opname, v, data_format):
    vals = [int(i) for i in np.asarray(v).reshape(-1).tolist()]
    if len(vals) == 5:
        lo = 1 if data_format == "NDHWC" else 2
        vals = vals[lo:lo + 3]
    if len(vals) == 1:
        vals = vals * 3
    if len(vals) != 3:
        raise InvalidArgumentError("%s: %s must be 1, 3 or 5 ints (got %r)"
                                   % (opname, argname, v))
    return vals


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",
                         output_dtype=np.int64, include_batch_in_index=False, name=None):
    """``(output, argmax)``: 2-D max pooling and the flat index of each window's maximum
    (``(y * width + x) * channels + c``, plus ``b * height * width * channels`` with
    ``include_batch_in_index``); the first maximum in row-major window order wins."""
    from ..dtypes import as_dtype
    if data_format != "NHWC":
        raise InvalidArgumentError("max_pool_with_argmax: data_format must be 'NHWC' (got %r)"
                                   % (data_format,))
    x = _float("max_pool_with_argmax", input)
    out = max_pool2d(x, ksize, strides, padding)
    v = x._value
    n, h, w, c = v.shape
    kh, kw = _per_dim("max_pool_with_argmax", "ksize", _hw_only(ksize), 2)
    sh, sw = _per_dim("max_pool_with_argmax", "strides", _hw_only(strides), 2)
    oh, ow = out._value.shape[1:3]
    top = max((oh - 1) * sh + kh - h, 0) // 2 if padding == "SAME" else 0
    left = max((ow - 1) * sw + kw - w, 0) // 2 if padding == "SAME" else 0
    best = np.full((n, oh, ow, c), -np.inf)
    arg = np.zeros((n, oh, ow, c), np.int64)
    rows = np.arange(oh)[:, None] * sh - top
    cols = np.arange(ow)[None, :] * sw - left
    for i in range(kh):         # taps in row-major order; strictly greater keeps the first
        for j in range(kw):
            y, xx = rows + i, cols + j
            ok = (y >= 0) & (y < h) & (xx >= 0) & (xx < w)
            vals = v[:, np.clip(y, 0, h - 1), np.clip(xx, 0, w - 1), :]
            better = ok[None, :, :, None] & (vals > best)
            best = np.where(better, vals, best)
            flat = (np.clip(y, 0, h - 1) * w + np.clip(xx, 0, w - 1))[None, :, :, None] * c
            arg = np.where(better, flat + np.arange(c), arg)
    if include_batch_in_index:
        arg = arg + (np.arange(n) * h * w * c)[:, None, None, None]
    return MaxPoolWithArgmax(out, _core.wrap(arg.astype(as_dtype(output_dtype)._np)))


def _hw_only(v):
    vals = np.asarray(v).reshape(-1).tolist()
    return vals[1:3] if len(vals) == 4 else vals


MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


# ---- more convolution wrappers, morphology, sequence helpers ------------------------------

def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of ``atrous_conv2d``: conv2d_transpose with dilations = rate."""
    return conv2d_transpose(value, filters, output_shape, 1, padding,
                            dilations=as_int("atrous_conv2d_transpose", rate, "rate"))


def _depthwise_attrs(opname, strides, padding, data_format, dilations):
    from .conv_ops import _hw, _padding
    if data_format != "NHWC":
        raise InvalidArgumentError("%s: only data_format='NHWC' is supported (got %r)"
                                   % (opname, data_format))
    return {"strides": _hw(opname, "strides", strides, "NHWC"),
            "padding": _padding(opname, padding),
            "dilations": _hw(opname, "dilations", dilations, "NHWC")}


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                    data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``depthwise_conv2d`` with respect to its input (of shape
    ``input_sizes``)."""
    from .conv_ops import depthwise_backprop_input_op
    attrs = _depthwise_attrs("depthwise_conv2d_backprop_input", strides, padding,
                             data_format, dilations)
    dy, w = convert_same(out_backprop, filter)
    shape = tuple(int(d) for d in np.asarray(input_sizes).reshape(-1).tolist())
    return execute(depthwise_backprop_input_op, dy, w, input_shape=shape, **attrs)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                     data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``depthwise_conv2d`` with respect to its filter (of shape
    ``filter_sizes``)."""
    from .conv_ops import depthwise_backprop_filter_op
    attrs = _depthwise_attrs("depthwise_conv2d_backprop_filter", strides, padding,
                             data_format, dilations)
    x, dy = convert_same(input, out_backprop)
    shape = tuple(int(d) for d in np.asarray(filter_sizes).reshape(-1).tolist())
    return execute(depthwise_backprop_filter_op, x, dy, filter_shape=shape, **attrs)


def dilation2d(input, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological dilation: the max over each window of ``input + filters``
    (``filters`` is [h, w, channels]); taps outside a SAME-padded input do not count."""
    from .conv_ops import _hw
    if data_format != "NHWC":
        raise ValueError("dilation2d: data_format must be 'NHWC' (got %r)" % (data_format,))
    x = _float("dilation2d", input)
    w = convert_same(x, filters)[1]
    if x._value.ndim != 4 or w._value.ndim != 3 or w._value.shape[-1] != x._value.shape[-1]:
        raise InvalidArgumentError("dilation2d: input must be [batch, h, w, c] and filters "
                                   "[h, w, c] (got %s and %s)"
                                   % (list(x._value.shape), list(w._value.shape)))
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError("dilation2d: padding must be 'SAME' or 'VALID' (got %r)"
                                   % (padding,))
    strides = list(_hw("dilation2d", "strides", strides, "NHWC"))
    rates = list(_hw("dilation2d", "dilations", dilations, "NHWC"))
    window = list(w._value.shape[:2])
    pads, outs = _tap_geometry(x._value.shape[1:3], window, strides, padding, rates)
    widths = [[0, 0]] + [list(p) for p in pads] + [[0, 0]]
    padded = pad(x, widths, constant_values=-np.inf) if any(map(any, pads)) else x
    total = None
    for tap, key in _taps(window, strides, rates, outs):
        part = execute(getitem, padded, key=(slice(None),) + key + (slice(None),)) + \
            execute(getitem, w, key=tap)
        total = part if total is None else maximum(total, part)
    return total


def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological erosion: ``-dilation2d(-value, reversed filters)``."""
    from .array_ops import reverse
    w = convert_to_tensor(filters)
    return -dilation2d(-convert_to_tensor(value), reverse(w, [0, 1]), strides, padding,
                       data_format, dilations)


def collapse_repeated(labels, seq_length, name=None):
    """``(collapsed, new_lengths)``: each row's runs of repeated labels (within its
    ``seq_length``) merged into one, left-aligned and zero-padded to the longest row."""
    lab = _core.data_of(convert_to_tensor(labels), "collapse_repeated")
    lengths = np.asarray(_core.data_of(convert_to_tensor(seq_length), "collapse_repeated"))
    if lab.ndim != 2 or lengths.shape != (lab.shape[0],):
        raise InvalidArgumentError("collapse_repeated: labels must be [batch, time] and "
                                   "seq_length [batch] (got %s and %s)"
                                   % (list(lab.shape), list(lengths.shape)))
    rows = []
    for row, n in zip(lab, lengths):
        row = row[:int(n)]
        keep = np.ones(row.shape, bool)
        keep[1:] = row[1:] != row[:-1]
        rows.append(row[keep])
    width = max((r.size for r in rows), default=0)
    out = np.zeros((lab.shape[0], width), lab.dtype)
    for i, r in enumerate(rows):
        out[i, :r.size] = r
    return (_core.wrap(out),
            _core.wrap(np.array([r.size for r in rows], lengths.dtype)))


def batch_norm_with_global_normalization(input, mean, variance, beta, gamma,
                                         variance_epsilon, scale_after_normalization,
                                         name=None):
    """``batch_normalization`` with ``gamma`` applied only if ``scale_after_normalization``
    (TensorFlow 1's argument order)."""
    from .nn_ops import batch_normalization
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None,
                               variance_epsilon)
