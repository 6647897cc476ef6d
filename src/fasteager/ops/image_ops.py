"""Image ops of ``fe.image``: resizing, flips, crops and pads, dtype conversion, grey
scale, standardisation, random flips and crops, and image gradients, as ``tf.image``.

Images are ``[height, width, channels]`` or batches ``[batch, height, width, channels]``.

Resizing follows TensorFlow 2's ``tf.image.resize`` kernel by kernel, each written here as
the pair of matrices it amounts to (one per spatial axis; every method is separable):
``out = Wh @ image @ Ww^T`` per image and channel, run as one ``einsum`` so the result is
differentiable in the image. The weights are computed as TensorFlow's kernels compute them:
``bilinear`` (half-pixel centres, edge clamping), ``nearest`` (half-pixel centres, floor),
``bicubic`` (Keys a=-0.5 from TF's 1024-entry coefficient table, out-of-image taps dropped
and the rest renormalised), ``area`` (box overlap), and ``lanczos3``, ``lanczos5``,
``gaussian``, ``mitchellcubic`` (TF's scale-and-translate spans; with ``antialias=True``
bilinear and bicubic use it too, with the kernel widened by the downscale factor). The
output is float32 except for ``nearest``, which keeps the input dtype (TensorFlow's rule).
Colour ops are in ``image_color_ops``, the bounding-box sampler in ``image_box_ops``.
"""
import math

import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from .array_ops import expand_dims, getitem, pad, reshape, stack, tile
from .elementwise_ops import abs as abs_
from .elementwise_ops import cast, clip_by_value, floordiv, maximum, where
from .indexing_ops import gather, reverse
from .linalg_ops import einsum, tensordot
from .random_ops import stateless_uniform, uniform
from .reduction_ops import reduce_mean, reduce_std, reduce_sum
from .registry import as_shape, check_output_size, execute

__all__ = ["ResizeMethod", "central_crop", "convert_image_dtype", "crop_to_bounding_box",
           "flip_left_right", "flip_up_down", "grayscale_to_rgb", "image_gradients",
           "pad_to_bounding_box", "per_image_standardization", "random_crop",
           "random_flip_left_right", "random_flip_up_down", "resize",
           "resize_with_crop_or_pad", "resize_with_pad", "rgb_to_grayscale", "sobel_edges",
           "stateless_random_crop", "stateless_random_flip_left_right",
           "stateless_random_flip_up_down", "total_variation"]

convert_to_tensor = _core.convert_to_tensor


class ResizeMethod:
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
            "mitchellcubic")


def _image(opname, image, ranks=(3, 4)):
    """``image`` as a tensor whose rank is in ``ranks`` (None: any rank >= 3). A wrong
    rank is TF's static shape check: ValueError."""
    x = convert_to_tensor(image)
    ndim = x._value.ndim
    if ndim not in ranks if ranks is not None else ndim < 3:
        want = ("rank 3 [height, width, channels] or 4 [batch, height, width, channels]"
                if ranks is not None else "rank >= 3 [..., height, width, channels]")
        raise ValueError("%s: image must have %s (got shape %s)"
                         % (opname, want, list(x._value.shape)))
    return x


# ---- resampling weights: out[i] = sum_p W[i, p] * in[p] along one axis ------------------------
# Computed in float32 arithmetic, as TensorFlow's kernels do, so the weights agree to the bit.

_f32 = np.float32


def _bilinear_weights(n_in, n_out):
    scale = _f32(n_in) / _f32(n_out)
    w = np.zeros((n_out, n_in), np.float32)
    for i in range(n_out):
        src = (_f32(i) + _f32(0.5)) * scale - _f32(0.5)
        lo_f = math.floor(src)
        lo, hi = max(lo_f, 0), min(math.ceil(src), n_in - 1)
        frac = _f32(src - _f32(lo_f))
        w[i, lo] += _f32(1) - frac
        w[i, hi] += frac
    return w


def _nearest_weights(n_in, n_out):
    scale = _f32(n_in) / _f32(n_out)
    w = np.zeros((n_out, n_in), np.float32)
    for i in range(n_out):
        src = min(int(math.floor((_f32(i) + _f32(0.5)) * scale)), n_in - 1)
        w[i, max(src, 0)] = 1
    return w


_TABLE = 1024


def _keys_table():
    # TF's resize_bicubic coefficient table (a = -0.5), float32
    a = _f32(-0.5)
    x = (np.arange(_TABLE + 1, dtype=np.float32) / _f32(_TABLE)).astype(np.float32)
    near = ((a + _f32(2)) * x - (a + _f32(3))) * x * x + _f32(1)
    x1 = x + _f32(1)
    far = ((a * x1 - _f32(5) * a) * x1 + _f32(8) * a) * x1 - _f32(4) * a
    return near.astype(np.float32), far.astype(np.float32)


def _bicubic_weights(n_in, n_out):
    near, far = _keys_table()
    scale = _f32(n_in) / _f32(n_out)
    w = np.zeros((n_out, n_in), np.float32)
    for i in range(n_out):
        src = (_f32(i) + _f32(0.5)) * scale - _f32(0.5)
        base = int(math.floor(src))
        off = int(np.rint(_f32(src - _f32(base)) * _f32(_TABLE)))
        taps = (far[off], near[off], near[_TABLE - off], far[_TABLE - off])
        kept = [(base - 1 + k, t) for k, t in enumerate(taps) if 0 <= base - 1 + k < n_in]
        total = _f32(sum(t for _, t in kept))
        for p, t in kept:
            w[i, p] += t / total if abs(total) >= 1000 * np.finfo(np.float32).tiny else t
    return w


def _area_weights(n_in, n_out):
    scale = _f32(n_in) / _f32(n_out)
    w = np.zeros((n_out, n_in), np.float32)
    for i in range(n_out):
        lo, hi = _f32(i) * scale, _f32(i + 1) * scale
        for p in range(int(math.floor(lo)), int(math.ceil(hi))):
            overlap = _f32(min(_f32(p + 1), hi) - max(_f32(p), lo))
            w[i, min(p, n_in - 1)] += overlap / scale
    return w


def _lanczos(radius):
    def k(x):
        if x > radius:
            return 0.0
        if x <= 1e-3:
            return 1.0
        return radius * math.sin(math.pi * x) * math.sin(math.pi * x / radius) / (
            math.pi ** 2 * x * x)
    return k, float(radius)


def _mitchell(x):
    if x >= 2:
        return 0.0
    if x >= 1:
        return (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    return (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0


def _keys(x):
    if x >= 2:
        return 0.0
    if x >= 1:
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return ((1.5 * x - 2.5) * x) * x + 1.0


_KERNELS = {
    "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
    "gaussian": (lambda x: 0.0 if x >= 1.5 else math.exp(-x * x / 0.5), 1.5),
    "mitchellcubic": (_mitchell, 2.0),
    "triangle": (lambda x: max(0.0, 1.0 - x), 1.0),
    "keyscubic": (_keys, 2.0),
}


def _span_weights(kernel, n_in, n_out, antialias):
    # TF's scale_and_translate spans (translation 0)
    fn, radius = _KERNELS[kernel]
    inv_scale = _f32(1) / (_f32(n_out) / _f32(n_in))
    kscale = max(float(inv_scale), 1.0) if antialias else 1.0
    w = np.zeros((n_out, n_in), np.float32)
    for i in range(n_out):
        sample = _f32(_f32(i) + _f32(0.5)) * inv_scale
        if sample < 0 or sample > n_in:
            continue
        start = min(max(int(math.ceil(sample - radius * kscale - 0.5)), 0), n_in - 1)
        end = min(max(int(math.floor(sample + radius * kscale - 0.5)), 0), n_in - 1) + 1
        ws = [_f32(fn(abs((_f32(p) + _f32(0.5) - sample) / _f32(kscale))))
              for p in range(start, end)]
        total = _f32(sum(ws))
        if abs(total) >= 1000 * np.finfo(np.float32).tiny:
            ws = [x * (_f32(1) / total) for x in ws]
        w[i, start:end] = ws
    return w


def _weights(method, n_in, n_out, antialias):
    if method == "bilinear":
        return _span_weights("triangle", n_in, n_out, True) if antialias else \
            _bilinear_weights(n_in, n_out)
    if method == "bicubic":
        return _span_weights("keyscubic", n_in, n_out, True) if antialias else \
            _bicubic_weights(n_in, n_out)
    if method == "nearest":
        return _nearest_weights(n_in, n_out)
    if method == "area":
        return _area_weights(n_in, n_out)
    return _span_weights(method, n_in, n_out, antialias)


def _size(opname, size):
    dims = as_shape(opname, size, "size")
    if len(dims) != 2 or min(dims) <= 0:
        raise InvalidArgumentError("%s: size must be [new_height, new_width] of positive ints "
                                   "(got %s)" % (opname, list(dims)))
    return dims


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """``images`` resized to ``size = [new_height, new_width]`` by ``method`` (a
    ``fe.image.ResizeMethod`` or its name). Differentiable in ``images`` (except nearest,
    whose gradient routes each output to its source pixel).

    >>> fe.image.resize(fe.ones([4, 4, 1]), [2, 2]).shape
    TensorShape([2, 2, 1])
    """
    x = _image("resize", images)
    method = getattr(method, "value", method)
    if method not in _METHODS:
        raise InvalidArgumentError("resize: unknown method %r (expected one of %s)"
                                   % (method, ", ".join(_METHODS)))
    if x._value.dtype.kind not in "fiu":
        raise InvalidArgumentError("resize: images must be numeric (got %s)" % x.dtype.name)
    new_h, new_w = _size("resize", size)
    batched = x._value.ndim == 4
    if not batched:
        x = reshape(x, (1,) + x._value.shape)
    _, h, w, _ = x._value.shape
    if preserve_aspect_ratio:
        scale = min(new_h / h, new_w / w)
        new_h, new_w = max(int(round(h * scale)), 1), max(int(round(w * scale)), 1)
    if h == 0 or w == 0:
        raise InvalidArgumentError("resize: images must not be empty (got shape %s)"
                                   % list(x._value.shape))
    out_dtype = x._value.dtype if method == "nearest" else np.float32
    check_output_size("resize", (x._value.shape[0], new_h, new_w, x._value.shape[3]),
                      out_dtype, "size %s" % [new_h, new_w])
    # the interpolation weights are [new_h, h] and [new_w, w] matrices
    check_output_size("resize", (max(new_h * h, new_w * w),), np.float64, "size")
    if method == "nearest":
        # a gather keeps the dtype (and the exact values)
        rows = np.argmax(_nearest_weights(h, new_h), axis=1)
        cols = np.argmax(_nearest_weights(w, new_w), axis=1)
        out = gather(gather(x, rows, axis=1), cols, axis=2)
    else:
        if x._value.dtype != np.float32:
            x = cast(x, "float32")
        wh = _core.wrap(_weights(method, h, new_h, antialias))
        ww = _core.wrap(_weights(method, w, new_w, antialias))
        out = einsum("ip,bpqc,jq->bijc", wh, x, ww)
    return out if batched else reshape(out, out._value.shape[1:])


def _spatial_axis(x, which):
    return x._value.ndim - (3 if which == "h" else 2)


def flip_left_right(image, name=None):
    """The image mirrored along its width."""
    x = _image("flip_left_right", image)
    return reverse(x, [_spatial_axis(x, "w")])


def flip_up_down(image, name=None):
    """The image mirrored along its height."""
    x = _image("flip_up_down", image)
    return reverse(x, [_spatial_axis(x, "h")])


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """The image in another dtype, rescaled: floats span [0, 1], integers [0, MAX]
    (TensorFlow's rules: integer to integer by a power-of-two scale, integer to float by
    1/MAX, float to integer by MAX + 0.5 then truncation; ``saturate`` clips first)."""
    x = convert_to_tensor(image)
    src, dst = x.dtype, as_dtype(dtype)
    for d, what in ((src, "image"), (dst, "dtype")):
        if not (d.is_floating or d.is_integer):
            raise InvalidArgumentError("convert_image_dtype: %s must be a float or integer "
                                       "type (got %s)" % (what, d.name))
    if src == dst:
        return x

    def saturate_cast(t, to):
        lo, hi = max(float(t.dtype.min), float(to.min)), min(float(t.dtype.max), float(to.max))
        if t.dtype.is_integer:
            lo, hi = int(lo), int(hi)
        return cast(clip_by_value(t, lo, hi), to)
    if src.is_integer and dst.is_integer:
        if src.max > dst.max:
            scaled = floordiv(x, (int(src.max) + 1) // (int(dst.max) + 1))
            return saturate_cast(scaled, dst) if saturate else cast(scaled, dst)
        narrowed = saturate_cast(x, dst) if saturate else cast(x, dst)
        return narrowed * ((int(dst.max) + 1) // (int(src.max) + 1))
    if src.is_floating and dst.is_floating:
        return cast(x, dst)
    if src.is_integer:
        return cast(x, dst) * (1.0 / float(src.max))
    scaled = x * (float(dst.max) + 0.5)
    return saturate_cast(scaled, dst) if saturate else cast(scaled, dst)


def _as_float(opname, image, ranks=(3, 4)):
    x = convert_to_tensor(image) if ranks == "any" else _image(opname, image, ranks)
    if x.dtype.is_floating:
        return x, None
    return convert_image_dtype(x, "float32"), x.dtype


def rgb_to_grayscale(images, name=None):
    """One channel of luma, ``0.2989 R + 0.587 G + 0.114 B``, in the input's dtype."""
    x = convert_to_tensor(images)
    if x._value.ndim < 1 or x._value.shape[-1] != 3:
        raise InvalidArgumentError("rgb_to_grayscale: the last dimension must be 3 (RGB) "
                                   "(got shape %s)" % list(x._value.shape))
    orig = x.dtype
    flt = convert_image_dtype(x, "float32")
    weights = _core.wrap(np.array([0.2989, 0.587, 0.114], dtype=flt._value.dtype))
    gray = expand_dims(tensordot(flt, weights, [[-1], [-1]]), -1)
    return convert_image_dtype(gray, orig)


def grayscale_to_rgb(images, name=None):
    """The one channel repeated into three."""
    x = convert_to_tensor(images)
    if x._value.ndim < 2 or x._value.shape[-1] != 1:
        raise InvalidArgumentError("grayscale_to_rgb: the last dimension must be 1 (got shape "
                                   "%s)" % list(x._value.shape))
    return tile(x, [1] * (x._value.ndim - 1) + [3])


def per_image_standardization(image):
    """Each image scaled to mean 0 and variance 1: ``(x - mean) / max(stddev,
    1 / sqrt(N))`` with N the number of its values (integer images become float32)."""
    x = _image("per_image_standardization", image, None)
    if not x.dtype.is_floating:
        x = cast(x, "float32")
    axes = [-1, -2, -3]
    n = int(np.prod(x._value.shape[-3:]))
    mean = reduce_mean(x, axis=axes, keepdims=True)
    std = reduce_std(x, axis=axes, keepdims=True)
    min_std = _core.wrap(np.array(1.0 / math.sqrt(max(n, 1)), dtype=x._value.dtype))
    return (x - mean) / maximum(std, min_std)


def _box_args(opname, image, *box):
    """(image tensor, its height axis, (height, width), the four box ints)."""
    x = _image(opname, image)
    h_ax = _spatial_axis(x, "h")
    return x, h_ax, x._value.shape[h_ax:h_ax + 2], tuple(int(v) for v in box)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height x target_width`` window at ``(offset_height, offset_width)``."""
    x, h_ax, (h, w), (oh, ow, th, tw) = _box_args("crop_to_bounding_box", image, offset_height,
                                                  offset_width, target_height, target_width)
    if oh < 0 or ow < 0 or th <= 0 or tw <= 0 or oh + th > h or ow + tw > w:
        raise InvalidArgumentError("crop_to_bounding_box: the box (offset %d, %d, size %d x %d) "
                                   "must lie inside the image (%d x %d)"
                                   % (oh, ow, th, tw, h, w))
    key = (slice(None),) * h_ax + (slice(oh, oh + th), slice(ow, ow + tw))
    return execute(getitem, x, key=key)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The image placed at ``(offset_height, offset_width)`` in zeros of the target size."""
    x, h_ax, (h, w), (oh, ow, th, tw) = _box_args("pad_to_bounding_box", image, offset_height,
                                                  offset_width, target_height, target_width)
    if oh < 0 or ow < 0 or th < oh + h or tw < ow + w:
        raise InvalidArgumentError("pad_to_bounding_box: the image (%d x %d) at offset (%d, %d) "
                                   "must fit the target %d x %d" % (h, w, oh, ow, th, tw))
    paddings = [[0, 0]] * h_ax + [[oh, th - oh - h], [ow, tw - ow - w], [0, 0]]
    return pad(x, paddings)


def central_crop(image, central_fraction):
    """The centre ``central_fraction`` (in (0, 1]) of the image's height and width."""
    x = _image("central_crop", image)
    f = float(central_fraction)
    if not 0.0 < f <= 1.0:
        raise ValueError("central_crop: central_fraction must be within (0, 1] (got %r)"
                         % (central_fraction,))
    if f == 1.0:
        return x
    h_ax = _spatial_axis(x, "h")
    h, w = x._value.shape[h_ax:h_ax + 2]
    top = int((h - h * f) / 2)
    left = int((w - w * f) / 2)
    return crop_to_bounding_box(x, top, left, h - 2 * top, w - 2 * left)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
    """Resized to fit ``target_height x target_width`` keeping its aspect ratio, then
    padded with zeros to that size (centred)."""
    x = _image("resize_with_pad", image)
    h_ax = _spatial_axis(x, "h")
    h, w = (float(d) for d in x._value.shape[h_ax:h_ax + 2])
    th, tw = int(target_height), int(target_width)
    if th <= 0 or tw <= 0:
        raise InvalidArgumentError("resize_with_pad: the target size must be positive (got "
                                   "%d x %d)" % (th, tw))
    ratio = max(w / tw, h / th)
    rh, rw = h / ratio, w / ratio
    resized = resize(x, [int(math.floor(rh)), int(math.floor(rw))], method=method,
                     antialias=antialias)
    ph = max(0, int(math.floor((th - rh) / 2)))
    pw = max(0, int(math.floor((tw - rw) / 2)))
    return pad_to_bounding_box(resized, ph, pw, th, tw)


# ---- random augmentation: seed=int (the global seed's stream) or, stateless, a seed pair -----

def _uniform(seed, stateless, shape=(), minval=0.0, maxval=1.0, dtype="float32"):
    if stateless:
        return stateless_uniform(shape, seed, minval, maxval, dtype=dtype)
    return uniform(shape, minval, maxval, dtype=dtype, seed=seed)


def _rank3(opname, image):
    x = convert_to_tensor(image)
    if x._value.ndim < 3:
        raise ValueError("%s: 'image' (shape %s) must be at least three-dimensional."
                         % (opname, tuple(x._value.shape)))
    return x


def _random_flip(opname, image, seed, stateless, flip):
    x = _rank3(opname, image)
    if x._value.ndim == 3:
        return flip(x) if bool(_uniform(seed, stateless)._value < 0.5) else x
    batch = x._value.shape[0]
    mask = _uniform(seed, stateless, (batch,))._value < 0.5
    return where(reshape(_core.wrap(mask), (batch,) + (1,) * (x._value.ndim - 1)), flip(x), x)


def random_flip_left_right(image, seed=None):
    """Each image mirrored left-right with probability 1/2."""
    return _random_flip("random_flip_left_right", image, seed, False, flip_left_right)


def random_flip_up_down(image, seed=None):
    """Each image mirrored upside down with probability 1/2."""
    return _random_flip("random_flip_up_down", image, seed, False, flip_up_down)


def stateless_random_flip_left_right(image, seed):
    """``random_flip_left_right`` decided by the seed pair ``seed`` (deterministic)."""
    return _random_flip("stateless_random_flip_left_right", image, seed, True,
                        flip_left_right)


def stateless_random_flip_up_down(image, seed):
    """``random_flip_up_down`` decided by the seed pair ``seed`` (deterministic)."""
    return _random_flip("stateless_random_flip_up_down", image, seed, True, flip_up_down)


def _random_crop(value, size, seed, stateless):
    x = convert_to_tensor(value)
    shape = x._value.shape
    size = as_shape("random_crop", size, "size")
    if len(size) != len(shape):
        raise InvalidArgumentError("random_crop: Incompatible shapes: value has rank %d, size "
                                   "%s" % (len(shape), list(size)))
    if any(s < c for s, c in zip(shape, size)):
        raise InvalidArgumentError("random_crop: Need value.shape >= size, got %s %s"
                                   % (list(shape), list(size)))
    limit = np.array(shape, np.int64) - np.array(size, np.int64) + 1
    draws = _uniform(seed, stateless, (len(shape),), 0, np.iinfo(np.int32).max, "int32")
    offset = draws._value.astype(np.int64) % limit
    key = tuple(slice(int(o), int(o) + s) for o, s in zip(offset, size))
    return execute(getitem, x, key=key)


def random_crop(value, size, seed=None, name=None):
    """A ``size`` window of ``value`` at a uniformly random offset (any rank)."""
    return _random_crop(value, size, seed, False)


def stateless_random_crop(value, size, seed, name=None):
    """``random_crop`` placed by the seed pair ``seed`` (deterministic)."""
    return _random_crop(value, size, seed, True)


# ---- geometry and gradients ------------------------------------------------------------------

def resize_with_crop_or_pad(image, target_height, target_width):
    """Centre-cropped and/or zero-padded to ``target_height x target_width``."""
    x = convert_to_tensor(image)
    if x._value.ndim not in (3, 4):
        raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions."
                         % (tuple(x._value.shape),))
    th, tw = int(target_height), int(target_width)
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    h_ax = _spatial_axis(x, "h")
    h, w = x._value.shape[h_ax:h_ax + 2]
    dh, dw = th - h, tw - w
    cropped = crop_to_bounding_box(x, max(-dh // 2, 0), max(-dw // 2, 0), min(th, h),
                                   min(tw, w))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), th, tw)


def total_variation(images, name=None):
    """The sum of absolute differences of neighbouring pixels: a scalar for one image,
    [batch] for a batch. Differentiable."""
    x = convert_to_tensor(images)
    if x._value.ndim not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    if x._value.dtype.kind not in "fi":     # TF's Abs has no unsigned kernels
        raise InvalidArgumentError("total_variation: images must be float or signed integer "
                                   "(got %s)" % x.dtype.name)
    h = x._value.ndim - 3
    rows = (slice(None),) * h
    dy = x[rows + (slice(1, None),)] - x[rows + (slice(None, -1),)]
    dx = x[rows + (slice(None), slice(1, None))] - x[rows + (slice(None), slice(None, -1))]
    axes = [-3, -2, -1]
    return reduce_sum(abs_(dy), axis=axes) + reduce_sum(abs_(dx), axis=axes)


def image_gradients(image):
    """(dy, dx): forward differences along height and width of a [batch, h, w, d] image,
    zero in the last row / column."""
    x = convert_to_tensor(image)
    if x._value.ndim != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not %s."
                         % (list(x._value.shape),))
    dy = x[:, 1:] - x[:, :-1]
    dx = x[:, :, 1:] - x[:, :, :-1]
    return (pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]]),
            pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]]))


_SOBEL = (((-1, -2, -1), (0, 0, 0), (1, 2, 1)), ((-1, 0, 1), (-2, 0, 2), (-1, 0, 1)))


def sobel_edges(image):
    """[batch, h, w, d, 2]: the Sobel responses along height ([..., 0]) and width
    ([..., 1]) of a [batch, h, w, d] image, edges reflected. Differentiable."""
    x = convert_to_tensor(image)
    if x._value.ndim != 4:
        raise ValueError("sobel_edges: image must be 4-D [batch, h, w, d] (got shape %s)"
                         % list(x._value.shape))
    if not x.dtype.is_floating:     # TF's depthwise convolution takes floats only
        raise InvalidArgumentError("sobel_edges: image must be a float tensor (got %s)"
                                   % x.dtype.name)
    _, h, w, _ = x._value.shape
    padded = pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    outs = []
    for kernel in _SOBEL:
        acc = None
        for i in range(3):
            for j in range(3):
                if kernel[i][j]:
                    term = padded[:, i:i + h, j:j + w] * float(kernel[i][j])
                    acc = term if acc is None else acc + term
        outs.append(acc)
    return stack(outs, axis=-1)
