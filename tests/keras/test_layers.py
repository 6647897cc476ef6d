"""Keras layers: shapes, lazy build, gradients, tracking, modes, errors."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.keras as keras

L = keras.layers


def test_dense_any_rank_and_names():
    keras.backend.clear_session()
    d = L.Dense(4)
    assert not d.built
    y = d(np.ones((2, 3, 5), np.float64))          # float64 input is autocast to float32
    assert d.built and y.shape == (2, 3, 4) and y.dtype == fe.float32
    # Keras 3: a short name and a path of the scopes it was built under
    assert [v.name for v in d.weights] == ["kernel", "bias"]
    assert [v.path for v in d.weights] == ["dense/kernel", "dense/bias"]
    assert L.Dense(2).name == "dense_1"
    x = np.random.rand(2, 3, 5).astype(np.float32)
    ref = x @ d.kernel.numpy() + d.bias.numpy()
    np.testing.assert_allclose(d(x).numpy(), ref, rtol=1e-5)
    assert d.count_params() == 5 * 4 + 4


def test_dense_gradient_matches_numpy():
    d = L.Dense(3, activation="tanh")
    x = fe.constant(np.random.rand(4, 2).astype(np.float32))
    with fe.GradientTape() as tape:
        loss = fe.reduce_sum(d(x))
    gk, gb = tape.gradient(loss, [d.kernel, d.bias])
    z = x.numpy() @ d.kernel.numpy() + d.bias.numpy()
    dz = 1 - np.tanh(z) ** 2
    np.testing.assert_allclose(gk.numpy(), x.numpy().T @ dz, rtol=1e-5)
    np.testing.assert_allclose(gb.numpy(), dz.sum(0), rtol=1e-5)


def test_dense_bad_input_shape_names_layer_and_shapes():
    d = L.Dense(3, name="head")
    d(np.ones((2, 5), np.float32))
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"head.*\[5, 3\].*\[2, 7\]"):
        d(np.ones((2, 7), np.float32))
    with pytest.raises(ValueError):
        L.Dense(0)


def _conv_ref(x, k, stride, padding):
    kh, kw, cin, cout = k.shape
    n, h, w, _ = x.shape
    if padding == "same":
        oh, ow = -(-h // stride), -(-w // stride)
        ph = max((oh - 1) * stride + kh - h, 0)
        pw = max((ow - 1) * stride + kw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    else:
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.zeros((n, oh, ow, cout))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, k, axes=([1, 2, 3], [0, 1, 2]))
    return out


@pytest.mark.parametrize("padding,stride", [("valid", 1), ("same", 1), ("same", 2)])
def test_conv2d_matches_numpy(padding, stride):
    x = np.random.rand(2, 7, 6, 3).astype(np.float32)
    c = L.Conv2D(4, 3, strides=stride, padding=padding)
    y = c(x)
    ref = _conv_ref(x, c.kernel.numpy(), stride, padding) + c.bias.numpy()
    assert y.shape == ref.shape
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-5)
    with fe.GradientTape() as tape:
        s = fe.reduce_sum(c(x))
    g = tape.gradient(s, c.kernel)
    # d sum / d kernel[a, b, ci, co] = sum of the input patch values at that offset
    assert g.shape == c.kernel.shape and np.all(np.isfinite(g.numpy()))


def test_guide_convnet_shapes_and_pooling():
    model = keras.Sequential([L.Conv2D(16, [3, 3], activation="relu"),
                              L.Conv2D(16, [3, 3], activation="relu"),
                              L.GlobalAveragePooling2D(), L.Dense(10)])
    assert model(np.zeros((1, 28, 28, 1), np.float32)).shape == (1, 10)
    assert len(model.trainable_variables) == 6
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2)
    np.testing.assert_allclose(L.MaxPooling2D()(x).numpy(),
                               x.reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4)))
    np.testing.assert_allclose(L.AveragePooling2D()(x).numpy(),
                               x.reshape(1, 2, 2, 2, 2, 2).mean(axis=(2, 4)))
    np.testing.assert_allclose(L.GlobalMaxPooling2D()(x).numpy(), x.max(axis=(1, 2)))
    assert L.Conv1D(5, 3, padding="same")(np.ones((2, 10, 4), np.float32)).shape == (2, 10, 5)
    assert L.Flatten()(x).shape == (1, 32)
    assert L.Reshape((8, -1))(x).shape == (1, 8, 4)


def test_batchnorm_train_vs_inference_and_moving_stats():
    bn = L.BatchNormalization()
    x = np.random.RandomState(0).normal(3.0, 2.0, size=(64, 5)).astype(np.float32)
    y = bn(x, training=True).numpy()
    np.testing.assert_allclose(y.mean(0), 0, atol=1e-4)
    np.testing.assert_allclose(y.std(0), np.sqrt(x.var(0) / (x.var(0) + 1e-3)), rtol=1e-3)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.01 * x.mean(0), rtol=1e-4)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.99 + 0.01 * x.var(0), rtol=1e-4)
    assert [v.path for v in bn.trainable_weights] == ["batch_normalization/gamma",
                                                      "batch_normalization/beta"]
    assert len(bn.non_trainable_weights) == 2
    before = bn.moving_mean.numpy().copy()
    y_inf = bn(x, training=False).numpy()
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)
    ref = (x - before) / np.sqrt(bn.moving_variance.numpy() + 1e-3)
    np.testing.assert_allclose(y_inf, ref, rtol=1e-4)
    with fe.GradientTape() as tape:
        out = fe.reduce_sum(bn(x, training=True) * np.arange(5, dtype=np.float32))
    gg, gb = tape.gradient(out, [bn.gamma, bn.beta])
    np.testing.assert_allclose(gb.numpy(), 64 * np.arange(5), rtol=1e-5)


def test_layernorm():
    x = np.random.rand(3, 6).astype(np.float32)
    y = L.LayerNormalization()(x).numpy()
    ref = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)


def test_dropout_only_in_training_and_propagated():
    fe.random.set_seed(1)
    x = np.ones((100, 100), np.float32)
    d = L.Dropout(0.5)
    np.testing.assert_array_equal(d(x).numpy(), x)
    y = d(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.4 < (y == 0).mean() < 0.6
    model = keras.Sequential([L.Dense(100, kernel_initializer="ones"), L.Dropout(0.5)])
    out_train = model(x, training=True).numpy()
    out_infer = model(x).numpy()
    assert (out_train == 0).mean() > 0.3 and (out_infer == 0).mean() == 0


def test_embedding_and_activations():
    e = L.Embedding(10, 3)
    out = e(np.array([[1, 2], [3, 9]]))
    assert out.shape == (2, 2, 3)
    np.testing.assert_allclose(out.numpy()[1, 1], e.embeddings.numpy()[9])
    x = np.array([-2.0, 0.5, 8.0], np.float32)
    np.testing.assert_allclose(L.ReLU(max_value=6.0)(x).numpy(), [0, 0.5, 6])
    np.testing.assert_allclose(L.Activation("sigmoid")(x).numpy(), 1 / (1 + np.exp(-x)),
                               rtol=1e-6)
    s = L.Softmax()(np.array([[1.0, 2.0, 3.0]], np.float32)).numpy()
    np.testing.assert_allclose(s.sum(), 1.0, rtol=1e-6)
    for name in ["relu", "sigmoid", "tanh", "softmax", "linear", "elu", "selu", "gelu",
                 "swish", "softplus", "leaky_relu"]:
        assert keras.activations.get(name)(fe.constant([[0.5, -0.5]])).shape == (1, 2)


def test_initializers_reproducible_and_scaled():
    fe.random.set_seed(42)
    a = L.Dense(5)
    a.build((None, 300))
    fe.random.set_seed(42)
    b = L.Dense(5)
    b.build((None, 300))
    np.testing.assert_array_equal(a.kernel.numpy(), b.kernel.numpy())
    limit = np.sqrt(6 / 305)
    assert np.abs(a.kernel.numpy()).max() <= limit
    w = keras.initializers.get("he_normal")([400, 300]).numpy()
    assert abs(w.std() - np.sqrt(2 / 400)) < 0.01
    q = keras.initializers.Orthogonal()([6, 4]).numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-5)
    assert keras.initializers.get("constant").__class__.__name__ == "Constant"
    with pytest.raises(ValueError):
        keras.initializers.get("nope")


def test_regularizers_in_losses():
    d = L.Dense(2, kernel_regularizer=keras.regularizers.l2(0.1),
                bias_regularizer=keras.regularizers.L1(0.5), bias_initializer="ones")
    d(np.ones((1, 3), np.float32))
    k = d.kernel.numpy()
    got = [float(v) for v in d.losses]
    np.testing.assert_allclose(got, [0.1 * (k ** 2).sum(), 0.5 * 2], rtol=1e-5)
    model = keras.Sequential([d])
    assert len(model.losses) == 2


class _Block(L.Layer):
    def __init__(self):
        super().__init__()
        self.inner = [L.Dense(2), {"b": L.Dense(3)}]
        self.scale = fe.Variable(2.0, name="scale")

    def call(self, x, training=None):
        self.seen_training = training
        return self.inner[1]["b"](self.inner[0](x)) * self.scale


def test_tracking_lists_dicts_order_and_training_propagation():
    b = _Block()
    b(np.ones((1, 4), np.float32), training=True)
    names = [v.name for v in b.trainable_variables]
    # a plain fe.Variable attribute keeps TensorFlow's name; layer weights Keras 3's
    assert names == ["scale:0", "kernel", "bias", "kernel", "bias"]
    assert b.seen_training is True
    outer = keras.Sequential([b])
    outer(np.ones((1, 4), np.float32), training=False)
    assert b.seen_training is False
    b.trainable = False
    assert b.trainable_weights == [] and len(b.non_trainable_weights) == 5
    assert len(outer.trainable_variables) == 0


def test_custom_layer_add_weight_and_config():
    class Scale(L.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=[input_shape[-1]], initializer="ones", name="w")

        def call(self, x):
            return x * self.w
    s = Scale(name="scale_it")
    assert s(fe.ones([2, 3])).shape == (2, 3)
    assert s.weights[0].name == "w" and s.weights[0].path == "scale_it/w"
    cfg = L.Dense(7, activation="relu").get_config()
    d2 = L.Dense.from_config({k: v for k, v in cfg.items() if k != "name"})
    assert d2.units == 7


def test_input_builds_sequential_at_once():
    model = keras.Sequential([keras.Input((784,)), L.Dense(10)])
    assert model.built and len(model.weights) == 2
    assert model.layers[0].output_shape == (None, 10)
    m2 = keras.Sequential([L.Dense(4, input_shape=(3,)), L.Dense(2)])
    assert m2.built and m2.count_params() == 3 * 4 + 4 + 4 * 2 + 2


def test_mnist_2017_network():
    import fasteager.contrib.eager as tfe
    tf_layers = fe.layers

    class MNISTModel(tfe.Network):
        def __init__(self):
            super(MNISTModel, self).__init__()
            self.layer1 = self.track_layer(tf_layers.Dense(units=10))
            self.layer2 = self.track_layer(tf_layers.Dense(units=10))

        def call(self, input):
            result = self.layer1(input)
            result = self.layer2(result)
            return result

    model = MNISTModel()
    batch = fe.zeros([1, 1, 784])
    assert batch.shape == (1, 1, 784)
    result = model(batch)
    assert result.shape == (1, 1, 10)
    np.testing.assert_array_equal(result.numpy(), 0)
    assert len(model.trainable_variables) == 4

    def loss_function(model, x, y):
        return fe.reduce_mean(fe.square(model(x) - y))
    grads = fe.implicit_gradients(loss_function)(model, fe.ones([2, 1, 784]),
                                                 fe.ones([2, 1, 10]))
    assert len(grads) == 4
