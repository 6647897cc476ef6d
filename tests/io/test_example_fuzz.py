"""tf.train.Example's decoder on untrusted bytes: random records round-trip, and corrupted
or random bytes give a record or a typed error (DataLossError from the decoder,
InvalidArgumentError from tf.io.parse_example), never another exception or a hang."""
from hypothesis import given, settings
from hypothesis import strategies as st

import fasteager as tf
from fasteager.errors import DataLossError, InvalidArgumentError

_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
_int64s = st.lists(st.integers(-(1 << 63), (1 << 63) - 1), max_size=5)
_floats = st.lists(st.floats(width=32, allow_nan=False), max_size=5)
_bytes = st.lists(st.binary(max_size=8), max_size=4)
_feature = st.one_of(
    _int64s.map(lambda v: tf.train.Feature(int64_list=tf.train.Int64List(value=v))),
    _floats.map(lambda v: tf.train.Feature(float_list=tf.train.FloatList(value=v))),
    _bytes.map(lambda v: tf.train.Feature(bytes_list=tf.train.BytesList(value=v))),
    st.just(tf.train.Feature()))
_examples = st.dictionaries(_names, _feature, max_size=4).map(
    lambda d: tf.train.Example(features=tf.train.Features(feature=d)))


@settings(max_examples=150, deadline=None)
@given(_examples)
def test_random_records_round_trip(example):
    data = example.SerializeToString()
    again = tf.train.Example.FromString(data)
    assert again == example
    assert again.SerializeToString() == data


@settings(max_examples=100, deadline=None)
@given(_examples)
def test_parse_example_reads_back_every_int64_feature(example):
    feats = example.features.feature
    keys = [k for k, f in feats.items() if f.WhichOneof("kind") in ("int64_list", None)]
    out = tf.io.parse_example([example.SerializeToString()],
                              {k: tf.io.RaggedFeature(tf.int64) for k in keys})
    for k in keys:
        assert out[k].to_list() == [list(feats[k].int64_list.value)]


def _mutations():
    flip = st.tuples(st.just("flip"), st.integers(0, 10 ** 6), st.integers(1, 255))
    cut = st.tuples(st.just("cut"), st.integers(0, 10 ** 6), st.just(0))
    insert = st.tuples(st.just("insert"), st.integers(0, 10 ** 6), st.integers(0, 255))
    return st.lists(st.one_of(flip, cut, insert), min_size=1, max_size=4)


def _corrupt(data, mutations):
    data = bytearray(data)
    for kind, where, value in mutations:
        at = where % (len(data) + 1)
        if kind == "flip" and data:
            data[at % len(data)] ^= value
        elif kind == "cut":
            del data[at:]
        elif kind == "insert":
            data[at:at] = bytes([value])
    return bytes(data)


SPEC = {"i": tf.io.VarLenFeature(tf.int64), "f": tf.io.RaggedFeature(tf.float32),
        "s": tf.io.RaggedFeature(tf.string)}


def _check_untrusted(data):
    try:
        tf.train.Example.FromString(data)
    except DataLossError:
        pass
    try:
        out = tf.io.parse_example([data], SPEC)
    except InvalidArgumentError:
        return
    assert set(out) == set(SPEC)
    assert out["i"].dense_shape.numpy()[0] == 1


@settings(max_examples=300, deadline=None)
@given(_examples, _mutations())
def test_corrupted_records_give_a_record_or_a_typed_error(example, mutations):
    _check_untrusted(_corrupt(example.SerializeToString(), mutations))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_give_a_record_or_a_typed_error(data):
    _check_untrusted(data)


def test_hostile_lengths_and_varints_are_refused():
    # a length far past the end, an 11-byte varint, a group wire type, field number 0
    for data in (b"\x0a\xff\xff\xff\xff\x0f", b"\x08" + b"\xff" * 10 + b"\x01", b"\x0b",
                 b"\x00\x01"):
        try:
            tf.train.Example.FromString(data)
        except DataLossError as e:
            assert "malformed protobuf" in str(e)
        else:
            raise AssertionError("accepted %r" % data)
    # a packed float list of 2 bytes (not a multiple of 4)
    entry = b"\n\x01f" + b"\x12\x06" + b"\x12\x04" + b"\n\x02\x00\x00"
    features = b"\n" + bytes([len(entry)]) + entry
    bad = b"\n" + bytes([len(features)]) + features
    try:
        tf.io.parse_example([bad], {"f": tf.io.RaggedFeature(tf.float32)})
    except InvalidArgumentError as e:
        assert "could not parse example input 0" in str(e)
    else:
        raise AssertionError("accepted a malformed float list")
