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

from ._kernels import png_unfilter

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


_INIT_ERROR = "Invalid PNG. Failed to initialize decoder."
_CRITICAL = (b"IHDR", b"PLTE", b"IDAT", b"IEND")


def _chunks(data, phase):
    """(type, payload) of each chunk, CRCs checked, up to and including IEND; ``phase()``
    says whether the image data was reached (libpng's errors before it are TensorFlow's
    "Failed to initialize decoder", after it "Invalid PNG data")."""
    pos = len(SIGNATURE)
    n = len(data)

    def fail(why, ctype=None):
        # libpng's read_info stops at the first IDAT's header: errors in its body are
        # already data errors
        if not phase() and ctype != b"IDAT":
            return PngError(_INIT_ERROR)
        return PngError("Invalid PNG data, size %d (%s)" % (n, why))
    while True:
        if pos + 8 > n:
            raise fail("truncated before IEND")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 8 + length + 4
        if length > 0x7FFFFFFF or end > n:
            raise fail("chunk past the end of the data", ctype)
        payload = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[end - 4:end])
        if zlib.crc32(ctype + payload) != crc:
            if ctype[0] & 0x20:     # ancillary chunk: libpng warns and drops it
                pos = end
                continue
            raise fail("CRC error in %r chunk" % ctype.decode("latin-1"), ctype)
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
    """The (height, row_bytes) uint8 scanlines of one (sub)image, filters undone (a Cython
    loop: Average and Paeth depend on the byte before, so they cannot be vectorised)."""
    stride = _row_bytes(width, samples, depth)
    bpp = max(1, samples * depth // 8)
    try:
        return png_unfilter(raw, height, stride, bpp)
    except ValueError as e:
        raise PngError("Invalid PNG data (%s)" % e) from None


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


def _transparency(h, palette, payload):
    """The tRNS payload if libpng accepts it for this image, else None (libpng drops an
    invalid one with a warning)."""
    if h.color == 3:
        ok = palette is not None and 0 < len(payload) <= len(palette)
    else:
        ok = len(payload) == {0: 2, 2: 6}.get(h.color, -1)
    return payload if ok else None


def read(data):
    """(pixels, bit depth, colour type, palette or None, transparency or None): pixels are
    (height, width, samples), palette indices for colour type 3; the transparency is the
    palette's alpha (uint8) or the grey/RGB key (uint16 samples) of a tRNS chunk.

    Chunk order is libpng's: IHDR first and once, a palette image's PLTE once before the
    image data, the IDAT chunks consecutive, IEND at the end, no unknown critical chunk.
    Misplaced ancillary chunks (and PLTE in a non-palette image) are dropped, as libpng
    drops them."""
    if not data.startswith(SIGNATURE):
        raise PngError(_INIT_ERROR)
    header = palette = trns = None
    idat = []
    state = ["info"]        # info -> idat (first IDAT seen) -> after (a chunk after them)

    def phase():
        return state[0] != "info"
    for ctype, payload in _chunks(data, phase):
        at = state[0]
        if header is None:
            if ctype != b"IHDR":
                raise PngError(_INIT_ERROR)
            header = _parse_header(payload)
            continue
        if ctype == b"IDAT":
            if at == "after":
                raise PngError("Invalid PNG data, size %d (IDAT chunks not consecutive)"
                               % len(data))
            if at == "info" and header.color == 3 and palette is None:
                raise PngError(_INIT_ERROR)         # libpng: missing PLTE before IDAT
            state[0] = "idat"
            idat.append(payload)
            continue
        if at == "idat":
            state[0] = at = "after"
        critical = not ctype[0] & 0x20
        if ctype == b"IEND":
            if at == "info":
                raise PngError(_INIT_ERROR)         # no image data
            break
        if ctype == b"IHDR" or (critical and ctype not in _CRITICAL):
            if at == "info":
                raise PngError(_INIT_ERROR)
            raise PngError("Invalid PNG data, size %d (unexpected %r chunk)"
                           % (len(data), ctype.decode("latin-1")))
        if ctype == b"PLTE":
            if header.color != 3:
                continue                            # a suggested palette: ignored
            if at != "info" or palette is not None or len(payload) % 3 \
                    or not 0 < len(payload) <= 768:
                if at == "info":
                    raise PngError(_INIT_ERROR)
                raise PngError("Invalid PNG data, size %d (misplaced PLTE chunk)"
                               % len(data))
            palette = np.frombuffer(payload, np.uint8).reshape(-1, 3)
        elif ctype == b"tRNS" and at == "info" and trns is None:
            trns = _transparency(header, palette, payload)
    if header is None or not idat:
        raise PngError(_INIT_ERROR)
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
    if header.color == 3:
        if trns is not None:
            trns = np.frombuffer(trns, np.uint8)
    elif trns is not None:
        # libpng compares the key with the file's samples, masked to the bit depth
        trns = np.frombuffer(trns, ">u2").astype(np.uint16) & ((1 << header.depth) - 1)
    return pixels, header.depth, header.color, palette, trns


def _key_alpha(raw, key, depth):
    """libpng's tRNS-to-alpha for grey/RGB: alpha 0 where every sample equals the key,
    else opaque (255, or 65535 for 16-bit files: sub-byte files are expanded to 8 bits
    first)."""
    opaque = 65535 if depth == 16 else 255
    keyed = np.all(raw == key.astype(raw.dtype), axis=-1, keepdims=True)
    return np.where(keyed, 0, opaque).astype(raw.dtype)


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
    pixels, depth, color, palette, trns = read(data)
    key_alpha = None
    if color == 3:
        # an index past the palette's end reads as black, opaque (libpng's zero-filled
        # 256-entry palette)
        full = np.zeros((256, 3), np.uint8)
        full[:len(palette)] = palette
        index = pixels[..., 0]
        pixels = full[index]
        if trns is not None:
            alpha = np.full(256, 255, np.uint8)
            alpha[:len(trns)] = trns
            pixels = np.concatenate([pixels, alpha[index][..., None]], axis=-1)
    elif trns is not None and channels == 4:
        key_alpha = _key_alpha(pixels, trns, depth)
    if depth < 8 and color == 0:        # libpng's expand_gray_1_2_4_to_8
        pixels = pixels * np.uint8(255 // ((1 << depth) - 1))
    have = pixels.shape[-1]
    want = channels or have
    if want != have:
        colour = pixels[..., :1] if have <= 2 else pixels[..., :3]
        # libpng adds the alpha filler before expanding sub-byte samples, so TensorFlow's
        # added alpha of a 1/2/4-bit file is 2**depth - 1, not 255
        opaque = np.full(pixels.shape[:2] + (1,), (1 << depth) - 1, pixels.dtype)
        alpha_ch = pixels[..., -1:] if have in (2, 4) else opaque
        if key_alpha is not None:
            alpha_ch = key_alpha
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
