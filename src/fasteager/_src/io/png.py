"""PNG decoding and encoding in NumPy and ``zlib`` (no image library), for
``fe.io.decode_png`` / ``encode_png``.

Decoding reads every PNG TensorFlow's libpng build reads: bit depths 1-16, grey, grey +
alpha, RGB, RGBA and palette images (with ``tRNS`` transparency: palette alphas, or a
grey/RGB colour key), and Adam7 interlacing, and refuses what libpng refuses (chunk order,
CRCs, a zlib stream cut short, libpng's and TensorFlow's size limits; see ``read``). The
decompressed size is bounded by what the header promises and unfiltering is a Cython loop
(``_kernels.png_unfilter``), so a corrupt or hostile file raises ``PngError`` (the caller
turns it into ``InvalidArgumentError``) in time and memory proportional to the file and
the image, never allocating without limit. Channel conversions are
libpng's, as TensorFlow configures it: grey from RGB by libpng's fixed-point
``0.299 R + 0.587 G + 0.114 B`` (alpha dropped, not composited), 16-bit to 8-bit by
dropping the low byte, 8-bit to 16-bit by ``* 257``, sub-byte grey scaled to 8 bits, and
an alpha channel added to a file without one filled with ``2**depth - 1``.
"""
import struct
import zlib

import numpy as np

from ..._kernels import png_unfilter

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


def _parse_header(payload):
    if len(payload) != 13:
        raise PngError("Invalid PNG. Failed to initialize decoder.")
    h = _Header()
    h.width, h.height, h.depth, h.color, comp, filt, h.interlace = struct.unpack(
        ">IIBBBBB", payload)
    # libpng's default user limits: at most 1,000,000 pixels a side
    if (not 0 < h.width <= 1000000 or not 0 < h.height <= 1000000
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
    return png_unfilter(raw, height, stride, bpp)       # ValueError on a bad filter type


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


def _data_error(data, why):
    return PngError("Invalid PNG data, size %d (%s)" % (len(data), why))


def _chunk_limit(h, ctype):
    """libpng's png_check_chunk_length: 8,000,000 bytes (its default chunk allocation
    limit), or for IDAT what the image's rows could need after deflate's overhead."""
    if ctype != b"IDAT" or h is None:
        return 8000000
    channels = _SAMPLES[h.color]
    row = h.width * channels * (2 if h.depth > 8 else 1) + 1 + (6 if h.interlace else 0)
    limit = h.height * row if h.height <= 0xFFFFFFFF // row else 0x7FFFFFFF
    limit += 6 + 5 * (limit // min(row, 32566) + 1)
    return max(8000000, min(limit, 0x7FFFFFFF))


def _check_size(h):
    # TensorFlow's own limit, checked once libpng has read the header chunks
    if h.width * h.height >= 1 << 29:
        raise PngError("PNG size too large for int: %d by %d" % (h.width, h.height))


def read(data):
    """(pixels, bit depth, colour type, palette or None, transparency or None): pixels are
    (height, width, samples), palette indices for colour type 3; the transparency is the
    palette's alpha (uint8) or the grey/RGB key (uint16 samples) of a tRNS chunk.

    Chunks are read as libpng reads them for TensorFlow: up to the first IDAT (libpng's
    png_read_info) an error is TensorFlow's "Failed to initialize decoder", after it
    "Invalid PNG data". Critical chunks must have good CRCs (an ancillary one with a bad
    CRC is dropped); IHDR comes first and once, PLTE at most once (in any colour type;
    a palette image needs it before the data, where it must be 1-256 entries), the IDAT
    chunks are consecutive, IEND ends the file, and an unknown critical chunk is an
    error. Misplaced or malformed ancillary chunks, and a PLTE in a grey file or after
    the data, are dropped; a tRNS before an RGB file's PLTE is cancelled by it."""
    if not data.startswith(SIGNATURE):
        raise PngError(_INIT_ERROR)
    n = len(data)
    header = palette = trns = None
    have_plte = have_trns = False
    idat = []
    at = "info"         # info -> idat (in the IDAT run) -> after (past it)
    pos = len(SIGNATURE)
    while True:
        if pos + 8 > n:
            raise PngError(_INIT_ERROR) if at == "info" else _data_error(data, "no IEND")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        if not all(65 <= c <= 90 or 97 <= c <= 122 for c in ctype):
            raise PngError(_INIT_ERROR) if at == "info" else _data_error(
                data, "invalid chunk type %r" % ctype)
        if header is None and ctype != b"IHDR":
            raise PngError(_INIT_ERROR)             # libpng: missing IHDR
        if ctype == b"IDAT" and at == "info":
            # png_read_info ends at the first IDAT's header: the checks that follow it
            if header.color == 3 and palette is None:
                raise PngError(_INIT_ERROR)         # missing PLTE before IDAT
            _check_size(header)
            at = "idat"
        end = pos + 8 + length + 4
        if length > _chunk_limit(header, ctype) or end > n:
            raise PngError(_INIT_ERROR) if at == "info" else _data_error(
                data, "%r chunk past the end of the data" % ctype.decode("latin-1"))
        payload = data[pos + 8:end - 4]
        crc, = struct.unpack(">I", data[end - 4:end])
        pos = end
        critical = not ctype[0] & 0x20
        if zlib.crc32(ctype + payload) != crc:
            if not critical:
                continue            # an ancillary chunk: libpng warns and drops it
            raise PngError(_INIT_ERROR) if at == "info" else _data_error(
                data, "CRC error in %r chunk" % ctype.decode("latin-1"))
        if ctype == b"IDAT":
            if at == "after":
                raise _data_error(data, "IDAT chunks not consecutive")
            idat.append(payload)
            continue
        if at == "idat":
            at = "after"

        def fail(why):
            return PngError(_INIT_ERROR) if at == "info" else _data_error(data, why)
        if ctype == b"IHDR":
            if header is not None:
                raise fail("a second IHDR chunk")
            header = _parse_header(payload)
        elif ctype == b"IEND":
            if at == "info":
                raise PngError(_INIT_ERROR)         # no image data
            break
        elif critical and ctype != b"PLTE":
            raise fail("unknown critical chunk %r" % ctype.decode("latin-1"))
        elif ctype == b"PLTE":
            if have_plte:
                raise fail("a second PLTE chunk")
            if at != "info":
                continue                            # out of place
            have_plte = True
            if header.color in (0, 4):
                continue                            # ignored in a grey file
            if len(payload) > 768 or len(payload) % 3:
                if header.color == 3:
                    raise PngError(_INIT_ERROR)
                continue                            # RGB: an invalid suggested palette
            if not payload:
                raise PngError(_INIT_ERROR)         # libpng: "Invalid palette"
            if header.color == 3:
                # entries past what the bit depth can index are dropped
                palette = np.frombuffer(payload, np.uint8).reshape(-1, 3)[:1 << header.depth]
            elif trns is not None:
                trns = None                         # libpng: "tRNS must be after" PLTE
        elif ctype == b"tRNS" and at == "info" and not have_trns:
            if header.color == 3 and palette is None:
                continue                            # before PLTE: out of place
            trns = _transparency(header, palette, payload)
            have_trns = trns is not None
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
    # libpng reads the zlib stream to its end (its checksum included) after the last row:
    # a stream cut short is an error, data after its end is not
    try:
        while not inflater.eof:
            if not inflater.decompress(inflater.unconsumed_tail, 1 << 20) \
                    and not inflater.unconsumed_tail:
                raise PngError("Invalid PNG data, size %d (image data stream not ended)"
                               % len(data))
    except zlib.error as e:
        raise PngError("Invalid PNG data, size %d (%s)" % (len(data), e)) from None
    try:
        pixels = _pixels(stream, header)
    except ValueError as e:
        raise _data_error(data, e) from None
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
