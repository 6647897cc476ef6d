"""Convolution and pooling ops (``fe.nn.conv2d``, ``max_pool2d`` ...), NHWC / HWIO.

The forward and backward passes are the CPU kernels of ``fasteager._kernels``; arrays go
to them as they are (the kernels copy only non-contiguous input). Each kernel-backed
backward pass is an op of its own, and since every one of them is linear in its tensor
inputs, its VJP is again one of these ops (the adjoint pairs below), so second
derivatives run through the same kernels:

    conv2d(x, w)                   dx: conv2d_backprop_input(dy, w)   dw: conv2d_backprop_filter(x, dy)
    conv2d_backprop_input(dy, w)   d dy: conv2d(G, w)                 dw: conv2d_backprop_filter(G, dy)
    conv2d_backprop_filter(x, dy)  dx: conv2d_backprop_input(dy, H)   d dy: conv2d(x, H)
    avg_pool2d(x)  <->  avg_pool2d_backprop(dy)
    max_pool2d(x) -> (y, argmax);  max_pool2d_backprop(dy, argmax) scatters, its VJP gathers

depthwise_conv2d has the same three-op scheme (NumPy, one pass per filter tap).
NCHW and 1-D variants are the 2-D NHWC ops between transposes and reshapes.
"""
import numpy as np

from .. import _core, _kernels
from ..errors import InvalidArgumentError, UnimplementedError
from .array_ops import reshape, transpose
from .registry import FLOAT, defop, execute

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
    from .array_ops import concat, split
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


def _one_or_three(opname, argname, v):
    if np.ndim(v) == 0:
        return int(v)
    v = list(v)
    if len(v) == 1:
        return int(v[0])
    return _one(opname, argname, v)


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
