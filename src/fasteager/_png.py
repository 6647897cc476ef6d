"""PNG decoding and encoding in NumPy and ``zlib`` (no image library), for
``fe.io.decode_png`` / ``encode_png``.

Decoding reads every PNG TensorFlow's libpng build reads: bit depths 1-16, grey, grey +
alpha, RGB, RGBA and palette images (with ``tRNS`` transparency for palettes), and Adam7
interlacing. Every chunk's CRC is checked and the decompressed size is bounded by what the
header promises, so a corrupt or hostile file raises ``PngError`` (the caller turns it into
``InvalidArgumentError``) instead of allocating without limit. Channel conversions are
libpng's, as TensorFlow configures it: grey from RGB by libpng's fixed-point
``0.299 R + 0.587 G + 0.114 B`` (alpha dropped, not composited), 16-bit to 8-bit by
dropping the low byte, 8-bit to 16-bit by ``* 257``, sub-byte grey scaled to 8 bits, and
an alpha channel added to a file without one filled with ``2**depth - 1``.
"""
import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"

# colour type -> samples per pixel; allowed bit depths
_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
# Adam7 passes: (x start, y start, x step, y step)
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
          (0, 1, 1, 2))
# libpng's png_set_rgb_to_gray(.., 0.299, 0.587) coefficients, in 1/32768
_GRAY_R, _GRAY_G = 9797, 19234
_GRAY_B = 32768 - _GRAY_R - _GRAY_G


class PngError(ValueError):
    """The bytes are not a PNG this decoder can read (the message says why)."""


class _Header:
    __slots__ = ("width", "height", "depth", "color", "interlace")


def _chunks(data):
    """(type, payload) of each chunk, CRCs checked, up to and including IEND."""
    pos = len(SIGNATURE)
    n = len(data)
    while True:
        if pos + 8 > n:
            raise PngError("Invalid PNG data, size %d" % n)
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 8 + length + 4
        if length > 0x7FFFFFFF or end > n:
            raise PngError("Invalid PNG data, size %d" % n)
        payload = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[end - 4:end])
        if zlib.crc32(ctype + payload) != crc:
            if ctype[0] & 0x20:     # ancillary chunk: libpng warns and drops it
                pos = end
                continue
            raise PngError("Invalid PNG data, size %d (CRC error in %s chunk)"
                           % (n, ctype.decode("latin-1")))
        yield ctype, payload
        if ctype == b"IEND":
            return
        pos = end


def _parse_header(payload):
    if len(payload) != 13:
        raise PngError("Invalid PNG. Failed to initialize decoder.")
    h = _Header()
    h.width, h.height, h.depth, h.color, comp, filt, h.interlace = struct.unpack(
        ">IIBBBBB", payload)
    if (not 0 < h.width <= 0x7FFFFFFF or not 0 < h.height <= 0x7FFFFFFF
            or h.color not in _SAMPLES or h.depth not in _DEPTHS[h.color]
            or comp != 0 or filt != 0 or h.interlace not in (0, 1)):
        raise PngError("Invalid PNG. Failed to initialize decoder.")
    return h


def _row_bytes(width, samples, depth):
    return (width * samples * depth + 7) // 8


def _unfilter(raw, width, height, samples, depth):
    """The (height, row_bytes) uint8 scanlines of one (sub)image, filters undone."""
    stride = _row_bytes(width, samples, depth)
    bpp = max(1, samples * depth // 8)
    rows = np.frombuffer(raw, np.uint8).reshape(height, stride + 1)
    out = np.empty((height, stride), np.uint8)
    prev = np.zeros(stride, np.uint8)
    for y in range(height):
        kind = rows[y, 0]
        line = rows[y, 1:]
        if kind == 0:
            cur = line.copy()
        elif kind == 1:     # Sub: a running sum per byte lane, mod 256
            cur = np.empty(stride, np.uint8)
            pad = (-stride) % bpp
            lanes = np.concatenate([line, np.zeros(pad, np.uint8)]).reshape(-1, bpp)
            cur[:] = np.cumsum(lanes, axis=0, dtype=np.uint8).reshape(-1)[:stride]
        elif kind == 2:
            cur = line + prev
        elif kind == 3:
            cur = _unfilter_average(line, prev, bpp)
        elif kind == 4:
            cur = _unfilter_paeth(line, prev, bpp)
        else:
            raise PngError("Invalid PNG data (unknown filter type %d)" % kind)
        out[y] = cur
        prev = cur
    return out


def _unfilter_average(line, prev, bpp):
    cur = bytearray(line.tobytes())
    up = prev.tobytes()
    for i in range(len(cur)):
        left = cur[i - bpp] if i >= bpp else 0
        cur[i] = (cur[i] + ((left + up[i]) >> 1)) & 0xFF
    return np.frombuffer(bytes(cur), np.uint8)


def _unfilter_paeth(line, prev, bpp):
    cur = bytearray(line.tobytes())
    up = prev.tobytes()
    for i in range(len(cur)):
        if i >= bpp:
            a, c = cur[i - bpp], up[i - bpp]
        else:
            a = c = 0
        b = up[i]
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        cur[i] = (cur[i] + pred) & 0xFF
    return np.frombuffer(bytes(cur), np.uint8)


def _samples(lines, width, samples, depth):
    """Scanlines -> (height, width, samples) of uint8 (depth <= 8) or uint16 samples."""
    height = lines.shape[0]
    if depth == 16:
        return lines.view(">u2").astype(np.uint16).reshape(height, width, samples)
    if depth == 8:
        return lines.reshape(height, width, samples)
    bits = np.unpackbits(lines, axis=1)       # MSB first, as PNG packs them
    bits = bits.reshape(height, -1, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
    values = (bits * weights).sum(axis=2, dtype=np.uint8)
    return values[:, :width * samples].reshape(height, width, samples)


def _pixels(stream, h):
    samples = _SAMPLES[h.color]
    if h.interlace == 0:
        lines = _unfilter(stream, h.width, h.height, samples, h.depth)
        return _samples(lines, h.width, samples, h.depth)
    dtype = np.uint16 if h.depth == 16 else np.uint8
    img = np.zeros((h.height, h.width, samples), dtype)
    pos = 0
    for x0, y0, dx, dy in _ADAM7:
        pw, ph = (h.width - x0 + dx - 1) // dx, (h.height - y0 + dy - 1) // dy
        if pw <= 0 or ph <= 0:
            continue
        size = ph * (_row_bytes(pw, samples, h.depth) + 1)
        lines = _unfilter(stream[pos:pos + size], pw, ph, samples, h.depth)
        img[y0::dy, x0::dx] = _samples(lines, pw, samples, h.depth)
        pos += size
    return img


def _stream_size(h):
    samples = _SAMPLES[h.color]
    if h.interlace == 0:
        return h.height * (_row_bytes(h.width, samples, h.depth) + 1)
    total = 0
    for x0, y0, dx, dy in _ADAM7:
        pw, ph = (h.width - x0 + dx - 1) // dx, (h.height - y0 + dy - 1) // dy
        if pw > 0 and ph > 0:
            total += ph * (_row_bytes(pw, samples, h.depth) + 1)
    return total


def read(data):
    """(pixels, bit depth, colour type, palette or None, palette alpha or None): pixels are
    (height, width, samples), palette indices for colour type 3."""
    if not data.startswith(SIGNATURE):
        raise PngError("Invalid PNG. Failed to initialize decoder.")
    header = palette = trns = None
    idat = []
    for ctype, payload in _chunks(data):
        if header is None:
            if ctype != b"IHDR":
                raise PngError("Invalid PNG. Failed to initialize decoder.")
            header = _parse_header(payload)
        elif ctype == b"PLTE":
            if len(payload) % 3 or not 0 < len(payload) <= 768:
                raise PngError("Invalid PNG data (bad PLTE chunk)")
            palette = np.frombuffer(payload, np.uint8).reshape(-1, 3)
        elif ctype == b"tRNS":
            trns = payload
        elif ctype == b"IDAT":
            idat.append(payload)
    if header is None or not idat:
        raise PngError("Invalid PNG data, size %d" % len(data))
    expected = _stream_size(header)
    compressed = b"".join(idat)
    if expected > 1032 * len(compressed) + 64:     # deflate expands at most ~1032:1
        raise PngError("Invalid PNG data, size %d (image data too short for %d x %d)"
                       % (len(data), header.width, header.height))
    inflater = zlib.decompressobj()
    try:
        stream = inflater.decompress(compressed, expected)
    except zlib.error as e:
        raise PngError("Invalid PNG data, size %d (%s)" % (len(data), e)) from None
    if len(stream) < expected:
        raise PngError("Invalid PNG data, size %d (image data too short)" % len(data))
    pixels = _pixels(stream, header)
    alpha = None
    if header.color == 3:
        if palette is None:
            raise PngError("Invalid PNG data (palette image without PLTE chunk)")
        if int(pixels.max(initial=0)) >= len(palette):
            raise PngError("Invalid PNG data (palette index out of range)")
        if trns is not None:
            alpha = np.full(len(palette), 255, np.uint8)
            k = min(len(trns), len(palette))
            alpha[:k] = np.frombuffer(trns[:k], np.uint8)
    elif header.depth < 8:      # libpng's expand_gray_1_2_4_to_8
        pixels = pixels * np.uint8(255 // ((1 << header.depth) - 1))
    return pixels, header.depth, header.color, palette, alpha


def _gray(rgb):
    # libpng truncates the 8-bit sum and rounds the 16-bit one
    wide = rgb.astype(np.uint64)
    half = 16384 if rgb.dtype == np.uint16 else 0
    gray = (wide[..., 0] * _GRAY_R + wide[..., 1] * _GRAY_G + wide[..., 2] * _GRAY_B
            + half) >> 15
    return gray.astype(rgb.dtype)[..., None]


def decode(data, channels=0, dtype=np.uint8):
    """The PNG ``data`` as a (height, width, channels) array of ``dtype`` (uint8 or
    uint16); ``channels`` 0 keeps the file's."""
    pixels, depth, color, palette, alpha = read(data)
    if color == 3:
        index = pixels[..., 0]
        pixels = palette[index]
        if alpha is not None:
            pixels = np.concatenate([pixels, alpha[index][..., None]], axis=-1)
    have = pixels.shape[-1]
    want = channels or have
    if want != have:
        colour = pixels[..., :1] if have <= 2 else pixels[..., :3]
        # libpng adds the alpha filler before expanding sub-byte samples, so TensorFlow's
        # added alpha of a 1/2/4-bit file is 2**depth - 1, not 255
        opaque = np.full(pixels.shape[:2] + (1,), (1 << depth) - 1, pixels.dtype)
        alpha_ch = pixels[..., -1:] if have in (2, 4) else opaque
        if want == 1:
            pixels = colour if have <= 2 else _gray(colour)
        elif want == 3:
            pixels = np.repeat(colour, 3, axis=-1) if have <= 2 else colour
        else:
            rgb = np.repeat(colour, 3, axis=-1) if have <= 2 else colour
            pixels = np.concatenate([rgb, alpha_ch], axis=-1)
    wide = pixels.dtype == np.uint16
    if dtype == np.uint8 and wide:
        pixels = (pixels >> 8).astype(np.uint8)
    elif dtype == np.uint16 and not wide:
        pixels = pixels.astype(np.uint16) * np.uint16(257)
    return np.ascontiguousarray(pixels)


def encode(image, compression=-1):
    """A (height, width, channels) uint8 or uint16 array (1-4 channels) as PNG bytes; each
    row gets the filter whose residuals have the smallest absolute sum (libpng's
    heuristic)."""
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    color = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    raw = image.astype(">u2").view(np.uint8) if depth == 16 else image
    lines = np.ascontiguousarray(raw).reshape(height, -1).astype(np.int16)
    bpp = channels * depth // 8
    up = np.vstack([np.zeros((1, lines.shape[1]), np.int16), lines[:-1]])
    left = np.hstack([np.zeros((height, bpp), np.int16), lines[:, :-bpp]])
    upleft = np.hstack([np.zeros((height, bpp), np.int16), up[:, :-bpp]])
    p = left + up - upleft
    pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - upleft)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, upleft))
    candidates = np.stack([lines, lines - left, lines - up, lines - ((left + up) >> 1),
                           lines - paeth]) & 0xFF
    signed = np.where(candidates > 127, 256 - candidates, candidates)
    choice = np.argmin(signed.sum(axis=2), axis=0)
    rows = candidates[choice, np.arange(height)].astype(np.uint8)
    body = np.hstack([choice.astype(np.uint8)[:, None], rows]).tobytes()
    level = 6 if compression == -1 else compression

    def chunk(ctype, payload):
        return (struct.pack(">I", len(payload)) + ctype + payload
                + struct.pack(">I", zlib.crc32(ctype + payload)))
    header = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    return (SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(body, level))
            + chunk(b"IEND", b""))
