"""Saved functions whose signatures hold RaggedTensorSpecs and SparseTensorSpecs: the loaded
function takes any value matching the spec (its None dimensions), as TensorFlow's does
(guide: ragged_tensor.ipynb, "saving a custom model")."""
import numpy as np
import pytest

import fasteager as tf


class CustomModule(tf.Module):
    def __init__(self, variable_value):
        super().__init__()
        self.v = tf.Variable(variable_value)

    @tf.function
    def grow(self, x):
        return x * self.v


def _round_trip(module, tmp_path):
    tf.saved_model.save(module, str(tmp_path))
    return tf.saved_model.load(str(tmp_path))


def test_guide_ragged_concrete_function_saved_for_every_shape(tmp_path):
    module = CustomModule(100.0)
    module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None],
                                                          dtype=tf.float32))
    imported = _round_trip(module, tmp_path)
    out = imported.grow(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[100.0, 400.0, 300.0], [200.0]]
    assert str(out) == "<fe.RaggedTensor [[100.0, 400.0, 300.0], [200.0]]>"
    out = imported.grow(tf.ragged.constant([[1.0], [], [2.0, 3.0, 4.0, 5.0], [6.0]]))
    assert out.to_list() == [[100.0], [], [200.0, 300.0, 400.0, 500.0], [600.0]]


def test_ragged_input_signature_round_trip_and_gradient(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(2.0)

        @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None, 2],
                                                          dtype=tf.float32,
                                                          ragged_rank=1)])
        def scale(self, x):
            return tf.reduce_sum(x.flat_values * self.v), x * self.v + 1.0

    m = M()
    imported = _round_trip(m, tmp_path)
    for rows in ([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]],
                 [[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]],
                 [[], [[1.0, -1.0]], [[0.5, 0.5]]]):
        x = tf.ragged.constant(rows, ragged_rank=1)
        total, scaled = imported.scale(x)
        want_total, want_scaled = m.scale(x)
        np.testing.assert_allclose(total.numpy(), want_total.numpy())
        assert scaled.to_list() == want_scaled.to_list()
    x = tf.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], ragged_rank=1)
    with tf.GradientTape() as tape:
        total, _ = imported.scale(x)
    np.testing.assert_allclose(tape.gradient(total, imported.v).numpy(), 21.0)
    with pytest.raises(TypeError):
        imported.scale(tf.constant([[1.0, 2.0]]))        # not a ragged tensor
    with pytest.raises(TypeError):                       # another ragged rank
        imported.scale(tf.ragged.constant([[[1.0, 2.0]], [[3.0], [4.0, 5.0]]]))


def test_two_ragged_dimensions_round_trip(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None, None],
                                                          dtype=tf.float32,
                                                          ragged_rank=2)])
        def double(self, x):
            return x * 2.0

    imported = _round_trip(M(), tmp_path)
    x = tf.ragged.constant([[[1.0], [2.0, 3.0]], [], [[4.0, 5.0, 6.0]]])
    assert imported.double(x).to_list() == [[[2.0], [4.0, 6.0]], [], [[8.0, 10.0, 12.0]]]


def test_sparse_input_signature_round_trip(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(10.0)

        @tf.function(input_signature=[tf.SparseTensorSpec(shape=[None, 4],
                                                          dtype=tf.float32)])
        def total(self, x):
            return tf.reduce_sum(x.values) * self.v, x.indices, x.dense_shape

    imported = _round_trip(M(), tmp_path)
    for indices, values, shape in (([[0, 1], [2, 3]], [1.0, 2.0], [3, 4]),
                                   ([[1, 0], [1, 2], [4, 3], [6, 0]], [1.0, 2.0, 3.0, 4.0],
                                    [7, 4])):
        total, idx, dense = imported.total(tf.sparse.SparseTensor(indices, values, shape))
        np.testing.assert_allclose(total.numpy(), 10.0 * sum(values))
        assert idx.numpy().tolist() == indices and dense.numpy().tolist() == shape


def test_sparse_concrete_function_saved_for_every_size(tmp_path):
    class M(tf.Module):
        @tf.function
        def values(self, x):
            return x.values + 1.0

    m = M()
    m.values.get_concrete_function(tf.SparseTensorSpec(shape=[None, 3], dtype=tf.float32))
    imported = _round_trip(m, tmp_path)
    x = tf.sparse.SparseTensor([[0, 0], [1, 2], [5, 1]], [1.0, 2.0, 3.0], [6, 3])
    np.testing.assert_allclose(imported.values(x).numpy(), [2.0, 3.0, 4.0])


def test_a_function_receives_the_parts_it_was_traced_with():
    # the SparseTensor constructor wraps its indices anew: the trace's inputs must be
    # those (a replay with other indices used to return the first call's)
    @tf.function
    def parts(st):
        return st.indices, st.values * 2.0

    a = tf.sparse.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
    b = tf.sparse.SparseTensor([[1, 0], [2, 2]], [5.0, 6.0], [3, 4])
    assert parts(a)[0].numpy().tolist() == [[0, 1], [2, 3]]
    idx, vals = parts(b)
    assert idx.numpy().tolist() == [[1, 0], [2, 2]]
    np.testing.assert_allclose(vals.numpy(), [10.0, 12.0])


def test_a_module_with_one_signed_function_gets_serving_default(tmp_path):
    # TF 2.21's rule when signatures= is omitted: the root's one fe.function with an
    # input_signature becomes "serving_default" (outputs keyed output_0, as TF)
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            return x * self.w

    tf.saved_model.save(Scale(), str(tmp_path / "one"))
    loaded = tf.saved_model.load(str(tmp_path / "one"))
    assert list(loaded.signatures) == ["serving_default"]
    out = loaded.signatures["serving_default"](tf.constant([1.0, 3.0]))
    np.testing.assert_allclose(out["output_0"].numpy(), [2.0, 6.0])

    class Two(Scale):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def other(self, x):
            return x

    tf.saved_model.save(Two(), str(tmp_path / "two"))     # two candidates: none chosen
    assert list(tf.saved_model.load(str(tmp_path / "two")).signatures) == []
