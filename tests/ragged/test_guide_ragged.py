"""The programs of TensorFlow's ragged-tensor guide that need more than fe.ragged itself:
embedding lookups, tf.train.Example records and their parsing, tf.data over ragged
components, DynamicRaggedShape construction and Keras layers fed ragged ids. Expected
values were printed by TensorFlow 2.21 (in a separate process) and written down here."""
import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError, UnimplementedError
from tests.gradcheck import check_grads

TABLE = np.arange(12, dtype=np.float32).reshape(6, 2)


# ---- tf.nn.embedding_lookup -----------------------------------------------------------------

def test_embedding_lookup_dense_ids_keep_their_shape():
    out = tf.nn.embedding_lookup(TABLE, [[0, 5], [2, 2]])
    assert out.shape == (2, 2, 2)
    np.testing.assert_array_equal(out.numpy(), [[[0, 1], [10, 11]], [[4, 5], [4, 5]]])


def test_embedding_lookup_ragged_ids_give_a_ragged_result():
    out = tf.nn.embedding_lookup(TABLE, tf.ragged.constant([[0, 5], [2]]))
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[[0.0, 1.0], [10.0, 11.0]], [[4.0, 5.0]]]


def test_embedding_lookup_shards_and_max_norm_as_tensorflow():
    # a list of tables is TensorFlow 2's "div" partition of one table
    sharded = tf.nn.embedding_lookup([TABLE[:3], TABLE[3:]], [1, 5])
    np.testing.assert_array_equal(sharded.numpy(), [[2, 3], [10, 11]])
    clipped = tf.nn.embedding_lookup(TABLE, [1, 5], max_norm=3.0)
    np.testing.assert_allclose(clipped.numpy(), [[1.6641006, 2.496151],
                                                 [2.0180185, 2.2198203]], rtol=1e-6)


def test_embedding_lookup_bad_ids():
    with pytest.raises(InvalidArgumentError, match="out of range"):
        tf.nn.embedding_lookup(TABLE, [7])
    with pytest.raises(InvalidArgumentError, match="embedding_lookup: ids must be integers"):
        tf.nn.embedding_lookup(TABLE, [1.5])
    with pytest.raises(InvalidArgumentError, match="empty list"):
        tf.nn.embedding_lookup([], [0])


def test_embedding_lookup_gradients():
    ids = tf.constant([[3, 0], [3, 1]])
    check_grads(lambda p: tf.nn.embedding_lookup(p, ids), [TABLE.astype(np.float64)])
    rids = tf.ragged.constant([[2, 2, 0], [5]])
    check_grads(lambda p: tf.nn.embedding_lookup(p, rids).flat_values,
                [TABLE.astype(np.float64)])
    check_grads(lambda p: tf.nn.embedding_lookup(p, [1, 4], max_norm=2.5),
                [TABLE.astype(np.float64) / 3])


def test_embedding_lookup_on_a_variable_trains_only_the_rows_used():
    table = tf.Variable(TABLE)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(table, tf.ragged.constant([[1, 1], [4]])))
    grad = tf.convert_to_tensor(tape.gradient(loss, table)).numpy()
    np.testing.assert_array_equal(grad[:, 0], [0, 2, 0, 0, 1, 0])


def test_guide_word_and_bigram_embeddings():
    queries = tf.ragged.constant([["Who", "is", "Dan", "Smith"], ["Pause"],
                                  ["Will", "it", "rain", "later", "today"]])
    table = np.random.RandomState(3).normal(size=(1024, 4)).astype(np.float32)
    words = tf.strings.to_hash_bucket_fast(queries, 1024)
    word_emb = tf.nn.embedding_lookup(table, words)
    marker = tf.fill([queries.nrows(), 1], "#")
    padded = tf.concat([marker, queries, marker], axis=1)
    bigrams = tf.strings.join([padded[:, :-1], padded[:, 1:]], separator="+")
    assert bigrams.to_list()[1] == [b"#+Pause", b"Pause+#"]
    bigram_emb = tf.nn.embedding_lookup(table, tf.strings.to_hash_bucket_fast(bigrams, 1024))
    avg = tf.reduce_mean(tf.concat([word_emb, bigram_emb], axis=1), axis=1)
    assert avg.shape == (3, 4)
    ids = [w + b for w, b in zip(words.to_list(),
                                 tf.strings.to_hash_bucket_fast(bigrams, 1024).to_list())]
    want = np.stack([table[row].mean(axis=0) for row in ids])
    np.testing.assert_allclose(avg.numpy(), want, rtol=1e-5, atol=1e-6)


# ---- tf.train.Example and tf.io.parse_example ---------------------------------------------------

def _example(**features):
    def feature(v):
        if isinstance(v[0] if v else 0, bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        if v and isinstance(v[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(
        feature={k: feature(v) for k, v in features.items()}))


# TensorFlow's bytes for one record (single features: the map order does not matter)
TF_ONE_INT = b"\n\x0c\n\n\n\x01n\x12\x05\x1a\x03\n\x01\x07"
TF_LENGTHS_EMPTY = b"\n\x0f\n\r\n\x07lengths\x12\x02\x1a\x00"
# TensorFlow serialized {f: [1.5], b: [7, -1, 300], a: [b"red", b"xy"]} in this order
TF_THREE = (b"\n9\n\r\n\x01f\x12\x08\x12\x06\n\x04\x00\x00\xc0?\n\x16\n\x01b\x12\x11\x1a\x0f\n"
            b"\r\x07\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xac\x02\n\x10\n\x01a\x12\x0b\n\t"
            b"\n\x03red\n\x02xy")


def test_example_serializes_as_tensorflow():
    assert _example(n=[7]).SerializeToString() == TF_ONE_INT
    assert _example(lengths=[]).SerializeToString() == TF_LENGTHS_EMPTY
    ordered = _example(f=[1.5], b=[7, -1, 300], a=[b"red", b"xy"])
    assert ordered.SerializeToString() == TF_THREE
    assert tf.train.Example().SerializeToString() == b""


def test_example_reads_tensorflows_bytes_and_prints_its_text_format():
    ex = tf.train.Example.FromString(TF_THREE)
    assert ex == _example(a=[b"red", b"xy"], b=[7, -1, 300], f=[1.5])   # map: any order
    assert ex.features.feature["b"].int64_list.value == [7, -1, 300]
    assert ex.features.feature["a"].WhichOneof("kind") == "bytes_list"
    assert str(_example(n=[7])) == ('features {\n  feature {\n    key: "n"\n    value {\n'
                                    '      int64_list {\n        value: 7\n      }\n    }\n'
                                    '  }\n}\n')
    assert str(tf.train.BytesList(value=[b'a"\n\xff'])) == 'value: "a\\"\\n\\377"\n'


def test_example_reads_unpacked_numbers():
    # proto2-style writers send repeated numbers one key each: varints, fixed32 floats
    unpacked = tf.train.Int64List.FromString(b"\x08\x05\x08\x7f")
    assert unpacked.value == [5, 127]
    floats = tf.train.FloatList.FromString(b"\x0d\x00\x00\xc0\x3f")
    assert floats.value == [1.5]


def test_example_messages_check_their_values():
    with pytest.raises(TypeError, match="Int64List: values must be integers"):
        tf.train.Int64List(value=[1.5])
    with pytest.raises(TypeError, match="FloatList: values must be numbers"):
        tf.train.FloatList(value=["x"])
    with pytest.raises(ValueError, match="only one of bytes_list, float_list and int64_list"):
        tf.train.Feature(bytes_list=tf.train.BytesList(), int64_list=tf.train.Int64List())
    with pytest.raises(TypeError, match="Features: feature 'a' must be a Feature"):
        tf.train.Features(feature={"a": [1]})


def test_text_format_builds_records_as_the_guide_does():
    text_format = pytest.importorskip("google.protobuf.text_format")
    record = text_format.Merge(
        'features { feature {key: "colors" value {bytes_list {value: ["red", "blue"]} } }\n'
        '           feature {key: "lengths" value {int64_list {value: [7]} } } }',
        tf.train.Example())
    # TensorFlow's bytes for the same text
    assert record.SerializeToString() == (
        b"\n+\n\x17\n\x06colors\x12\r\n\x0b\n\x03red\n\x04blue\n\x10\n\x07lengths\x12\x05"
        b"\x1a\x03\n\x01\x07")
    empty = text_format.Merge('features { feature {key: "lengths" value {int64_list '
                              '{value: []} } } }', tf.train.Example())
    assert empty.SerializeToString() == TF_LENGTHS_EMPTY


GUIDE_RECORDS = [_example(colors=[b"red", b"blue"], lengths=[7]),
                 _example(colors=[b"orange"], lengths=[]),
                 _example(colors=[b"black", b"yellow"], lengths=[1, 3]),
                 _example(colors=[b"green"], lengths=[3, 5, 2])]


def _guide_features():
    batch = [r.SerializeToString() for r in GUIDE_RECORDS]
    return tf.io.parse_example(batch, {"colors": tf.io.RaggedFeature(tf.string),
                                       "lengths": tf.io.RaggedFeature(tf.int64)})


def test_parse_example_ragged_features_of_the_guide():
    feats = _guide_features()
    assert list(feats) == ["colors", "lengths"]
    assert str(feats["colors"]) == ("<fe.RaggedTensor [[b'red', b'blue'], [b'orange'], "
                                    "[b'black', b'yellow'], [b'green']]>")
    assert str(feats["lengths"]) == "<fe.RaggedTensor [[7], [], [1, 3], [3, 5, 2]]>"
    assert feats["lengths"].dtype == tf.int64
    assert feats["lengths"].row_splits.dtype == tf.int32     # RaggedFeature's default


def test_parse_example_fixed_and_var_len_features():
    rec = TF_THREE
    spec = {"a": tf.io.RaggedFeature(tf.string), "b": tf.io.VarLenFeature(tf.int64),
            "f": tf.io.FixedLenFeature([1], tf.float32),
            "g": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 1.0])}
    out = tf.io.parse_example([rec, rec], spec)
    assert list(out) == ["b", "f", "g", "a"]         # VarLen, FixedLen, Ragged: TF's order
    assert isinstance(out["b"], tf.SparseTensor)
    np.testing.assert_array_equal(out["b"].dense_shape.numpy(), [2, 3])
    np.testing.assert_array_equal(out["b"].values.numpy(), [7, -1, 300, 7, -1, 300])
    np.testing.assert_array_equal(out["f"].numpy(), [[1.5], [1.5]])
    np.testing.assert_array_equal(out["g"].numpy(), [[0, 1], [0, 1]])
    one = tf.io.parse_single_example(rec, spec)
    np.testing.assert_array_equal(one["b"].indices.numpy(), [[0], [1], [2]])
    assert one["f"].shape == (1,)
    scalar = tf.io.parse_single_example(rec, {"f": tf.io.FixedLenFeature([], tf.float32)})
    assert scalar["f"].shape == () and float(scalar["f"]) == 1.5
    np.testing.assert_array_equal(one["a"].numpy(), [b"red", b"xy"])   # a dense vector


def test_parse_example_errors_name_the_record_and_key():
    spec = {"f": tf.io.FixedLenFeature([1], tf.float32)}
    with pytest.raises(InvalidArgumentError, match="could not parse example input 1"):
        tf.io.parse_example([TF_THREE, b"\xff"], spec)
    with pytest.raises(InvalidArgumentError, match=r"Feature: f \(data type: float\) is "
                                                   "required but could not be found"):
        tf.io.parse_example([b""], spec)
    with pytest.raises(InvalidArgumentError, match="Key: b, Index: 0. Number of int64 values "
                                                   "!= expected. Values size: 3"):
        tf.io.parse_example([TF_THREE], {"b": tf.io.FixedLenFeature([2], tf.int64)})
    with pytest.raises(InvalidArgumentError, match="Data types don't match. Expected type: "
                                                   "float, Actual type: int64"):
        tf.io.parse_example([TF_THREE], {"b": tf.io.RaggedFeature(tf.float32)})
    with pytest.raises(InvalidArgumentError, match="serialized must be a vector"):
        tf.io.parse_example(TF_THREE, spec)
    with pytest.raises(ValueError, match="dtype must be string, float32 or int64"):
        tf.io.VarLenFeature(tf.int32)
    with pytest.raises(UnimplementedError, match="partitions"):
        tf.io.RaggedFeature(tf.int64, partitions=(object(),))


def test_feature_specs_print_as_tensorflow():
    assert repr(tf.io.RaggedFeature(tf.string)) == (
        "RaggedFeature(dtype=fe.string, value_key=None, partitions=(), "
        "row_splits_dtype=fe.int32, validate=False)")
    assert repr(tf.io.FixedLenFeature([1], tf.float32)) == \
        "FixedLenFeature(shape=[1], dtype=fe.float32, default_value=None)"
    assert repr(tf.io.VarLenFeature(tf.int64)) == "VarLenFeature(dtype=fe.int64)"


# ---- tf.data over ragged components -------------------------------------------------------------

def _print_elements(dataset):
    # what the guide's "{}".format(value) shows in TensorFlow: a dense tensor's NumPy value
    return [{k: str(v) if isinstance(v, tf.RaggedTensor) else str(v.numpy())
             for k, v in e.items()} for e in dataset]


def test_dataset_slices_batches_and_unbatches_ragged_features():
    ds = tf.data.Dataset.from_tensor_slices(_guide_features())
    assert repr(ds.element_spec["lengths"]) == \
        "RaggedTensorSpec(TensorShape([None]), fe.int64, 0, fe.int32)"
    rows = _print_elements(ds)
    assert [r["colors"] for r in rows] == ["[b'red' b'blue']", "[b'orange']",
                                           "[b'black' b'yellow']", "[b'green']"]
    assert [r["lengths"] for r in rows] == ["[7]", "[]", "[1 3]", "[3 5 2]"]
    batched = ds.batch(2)
    assert [r["lengths"] for r in _print_elements(batched)] == [
        "<fe.RaggedTensor [[7], []]>", "<fe.RaggedTensor [[1, 3], [3, 5, 2]]>"]
    assert batched.element_spec["colors"].ragged_rank == 1
    assert _print_elements(batched.unbatch()) == rows
    # the generic path (elements one by one, not index gathers) gives the same batches
    kept = ds.filter(lambda e: True)
    assert _print_elements(kept.batch(3)) == _print_elements(ds.batch(3))
    assert _print_elements(kept.batch(3).unbatch()) == rows


def test_dataset_map_returns_ragged_values():
    ds = tf.data.Dataset.from_tensor_slices(_guide_features())
    out = list(ds.map(lambda f: {"mean_length": tf.math.reduce_mean(f["lengths"]),
                                 "length_ranges": tf.ragged.range(f["lengths"])}))
    assert [int(e["mean_length"]) for e in out] == [7, 0, 2, 3]
    assert str(out[2]["length_ranges"]) == "<fe.RaggedTensor [[0], [0, 1, 2]]>"
    assert str(out[1]["length_ranges"]) == "<fe.RaggedTensor []>"


def test_dense_to_ragged_batch_and_ragged_batch():
    ds = tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(tf.range)
    got = [str(e) for e in ds.apply(tf.data.experimental.dense_to_ragged_batch(2))]
    assert got == ["<fe.RaggedTensor [[0], [0, 1, 2, 3, 4]]>",
                   "<fe.RaggedTensor [[0, 1, 2], [0, 1]]>",
                   "<fe.RaggedTensor [[0, 1, 2, 3, 4, 5, 6, 7]]>"]
    dropped = list(ds.ragged_batch(2, drop_remainder=True, row_splits_dtype=tf.int32))
    assert len(dropped) == 2 and dropped[0].row_splits.dtype == tf.int32
    # slices of one array have one shape: they stay dense, as TensorFlow keeps them
    dense = next(iter(tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).ragged_batch(2)))
    assert isinstance(dense, tf.Tensor) and dense.shape == (2, 2)
    with pytest.raises(InvalidArgumentError, match="row_splits_dtype must be int32 or int64"):
        ds.ragged_batch(2, row_splits_dtype=tf.float32)


def test_ragged_range():
    assert tf.ragged.range([3, 0, 2]).to_list() == [[0, 1, 2], [], [0, 1]]
    assert tf.ragged.range([1, 2], [4, 8], [1, 3]).to_list() == [[1, 2, 3], [2, 5]]
    assert tf.ragged.range(tf.constant([3, 1], tf.int64)).dtype == tf.int64
    assert tf.ragged.range(2.5).dtype == tf.float32
    with pytest.raises(InvalidArgumentError, match="deltas must not be zero"):
        tf.ragged.range([1], [2], [0])


# ---- DynamicRaggedShape / RowPartition --------------------------------------------------------

def test_dynamic_ragged_shape_construction():
    rp = tf.experimental.RowPartition.from_row_lengths([5, 3, 2])
    assert repr(rp) == "fe.RowPartition(row_splits=[ 0  5  8 10])"
    assert int(rp.nrows()) == 3 and int(rp.nvals()) == 10
    shape = tf.experimental.DynamicRaggedShape(row_partitions=[rp], inner_shape=[10, 8])
    assert repr(shape) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    np.testing.assert_array_equal(shape.inner_shape.numpy(), [10, 8])
    assert tf.ones(shape).shape.as_list() == [3, None, 8]
    lengths = tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
    assert repr(lengths) == \
        "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"
    assert tf.ones(tf.experimental.DynamicRaggedShape.from_lengths([2, (1, 2)])).to_list() == \
        [[1.0], [1.0, 1.0]]
    with pytest.raises(ValueError, match="Shape not consistent"):
        tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0), 12])
    with pytest.raises(ValueError, match="row partition 0 has 10 values"):
        tf.experimental.DynamicRaggedShape(row_partitions=[rp], inner_shape=[9])


# ---- Keras with ragged ids ----------------------------------------------------------------------

def test_keras_ragged_input_embedding_and_refusing_layers():
    x = tf.keras.Input(shape=[None], dtype=tf.int64, ragged=True)
    assert x.ragged and not x.sparse
    emb = tf.keras.layers.Embedding(10, 3)
    model = tf.keras.Model(x, emb(x))
    ids = tf.ragged.constant([[1, 2], [3]], dtype=tf.int64)
    out = model(ids)
    assert isinstance(out, tf.RaggedTensor)
    table = emb.embeddings.numpy()
    np.testing.assert_allclose(out.flat_values.numpy(), table[[1, 2, 3]])
    lstm_model = tf.keras.Model(x, tf.keras.layers.LSTM(2)(emb(x)))
    # Keras 3 raises ValueError for an LSTM fed ragged values
    with pytest.raises(ValueError, match="LSTM .*does not take a RaggedTensor input"):
        lstm_model(ids)
    with pytest.raises(ValueError, match="sparse=True and ragged=True"):
        tf.keras.Input(shape=(4,), sparse=True, ragged=True)


def test_keras_model_with_an_op_activation_saves_and_loads(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Embedding(20, 4, mask_zero=True),
                                 tf.keras.layers.GlobalAveragePooling1D(),
                                 tf.keras.layers.Dense(3),
                                 tf.keras.layers.Activation(tf.nn.relu),
                                 tf.keras.layers.Dense(1)])
    ids = tf.ragged.constant([[3, 4, 5], [6]]).to_tensor()
    want = model(ids).numpy()
    model.save(str(tmp_path / "m.keras"))
    loaded = tf.keras.models.load_model(str(tmp_path / "m.keras"))
    np.testing.assert_allclose(loaded(ids).numpy(), want, rtol=1e-6)
