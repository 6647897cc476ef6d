"""Convolution ops (``fe.nn.conv2d``, ``depthwise_conv2d``, ``conv3d`` ...), NHWC / HWIO.

The forward and backward passes are the CPU kernels of ``fasteager._kernels``; arrays go
to them as they are (the kernels copy only non-contiguous input). Each kernel-backed
backward pass is an op of its own, and since every one of them is linear in its tensor
inputs, its VJP is again one of these ops (the adjoint pairs below), so second
derivatives run through the same kernels:

    conv2d(x, w)                   dx: conv2d_backprop_input(dy, w)   dw: conv2d_backprop_filter(x, dy)
    conv2d_backprop_input(dy, w)   d dy: conv2d(G, w)                 dw: conv2d_backprop_filter(G, dy)
    conv2d_backprop_filter(x, dy)  dx: conv2d_backprop_input(dy, H)   d dy: conv2d(x, H)

depthwise_conv2d has the same three-op scheme (NumPy, one pass per filter tap).
NCHW and 1-D variants are the 2-D NHWC ops between transposes and reshapes; separable
and transposed convolutions compose these ops, and ``conv3d`` runs as one matmul per
filter tap (exact, slow only for large windows), so their gradients come from the ops'
own. Pooling is in ``pool_ops``.
"""

import itertools

import numpy as np

from .. import _core, _kernels
from ..errors import InvalidArgumentError, UnimplementedError
from .array_ops import _index_backward, concat, getitem, pad, reshape, split, transpose
from .elementwise_ops import convert_same
from .linalg_ops import matmul
from .registry import as_int, defop, execute, FLOAT, moved_names

convert_to_tensor = _core.convert_to_tensor


def _err(opname, what):
    return InvalidArgumentError("%s: %s" % (opname, what))


def _kernel_call(opname, fn, *args):
    """Call a kernel; its ValueError becomes the op's error. The kernels take float32 and
    float64: float16 arrays run in float32 and the results are rounded back."""
    half = False
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype == np.float16:
            half = True
    if half:
        args = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float16
                     else a for a in args)
    try:
        out = fn(*args)
    except ValueError as e:
        raise _err(opname, str(e).split(": ", 1)[-1]) from None
    if half:
        if isinstance(out, tuple):
            return tuple(o.astype(np.float16) if o.dtype == np.float32 else o for o in out)
        return out.astype(np.float16)
    return out


# ---- argument normalisation --------------------------------------------------------------

def _hw(opname, argname, v, data_format, default=1):
    """An int or a list of 1, 2 or 4 ints (TF rules) to an (h, w) pair of positive ints."""
    if v is None:
        return (default, default)
    if isinstance(v, (_core.Tensor, np.ndarray)):
        v = np.asarray(v).tolist()
    try:
        vals = [int(v)] if np.ndim(v) == 0 else [int(i) for i in v]
    except (TypeError, ValueError):
        raise _err(opname, "%s must be an int or a list of ints (expected 1, 2 or 4 ints, got "
                   "%r)" % (argname, v)) from None
    if len(vals) == 1:
        hw = (vals[0], vals[0])
    elif len(vals) == 2:
        hw = tuple(vals)
    elif len(vals) == 4:
        nc = data_format.startswith("NC")
        outer = (vals[0], vals[1]) if nc else (vals[0], vals[3])
        if outer != (1, 1):
            raise _err(opname, "%s must be 1 in the batch and channel dimensions (expected "
                       "%s, got %r)" % (argname, "[1, 1, h, w]" if nc else "[1, h, w, 1]", v))
        hw = (vals[2], vals[3]) if nc else (vals[1], vals[2])
    else:
        raise _err(opname, "%s must have 1, 2 or 4 entries (got %r)" % (argname, v))
    if hw[0] < 1 or hw[1] < 1:
        raise _err(opname, "%s must be positive (expected >= 1, got %r)" % (argname, v))
    return hw


def _padding(opname, padding):
    if isinstance(padding, str) and padding.upper() in ("SAME", "VALID"):
        return padding.upper()
    if isinstance(padding, (list, tuple)):
        raise UnimplementedError("%s: explicit padding lists are not supported (expected "
                                 "'SAME' or 'VALID', got %r); pad the input and use "
                                 "'VALID'" % (opname, padding))
    raise _err(opname, "padding must be 'SAME' or 'VALID' (got %r)" % (padding,))


def _data_format(opname, data_format, allowed):
    if data_format is None:
        return allowed[0]
    if data_format not in allowed:
        raise _err(opname, "unknown data_format (expected one of %s, got %r)"
                   % (", ".join(allowed), data_format))
    return data_format


def _float_tensor(opname, argname, x):
    t = convert_to_tensor(x)
    if t._value.dtype.kind != "f":
        raise _err(opname, "%s must be floating (expected float32 or float64, got %s)"
                   % (argname, t._value.dtype))
    return t


def _rank(opname, argname, a, rank, layout):
    if a.ndim != rank:
        raise _err(opname, "%s must be %d-D %s (expected rank %d, got shape %s)"
                   % (argname, rank, layout, rank, list(a.shape)))


def _out_size(opname, in_size, k, stride, dilation, padding, what):
    ke = (k - 1) * dilation + 1
    if padding == "VALID" and ke > in_size:
        raise _err(opname, "the %s window (size %d%s) is larger than the input (expected "
                   "<= %d along an axis of input size %d)"
                   % (what, ke, ", dilated" if dilation > 1 else "", in_size, in_size))
    return _kernels.conv_output_size(in_size, k, stride, dilation, padding)[0]


def _conv_shape(opname, x_shape, w_shape, strides, padding, dilations):
    """The output shape of conv2d, checking every shape first (errors name both shapes)."""
    if w_shape[0] < 1 or w_shape[1] < 1:
        # a window of height 0 would give an output taller than the input
        raise _err(opname, "the filter window must not be empty (expected height and width "
                   ">= 1, got filters shape %s)" % list(w_shape))
    if x_shape[3] != w_shape[2]:
        raise _err(opname, "input channels differ from the filter's input channels (expected "
                   "filters.shape[2] == input.shape[3], got input shape %s and filters shape %s)"
                   % (list(x_shape), list(w_shape)))
    oh = _out_size(opname, x_shape[1], w_shape[0], strides[0], dilations[0], padding, "filter")
    ow = _out_size(opname, x_shape[2], w_shape[1], strides[1], dilations[1], padding, "filter")
    return (x_shape[0], oh, ow, w_shape[3])


# ---- conv2d and its two backward ops -------------------------------------------------------

def _check_conv2d(x, w, strides, padding, dilations):
    _rank("conv2d", "input", x, 4, "NHWC")
    _rank("conv2d", "filters", w, 4, "HWIO")
    _conv_shape("conv2d", x.shape, w.shape, strides, padding, dilations)


def _zeros_if_empty(out_shape, dtype, *arrays):
    """Zeros of ``out_shape`` when an input is empty (an empty batch, say), so that no
    kernel sizes its working memory (im2col buffers) by the other dimensions; else None."""
    for a in arrays:
        if a.size == 0:
            return np.zeros(out_shape, dtype)
    return None


def _conv2d_fwd(x, w, strides, padding, dilations):
    if x.size == 0 or w.size == 0:
        return np.zeros(_conv_shape("conv2d", x.shape, w.shape, strides, padding, dilations),
                        x.dtype)
    return _kernel_call("conv2d", _kernels.conv2d_forward, x, w, strides, padding, dilations)


def _contiguous_once(g):
    """Both VJPs of conv2d read dy: make a broadcast or strided dy contiguous once, not
    once per kernel. Only when no tape records, since the copy is not on any tape."""
    if g._value.flags.c_contiguous or _core.any_tape_recording() or \
            _core.get_tracer() is not None:
        return g
    return _core.wrap(np.ascontiguousarray(g._value))


def _conv2d_grad(g, ans, inputs, attrs, needs):
    # y = conv(x, w) is linear in each input: dx is the input-gradient op (the adjoint in
    # x), dw the filter-gradient op (the adjoint in w)
    x, w = inputs
    g = _contiguous_once(g) if needs[0] and needs[1] else g
    dx = dw = None
    if needs[0]:
        dx = execute(conv2d_backprop_input_op, g, w, input_shape=x._value.shape, **attrs)
    if needs[1]:
        dw = execute(conv2d_backprop_filter_op, x, g, filter_shape=w._value.shape, **attrs)
    return [dx, dw]


conv2d_op = defop("conv2d", _conv2d_fwd, kinds=FLOAT, check=_check_conv2d, nin=2,
                  joint_grad=_conv2d_grad)


def _check_backprop_input(dy, w, input_shape, strides, padding, dilations):
    name = "conv2d_backprop_input"
    _rank(name, "dy", dy, 4, "NHWC")
    _rank(name, "filters", w, 4, "HWIO")
    want = _conv_shape(name, input_shape, w.shape, strides, padding, dilations)
    if dy.shape != want:
        raise _err(name, "dy does not match the conv2d output shape (expected %s for input "
                   "shape %s and filters %s, got %s)"
                   % (list(want), list(input_shape), list(w.shape), list(dy.shape)))


def _backprop_input_fwd(dy, w, input_shape, strides, padding, dilations):
    empty = _zeros_if_empty(tuple(input_shape), dy.dtype, dy, w)
    if empty is not None:
        return empty
    return _kernel_call("conv2d_backprop_input", _kernels.conv2d_backward_input, dy, w,
                        input_shape, strides, padding, dilations)


def _backprop_input_ddy(g, ans, dy, w, input_shape, **attrs):
    # dx = conv^T(dy, w) is linear in dy: its adjoint is conv2d itself
    return execute(conv2d_op, g, w, **attrs)


def _backprop_input_dw(g, ans, dy, w, input_shape, **attrs):
    # <conv^T(dy, w), G> = <dy, conv(G, w)>: the filter gradient of conv(G, w) against dy
    return execute(conv2d_backprop_filter_op, g, dy, filter_shape=w._value.shape, **attrs)


conv2d_backprop_input_op = defop("conv2d_backprop_input", _backprop_input_fwd, kinds=FLOAT,
                                 check=_check_backprop_input,
                                 grads=[_backprop_input_ddy, _backprop_input_dw])


def _check_backprop_filter(x, dy, filter_shape, strides, padding, dilations):
    name = "conv2d_backprop_filter"
    _rank(name, "input", x, 4, "NHWC")
    _rank(name, "dy", dy, 4, "NHWC")
    want = _conv_shape(name, x.shape, filter_shape, strides, padding, dilations)
    if dy.shape != want:
        raise _err(name, "dy does not match the conv2d output shape (expected %s for input "
                   "shape %s and filters %s, got %s)"
                   % (list(want), list(x.shape), list(filter_shape), list(dy.shape)))


def _backprop_filter_fwd(x, dy, filter_shape, strides, padding, dilations):
    empty = _zeros_if_empty(tuple(filter_shape), x.dtype, x, dy)
    if empty is not None:
        return empty
    return _kernel_call("conv2d_backprop_filter", _kernels.conv2d_backward_filter, x, dy,
                        filter_shape, strides, padding, dilations)


def _backprop_filter_dx(g, ans, x, dy, filter_shape, **attrs):
    # <dw(x, dy), H> = <conv(x, H), dy> = <x, conv^T(dy, H)>
    return execute(conv2d_backprop_input_op, dy, g, input_shape=x._value.shape, **attrs)


def _backprop_filter_ddy(g, ans, x, dy, filter_shape, **attrs):
    return execute(conv2d_op, x, g, **attrs)


conv2d_backprop_filter_op = defop("conv2d_backprop_filter", _backprop_filter_fwd, kinds=FLOAT,
                                  check=_check_backprop_filter,
                                  grads=[_backprop_filter_dx, _backprop_filter_ddy])


_NHWC = ("NHWC", "NCHW")


def _to_nhwc(x, data_format):
    return x if data_format == "NHWC" else transpose(x, (0, 2, 3, 1))


def _from_nhwc(y, data_format):
    return y if data_format == "NHWC" else transpose(y, (0, 3, 1, 2))


def _conv_groups(opname, x_shape, cin, w_shape):
    """The number of groups of a convolution of ``cin`` input channels with filters of
    ``w_shape`` (..., in, out): filters with ``cin / groups`` input channels make a grouped
    convolution, as TensorFlow's conv2d reads them (ResNeXt's blocks)."""
    fin, fout = w_shape[-2], w_shape[-1]
    if fin == cin or fin == 0 or cin == 0:
        return 1                          # (the op's own checks name a bad shape)
    if cin % fin:
        raise _err(opname, "input depth must be evenly divisible by filter depth (expected "
                   "input channels a multiple of filters.shape[-2] = %d, got input shape %s "
                   "and filters shape %s)" % (fin, list(x_shape), list(w_shape)))
    groups = cin // fin
    if fout % groups:
        raise _err(opname, "output depth must be evenly divisible by number of groups "
                   "(expected filters.shape[-1] a multiple of %d groups, got filters shape "
                   "%s for %d input channels)" % (groups, list(w_shape), cin))
    return groups


def _grouped_conv2d(x, w, groups, attrs):
    """conv2d of NHWC ``x`` whose channels form ``groups`` groups, each convolved with
    its slice of the output channels of ``w`` (composed of differentiable ops)."""
    kh, kw, fin, fout = w._value.shape
    if fin == 1:
        # one input channel a group is a depthwise convolution: output channel c*m + k
        # reads input channel c, the grouped order too
        return execute(depthwise_conv2d_op, x, reshape(w, (kh, kw, groups, fout // groups)),
                       **attrs)
    ys = [execute(conv2d_op, xg, wg, **attrs)
          for xg, wg in zip(split(x, groups, axis=3), split(w, groups, axis=3))]
    return concat(ys, axis=3)


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """2-D convolution (cross-correlation, as TensorFlow) of NHWC ``input`` and HWIO ``filters``.

    ``strides``/``dilations``: an int or 1, 2 or 4 ints; ``padding``: 'SAME' or 'VALID'.
    Filters with fewer input channels than the input (a divisor of them) make a grouped
    convolution: ``input.shape[3] / filters.shape[2]`` groups, as in TensorFlow.

    >>> fe.nn.conv2d(fe.ones([1, 5, 5, 1]), fe.ones([3, 3, 1, 2]), 1, "VALID").shape
    TensorShape([1, 3, 3, 2])
    """
    name_ = "conv2d"
    data_format = _data_format(name_, data_format, _NHWC)
    x = _float_tensor(name_, "input", input)
    w = _float_tensor(name_, "filters", filters)
    attrs = {"strides": _hw(name_, "strides", strides, data_format),
             "padding": _padding(name_, padding),
             "dilations": _hw(name_, "dilations", dilations, data_format)}
    groups = 1
    if x._value.ndim == 4 and w._value.ndim == 4:
        cin = x._value.shape[3 if data_format == "NHWC" else 1]
        groups = _conv_groups(name_, x._value.shape, cin, w._value.shape)
    if groups > 1:
        return _from_nhwc(_grouped_conv2d(_to_nhwc(x, data_format), w, groups, attrs),
                          data_format)
    if data_format == "NHWC":
        return execute(conv2d_op, x, w, **attrs)
    _rank(name_, "input", x._value, 4, "NCHW")
    return _from_nhwc(execute(conv2d_op, _to_nhwc(x, data_format), w, **attrs), data_format)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",
                     dilations=None, name=None):
    """The transpose (gradient) of conv2d: ``filters`` is [h, w, out_channels, in_channels]."""
    name_ = "conv2d_transpose"
    data_format = _data_format(name_, data_format, _NHWC)
    x = _float_tensor(name_, "input", input)
    w = _float_tensor(name_, "filters", filters)
    shape = tuple(int(d) for d in np.asarray(output_shape).tolist())
    if len(shape) != 4 or min(shape) < 0:
        raise _err(name_, "output_shape must be 4 non-negative ints (got %r)" % (output_shape,))
    if data_format == "NCHW":
        shape = (shape[0], shape[2], shape[3], shape[1])
    attrs = {"strides": _hw(name_, "strides", strides, data_format),
             "padding": _padding(name_, padding),
             "dilations": _hw(name_, "dilations", dilations, data_format)}
    y = execute(conv2d_backprop_input_op, _to_nhwc(x, data_format), w, input_shape=shape,
                **attrs)
    return _from_nhwc(y, data_format)


# ---- depthwise convolution and its two backward ops ----------------------------------------
# NumPy: one multiply-accumulate of a strided view per filter tap (kh * kw passes over the
# output, no im2col buffer), the same adjoint pairs as conv2d:
#   depthwise(x, w)                dx: depthwise_backprop_input(dy, w)   dw: ..._filter(x, dy)
#   depthwise_backprop_input(dy, w)  d dy: depthwise(G, w)   dw: depthwise_backprop_filter(G, dy)
#   depthwise_backprop_filter(x, dy) dx: ..._input(dy, H)     d dy: depthwise(x, H)

def _depthwise_geometry(opname, x_shape, w_shape, strides, padding, dilations):
    """(output shape, ((top, bottom), (left, right)) padding) of a depthwise convolution."""
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise _err(opname, "input must be 4-D NHWC and filter 4-D [h, w, in_channels, "
                   "multiplier] (got shapes %s and %s)" % (list(x_shape), list(w_shape)))
    if w_shape[0] < 1 or w_shape[1] < 1:
        raise _err(opname, "the filter window must not be empty (expected height and width "
                   ">= 1, got filter shape %s)" % list(w_shape))
    if x_shape[3] != w_shape[2]:
        raise _err(opname, "input channels differ from the filter's (expected filter.shape[2] "
                   "== input.shape[3], got input shape %s and filter shape %s)"
                   % (list(x_shape), list(w_shape)))
    out, pads = [], []
    for axis in (0, 1):
        size, k = x_shape[1 + axis], w_shape[axis]
        _out_size(opname, size, k, strides[axis], dilations[axis], padding, "filter")
        o, before, after = _kernels.conv_output_size(size, k, strides[axis], dilations[axis],
                                                     padding)
        out.append(o)
        pads.append((before, after))
    return (x_shape[0], out[0], out[1], w_shape[2] * w_shape[3]), pads


def _taps(w_shape, out_shape, strides, dilations):
    """For each filter tap (i, j): the slices of the padded input it reads."""
    for i in range(w_shape[0]):
        rows = slice(i * dilations[0], i * dilations[0] + (out_shape[1] - 1) * strides[0] + 1,
                     strides[0])
        for j in range(w_shape[1]):
            cols = slice(j * dilations[1],
                         j * dilations[1] + (out_shape[2] - 1) * strides[1] + 1, strides[1])
            yield i, j, rows, cols


def _padded(x, pads):
    if pads == [(0, 0), (0, 0)]:
        return x
    return np.pad(x, [(0, 0), pads[0], pads[1], (0, 0)])


def _depthwise_fwd(x, w, strides, padding, dilations):
    out_shape, pads = _depthwise_geometry("depthwise_conv2d", x.shape, w.shape, strides,
                                          padding, dilations)
    n, oh, ow, _ = out_shape
    c, m = w.shape[2], w.shape[3]
    out = np.zeros((n, oh, ow, c, m), np.result_type(x, w))
    if x.size == 0 or w.size == 0 or out.size == 0:
        return out.reshape(out_shape)
    xp = _padded(x, pads)
    for i, j, rows, cols in _taps(w.shape, out_shape, strides, dilations):
        out += xp[:, rows, cols, :, None] * w[i, j]
    return out.reshape(out_shape)


def _depthwise_grad(g, ans, inputs, attrs, needs):
    x, w = inputs
    dx = dw = None
    if needs[0]:
        dx = execute(depthwise_backprop_input_op, g, w, input_shape=x._value.shape, **attrs)
    if needs[1]:
        dw = execute(depthwise_backprop_filter_op, x, g, filter_shape=w._value.shape, **attrs)
    return [dx, dw]


def _check_depthwise(x, w, strides, padding, dilations):
    _depthwise_geometry("depthwise_conv2d", x.shape, w.shape, strides, padding, dilations)


depthwise_conv2d_op = defop("depthwise_conv2d", _depthwise_fwd, kinds=FLOAT, nin=2,
                            check=_check_depthwise, joint_grad=_depthwise_grad)


def _check_dw_backprop(name, x_shape, w_shape, dy, strides, padding, dilations):
    want, _ = _depthwise_geometry(name, tuple(x_shape), tuple(w_shape), strides, padding,
                                  dilations)
    if dy.shape != want:
        raise _err(name, "dy does not match the depthwise_conv2d output shape (expected %s "
                   "for input shape %s and filter %s, got %s)"
                   % (list(want), list(x_shape), list(w_shape), list(dy.shape)))


def _dw_backprop_input_fwd(dy, w, input_shape, strides, padding, dilations):
    out_shape, pads = _depthwise_geometry("depthwise_conv2d_backprop_input", tuple(input_shape),
                                          w.shape, strides, padding, dilations)
    n, h, wd, c = input_shape
    dxp = np.zeros((n, h + sum(pads[0]), wd + sum(pads[1]), c), np.result_type(dy, w))
    if dy.size and w.size:
        dy5 = dy.reshape(out_shape[:3] + (c, w.shape[3]))
        for i, j, rows, cols in _taps(w.shape, out_shape, strides, dilations):
            dxp[:, rows, cols] += np.einsum("nhwcm,cm->nhwc", dy5, w[i, j])
    return dxp[:, pads[0][0]:pads[0][0] + h, pads[1][0]:pads[1][0] + wd]


depthwise_backprop_input_op = defop(
    "depthwise_conv2d_backprop_input", _dw_backprop_input_fwd, kinds=FLOAT,
    check=lambda dy, w, input_shape, **a: _check_dw_backprop(
        "depthwise_conv2d_backprop_input", input_shape, w.shape, dy, **a),
    # linear in dy (adjoint: the forward) and in w (adjoint: the filter gradient of G)
    grads=[lambda g, ans, dy, w, input_shape, **a: execute(depthwise_conv2d_op, g, w, **a),
           lambda g, ans, dy, w, input_shape, **a: execute(
               depthwise_backprop_filter_op, g, dy, filter_shape=w._value.shape, **a)])


def _dw_backprop_filter_fwd(x, dy, filter_shape, strides, padding, dilations):
    out_shape, pads = _depthwise_geometry("depthwise_conv2d_backprop_filter", x.shape,
                                          tuple(filter_shape), strides, padding, dilations)
    kh, kw, c, m = filter_shape
    dw = np.zeros((kh, kw, c, m), np.result_type(x, dy))
    if x.size and dy.size:
        xp = _padded(x, pads)
        dy5 = dy.reshape(out_shape[:3] + (c, m))
        for i, j, rows, cols in _taps(filter_shape, out_shape, strides, dilations):
            dw[i, j] = np.einsum("nhwc,nhwcm->cm", xp[:, rows, cols], dy5)
    return dw


depthwise_backprop_filter_op = defop(
    "depthwise_conv2d_backprop_filter", _dw_backprop_filter_fwd, kinds=FLOAT,
    check=lambda x, dy, filter_shape, **a: _check_dw_backprop(
        "depthwise_conv2d_backprop_filter", x.shape, filter_shape, dy, **a),
    # <dw(x, dy), H> = <depthwise(x, H), dy> = <x, backprop_input(dy, H)>
    grads=[lambda g, ans, x, dy, filter_shape, **a: execute(
        depthwise_backprop_input_op, dy, g, input_shape=x._value.shape, **a),
        lambda g, ans, x, dy, filter_shape, **a: execute(depthwise_conv2d_op, x, g, **a)])


def depthwise_conv2d(input, filter, strides, padding, data_format="NHWC", dilations=None,
                     name=None):
    """Per-channel convolution: ``filter`` is [h, w, in_channels, multiplier]; output channel
    ``c * multiplier + m`` convolves input channel c with ``filter[:, :, c, m]``.

    >>> fe.nn.depthwise_conv2d(fe.ones([1, 5, 5, 3]), fe.ones([3, 3, 3, 2]),
    ...                        [1, 1, 1, 1], "VALID").shape
    TensorShape([1, 3, 3, 6])
    """
    name_ = "depthwise_conv2d"
    data_format = _data_format(name_, data_format, _NHWC)
    x = _float_tensor(name_, "input", input)
    w = _float_tensor(name_, "filter", filter)
    _rank(name_, "filter", w._value, 4, "[h, w, in_channels, multiplier]")
    _rank(name_, "input", x._value, 4, data_format)
    attrs = {"strides": _hw(name_, "strides", strides, data_format),
             "padding": _padding(name_, padding),
             "dilations": _hw(name_, "dilations", dilations, data_format)}
    return _from_nhwc(execute(depthwise_conv2d_op, _to_nhwc(x, data_format), w, **attrs),
                      data_format)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of NWC ``input`` and WIO ``filters`` (conv2d on a height-1 image)."""
    name_ = "conv1d"
    data_format = _data_format(name_, data_format, ("NWC", "NCW"))
    x = _float_tensor(name_, "input", input)
    w = _float_tensor(name_, "filters", filters)
    _rank(name_, "input", x._value, 3, data_format)
    _rank(name_, "filters", w._value, 3, "WIO")
    if data_format == "NCW":
        x = transpose(x, (0, 2, 1))
    n, width, c = x._value.shape
    s = _one_or_three(name_, "stride", stride)
    d = 1 if dilations is None else _one_or_three(name_, "dilations", dilations)
    y = conv2d(reshape(x, (n, 1, width, c)), reshape(w, (1,) + w._value.shape), (1, s),
               padding, dilations=(1, d))
    y = reshape(y, (n, y._value.shape[2], y._value.shape[3]))
    return transpose(y, (0, 2, 1)) if data_format == "NCW" else y


def _one(opname, argname, v):
    # a 3-entry 1-D stride/dilation list: [1, s, 1]
    vals = [int(i) for i in v]
    if len(vals) != 3 or vals[0] != 1 or vals[2] != 1:
        raise _err(opname, "%s must be an int or [1, s, 1] (got %r)" % (argname, v))
    return vals[1]


def convolution(input, filters, strides=None, padding="VALID", data_format=None,
                dilations=None, name=None):
    """conv1d or conv2d, chosen by the rank of ``input`` (3 or 4)."""
    x = convert_to_tensor(input)
    if x._value.ndim == 3:
        return conv1d(x, filters, 1 if strides is None else strides, padding,
                      data_format or "NWC", dilations)
    if x._value.ndim == 4:
        return conv2d(x, filters, 1 if strides is None else strides, padding,
                      data_format or "NHWC", dilations)
    raise _err("convolution", "input must be 3-D or 4-D (expected rank 3 or 4, got shape %s)"
               % list(x._value.shape))


def _one_or_three(opname, argname, v):
    if np.ndim(v) == 0:
        return int(v)
    v = list(v)
    if len(v) == 1:
        return int(v[0])
    return _one(opname, argname, v)


def _float(opname, x):
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError("%s: input must be floating point (got %s)"
                                   % (opname, x._value.dtype))
    return x


# ---- separable and transposed convolutions (composites) ------------------------------------

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


# ---- 3-D and N-D convolution: one matmul per filter tap (the taps are shared with pooling) --

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


def _window_taps(window, strides, dilations, outs):
    """For each window tap: (tap, the strided spatial slices it reads of the padded input)."""
    for tap in itertools.product(*[range(k) for k in window]):
        yield tap, tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                         for t, d, o, s in zip(tap, dilations, outs, strides))


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
    for tap, key in _window_taps(window, strides, dilations, outs):
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
    for tap, key in _window_taps(window, strides, dilations, outs):
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


# ---- atrous transposed convolution and the depthwise backprop wrappers ----------------------

def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of ``atrous_conv2d``: conv2d_transpose with dilations = rate."""
    return conv2d_transpose(value, filters, output_shape, 1, padding,
                            dilations=as_int("atrous_conv2d_transpose", rate, "rate"))


def _depthwise_attrs(opname, strides, padding, data_format, dilations):
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
    attrs = _depthwise_attrs("depthwise_conv2d_backprop_input", strides, padding,
                             data_format, dilations)
    dy, w = convert_same(out_backprop, filter)
    shape = tuple(int(d) for d in np.asarray(input_sizes).reshape(-1).tolist())
    return execute(depthwise_backprop_input_op, dy, w, input_shape=shape, **attrs)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                     data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``depthwise_conv2d`` with respect to its filter (of shape
    ``filter_sizes``)."""
    attrs = _depthwise_attrs("depthwise_conv2d_backprop_filter", strides, padding,
                             data_format, dilations)
    x, dy = convert_same(input, out_backprop)
    shape = tuple(int(d) for d in np.asarray(filter_sizes).reshape(-1).tolist())
    return execute(depthwise_backprop_filter_op, x, dy, filter_shape=shape, **attrs)


# names that moved to other topic modules when ops/ was regrouped: the old paths warn for
# one release
__getattr__ = moved_names(__name__, {
    **dict.fromkeys(("avg_pool", "avg_pool1d", "avg_pool2d", "avg_pool2d_backprop_op",
                     "avg_pool2d_op", "max_pool", "max_pool1d", "max_pool2d",
                     "max_pool2d_backprop_op", "max_pool2d_op"), "pool_ops"),
})
