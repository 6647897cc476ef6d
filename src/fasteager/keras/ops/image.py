"""``keras.ops.image``: Keras 3's image ops (resizing, affine and perspective warps, crops and
pads, patches, coordinate sampling, colour spaces, blurs, SSIM) on fasteager's op table.

Arguments, defaults and dtypes follow Keras 3.15's TensorFlow backend. Sampling positions
(warps, ``map_coordinates``' integer corners) are computed once in NumPy; the image values
always flow through ops (gathers, products, convolutions), so results are differentiable in
the images as Keras's are (and ``map_coordinates`` and ``scale_and_translate`` in their
float coordinates and scales too).
"""
import itertools

import numpy as np

from ... import errors
from ... import image as fe_image
from ... import random as fe_random
from ..._core import convert_to_tensor
from ..._src.autodiff.tape import custom_gradient
from ...ops import (
    array_ops,
    decomposition_ops,
    elementwise_ops,
    indexing_ops,
    linalg_ops,
    reduction_ops,
)
from ...ops.elementwise_ops import cast
from .. import random as keras_random
from .._image_utils import standardize_data_format
from . import nn
from ..backend import result_type, standardize_dtype

__all__ = [
    "affine_transform", "crop_images", "elastic_transform", "extract_patches",
    "extract_patches_3d", "gaussian_blur", "hsv_to_rgb", "map_coordinates", "pad_images",
    "perspective_transform", "resize", "rgb_to_grayscale", "rgb_to_hsv",
    "scale_and_translate", "sobel_edges", "ssim",
]

_RESIZE_METHODS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")
_WARP_METHODS = ("nearest", "bilinear")
_WARP_FILL_MODES = ("constant", "nearest", "wrap", "reflect")
_MAP_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _t(x):
    return convert_to_tensor(x)


def _rank34(opname, images, what="images"):
    if len(images.shape) not in (3, 4):
        raise ValueError("%s: invalid %s rank: expected rank 3 (single image) or rank 4 "
                         "(batch of images). Received input with shape: %s.shape=%s"
                         % (opname, what, what, tuple(images.shape)))


def _last(images, data_format):
    """Channels-first images moved to channels-last (rank 3 or 4)."""
    if data_format != "channels_first":
        return images
    perm = (0, 2, 3, 1) if len(images.shape) == 4 else (1, 2, 0)
    return array_ops.transpose(images, perm)


def _first(images, data_format):
    if data_format != "channels_first":
        return images
    perm = (0, 3, 1, 2) if len(images.shape) == 4 else (2, 0, 1)
    return array_ops.transpose(images, perm)


def _is_float(dtype):
    return standardize_dtype(dtype) in ("float16", "bfloat16", "float32", "float64")


def _is_int(dtype):
    name = standardize_dtype(dtype)
    return name.startswith(("int", "uint"))


# ---- colour ------------------------------------------------------------------------------

def rgb_to_grayscale(images, data_format=None):
    images = _t(images)
    data_format = standardize_data_format(data_format)
    axis = -1 if data_format == "channels_last" else -3
    _rank34("rgb_to_grayscale", images)
    if images.shape[axis] not in (1, 3):
        raise ValueError("rgb_to_grayscale: invalid channel size: expected 3 (RGB) or 1 "
                         "(Grayscale). Received input with shape: images.shape=%s"
                         % (tuple(images.shape),))
    if images.shape[axis] == 1:
        return array_ops.identity(images)
    original = images.dtype
    x = cast(images, result_type(images.dtype, float))
    weights = array_ops.constant([0.2989, 0.5870, 0.1140], dtype=x.dtype)
    gray = linalg_ops.tensordot(x, weights, axes=[[len(x.shape) + axis], [0]])
    return cast(array_ops.expand_dims(gray, axis), original)


def _hsv(opname, fn, images, data_format):
    images = _t(images)
    data_format = standardize_data_format(data_format)
    _rank34(opname, images)
    if not _is_float(images.dtype):
        raise ValueError("%s: invalid images dtype: expected float dtype. Received: "
                         "images.dtype=%s" % (opname, standardize_dtype(images.dtype)))
    # fe.image's colour conversions compute in float32; TensorFlow keeps float64 (and half)
    # inputs' dtype, so the result is cast back to it
    return cast(_first(fn(_last(images, data_format)), data_format), images.dtype)


def rgb_to_hsv(images, data_format=None):
    return _hsv("rgb_to_hsv", fe_image.rgb_to_hsv, images, data_format)


def hsv_to_rgb(images, data_format=None):
    return _hsv("hsv_to_rgb", fe_image.hsv_to_rgb, images, data_format)


# ---- resizing ----------------------------------------------------------------------------

def _saturate_cast(x, dtype):
    """``x`` cast to ``dtype`` with values clipped to its range first (Keras's
    saturate_cast)."""
    name = standardize_dtype(dtype)
    if _is_int(name):
        info = np.iinfo(name)
        x = elementwise_ops.clip_by_value(x, cast(float(info.min), x.dtype),
                                          cast(float(info.max), x.dtype))
    return cast(x, name)


def _aspect_box(height, width, target_h, target_w):
    # Keras computes these in float32, then truncates to int32
    box_h = int(np.float32(width * target_h) / np.float32(target_w))
    box_w = int(np.float32(height * target_w) / np.float32(target_h))
    return box_h, box_w


def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    if len(size) != 2:
        raise ValueError("resize: expected `size` to be a tuple of 2 integers. Received: "
                         "size=%s" % (size,))
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError("resize: `size` must have positive height and width. Received: "
                         "size=%s" % (size,))
    images = _t(images)
    _rank34("resize", images)
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("resize: only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` "
                         "can be `True`.")
    data_format = standardize_data_format(data_format)
    if interpolation not in _RESIZE_METHODS:
        raise ValueError("resize: invalid value for argument `interpolation`. Expected one of "
                         "%s. Received: interpolation=%s" % (_RESIZE_METHODS, interpolation))
    if fill_mode != "constant":
        raise ValueError("resize: invalid value for argument `fill_mode`. Only 'constant' is "
                         "supported. Received: fill_mode=%s" % (fill_mode,))
    x = _last(images, data_format)
    height, width = x.shape[-3], x.shape[-2]
    target_h, target_w = size
    if crop_to_aspect_ratio:
        crop_h, crop_w = _aspect_box(height, width, target_h, target_w)
        crop_h = max(min(height, crop_h), 1)
        crop_w = max(min(width, crop_w), 1)
        top = int(np.float32(height - crop_h) / 2)
        left = int(np.float32(width - crop_w) / 2)
        x = x[..., top:top + crop_h, left:left + crop_w, :]
    elif pad_to_aspect_ratio:
        pad_h, pad_w = _aspect_box(height, width, target_h, target_w)
        pad_h, pad_w = max(height, pad_h), max(width, pad_w)
        top = int(np.float32(pad_h - height) / 2)
        left = int(np.float32(pad_w - width) / 2)
        # Keras adds ``top`` rows above and below (and ``left`` columns each side)
        pads = [[top, top], [left, left], [0, 0]]
        if len(x.shape) == 4:
            pads = [[0, 0]] + pads
        x = array_ops.pad(x, pads, constant_values=fill_value)
    out = fe_image.resize(x, size, method=interpolation, antialias=antialias)
    out = _first(out, data_format)
    if out.dtype == images.dtype:
        return out
    if _is_int(images.dtype):
        out = elementwise_ops.round(out)
    return _saturate_cast(out, images.dtype)


def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    methods = {"linear": "linear", "bilinear": "linear", "trilinear": "linear",
               "cubic": "cubic", "bicubic": "cubic", "tricubic": "cubic",
               "lanczos3": "lanczos3", "lanczos5": "lanczos5"}
    if method not in methods:
        raise ValueError("scale_and_translate: invalid value for argument `method`. Expected "
                         "one of %s. Received: method=%s" % (sorted(methods), method))
    kernel = methods[method]
    x = _t(images)
    scale, translation = _t(scale), _t(translation)
    dtype = result_type(scale.dtype, translation.dtype)
    scale, translation = cast(scale, dtype), cast(translation, dtype)
    if len(spatial_dims) == 0:
        return x
    if _is_int(x.dtype):
        # Keras's TensorFlow backend clips the rounded float result by the integer image's
        # min and max, which TensorFlow refuses (mixed dtypes): integer images fail there
        raise errors.InvalidArgumentError(
            "scale_and_translate: integer images are not supported (Keras's TensorFlow "
            "backend clips a float result by %s bounds); got images.dtype=%s"
            % (standardize_dtype(x.dtype), standardize_dtype(x.dtype)))
    out = x
    rank = len(x.shape)
    for i, d in enumerate(spatial_dims):
        d = d % rank
        w = _scale_weights(x.shape[d], output_shape[d], scale[i], translation[i], kernel,
                           antialias, dtype)
        out = linalg_ops.tensordot(out, cast(w, out.dtype), axes=[[d], [0]])
        perm = list(range(rank - 1))
        perm.insert(d, rank - 1)
        out = array_ops.transpose(out, perm)
    return out


def _kernel_values(kernel, x):
    zero = array_ops.zeros_like(x)
    if kernel == "linear":
        return elementwise_ops.maximum(zero, 1 - elementwise_ops.abs(x))
    if kernel == "cubic":
        out = ((1.5 * x - 2.5) * x) * x + 1.0
        out = elementwise_ops.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
        return elementwise_ops.where(x >= 2.0, zero, out)
    radius = 3.0 if kernel == "lanczos3" else 5.0
    y = radius * elementwise_ops.sin(np.pi * x) * elementwise_ops.sin(np.pi * x / radius)
    safe = elementwise_ops.where(x != 0, np.pi ** 2 * x * x, array_ops.ones_like(x))
    out = elementwise_ops.where(x > 1e-3, y / safe, array_ops.ones_like(x))
    return elementwise_ops.where(x > radius, zero, out)


def _scale_weights(n_in, n_out, scale, translation, kernel, antialias, dtype):
    """The (n_in, n_out) interpolation matrix of one axis, as Keras builds it (so its
    gradient in ``scale`` and ``translation`` is Keras's too)."""
    inv_scale = 1.0 / scale
    kscale = elementwise_ops.maximum(inv_scale, cast(1.0, dtype)) if antialias else 1.0
    sample = ((array_ops.range(n_out, dtype=dtype) + 0.5) * inv_scale
              - translation * inv_scale - 0.5)
    x = elementwise_ops.abs(sample[None, :] - array_ops.range(n_in, dtype=dtype)[:, None])
    w = _kernel_values(kernel, x / kscale)
    total = reduction_ops.reduce_sum(w, axis=0, keepdims=True)
    zero = array_ops.zeros_like(w)
    safe = elementwise_ops.where(total != 0, total, array_ops.ones_like(total))
    w = elementwise_ops.where(elementwise_ops.abs(total) > 1000.0 * float(np.finfo(np.float32).eps),
                              w / safe, zero)
    inside = elementwise_ops.logical_and(sample >= -0.5, sample <= n_in - 0.5)
    return elementwise_ops.where(inside[None, :], w, zero)


# ---- warps ---------------------------------------------------------------------------------

def _warp_coordinate(c, size, mode):
    """TensorFlow's ImageProjectiveTransform map of float32 coordinates ``c`` on an axis of
    ``size`` (reflect and wrap keep its quirks: the reflect of a negative coordinate always
    folds by whole periods first, wrap divides by ``size - 1``), clamped into the image
    except in constant mode."""
    f32 = np.float32
    c = c.astype(f32)
    if mode == "constant":
        return c
    if mode != "nearest" and size <= 1:
        return np.zeros_like(c)
    lo, hi = c < 0, c > size - 1
    if mode == "reflect":
        sz2 = f32(2 * size)
        neg = sz2 * np.trunc(-c / sz2) + c
        neg = np.where(neg < -size, neg + sz2, -neg - f32(1))
        pos = c - sz2 * np.trunc(c / sz2)
        pos = np.where(pos >= size, sz2 - pos - f32(1), pos)
        c = np.where(lo, neg, np.where(hi, pos, c))
    elif mode == "wrap":
        sz = f32(size - 1)
        neg = c + f32(size) * (np.trunc(-c / sz) + f32(1))
        pos = c - f32(size) * np.trunc(c / sz)
        c = np.where(lo, neg, np.where(hi, pos, c))
    return np.clip(c, f32(0), f32(size - 1)).astype(f32)


def _round_half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + np.float32(0.5))


def _sampling(shape, transforms, interpolation, fill_mode):
    """For NHWC ``shape`` and (B or 1, 8) float32 ``transforms``: the gather indices into
    the flattened (B*H*W) pixels of each read with the mask of those inside the image, and
    the bilinear weights along x and y, as TensorFlow's ImageProjectiveTransformV3: the
    output pixel (x, y) samples the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k),
    k = c0 x + c1 y + 1; where k = 0 the pixel is the fill value, and reads outside the
    image (after the fill mode's map) read the fill."""
    batch, height, width = shape[:3]
    f32 = np.float32
    t = np.broadcast_to(np.asarray(transforms, f32), (batch, 8))[:, :, None, None]
    ys, xs = np.meshgrid(np.arange(height, dtype=f32), np.arange(width, dtype=f32),
                         indexing="ij")
    k = t[:, 6] * xs + t[:, 7] * ys + f32(1)
    zero_k = k == 0
    safe_k = np.where(zero_k, f32(1), k)
    in_x = _warp_coordinate((t[:, 0] * xs + t[:, 1] * ys + t[:, 2]) / safe_k, width, fill_mode)
    in_y = _warp_coordinate((t[:, 3] * xs + t[:, 4] * ys + t[:, 5]) / safe_k, height,
                            fill_mode)
    whole_fill = zero_k
    in_x = np.where(whole_fill, f32(0), in_x)
    in_y = np.where(whole_fill, f32(0), in_y)
    def read(cy, cx):
        inside = (cy >= 0) & (cy < height) & (cx >= 0) & (cx < width)
        iy = np.clip(cy, 0, height - 1).astype(np.int64)
        ix = np.clip(cx, 0, width - 1).astype(np.int64)
        idx = (np.arange(batch)[:, None, None] * height + iy) * width + ix
        return idx.reshape(-1), inside

    if interpolation == "nearest":
        return {"reads": [read(_round_half_away(in_y), _round_half_away(in_x))],
                "fill": zero_k}
    y0, x0 = np.floor(in_y), np.floor(in_x)
    y1, x1 = y0 + f32(1), x0 + f32(1)
    return {"reads": [read(y0, x0), read(y0, x1), read(y1, x0), read(y1, x1)],
            "wx": (x1 - in_x, in_x - x0), "wy": (y1 - in_y, in_y - y0), "fill": zero_k}


def _apply_sampling(images, sampling, fill_value):
    """The warped float32 images: each read gathered (the fill where it falls outside),
    then blended in TensorFlow's order, along x first and then along y."""
    batch, height, width, channels = images.shape
    flat = array_ops.reshape(cast(images, "float32"), [batch * height * width, channels])
    fill = array_ops.fill([batch, height, width, channels], np.float32(fill_value))

    def const(w):
        return array_ops.constant(w[..., None].astype(np.float32))

    vals = []
    for idx, inside in sampling["reads"]:
        v = array_ops.reshape(indexing_ops.gather(flat, idx), [batch, height, width, channels])
        vals.append(elementwise_ops.where(array_ops.constant(inside[..., None]), v, fill))
    if len(vals) == 1:
        out = vals[0]
    else:
        (wx0, wx1), (wy0, wy1) = sampling["wx"], sampling["wy"]
        top = const(wx0) * vals[0] + const(wx1) * vals[1]
        bottom = const(wx0) * vals[2] + const(wx1) * vals[3]
        out = const(wy0) * top + const(wy1) * bottom
    return elementwise_ops.where(array_ops.constant(sampling["fill"][..., None]), fill, out)


def _inverse_flat(transforms):
    """The flat 8-coefficient form of each transform's inverse (TensorFlow's gradient of a
    projective transform warps the incoming gradient back by it)."""
    t = np.asarray(transforms, np.float32)
    m = np.concatenate([t, np.ones((t.shape[0], 1), np.float32)], 1).reshape(-1, 3, 3)
    inv = np.linalg.inv(m)      # float32, as TensorFlow inverts them
    return inv.reshape(-1, 9)[:, :8] / inv[:, 2, 2][:, None]


def _projective(images, transforms, interpolation, fill_mode, fill_value):
    """NHWC ``images`` warped by ``transforms`` (TensorFlow's ImageProjectiveTransformV3),
    with TensorFlow's gradient: the incoming gradient warped by the inverse transforms
    (fill 0), which is what Keras's gradients are."""
    forward = _sampling(images.shape, transforms, interpolation, fill_mode)
    backward = _sampling(images.shape, _inverse_flat(transforms), interpolation, fill_mode)
    dtype = images.dtype

    @custom_gradient
    def warp(x):
        def grad(dy):
            return cast(_apply_sampling(dy, backward, 0.0), dtype)
        return cast(_apply_sampling(x, forward, fill_value), dtype), grad

    if _is_int(dtype):      # TensorFlow truncates the float sample to the integer type
        return cast(_apply_sampling(images, forward, fill_value), dtype)
    return warp(images)


def _warp(opname, images, transforms, interpolation, fill_mode, fill_value, data_format):
    images = _t(images)
    _rank34(opname, images)
    squeeze = len(images.shape) == 3
    if squeeze:
        images = array_ops.expand_dims(images, 0)
    images = _last(images, data_format)
    out = _first(_projective(images, transforms, interpolation, fill_mode, fill_value),
                 data_format)
    return array_ops.squeeze(out, [0]) if squeeze else out


def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    data_format = standardize_data_format(data_format)
    if interpolation not in _WARP_METHODS:
        raise ValueError("affine_transform: invalid value for argument `interpolation`. "
                         "Expected one of %s. Received: interpolation=%s"
                         % (_WARP_METHODS, interpolation))
    if fill_mode not in _WARP_FILL_MODES:
        raise ValueError("affine_transform: invalid value for argument `fill_mode`. Expected "
                         "one of %s. Received: fill_mode=%s" % (_WARP_FILL_MODES, fill_mode))
    transform = _t(transform)
    if len(transform.shape) not in (1, 2):
        raise ValueError("affine_transform: invalid transform rank: expected rank 1 (single "
                         "transform) or rank 2 (batch of transforms). Received input with "
                         "shape: transform.shape=%s" % (tuple(transform.shape),))
    # the transform only places the samples: like TensorFlow's, no gradient flows to it
    t = np.asarray(transform.numpy(), np.float32).reshape(-1, 8)
    return _warp("affine_transform", images, t, interpolation, fill_mode, fill_value,
                 data_format)


def _homography(start, end):
    """The 8 projective coefficients mapping ``end`` corners to ``start`` corners (B, 4, 2)
    by solving Keras's 8x8 system."""
    rows, rhs = [], []
    for i in range(4):
        sx, sy = start[:, i, 0], start[:, i, 1]
        ex, ey = end[:, i, 0], end[:, i, 1]
        one, zero = np.ones_like(ex), np.zeros_like(ex)
        rows.append(np.stack([ex, ey, one, zero, zero, zero, -sx * ex, -sx * ey], -1))
        rows.append(np.stack([zero, zero, zero, ex, ey, one, -sy * ex, -sy * ey], -1))
        rhs += [sx, sy]
    a = array_ops.constant(np.stack(rows, 1).astype(np.float32))
    b = array_ops.constant(np.stack(rhs, -1)[..., None].astype(np.float32))
    return np.asarray(decomposition_ops.solve(a, b).numpy()).reshape(-1, 8)


def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    data_format = standardize_data_format(data_format)
    start = np.asarray(cast(_t(start_points), "float32").numpy())
    end = np.asarray(cast(_t(end_points), "float32").numpy())
    if interpolation not in _WARP_METHODS:
        raise ValueError("perspective_transform: invalid value for argument `interpolation`. "
                         "Expected one of %s. Received: interpolation=%s"
                         % (_WARP_METHODS, interpolation))
    for what, p in (("start_points", start), ("end_points", end)):
        if p.ndim not in (2, 3) or p.shape[-2:] != (4, 2):
            raise ValueError("perspective_transform: invalid %s shape: expected (4,2) for a "
                             "single image or (N,4,2) for a batch. Received shape: %s"
                             % (what, p.shape))
    if start.shape != end.shape:
        raise ValueError("perspective_transform: start_points and end_points must have the "
                         "same shape. Received start_points.shape=%s, end_points.shape=%s"
                         % (start.shape, end.shape))
    t = _homography(start.reshape(-1, 4, 2), end.reshape(-1, 4, 2))
    return _warp("perspective_transform", images, t, interpolation, "constant", fill_value,
                 data_format)


def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    x = _t(inputs)
    coords = _t(coordinates)
    if coords.shape[0] != len(x.shape):
        raise ValueError("map_coordinates: first dim of `coordinates` must be the same as the "
                         "rank of `inputs`. Received inputs with shape: %s and coordinate "
                         "leading dim of %s" % (tuple(x.shape), coords.shape[0]))
    if len(coords.shape) < 2:
        raise ValueError("map_coordinates: invalid coordinates rank: expected at least rank 2. "
                         "Received input with shape: %s" % (tuple(coords.shape),))
    if fill_mode not in _MAP_FILL_MODES:
        raise ValueError("map_coordinates: invalid value for argument `fill_mode`. Expected "
                         "one of %s. Received: fill_mode=%s" % (set(_MAP_FILL_MODES), fill_mode))
    if order not in (0, 1):
        raise NotImplementedError("map_coordinates currently requires order<=1")
    fill = cast(fill_value, x.dtype)
    nodes_per_axis = []
    for axis, size in enumerate(x.shape):
        c = coords[axis]
        if order == 0:
            rounded = c if _is_int(c.dtype) else elementwise_ops.round(c)
            nodes = [(cast(rounded, "int32"), cast(1, c.dtype))]
        else:
            lower = elementwise_ops.floor(c)
            upper_w = c - lower
            index = cast(lower, "int32")
            nodes = [(index, 1 - upper_w), (index + 1, upper_w)]
        nodes_per_axis.append([(*_fix_index(i, size, fill_mode), w) for i, w in nodes])
    out = None
    for combo in itertools.product(*nodes_per_axis):
        indices, valids, weights = zip(*combo)
        idx = array_ops.stack(indices, axis=-1)
        w = weights[0]
        for extra in weights[1:]:
            w = w * extra
        gathered = cast(indexing_ops.gather_nd(x, idx), w.dtype)
        if fill_mode == "constant":
            ok = valids[0]
            for v in valids[1:]:
                ok = elementwise_ops.logical_and(ok, v)
            gathered = elementwise_ops.where(ok, gathered, cast(fill, w.dtype))
        term = w * gathered
        out = term if out is None else out + term
    if _is_int(x.dtype):
        out = elementwise_ops.round(out)
    return cast(out, x.dtype)


def _fix_index(index, size, fill_mode):
    """(in-range index, validity) for one interpolation node, by Keras's fill modes."""
    if fill_mode == "constant":
        valid = elementwise_ops.logical_and(index >= 0, index < size)
        return elementwise_ops.clip_by_value(index, 0, size - 1), valid
    true = array_ops.ones_like(index, dtype="bool")
    if fill_mode == "nearest":
        return elementwise_ops.clip_by_value(index, 0, size - 1), true
    if fill_mode in ("mirror", "reflect"):
        c = elementwise_ops.abs(index)
        mod = elementwise_ops.floormod(c, 2 * size)
        under = mod < size
        c = elementwise_ops.where(under, mod, 2 * size - mod)
        if fill_mode == "reflect":
            c = elementwise_ops.where(under, c, c - 1)
        return c, true
    return elementwise_ops.floormod(index, size), true


# ---- crops, pads, patches ----------------------------------------------------------------

def _hw(images, data_format):
    if data_format == "channels_last":
        return images.shape[-3], images.shape[-2]
    return images.shape[-2], images.shape[-1]


def _exactly_two(opname, names, values):
    if list(values).count(None) != 1:
        raise ValueError("%s: must specify exactly two of %s. Received: %s"
                         % (opname, ", ".join(names),
                            ", ".join("%s=%s" % nv for nv in zip(names, values))))
    _non_negative(opname, names, values)


def _non_negative(opname, names, values):
    for n, v in zip(names, values):
        if v is not None and v < 0:
            raise ValueError("%s: %s must be >= 0. Received: %s=%s" % (opname, n, n, v))


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    data_format = standardize_data_format(data_format)
    images = _t(images)
    _rank34("pad_images", images)
    _exactly_two("pad_images", ("top_padding", "bottom_padding", "target_height"),
                 (top_padding, bottom_padding, target_height))
    _exactly_two("pad_images", ("left_padding", "right_padding", "target_width"),
                 (left_padding, right_padding, target_width))
    height, width = _hw(images, data_format)
    if top_padding is None:
        top_padding = target_height - bottom_padding - height
    if bottom_padding is None:
        bottom_padding = target_height - top_padding - height
    if left_padding is None:
        left_padding = target_width - right_padding - width
    if right_padding is None:
        right_padding = target_width - left_padding - width
    _non_negative("pad_images", ("top_padding", "left_padding", "right_padding",
                                 "bottom_padding"),
                  (top_padding, left_padding, right_padding, bottom_padding))
    pads = [[top_padding, bottom_padding], [left_padding, right_padding]]
    pads = pads + [[0, 0]] if data_format == "channels_last" else [[0, 0]] + pads
    if len(images.shape) == 4:
        pads = [[0, 0]] + pads
    return array_ops.pad(images, pads)


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    data_format = standardize_data_format(data_format)
    images = _t(images)
    _rank34("crop_images", images)
    _exactly_two("crop_images", ("top_cropping", "bottom_cropping", "target_height"),
                 (top_cropping, bottom_cropping, target_height))
    _exactly_two("crop_images", ("left_cropping", "right_cropping", "target_width"),
                 (left_cropping, right_cropping, target_width))
    height, width = _hw(images, data_format)
    if top_cropping is None:
        top_cropping = height - target_height - bottom_cropping
    if target_height is None:
        target_height = height - bottom_cropping - top_cropping
    if left_cropping is None:
        left_cropping = width - target_width - right_cropping
    if target_width is None:
        target_width = width - right_cropping - left_cropping
    _non_negative("crop_images", ("top_cropping", "target_height", "left_cropping",
                                  "target_width"),
                  (top_cropping, target_height, left_cropping, target_width))
    if top_cropping + target_height > height or left_cropping + target_width > width:
        # Keras slices with TensorFlow's Slice, which refuses a window past the image
        raise errors.InvalidArgumentError(
            "crop_images: the crop [%d:%d, %d:%d] exceeds the image (height %d, width %d)"
            % (top_cropping, top_cropping + target_height, left_cropping,
               left_cropping + target_width, height, width))
    rows = slice(top_cropping, top_cropping + target_height)
    cols = slice(left_cropping, left_cropping + target_width)
    if data_format == "channels_last":
        return images[..., rows, cols, :]
    return images[..., rows, cols]


def _patches(images, size, strides, dilation_rate, padding, data_format, n):
    """Patches of ``n``-D images as a convolution with the identity kernel (Keras's way:
    each output channel copies one (tap, channel) of the window)."""
    data_format = standardize_data_format(data_format)
    channels = images.shape[-1] if data_format == "channels_last" else images.shape[-1 - n]
    out_dim = int(np.prod(size)) * channels
    kernel = array_ops.reshape(array_ops.eye(out_dim, dtype=images.dtype),
                               list(size) + [channels, out_dim])
    unbatched = len(images.shape) == n + 1
    if unbatched:
        images = array_ops.expand_dims(images, 0)
    out = nn.conv(images, kernel, strides=strides, padding=padding, data_format=data_format,
                  dilation_rate=dilation_rate)
    return array_ops.squeeze(out, [0]) if unbatched else out


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    if not isinstance(size, int):
        if not isinstance(size, (tuple, list)):
            raise TypeError("extract_patches: invalid `size` argument. Expected an int or a "
                            "tuple. Received: size=%s of type %s" % (size, type(size).__name__))
        if len(size) not in (2, 3):
            raise ValueError("extract_patches: invalid `size` argument. Expected a tuple of "
                             "length 2 or 3. Received: size=%s with length %d"
                             % (size, len(size)))
    images = _t(images)
    if not isinstance(size, int) and len(size) == 3:
        return extract_patches_3d(images, size, strides, dilation_rate, padding, data_format)
    size2 = (size, size) if isinstance(size, int) else tuple(size)
    return _patches(images, size2, strides or size, dilation_rate, padding, data_format, 2)


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    if isinstance(size, int):
        size = (size, size, size)
    if len(size) != 3:
        raise TypeError("extract_patches_3d: invalid `size` argument. Expected an int or a "
                        "tuple of length 3. Received: size=%s" % (size,))
    strides = size if strides is None else strides
    if isinstance(strides, int):
        strides = (strides,) * 3
    if len(strides) != 3:
        raise ValueError("extract_patches_3d: invalid `strides` argument. Got: %s" % (strides,))
    return _patches(_t(volumes), tuple(size), tuple(strides), dilation_rate, padding,
                    data_format, 3)


# ---- filters ------------------------------------------------------------------------------

def _gauss_1d(size, sigma, dtype):
    x = array_ops.range(size, dtype=dtype) - cast((size - 1) / 2, dtype)
    k = elementwise_ops.exp(cast(-0.5, dtype) * elementwise_ops.square(x / sigma))
    return k / reduction_ops.reduce_sum(k)


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    images = _t(images)
    dtype = images.dtype
    _rank34("gaussian_blur", images)
    squeeze = len(images.shape) == 3
    if squeeze:
        images = array_ops.expand_dims(images, 0)
    # Keras's backend compares with "channels_first" without standardising (None: last)
    first = data_format == "channels_first"
    if first:
        images = array_ops.transpose(images, (0, 2, 3, 1))
    sigma = [cast(s, dtype) for s in sigma]
    k0, k1 = int(kernel_size[0]), int(kernel_size[1])
    # Keras takes the outer product (second kernel) x (first kernel), of shape (k1, k0),
    # and lays it out as (k0, k1): the same for square kernels, and kept for the others
    first_k = _gauss_1d(k0, sigma[0], dtype)
    second_k = _gauss_1d(k1, sigma[1], dtype)
    kernel = array_ops.reshape(linalg_ops.tensordot(second_k, first_k, axes=0),
                               [k0, k1, 1, 1])
    kernel = array_ops.tile(kernel, [1, 1, images.shape[-1], 1])
    out = nn._depthwise_last(images, kernel, (1, 1), "SAME", (1, 1))
    if first:
        out = array_ops.transpose(out, (0, 3, 1, 2))
    return array_ops.squeeze(out, [0]) if squeeze else out


def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    data_format = standardize_data_format(data_format)
    if interpolation not in _WARP_METHODS:
        raise ValueError("elastic_transform: invalid value for argument `interpolation`. "
                         "Expected one of %s. Received: interpolation=%s"
                         % (_WARP_METHODS, interpolation))
    if fill_mode not in _WARP_FILL_MODES:
        raise ValueError("elastic_transform: invalid value for argument `fill_mode`. Expected "
                         "one of %s. Received: fill_mode=%s" % (_WARP_FILL_MODES, fill_mode))
    images = _t(images)
    _rank34("elastic_transform", images)
    dtype = images.dtype
    alpha_t = cast(alpha, dtype)
    sigma_t = cast(sigma, dtype)
    factor = int(sigma)
    ksize = (6 * factor | 1, 6 * factor | 1)
    squeeze = len(images.shape) == 3
    if squeeze:
        images = array_ops.expand_dims(images, 0)
    if data_format == "channels_last":
        batch, height, width, channels = images.shape
        channel_axis = -1
    else:
        batch, channels, height, width = images.shape
        channel_axis = 1
    seed = keras_random._draw_seed(seed)
    # Keras draws dx and dy from the same seed (so they are equal)
    dx = fe_random.stateless_normal((batch, height, width), seed, dtype=dtype) * sigma_t
    dy = fe_random.stateless_normal((batch, height, width), seed, dtype=dtype) * sigma_t
    blur = "channels_first" if data_format == "channels_first" else None
    dx = array_ops.squeeze(gaussian_blur(array_ops.expand_dims(dx, channel_axis), ksize,
                                         (sigma_t, sigma_t), blur), [channel_axis])
    dy = array_ops.squeeze(gaussian_blur(array_ops.expand_dims(dy, channel_axis), ksize,
                                         (sigma_t, sigma_t), blur), [channel_axis])
    gx, gy = np.meshgrid(np.arange(width), np.arange(height), indexing="xy")
    x = array_ops.constant(gx[None], dtype=dtype) + alpha_t * dx
    y = array_ops.constant(gy[None], dtype=dtype) + alpha_t * dy
    order = _WARP_METHODS.index(interpolation)
    per_channel = []
    for c in range(channels):
        planes = []
        for b in range(batch):
            plane = images[b, ..., c] if data_format == "channels_last" else images[b, c]
            planes.append(map_coordinates(plane, array_ops.stack([y[b], x[b]]), order,
                                          fill_mode=fill_mode, fill_value=fill_value))
        per_channel.append(array_ops.stack(planes, axis=0))
    out = array_ops.stack(per_channel, axis=-1 if data_format == "channels_last" else 1)
    if squeeze:
        out = array_ops.squeeze(out, [0])
    return cast(out, dtype)


def sobel_edges(images, data_format=None):
    data_format = standardize_data_format(data_format)
    images = _t(images)
    if data_format == "channels_first":
        images = array_ops.transpose(images, (0, 2, 3, 1))
    edges = fe_image.sobel_edges(images)
    if data_format == "channels_first":
        edges = array_ops.transpose(edges, (0, 3, 1, 2, 4))
    return edges


def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    data_format = standardize_data_format(data_format)
    image1, image2 = _t(image1), _t(image2)
    original = image1.dtype
    dtype = result_type(image1.dtype, float)
    image1, image2 = cast(image1, dtype), cast(image2, dtype)
    _rank34("ssim", image1, "image1")
    _rank34("ssim", image2, "image2")
    unbatched = len(image1.shape) == 3
    if unbatched:
        image1, image2 = array_ops.expand_dims(image1, 0), array_ops.expand_dims(image2, 0)
    if data_format == "channels_first":
        image1 = array_ops.transpose(image1, (0, 2, 3, 1))
        image2 = array_ops.transpose(image2, (0, 2, 3, 1))
    batch, height, width, channels = image1.shape
    x = array_ops.range(filter_size, dtype=dtype) - cast((filter_size - 1) / 2.0, dtype)
    g = elementwise_ops.exp(-elementwise_ops.square(x) / cast(2.0 * filter_sigma ** 2, dtype))
    g = g / reduction_ops.reduce_sum(g)
    kernel = array_ops.reshape(g[:, None] * g[None, :], [filter_size, filter_size, 1, 1])
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2

    def per_channel(img):
        return array_ops.reshape(array_ops.transpose(img, (0, 3, 1, 2)), [-1, height, width, 1])

    a, b = per_channel(image1), per_channel(image2)

    def blur(v):
        return nn.conv(v, kernel, strides=1, padding="valid", data_format="channels_last")

    mu1, mu2 = blur(a), blur(b)
    mu1_sq, mu2_sq, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    s1 = blur(a * a) - mu1_sq
    s2 = blur(b * b) - mu2_sq
    s12 = blur(a * b) - mu12
    num = (2.0 * mu12 + c1) * (2.0 * s12 + c2)
    den = (mu1_sq + mu2_sq + c1) * (s1 + s2 + c2)
    per_image = array_ops.reshape(reduction_ops.reduce_mean(num / den, axis=[1, 2, 3]),
                                  [batch, channels])
    out = reduction_ops.reduce_mean(per_image, axis=-1)
    if unbatched:
        out = array_ops.squeeze(out, [0])
    return cast(out, original)
