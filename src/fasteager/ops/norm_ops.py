"""Fused batch normalisation: the training forward, its backward, and the inference affine.

The kernels (``fasteager._norm``) work on channels-last data seen as ``(rows, C)``: the
statistics are over every axis but the last. Three ops:

    fused_batch_norm(x, scale, offset)            -> (y, mean, variance)    training
    fused_batch_norm_grad(dy, x, scale, mean, variance, gmean, gvar) -> (dx, dscale, doffset)
    batch_norm_inference(x, mean, variance, scale, offset)  -> y            given statistics

``fused_batch_norm`` returns the batch's mean and biased variance (what Keras 3 puts into
its moving averages; the saved statistics of the backward pass). Its gradient is one
call of ``fused_batch_norm_grad`` (two passes over the data). That kernel has no
derivative of its own: when an outer tape records the gradient computation (a second
derivative is coming), the gradient is composed of differentiable ops instead, the
same formula, so derivatives of every order exist.

``fused_batch_norm_v1`` is ``fe.compat.v1.nn.fused_batch_norm`` (TensorFlow's signature:
NHWC or NCHW, training or inference, ``exponential_avg_factor``).

Below them, the composites of ``tf.nn``'s normalization family: ``moments``,
``batch_normalization``, ``sufficient_statistics``/``normalize_moments``,
``weighted_moments``, local response normalization and
``batch_norm_with_global_normalization``.
"""


import numpy as np

from .. import _core, _norm
from ..dtypes import float32
from ..errors import InvalidArgumentError
from .array_ops import getitem, pad, reshape, squeeze, stop_gradient, transpose, zeros_like
from .conv_ops import _float, _kernel_call
from .elementwise_ops import (cast, convert_same, divide_no_nan, exp, log, rsqrt, square,
                              squared_difference)
from .nn_ops import _float_input
from .reduction_ops import reduce_mean, reduce_sum
from .registry import as_bool, as_int, defop, execute, FLOAT, normalize_axis

convert_to_tensor = _core.convert_to_tensor


def _err(opname, what):
    return InvalidArgumentError("%s: %s" % (opname, what))


def _check_params(opname, x, named):
    """x of rank >= 2 (channels last); each named vector of shape (C,)."""
    if x.ndim < 2:
        raise _err(opname, "x must have rank >= 2 with the channels last (got shape %s)"
                   % list(x.shape))
    C = x.shape[-1]
    for argname, v in named:
        if tuple(v.shape) != (C,):
            raise _err(opname, "%s must have one entry per channel (expected shape [%d], got "
                       "%s)" % (argname, C, list(v.shape)))


def _rows(a):
    """A channels-last array as a C-contiguous (rows, C) view (a copy only if needed)."""
    return np.ascontiguousarray(a).reshape(int(np.prod(a.shape[:-1])), a.shape[-1])


def _epsilon(opname, epsilon):
    eps = float(epsilon)
    if not eps > 0:
        raise _err(opname, "epsilon must be positive (got %r)" % (epsilon,))
    return eps


# ---- training forward ------------------------------------------------------------------

def _check_fbn(x, scale, offset, epsilon=1e-3):
    _check_params("fused_batch_norm", x, [("scale", scale), ("offset", offset)])
    _epsilon("fused_batch_norm", epsilon)


def _fbn_fwd(x, scale, offset, epsilon=1e-3):
    y, mean, var = _kernel_call("fused_batch_norm", _norm.batch_norm_train, _rows(x), scale,
                                offset, float(epsilon))
    return y.reshape(x.shape), mean, var


def _fbn_grad(g, ans, inputs, attrs, needs):
    x, scale, _ = inputs
    _, mean, var = ans
    gy, gmean, gvar = g
    eps = attrs.get("epsilon", 1e-3)
    if gy is None:
        gy = zeros_like(x)
    if _core.any_tape_recording():    # a derivative of this gradient may follow
        return _fbn_grad_composite(gy, gmean, gvar, x, scale, mean, var, eps)
    zeros = None
    if gmean is None or gvar is None:
        zeros = convert_to_tensor(np.zeros(mean.shape.as_list(), mean.dtype.as_numpy_dtype))
    dx, dscale, doffset = execute(fused_batch_norm_grad_op, gy, x, scale, mean, var,
                                  zeros if gmean is None else gmean,
                                  zeros if gvar is None else gvar, epsilon=eps)
    return [dx, dscale, doffset]


def _fbn_grad_composite(gy, gmean, gvar, x, scale, mean, var, eps):
    # xhat = (x - mean) inv, inv = 1 / sqrt(var + eps), M rows:
    # doffset = sum dy, dscale = sum dy xhat,
    # dx = scale inv (dy - doffset / M - xhat dscale / M) + gmean / M + 2 gvar (x - mean) / M
    axes = list(range(len(x.shape) - 1))
    rows = float(np.prod(x.shape.as_list()[:-1]))
    inv = rsqrt(var + eps)
    xc = x - mean
    xhat = xc * inv
    doffset = reduce_sum(gy, axes)
    dscale = reduce_sum(gy * xhat, axes)
    dx = (scale * inv) * (gy - doffset / rows - xhat * (dscale / rows))
    if gmean is not None:
        dx = dx + gmean / rows
    if gvar is not None:
        dx = dx + xc * (gvar * (2.0 / rows))
    return [dx, dscale, doffset]


fused_batch_norm_op = defop("fused_batch_norm", _fbn_fwd, kinds=FLOAT, multi=True,
                            check=_check_fbn, nin=3, attrs=("epsilon",),
                            joint_grad=_fbn_grad)
# the tape hands None for outputs nothing used (mean and variance, usually)
fused_batch_norm_op.none_output_grads = True


def _check_fbn_grad(dy, x, scale, mean, variance, gmean, gvar, epsilon=1e-3):
    _check_params("fused_batch_norm_grad", x, [("scale", scale), ("mean", mean),
                                               ("variance", variance), ("gmean", gmean),
                                               ("gvar", gvar)])
    if dy.shape != x.shape:
        raise _err("fused_batch_norm_grad", "dy must have x's shape (expected %s, got %s)"
                   % (list(x.shape), list(dy.shape)))
    _epsilon("fused_batch_norm_grad", epsilon)


def _fbn_grad_fwd(dy, x, scale, mean, variance, gmean, gvar, epsilon=1e-3):
    dx, dscale, doffset = _kernel_call("fused_batch_norm_grad", _norm.batch_norm_grad,
                                       _rows(dy), _rows(x), scale, mean, variance, gmean,
                                       gvar, float(epsilon))
    return dx.reshape(x.shape), dscale, doffset


# inputs: dy, x, scale and the forward's saved mean and variance, then the gradients of
# its mean and variance outputs; outputs (dx, dscale, doffset)
fused_batch_norm_grad_op = defop(
    "fused_batch_norm_grad", _fbn_grad_fwd, kinds=FLOAT, multi=True, check=_check_fbn_grad,
    nin=7, attrs=("epsilon",),
    no_grad="the fused backward kernel of fused_batch_norm, used only when no tape records "
            "the gradient computation; under a recording tape fused_batch_norm's gradient "
            "is composed of differentiable ops")


# ---- inference: the statistics are given ----------------------------------------------

def _check_bni(x, mean, variance, scale, offset, epsilon=1e-3):
    _check_params("batch_norm_inference", x, [("mean", mean), ("variance", variance),
                                              ("scale", scale), ("offset", offset)])
    _epsilon("batch_norm_inference", epsilon)


def _bni_fwd(x, mean, variance, scale, offset, epsilon=1e-3):
    y = _kernel_call("batch_norm_inference", _norm.batch_norm_affine, _rows(x), mean,
                     variance, scale, offset, float(epsilon))
    return y.reshape(x.shape)


def _bni_grad(g, ans, inputs, attrs, needs):
    # y = (x - mean) k + offset, k = scale inv, inv = 1 / sqrt(var + eps):
    # dx = g k, dmean = -sum g k, dvar = -sum g (x - mean) scale inv^3 / 2,
    # dscale = sum g (x - mean) inv, doffset = sum g
    x, mean, var, scale, _ = inputs
    axes = list(range(len(x.shape) - 1))
    inv = rsqrt(var + attrs.get("epsilon", 1e-3))
    k = scale * inv
    out = [None] * 5
    if needs[0]:
        out[0] = g * k
    if needs[1] or needs[4]:
        gsum = reduce_sum(g, axes)
        out[1] = -gsum * k if needs[1] else None
        out[4] = gsum if needs[4] else None
    if needs[2] or needs[3]:
        gxc = reduce_sum(g * (x - mean), axes)
        out[2] = gxc * scale * (inv * inv * inv) * -0.5 if needs[2] else None
        out[3] = gxc * inv if needs[3] else None
    return out


batch_norm_inference_op = defop("batch_norm_inference", _bni_fwd, kinds=FLOAT,
                                check=_check_bni, nin=5, attrs=("epsilon",),
                                joint_grad=_bni_grad)


# ---- public functions ------------------------------------------------------------------

def fused_batch_norm_train(x, scale, offset, epsilon=1e-3):
    """Training batch normalisation of channels-last ``x`` in one fused op:
    ``(y, mean, variance)``, the batch's mean and biased variance over every axis but the
    last."""
    x, scale, offset = convert_same(x, scale, offset)
    return execute(fused_batch_norm_op, x, scale, offset, epsilon=epsilon)


def batch_norm_inference(x, mean, variance, scale, offset, epsilon=1e-3):
    """``(x - mean) * scale / sqrt(variance + epsilon) + offset`` over the last axis of
    ``x``, with given per-channel statistics, in one pass."""
    x, mean, variance, scale, offset = convert_same(x, mean, variance, scale, offset)
    return execute(batch_norm_inference_op, x, mean, variance, scale, offset, epsilon=epsilon)


def fused_batch_norm_v1(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                        data_format="NHWC", is_training=True, name=None,
                        exponential_avg_factor=1.0):
    """``tf.compat.v1.nn.fused_batch_norm``: ``(y, running_mean, running_var)``.

    ``x`` is 4-D or 5-D, NHWC/NDHWC or NCHW/NCDHW. Training normalises with the batch's
    statistics and returns them, the variance with Bessel's correction (``n / (n - 1)``)
    as TensorFlow's kernel does; with ``exponential_avg_factor`` ``f`` below 1 they are
    blended into the given ``mean``/``variance``: ``(1 - f) * old + f * batch``. In
    inference ``mean`` and ``variance`` are required and returned as given.
    """
    fname = "fused_batch_norm"
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        raise _err(fname, "x must be floating (expected float16, float32 or float64, got %s)"
                   % x._value.dtype)
    rank = len(x.shape)
    if rank not in (4, 5):
        raise _err(fname, "x must be 4-D or 5-D (got rank %d)" % rank)
    channels_first = {"NHWC": False, "NDHWC": False, "NCHW": True, "NCDHW": True}.get(
        data_format)
    if channels_first is None or len(data_format) != rank:
        raise _err(fname, "data_format must be %s for a rank-%d x (got %r)"
                   % (" or ".join(("NHWC", "NCHW") if rank == 4 else ("NDHWC", "NCDHW")),
                      rank, data_format))
    factor = float(exponential_avg_factor)
    if not 0.0 < factor <= 1.0:
        raise _err(fname, "exponential_avg_factor must be in (0, 1] (got %r)"
                   % (exponential_avg_factor,))
    needs_stats = not is_training or factor != 1.0
    if needs_stats and (mean is None or variance is None):
        raise _err(fname, "mean and variance are required %s (got None)"
                   % ("for inference" if not is_training else "with exponential_avg_factor "
                      "!= 1"))
    # statistics and parameters in the parameters' dtype (float32 for float16 data, as TF)
    pdt = float32 if x._value.dtype == np.float16 else x.dtype
    scale, offset = cast(scale, pdt), cast(offset, pdt)
    xc = cast(x, pdt) if x.dtype != pdt else x
    if channels_first:
        xc = transpose(xc, [0] + list(range(2, rank)) + [1])
    if is_training:
        y, batch_mean, batch_var = fused_batch_norm_train(xc, scale, offset, epsilon)
        n = float(np.prod(xc.shape.as_list()[:-1]))
        batch_var = batch_var * (n / max(n - 1.0, 1.0))
        if factor != 1.0:
            mean, variance = cast(mean, pdt), cast(variance, pdt)
            batch_mean = mean * (1.0 - factor) + batch_mean * factor
            batch_var = variance * (1.0 - factor) + batch_var * factor
    else:
        mean, variance = cast(mean, pdt), cast(variance, pdt)
        y = batch_norm_inference(xc, mean, variance, scale, offset, epsilon)
        batch_mean, batch_var = mean, variance
    if channels_first:
        y = transpose(y, [0, rank - 1] + list(range(1, rank - 1)))
    if y.dtype != x.dtype:
        y = cast(y, x.dtype)
    return y, batch_mean, batch_var




# ---- moments and batch normalization (composites) -------------------------------------------

def moments(x, axes, shift=None, keepdims=False, name=None):
    """``(mean, variance)`` of ``x`` over ``axes``.

    Composite: the variance is the mean of ``(x - mean)^2`` with the mean differentiated
    too, so second derivatives are exact.
    """
    x = _float_input("moments", x)
    axes = normalize_axis("moments", axes, x._value.ndim)
    mean = reduce_mean(x, axes, keepdims=True)
    variance = reduce_mean(squared_difference(x, mean), axes, keepdims=True)
    if not as_bool("moments", keepdims, "keepdims"):
        shape = [d for i, d in enumerate(x._value.shape) if i not in (axes or range(99))]
        mean, variance = reshape(mean, shape), reshape(variance, shape)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) * scale / sqrt(variance + eps) + offset`` (offset, scale may be None)."""
    x = _float_input("batch_normalization", x)
    mean, variance = convert_same(x, mean, variance)[1:]
    inv = rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * convert_same(x, scale)[1]
    shift = -(mean * inv) if offset is None else convert_same(x, offset)[1] - mean * inv
    return x * inv + shift


# ---- sufficient statistics ------------------------------------------------------------------

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


# ---- weighted moments, batch norm with global normalization ---------------------------------

def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """``(mean, variance)`` of ``x`` over ``axes`` with each entry counted
    ``frequency_weights`` times (broadcast against ``x``); the variance's gradient treats the
    mean as a constant, as TensorFlow's."""
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


def batch_norm_with_global_normalization(input, mean, variance, beta, gamma,
                                         variance_epsilon, scale_after_normalization,
                                         name=None):
    """``batch_normalization`` with ``gamma`` applied only if ``scale_after_normalization``
    (TensorFlow 1's argument order)."""
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None,
                               variance_epsilon)


__all__ = ["batch_norm_inference", "batch_norm_with_global_normalization",
           "batch_normalization", "fused_batch_norm_train", "fused_batch_norm_v1",
           "local_response_normalization", "lrn", "moments", "normalize_moments",
           "sufficient_statistics", "weighted_moments"]
