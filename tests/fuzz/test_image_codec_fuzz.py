"""Structure-aware mutation fuzzing of the PNG, GIF and BMP decoders.

Each case builds a VALID file with the real structure (tests/image/image_files.py and
image_mutations.py: PNG
chunks with correct CRCs, varied colour types, bit depths, filters, interlacing, PLTE
and tRNS; GIF with real LZW data, several frames, local colour tables, transparency,
interlacing; BMP of 1-32 bits, RLE, top-down), then mutates its fields (dimensions,
lengths, chunk order and duplication, depths and colour types, LZW code sizes, record
bytes, sub-block lengths, offsets, truncation, bit flips), recomputing the PNG CRCs
after the edit so the parser's deep paths are reached, and decodes it in a child
process with a memory limit and a timeout (tests/fuzz/_support.run_in_child): a crash,
hang or allocation bomb fails the named test; an untyped error is reported. A decode
that succeeds must return an array bounded by the file's declared sizes (PNG: the
IHDR's height and width; GIF: no more frames than image descriptors, each no larger
than the largest declared image; BMP: the header's |height| and width).

Unmutated files are also decoded by Pillow where its output is defined the same way
(8-bit PNG, a full-screen single-frame GIF, a 24-bit BMP), as a differential check.
The big-dimension targets check that a small file declaring a huge image costs time
and memory in proportion to the file and the output, not to the declared size.
"""
import struct
import zlib

import numpy as np
import pytest

import fasteager as tf
from tests.fuzz import _support as S
from tests.image import image_files as F
from tests.image import image_mutations as M

TYPED = (tf.errors.InvalidArgumentError, tf.errors.ResourceExhaustedError)


def _decoded_or_typed(fn, *args, **kwargs):
    """fn's array, or None when it raised one of the codec's typed errors."""
    try:
        return fn(*args, **kwargs).numpy()
    except TYPED:
        return None


def _pillow():
    try:
        from PIL import Image
        return Image
    except ImportError:
        return None


# ---- PNG -----------------------------------------------------------------------------------

def _png_case(rng):
    blob, desc, kwargs = M.mutated_png(rng)
    channels, dtype = kwargs["channels"], tf.as_dtype(kwargs["dtype"])

    def run():
        got = _decoded_or_typed(tf.io.decode_png, blob, channels=channels, dtype=dtype)
        if got is None:
            return
        dw, dh = struct.unpack(">II", F.png_chunks(blob)[0][1][:8])
        assert got.ndim == 3 and got.shape[:2] == (dh, dw), (got.shape, dh, dw)
        assert got.shape[2] in ((channels,) if channels else (1, 2, 3, 4))
        assert got.dtype == dtype.as_numpy_dtype
    return desc, run


def _png_valid_case(rng):
    """Unmutated files: decode, and compare 8-bit ones with Pillow."""
    data, _, desc, (h, w) = M.valid_png(rng)

    def run():
        got = tf.io.decode_png(data).numpy()
        assert got.shape[:2] == (h, w)
        image_module = _pillow()
        head = F.png_chunks(data)[0][1]
        depth, color = head[8], head[9]
        if image_module is None or depth != 8:
            return
        import io
        img = image_module.open(io.BytesIO(data))
        img.load()
        if color == 3:
            want = np.asarray(img.convert("RGBA" if got.shape[2] == 4 else "RGB"))
        elif color in (0, 2) and got.shape[2] in (1, 3):
            want = np.asarray(img)
        else:
            want = np.asarray(img)
        want = want.reshape(got.shape)
        np.testing.assert_array_equal(got, want, err_msg=desc)
    return desc + " (valid)", run


# ---- GIF -----------------------------------------------------------------------------------

def _gif_case(rng):
    blob, desc, _ = M.mutated_gif(rng)

    def run():
        got = _decoded_or_typed(tf.io.decode_gif, blob)
        if got is None:
            return
        # frames: at most the descriptors present; each at most the largest declared image
        declared = []
        pos = 0
        while True:
            pos = blob.find(b"\x2c", pos)
            if pos < 0 or pos + 9 > len(blob):
                break
            declared.append(struct.unpack_from("<HH", blob, pos + 5))
            pos += 1
        assert got.ndim == 4 and got.shape[-1] == 3 and got.dtype == np.uint8
        assert got.shape[0] <= len(declared), (got.shape, len(declared))
        assert got.shape[1] <= max(h for _, h in declared)
        assert got.shape[2] <= max(w for w, _ in declared)
    return desc, run


def _gif_valid_case(rng):
    data, desc, dims = M.valid_gif(rng)

    def run():
        got = tf.io.decode_gif(data).numpy()
        assert got.shape[0] == len(dims)
        assert got.shape[1:3] == (max(h for _, h in dims), max(w for w, _ in dims))
    return desc + " (valid)", run


def _gif_differential_case(rng):
    """A full-screen single frame without transparency: Pillow's RGB must agree."""
    w, h = (int(v) for v in rng.integers(1, 40, 2))
    palette = [tuple(int(c) for c in rng.integers(0, 256, 3)) for _ in range(16)]
    indices = rng.integers(0, 16, h * w)
    data = F.gif_file(w, h, [F.gif_image(0, 0, w, h, indices,
                                         interlace=bool(rng.random() < 0.5),
                                         min_size=int(rng.integers(4, 9)))], palette)

    def run():
        got = tf.io.decode_gif(data).numpy()
        want = np.array(palette, np.uint8)[indices].reshape(1, h, w, 3)
        np.testing.assert_array_equal(got, want)
        image_module = _pillow()
        if image_module is not None:
            import io
            img = image_module.open(io.BytesIO(data))
            np.testing.assert_array_equal(got[0], np.asarray(img.convert("RGB")))
    return "gif %dx%d single frame (differential)" % (w, h), run


# ---- BMP -----------------------------------------------------------------------------------

def _bmp_case(rng):
    blob, desc, kwargs = M.mutated_bmp(rng)
    channels = kwargs["channels"]

    def run():
        got = _decoded_or_typed(tf.io.decode_bmp, blob, channels=channels)
        if got is None:
            return
        bw, bh = struct.unpack_from("<ii", blob, 18)
        assert got.shape[:2] == (abs(bh), bw) and got.dtype == np.uint8
        assert got.shape[2] == channels if channels else got.shape[2] in (1, 3, 4)
    return desc, run


def _bmp_differential_case(rng):
    w, h = (int(v) for v in rng.integers(1, 30, 2))
    rows = [rng.integers(0, 256, 3 * w, dtype=np.uint8).tobytes() for _ in range(h)]
    data = F.bmp_file(rows, w, h, 24)

    def run():
        got = tf.io.decode_bmp(data).numpy()
        want = np.stack([np.frombuffer(r, np.uint8).reshape(w, 3)[:, ::-1]
                         for r in rows[::-1]])
        np.testing.assert_array_equal(got, want)
        image_module = _pillow()
        if image_module is not None:
            import io
            np.testing.assert_array_equal(got, np.asarray(
                image_module.open(io.BytesIO(data)).convert("RGB")))
    return "bmp %dx%d 24-bit (differential)" % (w, h), run


# ---- big declared sizes in small files -----------------------------------------------------

def _big_png_case(rng):
    """A small PNG declaring up to 2^31-1 pixels a side: an error (or a decode of what the
    data really holds), never an allocation of the declared size."""
    w, h = (int(v) for v in rng.choice([1, 3, 1000, 70000, 1 << 20, 0x7FFFFFFF], 2))
    color, depth = [(0, 8), (2, 16), (3, 1), (6, 8)][int(rng.integers(4))]
    extra = F.chunk(b"PLTE", bytes(6)) if color == 3 else b""
    body = zlib.compress(bytes(int(rng.integers(0, 5000))), 9)
    data = (F.PNG_SIGNATURE + F.ihdr(w, h, depth, color, int(rng.integers(2))) + extra
            + F.chunk(b"IDAT", body) + F.chunk(b"IEND", b""))

    def run():
        got = _decoded_or_typed(tf.io.decode_png, data)
        assert got is None or got.shape[:2] == (h, w)
    return "png declaring %dx%d colour %d in %d bytes" % (w, h, color, len(data)), run


def _big_gif_case(rng):
    """A small GIF with a huge screen and small frames, or huge frames with little data."""
    sw, sh = (int(v) for v in rng.choice([1, 9000, 65535], 2))
    n = int(rng.integers(1, 60))
    frames = []
    for _ in range(n):
        if rng.random() < 0.8:
            frames.append(F.gif_image(int(rng.integers(0, 3)), int(rng.integers(0, 3)), 1, 1,
                                      [1]))
        else:       # declares up to 65535 x 65535 with a handful of LZW bytes
            w, h = (int(v) for v in rng.choice([1, 4096, 65535], 2))
            frames.append(F.gif_image(0, 0, w, h, [], lzw_data=F.lzw([1] * 50, 8)))
    data = F.gif_file(sw, sh, frames, [(1, 2, 3), (4, 5, 6)])

    def run():
        got = _decoded_or_typed(tf.io.decode_gif, data)
        if got is not None:
            # every decoded frame is one of the 1x1 images, at most 3 pixels from the corner
            assert got.shape[1] <= 3 and got.shape[2] <= 3 and got.shape[0] <= n
    return "gif screen %dx%d, %d frames, %d bytes" % (sw, sh, n, len(data)), run


# ---- the Cython loops directly -------------------------------------------------------------

def _kernel_case(rng):
    from fasteager import _kernels as K
    data = rng.integers(0, 256, int(rng.integers(0, 400)), dtype=np.uint8).tobytes()
    if rng.random() < 0.5:
        h, stride, bpp = (int(v) for v in (rng.integers(-2, 30), rng.integers(-2, 30),
                                           rng.integers(-1, 10)))
        desc = "png_unfilter(%d bytes, %d, %d, %d)" % (len(data), h, stride, bpp)

        def run():
            try:
                out = K.png_unfilter(data, h, stride, bpp)
            except ValueError:
                return
            assert out.shape == (h, stride)
    else:
        min_size, count = int(rng.integers(-1, 10)), int(rng.integers(-1, 5000))
        desc = "gif_lzw_decode(%d bytes, %d, %d)" % (len(data), min_size, count)

        def run():
            try:
                out, status = K.gif_lzw_decode(data, min_size, count)
            except ValueError:
                return
            assert out.shape == (count,) and status in (0, 1, 2)
            if status == 0:
                # literals are below 2**min_size; giflib's stray byte for an undefined
                # code is 2
                assert int(out.max(initial=0)) < max(1 << min_size, 3)
    return desc, run


CHILD_TARGETS = {"png_mutated": _png_case, "png_valid": _png_valid_case,
                 "gif_mutated": _gif_case, "gif_valid": _gif_valid_case,
                 "gif_differential": _gif_differential_case,
                 "bmp_mutated": _bmp_case, "bmp_differential": _bmp_differential_case,
                 "png_big_dimensions": _big_png_case, "gif_big_dimensions": _big_gif_case,
                 "kernels": _kernel_case}
_COUNTS = {"png_mutated": 150, "png_valid": 60, "gif_mutated": 150, "gif_valid": 60,
           "gif_differential": 40, "bmp_mutated": 150, "bmp_differential": 40,
           "png_big_dimensions": 40, "gif_big_dimensions": 40, "kernels": 300}


@pytest.mark.parametrize("target", sorted(CHILD_TARGETS))
def test_image_decoders_survive_mutated_files(target):
    n = S.examples(_COUNTS[target])
    assert S.run_in_child(__name__, target, seed=2026, n=n, timeout=60 + n // 10,
                          memory_mb=2048) == n
