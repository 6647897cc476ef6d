"""SipHash-2-4 (Aumasson and Bernstein) with a 128-bit key of two 64-bit words, in Python,
for ``fe.strings.to_hash_bucket_strong``, which TensorFlow defines as
``SipHash(key, s) % n`` (highwayhash's SipHash: ``k0 = key[0]``, ``k1 = key[1]``).

Python integers masked to 64 bits; the published algorithm, so bucket ids match
TensorFlow's on every platform.
"""
_M = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _M


def _rounds(v0, v1, v2, v3, n):
    for _ in range(n):
        v0 = (v0 + v1) & _M
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _M
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _M
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _M
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash24(k0, k1, data):
    """The 64-bit SipHash-2-4 of the bytes ``data`` under the key ``(k0, k1)``."""
    k0 &= _M
    k1 &= _M
    v0 = k0 ^ 0x736f6d6570736575
    v1 = k1 ^ 0x646f72616e646f6d
    v2 = k0 ^ 0x6c7967656e657261
    v3 = k1 ^ 0x7465646279746573
    n = len(data)
    end = n - n % 8
    for i in range(0, end, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v3 ^= m
        v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    # the last block: the remaining bytes, and the length's low byte on top
    m = int.from_bytes(data[end:], "little") | ((n & 0xff) << 56)
    v3 ^= m
    v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 2)
    v0 ^= m
    v2 ^= 0xff
    v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3
