"""Keras 3's random image augmentation layers (``keras.layers.RandomFlip`` ...).

As Keras 3.15 (its BaseImagePreprocessingLayer): ``call(data, training=True)`` takes a
batch (rank 4) or one image (rank 3), or a dict with ``"images"`` (and ``"labels"`` /
``"segmentation_masks"``); a direct call transforms (training defaults to True), while in
inference the images come back unchanged (cast to the layer's dtype). Each layer draws its
random parameters from its own ``SeedGenerator(seed)`` in Keras's order, so a seeded layer
draws the values Keras's does.

Example::

    augment = fe.keras.Sequential([fe.keras.layers.RandomFlip("horizontal", seed=1),
                                   fe.keras.layers.RandomRotation(0.1, seed=2)])
    images = augment(images)                    # transformed (a direct call trains)
    same = augment(images, training=False)      # returned unchanged
"""
import math
import random as _python_random

from .. import _image_utils
from .. import backend as _backend
from .. import ops as kops
from ..random import SeedGenerator, beta, normal, randint, shuffle, uniform
from .base import KerasTensor, Layer

_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("nearest", "bilinear")


def _check_choice(argname, value, allowed):
    if value not in allowed:
        # (Keras raises NotImplementedError for these two arguments)
        raise NotImplementedError("Unknown `%s` %s. Expected of one %s." % (argname, value, allowed))


def _hw_axes(data_format):
    return (-2, -1) if data_format == "channels_first" else (-3, -2)


class _ImageAugmentation(Layer):
    """The shared call path: batched / single image / dict, the factor range, the dtype."""

    _USE_BASE_FACTOR = True
    _FACTOR_BOUNDS = (-1, 1)

    def __init__(self, factor=None, bounding_box_format=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.bounding_box_format = bounding_box_format
        self.data_format = _image_utils.standardize_data_format(data_format)
        if self._USE_BASE_FACTOR:
            self._set_factor(factor or 0.0)
        elif factor is not None:
            raise ValueError("Layer %s does not take a `factor` argument. Received: factor=%s"
                             % (type(self).__name__, factor))

    def _draw_applied(self, batch, seed):
        """Which images of the batch the layer changes: a probability drawn in the factor
        range per image, then a uniform draw under it (Keras's two draws, in its order)."""
        probability = uniform((batch,), minval=self.factor[0], maxval=self.factor[1],
                              seed=seed)
        threshold = uniform((batch,), minval=0.0, maxval=1.0, seed=seed)
        return threshold < probability

    def _set_factor(self, factor):
        lo, hi = self._FACTOR_BOUNDS
        message = ("The `factor` argument should be a number (or a list of two numbers) in the "
                   "range [%s, %s]. Received: factor=%s" % (lo, hi, factor))
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or factor[0] > hi or factor[1] < lo:
                raise ValueError(message)
            lower, upper = sorted(factor)
        elif isinstance(factor, (int, float)) and not isinstance(factor, bool):
            if factor < lo or factor > hi:
                raise ValueError(message)
            factor = abs(factor)
            lower, upper = max(-factor, lo), factor
        else:
            raise ValueError(message)
        self.factor = (lower, upper)

    # -- what each layer defines
    def get_random_transformation(self, data, training=True, seed=None):
        return None

    def _transform_images(self, images, transformation):
        raise NotImplementedError

    def transform_images(self, images, transformation, training=True):
        images = kops.cast(images, self.compute_dtype)
        if training:
            images = self._transform_images(images, transformation)
        return images

    def transform_labels(self, labels, transformation, training=True):
        return labels

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return self.transform_images(masks, transformation, training=training)

    # -- the call
    def _seed(self, seed):
        return self.generator if seed is None else seed

    @staticmethod
    def _is_batched(images):
        rank = len(images.shape)
        if rank not in (3, 4):
            raise ValueError("Expected image tensor to have rank 3 (single image) or 4 (batch "
                             "of images). Received: data.shape=%s" % (tuple(images.shape),))
        return rank == 4

    def _apply(self, fn, value, transformation, training):
        value = kops.convert_to_tensor(value)
        if self._is_batched(value):
            return fn(value, transformation, training=training)
        out = fn(kops.expand_dims(value, 0), transformation, training=training)
        return kops.squeeze(out, 0)

    def call(self, data, training=True):
        if training is None:      # no training flag anywhere: Keras's default, True
            training = True
        self._is_batched(_images_of(data))     # rank 3 or 4, before any draw
        transformation = self.get_random_transformation(data, training=training)
        if isinstance(data, dict):
            if "bounding_boxes" in data:
                raise NotImplementedError("%s: bounding_boxes inputs are not supported in "
                                          "fasteager" % type(self).__name__)
            out = dict(data)
            out["images"] = self._apply(self.transform_images, data["images"], transformation,
                                        training)
            if "labels" in data:
                out["labels"] = self.transform_labels(kops.convert_to_tensor(data["labels"]),
                                                      transformation, training=training)
            if "segmentation_masks" in data:
                out["segmentation_masks"] = self._apply(
                    self.transform_segmentation_masks, data["segmentation_masks"],
                    transformation, training)
            return out
        return self._apply(self.transform_images, data, transformation, training)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config

    # -- helpers shared by the geometric layers
    def _image_size(self, images):
        shape = images.shape
        h_axis, w_axis = _hw_axes(self.data_format)
        batch = shape[0] if len(shape) == 4 else 1
        return batch, shape[h_axis], shape[w_axis]

    def _affine(self, images, matrix):
        return kops.image.affine_transform(
            images, matrix, interpolation=self.interpolation, fill_mode=self.fill_mode,
            fill_value=self.fill_value, data_format=self.data_format)

    @staticmethod
    def _affine_matrix(center_x, center_y, angle, translate_x, translate_y, scale, shear_x,
                       shear_y, height, width):
        """Keras's scale * shear * rotation about the centre (angles in degrees), as the
        8-vector affine_transform takes, one row per image."""
        to_rad = math.pi / 180.0
        angle = angle * to_rad
        shear_x = kops.tan(shear_x * to_rad)
        shear_y = kops.tan(shear_y * to_rad)
        batch = angle.shape[0]
        cx = center_x * (float(width) - 1)
        cy = center_y * (float(height) - 1)
        cos, sin = kops.cos(angle), kops.sin(angle)
        a0 = scale * (cos + shear_x * sin)
        a1 = scale * (-sin + shear_x * cos)
        a2 = translate_x + cx - cx * a0 - cy * a1
        b0 = scale * (shear_y * cos + sin)
        b1 = scale * (shear_y * -sin + cos)
        b2 = translate_y + cy - cx * b0 - cy * b1
        return kops.concatenate([a0[:, None], a1[:, None], a2[:, None], b0[:, None],
                                 b1[:, None], b2[:, None], kops.zeros((batch, 2))], axis=1)


def _images_of(data):
    return kops.convert_to_tensor(data["images"] if isinstance(data, dict) else data)


class RandomFlip(_ImageAugmentation):
    """Flips each image horizontally and/or vertically with probability 1/2."""

    _USE_BASE_FACTOR = False

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.seed = seed
        self.generator = SeedGenerator(seed)
        self.mode = mode

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = _images_of(data)
        shape = (1, 1, 1) if len(images.shape) == 3 else (images.shape[0], 1, 1, 1)
        flips = kops.less_equal(uniform(shape, seed=self._seed(seed)), 0.5)
        return {"flips": flips}

    def _transform_images(self, images, transformation):
        if transformation is None:
            return images
        flips = transformation["flips"]
        flips = kops.reshape(flips, (-1, 1, 1, 1))
        h_axis, w_axis = _hw_axes(self.data_format)
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = kops.where(flips, kops.flip(images, axis=w_axis), images)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = kops.where(flips, kops.flip(images, axis=h_axis), images)
        return images

    def get_config(self):
        config = super().get_config()
        config.update(seed=self.seed, mode=self.mode, data_format=self.data_format)
        return config


class RandomRotation(_ImageAugmentation):
    """Rotates each image by a random angle in ``factor * 360`` degrees about its centre."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self.seed = seed
        self.generator = SeedGenerator(seed)
        _check_choice("fill_mode", fill_mode, _FILL_MODES)
        _check_choice("interpolation", interpolation, _INTERPOLATIONS)
        self.fill_mode = fill_mode
        self.interpolation = interpolation
        self.fill_value = fill_value

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        batch, height, width = self._image_size(_images_of(data))
        angle = uniform((batch,), minval=self.factor[0] * 360.0, maxval=self.factor[1] * 360.0,
                        seed=self._seed(seed))
        zeros, ones = kops.zeros([batch]), kops.ones([batch])
        matrix = self._affine_matrix(0.5, 0.5, angle, zeros, zeros, ones, zeros, zeros,
                                     height, width)
        return {"angle": angle, "rotation_matrix": matrix}

    def _transform_images(self, images, transformation):
        return self._affine(images, transformation["rotation_matrix"])

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, data_format=self.data_format, fill_mode=self.fill_mode,
                      fill_value=self.fill_value, interpolation=self.interpolation,
                      seed=self.seed)
        return config


def _factor_pair(factor, factor_name, message, open_low):
    """Keras's (lower, upper) for the zoom/translation height and width factors."""
    def check(v):
        if v > 1.0 or (v <= -1.0 if open_low else v < -1.0):
            raise ValueError(message + "Received: input_number=%s" % (v,))
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(message + "Received: %s=%s" % (factor_name, factor))
        check(factor[0])
        check(factor[1])
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        check(factor)
        return -abs(factor), abs(factor)
    raise ValueError(message + "Received: %s=%s" % (factor_name, factor))


class _HeightWidthWarp(_ImageAugmentation):
    """RandomZoom / RandomTranslation: height and width factors, fill and interpolation."""

    _USE_BASE_FACTOR = False
    _OPEN_LOW = False
    _MESSAGE = ""

    def __init__(self, height_factor, width_factor, fill_mode, interpolation, seed, fill_value,
                 data_format, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _factor_pair(
            height_factor, "height_factor", self._MESSAGE, self._OPEN_LOW)
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = _factor_pair(
                width_factor, "width_factor", self._MESSAGE, self._OPEN_LOW)
        _check_choice("fill_mode", fill_mode, _FILL_MODES)
        _check_choice("interpolation", interpolation, _INTERPOLATIONS)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def _transform_images(self, images, transformation):
        if transformation is None:
            return images
        return self._affine(images, transformation["matrix"])

    def get_config(self):
        config = super().get_config()
        config.update(height_factor=self.height_factor, width_factor=self.width_factor,
                      fill_mode=self.fill_mode, interpolation=self.interpolation,
                      seed=self.seed, fill_value=self.fill_value, data_format=self.data_format)
        return config


class RandomZoom(_HeightWidthWarp):
    """Zooms each image by ``1 + u``, u drawn in the height (and width) factor range; a
    positive factor zooms out, a negative one in."""

    _OPEN_LOW = True
    _MESSAGE = ("The `height_factor` and `width_factor` arguments should be a number (or a "
                "list of two numbers) in the range (-1.0, 1.0]. ")

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(height_factor, width_factor, fill_mode, interpolation, seed,
                         fill_value, data_format, **kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        batch, height, width = self._image_size(_images_of(data))
        seed = self._seed(seed)
        height_zoom = uniform((batch, 1), minval=1.0 + self.height_lower,
                              maxval=1.0 + self.height_upper, seed=seed)
        if self.width_factor is not None:
            width_zoom = uniform((batch, 1), minval=1.0 + self.width_lower,
                                 maxval=1.0 + self.width_upper, seed=seed)
        else:
            width_zoom = height_zoom
        zeros = kops.zeros((batch, 1))
        x_offset = (float(width) - 1.0) / 2.0 * (1.0 - width_zoom)
        y_offset = (float(height) - 1.0) / 2.0 * (1.0 - height_zoom)
        matrix = kops.concatenate([width_zoom, zeros, x_offset, zeros, height_zoom, y_offset,
                                   kops.zeros((batch, 2))], axis=1)
        return {"height_zoom": height_zoom, "width_zoom": width_zoom, "matrix": matrix}


class RandomTranslation(_HeightWidthWarp):
    """Shifts each image by a random fraction of its height and width."""

    _MESSAGE = ("The `factor` argument should be a number (or a list of two numbers) in the "
                "range [-1.0, 1.0]. ")

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(height_factor, width_factor, fill_mode, interpolation, seed,
                         fill_value, data_format, **kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        batch, height, width = self._image_size(_images_of(data))
        seed = self._seed(seed)
        dy = uniform((batch, 1), minval=self.height_lower, maxval=self.height_upper,
                     seed=seed) * float(height)
        dx = uniform((batch, 1), minval=self.width_lower, maxval=self.width_upper,
                     seed=seed) * float(width)
        zeros, ones = kops.zeros((batch, 1)), kops.ones((batch, 1))
        matrix = kops.concatenate([ones, zeros, -dx, zeros, ones, -dy, kops.zeros((batch, 2))],
                                  axis=1)
        return {"translations": kops.concatenate([dx, dy], axis=1), "matrix": matrix}


class RandomCrop(_ImageAugmentation):
    """Crops a random ``height x width`` window in training (images smaller than that are
    centre-cropped to the aspect ratio and resized); inference passes images through."""

    _USE_BASE_FACTOR = False

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(data_format=data_format, name=name, **kwargs)
        self.height = height
        self.width = width
        self.generator = SeedGenerator(seed)
        # (Keras stores a drawn default seed in the config when none is given)
        self.seed = seed if seed is not None else _python_random.randint(1, int(1e9))
        self.supports_masking = False

    def get_random_transformation(self, data, training=True, seed=None):
        seed = self._seed(seed)
        shape = _images_of(data).shape
        h_axis, w_axis = _hw_axes(self.data_format)
        in_h, in_w = shape[h_axis], shape[w_axis]
        if training and in_h > self.height and in_w > self.width:
            h_start = int(uniform((), 0, maxval=float(in_h - self.height + 1), seed=seed))
            w_start = int(uniform((), 0, maxval=float(in_w - self.width + 1), seed=seed))
            return h_start, w_start
        crop_h = max(min(in_h, int(float(in_w * self.height) / self.width)), 1)
        crop_w = max(min(in_w, int(float(in_h * self.width) / self.height)), 1)
        return int(float(in_h - crop_h) / 2), int(float(in_w - crop_w) / 2)

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = kops.cast(images, self.compute_dtype)
        h0, w0 = transformation
        hs, ws = slice(h0, h0 + self.height), slice(w0, w0 + self.width)
        if self.data_format == "channels_last":
            images = images[:, hs, ws, :]
        else:
            images = images[:, :, hs, ws]
        h_axis, w_axis = _hw_axes(self.data_format)
        if images.shape[h_axis] != self.height or images.shape[w_axis] != self.width:
            images = kops.cast(kops.image.resize(images, (self.height, self.width),
                                                 data_format=self.data_format), self.compute_dtype)
        return images

    def transform_segmentation_masks(self, masks, transformation, training=True):
        # (Keras crops masks whatever the training flag)
        return self.transform_images(masks, transformation)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        h_axis, w_axis = _hw_axes(self.data_format)
        shape[h_axis], shape[w_axis] = self.height, self.width
        return tuple(shape)

    def _infer_specs(self, inputs, args, kwargs):
        # Keras's symbolic output is compute_output_shape's (the crop), though inference
        # passes images through: a model built on it fits on the cropped size, as Keras's
        packed, specs = super()._infer_specs(inputs, args, kwargs)
        if isinstance(inputs, KerasTensor) and len(specs) == 1:
            spec = KerasTensor(list(self.compute_output_shape(list(inputs.shape))),
                               specs[0].dtype)
            return spec, [spec]
        return packed, specs

    def get_config(self):
        config = super().get_config()
        config.update(height=self.height, width=self.width, seed=self.seed,
                      data_format=self.data_format)
        return config


class _ColorAugmentation(_ImageAugmentation):
    """Layers with a ``value_range`` whose per-image factor has shape (batch, 1, 1, 1)."""

    @staticmethod
    def _factor_shape(data):
        shape = _images_of(data).shape
        if len(shape) not in (3, 4):
            raise ValueError("Expected the input image to be rank 3 or 4. Received "
                             "inputs.shape=%s" % (tuple(shape),))
        return (1, 1, 1) if len(shape) == 3 else (shape[0], 1, 1, 1)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks


class RandomContrast(_ColorAugmentation):
    """Scales each image's deviation from its per-channel mean by a factor drawn in
    ``[1 - lower, 1 + upper]``, then clips to ``value_range``."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(**kwargs)
        self._set_factor(factor)
        self.value_range = value_range
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        shape = self._factor_shape(data)
        if not training:
            return {"contrast_factor": kops.zeros(shape)}
        factor = uniform(shape, minval=1.0 - self.factor[0], maxval=1.0 + self.factor[1],
                         seed=self._seed(seed), dtype=self.compute_dtype)
        return {"contrast_factor": factor}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        h_axis, w_axis = _hw_axes(self.data_format)
        mean = kops.mean(kops.mean(images, axis=h_axis, keepdims=True), axis=w_axis,
                         keepdims=True)
        out = (images - mean) * transformation["contrast_factor"] + mean
        return kops.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, value_range=self.value_range, seed=self.seed)
        return config


class RandomBrightness(_ColorAugmentation):
    """Adds a per-image delta drawn in ``factor * (value_range width)``, then clips."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor=factor, **kwargs)
        self.seed = seed
        self.generator = SeedGenerator(seed)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError("The `value_range` argument should be a list of two numbers. "
                             "Received: value_range=%s" % (value_range,))
        self.value_range = sorted(value_range)

    def get_random_transformation(self, data, training=True, seed=None):
        shape = self._factor_shape(data)
        if not training:
            return {"rgb_delta": kops.zeros(shape)}
        delta = uniform(shape, minval=self.factor[0], maxval=self.factor[1],
                        seed=self._seed(seed))
        return {"rgb_delta": delta * (self.value_range[1] - self.value_range[0])}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = images + kops.cast(transformation["rgb_delta"], images.dtype)
        return kops.clip(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, value_range=self.value_range, seed=self.seed)
        return config


def _value_range(value_range):
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError("The `value_range` argument should be a list of two numbers. "
                         "Received: value_range=%s" % (value_range,))
    return sorted(value_range)


def _rescale(images, source, target, dtype="float32"):
    """Keras's _transform_value_range: map values from ``source`` onto ``target``."""
    if source[0] == target[0] and source[1] == target[1]:
        return images
    images = kops.cast(images, dtype)
    lo, hi = kops.cast(source[0], dtype), kops.cast(source[1], dtype)
    t_lo, t_hi = kops.cast(target[0], dtype), kops.cast(target[1], dtype)
    return (images - lo) / (hi - lo) * (t_hi - t_lo) + t_lo


def _batch_size(data):
    shape = _images_of(data).shape
    if len(shape) not in (3, 4):
        raise ValueError("Expected the input image to be rank 3 or 4. Received "
                         "inputs.shape=%s" % (tuple(shape),))
    return 1 if len(shape) == 3 else shape[0]


def _channel(images, index, data_format):
    return images[:, index] if data_format == "channels_first" else images[..., index]


def _stack_channels(channels, data_format):
    return kops.stack(channels, axis=1 if data_format == "channels_first" else -1)


class RandomHue(_ColorAugmentation):
    """Shifts each image's hue by up to ``factor / 2`` of the colour wheel, either way."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        # (Keras draws in inference too, so the generator advances the same way)
        batch = _batch_size(data)
        seed = self._seed(seed)
        invert = uniform((batch,), seed=seed)
        sign = kops.where(invert > 0.5, -kops.ones_like(invert), kops.ones_like(invert))
        factor = uniform((batch,), minval=self.factor[0], maxval=self.factor[1], seed=seed)
        return {"factor": sign * factor * 0.5}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = _rescale(kops.cast(images, self.compute_dtype), self.value_range, (0, 1))
        shift = kops.cast(transformation["factor"], images.dtype)[:, None, None]
        hsv = kops.image.rgb_to_hsv(images, data_format=self.data_format)
        hue = _channel(hsv, 0, self.data_format) + shift
        hue = kops.where(hue > 1.0, hue - 1.0, hue)
        hue = kops.where(hue < 0.0, hue + 1.0, hue)
        hsv = _stack_channels([hue, _channel(hsv, 1, self.data_format),
                               _channel(hsv, 2, self.data_format)], self.data_format)
        images = kops.clip(kops.image.hsv_to_rgb(hsv, data_format=self.data_format), 0, 1)
        return kops.cast(_rescale(images, (0, 1), self.value_range), self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, value_range=self.value_range, seed=self.seed)
        return config


class RandomSaturation(_ColorAugmentation):
    """Scales each image's saturation by ``f / (1 - f)``, f drawn in the factor range
    (0.5 keeps it, 0 greys the image, 1 saturates it)."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _value_range(value_range)
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        batch = _batch_size(data)
        factor = uniform((batch,), minval=self.factor[0], maxval=self.factor[1],
                         seed=self._seed(seed))
        return {"factor": factor / (1 - factor + _backend.epsilon())}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        scale = kops.cast(transformation["factor"], self.compute_dtype)[:, None, None]
        hsv = kops.image.rgb_to_hsv(images, data_format=self.data_format)
        # (Keras clips the saturation to value_range, not to [0, 1])
        sat = kops.clip(_channel(hsv, 1, self.data_format) * scale, self.value_range[0],
                        self.value_range[1])
        hsv = _stack_channels([_channel(hsv, 0, self.data_format), sat,
                               _channel(hsv, 2, self.data_format)], self.data_format)
        return kops.image.hsv_to_rgb(hsv, data_format=self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, value_range=self.value_range, seed=self.seed)
        return config


class RandomGrayscale(_ImageAugmentation):
    """Turns each image to greyscale (kept with its channel count) with probability
    ``factor``."""

    _USE_BASE_FACTOR = False

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        if factor < 0 or factor > 1:
            raise ValueError("`factor` should be between 0 and 1. Received: factor=%s"
                             % (factor,))
        self.factor = factor
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        draw = uniform((_batch_size(data),), minval=0, maxval=1, seed=self._seed(seed))
        return kops.reshape(draw < self.factor, (-1, 1, 1, 1))

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        gray = kops.image.rgb_to_grayscale(images, data_format=self.data_format)
        return kops.where(transformation, gray, images)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor)
        return config


class RandomInvert(_ImageAugmentation):
    """Replaces each image by ``value_range[1] - image`` with a probability drawn in the
    factor range."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        batch = _batch_size(data)
        seed = seed or self.generator
        applied = self._draw_applied(batch, seed)
        return {"apply_inversion": applied}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = kops.cast(images, self.compute_dtype)
        return kops.where(transformation["apply_inversion"][:, None, None, None],
                          self.value_range[1] - images, images)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, value_range=self.value_range, seed=self.seed)
        return config


class RandomPosterization(_ColorAugmentation):
    """Keeps only the top ``b`` bits of each 8-bit value, b drawn in [factor low, high)."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (1, 8)
    _MAX_FACTOR = 8

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _value_range(value_range)
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        batch = _batch_size(data)
        seed = self._seed(seed)
        if self.factor[0] != self.factor[1]:
            bits = randint((batch,), minval=self.factor[0], maxval=self.factor[1], seed=seed,
                           dtype="uint8")
        else:
            bits = kops.ones((batch,), dtype="uint8") * self.factor[0]
        return {"shift_factor": self._MAX_FACTOR - bits}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        shift = kops.reshape(transformation["shift_factor"], (-1, 1, 1, 1))
        images = kops.cast(_rescale(images, self.value_range, (0, 255), self.compute_dtype), "uint8")
        images = kops.bitwise_left_shift(kops.bitwise_right_shift(images, shift), shift)
        return _rescale(kops.cast(images, self.compute_dtype), (0, 255), self.value_range, self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, value_range=self.value_range, seed=self.seed)
        return config


class RandomSharpness(_ColorAugmentation):
    """Blends each image with its 3x3-smoothed copy: ``image + (1 - 2f) * (smooth - image)``,
    f drawn in the factor range (0.5 keeps it, above sharpens), clipped to value_range."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _value_range(value_range)
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        factor = uniform((_batch_size(data),), minval=self.factor[0], maxval=self.factor[1],
                         seed=self._seed(seed))
        return {"factor": factor}

    def transform_images(self, images, transformation, training=True):
        images = kops.cast(images, self.compute_dtype)
        if not training:
            return images
        if self.data_format == "channels_first":
            images = kops.swapaxes(images, -3, -1)
        sharpness = kops.reshape(kops.cast(transformation["factor"] * 2, self.compute_dtype),
                                 (-1, 1, 1, 1))
        a, b = 1.0 / 13.0, 5.0 / 13.0
        kernel = kops.convert_to_tensor([[a, a, a], [a, b, a], [a, a, a]], dtype=self.compute_dtype)
        kernel = kops.tile(kops.reshape(kernel, (3, 3, 1, 1)), [1, 1, images.shape[-1], 1])
        smooth = kops.depthwise_conv(images, kernel, strides=1, padding="same",
                                     data_format="channels_last")
        images = images + (1.0 - sharpness) * (kops.cast(smooth, self.compute_dtype) - images)
        images = kops.clip(images, self.value_range[0], self.value_range[1])
        if self.data_format == "channels_first":
            images = kops.swapaxes(images, -3, -1)
        return images

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, value_range=self.value_range, seed=self.seed)
        return config


class RandomShear(_ImageAugmentation):
    """Shears each image along x and y by amounts drawn in the factor ranges (one random
    sign per image), filling as RandomRotation does."""

    _USE_BASE_FACTOR = False
    _MESSAGE = ("The `factor` argument should be a number (or a list of two numbers) in the "
                "range [0, 1.0]. ")

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear",
                 fill_mode="reflect", fill_value=0.0, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.x_factor = self._shear_factor(x_factor, "x_factor")
        self.y_factor = self._shear_factor(y_factor, "y_factor")
        _check_choice("fill_mode", fill_mode, _FILL_MODES)
        _check_choice("interpolation", interpolation, _INTERPOLATIONS)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def _shear_factor(self, factor, name):
        # each bound must lie in [0, 1]; a single number f gives (-f, f), as Keras
        def check(v):
            if v > 1.0 or v < 0.0:
                raise ValueError(self._MESSAGE + "Received: input_number=%s" % (v,))
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2:
                raise ValueError(self._MESSAGE + "Received: %s=%s" % (name, factor))
            if factor[0] < 0 and factor[0] == -factor[1]:
                # the (-f, f) a number f gave, read back from get_config (Keras's own
                # from_config refuses it: a deliberate difference, so configs round-trip)
                check(factor[1])
                return tuple(factor)
            check(factor[0])
            check(factor[1])
            return tuple(sorted(factor))
        if isinstance(factor, (int, float)) and not isinstance(factor, bool):
            check(factor)
            return -abs(factor), abs(factor)
        raise ValueError(self._MESSAGE + "Received: %s=%s" % (name, factor))

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        batch = _batch_size(data)
        seed = self._seed(seed)
        invert = uniform((batch, 1), minval=0, maxval=1, seed=seed, dtype=self.compute_dtype)
        sign = kops.where(invert > 0.5, -kops.ones_like(invert), kops.ones_like(invert))
        shear_y = uniform((batch, 1), minval=self.y_factor[0], maxval=self.y_factor[1],
                          seed=seed, dtype=self.compute_dtype)
        shear_x = uniform((batch, 1), minval=self.x_factor[0], maxval=self.x_factor[1],
                          seed=seed, dtype=self.compute_dtype)
        return {"shear_factor": kops.concatenate([shear_x, shear_y], axis=1) * sign}

    def _transform_images(self, images, transformation):
        if transformation is None:
            return images
        shear = transformation["shear_factor"]
        zeros, ones = kops.zeros((shear.shape[0],)), kops.ones((shear.shape[0],))
        matrix = kops.stack([ones, shear[:, 0], zeros, shear[:, 1], ones, zeros, zeros, zeros],
                            axis=1)
        return self._affine(images, matrix)

    def get_config(self):
        config = super().get_config()
        config.update(x_factor=self.x_factor, y_factor=self.y_factor, fill_mode=self.fill_mode,
                      interpolation=self.interpolation, seed=self.seed,
                      fill_value=self.fill_value, data_format=self.data_format)
        return config


class RandomColorDegeneration(_ColorAugmentation):
    """Blends each image towards its greyscale copy by a fraction drawn in the factor
    range, clipped to value_range."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _value_range(value_range)
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        factor = uniform((_batch_size(data), 1, 1, 1), minval=self.factor[0],
                         maxval=self.factor[1], seed=self._seed(seed))
        return {"factor": factor}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = kops.cast(images, self.compute_dtype)
        factor = kops.cast(transformation["factor"], self.compute_dtype)
        grey = kops.image.rgb_to_grayscale(images, data_format=self.data_format)
        images = images + factor * (grey - images)
        return kops.cast(kops.clip(images, self.value_range[0], self.value_range[1]),
                         self.compute_dtype)

    def compute_output_shape(self, input_shape):
        if len(input_shape) not in (3, 4):
            raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 "
                             "(batch of images). Received: input_shape=%s" % (input_shape,))
        channels = input_shape[-1 if self.data_format == "channels_last" else -3]
        if channels is not None and channels != 3:
            raise ValueError("Input images must have 3 channels, but received images with "
                             "%s channels." % (channels,))
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, value_range=self.value_range, seed=self.seed)
        return config


class RandomColorJitter(_ImageAugmentation):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue in that order, each
    where its factor is given, drawing from this layer's one seed generator."""

    _USE_BASE_FACTOR = True

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None,
                 saturation_factor=None, hue_factor=None, seed=None, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        self.seed = seed
        self.generator = SeedGenerator(seed)
        self._steps = []
        for cls, factor in ((RandomBrightness, brightness_factor),
                            (RandomContrast, contrast_factor),
                            (RandomSaturation, saturation_factor), (RandomHue, hue_factor)):
            if factor is not None:
                self._steps.append(cls(factor=factor, value_range=value_range, seed=seed))

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = kops.cast(images, self.compute_dtype)
        for step in self._steps:
            change = step.get_random_transformation(images, seed=self.generator)
            if "contrast_factor" in change:
                change["contrast_factor"] = kops.cast(change["contrast_factor"], self.compute_dtype)
            images = step.transform_images(images, change)
        return kops.cast(images, self.compute_dtype)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def get_config(self):
        config = super().get_config()
        config.update(value_range=self.value_range, brightness_factor=self.brightness_factor,
                      contrast_factor=self.contrast_factor,
                      saturation_factor=self.saturation_factor, hue_factor=self.hue_factor,
                      seed=self.seed)
        return config


def _unit_pair(factor, name, bounds=(0, 1)):
    """Keras's (lower, upper) for a named factor in ``bounds`` (a number f: (max(-f, lo), f))."""
    lo, hi = bounds
    message = ("The `%s` argument should be a number (or a list of two numbers) in the range "
               "[%s, %s]. Received: factor=%s" % (name, lo, hi, factor))
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > hi or factor[1] < lo:
            raise ValueError(message)
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor < lo or factor > hi:
            raise ValueError(message)
        return max(-abs(factor), lo), abs(factor)
    raise ValueError(message)


class RandomErasing(_ImageAugmentation):
    """Erases a random rectangle (area fraction drawn in ``scale``) of each image, with
    probability drawn in the factor range; the hole takes ``fill_value`` or, when None,
    normal noise times value_range[1], clipped to value_range."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale = _unit_pair(scale, "scale")
        self.fill_value = fill_value
        self.value_range = value_range
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def _bounds(self, batch, length, ratio, seed):
        size = kops.cast(ratio * length, self.compute_dtype)
        start = uniform([batch], minval=0, maxval=1, dtype=self.compute_dtype, seed=seed) * (
            length - size)
        return start, start + size

    def _fill(self, images, seed):
        fill = self.fill_value
        if fill is None:
            fill = normal(images.shape, dtype=self.compute_dtype, seed=seed) \
                * self.value_range[1]
        elif isinstance(fill, (tuple, list)):
            if len(fill) != 3:
                raise ValueError("The `fill_value` argument should be a number (or a list of "
                                 "three numbers) ")
            fill = kops.full_like(images, fill, dtype=self.compute_dtype)
        elif isinstance(fill, (int, float)):
            fill = kops.ones(images.shape, dtype=self.compute_dtype) * fill
        else:
            raise ValueError("The `fill_value` argument should be a number (or a list of "
                             "three numbers) ")
        return kops.clip(fill, self.value_range[0], self.value_range[1])

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = _images_of(data)
        batch = _batch_size(images)
        h_axis, w_axis = _hw_axes(self.data_format)
        height, width = images.shape[h_axis], images.shape[w_axis]
        seed = seed or self.generator
        weight = kops.sqrt(uniform((batch, 2), minval=self.scale[0], maxval=self.scale[1],
                                   dtype=self.compute_dtype, seed=seed))
        x0, x1 = self._bounds(batch, width, weight[:, 0], seed)
        y0, y1 = self._bounds(batch, height, weight[:, 1], seed)
        grid_y, grid_x = kops.meshgrid(kops.arange(height, dtype=self.compute_dtype),
                                       kops.arange(width, dtype=self.compute_dtype), indexing="ij")
        if self.data_format == "channels_last":
            grid_y, grid_x = grid_y[None, :, :, None], grid_x[None, :, :, None]
            c_axis = -1
        else:
            grid_y, grid_x = grid_y[None, None], grid_x[None, None]
            c_axis = -3
        x0, x1 = x0[:, None, None, None], x1[:, None, None, None]
        y0, y1 = y0[:, None, None, None], y1[:, None, None, None]
        masks = kops.logical_and(kops.logical_and(grid_x >= x0, grid_x < x1),
                                 kops.logical_and(grid_y >= y0, grid_y < y1))
        masks = kops.repeat(masks, images.shape[c_axis], axis=c_axis)
        applied = self._draw_applied(batch, seed)
        return {"apply_erasing": applied, "batch_masks": masks,
                "fill_value": self._fill(images, seed)}

    def transform_images(self, images, transformation, training=True):
        images = kops.cast(images, self.compute_dtype)
        if training:
            erased = kops.where(transformation["batch_masks"], transformation["fill_value"],
                                images)
            images = kops.where(transformation["apply_erasing"][:, None, None, None], erased,
                                images)
        return kops.cast(images, self.compute_dtype)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, scale=self.scale, fill_value=self.fill_value,
                      value_range=self.value_range, seed=self.seed)
        return config


def _odd_kernel_size(size, name):
    message = "%s must be an odd number. Received: %s=%s" % (name, name, size)
    if isinstance(size, (tuple, list)):
        if len(size) != 2:
            raise ValueError("The `%s` argument should be a number (or a list of two numbers) "
                             "Received: %s=%s" % (name, name, size))
        if size[0] % 2 == 0 or size[1] % 2 == 0:
            raise ValueError(message)
        return tuple(size)
    if isinstance(size, (int, float)) and not isinstance(size, bool):
        if size % 2 == 0:
            raise ValueError(message)
        return size, size
    raise ValueError(message)


class RandomGaussianBlur(_ImageAugmentation):
    """Blurs each image, with probability drawn in the factor range, by a Gaussian whose
    (y, x) sigmas are drawn in ``sigma`` for the batch; clipped to value_range."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255),
                 data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.kernel_size = _odd_kernel_size(kernel_size, "kernel_size")
        self.sigma = _unit_pair(sigma, "sigma")
        self.value_range = value_range
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        batch = _batch_size(data)
        seed = seed or self.generator
        applied = self._draw_applied(batch, seed)
        sigma = uniform((2,), minval=self.sigma[0], maxval=self.sigma[1], seed=seed,
                        dtype=self.compute_dtype) + 1e-6
        return {"should_apply_blur": applied, "blur_factor": sigma}

    def transform_images(self, images, transformation, training=True):
        images = kops.cast(images, self.compute_dtype)
        if training and transformation is not None:
            blurred = kops.image.gaussian_blur(images, kernel_size=self.kernel_size,
                                               sigma=transformation["blur_factor"],
                                               data_format=self.data_format)
            images = kops.where(transformation["should_apply_blur"][:, None, None, None],
                                blurred, images)
            images = kops.cast(kops.clip(images, self.value_range[0], self.value_range[1]),
                               self.compute_dtype)
        return images

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, kernel_size=self.kernel_size, sigma=self.sigma,
                      value_range=self.value_range, seed=self.seed)
        return config


class RandomPerspective(_ImageAugmentation):
    """Moves each image's four corners by up to ``scale / 2`` of the image size and warps
    it to match (a projective transform), with probability drawn in the factor range."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0,
                 seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        if scale < 0.0 or scale > 1.0:
            raise ValueError("The `scale` argument should be a number in the range [0,1]. "
                             "Received: scale=%s" % (scale,))
        _check_choice("interpolation", interpolation, _INTERPOLATIONS)
        self.scale = scale
        self.fill_value = fill_value
        self.interpolation = interpolation
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        batch, height, width = self._image_size(_images_of(data))
        seed = seed or self.generator
        applied = self._draw_applied(batch, seed)
        shift = uniform((batch, 4, 2), minval=-0.5 * self.scale, maxval=0.5 * self.scale,
                        seed=seed, dtype=self.compute_dtype)
        start = kops.convert_to_tensor(
            [[[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1], [width - 1, height - 1]]],
            dtype=self.compute_dtype)
        start = kops.repeat(start, batch, axis=0)
        return {"apply_perspective": applied, "start_points": start,
                "end_points": start + start * shift}

    def _transform_images(self, images, transformation):
        if transformation is None:
            return images
        warped = kops.image.perspective_transform(
            images, transformation["start_points"], transformation["end_points"],
            interpolation=self.interpolation, fill_value=self.fill_value,
            data_format=self.data_format)
        return kops.where(transformation["apply_perspective"][:, None, None, None], warped,
                          images)

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, scale=self.scale, interpolation=self.interpolation,
                      fill_value=self.fill_value, seed=self.seed)
        return config


class RandomElasticTransform(_ImageAugmentation):
    """Displaces pixels by a smoothed random field (keras.ops.image.elastic_transform) whose
    strength is drawn in ``scale``, with probability drawn in the factor range."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)
    _FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_mode="reflect",
                 fill_value=0.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.scale = _unit_pair(scale, "scale")
        _check_choice("interpolation", interpolation, _INTERPOLATIONS)
        _check_choice("fill_mode", fill_mode, self._FILL_MODES)
        self.interpolation = interpolation
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.value_range = value_range
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training or self.scale[1] == 0 or self.factor[1] == 0:
            return None
        batch = _batch_size(data)
        seed = seed or self.generator
        applied = self._draw_applied(batch, seed)
        distortion = uniform((), minval=self.scale[0], maxval=self.scale[1], seed=seed,
                             dtype=self.compute_dtype)
        # (the displacement field draws from the same generator when the images transform)
        return {"apply_transform": applied, "distortion_factor": distortion,
                "seed": seed}

    def _transform_images(self, images, transformation):
        if transformation is None:
            return images
        h_axis, w_axis = _hw_axes(self.data_format)
        height, width = images.shape[h_axis], images.shape[w_axis]
        factor = transformation["distortion_factor"]
        alpha = max(height, width) * (0.1 * factor)
        sigma = min(height, width) * (0.05 * factor)
        warped = kops.image.elastic_transform(
            images, alpha=alpha, sigma=sigma, interpolation=self.interpolation,
            fill_mode=self.fill_mode, fill_value=self.fill_value,
            seed=transformation["seed"], data_format=self.data_format)
        images = kops.where(transformation["apply_transform"][:, None, None, None], warped,
                            images)
        return kops.cast(kops.clip(images, self.value_range[0], self.value_range[1]),
                         self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, scale=self.scale, interpolation=self.interpolation,
                      fill_mode=self.fill_mode, fill_value=self.fill_value,
                      value_range=self.value_range, seed=self.seed)
        return config


class MixUp(_ImageAugmentation):
    """Mixes each image (and label) with another of the batch (a random permutation) by a
    weight drawn from Beta(alpha, alpha)."""

    _USE_BASE_FACTOR = True

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.alpha = alpha
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def get_random_transformation(self, data, training=True, seed=None):
        images = _images_of(data)
        batch = 1 if len(images.shape) == 3 else images.shape[0]
        seed = self._seed(seed)
        order = shuffle(kops.arange(0, batch, dtype="int64"), seed=seed)
        weight = beta((batch,), self.alpha, self.alpha, seed=seed)
        return {"mix_weight": weight, "permutation_order": order}

    def transform_images(self, images, transformation, training=True):
        if not training:
            return images
        images = kops.cast(images, self.compute_dtype)
        weight = kops.cast(kops.reshape(transformation["mix_weight"], [-1, 1, 1, 1]),
                           self.compute_dtype)
        others = kops.take(images, transformation["permutation_order"], axis=0)
        return weight * images + (1.0 - weight) * others

    def _mix(self, values, transformation, weight_shape):
        weight = kops.reshape(transformation["mix_weight"], weight_shape)
        others = kops.take(values, transformation["permutation_order"], axis=0)
        return weight * values + (1.0 - weight) * others

    def transform_labels(self, labels, transformation, training=True):
        if not training:
            return labels
        return self._mix(labels, transformation, [-1, 1])

    def transform_segmentation_masks(self, masks, transformation, training=True):
        # (Keras takes the permutation from the flattened masks; fasteager permutes the
        # batch, as for the images)
        if not training:
            return masks
        return self._mix(masks, transformation, [-1, 1, 1, 1])

    def get_config(self):
        config = super().get_config()
        config.update(alpha=self.alpha, seed=self.seed)
        return config


class CutMix(_ImageAugmentation):
    """Pastes a random rectangle of another image of the batch (a random permutation) into
    each image; labels mix by the pasted area. The rectangle's area fraction is drawn from
    Beta(a, a), a drawn in the factor range. A single image passes through."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def _bounds(self, batch, length, ratio, seed):
        size = kops.cast(ratio * length, self.compute_dtype)
        start = uniform([batch], minval=0, maxval=1, dtype=self.compute_dtype, seed=seed) * (
            length - size)
        return start, start + size

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        images = _images_of(data)
        if len(images.shape) == 3:
            return None
        batch = images.shape[0]
        h_axis, w_axis = _hw_axes(self.data_format)
        height, width = images.shape[h_axis], images.shape[w_axis]
        seed = seed or self.generator
        alpha = uniform((), minval=self.factor[0], maxval=self.factor[1], dtype=self.compute_dtype,
                        seed=seed) + 1e-6
        alpha = float(alpha)
        ratio = kops.sqrt(1.0 - beta((batch,), alpha, alpha, seed=seed, dtype=self.compute_dtype))
        x0, x1 = self._bounds(batch, width, ratio, seed)
        y0, y1 = self._bounds(batch, height, ratio, seed)
        grid_y, grid_x = kops.meshgrid(kops.arange(height, dtype=self.compute_dtype),
                                       kops.arange(width, dtype=self.compute_dtype), indexing="ij")
        if self.data_format == "channels_last":
            grid_y, grid_x, c_axis = grid_y[None, :, :, None], grid_x[None, :, :, None], -1
        else:
            grid_y, grid_x, c_axis = grid_y[None, None], grid_x[None, None], -3
        x0, x1 = x0[:, None, None, None], x1[:, None, None, None]
        y0, y1 = y0[:, None, None, None], y1[:, None, None, None]
        masks = kops.logical_and(kops.logical_and(grid_x >= x0, grid_x < x1),
                                 kops.logical_and(grid_y >= y0, grid_y < y1))
        masks = kops.repeat(masks, images.shape[c_axis], axis=c_axis)
        weight = 1.0 - (x1 - x0) * (y1 - y0) / (width * height)
        order = shuffle(kops.arange(0, batch, dtype="int32"), seed=seed)
        return {"permutation_order": order, "batch_masks": masks, "mix_weight": weight}

    def transform_images(self, images, transformation, training=True):
        if training and transformation is not None:
            images = kops.cast(images, self.compute_dtype)
            images = kops.where(transformation["batch_masks"],
                                kops.take(images, transformation["permutation_order"], axis=0),
                                images)
        return kops.cast(images, self.compute_dtype)

    def transform_labels(self, labels, transformation, training=True):
        if not training or transformation is None:
            return labels
        weight = kops.reshape(transformation["mix_weight"], [-1, 1])
        others = kops.take(labels, transformation["permutation_order"], axis=0)
        return weight * labels + (1.0 - weight) * others

    def get_config(self):
        config = super().get_config()
        config.update(factor=self.factor, seed=self.seed)
        return config


class ContrastLimitedAdaptiveHistogramEqualization(_ImageAugmentation):
    """CLAHE: equalizes each channel's histogram per tile of a ``tile_grid_size`` grid
    (counts clipped at ``clip_limit`` times the mean bin, the excess spread evenly), and
    blends the four nearest tiles' mappings bilinearly. Deterministic; it applies in
    inference too, as Keras's does."""

    def __init__(self, value_range=(0, 255), clip_limit=4.0, tile_grid_size=(8, 8),
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.clip_limit = clip_limit
        self.tile_grid_size = tile_grid_size

    def transform_images(self, images, transformation=None, training=True):
        if self.data_format == "channels_first":
            images = kops.transpose(images, (0, 2, 3, 1))
        dtype = images.dtype
        images = _rescale(images, self.value_range, (0, 255))
        images = self._clahe(kops.cast(images, "float32"))
        images = kops.cast(_rescale(images, (0, 255), self.value_range), dtype)
        if self.data_format == "channels_first":
            images = kops.transpose(images, (0, 3, 1, 2))
        return images

    def transform_segmentation_masks(self, masks, transformation, training=True):
        return masks

    def _clahe(self, images):
        batch, height, width, channels = images.shape
        grid_h, grid_w = self.tile_grid_size
        tile_h, tile_w = -(-height // grid_h), -(-width // grid_w)
        pad_h, pad_w = tile_h * grid_h - height, tile_w * grid_w - width
        padded = images
        if pad_h or pad_w:
            # mirror-pad the bottom/right so the grid tiles the image exactly
            planes = kops.reshape(kops.transpose(images, (0, 3, 1, 2)), (-1, height, width))
            planes = kops.pad(planes, [[0, 0], [0, pad_h], [0, pad_w]], mode="symmetric")
            padded = kops.transpose(kops.reshape(
                planes, (-1, channels, height + pad_h, width + pad_w)), (0, 2, 3, 1))
        tiles = kops.reshape(padded, (batch, grid_h, tile_h, grid_w, tile_w, channels))
        tiles = kops.reshape(kops.transpose(tiles, (0, 1, 3, 5, 2, 4)),
                             (batch, grid_h, grid_w, channels, tile_h * tile_w))
        levels = kops.clip(kops.cast(tiles, "int32"), 0, 255)
        hists = kops.sum(kops.one_hot(levels, 256), axis=-2)
        if self.clip_limit > 0:
            limit = kops.cast(self.clip_limit * (tile_h * tile_w) / 256.0, hists.dtype)
            clipped = kops.clip(hists, 0, limit)
            hists = clipped + kops.sum(hists - clipped, axis=-1, keepdims=True) / 256.0
        cdf = kops.cumsum(hists, axis=-1)
        cdf_min = kops.min(cdf, axis=-1, keepdims=True)
        denominator = kops.cast(tile_h * tile_w, cdf.dtype) - cdf_min
        denominator = kops.where(denominator == 0, kops.ones_like(denominator), denominator)
        mapping = kops.clip((cdf - cdf_min) * 255.0 / denominator, 0, 255)
        # a border of repeated edge tiles, so every pixel has four neighbouring tiles
        mapping = kops.concatenate([mapping[:, :1], mapping, mapping[:, -1:]], axis=1)
        mapping = kops.concatenate([mapping[:, :, :1], mapping, mapping[:, :, -1:]], axis=2)
        ys = (kops.arange(tile_h * grid_h, dtype="float32") - tile_h / 2.0) / tile_h + 1.0
        xs = (kops.arange(tile_w * grid_w, dtype="float32") - tile_w / 2.0) / tile_w + 1.0
        y0, x0 = kops.floor(ys), kops.floor(xs)
        wy, wx = (ys - y0)[None, :, None, None], (xs - x0)[None, None, :, None]
        y1 = kops.cast(kops.clip(y0 + 1.0, 0, grid_h + 1), "int32")[None, :, None, None]
        x1 = kops.cast(kops.clip(x0 + 1.0, 0, grid_w + 1), "int32")[None, None, :, None]
        y0 = kops.cast(kops.clip(y0, 0, grid_h + 1), "int32")[None, :, None, None]
        x0 = kops.cast(kops.clip(x0, 0, grid_w + 1), "int32")[None, None, :, None]
        stride_x = 256 * channels
        stride_y = stride_x * (grid_w + 2)
        stride_b = stride_y * (grid_h + 2)
        flat = kops.reshape(mapping, (-1,))
        pixels = kops.cast(kops.clip(padded, 0, 255), "int32")
        base = (kops.arange(batch, dtype="int32")[:, None, None, None] * stride_b
                + kops.arange(channels, dtype="int32")[None, None, None, :] * 256 + pixels)

        def at(y, x):
            return kops.take(flat, base + y * stride_y + x * stride_x)

        top = at(y0, x0) * (1.0 - wx) + at(y0, x1) * wx
        bottom = at(y1, x0) * (1.0 - wx) + at(y1, x1) * wx
        return (top * (1.0 - wy) + bottom * wy)[:, :height, :width, :]

    def get_config(self):
        config = super().get_config()
        config.update(value_range=self.value_range, clip_limit=self.clip_limit,
                      tile_grid_size=self.tile_grid_size, data_format=self.data_format)
        return config
