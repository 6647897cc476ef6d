"""Convolution and pooling layers (channels_last: NHWC for 2-D, NWC for 1-D)."""
from ... import dtypes, errors, nn
from ...ops import array_ops
from ...ops.array_ops import (
    broadcast_to,
    concat,
    expand_dims,
    split,
    squeeze,
    transpose,
    zeros_like,
)
from ...ops.elementwise_ops import cast, where
from ...ops.nn_ops import fused_conv2d
from ...ops.reduction_ops import reduce_max, reduce_mean, reduce_sum
from ...tensor_shape import TensorShape
from .. import _ops, activations, constraints, initializers, regularizers
from ..ops import nn as _kops_nn
from .base import Layer
from .core import cpu_fusable


def _tuple(value, n, what, layer):
    if isinstance(value, int):
        return (value,) * n
    try:
        out = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        out = ()
    if len(out) != n or any(v <= 0 for v in out):
        raise ValueError("%s: %s must be a positive int or %d positive ints (got %r)"
                         % (layer, what, n, value))
    return out


def _padding(value, layer, allow_causal=False):
    p = str(value).lower()
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    if p not in allowed:
        raise ValueError("%s: padding must be one of %s (got %r)"
                         % (layer, ", ".join(repr(a) for a in allowed), value))
    return p


def _data_format(value, layer):
    f = value or "channels_last"
    if f not in ("channels_last", "channels_first"):
        raise ValueError("%s: data_format must be 'channels_last' or 'channels_first' "
                         "(got %r)" % (layer, value))
    return f


class _Conv(Layer):
    rank = 2

    @property
    def _input_ndim(self):
        return self.rank + 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, groups=1, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        cls = type(self).__name__
        if int(filters) <= 0:
            raise ValueError("%s: filters must be a positive integer (got %r)" % (cls, filters))
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError("%s: groups must be a positive integer (got %r)" % (cls, groups))
        if int(filters) % groups:
            raise ValueError("The number of filters must be evenly divisible by the number of "
                             "groups. Received: groups=%d, filters=%d." % (groups, filters))
        self.groups = groups
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size", cls)
        self.strides = _tuple(strides, self.rank, "strides", cls)
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate", cls)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("%s: strides > 1 together with dilation_rate > 1 is not supported"
                             % cls)
        # 'causal' (left padding only) is Conv1D's, as in Keras 3
        self.padding = _padding(padding, cls, allow_causal=type(self).rank == 1)
        self.data_format = _data_format(data_format, cls)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        self._check_rank(shape)
        cin = shape[self._channel_axis()]
        if cin is not None and cin % self.groups:
            raise ValueError("The number of input channels must be evenly divisible by the "
                             "number of groups. Received groups=%d, but the input has %d "
                             "channels (full input shape is %s)."
                             % (self.groups, cin, tuple(shape.as_list())))
        if cin is not None:
            cin //= self.groups           # a grouped kernel sees its group's channels
        self.kernel = self._add_weight("kernel", list(self.kernel_size) + [cin, self.filters],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def _check(self, inputs):
        shape = inputs.shape.as_list()
        cin = self.kernel.shape[-2] * self.groups
        if len(shape) != self.rank + 2 or shape[self._channel_axis()] != cin:
            raise errors.InvalidArgumentError(
                "%s (layer %r): expected inputs of rank %d with %d channels, as the kernel was "
                "built for (kernel shape %s, got input shape %s)"
                % (type(self).__name__, self.name, self.rank + 2, cin,
                   self.kernel.shape.as_list(), shape))

    def get_config(self):
        config = super().get_config()
        config.update(filters=self.filters, kernel_size=self.kernel_size, strides=self.strides,
                      padding=self.padding, data_format=self.data_format,
                      dilation_rate=self.dilation_rate, groups=self.groups,
                      use_bias=self.use_bias)
        config.update(self._serialized("activation", "kernel_initializer", "bias_initializer",
                                       "kernel_regularizer", "bias_regularizer",
                                       "kernel_constraint", "bias_constraint"))
        return config


class Conv2D(_Conv):
    """2-D convolution: ``Conv2D(16, 3, activation='relu', padding='same')``."""

    rank = 2

    def call(self, inputs):
        self._check(inputs)
        x = inputs
        if self.data_format == "channels_first":
            x = transpose(x, [0, 2, 3, 1])
        if self.groups == 1 and cpu_fusable(self, x):
            y = fused_conv2d(x, self.kernel, self.bias, self.strides, self.padding.upper(),
                             self.dilation_rate,
                             "relu" if self.activation is activations.relu else "linear")
        else:
            y = _ops.conv2d(x, self.kernel, self.strides, self.padding.upper(),
                            self.dilation_rate)
            if self.use_bias:
                y = y + self.bias
            y = self.activation(y)
        if self.data_format == "channels_first":
            y = transpose(y, [0, 3, 1, 2])
        return y


class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels), computed as a 2-D one of height 1."""

    rank = 1

    def call(self, inputs):
        self._check(inputs)
        x = inputs
        if self.data_format == "channels_first":
            x = transpose(x, [0, 2, 1])
        padding = self.padding
        if padding == "causal":
            # output t sees inputs <= t only: pad the past by the dilated kernel's reach
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = array_ops.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        x = expand_dims(x, 1)
        k = expand_dims(self.kernel, 0)
        y = _ops.conv2d(x, k, (1, self.strides[0]), padding.upper(),
                        (1, self.dilation_rate[0]))
        y = squeeze(y, axis=1)
        if self.use_bias:
            y = y + self.bias
        y = self.activation(y)
        if self.data_format == "channels_first":
            y = transpose(y, [0, 2, 1])
        return y


class Conv3D(_Conv):
    """3-D convolution over (batch, depth, height, width, channels): ``Conv3D(8, 3)``."""

    rank = 3

    def call(self, inputs):
        self._check(inputs)
        x = inputs
        if self.data_format == "channels_first":
            x = transpose(x, [0, 2, 3, 4, 1])
        args = (self.strides, self.padding.upper())
        if self.groups == 1:
            y = nn.conv3d(x, self.kernel, *args, dilations=self.dilation_rate)
        else:
            # TensorFlow's conv3d has no groups: one convolution per group, as Keras 3 does
            y = concat([nn.conv3d(xg, kg, *args, dilations=self.dilation_rate)
                           for xg, kg in zip(split(x, self.groups, axis=-1),
                                             split(self.kernel, self.groups, axis=-1))],
                          axis=-1)
        if self.use_bias:
            y = y + self.bias
        y = self.activation(y)
        if self.data_format == "channels_first":
            y = transpose(y, [0, 4, 1, 2, 3])
        return y


class _Pool(Layer):
    """Max or average pooling over ``_rank`` spatial axes; ``_fn(x, pool_size, strides,
    PADDING)`` pools channels_last input."""

    _fn = None
    _rank = 2

    @property
    def _input_ndim(self):
        return self._rank + 2

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        cls = type(self).__name__
        n = self._rank
        self.pool_size = _tuple(pool_size, n, "pool_size", cls)
        self.strides = self.pool_size if strides is None else _tuple(strides, n, "strides", cls)
        self.padding = _padding(padding, cls)
        self.data_format = _data_format(data_format, cls)

    def call(self, inputs):
        x = inputs
        last = self._rank + 1
        if self.data_format == "channels_first":
            x = transpose(x, [0] + list(range(2, last + 1)) + [1])
        y = type(self)._fn(x, self.pool_size, self.strides, self.padding.upper())
        if self.data_format == "channels_first":
            y = transpose(y, [0, last] + list(range(1, last)))
        return y

    def get_config(self):
        config = super().get_config()
        config.update(pool_size=self.pool_size, strides=self.strides, padding=self.padding,
                      data_format=self.data_format)
        return config


_Pool2D = _Pool


class _Pool1D(_Pool):
    _rank = 1

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size=pool_size, strides=strides, padding=padding,
                         data_format=data_format, name=name, **kwargs)


class _Pool3D(_Pool):
    _rank = 3

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size=pool_size, strides=strides, padding=padding,
                         data_format=data_format, name=name, **kwargs)


def _pool1d(fn):
    return staticmethod(lambda x, k, s, padding: fn(x, k[0], s[0], padding))


def _pool3d(fn):
    return staticmethod(lambda x, k, s, padding: fn(x, list(k), list(s), padding))


class MaxPooling1D(_Pool1D):
    """The maximum over each ``pool_size`` window of (N, steps, C) inputs."""

    _fn = _pool1d(nn.max_pool1d)


class AveragePooling1D(_Pool1D):
    """The mean over each ``pool_size`` window of (N, steps, C) inputs ('same': over the
    cells inside the input)."""

    _fn = _pool1d(nn.avg_pool1d)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None,
                 **kwargs):
        # (Keras 3 takes no default pool_size for average pooling in 1-D and 3-D)
        super().__init__(pool_size=pool_size, strides=strides, padding=padding,
                         data_format=data_format, name=name, **kwargs)


class MaxPooling3D(_Pool3D):
    """The maximum over each ``pool_size`` window of 5-D inputs."""

    _fn = _pool3d(nn.max_pool3d)


class AveragePooling3D(_Pool3D):
    """The mean over each ``pool_size`` window of 5-D inputs."""

    _fn = _pool3d(nn.avg_pool3d)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None,
                 **kwargs):
        # (Keras 3 takes no default pool_size for average pooling in 1-D and 3-D)
        super().__init__(pool_size=pool_size, strides=strides, padding=padding,
                         data_format=data_format, name=name, **kwargs)


class MaxPooling2D(_Pool2D):
    """The maximum over each ``pool_size`` window."""

    _fn = staticmethod(_ops.max_pool2d)


class AveragePooling2D(_Pool2D):
    """The mean over each ``pool_size`` window."""

    _fn = staticmethod(_ops.avg_pool2d)


class _GlobalPool(Layer):
    _reduce = None
    _spatial = (1, 2)

    @property
    def _input_ndim(self):
        return len(self._spatial) + 2

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format, type(self).__name__)
        self.keepdims = bool(keepdims)

    def call(self, inputs):
        axes = list(self._spatial) if self.data_format == "channels_last" else \
            [a + 1 for a in self._spatial]
        return type(self)._reduce(inputs, axis=axes, keepdims=self.keepdims)

    def get_config(self):
        config = super().get_config()
        config.update(data_format=self.data_format, keepdims=self.keepdims)
        return config


class GlobalAveragePooling2D(_GlobalPool):
    """The mean over height and width: (N, H, W, C) -> (N, C)."""

    _reduce = staticmethod(reduce_mean)


class GlobalMaxPooling2D(_GlobalPool):
    """The maximum over height and width: (N, H, W, C) -> (N, C)."""

    _reduce = staticmethod(reduce_max)


class GlobalAveragePooling1D(_GlobalPool):
    """The mean over time: (N, T, C) -> (N, C); with a mask (``Embedding(mask_zero=True)``
    before it), the mean over the unmasked steps only, as Keras."""

    _reduce = staticmethod(reduce_mean)
    _spatial = (1,)

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        last = self.data_format == "channels_last"
        steps = 1 if last else 2
        keep = expand_dims(cast(mask, dtypes.bool), 2 if last else 1)
        keep = broadcast_to(keep, array_ops.shape(inputs))
        total = reduce_sum(where(keep, inputs, zeros_like(inputs)), axis=steps,
                              keepdims=self.keepdims)
        return total / reduce_sum(cast(keep, inputs.dtype), axis=steps,
                                     keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        return None                        # the mask is used up: no time axis is left


class GlobalMaxPooling1D(_GlobalPool):
    _reduce = staticmethod(reduce_max)
    _spatial = (1,)


class GlobalAveragePooling3D(_GlobalPool):
    """The mean over the three spatial axes: (N, D, H, W, C) -> (N, C)."""

    _reduce = staticmethod(reduce_mean)
    _spatial = (1, 2, 3)


class GlobalMaxPooling3D(_GlobalPool):
    """The maximum over the three spatial axes: (N, D, H, W, C) -> (N, C)."""

    _reduce = staticmethod(reduce_max)
    _spatial = (1, 2, 3)


MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
MaxPool1D = MaxPooling1D
AvgPool1D = AveragePooling1D
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D
Convolution2D = Conv2D
Convolution3D = Conv3D
Convolution1D = Conv1D


def _transpose_length(size, k, stride, dilation, padding, output_padding):
    """Keras's output length of a transposed convolution along one axis."""
    k = k + (k - 1) * (dilation - 1)
    if output_padding is None:
        return size * stride + (max(k - stride, 0) if padding == "valid" else 0)
    pad = k // 2 if padding == "same" else 0
    return (size - 1) * stride + k - 2 * pad + output_padding


class Conv2DTranspose(_Conv):
    """The transpose of Conv2D (a "deconvolution"): ``Conv2DTranspose(16, 3, strides=2)``
    doubles height and width with 'same' padding. The kernel is (kh, kw, filters, in)."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 **kwargs):
        if "groups" in kwargs:
            # Keras 3's Conv2DTranspose has no groups argument
            raise ValueError("Unrecognized keyword arguments passed to Conv2DTranspose: %r"
                             % {"groups": kwargs["groups"]})
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer, **kwargs)
        cls = type(self).__name__
        self.output_padding = None
        if output_padding is not None:
            # 0 is a valid padding here, so not _tuple (which takes positive ints)
            n = self.rank
            pads = (output_padding,) * n if isinstance(output_padding, int) else output_padding
            try:
                self.output_padding = tuple(int(v) for v in pads)
            except (TypeError, ValueError):
                self.output_padding = ()
            if len(self.output_padding) != n or min(self.output_padding) < 0:
                raise ValueError("%s: output_padding must be an int or %d non-negative ints "
                                 "(got %r)" % (cls, n, output_padding))
        if self.output_padding is not None and any(
                p >= s for p, s in zip(self.output_padding, self.strides)):
            raise ValueError("%s: output_padding must be smaller than strides (got %s and %s)"
                             % (cls, self.output_padding, self.strides))

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        self._check_rank(shape)
        cin = shape[self._channel_axis()]
        if cin is None:
            raise ValueError("%s (layer %r): the channel dimension of the input must be known "
                             "(got input shape %s)" % (type(self).__name__, self.name, shape))
        self.kernel = self._add_weight("kernel", list(self.kernel_size) + [self.filters, cin],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def _check_inputs(self, inputs):
        # rank + 2 dimensions, with the channels the kernel was built for
        shape = inputs.shape.as_list()
        cin = self.kernel.shape[-1]
        if len(shape) != self.rank + 2 or shape[self._channel_axis()] != cin:
            raise errors.InvalidArgumentError(
                "%s (layer %r): expected inputs of rank %d with %d channels, as the kernel "
                "was built for (kernel shape %s, got input shape %s)"
                % (type(self).__name__, self.name, self.rank + 2, cin,
                   self.kernel.shape.as_list(), shape))

    def call(self, inputs):
        self._check_inputs(inputs)
        x = inputs
        if self.data_format == "channels_first":
            x = transpose(x, [0, 2, 3, 1])
        n, h, w, _ = x.shape.as_list()
        pads = self.output_padding or (None, None)
        out = [_transpose_length(size, k, s, d, self.padding, p) for size, k, s, d, p in
               zip((h, w), self.kernel_size, self.strides, self.dilation_rate, pads)]
        y = nn.conv2d_transpose(x, self.kernel, [n, out[0], out[1], self.filters],
                                   self.strides, self.padding.upper(),
                                   dilations=self.dilation_rate)
        if self.use_bias:
            y = y + self.bias
        y = self.activation(y)
        if self.data_format == "channels_first":
            y = transpose(y, [0, 3, 1, 2])
        return y

    def get_config(self):
        config = super().get_config()
        config["output_padding"] = None if self.output_padding is None \
            else list(self.output_padding)
        del config["groups"]               # (not an argument of Conv2DTranspose)
        return config


class Conv1DTranspose(Conv2DTranspose):
    """The transpose of Conv1D on (N, steps, C) inputs; the kernel is (k, filters, in). It
    runs as Conv2DTranspose over a height of 1."""

    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer, **kwargs)

    def call(self, inputs):
        self._check_inputs(inputs)
        x = inputs
        if self.data_format == "channels_first":
            x = transpose(x, [0, 2, 1])
        n, w, _ = x.shape.as_list()
        pad = self.output_padding[0] if self.output_padding else None
        out = _transpose_length(w, self.kernel_size[0], self.strides[0],
                                self.dilation_rate[0], self.padding, pad)
        y = nn.conv2d_transpose(expand_dims(x, 1), expand_dims(self.kernel, 0),
                                   [n, 1, out, self.filters], (1, self.strides[0]),
                                   self.padding.upper(),
                                   dilations=(1, self.dilation_rate[0]))
        y = squeeze(y, [1])
        if self.use_bias:
            y = y + self.bias
        y = self.activation(y)
        if self.data_format == "channels_first":
            y = transpose(y, [0, 2, 1])
        return y


Convolution1DTranspose = Conv1DTranspose


class DepthwiseConv2D(Layer):
    """Convolve each input channel with its own ``depth_multiplier`` filters: the kernel is
    (kh, kw, in_channels, depth_multiplier), the output has in * multiplier channels."""

    rank = 2

    @property
    def _input_ndim(self):
        return self.rank + 2

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        cls = type(self).__name__
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size", cls)
        self.strides = _tuple(strides, self.rank, "strides", cls)
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate", cls)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("%s: strides > 1 together with dilation_rate > 1 is not supported"
                             % cls)
        if isinstance(depth_multiplier, bool) or int(depth_multiplier) < 1:
            raise ValueError("%s: depth_multiplier must be a positive int (got %r)"
                             % (cls, depth_multiplier))
        self.depth_multiplier = int(depth_multiplier)
        self.padding = _padding(padding, cls)
        self.data_format = _data_format(data_format, cls)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def _channels(self, shape):
        cin = TensorShape(shape)[1 if self.data_format == "channels_first" else -1]
        if cin is None:
            raise ValueError("%s (layer %r): the channel dimension of the input must be known "
                             "(got input shape %s)" % (type(self).__name__, self.name, shape))
        return cin

    def build(self, input_shape):
        self._check_rank(TensorShape(input_shape))
        cin = self._channels(input_shape)
        self.kernel = self._add_weight(
            "kernel", list(self.kernel_size) + [cin, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.bias = self._add_weight("bias", [cin * self.depth_multiplier],
                                    initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def _depthwise(self, x, kernel):
        if x.shape.as_list()[-1] != kernel.shape[2]:
            raise errors.InvalidArgumentError(
                "%s (layer %r): expected inputs with %d channels, as the kernel was built for "
                "(kernel shape %s, got input shape %s)"
                % (type(self).__name__, self.name, kernel.shape[2], kernel.shape.as_list(),
                   x.shape.as_list()))
        return nn.depthwise_conv2d(x, kernel, [1] + list(self.strides) + [1],
                                      self.padding.upper(), dilations=self.dilation_rate)

    def call(self, inputs):
        x = inputs
        if self.data_format == "channels_first":
            x = transpose(x, [0, 2, 3, 1])
        y = self._depthwise(x, self.kernel)
        if self.use_bias:
            y = y + self.bias
        y = self.activation(y)
        if self.data_format == "channels_first":
            y = transpose(y, [0, 3, 1, 2])
        return y

    def get_config(self):
        config = super().get_config()
        config.update(kernel_size=self.kernel_size, strides=self.strides,
                      padding=self.padding, depth_multiplier=self.depth_multiplier,
                      data_format=self.data_format, dilation_rate=self.dilation_rate,
                      use_bias=self.use_bias)
        config.update(self._serialized("activation", "depthwise_initializer",
                                       "bias_initializer", "depthwise_regularizer",
                                       "bias_regularizer", "depthwise_constraint",
                                       "bias_constraint"))
        return config


class SeparableConv2D(DepthwiseConv2D):
    """A depthwise convolution, then a 1x1 convolution to ``filters`` channels: weights
    ``depthwise_kernel`` (kh, kw, in, multiplier), ``pointwise_kernel`` (1, 1, in *
    multiplier, filters) and ``bias`` (filters)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(kernel_size, strides=strides, padding=padding,
                         depth_multiplier=depth_multiplier, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                         depthwise_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        if isinstance(filters, bool) or int(filters) <= 0:
            raise ValueError("SeparableConv2D: filters must be a positive integer (got %r)"
                             % (filters,))
        self.filters = int(filters)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        self._check_rank(TensorShape(input_shape))
        cin = self._channels(input_shape)
        self.depthwise_kernel = self._add_weight(
            "depthwise_kernel", list(self.kernel_size) + [cin, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self._add_weight(
            "pointwise_kernel", [1] * self.rank + [cin * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = self._add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        x = inputs
        if self.data_format == "channels_first":
            x = transpose(x, [0, 2, 3, 1])
        y = _ops.conv2d(self._depthwise(x, self.depthwise_kernel), self.pointwise_kernel,
                        (1, 1), "VALID", (1, 1))
        if self.use_bias:
            y = y + self.bias
        y = self.activation(y)
        if self.data_format == "channels_first":
            y = transpose(y, [0, 3, 1, 2])
        return y

    def get_config(self):
        config = super().get_config()
        config["filters"] = self.filters
        config.update(self._serialized("pointwise_initializer", "pointwise_regularizer",
                                       "pointwise_constraint"))
        return config


Convolution2DTranspose = Conv2DTranspose
SeparableConvolution2D = SeparableConv2D


class Conv3DTranspose(Conv2DTranspose):
    """The transpose of Conv3D on (N, D, H, W, C) inputs; the kernel is (kd, kh, kw,
    filters, in)."""

    rank = 3

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, output_padding=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)

    def call(self, inputs):
        self._check_inputs(inputs)
        y = _kops_nn.conv_transpose(inputs, self.kernel, self.strides, self.padding,
                                    self.output_padding, self.data_format,
                                    self.dilation_rate)
        if self.use_bias:
            shape = [1] * 5
            shape[self._channel_axis()] = self.filters
            y = y + array_ops.reshape(self.bias, shape)
        return self.activation(y)


class DepthwiseConv1D(DepthwiseConv2D):
    """DepthwiseConv2D over (N, steps, C): the kernel is (k, in_channels,
    depth_multiplier)."""

    rank = 1

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(kernel_size, strides=strides, padding=padding,
                         depth_multiplier=depth_multiplier, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)

    def _finish(self, y):
        if self.use_bias:
            y = y + (array_ops.reshape(self.bias, [1, -1, 1])
                     if self.data_format == "channels_first" else self.bias)
        return self.activation(y)

    def call(self, inputs):
        return self._finish(_kops_nn.depthwise_conv(
            inputs, self.kernel, self.strides, self.padding, self.data_format,
            self.dilation_rate))


class SeparableConv1D(SeparableConv2D):
    """SeparableConv2D over (N, steps, C): ``depthwise_kernel`` (k, in, multiplier),
    ``pointwise_kernel`` (1, in * multiplier, filters), ``bias`` (filters)."""

    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         depth_multiplier=depth_multiplier, activation=activation,
                         use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                         pointwise_initializer=pointwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         pointwise_regularizer=pointwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         pointwise_constraint=pointwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)

    _finish = DepthwiseConv1D._finish

    def call(self, inputs):
        return self._finish(_kops_nn.separable_conv(
            inputs, self.depthwise_kernel, self.pointwise_kernel, self.strides, self.padding,
            self.data_format, self.dilation_rate))


Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
