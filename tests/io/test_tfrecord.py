"""fe.io.TFRecordWriter and fe.data.TFRecordDataset: TensorFlow's file bytes (printed by
TensorFlow 2.21 in a separate process), compression, corruption, and the usual pipeline of
serialized Examples parsed in Dataset.map."""
import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import DataLossError, InvalidArgumentError, NotFoundError

# TensorFlow's file for the records b"abc" and b""
TF_FILE = (b"\x03\x00\x00\x00\x00\x00\x00\x00\xb0\x99I\x0eabcnW\xf1!\x00\x00\x00\x00\x00\x00"
           b"\x00\x00)\x03\x98\x07\xd8\xea\x82\xa2")


def test_writer_writes_tensorflows_bytes(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        writer.write(b"abc")
        writer.write(tf.constant(""))           # a scalar string tensor
    assert open(path, "rb").read() == TF_FILE
    with pytest.raises(InvalidArgumentError, match="the writer is closed"):
        writer.write(b"x")


@pytest.mark.parametrize("kind", [None, "GZIP", "ZLIB"])
def test_records_round_trip(tmp_path, kind):
    path = str(tmp_path / "r.tfrecord")
    records = [bytes([i]) * i for i in range(5)]
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(kind)) as writer:
        for r in records:
            writer.write(r)
    got = [e.numpy() for e in tf.data.TFRecordDataset(path, compression_type=kind)]
    assert got == records
    assert tf.data.TFRecordDataset([path, path]).element_spec.dtype == tf.string


def test_damaged_files_raise_data_loss(tmp_path):
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(TF_FILE[:-3])
    with pytest.raises(DataLossError, match="bad.tfrecord: tfrecord: truncated record"):
        list(tf.data.TFRecordDataset(str(path)))
    flipped = bytearray(TF_FILE)
    flipped[13] ^= 1                            # a byte of the first record's data
    path.write_bytes(bytes(flipped))
    with pytest.raises(DataLossError, match="data CRC mismatch"):
        list(tf.data.TFRecordDataset(str(path)))
    with pytest.raises(NotFoundError, match="TFRecordDataset: .*missing.tfrecord not found"):
        list(tf.data.TFRecordDataset(str(tmp_path / "missing.tfrecord")))
    with pytest.raises(InvalidArgumentError, match="compression_type must be"):
        tf.io.TFRecordOptions("BZIP2")


def test_parsing_examples_in_a_pipeline(tmp_path):
    path = str(tmp_path / "ex.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(4):
            feature = {"n": tf.train.Feature(int64_list=tf.train.Int64List(value=range(i))),
                       "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 2]))}
            writer.write(tf.train.Example(features=tf.train.Features(feature=feature))
                         .SerializeToString())
    spec = {"n": tf.io.VarLenFeature(tf.int64), "x": tf.io.FixedLenFeature([], tf.float32)}
    ds = tf.data.TFRecordDataset(path).map(lambda s: tf.io.parse_single_example(s, spec))
    batch = next(iter(ds.batch(4)))
    np.testing.assert_array_equal(batch["x"].numpy(), [0, 0.5, 1, 1.5])
    np.testing.assert_array_equal(batch["n"].dense_shape.numpy(), [4, 3])
    np.testing.assert_array_equal(tf.sparse.to_dense(batch["n"]).numpy(),
                                  [[0, 0, 0], [0, 0, 0], [0, 1, 0], [0, 1, 2]])
    ragged = tf.data.TFRecordDataset(path).batch(4).map(
        lambda s: tf.io.parse_example(s, {"n": tf.io.RaggedFeature(tf.int64)}))
    assert next(iter(ragged))["n"].to_list() == [[], [0], [0, 1], [0, 1, 2]]


# ---- hostile files: lengths, compression bombs, TensorFlow's stream rules ------------------

def _frame(data, length=None):
    """One TFRecord with valid CRCs; ``length`` overrides the length field (its CRC still
    right), so the record claims more data than it has."""
    import struct

    from fasteager._src.io.tfrecord import masked_crc32c
    header = struct.pack("<Q", len(data) if length is None else length)
    return (header + struct.pack("<I", masked_crc32c(header)) + data
            + struct.pack("<I", masked_crc32c(data)))


@pytest.mark.parametrize("length", [2 ** 40, 2 ** 63, 2 ** 64 - 1])
def test_a_length_past_the_end_is_data_loss_naming_file_and_offset(tmp_path, length):
    # TensorFlow itself crashes on 2**40 and raises InvalidArgumentError on 2**63
    path = tmp_path / "long.tfrecord"
    path.write_bytes(_frame(b"abc") + _frame(b"xyz", length))
    ds = iter(tf.data.TFRecordDataset(str(path)))
    assert next(ds).numpy() == b"abc"
    with pytest.raises(DataLossError, match=r"long.tfrecord: .*truncated record at offset 19 "
                                            r"\(its length field says %d" % length):
        next(ds)


_LINES = b"0123456789abcde\n"


def _zlib_bomb(path, records, record_size):
    """A ZLIB TFRecord file of ``records`` records of ``record_size`` bytes (short text
    lines), written
    without ever holding them: one record deflated once after a full flush (no reference
    to earlier data), its bytes repeated; the stream ends without its trailer (a stream
    cut short, which TensorFlow reads up to where it ends)."""
    import zlib
    deflate = zlib.compressobj(9)
    head = deflate.compress(b"")
    block = deflate.compress(_frame(_LINES * (record_size // len(_LINES)))) + \
        deflate.flush(zlib.Z_FULL_FLUSH)
    with open(path, "wb") as f:
        f.write(head)
        for _ in range(records):
            f.write(block)
    return len(head) + records * len(block)


def _bomb_case(rng):
    def thunk():
        import os
        import tempfile
        import zlib
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bomb.tfrecord")
            size = _zlib_bomb(path, 3000, 1 << 20)       # 3 GB of records in about 3 MB
            assert size < 8 << 20, size
            got = [r.numpy() for r in tf.data.TFRecordDataset(
                path, compression_type="ZLIB").take(3)]
            assert got == [_LINES * ((1 << 20) // len(_LINES))] * 3
            lines = [t.numpy() for t in tf.data.TextLineDataset(
                path, compression_type="ZLIB").skip(1).take(2)]
            assert lines == [_LINES[:-1]] * 2
            # and CSV: 3 GB of "1,2" lines
            deflate = zlib.compressobj(9)
            with open(path, "wb") as f:
                f.write(deflate.compress(b""))
                block = deflate.compress(b"1,2\n" * (1 << 18)) + deflate.flush(
                    zlib.Z_FULL_FLUSH)
                for _ in range(3000):
                    f.write(block)
            rows = tf.data.experimental.CsvDataset(path, [0, 0], compression_type="ZLIB")
            assert [[int(v) for v in r] for r in rows.take(2)] == [[1, 2], [1, 2]]
    return "3 GB of ZLIB records", thunk


CHILD_TARGETS = {"zlib_bomb": _bomb_case}


def test_compressed_records_stream_instead_of_inflating_the_whole_file():
    # in a child with 2 GB of address space: inflating the whole file first (the old
    # reader) runs out of memory before the first record
    from tests.fuzz._support import run_in_child
    assert run_in_child("tests.io.test_tfrecord", "zlib_bomb", 0, 1, timeout=120,
                        memory_mb=2048) == 1


def test_compressed_streams_follow_tensorflows_rules(tmp_path):
    import gzip
    import zlib
    data = _frame(b"abc") + _frame(b"defg")

    def read(content, kind):
        path = tmp_path / "c.tfrecord"
        path.write_bytes(content)
        return [r.numpy() for r in tf.data.TFRecordDataset(str(path), compression_type=kind)]
    # (each case checked against TensorFlow 2.21)
    assert read(zlib.compress(data)[:-3], "ZLIB") == [b"abc", b"defg"]     # no checksum
    assert read(zlib.compress(data) + b"junk", "ZLIB") == [b"abc", b"defg"]
    assert read(b"", "ZLIB") == [] and read(b"", "GZIP") == []
    assert read(gzip.compress(data[:15]) + gzip.compress(data[15:]), "GZIP") == \
        [b"abc", b"defg"]                                    # members follow each other
    assert read(gzip.compress(data)[:-3], "GZIP") == [b"abc", b"defg"]
    with pytest.raises(DataLossError, match="c.tfrecord: not GZIP data"):
        read(gzip.compress(data) + b"junk", "GZIP")
    with pytest.raises(DataLossError, match="c.tfrecord: not ZLIB data"):
        read(b"hello", "ZLIB")
    with pytest.raises(DataLossError, match="truncated record at offset 19"):
        read(zlib.compress(data)[:-12], "ZLIB")


def test_text_lines_drop_every_carriage_return(tmp_path):
    # TensorFlow's ReadLine: lines end at "\n"; a "\r" anywhere is dropped
    path = tmp_path / "t.txt"
    path.write_bytes(b"a\nb\r\nc\r\n\nx\ry\r")
    assert [t.numpy() for t in tf.data.TextLineDataset(str(path))] == \
        [b"a", b"b", b"c", b"", b"xy"]


def test_an_empty_feature_is_a_missing_feature():
    # TensorFlow 2.21: Feature{} takes FixedLenFeature's default, is required without one,
    # and gives no values to VarLen and Ragged features
    record = tf.train.Example(features=tf.train.Features(
        feature={"a": tf.train.Feature()})).SerializeToString()
    assert record == b"\n\x07\n\x05\n\x01a\x12\x00"
    got = tf.io.parse_single_example(record, {
        "a": tf.io.FixedLenFeature([], tf.int64, default_value=5)})
    assert got["a"].numpy() == 5 and got["a"].dtype == tf.int64
    got = tf.io.parse_single_example(record, {
        "a": tf.io.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0])})
    np.testing.assert_array_equal(got["a"].numpy(), [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="a .*is required but could not be found"):
        tf.io.parse_single_example(record, {"a": tf.io.FixedLenFeature([0], tf.float32)})
    assert tf.io.parse_single_example(record, {"a": tf.io.VarLenFeature(tf.int64)})[
        "a"].values.numpy().tolist() == []
    assert tf.io.parse_single_example(record, {"a": tf.io.RaggedFeature(tf.string)})[
        "a"].numpy().tolist() == []
    batch = tf.io.parse_example([record, record], {
        "a": tf.io.FixedLenFeature([], tf.int64, default_value=5)})
    assert batch["a"].numpy().tolist() == [5, 5]


def test_bytes_list_takes_bytes_only_when_values_are_added():
    # protobuf's repeated bytes field: TypeError at once, whichever way the value comes in
    for bad, name in (("s", "str"), (bytearray(b"x"), "bytearray"), (1, "int"),
                      (np.str_("x"), "numpy.str_")):
        with pytest.raises(TypeError, match="^expected bytes, %s found$" % name):
            tf.train.BytesList(value=[bad])
    listed = tf.train.BytesList(value=[b"a", np.bytes_(b"b")])
    with pytest.raises(TypeError, match="expected bytes, str found"):
        listed.value.append("c")
    with pytest.raises(TypeError, match="expected bytes, str found"):
        listed.value.extend([b"d", "e"])
    with pytest.raises(TypeError, match="expected bytes, str found"):
        listed.value[0] = "f"
    assert listed.value == [b"a", b"b"] and listed.SerializeToString() == b"\n\x01a\n\x01b"


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_compressed_lines_read_back_whole_across_members_and_pieces(tmp_path, kind):
    # long compressible runs (zlib holds output back between reads) and, for GZIP, two
    # members cut mid-line: the lines come back exactly, nothing repeated or lost
    import gzip
    import zlib
    lines = [(b"%d," % i) * (i % 50) + b"x" * (i * 37 % 9000) for i in range(3000)]
    raw = b"\n".join(lines)
    cut = len(raw) // 3 + 5
    content = (gzip.compress(raw[:cut]) + gzip.compress(raw[cut:]) if kind == "GZIP"
               else zlib.compress(raw))
    path = tmp_path / "lines.txt"
    path.write_bytes(content)
    got = [t.numpy() for t in tf.data.TextLineDataset(str(path), compression_type=kind)]
    assert got == lines


def test_parsing_in_a_traced_function_parses_each_calls_records():
    # the parse is not a graph step: the function runs eagerly (with fe.function's
    # warning) instead of returning the first call's values again
    def record(n):
        return tf.train.Example(features=tf.train.Features(feature={"a": tf.train.Feature(
            int64_list=tf.train.Int64List(value=[n]))})).SerializeToString()
    spec = {"a": tf.io.FixedLenFeature([], tf.int64)}

    @tf.function
    def parse(serialized):
        return tf.io.parse_example(serialized, spec)["a"] + 1

    with pytest.warns(UserWarning, match="records parse_example parses"):
        assert parse(tf.constant([record(1)])).numpy().tolist() == [2]
    assert parse(tf.constant([record(5)])).numpy().tolist() == [6]
