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
