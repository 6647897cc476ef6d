"""Image file codecs of ``fe.io`` / ``fe.image`` (``decode_png``, ``encode_png``,
``decode_jpeg``, ``encode_jpeg``, ``decode_gif``, ``decode_bmp``, ``decode_image`` ...),
with TensorFlow 2.21's arguments, dtypes, shapes and errors.

PNG is decoded and encoded here (``_png``: NumPy and zlib), bit-exact with TensorFlow's
libpng decoding. JPEG, GIF and BMP need a codec: Pillow, imported on first use (an
ImportError naming the function without it). Pillow's libjpeg decoding may differ from
TensorFlow's by a few levels per pixel (TensorFlow picks libjpeg's fast integer DCT).

As in TensorFlow, ``decode_png``, ``decode_jpeg`` and ``decode_gif`` read any of the
formats (the format is sniffed from the first bytes; ``decode_gif`` always returns
[frames, height, width, 3]); ``decode_bmp`` reads only BMP. Files are untrusted input:
anything that does not decode raises InvalidArgumentError naming the op.
"""
import io

import numpy as np

from . import _core, _png
from .errors import InternalError, InvalidArgumentError

_PNG, _JPEG, _GIF, _BMP = "png", "jpeg", "gif", "bmp"


def _contents(opname, contents):
    """The bytes of a scalar string tensor / bytes argument."""
    from .strings import bytes_array
    arr = bytes_array(contents, opname)
    if arr.ndim != 0:
        raise InvalidArgumentError("%s: `contents` must be scalar but got shape%s"
                                   % (opname, list(arr.shape)))
    return bytes(arr[()])


def _format(opname, data):
    if not data:
        raise InvalidArgumentError("%s: Input is empty." % opname)
    if data.startswith(_png.SIGNATURE):
        return _PNG
    if data.startswith(b"\xff\xd8\xff"):
        return _JPEG
    if data.startswith(b"GIF8"):
        return _GIF
    if data.startswith(b"BM"):
        return _BMP
    raise InvalidArgumentError("%s: Unknown image file format. One of JPEG, PNG, GIF, BMP "
                               "required." % opname)


def _pil(opname):
    from .keras._image_utils import _pil_image
    return _pil_image(opname)


def _pil_open(opname, data, what):
    image_module = _pil(opname)
    try:
        img = image_module.open(io.BytesIO(data))
        img.load()
        return img
    except Exception as e:      # Pillow raises many types on corrupt data
        raise InvalidArgumentError("%s: Invalid %s data (%s: %s)"
                                   % (opname, what, type(e).__name__, e)) from None


def _check_channels(opname, channels, allowed):
    channels = int(channels)
    if channels not in allowed:
        raise InvalidArgumentError("%s: `channels` must be 0, 1, 3 or 4 but got %d"
                                   % (opname, channels))
    return channels


def _png_array(opname, data, channels, dtype):
    try:
        return _png.decode(data, channels, dtype)
    except _png.PngError as e:
        raise InvalidArgumentError("%s: %s" % (opname, e)) from None
    except (ValueError, IndexError, MemoryError, OverflowError) as e:
        raise InvalidArgumentError("%s: Invalid PNG data (%s)" % (opname, e)) from None


def _jpeg_array(opname, data, channels, ratio=1):
    if channels == 4:
        raise InvalidArgumentError("%s: JPEG does not support 4 channels" % opname)
    image_module = _pil(opname)
    try:
        img = image_module.open(io.BytesIO(data))
        mode = "L" if channels == 1 else ("RGB" if channels == 3 or img.mode != "L" else "L")
        # libjpeg's own colour conversion and DCT scaling, as TensorFlow asks libjpeg
        img.draft(mode, (max(1, img.size[0] // ratio), max(1, img.size[1] // ratio)))
        img.load()
        arr = np.asarray(img.convert(mode))
    except Exception as e:
        raise InvalidArgumentError("%s: jpeg::Uncompress failed. Invalid JPEG data (%s: %s)"
                                   % (opname, type(e).__name__, e)) from None
    return arr[..., None] if arr.ndim == 2 else arr


def _gif_frames(opname, data):
    from PIL import ImageSequence
    img = _pil_open(opname, data, "GIF")
    try:
        frames = [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(img)]
    except Exception as e:
        raise InvalidArgumentError("%s: Invalid GIF data (%s: %s)"
                                   % (opname, type(e).__name__, e)) from None
    return np.stack(frames)


def _bmp_array(opname, data, channels):
    img = _pil_open(opname, data, "BMP")
    mode = {3: "RGB", 4: "RGBA"}.get(channels, "RGBA" if img.mode == "RGBA" else "RGB")
    return np.asarray(img.convert(mode))


def _to_channels(arr, channels):
    """A uint8 RGB(A)/grey array with the channel count decode_image asks for."""
    have = arr.shape[-1]
    if not channels or channels == have:
        return arr
    if channels == 1:
        return _png._gray(arr[..., :3]) if have >= 3 else arr[..., :1]
    rgb = np.repeat(arr[..., :1], 3, axis=-1) if have < 3 else arr[..., :3]
    if channels == 3:
        return rgb
    alpha = arr[..., -1:] if have in (2, 4) else np.full(arr.shape[:-1] + (1,), 255, arr.dtype)
    return np.concatenate([rgb, alpha], axis=-1)


def _decode_any(opname, data, channels, dtype=np.uint8, fmt=None):
    """(array, format): the image in ``data`` as [h, w, c] (GIF: [frames, h, w, 3]) of
    ``dtype`` (uint8 or uint16)."""
    fmt = fmt or _format(opname, data)
    if fmt == _PNG:
        return _png_array(opname, data, channels, dtype), fmt
    if fmt == _JPEG:
        arr = _jpeg_array(opname, data, channels)
    elif fmt == _GIF:
        if channels not in (0, 3):
            raise InvalidArgumentError("%s: channels must be 0 or 3 for GIF, got %d"
                                       % (opname, channels))
        arr = _gif_frames(opname, data)
    else:
        if channels not in (0, 3, 4):
            raise InvalidArgumentError("%s: `channels` must be 0, 3 or 4 for BMP, but got %d"
                                       % (opname, channels))
        arr = _bmp_array(opname, data, channels)
    if dtype == np.uint16:
        arr = arr.astype(np.uint16) * np.uint16(257)
    return arr, fmt


def _wrap(arr):
    if arr.dtype == object:
        return _core.convert_to_tensor(arr)
    return _core.wrap(np.asarray(arr, order="C"))   # (ascontiguousarray makes 0-d 1-d)


def decode_png(contents, channels=0, dtype="uint8", name=None):
    """The PNG (or JPEG, non-animated GIF, BMP) image in ``contents`` as a [height, width,
    channels] uint8 or uint16 tensor; ``channels`` 0 keeps the file's, 1/3/4 converts."""
    from .dtypes import as_dtype
    dt = as_dtype(dtype)
    if dt.name not in ("uint8", "uint16"):
        raise InvalidArgumentError("decode_png: dtype must be uint8 or uint16 (got %s)"
                                   % dt.name)
    channels = _check_channels("decode_png", channels, (0, 1, 3, 4))
    data = _contents("decode_png", contents)
    arr, fmt = _decode_any("decode_png", data, channels, np.dtype(dt.name))
    if fmt == _GIF:
        arr = _single_frame("decode_png", arr)
    return _wrap(arr)


def _single_frame(opname, frames):
    if frames.shape[0] != 1:
        raise InvalidArgumentError("%s: Got %d frames, but animated gifs can only be decoded "
                                   "by tf.io.decode_gif or tf.io.decode_image"
                                   % (opname, frames.shape[0]))
    return frames[0]


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """The JPEG (or PNG, non-animated GIF) image in ``contents`` as a [height, width,
    channels] uint8 tensor; ``ratio`` (1, 2, 4, 8) downscales while decoding. Needs
    Pillow."""
    channels = _check_channels("decode_jpeg", channels, (0, 1, 3, 4))
    if ratio not in (1, 2, 4, 8):
        raise InvalidArgumentError("decode_jpeg: ratio must be 1, 2, 4, or 8, got %r" % ratio)
    data = _contents("decode_jpeg", contents)
    fmt = _format("decode_jpeg", data)
    if fmt == _JPEG:
        return _wrap(_jpeg_array("decode_jpeg", data, channels, ratio))
    arr, fmt = _decode_any("decode_jpeg", data, channels, fmt=fmt)
    return _wrap(_single_frame("decode_jpeg", arr) if fmt == _GIF else arr)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """``decode_jpeg`` then the window ``crop_window = [y, x, height, width]``."""
    image = decode_jpeg(contents, channels, ratio).numpy()
    y, x, h, w = (int(v) for v in np.asarray(_core.convert_to_tensor(crop_window)._value))
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > image.shape[0] or x + w > image.shape[1]:
        raise InvalidArgumentError("decode_and_crop_jpeg: Invalid JPEG data or crop window, "
                                   "data size %d" % len(_contents("decode_and_crop_jpeg",
                                                                  contents)))
    return _wrap(image[y:y + h, x:x + w])


def decode_gif(contents, name=None):
    """Every frame of the GIF in ``contents``, [num_frames, height, width, 3] uint8 (a PNG,
    JPEG or BMP gives one frame). Needs Pillow."""
    data = _contents("decode_gif", contents)
    arr, fmt = _decode_any("decode_gif", data, 0)
    if fmt != _GIF:
        arr = _to_channels(arr, 3)[None]
    return _wrap(arr)


def decode_bmp(contents, channels=0, name=None):
    """The BMP image in ``contents``, [height, width, channels] uint8 (``channels`` 0, 3 or
    4). Needs Pillow."""
    channels = int(channels)
    if channels not in (0, 3, 4):
        raise InvalidArgumentError("decode_bmp: `channels` must be 0, 3 or 4 for BMP, but got "
                                   "%d" % channels)
    data = _contents("decode_bmp", contents)
    fmt = _format("decode_bmp", data)
    if fmt != _BMP:
        raise InvalidArgumentError("decode_bmp: Trying to decode %s format using DecodeBmp op. "
                                   "Use `decode_%s` or `decode_image` instead."
                                   % (fmt.upper(), fmt))
    return _wrap(_bmp_array("decode_bmp", data, channels))


def decode_image(contents, channels=None, dtype="uint8", name=None, expand_animations=True):
    """The BMP, GIF, JPEG or PNG image in ``contents``: [height, width, channels], or
    [frames, height, width, 3] for a GIF unless ``expand_animations=False`` (then its
    first frame). ``dtype`` float32 scales to [0, 1]; uint16 by 257 from 8-bit files; any
    other dtype is ``convert_image_dtype`` of the uint16 decoding, as TensorFlow does."""
    from .dtypes import as_dtype
    from .image import convert_image_dtype
    dt = as_dtype(dtype)
    channels = _check_channels("decode_image", 0 if channels is None else channels,
                               (0, 1, 3, 4))
    data = _contents("decode_image", contents)
    native = dt.name if dt.name in ("uint8", "uint16", "float32") else "uint16"
    arr, fmt = _decode_any("decode_image", data, channels,
                           np.uint8 if native == "uint8" else np.uint16)
    if fmt == _GIF and not expand_animations:
        arr = arr[0]
    if native == "float32":     # TensorFlow's kernel: the uint16 decoding times 1/65535
        arr = arr.astype(np.float32) * np.float32(1 / 65535)
    out = _wrap(arr)
    return out if native == dt.name else convert_image_dtype(out, dt)


def _image_array(opname, image, dtypes):
    x = _core.convert_to_tensor(image)._value
    if x.dtype.name not in dtypes:
        raise InvalidArgumentError("%s: image must be %s (got %s)"
                                   % (opname, " or ".join(dtypes), x.dtype.name))
    return x


def encode_png(image, compression=-1, name=None):
    """A [..., height, width, channels] uint8 or uint16 image (1-4 channels) as PNG bytes:
    a string tensor of the batch shape. ``compression`` -1 (zlib's default) to 9."""
    x = _image_array("encode_png", image, ("uint8", "uint16"))
    if x.ndim < 3:
        raise InvalidArgumentError("encode_png: images must be at least rank 3%s"
                                   % list(x.shape))
    if not 1 <= x.shape[-1] <= 4:
        raise InvalidArgumentError("encode_png: image must have 1, 2, 3, or 4 channels, got %d"
                                   % x.shape[-1])
    if not -1 <= int(compression) <= 9:
        raise InvalidArgumentError("encode_png: compression should be in [-1,9], got %d"
                                   % int(compression))
    batch = x.shape[:-3]
    count = int(np.prod(batch))
    if 0 in x.shape[-3:-1]:
        raise InternalError("encode_png: PNG encoding failed at the following flattened batch "
                            "indices: %s" % ", ".join(map(str, range(count))))
    flat = x.reshape((count,) + x.shape[-3:])
    out = np.empty(flat.shape[0], dtype=object)
    for i, img in enumerate(flat):
        out[i] = _png.encode(img, int(compression))
    return _wrap(out.reshape(batch))


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
    """A [height, width, 1 or 3] uint8 image as JPEG bytes (a scalar string tensor), with
    libjpeg's quality scaling of the standard tables. Needs Pillow."""
    x = _image_array("encode_jpeg", image, ("uint8",))
    if x.ndim != 3:
        raise InvalidArgumentError("encode_jpeg: image must be 3-dimensional%s"
                                   % list(x.shape))
    want = {"": x.shape[-1], "grayscale": 1, "rgb": 3}.get(format)
    if want is None:
        raise InvalidArgumentError("encode_jpeg: format must be '', 'grayscale' or 'rgb' (got "
                                   "%r)" % (format,))
    if x.shape[-1] not in (1, 3) or x.shape[-1] != want:
        raise InvalidArgumentError("encode_jpeg: image must have 1 or 3 channels, got %s"
                                   % list(x.shape))
    quality = int(quality)
    if not 0 <= quality <= 100:
        raise InvalidArgumentError("encode_jpeg: quality must be in [0,100], got %d" % quality)
    if 0 in x.shape:
        raise InvalidArgumentError("encode_jpeg: image must not be empty (got shape %s)"
                                   % list(x.shape))
    image_module = _pil("encode_jpeg")
    img = image_module.fromarray(x[..., 0] if x.shape[-1] == 1 else x,
                                 "L" if x.shape[-1] == 1 else "RGB")
    buf = io.BytesIO()
    unit = 1 if density_unit == "in" else 2.54
    img.save(buf, "JPEG", quality=max(quality, 1), progressive=bool(progressive),
             optimize=bool(optimize_size), subsampling=2 if chroma_downsampling else 0,
             dpi=(x_density * unit, y_density * unit))
    value = np.empty((), dtype=object)
    value[()] = buf.getvalue()
    return _wrap(value)


def extract_jpeg_shape(contents, output_type="int32", name=None):
    """[height, width, channels] of the JPEG in ``contents`` without decoding it."""
    from .dtypes import as_dtype
    data = _contents("extract_jpeg_shape", contents)
    if _format("extract_jpeg_shape", data) != _JPEG:
        raise InvalidArgumentError("extract_jpeg_shape: Invalid JPEG data, size %d" % len(data))
    image_module = _pil("extract_jpeg_shape")
    try:
        img = image_module.open(io.BytesIO(data))
        shape = [img.size[1], img.size[0], len(img.getbands())]
    except Exception as e:
        raise InvalidArgumentError("extract_jpeg_shape: Invalid JPEG data (%s)" % e) from None
    return _wrap(np.array(shape, dtype=as_dtype(output_type).name))


def is_jpeg(contents, name=None):
    """Whether ``contents`` starts as a JPEG file does (a scalar bool tensor)."""
    return _wrap(np.array(_contents("is_jpeg", contents).startswith(b"\xff\xd8\xff")))
