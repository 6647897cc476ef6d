"""Convolution and pooling layers (channels_last: NHWC for 2-D, NWC for 1-D)."""
import fasteager as fe

from .. import _ops, activations, initializers, regularizers
from .base import Layer


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


def _padding(value, layer):
    p = str(value).lower()
    if p not in ("valid", "same"):
        raise ValueError("%s: padding must be 'valid' or 'same' (got %r)" % (layer, value))
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
        super().__init__(**kwargs)
        cls = type(self).__name__
        if int(filters) <= 0:
            raise ValueError("%s: filters must be a positive integer (got %r)" % (cls, filters))
        if groups != 1:
            raise ValueError("%s: only groups=1 is supported (got %r)" % (cls, groups))
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size", cls)
        self.strides = _tuple(strides, self.rank, "strides", cls)
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate", cls)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("%s: strides > 1 together with dilation_rate > 1 is not supported"
                             % cls)
        self.padding = _padding(padding, cls)
        self.data_format = _data_format(data_format, cls)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape):
        shape = fe.TensorShape(input_shape)
        self._check_rank(shape)
        cin = shape[self._channel_axis()]
        self.kernel = self.add_weight("kernel", list(self.kernel_size) + [cin, self.filters],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer) if self.use_bias else None
        self.built = True

    def _check(self, inputs):
        shape = inputs.shape.as_list()
        cin = self.kernel.shape[-2]
        if len(shape) != self.rank + 2 or shape[self._channel_axis()] != cin:
            raise fe.errors.InvalidArgumentError(
                "%s (layer %r): expected inputs of rank %d with %d channels, as the kernel was "
                "built for (kernel shape %s, got input shape %s)"
                % (type(self).__name__, self.name, self.rank + 2, cin,
                   self.kernel.shape.as_list(), shape))

    def get_config(self):
        config = super().get_config()
        config.update(filters=self.filters, kernel_size=self.kernel_size, strides=self.strides,
                      padding=self.padding, data_format=self.data_format,
                      dilation_rate=self.dilation_rate,
                      use_bias=self.use_bias)
        config.update(self._serialized("activation", "kernel_initializer", "bias_initializer",
                                       "kernel_regularizer", "bias_regularizer"))
        return config


class Conv2D(_Conv):
    """2-D convolution: ``Conv2D(16, 3, activation='relu', padding='same')``."""

    rank = 2

    def call(self, inputs):
        self._check(inputs)
        x = inputs
        if self.data_format == "channels_first":
            x = fe.transpose(x, [0, 2, 3, 1])
        y = _ops.conv2d(x, self.kernel, self.strides, self.padding.upper(), self.dilation_rate)
        if self.use_bias:
            y = y + self.bias
        y = self.activation(y)
        if self.data_format == "channels_first":
            y = fe.transpose(y, [0, 3, 1, 2])
        return y


class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels), computed as a 2-D one of height 1."""

    rank = 1

    def call(self, inputs):
        self._check(inputs)
        x = inputs
        if self.data_format == "channels_first":
            x = fe.transpose(x, [0, 2, 1])
        x = fe.expand_dims(x, 1)
        k = fe.expand_dims(self.kernel, 0)
        y = _ops.conv2d(x, k, (1, self.strides[0]), self.padding.upper(),
                        (1, self.dilation_rate[0]))
        y = fe.squeeze(y, axis=1)
        if self.use_bias:
            y = y + self.bias
        y = self.activation(y)
        if self.data_format == "channels_first":
            y = fe.transpose(y, [0, 2, 1])
        return y


class _Pool2D(Layer):
    _fn = None
    _input_ndim = 4

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        cls = type(self).__name__
        self.pool_size = _tuple(pool_size, 2, "pool_size", cls)
        self.strides = self.pool_size if strides is None else _tuple(strides, 2, "strides", cls)
        self.padding = _padding(padding, cls)
        self.data_format = _data_format(data_format, cls)

    def call(self, inputs):
        x = inputs
        if self.data_format == "channels_first":
            x = fe.transpose(x, [0, 2, 3, 1])
        y = type(self)._fn(x, self.pool_size, self.strides, self.padding.upper())
        if self.data_format == "channels_first":
            y = fe.transpose(y, [0, 3, 1, 2])
        return y

    def get_config(self):
        config = super().get_config()
        config.update(pool_size=self.pool_size, strides=self.strides, padding=self.padding,
                      data_format=self.data_format)
        return config


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

    _reduce = staticmethod(fe.reduce_mean)


class GlobalMaxPooling2D(_GlobalPool):
    """The maximum over height and width: (N, H, W, C) -> (N, C)."""

    _reduce = staticmethod(fe.reduce_max)


class GlobalAveragePooling1D(_GlobalPool):
    _reduce = staticmethod(fe.reduce_mean)
    _spatial = (1,)


class GlobalMaxPooling1D(_GlobalPool):
    _reduce = staticmethod(fe.reduce_max)
    _spatial = (1,)


MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
Convolution2D = Conv2D
Convolution1D = Conv1D
