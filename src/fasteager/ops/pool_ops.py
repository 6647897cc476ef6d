"""Pooling (``fe.nn.max_pool2d``, ``avg_pool``, ``pool``, 3-D pooling,
``max_pool_with_argmax``) and grey-scale morphology (``dilation2d``, ``erosion2d``), NHWC.

2-D max and average pooling are kernels of ``fasteager._kernels`` with their backward
passes as ops of their own: ``avg_pool2d`` and its backprop are adjoint, and
``max_pool2d`` returns ``(y, argmax)`` whose backprop scatters (its VJP gathers). 1-D and
N-D variants are the 2-D ops between reshapes. ``pool`` with dilations, or with a window
rank the 2-D kernels do not cover (3-D pooling), runs as one strided slice per window tap
combined with ``maximum`` or a sum, as do ``dilation2d``/``erosion2d``: exact, and slow
only for large windows; gradients of every order come from those ops' own.
"""

import collections

import numpy as np

from .. import _core, _kernels
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from .array_ops import getitem, pad, reshape, transpose
from .conv_ops import (_data_format, _float, _float_tensor, _from_nhwc, _hw, _kernel_call, _NHWC,
                       _one_or_three, _out_size, _padding, _per_dim, _rank, _spatial3,
                       _tap_geometry, _to_nhwc, _window_taps)
from .elementwise_ops import convert_same, maximum
from .indexing_ops import reverse
from .registry import _err, defop, execute, FLOAT

convert_to_tensor = _core.convert_to_tensor


# ---- pooling -----------------------------------------------------------------------------

def _check_pool(opname, x, ksize, strides, padding):
    _rank(opname, "input", x, 4, "NHWC")
    # (a saved graph's attributes reach here without the public function's normalising)
    ksize, strides = _hw(opname, "ksize", ksize, "NHWC"), _hw(opname, "strides", strides,
                                                                  "NHWC")
    return _pool_shape(opname, x.shape, ksize, strides, padding)


def _pool_shape(opname, shape, ksize, strides, padding):
    return (shape[0],
            _out_size(opname, shape[1], ksize[0], strides[0], 1, padding, "pooling"),
            _out_size(opname, shape[2], ksize[1], strides[1], 1, padding, "pooling"),
            shape[3])


def _max_pool_fwd(x, ksize, strides, padding):
    return _kernel_call("max_pool2d", _kernels.max_pool2d_forward, x, ksize, strides, padding)


def _max_pool_dx(g, ans, x, ksize, strides, padding):
    # the gradient goes to the (first) maximum of each window
    return execute(max_pool2d_backprop_op, g[0], ans[1], input_shape=x._value.shape)


# outputs (y, argmax): argmax is int64, flat indices into x (the public function returns y)
max_pool2d_op = defop("max_pool2d", _max_pool_fwd, kinds=FLOAT, multi=True,
                      check=lambda x, **a: _check_pool("max_pool2d", x, **a),
                      grads=[_max_pool_dx])


def _check_max_pool_backprop(dy, argmax, input_shape):
    name = "max_pool2d_backprop"
    if dy.dtype.kind != "f" or argmax.dtype != np.int64:
        raise _err(name, "dy must be floating and argmax int64 (got dy %s and argmax %s)"
                   % (dy.dtype, argmax.dtype))
    _rank(name, "dy", dy, 4, "NHWC")
    if argmax.shape != dy.shape:
        raise _err(name, "argmax and dy shapes differ (expected %s, got %s)"
                   % (list(dy.shape), list(argmax.shape)))


def _max_pool_backprop_fwd(dy, argmax, input_shape):
    return _kernel_call("max_pool2d_backprop", _kernels.max_pool2d_backward, dy, argmax,
                        input_shape)


def _max_pool_backprop_ddy(g, ans, dy, argmax, input_shape):
    # a scatter-add of dy at argmax: the adjoint gathers G at argmax
    return reshape(g, (-1,))[argmax._value]


# argmax holds integer indices: no gradient for it
max_pool2d_backprop_op = defop("max_pool2d_backprop", _max_pool_backprop_fwd, kinds="fi",
                               same_dtype=False, check=_check_max_pool_backprop,
                               grads=[_max_pool_backprop_ddy, None])


def _avg_pool_fwd(x, ksize, strides, padding):
    return _kernel_call("avg_pool2d", _kernels.avg_pool2d_forward, x, ksize, strides, padding)


# average pooling is linear: its gradient is the backprop op, and that one's is avg_pool2d
avg_pool2d_op = defop("avg_pool2d", _avg_pool_fwd, kinds=FLOAT,
                      check=lambda x, **a: _check_pool("avg_pool2d", x, **a),
                      grads=[lambda g, ans, x, **a: execute(
                          avg_pool2d_backprop_op, g, input_shape=x._value.shape, **a)])


def _check_avg_pool_backprop(dy, input_shape, ksize, strides, padding):
    name = "avg_pool2d_backprop"
    _rank(name, "dy", dy, 4, "NHWC")
    if len(input_shape) != 4:
        raise _err(name, "input_shape must have 4 entries (got %s)" % list(input_shape))
    want = _pool_shape(name, input_shape, ksize, strides, padding)
    if dy.shape != want:
        raise _err(name, "dy does not match the pooling output shape (expected %s for input "
                   "shape %s, got %s)" % (list(want), list(input_shape), list(dy.shape)))


def _avg_pool_backprop_fwd(dy, input_shape, ksize, strides, padding):
    return _kernel_call("avg_pool2d_backprop", _kernels.avg_pool2d_backward, dy, input_shape,
                        ksize, strides, padding)


avg_pool2d_backprop_op = defop("avg_pool2d_backprop", _avg_pool_backprop_fwd, kinds=FLOAT,
                               check=_check_avg_pool_backprop,
                               grads=[lambda g, ans, dy, input_shape, **a:
                                      execute(avg_pool2d_op, g, **a)])


def _pool2d(op, opname, input, ksize, strides, padding, data_format):
    data_format = _data_format(opname, data_format, _NHWC)
    x = _float_tensor(opname, "input", input)
    attrs = {"ksize": _hw(opname, "ksize", ksize, data_format),
             "strides": _hw(opname, "strides", strides, data_format),
             "padding": _padding(opname, padding)}
    if data_format == "NCHW":
        _rank(opname, "input", x._value, 4, "NCHW")
    y = execute(op, _to_nhwc(x, data_format), **attrs)
    if op.multi:
        y = y[0]
    return _from_nhwc(y, data_format)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Max over ``ksize`` windows of NHWC ``input`` ('SAME' pads with -inf)."""
    return _pool2d(max_pool2d_op, "max_pool2d", input, ksize, strides, padding, data_format)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Mean over ``ksize`` windows; with 'SAME', over the window's cells inside the input."""
    return _pool2d(avg_pool2d_op, "avg_pool2d", input, ksize, strides, padding, data_format)


def _pool1d(fn, opname, input, ksize, strides, padding, data_format):
    data_format = _data_format(opname, data_format, ("NWC", "NCW"))
    x = _float_tensor(opname, "input", input)
    _rank(opname, "input", x._value, 3, data_format)
    if data_format == "NCW":
        x = transpose(x, (0, 2, 1))
    n, width, c = x._value.shape
    k = _one_or_three(opname, "ksize", ksize)
    s = _one_or_three(opname, "strides", strides)
    y = fn(reshape(x, (n, 1, width, c)), (1, k), (1, s), padding)
    y = reshape(y, (n, y._value.shape[2], c))
    return transpose(y, (0, 2, 1)) if data_format == "NCW" else y


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """1-D max pooling of NWC ``input``."""
    return _pool1d(max_pool2d, "max_pool1d", input, ksize, strides, padding, data_format)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """1-D average pooling of NWC ``input``."""
    return _pool1d(avg_pool2d, "avg_pool1d", input, ksize, strides, padding, data_format)


def _pool_nd(f1, f2, opname, input, ksize, strides, padding, data_format):
    x = convert_to_tensor(input)
    if x._value.ndim == 3:
        return f1(x, ksize, strides, padding, data_format or "NWC")
    if x._value.ndim == 4:
        return f2(x, ksize, strides, padding, data_format or "NHWC")
    raise _err(opname, "input must be 3-D or 4-D (expected rank 3 or 4, got shape %s)"
               % list(x._value.shape))


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """max_pool1d or max_pool2d, chosen by the rank of ``input``."""
    return _pool_nd(max_pool1d, max_pool2d, "max_pool", input, ksize, strides, padding,
                    data_format)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """avg_pool1d or avg_pool2d, chosen by the rank of ``input``."""
    return _pool_nd(avg_pool1d, avg_pool2d, "avg_pool", input, ksize, strides, padding,
                    data_format)


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
    for _, key in _window_taps(window, strides, dilations, outs):
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


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",
                         output_dtype=np.int64, include_batch_in_index=False, name=None):
    """``(output, argmax)``: 2-D max pooling and the flat index of each window's maximum
    (``(y * width + x) * channels + c``, plus ``b * height * width * channels`` with
    ``include_batch_in_index``); the first maximum in row-major window order wins."""
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


def dilation2d(input, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological dilation: the max over each window of ``input + filters``
    (``filters`` is [h, w, channels]); taps outside a SAME-padded input do not count."""
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
    for tap, key in _window_taps(window, strides, rates, outs):
        part = execute(getitem, padded, key=(slice(None),) + key + (slice(None),)) + \
            execute(getitem, w, key=tap)
        total = part if total is None else maximum(total, part)
    return total


def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological erosion: ``-dilation2d(-value, reversed filters)``."""
    w = convert_to_tensor(filters)
    return -dilation2d(-convert_to_tensor(value), reverse(w, [0, 1]), strides, padding,
                       data_format, dilations)
