"""The parts of TensorFlow's sparse-tensor guide beyond fe.sparse's own ops: Keras models
fed SparseTensors, tf.data over SparseTensor components, tf.sparse.reduce_max, and
tf.nn.embedding_lookup_sparse. Expected values were printed by TensorFlow 2.21 (in a
separate process) and written down here."""
import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError
from tests.gradcheck import check_grads


def _guide_sparse():
    return tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def _entries(st):
    """A SparseTensor as the guide's pprint shows it: shape and {index: value}."""
    return (st.dense_shape.numpy().tolist(),
            {tuple(i): v for i, v in zip(st.indices.numpy().tolist(), st.values.numpy().tolist())})


# ---- tf.sparse.reduce_max -----------------------------------------------------------------------

def test_reduce_max_over_the_stored_entries():
    st = tf.sparse.SparseTensor([[0, 0], [0, 2], [2, 1]], [-1.0, -3.0, 2.0], [3, 3])
    assert float(tf.sparse.reduce_max(st)) == 2.0
    # rows without entries are 0 in the dense result (TensorFlow's)
    np.testing.assert_array_equal(tf.sparse.reduce_max(st, axis=1).numpy(), [-1, 0, 2])
    np.testing.assert_array_equal(tf.sparse.reduce_max(st, axis=0, keepdims=True).numpy(),
                                  [[-1, 2, -3]])
    sparse_out = tf.sparse.reduce_max(st, axis=1, output_is_sparse=True)
    assert _entries(sparse_out) == ([3], {(0,): -1.0, (2,): 2.0})
    # the guide: the implicit zero does not count
    assert int(tf.sparse.reduce_max(tf.sparse.from_dense([-5, 0, -3]))) == -3
    empty = tf.sparse.SparseTensor(np.zeros((0, 1), np.int64), np.zeros(0, np.float32), [3])
    assert float(tf.sparse.reduce_max(empty)) == 0.0
    with pytest.raises(InvalidArgumentError, match="axis 2 is out of range"):
        tf.sparse.reduce_max(st, axis=2)


def test_reduce_max_gradient_flows_to_the_maxima():
    indices = [[0, 0], [0, 2], [2, 1], [2, 2]]

    def f(values):
        return tf.sparse.reduce_max(tf.sparse.SparseTensor(indices, values, [3, 3]), axis=1)
    check_grads(f, [np.array([-1.0, -3.0, 2.0, 0.5])])


# ---- tf.nn.embedding_lookup_sparse --------------------------------------------------------------

TABLE = np.arange(12, dtype=np.float32).reshape(6, 2)
IDS = tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 3, 4], tf.int64), [3, 2])
WEIGHTS = tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], [1.0, 2.0, 0.5], [3, 2])
# TensorFlow's results, without and with the weights
TF_COMBINED = {
    "sum": ([[8, 10], [0, 0], [8, 9]], [[14, 17], [0, 0], [4, 4.5]]),
    "mean": ([[4, 5], [0, 0], [8, 9]], [[4.6666665, 5.6666665], [0, 0], [8, 9]]),
    "sqrtn": ([[5.656854, 7.071068], [0, 0], [8, 9]], [[6.26099, 7.602631], [0, 0], [8, 9]]),
}


@pytest.mark.parametrize("combiner", sorted(TF_COMBINED))
def test_embedding_lookup_sparse_as_tensorflow(combiner):
    plain, weighted = TF_COMBINED[combiner]
    got = tf.nn.embedding_lookup_sparse(TABLE, IDS, None, combiner=combiner)
    np.testing.assert_allclose(got.numpy(), plain, rtol=1e-6)
    got = tf.nn.embedding_lookup_sparse(TABLE, IDS, WEIGHTS, combiner=combiner)
    np.testing.assert_allclose(got.numpy(), weighted, rtol=1e-6)


def test_embedding_lookup_sparse_gradients_and_errors():
    for combiner in ("sum", "mean", "sqrtn"):
        check_grads(lambda p: tf.nn.embedding_lookup_sparse(p, IDS, WEIGHTS, combiner=combiner),
                    [TABLE.astype(np.float64)])

    def by_weights(w):
        sp_w = tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], w, [3, 2])
        return tf.nn.embedding_lookup_sparse(TABLE.astype(np.float64), IDS, sp_w,
                                             combiner="sqrtn")
    check_grads(by_weights, [np.array([1.0, 2.0, 0.5])])
    with pytest.raises(InvalidArgumentError, match="combiner must be 'sum', 'mean' or 'sqrtn'"):
        tf.nn.embedding_lookup_sparse(TABLE, IDS, None, combiner="max")
    other = tf.sparse.SparseTensor([[0, 0]], [1.0], [3, 2])
    with pytest.raises(InvalidArgumentError, match="sp_weights must have the indices"):
        tf.nn.embedding_lookup_sparse(TABLE, IDS, other)


# ---- tf.data over SparseTensors -----------------------------------------------------------------

def test_dataset_slices_batches_unbatches_and_maps_sparse_rows():
    dataset = tf.data.Dataset.from_tensor_slices(_guide_sparse())
    assert repr(dataset.element_spec) == "SparseTensorSpec(TensorShape([4]), fe.int32)"
    rows = [_entries(e) for e in dataset]
    assert rows[0] == ([4], {(0,): 1, (1,): 1, (2,): 1})
    assert rows[1] == rows[2] == rows[3] == ([4], {})
    assert rows[4] == ([4], {(3,): 1}) and rows[5] == ([4], {(0,): 1, (1,): 1})
    batched = dataset.batch(2)
    assert [_entries(e) for e in batched] == [
        ([2, 4], {(0, 0): 1, (0, 1): 1, (0, 2): 1}), ([2, 4], {}),
        ([2, 4], {(0, 3): 1, (1, 0): 1, (1, 1): 1})]
    assert [_entries(e) for e in batched.unbatch()] == rows
    doubled = [_entries(e) for e in dataset.map(lambda x: x * 2)]
    assert doubled[5] == ([4], {(0,): 2, (1,): 2})
    # one element at a time (no index gathers) gives the same batches
    kept = dataset.filter(lambda x: True).batch(4)
    assert [_entries(e) for e in kept] == [_entries(e) for e in dataset.batch(4)]


def test_dataset_shuffled_sparse_batches_hold_every_row_once():
    dense = tf.sparse.to_dense(_guide_sparse()).numpy()
    got = np.concatenate([tf.sparse.to_dense(b).numpy()
                          for b in tf.data.Dataset.from_tensor_slices(_guide_sparse())
                          .shuffle(6, seed=3).batch(4)])
    assert sorted(map(tuple, got.tolist())) == sorted(map(tuple, dense.tolist()))


# ---- Keras with sparse inputs -------------------------------------------------------------------

def test_keras_sparse_model_saves_and_loads(tmp_path):
    x = tf.keras.Input(shape=(4,), sparse=True)
    model = tf.keras.Model(x, tf.keras.layers.Dense(2)(x))
    data = tf.sparse.from_dense(tf.eye(4))
    want = model(data).numpy()
    model.save(str(tmp_path / "sparse.keras"))
    loaded = tf.keras.models.load_model(str(tmp_path / "sparse.keras"))
    assert loaded.inputs[0].sparse
    np.testing.assert_array_equal(loaded(data).numpy(), want)


def test_keras_sparse_input_into_dense():
    x = tf.keras.Input(shape=(4,), sparse=True)
    assert x.sparse and not x.ragged
    dense = tf.keras.layers.Dense(4)
    model = tf.keras.Model(x, dense(x))
    data = _guide_sparse()
    out = model(data)
    kernel, bias = dense.kernel.numpy(), dense.bias.numpy()
    want = tf.sparse.to_dense(data).numpy().astype(np.float32) @ kernel + bias
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(out.numpy()[1:4], np.broadcast_to(bias, (3, 4)))
    np.testing.assert_allclose(np.asarray(model.predict(data, batch_size=4, verbose=0)), want,
                               rtol=1e-6)
    assert model.layers[0].get_config()["sparse"] is True


def test_keras_fit_on_sparse_inputs_lowers_the_loss_and_checks_gradients():
    tf.random.set_seed(1)
    x = tf.keras.Input(shape=(4,), sparse=True)
    model = tf.keras.Model(x, tf.keras.layers.Dense(1)(x))
    model.compile(loss="mse", optimizer=tf.keras.optimizers.SGD(0.1))
    data = tf.sparse.SparseTensor(_guide_sparse().indices, np.ones(6, np.float32), [6, 4])
    history = model.fit(data, np.ones((6, 1), np.float32), epochs=5, batch_size=3, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0]

    # Dense on a SparseTensor: gradients in the kernel match finite differences
    idx = [[0, 1], [1, 0], [1, 3]]

    def layer_out(kernel):
        sp = tf.sparse.SparseTensor(idx, tf.constant([2.0, -1.0, 0.5], tf.float64), [2, 4])
        return tf.sparse.sparse_dense_matmul(sp, kernel)
    check_grads(layer_out, [np.random.RandomState(0).normal(size=(4, 3))])


def test_keras_layers_that_do_not_take_sparse_inputs_refuse_them():
    x = tf.keras.Input(shape=(4,), sparse=True)
    model = tf.keras.Model(x, tf.keras.layers.Activation("relu")(x))
    with pytest.raises(ValueError, match="Activation .*does not take a SparseTensor input"):
        model(tf.sparse.from_dense(tf.ones([2, 4])))
    seq = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    assert seq(tf.sparse.from_dense(tf.ones([2, 4]))).shape == (2, 2)


def test_sparse_tensor_spec():
    spec = tf.SparseTensorSpec([None, 3], tf.float32)
    assert repr(spec) == "SparseTensorSpec(TensorShape([None, 3]), fe.float32)"
    assert spec.is_compatible_with(tf.sparse.from_dense(tf.ones([2, 3])))
    assert not spec.is_compatible_with(tf.sparse.from_dense(tf.ones([2, 4])))
