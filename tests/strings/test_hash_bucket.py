"""fe.strings.to_hash_bucket_fast: FarmHash Fingerprint64 modulo the bucket count, as
TensorFlow defines it, checked against FarmHash's own implementation where installed."""
import random

import numpy as np
import pytest

import fasteager as tf
from fasteager._src.composite.farmhash import fingerprint64
from fasteager.errors import InvalidArgumentError


def _random_bytes(n, rng):
    return bytes(rng.getrandbits(8) for _ in range(n))


def test_fingerprint64_matches_farmhash_for_every_length_class():
    farmhash = pytest.importorskip("farmhash")       # pyfarmhash: Google's C++ FarmHash
    rng = random.Random(0)
    # each code path: 0, 1-3, 4-7, 8-16, 17-32, 33-64 bytes, and the 64-byte block loop
    for n in list(range(0, 140)) + [191, 192, 193, 1000, 4097]:
        s = _random_bytes(n, rng)
        assert fingerprint64(s) == farmhash.fingerprint64(s), n


def test_fingerprint64_is_a_64_bit_hash():
    rng = random.Random(1)
    values = {fingerprint64(_random_bytes(n, rng)) for n in range(200)}
    assert len(values) == 200 and all(0 <= v < 2 ** 64 for v in values)
    assert fingerprint64(b"abc") == fingerprint64(bytes(bytearray(b"abc")))


def test_to_hash_bucket_fast():
    words = ["Who", "is", "Dan", "Smith", "é"]
    out = tf.strings.to_hash_bucket_fast(words, 1024)
    assert out.dtype == tf.int64 and out.shape == (5,)
    assert out.numpy().tolist() == [fingerprint64(w.encode()) % 1024 for w in words]
    assert tf.strings.to_hash_bucket_fast("x", 1).numpy() == 0
    rt = tf.ragged.constant([["Who", "is"], ["Pause"]])
    hashed = tf.strings.to_hash_bucket_fast(rt, 7)
    assert isinstance(hashed, tf.RaggedTensor)
    assert hashed.to_list() == [[fingerprint64(w) % 7 for w in r] for r in rt.to_list()]
    assert tf.strings.to_hash_bucket_fast(np.array([], dtype=object), 3).shape == (0,)
    with pytest.raises(InvalidArgumentError, match="num_buckets must be at least 1"):
        tf.strings.to_hash_bucket_fast(["a"], 0)
    with pytest.raises(InvalidArgumentError, match="to_hash_bucket_fast: input must be a "
                       "string tensor"):
        tf.strings.to_hash_bucket_fast([1, 2], 3)


def test_guide_hashed_words_become_a_padded_tensor():
    sentences = tf.constant(["What makes you think she is a witch?", "A newt?"])
    words = tf.strings.split(sentences, " ")
    hashed = tf.strings.to_hash_bucket_fast(words, 1000)
    want = [[fingerprint64(w.encode()) % 1000 for w in s.split(" ")]
            for s in ["What makes you think she is a witch?", "A newt?"]]
    assert hashed.to_list() == want
    assert hashed.to_tensor().numpy().tolist() == [want[0], want[1] + [0] * 6]
