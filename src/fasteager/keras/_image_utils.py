"""``keras.utils.load_img`` / ``img_to_array`` / ``array_to_img`` / ``save_img`` (images
as PIL images and NumPy arrays) and ``keras.preprocessing.image.smart_resize``, with
Keras 3's arguments, defaults and errors.

PIL (Pillow) is optional: it is imported on first use, never when fasteager is imported,
and a call without it raises Keras's ImportError. Arrays are (height, width, channels)
for ``"channels_last"`` (the default) and (channels, height, width) for
``"channels_first"``.
"""
import io
import pathlib
import warnings

import numpy as np

from .. import image as fe_image
from .._core import convert_to_tensor
from .._src.io.image_codecs import pil_image as _pil_image
from ..ops.array_ops import transpose
from . import backend

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _resampling(image_module, interpolation):
    resampling = getattr(image_module, "Resampling", image_module)   # Pillow < 9.1: flat
    return getattr(resampling, interpolation.upper())


def image_data_format():
    """The global image layout (``keras.config.set_image_data_format``)."""
    return backend.image_data_format()


def standardize_data_format(data_format):
    """``None`` -> the global layout; else 'channels_first' or 'channels_last'."""
    if data_format is None:
        return image_data_format()
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', "
                         "'channels_last'}. Received: data_format=%s" % (data_format,))
    return value


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A rank-3 array (one image, 1, 3 or 4 channels) as a PIL image; with ``scale``
    its values are first stretched to [0, 255].

    >>> img = fe.keras.utils.array_to_img(np.random.random((100, 100, 3)))
    """
    data_format = standardize_data_format(data_format)
    if dtype is None:
        dtype = backend.floatx()
    image = _pil_image("array_to_img")
    x = np.asarray(x, dtype=dtype)
    if x.ndim != 3:
        raise ValueError("Expected image array to have rank 3 (single image). Got array "
                         "with shape: %s" % (x.shape,))
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            # a 32-bit signed integer grayscale image (PIL mode "I")
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError("Unsupported channel number: %s" % (channels,))


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image (or anything NumPy can read as one) as a rank-3 array of ``dtype``
    (default ``floatx()``, float32); a grayscale image gets a channel axis of 1.

    >>> fe.keras.utils.img_to_array(img).shape
    (100, 100, 3)
    """
    data_format = standardize_data_format(data_format)
    if dtype is None:
        dtype = backend.floatx()
    x = np.asarray(img, dtype=dtype)
    if x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    elif x.ndim == 2:
        x = x.reshape((1,) + x.shape if data_format == "channels_first" else x.shape + (1,))
    else:
        raise ValueError("Unsupported image shape: %s" % (x.shape,))
    return x


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write the array ``x`` (one image) to ``path`` (a path or a file object) as an
    image file; the format comes from ``file_format`` or the path's suffix. ``kwargs``
    go to ``PIL.Image.save``."""
    data_format = standardize_data_format(data_format)
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"       # Pillow's name for it
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("The JPEG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """Read an image file (a path or an ``io.BytesIO``) as a PIL image in ``color_mode``
    ("grayscale", "rgb" or "rgba"), resized to ``target_size`` (height, width) if given;
    ``keep_aspect_ratio`` crops the centre to the target's aspect ratio first.

    >>> img = fe.keras.utils.load_img("cat.jpg", target_size=(224, 224))  # doctest: +SKIP
    """
    image = _pil_image("load_img")
    if isinstance(path, io.BytesIO):
        img = image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        if isinstance(path, pathlib.Path):
            path = str(path.resolve())
        with open(path, "rb") as f:
            img = image.open(io.BytesIO(f.read()))
    else:
        raise TypeError("path should be path-like or io.BytesIO, not %s" % (type(path),))
    if color_mode == "grayscale":
        # 8-, 16- and 32-bit grayscale images stay as they are; others become 8-bit
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is None:
        return img
    width_height = (target_size[1], target_size[0])
    if img.size == width_height:
        return img
    if interpolation not in _INTERPOLATIONS:
        raise ValueError("Invalid interpolation method %s specified. Supported methods are %s"
                         % (interpolation, ", ".join(_INTERPOLATIONS)))
    resample = _resampling(image, interpolation)
    if not keep_aspect_ratio:
        return img.resize(width_height, resample)
    width, height = img.size
    target_width, target_height = width_height
    crop_height = min(height, (width * target_height) // target_width)
    crop_width = min(width, (height * target_width) // target_height)
    top = (height - crop_height) // 2
    left = (width - crop_width) // 2
    return img.resize(width_height, resample,
                      box=(left, top, left + crop_width, top + crop_height))


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last", **kwargs):
    """Resize an image (h, w, c) or a batch (n, h, w, c) to ``size`` (height, width)
    without distorting it: the largest centred crop with the target's aspect ratio, then
    ``fe.image.resize``. A NumPy input gives a NumPy array, a tensor a tensor."""
    if kwargs:
        raise TypeError("smart_resize() got unexpected keyword arguments: %s"
                        % list(kwargs.keys()))
    if len(size) != 2:
        raise ValueError("Expected `size` to be a tuple of 2 integers, but got: %s." % (size,))
    img = convert_to_tensor(x)
    rank = img.shape.rank
    if rank < 3 or rank > 4:
        raise ValueError("Expected an image array with shape `(height, width, channels)`, or "
                         "`(batch_size, height, width, channels)`, but got input with "
                         "incorrect rank, of shape %s." % (tuple(img.shape.as_list()),))
    channels_last = data_format == "channels_last"
    height, width = img.shape.as_list()[-3:-1] if channels_last else img.shape.as_list()[-2:]
    target_height, target_width = size
    crop_height = max(min(height, int(float(width * target_height) / target_width)), 1)
    crop_width = max(min(width, int(float(height * target_width) / target_height)), 1)
    top = int(float(height - crop_height) / 2)
    left = int(float(width - crop_width) / 2)
    rows, cols = slice(top, top + crop_height), slice(left, left + crop_width)
    if not channels_last:
        img = transpose(img, [1, 2, 0] if rank == 3 else [0, 2, 3, 1])
    img = img[..., rows, cols, :]
    img = fe_image.resize(img, size, method=interpolation)
    if not channels_last:
        img = transpose(img, [2, 0, 1] if rank == 3 else [0, 3, 1, 2])
    if isinstance(x, np.ndarray):
        return np.array(img)
    return img
