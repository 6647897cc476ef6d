"""fe.io image codecs: PNG (built in) against files written here chunk by chunk and
against values TensorFlow 2.21 returns (recorded below), JPEG through Pillow, GIF/BMP,
decode_image's dtype/channels/expand_animations, typed errors on corrupt input (a
hypothesis fuzz test), and one optional live comparison with TensorFlow."""
import io
import struct
import sys
import zlib

import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InternalError, InvalidArgumentError
from tests.image.image_files import chunk as _chunk
from tests.image.image_files import png_file

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st

# ---- PNG files written chunk by chunk (tests/image/image_files.py) --------------------------

rng = np.random.default_rng(0)


@pytest.mark.parametrize("kinds", [(0,), (1,), (2,), (3,), (4,), (0, 1, 2, 3, 4)])
@pytest.mark.parametrize("interlace", [False, True])
def test_png_filters_and_interlacing(kinds, interlace):
    img = rng.integers(0, 256, (11, 13, 3), dtype=np.uint8)
    got = tf.io.decode_png(png_file(img, 2, kinds=kinds, interlace=interlace))
    assert got.dtype == tf.uint8 and got.shape == (11, 13, 3)
    np.testing.assert_array_equal(got.numpy(), img)


@pytest.mark.parametrize("depth", [1, 2, 4, 8, 16])
def test_png_grey_depths_scale_to_the_output_dtype(depth):
    img = rng.integers(0, 1 << depth, (5, 9, 1)).astype(np.uint16 if depth == 16 else np.uint8)
    data = png_file(img, 0, depth)
    u8, u16 = tf.io.decode_png(data), tf.io.decode_png(data, dtype=tf.uint16)
    if depth == 16:
        np.testing.assert_array_equal(u16.numpy(), img)
        np.testing.assert_array_equal(u8.numpy(), img >> 8)       # libpng strips the low byte
    else:
        scaled = img.astype(np.uint16) * (255 // ((1 << depth) - 1))
        np.testing.assert_array_equal(u8.numpy(), scaled)
        np.testing.assert_array_equal(u16.numpy(), scaled * 257)
    assert u8.dtype == tf.uint8 and u16.dtype == tf.uint16


def test_png_16_to_8_bits_as_tensorflow():
    # TF 2.21: [0, 255, 256, 65535] -> [0, 0, 1, 255]; 8 -> 16 bits: [1, 255] -> [257, 65535]
    x = np.array([[[0], [255], [256], [65535]]], np.uint16)
    assert tf.io.decode_png(tf.io.encode_png(x)).numpy().ravel().tolist() == [0, 0, 1, 255]
    y = np.array([[[1], [255]]], np.uint8)
    assert tf.io.decode_png(tf.io.encode_png(y), dtype=tf.uint16).numpy().ravel().tolist() \
        == [257, 65535]


def test_png_palette_and_transparency():
    pal = (b"PLTE", bytes([255, 0, 0, 0, 255, 0]))
    index = np.array([[[0], [1]]], np.uint8)
    rgb = tf.io.decode_png(png_file(index, 3, extra=[pal]))
    assert rgb.shape == (1, 2, 3) and rgb.numpy().ravel().tolist() == [255, 0, 0, 0, 255, 0]
    data = png_file(index, 3, extra=[pal, (b"tRNS", b"\x00")])
    rgba = tf.io.decode_png(data)       # TF: a palette with tRNS decodes to RGBA
    assert rgba.numpy().ravel().tolist() == [255, 0, 0, 0, 0, 255, 0, 255]
    assert tf.io.decode_png(data, channels=1).numpy().ravel().tolist() == [76, 149]
    # a palette of 2-bit indices, alpha added by channels=4: TF's filler is 2**depth - 1
    pal4 = (b"PLTE", bytes(range(12)))
    idx = np.array([[[0], [1], [2], [3], [1]]], np.uint8)
    four = tf.io.decode_png(png_file(idx, 3, 2, extra=[pal4]), channels=4).numpy()
    np.testing.assert_array_equal(four[0, :, 3], [3] * 5)
    np.testing.assert_array_equal(four[0, :, :3], np.arange(12).reshape(4, 3)[idx[0, :, 0]])
    # grey with tRNS keeps one channel (TF ignores tRNS for grey and RGB)
    grey = tf.io.decode_png(png_file(np.array([[[0], [7]]], np.uint8), 0,
                                     extra=[(b"tRNS", b"\x00\x07")]))
    assert grey.shape == (1, 2, 1)


def test_png_channel_conversions_as_tensorflow():
    rgb = (np.arange(18, dtype=np.uint8).reshape(2, 3, 3) * 10)
    data = tf.io.encode_png(rgb)
    # TF 2.21's values: libpng's fixed-point grey, alpha 255 added
    assert tf.io.decode_png(data, channels=1).numpy().ravel().tolist() == \
        [8, 38, 68, 98, 128, 158]
    four = tf.io.decode_png(data, channels=4).numpy()
    np.testing.assert_array_equal(four[..., :3], rgb)
    np.testing.assert_array_equal(four[..., 3], 255)
    rgba = np.array([[[10, 100, 200, 50]]], np.uint8)
    assert tf.io.decode_png(tf.io.encode_png(rgba), channels=1).numpy().item() == 84
    ga = np.array([[[10, 100]]], np.uint8)
    assert tf.io.decode_png(tf.io.encode_png(ga), channels=3).numpy().ravel().tolist() == \
        [10, 10, 10]
    assert tf.io.decode_png(tf.io.encode_png(ga)).shape == (1, 1, 2)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_encode_png_round_trip(dtype, channels):
    img = rng.integers(0, np.iinfo(dtype).max + 1, (7, 5, channels)).astype(dtype)
    for compression in (-1, 0, 9):
        data = tf.io.encode_png(img, compression=compression)
        assert data.dtype == tf.string and data.shape == ()
        back = tf.io.decode_png(data, dtype=tf.as_dtype(dtype))
        np.testing.assert_array_equal(back.numpy(), img)


def test_encode_png_batch_and_errors():
    batch = rng.integers(0, 256, (2, 3, 4, 5, 3), dtype=np.uint8)
    out = tf.io.encode_png(batch)
    assert out.shape == (2, 3) and out.dtype == tf.string
    np.testing.assert_array_equal(tf.io.decode_png(out[1, 2]).numpy(), batch[1, 2])
    for bad, match in [(np.zeros((2, 2, 3), np.float32), "uint8 or uint16"),
                       (np.zeros((2, 3), np.uint8), "at least rank 3"),
                       (np.zeros((2, 2, 5), np.uint8), "1, 2, 3, or 4 channels")]:
        with pytest.raises(InvalidArgumentError, match="encode_png.*" + match):
            tf.io.encode_png(bad)
    with pytest.raises(InvalidArgumentError, match=r"compression should be in \[-1,9\]"):
        tf.io.encode_png(np.zeros((2, 2, 3), np.uint8), compression=10)
    with pytest.raises(InternalError, match="PNG encoding failed"):
        tf.io.encode_png(np.zeros((0, 2, 3), np.uint8))


def test_decode_png_errors_name_the_op():
    good = tf.io.encode_png(np.zeros((4, 4, 3), np.uint8)).numpy()
    cases = [(b"", "Input is empty"), (b"hello world", "Unknown image file format"),
             (good[:40], "Invalid PNG"), (good[:-12], "Invalid PNG data")]
    crc = bytearray(good)
    crc[-20] ^= 0xFF
    cases.append((bytes(crc), "Invalid PNG data"))
    for data, match in cases:
        with pytest.raises(InvalidArgumentError, match="decode_png: .*" + match):
            tf.io.decode_png(data)
    with pytest.raises(InvalidArgumentError, match="must be 0, 1, 3 or 4 but got 2"):
        tf.io.decode_png(good, channels=2)
    with pytest.raises(InvalidArgumentError, match="must be scalar"):
        tf.io.decode_png([good])
    with pytest.raises(InvalidArgumentError, match="uint8 or uint16"):
        tf.io.decode_png(good, dtype=tf.float32)


def test_decode_image_dtype_and_channels():
    img = (np.arange(256, dtype=np.uint8).reshape(16, 16, 1))
    data = tf.io.encode_png(img)
    f = tf.io.decode_image(data, dtype=tf.float32)
    # TF's kernel: the uint16 decoding times float32(1 / 65535)
    np.testing.assert_array_equal(f.numpy(),
                                  img.astype(np.float32) * 257 * np.float32(1 / 65535))
    assert f.dtype == tf.float32
    # other dtypes: convert_image_dtype of the uint16 decoding (TF: 10 -> 84213760 as int32)
    ten = tf.io.encode_png(np.full((1, 1, 1), 10, np.uint8))
    assert tf.io.decode_image(ten, dtype=tf.int32).numpy().item() == 84213760
    assert tf.io.decode_image(ten, dtype=tf.uint16).numpy().item() == 2570
    rgb = tf.io.encode_png(np.arange(18, dtype=np.uint8).reshape(2, 3, 3) * 10)
    assert tf.io.decode_image(rgb, channels=1).numpy().ravel().tolist() == \
        [8, 38, 68, 98, 128, 158]
    assert tf.image.decode_image is tf.io.decode_image
    with pytest.raises(InvalidArgumentError, match="decode_image: Unknown image file format"):
        tf.io.decode_image(b"not an image")


# ---- corrupt files: never a crash, always InvalidArgumentError ------------------------------

_SEED_IMAGES = [png_file(rng.integers(0, 256, (6, 7, 3), dtype=np.uint8), 2, kinds=(0, 1, 2, 3, 4)),
                png_file(rng.integers(0, 256, (9, 5, 1), dtype=np.uint8), 0, interlace=True),
                png_file(np.array([[[0], [1], [1]]], np.uint8), 3, 1,
                         extra=[(b"PLTE", bytes(6)), (b"tRNS", b"\x10")])]


def _decodes_or_raises_typed(data, **kw):
    try:
        out = tf.io.decode_png(data, **kw)
    except InvalidArgumentError as e:
        assert str(e).startswith("decode_png: ")
        return
    assert out.dtype in (tf.uint8, tf.uint16) and len(out.shape) == 3


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(_SEED_IMAGES) - 1),
       edits=st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), max_size=6),
       cut=st.integers(0, 10 ** 6), channels=st.sampled_from([0, 1, 3, 4]))
def test_corrupted_png_bytes_raise_typed_errors(which, edits, cut, channels):
    data = bytearray(_SEED_IMAGES[which])
    for pos, value in edits:
        data[pos % len(data)] = value
    data = bytes(data[:max(1, cut % (len(data) + 1))])
    _decodes_or_raises_typed(data, channels=channels)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header=st.binary(min_size=13, max_size=13), body=st.binary(max_size=300),
       compress=st.booleans(), palette=st.binary(max_size=30))
def test_png_with_valid_crcs_but_hostile_chunks(header, body, compress, palette):
    # CRCs are right, so the decoder goes past them into the header, palette and pixels
    header = header[:8] + bytes([header[8] % 17, header[9] % 7]) + header[10:]
    data = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"PLTE", palette)
            + _chunk(b"IDAT", zlib.compress(body) if compress else body) + _chunk(b"IEND", b""))
    _decodes_or_raises_typed(data)


def test_huge_declared_size_is_an_error_not_an_allocation():
    # TensorFlow 2.21's verdicts: libpng's limit of 1,000,000 pixels a side, TensorFlow's
    # of 2**29 pixels, and otherwise data too short for the size declared
    for (w, h), match in (((2 ** 31 - 1, 2 ** 31 - 1), "Failed to initialize decoder"),
                          ((1000001, 1), "Failed to initialize decoder"),
                          ((70000, 70000), "PNG size too large for int: 70000 by 70000"),
                          ((16384, 32767), "too short")):
        header = struct.pack(">IIBBBBB", w, h, 16, 6, 0, 0, 0)
        data = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
                + _chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + _chunk(b"IEND", b""))
        with pytest.raises(InvalidArgumentError, match=match):
            tf.io.decode_png(data)


# ---- JPEG, GIF, BMP: Pillow ------------------------------------------------------------------

def test_pillow_codecs_raise_import_error_naming_the_function(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    jpeg = b"\xff\xd8\xff\xe0" + bytes(20)
    with pytest.raises(ImportError, match="`decode_jpeg` requires PIL"):
        tf.io.decode_jpeg(jpeg)
    with pytest.raises(ImportError, match="`encode_jpeg` requires PIL"):
        tf.io.encode_jpeg(np.zeros((2, 2, 3), np.uint8))
    # PNG needs no Pillow
    assert tf.io.decode_png(tf.io.encode_png(np.zeros((2, 2, 3), np.uint8))).shape == (2, 2, 3)


def _smooth_image():
    y, x = np.mgrid[0:24, 0:32]
    return np.stack([x * 8, y * 10, (x + y) * 4], axis=-1).astype(np.uint8)


def test_jpeg_round_trip_and_arguments():
    pytest.importorskip("PIL")
    img = _smooth_image()
    data = tf.io.encode_jpeg(img, quality=95)
    assert data.dtype == tf.string and data.shape == ()
    assert bool(tf.io.is_jpeg(data)) and not bool(tf.io.is_jpeg(tf.io.encode_png(img)))
    back = tf.io.decode_jpeg(data)
    assert back.shape == (24, 32, 3) and back.dtype == tf.uint8
    assert np.abs(back.numpy().astype(int) - img).mean() < 2
    assert tf.io.decode_jpeg(data, channels=1).shape == (24, 32, 1)
    assert tf.io.decode_jpeg(data, ratio=2).shape == (12, 16, 3)
    assert tf.io.extract_jpeg_shape(data).numpy().tolist() == [24, 32, 3]
    crop = tf.io.decode_and_crop_jpeg(data, [2, 3, 5, 7])
    np.testing.assert_array_equal(crop.numpy(), back.numpy()[2:7, 3:10])
    grey = tf.io.encode_jpeg(img[..., :1])
    assert tf.io.decode_jpeg(grey).shape == (24, 32, 1)
    low = tf.io.encode_jpeg(img, quality=10)
    assert len(low.numpy()) < len(data.numpy())
    # decode_jpeg also reads PNG (TensorFlow's kernels sniff the format)
    np.testing.assert_array_equal(tf.io.decode_jpeg(tf.io.encode_png(img)).numpy(), img)
    with pytest.raises(InvalidArgumentError, match="JPEG does not support 4 channels"):
        tf.io.decode_jpeg(data, channels=4)
    with pytest.raises(InvalidArgumentError, match="decode_jpeg: jpeg::Uncompress failed"):
        tf.io.decode_jpeg(data.numpy()[:60])
    with pytest.raises(InvalidArgumentError, match="1 or 3 channels"):
        tf.io.encode_jpeg(img[..., :2])
    with pytest.raises(InvalidArgumentError, match=r"quality must be in \[0,100\]"):
        tf.io.encode_jpeg(img, quality=101)


def _gif(frames):
    from PIL import Image
    buf = io.BytesIO()
    ims = [Image.fromarray(f) for f in frames]
    ims[0].save(buf, "GIF", save_all=True, append_images=ims[1:], duration=50)
    return buf.getvalue()


def test_gif_frames_and_decode_image_expand_animations():
    pytest.importorskip("PIL")
    red, blue = np.zeros((3, 4, 3), np.uint8), np.zeros((3, 4, 3), np.uint8)
    red[..., 0], blue[..., 2] = 255, 255
    data = _gif([red, blue])
    frames = tf.io.decode_gif(data)
    assert frames.shape == (2, 3, 4, 3) and frames.dtype == tf.uint8
    np.testing.assert_array_equal(frames.numpy(), np.stack([red, blue]))
    assert tf.io.decode_image(data).shape == (2, 3, 4, 3)
    assert tf.io.decode_image(data, expand_animations=False).shape == (3, 4, 3)
    with pytest.raises(InvalidArgumentError, match="channels must be 0 or 3 for GIF"):
        tf.io.decode_image(data, channels=1)
    with pytest.raises(InvalidArgumentError, match="animated gifs"):
        tf.io.decode_png(data)
    # decode_gif of a PNG: one frame
    assert tf.io.decode_gif(tf.io.encode_png(red)).shape == (1, 3, 4, 3)


def test_bmp():
    from PIL import Image
    img = _smooth_image()
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "BMP")
    data = buf.getvalue()
    np.testing.assert_array_equal(tf.io.decode_bmp(data).numpy(), img)
    four = tf.io.decode_bmp(data, channels=4).numpy()
    np.testing.assert_array_equal(four[..., 3], 255)
    np.testing.assert_array_equal(tf.io.decode_image(data).numpy(), img)
    with pytest.raises(InvalidArgumentError, match="must be 0, 3 or 4 for BMP"):
        tf.io.decode_bmp(data, channels=1)
    with pytest.raises(InvalidArgumentError, match="Trying to decode PNG format using DecodeBmp"):
        tf.io.decode_bmp(tf.io.encode_png(img))


def test_image_aliases():
    for name in ("decode_png", "encode_png", "decode_jpeg", "encode_jpeg", "decode_gif",
                 "decode_bmp", "decode_image", "decode_and_crop_jpeg", "extract_jpeg_shape",
                 "is_jpeg"):
        assert getattr(tf.image, name) is getattr(tf.io, name)


def test_against_tensorflow_live():
    real = pytest.importorskip("tensorflow")
    for color, samples in ((0, 1), (2, 3), (4, 2), (6, 4)):
        for depth in (8, 16):
            img = rng.integers(0, 1 << depth, (9, 10, samples)).astype(
                np.uint16 if depth == 16 else np.uint8)
            data = png_file(img, color, depth, kinds=(0, 1, 2, 3, 4), interlace=depth == 8)
            for channels in (0, 1, 3, 4):
                for dtype in ("uint8", "uint16"):
                    mine = tf.io.decode_png(data, channels=channels, dtype=dtype).numpy()
                    want = real.io.decode_png(data, channels=channels, dtype=dtype).numpy()
                    np.testing.assert_array_equal(mine, want)
            theirs = real.io.encode_png(img).numpy()
            np.testing.assert_array_equal(tf.io.decode_png(theirs, dtype=img.dtype.name).numpy(),
                                          img)
