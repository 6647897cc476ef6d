"""Structure-aware mutation fuzzing of the PNG, GIF and BMP decoders.

Each case builds a VALID file with the real structure (tests/image/image_files.py: PNG
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

_PNG_KINDS = [(0, (1, 2, 4, 8, 16)), (2, (8, 16)), (3, (1, 2, 4, 8)), (4, (8, 16)),
              (6, (8, 16))]
_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _valid_png(rng):
    """(bytes, chunks, description) of a valid random PNG."""
    color, depths = _PNG_KINDS[rng.integers(len(_PNG_KINDS))]
    depth = int(rng.choice(depths))
    h, w = (int(v) for v in rng.integers(1, 20, 2))
    samples = _SAMPLES[color]
    extra = []
    if color == 3:
        n = int(rng.integers(1, min(256, 1 << depth) + 1))
        extra.append((b"PLTE", rng.integers(0, 256, 3 * n, dtype=np.uint8).tobytes()))
        pixels = rng.integers(0, n, (h, w, 1))
        if rng.random() < 0.5:
            extra.append((b"tRNS", rng.integers(0, 256, int(rng.integers(1, n + 1)),
                                                dtype=np.uint8).tobytes()))
    else:
        pixels = rng.integers(0, 1 << depth, (h, w, samples))
        if color in (0, 2) and rng.random() < 0.5:
            key = pixels[rng.integers(h), rng.integers(w)]
            extra.append((b"tRNS", np.asarray(key, ">u2").tobytes()))
    if rng.random() < 0.3:
        extra.append((b"tEXt", b"Comment\0fuzz"))
    kinds = tuple(int(k) for k in rng.integers(0, 5, int(rng.integers(1, 4))))
    interlace = bool(rng.random() < 0.3)
    data = F.png_file(pixels, color, depth, kinds, interlace, extra)
    desc = "png %dx%d colour %d depth %d interlace %d filters %s%s" % (
        w, h, color, depth, interlace, kinds, " +" + ",".join(t.decode() for t, _ in extra)
        if extra else "")
    return data, F.png_chunks(data), desc, (h, w)


def _mutate_png(rng, chunks):
    """(chunks, description) after one structural mutation (CRCs are recomputed when the
    file is rebuilt; a few mutations keep a raw byte edit instead)."""
    chunks = list(chunks)
    which = int(rng.integers(11))
    i = int(rng.integers(len(chunks)))
    ctype, payload = chunks[i]
    if which == 0:      # IHDR fields
        head = bytearray(chunks[0][1])
        field = int(rng.integers(7))
        if field < 2:
            value = int(rng.choice([0, 1, 2, 7, 255, 65535, 1 << 20, 0x7FFFFFFF, 0x80000000,
                                    0xFFFFFFFF]))
            head[4 * field:4 * field + 4] = struct.pack(">I", value)
        else:
            head[6 + field] = int(rng.choice([0, 1, 2, 3, 4, 6, 8, 16, 255]))
        chunks[0] = (b"IHDR", bytes(head))
        return chunks, "IHDR byte/field %d" % field
    if which == 1:      # swap two chunks
        j = int(rng.integers(len(chunks)))
        chunks[i], chunks[j] = chunks[j], chunks[i]
        return chunks, "swap chunks %d,%d" % (i, j)
    if which == 2:      # duplicate a chunk somewhere
        chunks.insert(int(rng.integers(len(chunks) + 1)), chunks[i])
        return chunks, "duplicate %r" % ctype
    if which == 3:
        del chunks[i]
        return chunks, "drop %r" % ctype
    if which == 4:      # split IDAT, maybe with a chunk between
        k = next(n for n, c in enumerate(chunks) if c[0] == b"IDAT")
        z = chunks[k][1]
        cut = int(rng.integers(len(z) + 1))
        between = [(b"tEXt", b"a\0b")] if rng.random() < 0.5 else []
        chunks[k:k + 1] = [(b"IDAT", z[:cut])] + between + [(b"IDAT", z[cut:])]
        return chunks, "split IDAT at %d%s" % (cut, " with tEXt" if between else "")
    if which == 5:      # a chunk of a random type
        name = bytes(rng.choice(list(b"ABCDIEHLPTabcdefhlnprstx"), 4).tolist())
        chunks.insert(int(rng.integers(1, len(chunks) + 1)), (name, bytes(3)))
        return chunks, "insert chunk %r" % name
    if which == 6:      # damage the filtered data, then compress it again
        k = next(n for n, c in enumerate(chunks) if c[0] == b"IDAT")
        try:
            raw = bytearray(zlib.decompress(chunks[k][1]))
        except zlib.error:
            return chunks, "no-op"
        for _ in range(int(rng.integers(1, 6))):
            if raw:
                raw[int(rng.integers(len(raw)))] = int(rng.integers(256))
        if rng.random() < 0.3:
            raw = raw[:int(rng.integers(len(raw) + 1))]
        chunks[k] = (b"IDAT", zlib.compress(bytes(raw)))
        return chunks, "filtered data edited"
    if which == 7:      # payload truncated or extended
        cut = int(rng.integers(len(payload) + 1))
        chunks[i] = (ctype, payload[:cut] if rng.random() < 0.5 else payload + bytes(cut + 1))
        return chunks, "resize %r payload" % ctype
    if which == 8:      # PLTE/tRNS of odd sizes
        kind = [b"PLTE", b"tRNS"][int(rng.integers(2))]
        size = int(rng.choice([0, 1, 2, 3, 6, 255, 768, 771]))
        chunks.insert(int(rng.integers(1, len(chunks))), (kind, bytes(size)))
        return chunks, "insert %r of %d bytes" % (kind, size)
    if which == 9:      # compressed bytes flipped (zlib's checks)
        k = next(n for n, c in enumerate(chunks) if c[0] == b"IDAT")
        z = bytearray(chunks[k][1])
        if z:
            z[int(rng.integers(len(z)))] ^= 1 << int(rng.integers(8))
        chunks[k] = (b"IDAT", bytes(z))
        return chunks, "IDAT bit flip"
    return chunks, "unchanged"


def _png_case(rng):
    data, chunks, desc, (h, w) = _valid_png(rng)
    mutated, what = _mutate_png(rng, chunks)
    blob = F.png_from_chunks(mutated)
    raw_edit = rng.random() < 0.2
    if raw_edit:        # a raw edit the CRCs do not cover: length fields, truncation
        b = bytearray(blob)
        if rng.random() < 0.5:
            b = b[:int(rng.integers(8, len(b) + 1))]
        else:
            p = int(rng.integers(8, len(b)))
            b[p] = int(rng.integers(256))
        blob = bytes(b)
    channels = int(rng.choice([0, 1, 3, 4]))
    dtype = [tf.uint8, tf.uint16][int(rng.integers(2))]
    header = F.png_chunks(blob)[:1]
    desc = "%s; %s%s; channels %d %s" % (desc, what, " + raw edit" if raw_edit else "",
                                         channels, dtype.name)

    def run():
        got = _decoded_or_typed(tf.io.decode_png, blob, channels=channels, dtype=dtype)
        if got is None:
            return
        dw, dh = struct.unpack(">II", header[0][1][:8])
        assert got.ndim == 3 and got.shape[:2] == (dh, dw), (got.shape, dh, dw)
        assert got.shape[2] in ((channels,) if channels else (1, 2, 3, 4))
        assert got.dtype == dtype.as_numpy_dtype
    return desc, run


def _png_valid_case(rng):
    """Unmutated files: decode, and compare 8-bit ones with Pillow."""
    data, _, desc, (h, w) = _valid_png(rng)

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

def _valid_gif(rng):
    """(bytes, description, list of declared (w, h)) of a valid random GIF."""
    sw, sh = (int(v) for v in rng.integers(1, 24, 2))
    n_global = int(rng.integers(2, 257)) if rng.random() < 0.8 else 0
    palette = [tuple(int(c) for c in rng.integers(0, 256, 3)) for _ in range(n_global)]
    images, dims = [], []
    for _ in range(int(rng.integers(1, 5))):
        w, h = (int(v) for v in rng.integers(1, 20, 2))
        x, y = (int(v) for v in rng.integers(0, 8, 2))
        local = None
        if not palette or rng.random() < 0.3:
            local = [tuple(int(c) for c in rng.integers(0, 256, 3))
                     for _ in range(int(rng.integers(2, 65)))]
        colours = len(local if local is not None else palette)
        min_size = max(2, (colours - 1).bit_length())
        min_size = int(rng.integers(min_size, 9))
        indices = rng.integers(0, colours, h * w)
        if rng.random() < 0.5:      # runs compress, and grow the LZW strings
            indices = np.repeat(indices[:-(-h * w // 8)], 8)[:h * w]
        transparent = int(rng.integers(colours)) if rng.random() < 0.3 else None
        images.append(F.gif_image(x, y, w, h, indices, local=local, transparent=transparent,
                                  interlace=bool(rng.random() < 0.3), min_size=min_size))
        dims.append((w, h))
    data = F.gif_file(sw, sh, images, palette or None)
    return data, "gif screen %dx%d frames %s global %d" % (sw, sh, dims, n_global), dims


def _gif_positions(data):
    """Offsets of the image descriptors (0x2C after the headers) of a file we built."""
    flags = data[10]
    pos = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    out = []
    while pos < len(data) and data[pos] != 0x3B:
        if data[pos] == 0x21:
            pos += 2
            while data[pos]:
                pos += data[pos] + 1
            pos += 1
            continue
        out.append(pos)
        lflags = data[pos + 9]
        pos += 10 + (3 << ((lflags & 7) + 1) if lflags & 0x80 else 0) + 1
        while data[pos]:
            pos += data[pos] + 1
        pos += 1
    return out


def _mutate_gif(rng, data):
    b = bytearray(data)
    which = int(rng.integers(9))
    images = _gif_positions(data)
    p = images[int(rng.integers(len(images)))]
    if which == 0:      # logical screen size
        struct.pack_into("<HH", b, 6, *(int(v) for v in rng.choice(
            [0, 1, 255, 9000, 65535], 2)))
        return bytes(b), "screen size"
    if which == 1:      # image dimensions / offsets
        field = int(rng.integers(4))
        struct.pack_into("<H", b, p + 1 + 2 * field,
                         int(rng.choice([0, 1, 2, 17, 255, 4096, 65535])))
        return bytes(b), "image field %d" % field
    if which == 2:      # LZW minimum code size
        lflags = b[p + 9]
        q = p + 10 + (3 << ((lflags & 7) + 1) if lflags & 0x80 else 0)
        b[q] = int(rng.choice([0, 1, 2, 7, 8, 9, 12, 255]))
        return bytes(b), "LZW code size %d" % b[q]
    if which == 3:      # colour table flags
        where = int(rng.choice([10, p + 9]))
        b[where] ^= int(rng.choice([0x80, 0x07, 0x40, 0x87]))
        return bytes(b), "colour table flags at %d" % where
    if which == 4:      # a sub-block length byte
        lflags = b[p + 9]
        q = p + 11 + (3 << ((lflags & 7) + 1) if lflags & 0x80 else 0)
        b[q] = int(rng.integers(256))
        return bytes(b), "sub-block length"
    if which == 5:      # LZW data bit flips
        q = int(rng.integers(p + 12, len(b))) if p + 12 < len(b) else len(b) - 1
        b[q] ^= 1 << int(rng.integers(8))
        return bytes(b), "bit flip at %d" % q
    if which == 6:
        return bytes(b[:int(rng.integers(6, len(b)))]), "truncated"
    if which == 7:      # a record type byte
        b[p] = int(rng.choice([0x21, 0x3B, 0x00, 0x2C, 0x99]))
        return bytes(b), "record byte %#x" % b[p]
    return bytes(b + b[13:]), "tail repeated"


def _gif_case(rng):
    data, desc, dims = _valid_gif(rng)
    blob, what = _mutate_gif(rng, data)

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
    return "%s; %s" % (desc, what), run


def _gif_valid_case(rng):
    data, desc, dims = _valid_gif(rng)

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

def _valid_bmp(rng):
    bpp = int(rng.choice([1, 4, 8, 8, 16, 24, 24, 32]))
    w, h = (int(v) for v in rng.integers(1, 20, 2))
    row_bytes = (w * bpp + 7) // 8
    rows = [rng.integers(0, 256, row_bytes, dtype=np.uint8).tobytes() for _ in range(h)]
    palette = [tuple(int(c) for c in rng.integers(0, 256, 3))
               for _ in range(1 << bpp)] if bpp <= 8 else []
    top_down = bool(rng.random() < 0.3)
    compression = 0
    if bpp in (4, 8) and rng.random() < 0.2:        # RLE: a run per row, then the end
        compression = 2 if bpp == 4 else 1
        rows = [bytes([w, 1, 0, 0]) for _ in range(h - 1)] + [bytes([w, 1, 0, 1])]
    data = F.bmp_file(rows, w, -h if top_down else h, bpp, palette, compression,
                      int(rng.choice([40, 40, 108, 124])))
    return data, "bmp %dx%d %d-bit%s%s" % (w, h, bpp, " top-down" if top_down else "",
                                         " RLE" if compression else ""), (w, h, bpp)


def _bmp_case(rng):
    data, desc, _ = _valid_bmp(rng)
    b = bytearray(data)
    which = int(rng.integers(6))
    if which == 0:
        struct.pack_into("<i", b, 10, int(rng.choice([0, 14, 54, -1, 1 << 30, len(b)])))
        what = "pixel offset"
    elif which == 1:
        struct.pack_into("<i", b, 18, int(rng.choice([0, 1, -1, 3, 1 << 16, 2 ** 31 - 1])))
        what = "width"
    elif which == 2:
        struct.pack_into("<i", b, 22, int(rng.choice([0, 1, -1, -7, 1 << 16, -2 ** 31])))
        what = "height"
    elif which == 3:
        struct.pack_into("<h", b, 28, int(rng.choice([0, 8, 24, 32, -8, -32, 255])))
        what = "bits per pixel"
    elif which == 4:
        b = b[:int(rng.integers(len(b) + 1))]
        what = "truncated"
    else:
        b = b + bytes(int(rng.integers(1, 9)))
        what = "extended"
    blob = bytes(b)
    channels = int(rng.choice([0, 3, 4]))

    def run():
        got = _decoded_or_typed(tf.io.decode_bmp, blob, channels=channels)
        if got is None:
            return
        bw, bh = struct.unpack_from("<ii", blob, 18)
        assert got.shape[:2] == (abs(bh), bw) and got.dtype == np.uint8
        assert got.shape[2] == channels if channels else got.shape[2] in (1, 3, 4)
    return "%s; %s; channels %d" % (desc, what, channels), run


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
            if status == 0 and min_size <= 8:
                assert int(out.max(initial=0)) < (1 << max(min_size, 1)) or min_size == 0
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
