"""Colour ops of ``fe.image``: brightness, contrast, saturation, hue and gamma, colour
spaces (HSV, YUV, YIQ) and the random colour augmentations, as ``tf.image``.

adjust_contrast, adjust_saturation and adjust_hue are ops of the table without a gradient,
as in TensorFlow (AdjustContrastv2, AdjustSaturation, AdjustHue have none): a tape through
them raises LookupError.
"""
import numpy as np

from .. import _core
from ..errors import FailedPreconditionError, InvalidArgumentError
from .array_ops import stack, stop_gradient
from .elementwise_ops import abs as abs_
from .elementwise_ops import cast, convert_same, floor, maximum, minimum, where
from .image_ops import _as_float, _uniform, convert_image_dtype, convert_to_tensor
from .linalg_ops import tensordot
from .reduction_ops import _mean_fwd
from .registry import FLOAT, defop, execute, unregistered_gradient

__all__ = ["adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue",
           "adjust_saturation", "hsv_to_rgb", "random_brightness", "random_contrast",
           "random_hue", "random_saturation", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv",
           "stateless_random_brightness", "stateless_random_contrast", "stateless_random_hue",
           "stateless_random_saturation", "yiq_to_rgb", "yuv_to_rgb"]

def adjust_brightness(image, delta):
    """``image + delta`` (integer images: in float, then back with saturation)."""
    x, orig = _as_float("adjust_brightness", image, "any")
    out = x + delta
    return out if orig is None else convert_image_dtype(out, orig, saturate=True)


def _adjust_contrast_fwd(images, contrast_factor):
    h = images.ndim - 3
    mean = _mean_fwd(images, (h, h + 1), True)
    return (images - mean) * contrast_factor + mean


def _check_adjust_contrast(images, contrast_factor):
    if contrast_factor.ndim != 0:
        raise InvalidArgumentError("adjust_contrast: contrast_factor must be a scalar (got "
                                   "shape %s)" % list(contrast_factor.shape))


# TensorFlow's AdjustContrastv2 has no gradient: a tape through it raises LookupError
adjust_contrast_op = defop("adjust_contrast", _adjust_contrast_fwd, kinds=FLOAT, nin=2,
                           check=_check_adjust_contrast,
                           joint_grad=unregistered_gradient("adjust_contrast",
                                                            "AdjustContrastv2"))


def adjust_contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean``, the mean of each image's channel over its
    height and width. No gradient, as in TensorFlow (LookupError from a tape)."""
    x = convert_to_tensor(images)
    if x._value.ndim < 3:   # TF checks this in the kernel: InvalidArgumentError
        raise InvalidArgumentError("adjust_contrast: images must have rank >= 3 [..., height, "
                                   "width, channels] (got shape %s)" % list(x._value.shape))
    x, orig = _as_float("adjust_contrast", x, None)
    x, factor = convert_same(x, contrast_factor)
    out = execute(adjust_contrast_op, x, factor)
    return out if orig is None else convert_image_dtype(out, orig, saturate=True)


# ---- colour spaces ---------------------------------------------------------------------------

def _rgb_channels(opname, images, error=InvalidArgumentError):
    x = convert_to_tensor(images)
    if x._value.ndim < 1 or x._value.shape[-1] != 3:
        raise error("%s: input must have 3 channels but input only has %s channels (shape %s)"
                    % (opname, x._value.shape[-1] if x._value.ndim else 0,
                       list(x._value.shape)))
    return x


def rgb_to_hsv(images, name=None):
    """RGB in [0, 1] to HSV (hue, saturation, value each in [0, 1]), float32 as
    TensorFlow returns it (integer inputs are cast, not rescaled). Differentiable (TF has
    a gradient for RGBToHSV)."""
    x = _rgb_channels("rgb_to_hsv", images, FailedPreconditionError)
    if x.dtype.name != "float32":
        x = cast(x, "float32")
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = maximum(maximum(r, g), b)
    spread = v - minimum(minimum(r, g), b)
    s = where(v > 0, spread / where(v > 0, v, 1.0), 0.0)
    norm = 1.0 / (6.0 * where(spread > 0, spread, 1.0))
    h = where(r == v, norm * (g - b),
              where(g == v, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    h = where(spread > 0, h, 0.0)
    h = where(h < 0, h + 1.0, h)
    return stack([h, s, v], axis=-1)


def hsv_to_rgb(images, name=None):
    """HSV (each in [0, 1]) to RGB, float32, by TensorFlow's kernel: hue sector
    ``floor(6 h)`` 0-5 (a hue outside [0, 1) is TF's default sector, pure red
    ``(v, v - v s, v - v s)``). Its gradient is None, as TensorFlow 2.21's registered
    HSVToRGB gradient gives."""
    x = stop_gradient(_rgb_channels("hsv_to_rgb", images, FailedPreconditionError))
    if x.dtype.name != "float32":
        x = cast(x, "float32")
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    dh = h * 6.0
    sector = floor(dh)
    fmod2 = dh - 2.0 * floor(dh / 2.0)
    c = v * s
    m = v - c
    mid = c * (1.0 - abs_(fmod2 - 1.0))
    zero = 0.0 * c

    def pick(full, partial, default):
        out = default
        for k in range(6):
            value = c if k in full else (mid if k in partial else zero)
            out = where(sector == float(k), value, out)
        return out + m
    return stack([pick((0, 5), (1, 4), c), pick((1, 2), (0, 3), zero),
                  pick((3, 4), (2, 5), zero)], axis=-1)


def _linear_colour(opname, images, kernel):
    x = _rgb_channels(opname, images)
    if not x.dtype.is_floating:
        raise TypeError("%s: images must be a float tensor (got %s)" % (opname, x.dtype.name))
    return tensordot(x, _core.wrap(np.array(kernel, dtype=x._value.dtype)), [[-1], [0]])


_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]


def rgb_to_yuv(images):
    """RGB in [0, 1] to YUV (float images only, as TensorFlow)."""
    return _linear_colour("rgb_to_yuv", images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    """YUV to RGB (float images only)."""
    return _linear_colour("yuv_to_rgb", images, _YUV_TO_RGB)


def rgb_to_yiq(images):
    """RGB in [0, 1] to YIQ (float images only)."""
    return _linear_colour("rgb_to_yiq", images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    """YIQ to RGB (float images only)."""
    return _linear_colour("yiq_to_rgb", images, _YIQ_TO_RGB)


# ---- saturation and hue: TensorFlow kernels without gradients --------------------------------

def _np_rgb_to_hsv(x):
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    spread = v - np.minimum(np.minimum(r, g), b)
    s = np.where(v > 0, spread / np.where(v > 0, v, 1), 0).astype(x.dtype)
    safe = np.where(spread > 0, spread, 1)
    h = np.where(r == v, (g - b) / safe,
                 np.where(g == v, (b - r) / safe + 2, (r - g) / safe + 4)) / 6
    h = np.where(spread > 0, h, 0)
    return np.mod(h, 1).astype(x.dtype), s, v


def _np_hsv_to_rgb(h, s, v):
    dh = h * 6
    sector = np.minimum(np.floor(dh), 5)
    frac = dh - sector
    p, q, t = v * (1 - s), v * (1 - s * frac), v * (1 - s * (1 - frac))
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.select([sector == k for k in range(6)], [row[ch] for row in table])
           for ch in range(3)]
    return np.stack(out, axis=-1)


def _adjust_saturation_fwd(images, factor):
    x = images.astype(np.float32)
    h, s, v = _np_rgb_to_hsv(x)
    s = np.clip(s * np.float32(factor), 0, 1)
    return _np_hsv_to_rgb(h, s, v).astype(images.dtype)


def _adjust_hue_fwd(images, delta):
    x = images.astype(np.float32)
    h, s, v = _np_rgb_to_hsv(x)
    h = np.mod(h + np.float32(delta), np.float32(1))
    return _np_hsv_to_rgb(h, s, v).astype(images.dtype)


def _check_colour_op(name, factor_name):
    def check(images, factor):
        if images.ndim < 3:
            raise InvalidArgumentError("%s: input must be at least 3-D, got shape%s"
                                       % (name, list(images.shape)))
        if images.shape[-1] != 3:
            raise InvalidArgumentError("%s: input must have 3 channels but instead has %d "
                                       "channels." % (name, images.shape[-1]))
        if np.ndim(factor) != 0:
            raise InvalidArgumentError("%s: %s must be scalar: %s"
                                       % (name, factor_name, list(np.shape(factor))))
    return check


# TensorFlow registers no gradient for AdjustSaturation / AdjustHue
adjust_saturation_op = defop("adjust_saturation", _adjust_saturation_fwd, kinds=FLOAT, nin=2,
                             check=_check_colour_op("adjust_saturation", "scale"),
                             joint_grad=unregistered_gradient("adjust_saturation",
                                                              "AdjustSaturation"))
adjust_hue_op = defop("adjust_hue", _adjust_hue_fwd, kinds=FLOAT, nin=2,
                      check=_check_colour_op("adjust_hue", "delta"),
                      joint_grad=unregistered_gradient("adjust_hue", "AdjustHue"))


def _run_colour_op(op, image, factor):
    x = convert_to_tensor(image)
    orig = x.dtype
    if orig.name not in ("float16", "float32"):
        x = convert_image_dtype(x, "float32")
    x, f = convert_same(x, factor)
    out = execute(op, x, f)
    return out if orig == out.dtype else convert_image_dtype(out, orig, saturate=True)


def adjust_saturation(image, saturation_factor, name=None):
    """The saturation (HSV's S) of RGB images multiplied by ``saturation_factor`` and
    clipped to [0, 1]. No gradient, as in TensorFlow (LookupError from a tape)."""
    return _run_colour_op(adjust_saturation_op, image, saturation_factor)


def adjust_hue(image, delta, name=None):
    """The hue of RGB images rotated by ``delta`` (in [-1, 1], a full turn is 1). No
    gradient, as in TensorFlow."""
    d = float(convert_to_tensor(delta)._value)
    if not -1.0 <= d <= 1.0:
        raise InvalidArgumentError("adjust_hue: delta must be in the interval [-1, 1] (got %r)"
                                   % d)
    return _run_colour_op(adjust_hue_op, image, delta)


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` on the image in [0, 1] (integer images are converted and
    converted back with saturation); ``gamma`` must be >= 0 (ValueError)."""
    x = convert_to_tensor(image)
    orig = x.dtype
    flt = x if orig.name in ("float16", "float32") else convert_image_dtype(x, "float32")
    if np.any(np.asarray(convert_to_tensor(gamma)._value) < 0):
        raise ValueError("Gamma should be a non-negative real number.")
    out = gain * flt ** gamma
    return convert_image_dtype(out, orig, saturate=True)


def _check_delta(max_delta, limit=None):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    if limit is not None and max_delta > limit:
        raise ValueError("max_delta must be <= %s." % limit)


def _check_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta uniform in [-max_delta, max_delta)."""
    _check_delta(max_delta)
    return adjust_brightness(image, _uniform(seed, False, (), -max_delta, max_delta))


def stateless_random_brightness(image, max_delta, seed):
    _check_delta(max_delta)
    return adjust_brightness(image, _uniform(seed, True, (), -max_delta, max_delta))


def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor uniform in [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform(seed, False, (), lower, upper))


def stateless_random_contrast(image, lower, upper, seed):
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform(seed, True, (), lower, upper))


def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor uniform in [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform(seed, False, (), lower, upper))


def stateless_random_saturation(image, lower, upper, seed):
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform(seed, True, (), lower, upper))


def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta uniform in [-max_delta, max_delta), max_delta <= 0.5."""
    _check_delta(max_delta, 0.5)
    return adjust_hue(image, _uniform(seed, False, (), -max_delta, max_delta))


def stateless_random_hue(image, max_delta, seed):
    _check_delta(max_delta, 0.5)
    return adjust_hue(image, _uniform(seed, True, (), -max_delta, max_delta))


def _check_jpeg_range(lo, hi):
    if lo < 0 or hi < 0 or lo > 100 or hi > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if lo >= hi:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
