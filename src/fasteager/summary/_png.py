"""Minimal PNG encoder (zlib + struct) for image summaries, so Pillow is not needed.

Writes 8-bit grayscale, grayscale+alpha, RGB or RGBA images, non-interlaced, with
filter type 0 on every scanline (PNG spec, https://www.w3.org/TR/png/ sections 5, 7,
11). Filter 0 keeps the encoder a few NumPy operations; zlib still compresses flat
regions well, which is what most summary images are.
"""

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour type for each channel count (IHDR field).
_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}


def _chunk(kind, payload):
    return b"".join((struct.pack(">I", len(payload)), kind, payload,
                     struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)))


def encode_png(image, compression=6):
    """Encode a uint8 array of shape (H, W, C), C in 1..4, as PNG bytes."""
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in _COLOR_TYPE:
        raise ValueError(f"encode_png: image must be uint8 of shape (H, W, C) with C in 1..4 "
                         f"(expected uint8 (H, W, 1|2|3|4), got {image.dtype} {image.shape})")
    height, width, channels = image.shape
    if height == 0 or width == 0:
        raise ValueError(f"encode_png: image must be non-empty (expected H, W > 0, "
                         f"got {height}x{width})")
    rows = image.reshape(height, width * channels)
    # Each scanline is prefixed by its filter-type byte (0 = None).
    raw = np.zeros((height, width * channels + 1), dtype=np.uint8)
    raw[:, 1:] = rows
    ihdr = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPE[channels], 0, 0, 0)
    return b"".join((_SIGNATURE, _chunk(b"IHDR", ihdr),
                     _chunk(b"IDAT", zlib.compress(raw.tobytes(), compression)),
                     _chunk(b"IEND", b"")))


def decode_png(data):
    """Decode PNGs written by :func:`encode_png` (filter 0 only) to (H, W, C) uint8.

    A test helper, not a general decoder: rejects interlacing, bit depths other than 8
    and filters other than None.
    """
    if data[:8] != _SIGNATURE:
        raise ValueError("decode_png: not a PNG (bad signature)")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        payload = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + payload) & 0xFFFFFFFF != crc:
            raise ValueError(f"decode_png: CRC mismatch in chunk {kind!r}")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", payload)
        elif kind == b"IDAT":
            idat.append(payload)
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    channels = {v: k for k, v in _COLOR_TYPE.items()}[color]
    if depth != 8 or interlace != 0:
        raise ValueError("decode_png: only 8-bit non-interlaced images are supported")
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    raw = raw.reshape(height, width * channels + 1)
    if np.any(raw[:, 0] != 0):
        raise ValueError("decode_png: only filter type 0 is supported")
    return raw[:, 1:].reshape(height, width, channels).copy()
