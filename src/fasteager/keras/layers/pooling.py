"""Adaptive pooling layers: pool any input size down to a fixed ``output_size``, as
Keras 3's AdaptiveAveragePooling1D/2D/3D and AdaptiveMaxPooling1D/2D/3D (the windows and
values are keras.ops.adaptive_average_pool / adaptive_max_pool's)."""
from ..backend import image_data_format
from ..ops import nn as _kops_nn
from .base import Layer

_AXES = {1: "length", 2: "(height, width)", 3: "(depth, height, width)"}


class _AdaptivePool(Layer):
    rank = 2
    _pool = None

    @property
    def _input_ndim(self):
        return self.rank + 2

    def __init__(self, output_size, data_format=None, **kwargs):
        n = self.rank
        if isinstance(output_size, int) and not isinstance(output_size, bool):
            size = (output_size,) * n
        elif isinstance(output_size, (tuple, list)) and (len(output_size) == n or n == 1):
            if len(output_size) != n:
                raise ValueError("For 1D input, `output_size` tuple must have length 1. "
                                 "Received: %s" % (output_size,))
            size = tuple(output_size)
        else:
            raise TypeError("`output_size` must be an integer or %s tuple. Received: %s of "
                            "type %s" % (_AXES[n], output_size, type(output_size)))
        super().__init__(**kwargs)
        self.output_size = size
        self.data_format = data_format or image_data_format()
        if self.data_format not in ("channels_first", "channels_last"):
            raise ValueError("Invalid data_format: %s. Expected 'channels_first' or "
                             "'channels_last'." % (self.data_format,))

    def call(self, inputs):
        return type(self)._pool(inputs, self.output_size, self.data_format)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        if self.data_format == "channels_last":
            return (shape[0],) + self.output_size + (shape[-1],)
        return (shape[0], shape[1]) + self.output_size

    def get_config(self):
        config = super().get_config()
        config.update(output_size=self.output_size, data_format=self.data_format)
        return config


class AdaptiveAveragePooling1D(_AdaptivePool):
    """Average-pool (N, steps, C) to ``output_size`` steps."""
    rank = 1
    _pool = staticmethod(_kops_nn.adaptive_average_pool)


class AdaptiveAveragePooling2D(_AdaptivePool):
    """Average-pool (N, H, W, C) to ``output_size`` = (h, w) (an int for both)."""
    rank = 2
    _pool = staticmethod(_kops_nn.adaptive_average_pool)


class AdaptiveAveragePooling3D(_AdaptivePool):
    """Average-pool (N, D, H, W, C) to ``output_size`` = (d, h, w) (an int for all)."""
    rank = 3
    _pool = staticmethod(_kops_nn.adaptive_average_pool)


class AdaptiveMaxPooling1D(_AdaptivePool):
    """Max-pool (N, steps, C) to ``output_size`` steps."""
    rank = 1
    _pool = staticmethod(_kops_nn.adaptive_max_pool)


class AdaptiveMaxPooling2D(_AdaptivePool):
    """Max-pool (N, H, W, C) to ``output_size`` = (h, w) (an int for both)."""
    rank = 2
    _pool = staticmethod(_kops_nn.adaptive_max_pool)


class AdaptiveMaxPooling3D(_AdaptivePool):
    """Max-pool (N, D, H, W, C) to ``output_size`` = (d, h, w) (an int for all)."""
    rank = 3
    _pool = staticmethod(_kops_nn.adaptive_max_pool)
