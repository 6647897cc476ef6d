"""CRC-32C of TFRecord framing (the io layer's Cython ``_crc32c`` and its pure-Python
fallback in ``tfrecord``): known vectors, buffers, lengths and alignments, against
TensorBoard's masked CRC and the ``crc32c`` package."""
import numpy as np
import pytest

from fasteager._src.io import _crc32c, tfrecord


def test_crc32c_known_vectors():
    assert _crc32c.crc32c(b"123456789") == 0xE3069283
    assert _crc32c.crc32c(b"") == 0
    # RFC 3720 (iSCSI) appendix B.4 test vectors.
    assert _crc32c.crc32c(bytes(32)) == 0x8A9136AA
    assert _crc32c.crc32c(b"\xff" * 32) == 0x62A8AB43
    assert _crc32c.crc32c(bytes(range(32))) == 0x46DD794E
    assert _crc32c.crc32c(bytes(range(31, -1, -1))) == 0x113FDB5C


def test_crc32c_incremental_and_buffer_types():
    data = np.random.default_rng(0).bytes(1000)
    whole = _crc32c.crc32c(data)
    assert _crc32c.crc32c(data[300:], _crc32c.crc32c(data[:300])) == whole
    assert _crc32c.crc32c(bytearray(data)) == whole
    assert _crc32c.crc32c(memoryview(data)) == whole
    assert _crc32c.crc32c(np.frombuffer(data, np.uint8)) == whole


def test_crc32c_matches_pure_python_all_lengths_and_alignments():
    data = np.random.default_rng(1).bytes(200)
    for start in range(8):
        for length in range(70):
            chunk = memoryview(data)[start:start + length]
            assert _crc32c.crc32c(chunk) == tfrecord.py_crc32c(chunk)


def test_masked_crc_matches_tensorboard():
    pywrap_tensorflow = pytest.importorskip("tensorboard.compat.tensorflow_stub.pywrap_tensorflow")
    for data in (b"", b"a", b"123456789", bytes(range(256)) * 3):
        assert _crc32c.masked_crc32c(data) == pywrap_tensorflow.masked_crc32c(data)


def _reference_crc32c():
    # The `crc32c` package is in the [test] extra: a missing one is a broken test
    # environment, which must fail loudly rather than skip these two checks.
    try:
        import crc32c
    except ImportError as e:   # pragma: no cover - only without the [test] extra
        pytest.fail(f"the reference package is missing: pip install 'fasteager[test]' ({e})")
    return crc32c.crc32c


def test_crc32c_matches_reference_package_large_buffer():
    ref = _reference_crc32c()
    data = np.random.default_rng(2).bytes(100_003)
    assert _crc32c.crc32c(data) == ref(data)
    assert _crc32c.crc32c(data, 0x12345678) == ref(data, 0x12345678)   # continued CRC


def test_crc32c_matches_reference_package_all_lengths_and_alignments():
    ref = _reference_crc32c()
    data = np.random.default_rng(4).bytes(300)
    for start in range(8):
        for length in range(0, 260, 7):
            chunk = bytes(memoryview(data)[start:start + length])
            assert _crc32c.crc32c(chunk) == ref(chunk), (start, length)
