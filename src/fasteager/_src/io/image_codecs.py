"""Image file codecs of ``fe.io`` / ``fe.image`` (``decode_png``, ``encode_png``,
``decode_jpeg``, ``encode_jpeg``, ``decode_gif``, ``decode_bmp``, ``decode_image`` ...),
with TensorFlow 2.21's arguments, dtypes, shapes and errors, and the ops built on a JPEG
round trip (``adjust_jpeg_quality`` and its random forms).

PNG is decoded and encoded by the one PNG codec (``png``: NumPy and zlib), bit-exact
with TensorFlow's libpng decoding; GIF (giflib's reading, the LZW loop in ``_kernels``)
and BMP (TensorFlow's own reader) are decoded here too. JPEG needs a codec: Pillow,
imported on first use (an ImportError naming the function without it). Pillow's libjpeg
decoding may differ from TensorFlow's by a few levels per pixel (TensorFlow picks
libjpeg's fast integer DCT).

As in TensorFlow, ``decode_png``, ``decode_jpeg`` and ``decode_gif`` read PNG, JPEG and
GIF (the format is sniffed from the first bytes; ``decode_gif`` always returns
[frames, height, width, 3]) and refuse BMP; ``decode_bmp`` reads only BMP and
``decode_image`` all four. Files are untrusted input: anything that does not decode
raises InvalidArgumentError naming the op, and the work and memory of a decode are
bounded by the file's size and the output's.
"""
import io
import struct

import numpy as np

from ... import _core
from ..._kernels import gif_lzw_decode
from ...dtypes import as_dtype
from ...errors import InternalError, InvalidArgumentError, ResourceExhaustedError
from ...ops.image_color_ops import _check_jpeg_range
from ...ops.image_ops import _image, _uniform, convert_image_dtype, convert_to_tensor
from ...ops.string_values import bytes_array
from . import png as _png

_PNG, _JPEG, _GIF, _BMP = "png", "jpeg", "gif", "bmp"


def _contents(opname, contents):
    """The bytes of a scalar string tensor / bytes argument."""
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


def pil_image(opname):
    """PIL.Image, or Keras's ImportError naming ``opname`` (Pillow is optional: imported
    on first use)."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("Could not import PIL.Image. The use of `%s` requires PIL."
                          % opname) from None
    return Image



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
    image_module = pil_image(opname)
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


# ---- GIF (giflib's reading, TensorFlow's compositing) -----------------------------------

class _GifError(ValueError):
    """giflib's error text; ``opening`` when the file header itself is unreadable."""
    def __init__(self, text, opening=False):
        super().__init__(text)
        self.opening = opening


def _gif_sub_blocks(data, pos):
    """(sub-block payloads, position after the terminator) of the sub-blocks at ``pos``."""
    parts = []
    n = len(data)
    while True:
        if pos >= n:
            raise _GifError("Failed to read from given file")
        size = data[pos]
        pos += 1
        if size == 0:
            return parts, pos
        if pos + size > n:
            raise _GifError("Failed to read from given file")
        parts.append(data[pos:pos + size])
        pos += size


def _gif_colour_table(data, pos, flags):
    if not flags & 0x80:
        return None, pos
    size = 3 << ((flags & 7) + 1)
    if pos + size > len(data):
        raise _GifError("Failed to read from given file")
    return np.frombuffer(data, np.uint8, size, pos).reshape(-1, 3), pos + size


_GIF_INTERLACE = ((0, 8), (4, 8), (2, 4), (1, 2))


def _gif_image(data, pos):
    """One image descriptor and its LZW data at ``pos``: ((left, top, raster, local
    colour table), next position)."""
    if pos + 9 > len(data):
        raise _GifError("Failed to read from given file")
    left, top, width, height, flags = struct.unpack_from("<HHHHB", data, pos)
    table, pos = _gif_colour_table(data, pos + 9, flags)
    if width == 0 or height == 0:
        raise _GifError("Unknown error")        # giflib's DGifSlurp refuses it unnamed
    if pos >= len(data) or data[pos] > 8:
        raise _GifError("Failed to read from given file")
    min_size = data[pos]
    blocks, pos = _gif_sub_blocks(data, pos + 1)
    codes = b"".join(blocks)
    count = width * height
    # every code yields at most 4096 indices and takes at least min_size + 1 bits: a
    # frame larger than that can never be complete, so nothing is allocated for it
    if count > 4096 * (8 * len(codes) // (min_size + 1) + 1):
        raise _GifError("Image is defective, decoding aborted")
    raster, status = gif_lzw_decode(codes, min_size, count)
    if status:
        raise _GifError("Image EOF detected before image complete" if status == 1
                        else "Image is defective, decoding aborted")
    raster = raster.reshape(height, width)
    if flags & 0x40:        # interlaced: rows stored in four passes
        order = np.concatenate([np.arange(start, height, step)
                                for start, step in _GIF_INTERLACE])
        rows = np.empty_like(raster)
        rows[order] = raster
        raster = rows
    return (left, top, raster, table), pos


def _gif_read(data):
    """(global colour table, [(left, top, raster, colour table, transparent index)]) of
    the GIF ``data``, read as giflib's DGifSlurp reads it. As TensorFlow keeps what
    giflib slurped before an error, an error after a complete image ends the list."""
    if len(data) < 13 or not data.startswith(b"GIF"):
        raise _GifError("No screen descriptor detected", opening=True)
    flags = data[10]
    try:
        gct, pos = _gif_colour_table(data, 13, flags)
    except _GifError:
        raise _GifError("No screen descriptor detected", opening=True) from None
    images = []
    transparent = None      # from the first graphic control block before an image
    seen_control = False
    try:
        while True:
            if pos >= len(data):
                raise _GifError("Failed to read from given file")
            kind = data[pos]
            if kind == 0x3B:
                break
            if kind == 0x21:
                if pos + 1 >= len(data):
                    raise _GifError("Failed to read from given file")
                label = data[pos + 1]
                pos += 2
                if pos >= len(data):
                    raise _GifError("Failed to read from given file")
                first = None
                if data[pos]:
                    first, pos = _gif_sub_blocks(data, pos)
                    first = first[0]
                else:
                    # giflib's DGifSlurp reads on after an empty first sub-block: the
                    # blocks up to the next terminator belong to this extension too
                    _, pos = _gif_sub_blocks(data, pos + 1)
                # giflib keeps an extension's first sub-block as its block: the first such
                # block of a graphic control extension counts, and only if 4 bytes long
                if label == 0xF9 and first is not None and not seen_control:
                    seen_control = True
                    if len(first) == 4 and first[0] & 1:
                        transparent = first[3]
            elif kind == 0x2C:
                (left, top, raster, table), pos = _gif_image(data, pos + 1)
                images.append((left, top, raster, table, transparent))
                transparent, seen_control = None, False
            else:
                raise _GifError("Wrong record type detected")
    except _GifError:
        if not images:
            raise
    if not images:
        raise _GifError("No Image Descriptor detected")
    return gct, images


def _gif_frames(opname, data):
    """[frames, height, width, 3] uint8, composed as TensorFlow composes them: the canvas
    is the largest image's width and height (the logical screen size is ignored), each
    frame starts as a copy of the one before (black for the first), and an image paints
    its non-transparent pixels at its offset, clipped to the canvas."""
    def fail(text):
        return InvalidArgumentError("%s: Invalid GIF data (size %d), %s"
                                    % (opname, len(data), text))
    try:
        gct, images = _gif_read(data)
    except _GifError as e:
        step = "open" if e.opening else "slurp"
        raise fail("failed to %s gif file: %s" % (step, e)) from None
    height = max(img[2].shape[0] for img in images)
    width = max(img[2].shape[1] for img in images)
    try:
        frames = np.zeros((len(images), height, width, 3), np.uint8)
    except MemoryError:
        raise ResourceExhaustedError("%s: OOM allocating %d frames of %d x %d"
                                     % (opname, len(images), height, width)) from None
    for k, (left, top, raster, table, transparent) in enumerate(images):
        if k:
            frames[k] = frames[k - 1]
        table = gct if table is None else table
        if table is None:
            raise fail("missing color map for frame %d" % k)
        index = raster[:max(0, height - top), :max(0, width - left)]
        paint = index != transparent if transparent is not None else np.ones_like(index, bool)
        bad = paint & (index >= len(table))
        if bad.any():
            raise fail("found color index %d outside of color map range %d"
                       % (index[bad][0], len(table)))
        rows, cols = index.shape
        target = frames[k, top:top + rows, left:left + cols]
        target[paint] = table[index[paint]]
    return frames


# ---- BMP (TensorFlow's own reader: uncompressed 8, 24 and 32-bit rows) -------------------

def _bmp_array(opname, data, channels):
    """[height, width, channels] of an uncompressed BMP as TensorFlow's DecodeBmp reads
    it: the pixel offset, width, height and bits per pixel from the headers, 1 (grey: an
    8-bit file's palette is not applied), 3 (BGR) or 4 (BGRA) bytes per pixel, rows padded
    to 4 bytes, bottom-up unless the height is negative, and the file exactly that long
    (so compressed files, whose data is shorter, are refused)."""
    def fail(text):
        return InvalidArgumentError("%s: %s" % (opname, text))
    if len(data) < 32:
        raise fail("Incomplete bmp content, requires at least 32 bytes to find the header "
                   "size, width, height, and bpp, got %d bytes" % len(data))
    offset, = struct.unpack_from("<i", data, 10)
    width, height = struct.unpack_from("<ii", data, 18)
    bpp, = struct.unpack_from("<h", data, 28)
    inherent = int(bpp / 8)         # C's division, truncating toward zero
    if inherent not in (1, 3, 4):
        raise fail("Number of channels inherent in the image must be 1, 3 or 4, was %d"
                   % inherent)
    if width <= 0:
        raise fail("Width must be positive")
    if height == 0:
        raise fail("Height must be nonzero")
    if offset < 0:
        raise fail("header size must be nonnegative")
    rows = abs(height)
    if width * rows >= (2 ** 31 - 1) // 8:
        raise fail("Total possible pixel bytes must be less than 2^30")
    row_size = (inherent * width + 3) // 4 * 4
    diff = len(data) - offset - row_size * rows
    if diff:
        raise fail("Input size should match (header_size + row_size * abs_height) but they "
                   "differ by %d" % diff)
    pixels = np.frombuffer(data, np.uint8, row_size * rows, offset).reshape(rows, row_size)
    pixels = pixels[:, :width * inherent].reshape(rows, width, inherent)
    if height > 0:
        pixels = pixels[::-1]
    if inherent >= 3:
        pixels = pixels[..., [2, 1, 0, 3][:inherent]]       # BGR(A) -> RGB(A)
    want = channels or inherent
    if want == inherent:
        return np.ascontiguousarray(pixels)
    rgb = np.repeat(pixels, 3, axis=-1) if inherent == 1 else pixels[..., :3]
    if want == 3:
        return np.ascontiguousarray(rgb)
    return np.concatenate([rgb, np.full(rgb.shape[:-1] + (1,), 255, np.uint8)], axis=-1)


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


_OP_NAMES = {"decode_png": "DecodePng", "decode_jpeg": "DecodeJpeg",
             "decode_gif": "DecodeGif"}


def _decode_any(opname, data, channels, dtype=np.uint8, fmt=None):
    """(array, format): the image in ``data`` as [h, w, c] (GIF: [frames, h, w, 3]) of
    ``dtype`` (uint8 or uint16)."""
    fmt = fmt or _format(opname, data)
    if fmt == _BMP and opname in _OP_NAMES:
        raise InvalidArgumentError("%s: Trying to decode BMP format using a wrong op. Use "
                                   "`decode_bmp` or `decode_image` instead. Op used: %s"
                                   % (opname, _OP_NAMES[opname]))
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
    if dtype == np.uint16:      # TensorFlow widens its 8-bit decoders' output by << 8
        arr = arr.astype(np.uint16) << np.uint16(8)
    return arr, fmt


def _wrap(arr):
    if arr.dtype == object:
        return _core.convert_to_tensor(arr)
    return _core.wrap(np.asarray(arr, order="C"))   # (ascontiguousarray makes 0-d 1-d)


def decode_png(contents, channels=0, dtype="uint8", name=None):
    """The PNG (or JPEG, non-animated GIF) image in ``contents`` as a [height, width,
    channels] uint8 or uint16 tensor; ``channels`` 0 keeps the file's, 1/3/4 converts."""
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
    """Every frame of the GIF in ``contents``, [num_frames, height, width, 3] uint8 (a PNG
    or JPEG gives one frame). Frames are as large as the largest image in the file (the
    logical screen size is not used), as in TensorFlow."""
    data = _contents("decode_gif", contents)
    arr, fmt = _decode_any("decode_gif", data, 0)
    if fmt != _GIF:
        arr = _to_channels(arr, 3)[None]
    return _wrap(arr)


def decode_bmp(contents, channels=0, name=None):
    """The BMP image in ``contents``, [height, width, channels] uint8 (``channels`` 0, 3 or
    4): uncompressed 8 (read as grey), 24 or 32-bit files, as TensorFlow reads them."""
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
    first frame). ``dtype`` float32 scales to [0, 1] (a PNG's uint16 decoding times
    1/65535, the other formats' uint8 times 1/255); uint16 multiplies an 8-bit PNG by 257
    and the other formats by 256; any other dtype is ``convert_image_dtype`` of the uint16
    decoding, as TensorFlow does."""
    dt = as_dtype(dtype)
    channels = _check_channels("decode_image", 0 if channels is None else channels,
                               (0, 1, 3, 4))
    data = _contents("decode_image", contents)
    native = dt.name if dt.name in ("uint8", "uint16", "float32") else "uint16"
    fmt = _format("decode_image", data)
    # TensorFlow's kernels: float32 is PNG's uint16 decoding times 1/65535, or the 8-bit
    # decoders' uint8 output times 1/255
    wide = native == "uint16" or (native == "float32" and fmt == _PNG)
    arr, fmt = _decode_any("decode_image", data, channels,
                           np.uint16 if wide else np.uint8, fmt)
    if fmt == _GIF and not expand_animations:
        arr = arr[0]
    if native == "float32":
        arr = arr.astype(np.float32) * np.float32(1 / 65535 if wide else 1 / 255)
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
    image_module = pil_image("encode_jpeg")
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
    data = _contents("extract_jpeg_shape", contents)
    if _format("extract_jpeg_shape", data) != _JPEG:
        raise InvalidArgumentError("extract_jpeg_shape: Invalid JPEG data, size %d" % len(data))
    image_module = pil_image("extract_jpeg_shape")
    try:
        img = image_module.open(io.BytesIO(data))
        shape = [img.size[1], img.size[0], len(img.getbands())]
    except Exception as e:
        raise InvalidArgumentError("extract_jpeg_shape: Invalid JPEG data (%s)" % e) from None
    return _wrap(np.array(shape, dtype=as_dtype(output_type).name))


def is_jpeg(contents, name=None):
    """Whether ``contents`` starts as a JPEG file does (a scalar bool tensor)."""
    return _wrap(np.array(_contents("is_jpeg", contents).startswith(b"\xff\xd8\xff")))


# ---- ops on a JPEG round trip ----------------------------------------------------------

def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """The image after a JPEG round trip at quality ``jpeg_quality`` (0-100), in its own
    dtype. Needs Pillow. Not differentiable (TF has no gradient for it either)."""
    x = _image("adjust_jpeg_quality", image)
    orig = x.dtype
    u8 = convert_image_dtype(x, "uint8", saturate=True)._value
    quality = int(convert_to_tensor(jpeg_quality)._value)
    channels = u8.shape[-1]
    flat = u8.reshape((-1,) + u8.shape[-3:])
    out = np.stack([decode_jpeg(encode_jpeg(img, quality=quality),
                                channels=channels)._value for img in flat])
    return convert_image_dtype(_core.wrap(out.reshape(u8.shape)), orig, saturate=True)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """``adjust_jpeg_quality`` at a quality uniform in [min, max). Needs Pillow."""
    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    q = _uniform(seed, False, (), min_jpeg_quality, max_jpeg_quality, "int32")
    return adjust_jpeg_quality(image, q)


def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    q = _uniform(seed, True, (), min_jpeg_quality, max_jpeg_quality, "int32")
    return adjust_jpeg_quality(image, q)
