"""PNG, GIF and BMP files written field by field for the codec tests and the fuzz tests,
independent of fasteager's encoders: PNG filters byte by byte as the spec words them,
GIF's LZW encoder, BMP's headers. Each builder takes the fields a test may want to make
hostile (sizes, offsets, chunk lists, code sizes) as plain arguments."""
import struct
import zlib

import numpy as np

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2))


# ---- PNG ---------------------------------------------------------------------------------

def chunk(ctype, payload):
    """One PNG chunk with its length and CRC."""
    return (struct.pack(">I", len(payload)) + ctype + payload
            + struct.pack(">I", zlib.crc32(ctype + payload)))


def ihdr(width, height, depth, color, interlace=0):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color, 0, 0,
                                      int(interlace)))


def filter_row(row, prev, kind, bpp):
    """PNG filter ``kind`` applied to one row of bytes, byte by byte (the spec's text)."""
    out = bytearray()
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if kind == 0:
            pred = 0
        elif kind == 1:
            pred = a
        elif kind == 2:
            pred = b
        elif kind == 3:
            pred = (a + b) // 2
        else:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        out.append((x - pred) % 256)
    return bytes(out)


def scanlines(rows, bpp, kinds):
    prev = bytes(len(rows[0])) if rows else b""
    body = b""
    for y, row in enumerate(rows):
        kind = kinds[y % len(kinds)]
        body += bytes([kind]) + filter_row(row, prev, kind, bpp)
        prev = row
    return body


def png_body(pixels, depth=8, kinds=(0,), interlace=False):
    """The filtered, uncompressed image data of ``pixels`` [h, w, samples]."""
    h, w, samples = pixels.shape
    bpp = max(1, samples * depth // 8)

    def rows_of(img):
        rows = []
        for r in img:
            flat = r.reshape(-1)
            if depth == 16:
                rows.append(flat.astype(">u2").tobytes())
            elif depth == 8:
                rows.append(flat.astype(np.uint8).tobytes())
            else:
                bits = np.unpackbits(flat.astype(np.uint8)[:, None], axis=1)[:, 8 - depth:]
                rows.append(np.packbits(bits.reshape(-1)).tobytes())
        return rows
    if not interlace:
        return scanlines(rows_of(pixels), bpp, kinds)
    body = b""
    for x0, y0, dx, dy in ADAM7:
        sub = pixels[y0::dy, x0::dx]
        if sub.size:
            body += scanlines(rows_of(sub), bpp, kinds)
    return body


def png_file(pixels, color, depth=8, kinds=(0,), interlace=False, extra=()):
    """``pixels`` [h, w, samples] (palette indices for colour type 3) as PNG bytes;
    ``extra`` (type, payload) chunks go between IHDR and IDAT."""
    h, w, _ = pixels.shape
    body = png_body(pixels, depth, kinds, interlace)
    return (PNG_SIGNATURE + ihdr(w, h, depth, color, interlace)
            + b"".join(chunk(t, p) for t, p in extra)
            + chunk(b"IDAT", zlib.compress(body)) + chunk(b"IEND", b""))


def png_chunks(data):
    """[(type, payload)] of a well-framed PNG (for tests that rearrange chunks)."""
    out, pos = [], len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        out.append((ctype, data[pos + 8:pos + 8 + length]))
        pos += 12 + length
    return out


def png_from_chunks(chunks):
    return PNG_SIGNATURE + b"".join(chunk(t, p) for t, p in chunks)


# ---- GIF ---------------------------------------------------------------------------------

def lzw(indices, min_size):
    """GIF's LZW of ``indices`` (a clear code first, an end code last, codes packed LSB
    first, widths growing as giflib's decoder expects, a clear when the table is full)."""
    clear, end = 1 << min_size, (1 << min_size) + 1
    out = bytearray()
    acc = nbits = 0
    size = min_size + 1

    def emit(code):
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += size
        while nbits >= 8:
            out.append(acc & 255)
            acc >>= 8
            nbits -= 8

    def fresh():
        return {(i,): i for i in range(clear)}, end + 1
    table, nxt = fresh()
    emit(clear)
    word = ()
    for v in indices:
        longer = word + (int(v),)
        if longer in table:
            word = longer
            continue
        emit(table[word])
        if nxt < 4096:
            table[longer] = nxt
            nxt += 1
            if nxt > (1 << size) and size < 12:
                size += 1
        else:
            emit(clear)
            table, nxt = fresh()
            size = min_size + 1
        word = (int(v),)
    if word:
        emit(table[word])
    emit(end)
    if nbits:
        out.append(acc & 255)
    return bytes(out)


def sub_blocks(data, size=255):
    return b"".join(bytes([len(data[i:i + size])]) + data[i:i + size]
                    for i in range(0, len(data), size)) + b"\0"


def colour_table(colours):
    """(flag bits, bytes) of a colour table padded to a power of two (2 at least)."""
    n = max(2, len(colours))
    bits = (n - 1).bit_length()
    body = b"".join(bytes(c) for c in colours) + bytes(3 * ((1 << bits) - len(colours)))
    return 0x80 | (bits - 1), body


def gif_image(left, top, width, height, indices, local=None, transparent=None,
              interlace=False, min_size=8, lzw_data=None):
    """One frame: an optional graphic control extension, the image descriptor, an
    optional local colour table and the LZW data in sub-blocks (``indices`` row by row;
    for an interlaced frame they are reordered here, as an encoder stores them)."""
    out = b""
    if transparent is not None:
        out += b"\x21\xf9\x04" + bytes([1, 0, 0, transparent, 0])
    flags, table = colour_table(local) if local is not None else (0, b"")
    indices = np.asarray(indices, np.uint8).reshape(-1)
    if interlace:
        flags |= 0x40
        rows = indices.reshape(height, width)
        order = [y for start, step in ((0, 8), (4, 8), (2, 4), (1, 2))
                 for y in range(start, height, step)]
        indices = rows[order].reshape(-1)
    data = lzw(indices.tolist(), min_size) if lzw_data is None else lzw_data
    return (out + b"\x2c" + struct.pack("<HHHHB", left, top, width, height, flags) + table
            + bytes([min_size]) + sub_blocks(data))


def gif_file(screen_w, screen_h, images, palette=None, trailer=True):
    """A GIF89a file: logical screen, optional global colour table, the ``images``
    (gif_image bytes) and the trailer."""
    flags, table = colour_table(palette) if palette is not None else (0, b"")
    return (b"GIF89a" + struct.pack("<HHBBB", screen_w, screen_h, flags, 0, 0) + table
            + b"".join(images) + (b"\x3b" if trailer else b""))


# ---- BMP ---------------------------------------------------------------------------------

def bmp_file(rows, width, height, bpp, palette=(), compression=0, info_size=40,
             offset=None):
    """A BMP: file header, BITMAPINFOHEADER (``info_size`` bytes), palette, then
    ``rows`` (bytes, stored order) each padded to 4 bytes."""
    body = b"".join(r + bytes((-len(r)) % 4) for r in rows)
    pal = b"".join(bytes(c) + b"\0" for c in palette)
    off = 14 + info_size + len(pal) if offset is None else offset
    info = struct.pack("<IiiHHIIiiII", info_size, width, height, 1, bpp, compression,
                       len(body), 2835, 2835, len(palette), 0) + bytes(info_size - 40)
    size = 14 + len(info) + len(pal) + len(body)
    return b"BM" + struct.pack("<IHHI", size, 0, 0, off) + info + pal + body
