"""Random valid PNG, GIF and BMP files and structural mutations of them, shared by the
fuzz tests (tests/fuzz/test_image_codec_fuzz.py) and the recorder of TensorFlow's
verdicts on them (tests/tf_reference/record_image_codecs.py). NumPy only (no fasteager,
no TensorFlow), so both environments build the same bytes from the same seed.

``mutated_png/gif/bmp(rng)`` return ``(bytes, description, decode keyword arguments)``."""
import struct
import zlib

import numpy as np

from tests.image import image_files as F


# ---- PNG --------------------------------------------------------------------------------

_PNG_KINDS = [(0, (1, 2, 4, 8, 16)), (2, (8, 16)), (3, (1, 2, 4, 8)), (4, (8, 16)),
              (6, (8, 16))]
_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def valid_png(rng):
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


def mutate_png(rng, chunks):
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


def mutated_png(rng):
    """A valid random PNG after one mutation (CRCs recomputed), maybe a raw edit."""
    _, chunks, desc, _ = valid_png(rng)
    mutated, what = mutate_png(rng, chunks)
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
    dtype = ["uint8", "uint16"][int(rng.integers(2))]
    desc = "%s; %s%s; channels %d %s" % (desc, what, " + raw edit" if raw_edit else "",
                                         channels, dtype)
    return blob, desc, {"channels": channels, "dtype": dtype}


# ---- GIF --------------------------------------------------------------------------------

def valid_gif(rng):
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


def gif_positions(data):
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


def mutate_gif(rng, data):
    b = bytearray(data)
    which = int(rng.integers(9))
    images = gif_positions(data)
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


def mutated_gif(rng):
    """A valid random GIF after one mutation."""
    data, desc, _ = valid_gif(rng)
    blob, what = mutate_gif(rng, data)
    return blob, "%s; %s" % (desc, what), {}


# ---- BMP --------------------------------------------------------------------------------

def valid_bmp(rng):
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


def mutated_bmp(rng):
    """A valid random BMP after one header edit, truncation or extension."""
    data, desc, _ = valid_bmp(rng)
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
    return blob, "%s; %s; channels %d" % (desc, what, channels), {"channels": channels}
