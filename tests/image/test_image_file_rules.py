"""Decoding rules of PNG, GIF and BMP files, each against what TensorFlow 2.21 returns
for the same bytes (the values below were read from TensorFlow 2.21 for files built the
same way), and the decode cost of big-dimension small files (in a child process with a
memory limit and a timeout, so a slow or allocating decoder fails one named test).

Files are built field by field by tests/image/image_files.py."""
import zlib

import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError
from tests.image.image_files import (PNG_SIGNATURE, bmp_file, chunk, gif_file, gif_image, ihdr,
                                     png_file)

PAL4 = [(10, 20, 30), (40, 50, 60), (70, 80, 90), (100, 110, 120)]
IEND = chunk(b"IEND", b"")


def values(t):
    return t.numpy().reshape(-1).tolist()


# ---- PNG: tRNS colour keys -----------------------------------------------------------------

def test_png_grey_and_rgb_trns_key_gives_transparent_alpha():
    grey = png_file(np.array([[[5], [6]]]), 0, extra=[(b"tRNS", b"\x00\x05")])
    assert values(tf.io.decode_png(grey, channels=4)) == [5, 5, 5, 0, 6, 6, 6, 255]
    assert values(tf.io.decode_png(grey, channels=4, dtype=tf.uint16)) == \
        [1285, 1285, 1285, 0, 1542, 1542, 1542, 65535]
    # the key changes nothing without an alpha channel asked for
    assert tf.io.decode_png(grey).shape == (1, 2, 1)
    assert values(tf.io.decode_png(grey, channels=3)) == [5, 5, 5, 6, 6, 6]
    rgb = png_file(np.array([[[1, 2, 3], [4, 5, 6]]]), 2,
                   extra=[(b"tRNS", b"\x00\x01\x00\x02\x00\x03")])
    assert values(tf.io.decode_png(rgb, channels=4)) == [1, 2, 3, 0, 4, 5, 6, 255]
    assert tf.io.decode_png(rgb).shape == (1, 2, 3)


def test_png_trns_key_at_16_and_sub_byte_depths():
    g16 = png_file(np.array([[[5], [261]]]), 0, 16, extra=[(b"tRNS", b"\x00\x05")])
    assert values(tf.io.decode_png(g16, channels=4, dtype=tf.uint16)) == \
        [5, 5, 5, 0, 261, 261, 261, 65535]
    assert values(tf.io.decode_png(g16, channels=4)) == [0, 0, 0, 0, 1, 1, 1, 255]
    rgb16 = png_file(np.array([[[1, 2, 3], [257, 2, 3]]]), 2, 16,
                     extra=[(b"tRNS", b"\x00\x01\x00\x02\x00\x03")])
    assert values(tf.io.decode_png(rgb16, channels=4, dtype=tf.uint16)) == \
        [1, 2, 3, 0, 257, 2, 3, 65535]
    # 2-bit grey: the key is compared with the 2-bit samples (masked to 2 bits), and the
    # alpha is 0 or 255 (without a key, a 2-bit file's added alpha is 3)
    g2 = np.array([[[0], [1], [2], [3]]])
    for key in (b"\x00\x01", b"\x00\x05"):
        data = png_file(g2, 0, 2, extra=[(b"tRNS", key)])
        assert values(tf.io.decode_png(data, channels=4)) == \
            [0, 0, 0, 255, 85, 85, 85, 0, 170, 170, 170, 255, 255, 255, 255, 255]
    # an 8-bit file's key keeps its low byte
    data = png_file(np.array([[[0], [1]]]), 0, extra=[(b"tRNS", b"\x01\x00")])
    assert values(tf.io.decode_png(data, channels=4)) == [0, 0, 0, 0, 1, 1, 1, 255]


def test_png_invalid_or_misplaced_trns_is_ignored():
    grey = np.array([[[5], [6]]])
    for extra in ([(b"tRNS", b"\x00\x05\x00")], [(b"tRNS", b"")]):
        assert values(tf.io.decode_png(png_file(grey, 0, extra=extra), channels=4)) == \
            [5, 5, 5, 255, 6, 6, 6, 255]
    pal = (b"PLTE", bytes(range(1, 7)))
    idx = np.array([[[0], [1]]])
    # longer than the palette, empty, before PLTE: dropped
    for extra in ([pal, (b"tRNS", b"\x10\x20\x30")], [pal, (b"tRNS", b"")],
                  [(b"tRNS", b"\x10"), pal]):
        data = png_file(idx, 3, extra=extra)
        assert values(tf.io.decode_png(data, channels=4)) == [1, 2, 3, 255, 4, 5, 6, 255]
        assert tf.io.decode_png(data).shape == (1, 2, 3)
    # a second tRNS is dropped, the first kept
    data = png_file(idx, 3, extra=[pal, (b"tRNS", b"\x10"), (b"tRNS", b"\x20")])
    assert values(tf.io.decode_png(data)) == [1, 2, 3, 16, 4, 5, 6, 255]
    # after the image data: dropped
    data = png_file(idx, 3, extra=[pal])
    data = data[:-12] + chunk(b"tRNS", b"\x10") + IEND
    assert values(tf.io.decode_png(data, channels=4)) == [1, 2, 3, 255, 4, 5, 6, 255]


def test_png_palette_index_past_the_end_is_black():
    pal = (b"PLTE", bytes(range(1, 7)))
    data = png_file(np.array([[[0], [3]]]), 3, extra=[pal])
    assert values(tf.io.decode_png(data)) == [1, 2, 3, 0, 0, 0]
    data = png_file(np.array([[[0], [3]]]), 3, extra=[pal, (b"tRNS", b"\x10")])
    assert values(tf.io.decode_png(data, channels=4)) == [1, 2, 3, 16, 0, 0, 0, 255]


# ---- PNG: chunk order ----------------------------------------------------------------------

def _grey_parts():
    head = PNG_SIGNATURE + ihdr(2, 1, 8, 0)
    return head, zlib.compress(b"\x00\x00\x01")


def _png_error(data, match):
    with pytest.raises(InvalidArgumentError, match="decode_png: .*" + match):
        tf.io.decode_png(data)


def test_png_critical_chunk_rules_as_libpng():
    head, z = _grey_parts()
    idat = chunk(b"IDAT", z)
    init = r"Invalid PNG\. Failed to initialize decoder"
    _png_error(head + chunk(b"ABCD", b"x") + idat + IEND, init)          # unknown critical
    _png_error(head + idat + chunk(b"ABCD", b"") + IEND, "Invalid PNG data")
    _png_error(head + ihdr(2, 1, 8, 0) + idat + IEND, init)              # duplicate IHDR
    _png_error(head + idat + ihdr(2, 1, 8, 0) + IEND, "Invalid PNG data")
    # IDAT chunks split by another chunk
    _png_error(head + chunk(b"IDAT", z[:4]) + chunk(b"tEXt", b"a\0b") + chunk(b"IDAT", z[4:])
               + IEND, "Invalid PNG data")
    _png_error(head + idat, "Invalid PNG data")                           # no IEND
    # the same bytes in consecutive IDATs, an unknown ancillary chunk, a text chunk after
    # the data, bytes after IEND: all fine
    for ok in (head + chunk(b"IDAT", z[:4]) + chunk(b"IDAT", z[4:]) + IEND,
               head + chunk(b"abCD", b"x") + idat + IEND,
               head + idat + chunk(b"tEXt", b"a\0b") + IEND,
               head + idat + IEND + b"junk"):
        assert values(tf.io.decode_png(ok)) == [0, 1]


def test_png_plte_rules_as_libpng():
    head = PNG_SIGNATURE + ihdr(2, 1, 8, 3)
    pal = chunk(b"PLTE", bytes(range(1, 7)))
    idat = chunk(b"IDAT", zlib.compress(b"\x00\x00\x01"))
    init = r"Invalid PNG\. Failed to initialize decoder"
    assert values(tf.io.decode_png(head + pal + idat + IEND)) == [1, 2, 3, 4, 5, 6]
    _png_error(head + pal + idat + pal + IEND, "Invalid PNG data")       # PLTE after IDAT
    _png_error(head + idat + pal + IEND, init)                           # PLTE only after
    _png_error(head + pal + pal + idat + IEND, init)                     # duplicate
    _png_error(head + chunk(b"PLTE", b"\1\2\3\4") + idat + IEND, init)   # length not 3n
    _png_error(head + idat + IEND, init)                                 # missing
    # a grey file ignores PLTE anywhere, even a malformed one
    g_head, z = _grey_parts()
    for extra_before, extra_after in ((pal, b""), (b"", pal), (chunk(b"PLTE", b"\1"), b"")):
        data = g_head + extra_before + chunk(b"IDAT", z) + extra_after + IEND
        assert values(tf.io.decode_png(data)) == [0, 1]


def test_png_plte_in_colour_and_grey_files_as_libpng():
    g_head, z = _grey_parts()
    pal = chunk(b"PLTE", bytes(range(6)))
    init = r"Invalid PNG\. Failed to initialize decoder"
    # a second PLTE is an error in any colour type, before or after the data
    _png_error(g_head + pal + pal + chunk(b"IDAT", z) + IEND, init)
    _png_error(g_head + pal + chunk(b"IDAT", z) + pal + IEND, "Invalid PNG data")
    rgb_head = PNG_SIGNATURE + ihdr(2, 1, 8, 2)
    rgb_idat = chunk(b"IDAT", zlib.compress(bytes(7)))
    _png_error(rgb_head + pal + pal + rgb_idat + IEND, init)
    _png_error(rgb_head + chunk(b"PLTE", b"") + rgb_idat + IEND, init)     # empty
    for ok in (rgb_head + chunk(b"PLTE", b"1234") + rgb_idat + IEND,        # not 3n: dropped
               rgb_head + rgb_idat + chunk(b"PLTE", b"") + IEND,            # after the data
               g_head + chunk(b"PLTE", b"") + chunk(b"IDAT", z) + IEND):
        assert tf.io.decode_png(ok).shape[:2] == (1, 2)
    # a tRNS before an RGB file's PLTE is cancelled by it, and a later tRNS is ignored
    key = chunk(b"tRNS", bytes(6))
    data = rgb_head + key + pal + key + rgb_idat + IEND
    assert values(tf.io.decode_png(data, channels=4)) == [0, 0, 0, 255, 0, 0, 0, 255]
    assert values(tf.io.decode_png(rgb_head + key + rgb_idat + IEND, channels=4)) == \
        [0, 0, 0, 0, 0, 0, 0, 0]


def test_png_chunk_names_and_size_limits_as_tensorflow():
    head, z = _grey_parts()
    _png_error(head + chunk(b"tE$t", b"x") + chunk(b"IDAT", z) + IEND,
               r"Invalid PNG\. Failed to initialize decoder")
    _png_error(head + chunk(b"IDAT", z) + chunk(b"t3Xt", b"") + IEND, "Invalid PNG data")
    for (w, h), match in (((1000001, 1), r"Failed to initialize decoder"),
                          ((16384, 32768), "PNG size too large for int: 16384 by 32768"),
                          ((1000000, 1), "Invalid PNG data")):
        _png_error(PNG_SIGNATURE + ihdr(w, h, 8, 0) + chunk(b"IDAT", zlib.compress(bytes(9)))
                   + IEND, match)


def test_png_zlib_stream_must_end_as_libpng_reads_it():
    head, _ = _grey_parts()
    z = zlib.compress(b"\x00\x00\x01")
    stored = zlib.compressobj(0)
    long_stored = stored.compress(b"\x00\x00\x01" + bytes(5000)) + stored.flush()
    # the rows are all there, but the stream (or its checksum) is cut or wrong
    for bad in (z[:-4], z[:-1], z[:-1] + bytes([z[-1] ^ 1]), long_stored[:100]):
        _png_error(head + chunk(b"IDAT", bad) + IEND, "Invalid PNG data, size")
    # data after the stream's end, or more rows than the image needs, are fine
    for ok in (z + b"garbage", long_stored):
        assert values(tf.io.decode_png(head + chunk(b"IDAT", ok) + IEND)) == [0, 1]


def test_png_crc_error_in_image_data_is_a_data_error():
    head, z = _grey_parts()
    bad_idat = bytearray(chunk(b"IDAT", z))
    bad_idat[-1] ^= 0xFF
    _png_error(head + bytes(bad_idat) + IEND, r"Invalid PNG data, size")
    bad_ihdr = bytearray(head)
    bad_ihdr[-1] ^= 0xFF
    _png_error(bytes(bad_ihdr) + chunk(b"IDAT", z) + IEND, r"Invalid PNG\. Failed")


# ---- GIF: TensorFlow's frame rule ----------------------------------------------------------

def _frame(x, y, w, h, v, **kw):
    return gif_image(x, y, w, h, [v] * (w * h), **kw)


def test_gif_frames_are_sized_by_the_images_not_the_screen():
    data = gif_file(4, 4, [_frame(0, 0, 1, 1, 1), _frame(1, 1, 1, 1, 2),
                           _frame(2, 2, 1, 1, 3)], PAL4)
    got = tf.io.decode_gif(data)
    assert got.shape == (3, 1, 1, 3)
    assert values(got) == [40, 50, 60] * 3       # frames 2 and 3 lie outside the canvas
    # frames of different sizes: the canvas is the largest width by the largest height;
    # each frame starts as a copy of the one before, then paints its own pixels
    got = tf.io.decode_gif(gif_file(4, 4, [_frame(0, 0, 1, 3, 1), _frame(0, 0, 3, 1, 2)],
                                    PAL4))
    assert got.shape == (2, 3, 3, 3)
    np.testing.assert_array_equal(got.numpy()[1, :, :, 0], [[70, 70, 70], [40, 0, 0],
                                                            [40, 0, 0]])
    got = tf.io.decode_gif(gif_file(4, 4, [_frame(0, 0, 1, 1, 1), _frame(1, 1, 2, 2, 2)],
                                    PAL4))
    assert values(got) == [40, 50, 60] + [0] * 9 + [40, 50, 60, 0, 0, 0, 0, 0, 0, 70, 80, 90]
    # a frame larger than the screen widens the canvas
    got = tf.io.decode_gif(gif_file(2, 2, [_frame(0, 0, 3, 3, 1)], PAL4))
    assert got.shape == (1, 3, 3, 3)
    # a frame wholly outside the canvas leaves it black
    assert values(tf.io.decode_gif(gif_file(2, 2, [_frame(5, 5, 2, 2, 1)], PAL4))) == [0] * 12


def test_gif_transparency_local_tables_and_interlacing():
    two = [gif_image(0, 0, 2, 1, [1, 2], transparent=1),
           gif_image(0, 0, 2, 1, [3, 1], transparent=1)]
    assert values(tf.io.decode_gif(gif_file(2, 1, two, PAL4))) == \
        [0, 0, 0, 70, 80, 90, 100, 110, 120, 70, 80, 90]
    local = gif_file(2, 1, [gif_image(0, 0, 2, 1, [1, 0], local=[(1, 1, 1), (2, 2, 2)])], PAL4)
    assert values(tf.io.decode_gif(local)) == [2, 2, 2, 1, 1, 1]
    inter = gif_file(1, 5, [gif_image(0, 0, 1, 5, [0, 1, 2, 3, 0], interlace=True)], PAL4)
    assert values(tf.io.decode_gif(inter)) == \
        [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 10, 20, 30]
    for min_size in (1, 2):
        small = gif_file(2, 1, [gif_image(0, 0, 2, 1, [1, 0], min_size=min_size)], PAL4)
        assert values(tf.io.decode_gif(small)) == [40, 50, 60, 10, 20, 30]
    # a transparent index past the colour map is transparent, not an error
    data = gif_file(2, 1, [gif_image(0, 0, 2, 1, [1, 7], transparent=7)], PAL4)
    assert values(tf.io.decode_gif(data)) == [40, 50, 60, 0, 0, 0]


def _gif_error(data, match):
    with pytest.raises(InvalidArgumentError, match="decode_gif: Invalid GIF data.*" + match):
        tf.io.decode_gif(data)


def test_gif_errors_and_what_survives_them():
    ok = gif_image(0, 0, 2, 1, [1, 2])
    one = gif_file(2, 1, [ok], PAL4)
    _gif_error(gif_file(2, 1, [gif_image(0, 0, 2, 1, [1, 5])], PAL4[:2]),
               "found color index 5 outside of color map range 2")
    _gif_error(gif_file(2, 1, [ok]), "missing color map for frame 0")
    _gif_error(gif_file(2, 2, [gif_image(0, 0, 2, 2, [1, 2])], PAL4),
               "Image EOF detected before image complete")
    _gif_error(one[:-5], "failed to slurp gif file")
    _gif_error(one[:10], "failed to open gif file")
    _gif_error(gif_file(2, 1, [], PAL4), "No Image Descriptor detected")
    _gif_error(gif_file(2, 1, [gif_image(0, 0, 2, 1, [], lzw_data=b"\xff\xff\xff",
                                         min_size=2)], PAL4),
               "Image is defective")
    _gif_error(gif_file(2, 1, [gif_image(0, 0, 2, 1, [], lzw_data=b"\xff", min_size=9)],
                        PAL4), "Failed to read from given file")
    _gif_error(gif_file(2, 1, [gif_image(0, 0, 0, 1, [])], PAL4), "Unknown error")
    # an error after a complete image ends the file there, as giflib's slurp does
    for tail in (gif_image(0, 0, 16, 16, [1]),                 # data too short
                 gif_image(0, 0, 2, 1, [], lzw_data=b"\xff\xff\xff", min_size=2),
                 b"\x2c\0\0", b"\x21\xf9\x04\x01", b"\x99"):
        got = tf.io.decode_gif(gif_file(2, 1, [ok, tail], PAL4, trailer=False))
        assert values(got) == [40, 50, 60, 70, 80, 90]
    # the missing trailer alone is fine; an index past the map in a later frame is not
    assert values(tf.io.decode_gif(one[:-1])) == [40, 50, 60, 70, 80, 90]
    _gif_error(gif_file(2, 1, [ok, gif_image(0, 0, 2, 1, [1, 7])], PAL4),
               "found color index 7")


# ---- BMP: TensorFlow's reader --------------------------------------------------------------

def test_bmp_as_tensorflow_reads_it():
    b24 = bmp_file([bytes([1, 2, 3, 4, 5, 6]), bytes([7, 8, 9, 10, 11, 12])], 2, 2, 24)
    assert values(tf.io.decode_bmp(b24)) == [9, 8, 7, 12, 11, 10, 3, 2, 1, 6, 5, 4]
    assert values(tf.io.decode_bmp(b24, channels=4)) == \
        [9, 8, 7, 255, 12, 11, 10, 255, 3, 2, 1, 255, 6, 5, 4, 255]
    assert values(tf.io.decode_image(b24)) == values(tf.io.decode_bmp(b24))
    top_down = bmp_file([bytes([1, 2, 3, 4, 5, 6]), bytes([7, 8, 9, 10, 11, 12])], 2, -2, 24)
    assert values(tf.io.decode_bmp(top_down)) == [3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10]
    b32 = bmp_file([bytes(range(1, 9))], 2, 1, 32)
    assert values(tf.io.decode_bmp(b32)) == [3, 2, 1, 4, 7, 6, 5, 8]
    assert values(tf.io.decode_bmp(b32, channels=3)) == [3, 2, 1, 7, 6, 5]
    # 8-bit: the indices as grey, the palette unused
    b8 = bmp_file([bytes([0, 1, 2])], 3, 1, 8, palette=[(10, 20, 30)] * 3)
    assert tf.io.decode_bmp(b8).shape == (1, 3, 1)
    assert values(tf.io.decode_bmp(b8)) == [0, 1, 2]
    assert values(tf.io.decode_bmp(b8, channels=4)) == [0, 0, 0, 255, 1, 1, 1, 255,
                                                        2, 2, 2, 255]


def _bmp_error(data, match, channels=0):
    with pytest.raises(InvalidArgumentError, match="decode_bmp: .*" + match):
        tf.io.decode_bmp(data, channels=channels)


def test_bmp_refusals_as_tensorflow():
    pal = [(10, 20, 30), (40, 50, 60)]
    # RLE4 (4 bits a pixel) and 1/16-bit files have no channel count TensorFlow reads
    _bmp_error(bmp_file([bytes([4, 0x11, 0, 1])], 4, 1, 4, pal, compression=2),
               "inherent in the image must be 1, 3 or 4, was 0")
    _bmp_error(bmp_file([b"\x55"], 8, 1, 1, pal), "was 0")
    _bmp_error(bmp_file([bytes(4)], 2, 1, 16), "was 2")
    # RLE8 data is read as raw rows, so a file whose size does not match is refused
    _bmp_error(bmp_file([bytes([2, 1, 0, 1])], 3, 2, 8, pal, compression=1),
               r"Input size should match .* differ by -4")
    b24 = bmp_file([bytes(6)], 2, 1, 24)
    _bmp_error(b24 + b"\0", "differ by 1")
    _bmp_error(b24[:-1], "differ by -1")
    _bmp_error(b24[:30], "requires at least 32 bytes")
    _bmp_error(bmp_file([b""], 0, 1, 24), "Width must be positive")
    _bmp_error(bmp_file([], 1, 0, 24), "Height must be nonzero")
    _bmp_error(bmp_file([bytes(6)], 2, 1, 24, offset=0xFFFFFFF0), "header size must be")
    _bmp_error(bmp_file([b""], 100000, 100000, 24), "less than 2\\^30")
    with pytest.raises(InvalidArgumentError, match="must be 0, 3 or 4 for BMP"):
        tf.io.decode_image(b24, channels=1)
    for op, name in ((tf.io.decode_png, "DecodePng"), (tf.io.decode_jpeg, "DecodeJpeg"),
                     (tf.io.decode_gif, "DecodeGif")):
        with pytest.raises(InvalidArgumentError, match="BMP format using a wrong op.*" + name):
            op(b24)


# ---- decode_image's dtypes for the 8-bit decoders ----------------------------------------

def test_decode_image_dtypes_of_gif_and_bmp_as_tensorflow():
    # TensorFlow widens GIF, BMP and JPEG output by << 8 (not PNG's * 257) and scales
    # their float32 by 1/255
    gif = gif_file(2, 1, [gif_image(0, 0, 2, 1, [0, 1])], [(10, 20, 30), (200, 100, 255)])
    bmp = bmp_file([bytes([30, 20, 10, 255, 100, 200])], 2, 1, 24)
    for data, decode in ((gif, lambda **k: tf.io.decode_image(gif, expand_animations=False,
                                                               **k)),
                         (bmp, lambda **k: tf.io.decode_image(bmp, **k))):
        assert values(decode(dtype=tf.uint16)) == [2560, 5120, 7680, 51200, 25600, 65280]
        assert values(decode(dtype=tf.int32)) == \
            [83886080, 167772160, 251658240, 1677721600, 838860800, 2139095040]
        np.testing.assert_array_equal(
            decode(dtype=tf.float32).numpy().ravel(),
            np.float32([10, 20, 30, 200, 100, 255]) * np.float32(1 / 255))
    assert values(tf.io.decode_png(gif, dtype=tf.uint16)) == \
        [2560, 5120, 7680, 51200, 25600, 65280]


# ---- decode_raw's types --------------------------------------------------------------------

def test_decode_raw_types_as_tensorflow():
    got = tf.io.decode_raw(tf.constant([b"\x00\x01", b"\x02\x00"]), tf.bool)
    assert got.dtype == tf.bool and got.numpy().tolist() == [[False, True], [True, False]]
    for dt in (tf.uint64, tf.uint32, tf.string):
        with pytest.raises(InvalidArgumentError, match="decode_raw: Value for attr 'out_type' "
                                                       "of %s is not in the list" % dt.name):
            tf.io.decode_raw(b"\x01" * 8, dt)
    assert tf.io.decode_raw(b"\x01" + bytes(6) + b"\x02", tf.int64).numpy().tolist() == \
        [144115188075855873]


# ---- cost of big-dimension small files (in a child: memory limit and timeout) --------------

def _paeth_png(rng):
    # 16000 x 16000 grey, every row Paeth: 256 MB of pixels from a 250 KB file. The decode
    # takes a few seconds; a per-byte Python loop (at least 250 ns a byte) over a minute
    w = h = 16000
    deflate = zlib.compressobj(9)
    rows = (b"\x04" + bytes(w)) * 1000
    z = b"".join(deflate.compress(rows) for _ in range(h // 1000)) + deflate.flush()
    data = PNG_SIGNATURE + ihdr(w, h, 8, 0) + chunk(b"IDAT", z) + IEND

    def run():
        got = tf.io.decode_png(data)
        assert got.shape == (h, w, 1) and not got.numpy().any()
    return "paeth 16000x16000 grey (%d bytes)" % len(data), run


def _gif_big_screen(rng):
    # a 9000 x 9000 logical screen with 40 one-pixel frames: TensorFlow returns
    # (40, 1, 1, 3); composing on the screen would take about 10 GB
    data = gif_file(9000, 9000, [_frame(0, 0, 1, 1, 1)] * 40, PAL4)

    def run():
        got = tf.io.decode_gif(data)
        assert got.shape == (40, 1, 1, 3) and values(got) == [40, 50, 60] * 40
    return "gif 9000x9000 screen, 40 1x1 frames (%d bytes)" % len(data), run


CHILD_TARGETS = {"paeth_png": _paeth_png, "gif_big_screen": _gif_big_screen}


@pytest.mark.parametrize("target", sorted(CHILD_TARGETS))
def test_big_dimension_small_files_decode_in_bounded_time_and_memory(target):
    from tests.fuzz._support import run_in_child
    assert run_in_child(__name__, target, 0, 1, timeout=40, memory_mb=1536) == 1
