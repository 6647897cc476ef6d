"""Merging, reshaping and the new convolution layers: values against NumPy, shapes with
unknown dimensions, Keras 3 weight names/shapes and configs, gradients against finite
differences (inputs and weights)."""
import numpy as np
import pytest

import fasteager as fe

L = fe.keras.layers


def check_layer_grads(call, inputs, weights, rtol=1e-5, atol=1e-7, eps=1e-6, seed=0):
    """Compare the tape's gradient of <v, call(*inputs)> with respect to ``inputs`` (float64
    arrays) and ``weights`` (the layer's Variables) with central finite differences."""
    rng = np.random.default_rng(seed)
    ts = [fe.constant(a) for a in inputs]
    with fe.GradientTape() as tape:
        tape.watch(ts)
        out = call(*ts)
    outs = out if isinstance(out, (list, tuple)) else [out]
    vs = [rng.standard_normal(o.shape.as_list()) for o in outs]

    def loss(*xs):
        res = call(*[fe.constant(x) for x in xs])
        res = res if isinstance(res, (list, tuple)) else [res]
        return sum(float(np.sum(np.asarray(r.numpy()) * v)) for r, v in zip(res, vs))
    with fe.GradientTape() as tape:
        tape.watch(ts)
        res = call(*ts)
        res = res if isinstance(res, (list, tuple)) else [res]
        total = fe.add_n([fe.reduce_sum(r * v) for r, v in zip(res, vs)])
    grads = tape.gradient(total, ts + list(weights))
    arrays = [np.array(a, dtype=np.float64) for a in inputs]
    for i, a in enumerate(arrays):
        num = np.zeros_like(a)
        flat, gflat = a.reshape(-1), num.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            hi = loss(*arrays)
            flat[j] = old - eps
            lo = loss(*arrays)
            flat[j] = old
            gflat[j] = (hi - lo) / (2 * eps)
        got = np.zeros_like(a) if grads[i] is None else np.asarray(grads[i].numpy())
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol,
                                   err_msg="gradient of input %d" % i)
    for w, g in zip(weights, grads[len(inputs):]):
        value = np.array(w.numpy(), dtype=np.float64)
        num = np.zeros_like(value)
        flat, gflat = value.reshape(-1), num.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            w.assign(value)
            hi = loss(*arrays)
            flat[j] = old - eps
            w.assign(value)
            lo = loss(*arrays)
            flat[j] = old
            gflat[j] = (hi - lo) / (2 * eps)
        w.assign(value)
        assert g is not None, "no gradient for %s" % w.name
        np.testing.assert_allclose(np.asarray(g.numpy()), num, rtol=rtol, atol=atol,
                                   err_msg="gradient of %s" % w.name)


RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape)


# ---- merging ---------------------------------------------------------------------------------

MERGES = [(L.Add, lambda a, b: a + b), (L.Subtract, lambda a, b: a - b),
          (L.Multiply, lambda a, b: a * b), (L.Average, lambda a, b: (a + b) / 2),
          (L.Maximum, np.maximum), (L.Minimum, np.minimum)]


@pytest.mark.parametrize("cls,ref", MERGES, ids=[c.__name__ for c, _ in MERGES])
def test_elementwise_merges_match_numpy_and_have_gradients(cls, ref):
    a, b = rand(2, 3), rand(2, 3)
    layer = cls(dtype="float64")
    np.testing.assert_allclose(layer([a, b]).numpy(), ref(a, b), rtol=1e-12)
    check_layer_grads(lambda x, y: layer([x, y]), [a, b], [])
    spec = cls()([fe.keras.Input((None, 3)), fe.keras.Input((None, 3))])
    assert spec.shape.as_list() == [None, None, 3]


def test_merges_of_three_and_broadcasting():
    a, b, c = rand(2, 3), rand(2, 3), rand(2, 3)
    np.testing.assert_allclose(L.Add(dtype="float64")([a, b, c]).numpy(), a + b + c)
    np.testing.assert_allclose(L.Average(dtype="float64")([a, b, c]).numpy(), (a + b + c) / 3)
    np.testing.assert_allclose(L.Multiply(dtype="float64")([a, rand(2, 1) * 0 + 2]).numpy(),
                               a * 2)


def test_merge_errors_name_the_layer():
    with pytest.raises(ValueError, match="Add.*list of inputs"):
        L.Add()(fe.ones([2, 3]))
    with pytest.raises(ValueError, match="Subtract.*exactly 2"):
        L.Subtract()([fe.ones([2, 3])] * 3)
    with pytest.raises(ValueError, match="Concatenate.*matching shapes"):
        L.Concatenate()([fe.keras.Input((3, 4)), fe.keras.Input((5, 4))])
    with pytest.raises(ValueError, match="Add.*cannot be merged"):
        L.Add()([fe.keras.Input((3,)), fe.keras.Input((4,))])


def test_concatenate_axes_and_gradients():
    a, b = rand(2, 3, 4), rand(2, 5, 4)
    layer = L.Concatenate(axis=1, dtype="float64")
    np.testing.assert_allclose(layer([a, b]).numpy(), np.concatenate([a, b], 1))
    check_layer_grads(lambda x, y: layer([x, y]), [a, b], [])
    assert L.Concatenate()([fe.keras.Input((None, 2)), fe.keras.Input((None, 3))]) \
        .shape.as_list() == [None, None, 5]
    assert L.Concatenate(axis=-1).get_config()["axis"] == -1


def test_dot_is_keras_batch_dot():
    a, b = rand(4, 3), rand(4, 3)
    np.testing.assert_allclose(L.Dot(axes=1, dtype="float64")([a, b]).numpy(),
                               np.sum(a * b, axis=1, keepdims=True))
    x, y = rand(2, 3, 5), rand(2, 5, 4)
    np.testing.assert_allclose(L.Dot(axes=(2, 1), dtype="float64")([x, y]).numpy(),
                               np.einsum("bij,bjk->bik", x, y), rtol=1e-12)
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    cos = L.Dot(axes=1, normalize=True, dtype="float64")
    np.testing.assert_allclose(cos([a, b]).numpy(), np.sum(an * bn, 1, keepdims=True),
                               rtol=1e-10)
    check_layer_grads(lambda p, q: cos([p, q]), [a, b], [])
    with pytest.raises(ValueError, match="Dot.*incompatib"):
        L.Dot(axes=1)([fe.keras.Input((3,)), fe.keras.Input((4,))])


def test_function_forms():
    a, b = fe.keras.Input((3,)), fe.keras.Input((3,))
    for fn in (L.add, L.subtract, L.multiply, L.average, L.maximum, L.minimum):
        assert fn([a, b]).shape.as_list() == [None, 3]
    assert L.concatenate([a, b]).shape.as_list() == [None, 6]
    assert L.dot([a, b], axes=1).shape.as_list() == [None, 1]


# ---- reshaping -------------------------------------------------------------------------------

def test_permute_and_repeat_vector():
    x = rand(2, 3, 4)
    np.testing.assert_allclose(L.Permute((2, 1), dtype="float64")(x).numpy(),
                               np.transpose(x, (0, 2, 1)))
    v = rand(2, 4)
    np.testing.assert_allclose(L.RepeatVector(3, dtype="float64")(v).numpy(),
                               np.repeat(v[:, None], 3, axis=1))
    assert L.Permute((2, 1))(fe.keras.Input((None, 4))).shape.as_list() == [None, 4, None]
    with pytest.raises(ValueError, match="dims"):
        L.Permute((1, 3))
    check_layer_grads(L.Permute((2, 1), dtype="float64"), [x], [])
    check_layer_grads(L.RepeatVector(2, dtype="float64"), [v], [])


def test_upsampling_padding_cropping():
    x = rand(2, 3, 4, 2)
    up = L.UpSampling2D((2, 3), dtype="float64")
    np.testing.assert_allclose(up(x).numpy(), np.repeat(np.repeat(x, 2, 1), 3, 2))
    pad = L.ZeroPadding2D(((1, 2), (0, 1)), dtype="float64")
    np.testing.assert_allclose(pad(x).numpy(),
                               np.pad(x, [(0, 0), (1, 2), (0, 1), (0, 0)]))
    crop = L.Cropping2D(((1, 0), (1, 2)), dtype="float64")
    np.testing.assert_allclose(crop(x).numpy(), x[:, 1:, 1:2])
    for layer in (up, pad, crop, L.UpSampling2D(interpolation="bilinear", dtype="float64")):
        check_layer_grads(layer, [x], [])
    first = L.ZeroPadding2D(1, data_format="channels_first", dtype="float64")
    np.testing.assert_allclose(first(x).numpy(), np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)]))
    assert L.Cropping2D(1)(fe.keras.Input((None, None, 3))).shape.as_list() == \
        [None, None, None, 3]
    with pytest.raises(fe.errors.InvalidArgumentError, match="Cropping2D.*leaves nothing"):
        L.Cropping2D(2)(fe.zeros([1, 4, 4, 1]))


def test_bilinear_upsampling_uses_half_pixel_centres():
    # TensorFlow's resize_bilinear(half_pixel_centers=True) of [0, 1, 2, 3] to 8 samples
    got = L.UpSampling2D((1, 2), interpolation="bilinear")(
        np.arange(4.0).reshape(1, 1, 4, 1)).numpy().ravel()
    np.testing.assert_allclose(got, [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3])


def test_reshape_and_flatten_with_unknown_dims():
    assert L.Reshape((-1, 2))(fe.keras.Input((None, 4))).shape.as_list() == [None, None, 2]
    assert L.Flatten()(fe.keras.Input((None, 4))).shape.as_list() == [None, None]
    assert L.Flatten()(fe.keras.Input((3, 4))).shape.as_list() == [None, 12]


# ---- convolutions ----------------------------------------------------------------------------

def _conv_transpose_ref(x, w, stride, out_hw):
    """Scatter each input pixel's contribution (w is (kh, kw, out, in)), VALID layout."""
    n, h, wd, _ = x.shape
    kh, kw, cout, _ = w.shape
    full = np.zeros((n, (h - 1) * stride + kh, (wd - 1) * stride + kw, cout))
    for i in range(h):
        for j in range(wd):
            full[:, i * stride:i * stride + kh, j * stride:j * stride + kw] += \
                np.einsum("nc,hwoc->nhwo", x[:, i, j], w)
    return full[:, :out_hw[0], :out_hw[1]]


def test_conv2d_transpose_values_shapes_and_gradients():
    x = rand(2, 3, 3, 2)
    layer = L.Conv2DTranspose(3, 2, strides=2, dtype="float64", bias_initializer="ones")
    y = layer(x)
    assert y.shape.as_list() == [2, 6, 6, 3]
    assert [w.shape.as_list() for w in layer.weights] == [[2, 2, 3, 2], [3]]
    assert [w.name for w in layer.weights] == ["kernel", "bias"]
    np.testing.assert_allclose(y.numpy(), _conv_transpose_ref(x, layer.kernel.numpy(), 2,
                                                              (6, 6)) + 1, rtol=1e-10)
    check_layer_grads(layer, [x], layer.weights)
    same = L.Conv2DTranspose(2, 3, strides=2, padding="same", dtype="float64")
    assert same(x).shape.as_list() == [2, 6, 6, 2]
    assert L.Conv2DTranspose(2, 3, strides=2)(x).shape.as_list() == [2, 7, 7, 2]
    assert L.Conv2DTranspose(2, 3, strides=2, output_padding=1)(x).shape.as_list() == \
        [2, 8, 8, 2]
    assert L.Conv2DTranspose(4, 3)(fe.keras.Input((None, None, 2))).shape.as_list() == \
        [None, None, None, 4]
    config = same.get_config()
    assert config["filters"] == 2 and config["output_padding"] is None
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv2DTranspose(2, 3, strides=2, output_padding=2)


def _depthwise_ref(x, w):
    n, h, wd, c = x.shape
    kh, kw, _, m = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, c, m))
    for i in range(h - kh + 1):
        for j in range(wd - kw + 1):
            out[:, i, j] = np.einsum("nhwc,hwcm->ncm", x[:, i:i + kh, j:j + kw], w)
    return out.reshape(n, h - kh + 1, wd - kw + 1, c * m)


def test_depthwise_conv2d_values_and_gradients():
    x = rand(2, 4, 4, 3)
    layer = L.DepthwiseConv2D(2, depth_multiplier=2, dtype="float64")
    y = layer(x)
    assert [w.shape.as_list() for w in layer.weights] == [[2, 2, 3, 2], [6]]
    assert layer.weights[0].path == layer.name + "/kernel"
    np.testing.assert_allclose(y.numpy(), _depthwise_ref(x, layer.kernel.numpy()), rtol=1e-10)
    check_layer_grads(layer, [x], layer.weights)
    assert layer.get_config()["depth_multiplier"] == 2


def test_separable_conv2d_values_and_gradients():
    x = rand(1, 4, 4, 2)
    layer = L.SeparableConv2D(3, 2, dtype="float64", bias_initializer="ones")
    y = layer(x)
    assert [(w.name, w.shape.as_list()) for w in layer.weights] == [
        ("depthwise_kernel", [2, 2, 2, 1]), ("pointwise_kernel", [1, 1, 2, 3]),
        ("bias", [3])]
    want = np.einsum("nhwc,co->nhwo", _depthwise_ref(x, layer.depthwise_kernel.numpy()),
                     layer.pointwise_kernel.numpy()[0, 0]) + 1
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-10)
    check_layer_grads(layer, [x], layer.weights)
    assert L.SeparableConv2D(4, 3, padding="same")(fe.keras.Input((None, None, 2))) \
        .shape.as_list() == [None, None, None, 4]


def test_layer_configs_round_trip():
    for layer in (L.Permute((2, 1)), L.RepeatVector(4), L.UpSampling2D(3),
                  L.ZeroPadding2D(2), L.Cropping2D(((1, 2), (3, 4))), L.Dot(axes=(1, 2)),
                  L.Conv2DTranspose(2, 3, strides=2, output_padding=1),
                  L.DepthwiseConv2D(3, depth_multiplier=2),
                  L.SeparableConv2D(4, 3, depth_multiplier=2)):
        config = layer.get_config()
        clone = type(layer).from_config(config)
        assert clone.get_config() == config


def test_one_dimensional_upsampling_padding_cropping():
    x = rand(2, 5, 3)
    up = L.UpSampling1D(3, dtype="float64")
    np.testing.assert_allclose(up(x).numpy(), np.repeat(x, 3, axis=1))
    pad = L.ZeroPadding1D((1, 2), dtype="float64")
    np.testing.assert_allclose(pad(x).numpy(), np.pad(x, [(0, 0), (1, 2), (0, 0)]))
    crop = L.Cropping1D((2, 1), dtype="float64")
    np.testing.assert_allclose(crop(x).numpy(), x[:, 2:4])
    for layer in (up, pad, crop):
        check_layer_grads(layer, [x], [])
        assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    assert L.ZeroPadding1D(2)(fe.keras.Input((None, 3))).shape.as_list() == [None, None, 3]
    with pytest.raises(ValueError, match="pair"):
        L.Cropping1D((1, 2, 3))
    with pytest.raises(fe.errors.InvalidArgumentError, match="leaves nothing"):
        L.Cropping1D(3)(fe.zeros([1, 5, 2]))
