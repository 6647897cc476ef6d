"""The io layer's one PNG encoder (``fasteager._src.io.png.encode``, which summary images
and fe.io.encode_png share): files Pillow reads back, and the chunk layout it writes."""
import io
import struct
import zlib

import numpy as np
import pytest

from fasteager._src.io import png as png_codec


def test_png_decodes_with_pillow():
    pil = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(0)
    for channels, mode in ((1, "L"), (2, "LA"), (3, "RGB"), (4, "RGBA")):
        img = rng.integers(0, 256, (13, 17, channels), dtype=np.uint8)
        decoded = pil.open(io.BytesIO(png_codec.encode(img)))
        decoded.load()
        assert decoded.mode == mode and decoded.size == (17, 13)
        np.testing.assert_array_equal(np.asarray(decoded).reshape(img.shape), img)


def test_png_structure():
    png = png_codec.encode(np.zeros((2, 3, 3), np.uint8))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", png[8:16])
    assert kind == b"IHDR" and length == 13
    assert struct.unpack(">IIBB", png[16:26]) == (3, 2, 8, 2)
    assert png.endswith(b"IEND" + struct.pack(">I", zlib.crc32(b"IEND")))
