"""Keras 3's value-range image layers that are not augmentations by chance (AutoContrast,
Equalization, Solarization) and MaxNumBoundingBoxes, on the image-layer call path of
``augmentation._ImageAugmentation`` (batch or single image, or a dict with ``images``).

They follow Keras 3.15.1: AutoContrast and Equalization apply in inference too (their
``transform_images`` ignores ``training``, as Keras's), Solarization draws its addition
and threshold from its seed generator in Keras's order and leaves images unchanged in
inference.
"""
import numpy as np

from .. import ops as kops
from ..random import SeedGenerator, uniform
from .augmentation import _ImageAugmentation, _images_of, _rescale


def _value_range(value_range):
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError("The `value_range` argument should be a list of two numbers. "
                         "Received: value_range=%s" % (value_range,))
    return sorted(value_range)


def _back_to_dtype(results, images_dtype, dtype):
    """Keras's end of a colour layer: integer images get their values rounded and
    clipped into their dtype (saturate cast)."""
    if results.dtype == images_dtype:
        return results
    if "int" in str(images_dtype):
        results = kops.round(results)
        info = np.iinfo(str(images_dtype))
        results = kops.clip(results, float(info.min), float(info.max))
    return kops.cast(results, images_dtype)


class AutoContrast(_ImageAugmentation):
    """Stretch each image's channels to span ``value_range``: ``(x - min) * 255 /
    (max - min)`` over the height and width of each image (per channel), back in
    ``value_range``; a flat channel (NaN from 0/0) keeps its input values."""

    _USE_BASE_FACTOR = False

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = _value_range(value_range)

    def transform_images(self, images, transformation=None, training=True):
        original = images
        dtype = self.dtype
        images = kops.cast(_rescale(images, self.value_range, (0, 255), dtype), dtype)
        low = kops.min(images, axis=(1, 2), keepdims=True)
        high = kops.max(images, axis=(1, 2), keepdims=True)
        # a flat channel (0/0 in Keras's scale, NaN) keeps its input values; the scale
        # of such a channel is computed on 1 so that no inf - inf is evaluated
        flat = kops.equal(high, low)
        scale = 255.0 / kops.where(flat, kops.ones_like(high), high - low)
        results = kops.clip(images * scale + (-low * scale), 0.0, 255.0)
        results = _rescale(results, (0, 255), self.value_range, dtype)
        keep = kops.logical_or(kops.isnan(results), kops.broadcast_to(flat, results.shape))
        results = kops.where(keep, kops.cast(original, results.dtype), results)
        return _back_to_dtype(results, images.dtype, dtype)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def get_config(self):
        config = super().get_config()
        config["value_range"] = self.value_range
        return config


class Equalization(_ImageAugmentation):
    """Histogram equalization of each channel (over the whole batch, as Keras's): a
    ``bins``-bin histogram on [0, 255], its cumulative counts rescaled to [0, 255] and
    rounded as the lookup table; a channel with a single occupied bin is unchanged."""

    _USE_BASE_FACTOR = False

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.bins = bins
        self.value_range = _value_range(value_range)

    @staticmethod
    def _scale(values, source, target):
        scale = (target[1] - target[0]) / (source[1] - source[0])
        return values * scale + (target[0] - source[0] * scale)

    def _histogram(self, channel):
        scaled = kops.cast(channel, "float32") * (self.bins - 1) / 255.0
        indices = kops.clip(kops.cast(scaled, "int32"), 0, self.bins - 1)
        return kops.bincount(kops.reshape(indices, [-1]), minlength=self.bins)

    def _equalize_channel(self, channel):
        channel = self._scale(channel, self.value_range, (0, 255))
        hist = self._histogram(channel)
        if int(kops.count_nonzero(hist)) <= 1:
            equalized = channel
        else:
            cdf = kops.cumsum(hist)
            cdf_min = cdf[int(np.flatnonzero(kops.convert_to_numpy(cdf))[0])]
            denominator = cdf[-1] - cdf_min
            if int(denominator) == 0:
                denominator = kops.ones_like(denominator)
            table = kops.clip(kops.round((cdf - cdf_min) * 255 / denominator), 0, 255)
            index = kops.cast(kops.clip(channel / 255.0 * (self.bins - 1), 0, self.bins - 1),
                              "int32")
            equalized = kops.take(table, index)
        return self._scale(equalized, (0, 255), self.value_range)

    def transform_images(self, images, transformation=None, training=True):
        if not training:
            return images
        images = kops.cast(images, self.dtype)
        axis = -3 if self.data_format == "channels_first" else -1
        channels = [self._equalize_channel(kops.take(images, i, axis=axis))
                    for i in range(images.shape[axis])]
        return kops.cast(kops.stack(channels, axis=axis), self.dtype)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def get_config(self):
        config = super().get_config()
        config.update({"bins": self.bins, "value_range": self.value_range})
        return config


class Solarization(_ImageAugmentation):
    """Add a drawn ``addition`` (in ``addition_factor * 255``), then invert the pixels at
    or above a drawn ``threshold`` (in ``threshold_factor * 255``): one draw per image,
    on the [0, 255] scale of ``value_range``."""

    _USE_BASE_FACTOR = False
    _FACTOR_ERROR = ("The `addition_factor` and `threshold_factor` arguments should be a "
                     "number (or a list of two numbers) in the range [0, 1]. ")

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255),
                 seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.generator = SeedGenerator(seed)
        self.addition_factor = self._check_factor(addition_factor, "addition_factor")
        self.threshold_factor = self._check_factor(threshold_factor, "threshold_factor")
        self.value_range = _value_range(value_range)

    def _check_factor(self, factor, name):
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2:
                raise ValueError(self._FACTOR_ERROR + "Received: %s=%s" % (name, factor))
            values = list(factor)
        elif isinstance(factor, (int, float)):
            values = [factor]
        else:
            raise ValueError(self._FACTOR_ERROR + "Received: %s=%s" % (name, factor))  # noqa: TRY004 (Keras)
        for v in values:
            if v > 1.0 or v < 0:
                raise ValueError(self._FACTOR_ERROR + "Received: input_number=%s" % (v,))
        return tuple(sorted(factor)) if isinstance(factor, (tuple, list)) else (0, factor)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        shape = _images_of(data).shape
        factor_shape = (shape[0], 1, 1, 1) if len(shape) == 4 else (1, 1, 1)
        seed = self.generator if seed is None else seed
        return {
            "additions": uniform(factor_shape, minval=self.addition_factor[0],
                                 maxval=self.addition_factor[1] * 255, seed=seed,
                                 dtype=self.dtype),
            "thresholds": uniform(factor_shape, minval=self.threshold_factor[0],
                                  maxval=self.threshold_factor[1] * 255, seed=seed,
                                  dtype=self.dtype),
        }

    def transform_images(self, images, transformation, training=True):
        images = kops.cast(images, self.dtype)
        if not training or transformation is None:
            return images
        additions = transformation["additions"]
        thresholds = transformation["thresholds"]
        images = _rescale(images, self.value_range, (0, 255), self.dtype)
        results = kops.clip(images + additions, 0, 255)
        results = kops.where(results < thresholds, results, 255 - results)
        results = _rescale(results, (0, 255), self.value_range, self.dtype)
        return _back_to_dtype(results, images.dtype, self.dtype)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def get_config(self):
        config = super().get_config()
        config.update({"value_range": self.value_range,
                       "addition_factor": self.addition_factor,
                       "threshold_factor": self.threshold_factor, "seed": self.seed})
        return config


class MaxNumBoundingBoxes(_ImageAugmentation):
    """Cut or pad each example's ``bounding_boxes`` (``boxes`` (batch, n, 4) and
    ``labels`` (batch, n), or one example's) to ``max_number`` boxes, padding with
    ``fill_value``; images, labels and masks pass through."""

    _USE_BASE_FACTOR = False

    def __init__(self, max_number, fill_value=-1, **kwargs):
        super().__init__(**kwargs)
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)

    def transform_images(self, images, transformation=None, training=True):
        return images

    def _fit(self, values, batched):
        """``values`` cut or padded on its box axis to ``max_number``."""
        values = kops.convert_to_tensor(values)
        if not batched:
            values = kops.expand_dims(values, 0)
        n = values.shape[1]
        values = values[:, :self.max_number]
        pad = [[0, 0], [0, max(self.max_number - n, 0)]] + [[0, 0]] * (len(values.shape) - 2)
        values = kops.pad(values, pad, constant_values=self.fill_value)
        return values if batched else values[0]

    def call(self, data, training=True):
        if not isinstance(data, dict) or "bounding_boxes" not in data:
            return super().call(data, training=training)
        if not self.bounding_box_format:
            raise ValueError("You passed an input with a 'bounding_boxes' key, but you didn't "
                             "specify a bounding box format. Pass a `bounding_box_format` "
                             "argument to your %s layer, e.g. `bounding_box_format='xyxy'`."
                             % type(self).__name__)
        boxes = data["bounding_boxes"]
        if not isinstance(boxes, dict) or set(boxes) - {"boxes", "labels"} or \
                "boxes" not in boxes or "labels" not in boxes:
            raise ValueError("Expected `bounding_boxes` to be a dict with the keys 'boxes' "
                             "and 'labels'. Received: %s" % (boxes,))
        rest = {k: v for k, v in data.items() if k != "bounding_boxes"}
        out = super().call(rest, training=training) if "images" in rest else dict(rest)
        batched = len(_images_of(data).shape) == 4 if "images" in data else \
            len(np.shape(boxes["boxes"])) == 3
        out["bounding_boxes"] = {"boxes": self._fit(boxes["boxes"], batched),
                                 "labels": self._fit(boxes["labels"], batched)}
        return out

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        # (Keras's config leaves fill_value out, so its reload pads with -1: kept here)
        config = super().get_config()
        config.update({"max_number": self.max_number, "fill_value": self.fill_value})
        return config
