"""Reshaping layers: Permute, RepeatVector, UpSampling2D, ZeroPadding2D, Cropping2D (Keras 3
names, defaults and configs; images channels_last unless ``data_format`` says otherwise).

>>> fe.keras.layers.ZeroPadding2D(1)(fe.zeros([1, 4, 4, 3])).shape
TensorShape([1, 6, 6, 3])
"""
import numpy as np

from ... import errors
from ...ops.array_ops import constant, expand_dims, pad, tile, transpose
from ...ops.indexing_ops import gather, repeat
from .base import Layer


def _bad(layer, msg):
    return ValueError("%s: %s" % (type(layer).__name__, msg))


def _data_format(layer, value):
    value = value or "channels_last"
    if value not in ("channels_last", "channels_first"):
        raise _bad(layer, "data_format must be 'channels_last' or 'channels_first' (got %r)"
                   % (value,))
    return value


def _spatial_axes(layer, n=2):
    return tuple(range(2, n + 2)) if layer.data_format == "channels_first" else \
        tuple(range(1, n + 1))


def _pairs(layer, argname, value, n=2):
    """An int, ``n`` ints (symmetric per axis) or ``n`` pairs of ints to ((before, after),
    ...) of non-negative ints, as ZeroPadding2D/3D and Cropping2D/3D take them."""
    try:
        if isinstance(value, (int, np.integer)):
            pairs = ((int(value),) * 2,) * n
        elif len(value) == n and all(isinstance(v, (int, np.integer)) for v in value):
            pairs = tuple((int(v), int(v)) for v in value)
        elif len(value) == n and all(len(v) == 2 for v in value):
            pairs = tuple((int(v[0]), int(v[1])) for v in value)
        else:
            raise ValueError
    except (TypeError, ValueError):
        raise _bad(layer, "%s must be an int, a tuple of %d ints or a tuple of %d tuples of 2 "
                   "ints (got %r)" % (argname, n, n, value)) from None
    if min(min(p) for p in pairs) < 0:
        raise _bad(layer, "%s must be non-negative (got %r)" % (argname, value))
    return pairs


class Permute(Layer):
    """Permute the non-batch axes: ``Permute((2, 1))`` swaps the two axes of (batch, a, b).

    ``dims`` numbers the axes from 1 (the batch axis is not permuted)."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        try:
            self.dims = tuple(int(d) for d in dims)
        except (TypeError, ValueError):
            raise ValueError("Permute: dims must be a tuple of ints (got %r)" % (dims,)) \
                from None
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError("Invalid permutation argument `dims` for Permute Layer. The set of "
                             "indices in `dims` must be consecutive and start from 1. Received "
                             "dims=%s" % (self.dims,))

    def call(self, inputs):
        if inputs.shape.rank != len(self.dims) + 1:
            raise errors.InvalidArgumentError(
                "Permute (layer %r): dims %s need inputs of rank %d (got shape %s)"
                % (self.name, self.dims, len(self.dims) + 1, inputs.shape.as_list()))
        return transpose(inputs, [0] + list(self.dims))

    def get_config(self):
        config = super().get_config()
        config["dims"] = list(self.dims)
        return config


class RepeatVector(Layer):
    """Repeat a (batch, features) input ``n`` times: (batch, n, features)."""

    _input_ndim = 2

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise TypeError("RepeatVector: n must be a positive integer (got %r)" % (n,))
        self.n = int(n)

    def call(self, inputs):
        return tile(expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self):
        config = super().get_config()
        config["n"] = self.n
        return config


def _resize_axis_linear(x, axis, size):
    """Linear interpolation of ``x`` to ``size`` entries along ``axis``, with half-pixel
    centres (TensorFlow's resize_bilinear with half_pixel_centers=True, Keras's default):
    output i samples the input at (i + 0.5) * n / size - 0.5, clamped to the edges."""
    n = x.shape.as_list()[axis]
    src = np.clip((np.arange(size) + 0.5) * n / size - 0.5, 0, n - 1)
    lo = np.floor(src).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    shape = [1] * x.shape.rank
    shape[axis] = size
    w = constant((src - lo).reshape(shape), dtype=x.dtype)
    return gather(x, lo, axis=axis) * (1.0 - w) + gather(x, hi, axis=axis) * w


class UpSampling2D(Layer):
    """Repeat rows and columns ``size`` times ('nearest') or interpolate them ('bilinear')."""

    _input_ndim = 4

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        if isinstance(size, (int, np.integer)):
            size = (size, size)
        try:
            self.size = tuple(int(s) for s in size)
        except (TypeError, ValueError):
            self.size = ()
        if len(self.size) != 2 or min(self.size) < 1:
            raise ValueError("UpSampling2D: size must be an int or 2 positive ints (got %r)"
                             % (size,))
        self.data_format = _data_format(self, data_format)
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError("UpSampling2D: interpolation must be 'nearest' or 'bilinear' "
                             "(got %r)" % (interpolation,))
        self.interpolation = interpolation

    def call(self, inputs):
        x = inputs
        for axis, factor in zip(_spatial_axes(self), self.size):
            if factor == 1:
                continue
            if self.interpolation == "nearest":
                x = repeat(x, factor, axis=axis)
            else:
                x = _resize_axis_linear(x, axis, x.shape.as_list()[axis] * factor)
        return x

    def get_config(self):
        config = super().get_config()
        config.update(size=list(self.size), data_format=self.data_format,
                      interpolation=self.interpolation)
        return config


class ZeroPadding2D(Layer):
    """Pad rows and columns with zeros: ``padding`` an int, (rows, cols) or ((top, bottom),
    (left, right))."""

    _input_ndim = 4

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(self, "padding", padding)
        self.data_format = _data_format(self, data_format)

    def call(self, inputs):
        pads = [[0, 0]] * 4
        for axis, pair in zip(_spatial_axes(self), self.padding):
            pads[axis] = list(pair)
        return pad(inputs, pads)

    def get_config(self):
        config = super().get_config()
        config.update(padding=[list(p) for p in self.padding], data_format=self.data_format)
        return config


class Cropping2D(Layer):
    """Remove rows and columns at the edges: ``cropping`` as ZeroPadding2D's ``padding``."""

    _input_ndim = 4

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(self, "cropping", cropping)
        self.data_format = _data_format(self, data_format)

    def call(self, inputs):
        shape = inputs.shape.as_list()
        index = [slice(None)] * 4
        for axis, (before, after) in zip(_spatial_axes(self), self.cropping):
            if before + after >= shape[axis]:
                raise errors.InvalidArgumentError(
                    "Cropping2D (layer %r): cropping %s leaves nothing of an input of shape %s "
                    "(expected less than %d along axis %d)"
                    % (self.name, self.cropping, shape, shape[axis], axis))
            index[axis] = slice(before, shape[axis] - after)
        return inputs[tuple(index)]

    def get_config(self):
        config = super().get_config()
        config.update(cropping=[list(c) for c in self.cropping], data_format=self.data_format)
        return config


def _pair(layer, argname, value):
    """An int or a pair of non-negative ints (the two ends of the steps axis)."""
    try:
        pair = (int(value),) * 2 if isinstance(value, (int, np.integer)) else \
            tuple(int(v) for v in value)
    except (TypeError, ValueError):
        pair = ()
    if len(pair) != 2 or min(pair) < 0 or isinstance(value, bool):
        raise _bad(layer, "%s must be a non-negative int or a pair of them (got %r)"
                   % (argname, value))
    return pair


class UpSampling1D(Layer):
    """Repeat each step ``size`` times: (batch, steps, features) -> (batch, steps * size,
    features)."""

    _input_ndim = 3

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ValueError("UpSampling1D: size must be a positive int (got %r)" % (size,))
        self.size = int(size)

    def call(self, inputs):
        return repeat(inputs, self.size, axis=1) if self.size > 1 else inputs

    def get_config(self):
        config = super().get_config()
        config["size"] = self.size
        return config


class ZeroPadding1D(Layer):
    """Pad the steps axis with zeros: ``padding`` an int or (before, after)."""

    _input_ndim = 3

    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pair(self, "padding", padding)

    def call(self, inputs):
        return pad(inputs, [[0, 0], list(self.padding), [0, 0]])

    def get_config(self):
        config = super().get_config()
        config["padding"] = list(self.padding)
        return config


class Cropping1D(Layer):
    """Remove steps at both ends: ``cropping`` an int or (before, after)."""

    _input_ndim = 3

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pair(self, "cropping", cropping)

    def call(self, inputs):
        steps = inputs.shape.as_list()[1]
        before, after = self.cropping
        if before + after >= steps:
            raise errors.InvalidArgumentError(
                "Cropping1D (layer %r): cropping %s leaves nothing of %d steps (expected less "
                "than %d in all)" % (self.name, self.cropping, steps, steps))
        return inputs[:, before:steps - after]

    def get_config(self):
        config = super().get_config()
        config["cropping"] = list(self.cropping)
        return config


class UpSampling3D(Layer):
    """Repeat each of the three spatial axes ``size`` times (nearest neighbour)."""

    _input_ndim = 5

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(size, (int, np.integer)):
            size = (size,) * 3
        try:
            self.size = tuple(int(s) for s in size)
        except (TypeError, ValueError):
            self.size = ()
        if len(self.size) != 3 or min(self.size) < 1:
            raise ValueError("UpSampling3D: size must be an int or 3 positive ints (got %r)"
                             % (size,))
        self.data_format = _data_format(self, data_format)

    def call(self, inputs):
        x = inputs
        for axis, factor in zip(_spatial_axes(self, 3), self.size):
            if factor != 1:
                x = repeat(x, factor, axis=axis)
        return x

    def get_config(self):
        config = super().get_config()
        config.update(size=self.size, data_format=self.data_format)
        return config


class ZeroPadding3D(Layer):
    """Pad the three spatial axes with zeros: ``padding`` an int, 3 ints or 3 pairs."""

    _input_ndim = 5

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(self, "padding", padding, 3)
        self.data_format = _data_format(self, data_format)

    def call(self, inputs):
        pads = [[0, 0]] * 5
        for axis, pair in zip(_spatial_axes(self, 3), self.padding):
            pads[axis] = list(pair)
        return pad(inputs, pads)

    def get_config(self):
        config = super().get_config()
        config.update(padding=self.padding, data_format=self.data_format)
        return config


class Cropping3D(Layer):
    """Remove entries at the edges of the three spatial axes: ``cropping`` as
    ZeroPadding3D's ``padding``."""

    _input_ndim = 5

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(self, "cropping", cropping, 3)
        self.data_format = _data_format(self, data_format)

    def call(self, inputs):
        shape = inputs.shape.as_list()
        index = [slice(None)] * 5
        for axis, (before, after) in zip(_spatial_axes(self, 3), self.cropping):
            if before + after >= shape[axis]:
                raise ValueError(
                    "Cropping3D (layer %r): cropping %s leaves nothing of an input of shape %s "
                    "(expected less than %d along axis %d)"
                    % (self.name, self.cropping, shape, shape[axis], axis))
            index[axis] = slice(before, shape[axis] - after)
        return inputs[tuple(index)]

    def get_config(self):
        config = super().get_config()
        config.update(cropping=self.cropping, data_format=self.data_format)
        return config
