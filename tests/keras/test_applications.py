"""keras.applications.MobileNet and imagenet_utils: Keras 3's architecture, names and
weight count, argument checks, the ImageNet weight download (offline: get_file's error;
cached: Keras's legacy HDF5 layout loaded layer by layer), local weight files,
preprocess_input / decode_predictions, the saved_model guide's flow (a generated image
and weights=None, kept small: alpha=0.25 at 128x128, batch 1), MobileNetV2, and (slow, when
TensorFlow and Keras 3 are installed) the outputs of both against Keras's own on the same
Keras weight files."""
import urllib.error
import urllib.request

import numpy as np
import pytest

import fasteager as fe
from fasteager.keras.applications._weights import load_application_weights

applications = fe.keras.applications
imagenet_utils = applications.imagenet_utils
mobilenet = applications.mobilenet


def _small(**kwargs):
    kwargs.setdefault("weights", None)
    return applications.MobileNet(alpha=0.25, input_shape=(128, 128, 3), **kwargs)


def _image(seed=0, size=128):
    return np.random.default_rng(seed).uniform(0, 255, (1, size, size, 3)).astype(np.float32)


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No network, and an empty Keras cache: every download fails as offline."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    requested = []

    def fail(url, *args, **kwargs):
        requested.append(url)
        raise urllib.error.URLError(OSError(-2, "Name or service not known"))
    monkeypatch.setattr(urllib.request, "urlopen", fail)
    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX", None)
    return requested


def test_default_architecture_matches_keras():
    fe.keras.backend.clear_session()          # automatic names count from zero again
    model = applications.MobileNet(weights=None)
    assert model.name == "mobilenet_1.00_224"
    assert model.count_params() == 4253864
    assert len(model.trainable_variables) == 83 and len(model.variables) == 137
    names = [layer.name for layer in model.layers]
    assert names[:10] == ["input_layer", "conv1", "conv1_bn", "conv1_relu", "conv_dw_1",
                          "conv_dw_1_bn", "conv_dw_1_relu", "conv_pw_1", "conv_pw_1_bn",
                          "conv_pw_1_relu"]
    assert names[10:12] == ["conv_pad_2", "conv_dw_2"]
    assert [n for n in names if n.startswith("conv_pad")] == \
        ["conv_pad_2", "conv_pad_4", "conv_pad_6", "conv_pad_12"]
    assert names[-6:] == ["conv_pw_13_relu", "global_average_pooling2d", "dropout",
                          "conv_preds", "reshape_2", "predictions"]
    assert model.input_shape == (None, 224, 224, 3) and model.output_shape == (None, 1000)
    assert model.output_names == ["predictions"]
    layer = model.get_layer("conv_dw_2")
    assert isinstance(layer, fe.keras.layers.DepthwiseConv2D)
    assert layer.padding == "valid" and layer.strides == (2, 2) and not layer.use_bias
    assert model.get_layer("conv1_relu").max_value == 6.0
    assert model.get_layer("global_average_pooling2d").keepdims
    assert model.get_layer("dropout").rate == 1e-3


def test_small_model_runs_and_its_softmax_sums_to_one():
    model = _small()
    assert model.name == "mobilenet_0.25_128"
    assert model.count_params() == 475544
    assert model.get_layer("conv1").filters == 8 and model.get_layer("conv_pw_13").filters == 256
    y = model(mobilenet.preprocess_input(_image()))
    assert y.shape == (1, 1000) and y.dtype == fe.float32
    np.testing.assert_allclose(fe.reduce_sum(y, axis=-1).numpy(), [1.0], rtol=1e-5)
    logits = _small(classes=10, classifier_activation=None)(_image())
    assert logits.shape == (1, 10) and float(fe.reduce_min(logits)) < 0   # not a softmax


def test_the_model_trains():
    model = _small(classes=3)
    x = mobilenet.preprocess_input(_image())
    with fe.GradientTape() as tape:
        loss = fe.reduce_sum(model(x, training=True) * [1.0, 0.0, -1.0])
    grads = tape.gradient(loss, model.trainable_variables)
    assert len(grads) == 83 and all(g is not None for g in grads)
    assert all(np.all(np.isfinite(g.numpy())) for g in grads)


def test_feature_extractor_pooling_and_any_image_size():
    features = applications.MobileNet(weights=None, alpha=0.25, include_top=False)
    assert features.input_shape == (None, None, None, 3)
    assert features(_image(size=64)).shape == (1, 2, 2, 256)
    avg = applications.MobileNet(weights=None, alpha=0.25, include_top=False, pooling="avg",
                                 input_shape=(64, 64, 3))
    assert avg.output_shape == (None, 256) and avg.name == "mobilenet_0.25_64"
    top = applications.MobileNet(weights=None, alpha=0.25, include_top=False, pooling="max",
                                 input_shape=(64, 64, 3))
    assert top(_image(size=64)).shape == (1, 256)


def test_input_tensor_and_name():
    inp = fe.keras.Input((32, 32, 3))
    model = applications.MobileNet(weights=None, alpha=0.25, include_top=False,
                                   input_tensor=inp, name="features")
    assert model.name == "features" and model.inputs[0] is inp
    # an input_tensor computed from an Input: the model starts at that Input
    raw = fe.keras.Input((32, 32, 3))
    scaled = fe.keras.layers.Activation("linear")(raw)
    model = applications.MobileNet(weights=None, alpha=0.25, include_top=False,
                                   input_tensor=scaled)
    assert model.inputs[0] is raw


@pytest.mark.parametrize("kwargs, message", [
    (dict(weights="no/such/file.h5"), "The `weights` argument should be either `None`"),
    (dict(weights="imagenet", classes=10), "`classes` should be 1000.  Received classes=10"),
    (dict(weights="imagenet", alpha=0.3), r"alpha can be one of`0.25`, `0.50`, `0.75` or "
                                          r"`1.0` only.  Received alpha=0.3"),
    (dict(weights="imagenet", depth_multiplier=2), "depth multiplier must be 1"),
    (dict(weights="imagenet", input_shape=(160, 128, 3)),
     r"`input_shape` should be \(224, 224, 3\)"),
    (dict(weights=None, input_shape=(16, 16, 3)), "Input size must be at least 32x32"),
    (dict(weights=None, input_shape=(64, 64)), "must be a tuple of three integers"),
    (dict(weights=None, input_shape=(None, None, 3)), "you should specify a static"),
    (dict(weights="imagenet", include_top=False, input_shape=(64, 64, 1)),
     "The input must have 3 channels"),
    (dict(weights="imagenet", alpha=0.25, input_shape=(128, 128, 3),
          classifier_activation="relu"), "Only `None` and `softmax` activations are allowed"),
])
def test_bad_arguments_raise_keras_value_errors(kwargs, message, offline):
    with pytest.raises(ValueError, match=message):
        applications.MobileNet(**kwargs)
    assert offline == []               # rejected before any download


def test_other_channel_counts_warn_without_imagenet_weights():
    with pytest.warns(UserWarning, match="with 4 input channels"):
        model = applications.MobileNet(weights=None, alpha=0.25, include_top=False,
                                       input_shape=(32, 32, 4))
    assert model.input_shape == (None, 32, 32, 4)
    gray = applications.MobileNet(weights=None, alpha=0.25, include_top=False,
                                  input_shape=(32, 32, 1))     # 1 or 3 channels: no warning
    assert gray.input_shape == (None, 32, 32, 1)


def test_imagenet_weights_offline_fail_with_get_files_error(offline):
    with pytest.raises(Exception, match=r"URL fetch failure on https://storage.googleapis.com"
                                         r"/tensorflow/keras-applications/mobilenet/"
                                         r"mobilenet_2_5_128_tf.h5"):
        _small(weights="imagenet")
    with pytest.raises(Exception, match="mobilenet_5_0_160_tf_no_top.h5"):
        applications.MobileNet(alpha=0.5, include_top=False, input_shape=(160, 160, 3))
    # a non-square input: Keras warns and takes the 224 weights
    with pytest.warns(UserWarning, match="Weights for input shape \\(224, 224\\)"), \
            pytest.raises(Exception, match="mobilenet_2_5_224_tf_no_top.h5"):
        applications.MobileNet(alpha=0.25, include_top=False, input_shape=(96, 128, 3))


def _write_keras_h5(model, path):
    """``model``'s weights in Keras's legacy HDF5 layout (as Keras's application files)."""
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = [layer.name.encode() for layer in model.layers]
        f.attrs["backend"] = b"tensorflow"
        f.attrs["keras_version"] = b"2.1.6"
        for layer in model.layers:
            group = f.create_group(layer.name)
            weights = list(layer.trainable_weights) + list(layer.non_trainable_weights)
            names = [("%s/%s:0" % (layer.name, w.name)).encode() for w in weights]
            group.attrs["weight_names"] = names
            for name, w in zip(names, weights):
                group.create_dataset(name, data=w.numpy())


def test_cached_imagenet_weights_load_in_keras_layout(offline, tmp_path, monkeypatch):
    source = _small(classes=1000)
    for v in source.variables:      # distinct values everywhere (BN statistics included)
        v.assign(np.random.default_rng(len(v.name)).uniform(0.5, 1.0, v.shape.as_list())
                 .astype(np.float32))
    cache = tmp_path / "keras" / "models"
    cache.mkdir(parents=True, exist_ok=True)
    _write_keras_h5(source, cache / "mobilenet_2_5_128_tf.h5")
    model = _small(weights="imagenet")
    assert offline == []                                  # found in the cache
    for a, b in zip(source.variables, model.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    x = mobilenet.preprocess_input(_image())
    np.testing.assert_allclose(model(x).numpy(), source(x).numpy(), rtol=1e-5, atol=1e-7)
    # the same file given as a path
    again = _small(weights=str(cache / "mobilenet_2_5_128_tf.h5"))
    np.testing.assert_array_equal(again.get_layer("conv_preds").kernel.numpy(),
                                  source.get_layer("conv_preds").kernel.numpy())


def test_keras_h5_mismatches_raise_and_assign_nothing(tmp_path):
    path = tmp_path / "w.h5"
    _write_keras_h5(_small(), path)
    features = applications.MobileNet(weights=None, alpha=0.25, include_top=False,
                                      input_shape=(128, 128, 3))
    with pytest.raises(ValueError, match="Layer count mismatch when loading weights from file. "
                                         "Model expected 54 layers, found 55 saved layers."):
        load_application_weights(features, path)
    wider = applications.MobileNet(weights=None, alpha=0.5, input_shape=(128, 128, 3))
    before = [v.numpy().copy() for v in wider.variables]
    with pytest.raises(ValueError, match=r"Shape mismatch in layer #0 \(named conv1\) for "
                                         r"weight conv1/kernel"):
        load_application_weights(wider, path)
    for b, v in zip(before, wider.variables):
        np.testing.assert_array_equal(b, v.numpy())


def test_weights_from_a_fasteager_weights_file(tmp_path):
    source = _small(classes=5)
    path = tmp_path / "mobilenet.weights.safetensors"
    source.save_weights(path)
    model = _small(classes=5, weights=str(path))
    x = _image()
    np.testing.assert_allclose(model(x).numpy(), source(x).numpy(), rtol=1e-6)
    pytest.importorskip("h5py")       # fasteager's own HDF5 layout goes to load_weights too
    h5 = tmp_path / "mobilenet.weights.h5"
    source.save_weights(h5)
    np.testing.assert_allclose(_small(classes=5, weights=str(h5))(x).numpy(),
                               source(x).numpy(), rtol=1e-6)


def test_preprocess_input_modes():
    x = _image(size=4)
    tf_mode = mobilenet.preprocess_input(x.copy())
    np.testing.assert_allclose(tf_mode, x / 127.5 - 1.0, rtol=1e-6)
    inplace = x.copy()
    assert mobilenet.preprocess_input(inplace) is inplace      # Keras writes over a float array
    as_int = mobilenet.preprocess_input(x.astype(np.uint8))
    assert as_int.dtype == np.float32
    tensor = mobilenet.preprocess_input(fe.constant(x))
    assert isinstance(tensor, fe.Tensor)
    np.testing.assert_allclose(tensor.numpy(), x / 127.5 - 1.0, rtol=1e-6)
    caffe = x[..., ::-1] - np.array([103.939, 116.779, 123.68], np.float32)
    np.testing.assert_allclose(imagenet_utils.preprocess_input(x.copy()), caffe, rtol=1e-5)
    np.testing.assert_allclose(imagenet_utils.preprocess_input(fe.constant(x)).numpy(), caffe,
                               rtol=1e-5)
    torch = (x / 255.0 - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
    np.testing.assert_allclose(imagenet_utils.preprocess_input(x.copy(), mode="torch"), torch,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        imagenet_utils.preprocess_input(fe.constant(x), mode="torch").numpy(), torch,
        rtol=1e-5, atol=1e-6)
    chw = x[0].transpose(2, 0, 1)
    np.testing.assert_allclose(
        imagenet_utils.preprocess_input(chw.copy(), data_format="channels_first"),
        caffe[0].transpose(2, 0, 1), rtol=1e-5)
    with pytest.raises(ValueError, match="Expected mode to be one of `caffe`, `tf` or `torch`"):
        imagenet_utils.preprocess_input(x, mode="keras")
    with pytest.raises(ValueError, match="Received: data_format=NHWC"):
        imagenet_utils.preprocess_input(x, data_format="NHWC")


def test_decode_predictions(monkeypatch, offline):
    with pytest.raises(ValueError, match=r"\(samples, 1000\)\). Received array with shape: "
                                         r"\(1, 10\)"):
        mobilenet.decode_predictions(np.zeros((1, 10)))
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [3, 7, 1]] = [0.5, 0.3, 0.2]
    preds[1, 999] = 1.0
    with pytest.raises(Exception, match="URL fetch failure on https://storage.googleapis.com/"
                                        "download.tensorflow.org/data/imagenet_class_index.json"):
        mobilenet.decode_predictions(preds)
    index = {str(i): ["n%08d" % i, "class_%d" % i] for i in range(1000)}
    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX", index)
    got = mobilenet.decode_predictions(fe.constant(preds), top=3)
    assert [entry[:2] for entry in got[0]] == [("n00000003", "class_3"),
                                                ("n00000007", "class_7"),
                                                ("n00000001", "class_1")]
    np.testing.assert_allclose([entry[2] for entry in got[0]], [0.5, 0.3, 0.2])
    assert got[1][0][1] == "class_999" and len(got[1]) == 3


def test_the_saved_model_guide_flow(tmp_path):
    pytest.importorskip("PIL.Image")
    utils = fe.keras.utils
    picture = tmp_path / "picture.jpg"
    yy, xx = np.mgrid[0:180, 0:150]
    utils.save_img(picture, np.stack([yy, xx, yy + xx], axis=-1).astype(np.float32))
    img = utils.load_img(picture, target_size=[128, 128])
    x = utils.img_to_array(img)
    x = mobilenet.preprocess_input(x[fe.newaxis, ...])
    assert x.shape == (1, 128, 128, 3) and -1.0 <= x.min() and x.max() <= 1.0

    pretrained_model = _small()
    # random initial weights shrink the features to ~0 (as in Keras): distinct class biases
    # make the top-5 below meaningful
    bias = pretrained_model.get_layer("conv_preds").bias
    bias.assign(np.random.default_rng(1).normal(size=1000).astype(np.float32))
    result_before_save = pretrained_model(x)
    assert np.unique(result_before_save.numpy()).size == 1000
    path = tmp_path / "mobilenet" / "1"
    fe.saved_model.save(pretrained_model, str(path) + "/")
    loaded = fe.saved_model.load(str(path) + "/")
    assert list(loaded.signatures.keys()) == ["serving_default"]
    infer = loaded.signatures["serving_default"]
    # TF 2.21 with Keras 3 names a single-output signature's result output_0 (Keras 2
    # used the output layer's name, "predictions", as the guide's text still assumes)
    assert list(infer.structured_outputs) == ["output_0"]
    assert pretrained_model.output_names == ["predictions"]
    labeling = infer(fe.constant(x))["output_0"]
    np.testing.assert_allclose(labeling.numpy(), result_before_save.numpy(), rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_array_equal(np.argsort(labeling)[0, ::-1][:5],
                                  np.argsort(result_before_save)[0, ::-1][:5])
    assert len(loaded.trainable_variables) == 83
    trainable = {id(v) for v in loaded.trainable_variables}
    assert len([v for v in loaded.variables if id(v) not in trainable]) == 54


def test_whole_model_save_and_load(tmp_path):
    model = _small(classes=7)
    path = tmp_path / "mobilenet.keras"
    model.save(path)
    again = fe.keras.models.load_model(path)
    assert again.name == "mobilenet_0.25_128"
    assert [layer.name for layer in again.layers] == [layer.name for layer in model.layers]
    x = _image()
    np.testing.assert_allclose(again(x).numpy(), model(x).numpy(), rtol=1e-6)


# ---- MobileNetV2 ------------------------------------------------------------------------

def _small_v2(**kwargs):
    kwargs.setdefault("weights", None)
    return applications.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), **kwargs)


def test_mobilenet_v2_architecture_matches_keras():
    fe.keras.backend.clear_session()
    model = applications.MobileNetV2(weights=None)
    assert model.name == "mobilenetv2_1.00_224"
    assert model.count_params() == 3538984
    assert len(model.trainable_variables) == 158 and len(model.variables) == 262
    names = [layer.name for layer in model.layers]
    assert names[:9] == ["input_layer", "Conv1", "bn_Conv1", "Conv1_relu",
                         "expanded_conv_depthwise", "expanded_conv_depthwise_BN",
                         "expanded_conv_depthwise_relu", "expanded_conv_project",
                         "expanded_conv_project_BN"]
    assert names[-6:] == ["block_16_project_BN", "Conv_1", "Conv_1_bn", "out_relu",
                          "global_average_pooling2d", "predictions"]
    # residual adds where a block keeps its shape; padding before the strided blocks
    assert [n for n in names if n.endswith("_add")] == [
        "block_%d_add" % i for i in (2, 4, 5, 7, 8, 9, 11, 12, 14, 15)]
    assert [n for n in names if n.endswith("_pad")] == [
        "block_%d_pad" % i for i in (1, 3, 6, 13)]
    assert model.get_layer("block_1_pad").padding == ((0, 1), (0, 1))   # even input: correct_pad
    bn = model.get_layer("block_3_expand_BN")
    assert bn.epsilon == 1e-3 and bn.momentum == 0.999
    assert isinstance(model.get_layer("predictions"), fe.keras.layers.Dense)
    base = applications.MobileNetV2(weights=None, include_top=False)
    assert len(base.layers) == 154 and base.output_shape == (None, None, None, 1280)


def test_mobilenet_v2_small_runs_and_widens_with_alpha():
    model = _small_v2()
    assert model.name == "mobilenetv2_0.35_96"
    assert model.get_layer("Conv1").filters == 16 and model.get_layer("Conv_1").filters == 1280
    y = model(applications.mobilenet_v2.preprocess_input(_image(size=96)))
    assert y.shape == (1, 1000)
    np.testing.assert_allclose(fe.reduce_sum(y, axis=-1).numpy(), [1.0], rtol=1e-5)
    wide = applications.MobileNetV2(weights=None, alpha=1.4, include_top=False,
                                    input_shape=(32, 32, 3))
    assert wide.get_layer("Conv_1").filters == 1792       # grows above alpha 1
    assert wide(_image(size=32)).shape == (1, 1, 1, 1792)


@pytest.mark.parametrize("kwargs, message", [
    (dict(weights="imagenet", classes=10), "`classes` should be 1000. Received `classes=10`"),
    (dict(weights="imagenet", alpha=0.25), r"alpha must be one of `0.35`, `0.50`, `0.75`, "
                                           r"`1.0`, `1.3` or `1.4` only; Received `alpha=0.25`"),
    (dict(weights="nothing.h5"), "Received `weights=nothing.h5`"),
    (dict(weights=None, input_shape=(64, 64, 3), input_tensor=np.zeros((1, 64, 64, 3))),
     "input_tensor is not a Keras tensor"),
    (dict(weights=None, input_shape=(64, 64, 3), input_tensor=fe.keras.Input((64, 32, 3))),
     r"input_tensor.shape\[2\] must equal input_shape\[1\]"),
])
def test_mobilenet_v2_bad_arguments(kwargs, message, offline):
    with pytest.raises(ValueError, match=message):
        applications.MobileNetV2(**kwargs)
    assert offline == []


def test_mobilenet_v2_imagenet_weights_offline_and_cached(offline, tmp_path):
    with pytest.raises(Exception, match=r"URL fetch failure on https://storage.googleapis.com/"
                                         r"tensorflow/keras-applications/mobilenet_v2/"
                                         r"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_"
                                         r"0.35_96.h5"):
        _small_v2(weights="imagenet")
    # without the top and without input_shape the rows are unknown: Keras warns and takes
    # the 224 weights, even for a 128x128 input tensor
    with pytest.warns(UserWarning, match="Weights for input shape \\(224, 224\\)"), \
            pytest.raises(Exception, match="kernels_0.35_224_no_top.h5"):
        applications.MobileNetV2(alpha=0.35, include_top=False,
                                 input_tensor=fe.keras.Input((128, 128, 3)))
    with pytest.raises(Exception, match="kernels_1.0_128_no_top.h5"):
        applications.MobileNetV2(include_top=False, input_shape=(128, 128, 3))
    source = _small_v2()
    for v in source.variables:
        v.assign(np.random.default_rng(len(v.path)).uniform(0.5, 1.0, v.shape.as_list())
                 .astype(np.float32))
    cache = tmp_path / "keras" / "models"
    cache.mkdir(parents=True, exist_ok=True)
    _write_keras_h5(source, cache / "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96.h5")
    model = _small_v2(weights="imagenet")
    for a, b in zip(source.variables, model.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    x = _image(size=96)
    np.testing.assert_allclose(model(x).numpy(), source(x).numpy(), rtol=1e-5, atol=1e-7)


# ---- against Keras 3 itself (when TensorFlow and Keras 3 are installed) -----------------

_KERAS_SIDE = r'''
import json, os, sys
import numpy as np
import keras
import tensorflow as tf
from keras.src.legacy.saving import legacy_h5_format
import h5py
tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)
out = {}
rng = np.random.default_rng(0)
for key, ctor, kw in [("v1", keras.applications.MobileNet, dict(alpha=0.25, size=128)),
                      ("v2", keras.applications.MobileNetV2, dict(alpha=0.35, size=96))]:
    keras.backend.clear_session()
    size = kw.pop("size")
    model = ctor(weights=None, input_shape=(size, size, 3), **kw)
    for v in model.weights:      # weights that keep the activations alive through the net
        scale = 0.2 if "kernel" in v.path else 1.0
        v.assign(rng.uniform(0.5, 1.0, v.shape).astype("float32") * scale)
    with h5py.File(os.path.join(sys.argv[1], key + ".h5"), "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, model)
    x = rng.uniform(0, 255, (2, size, size, 3)).astype("float32")
    x = keras.applications.mobilenet.preprocess_input(x)
    np.save(os.path.join(sys.argv[1], key + "_x.npy"), x)
    np.save(os.path.join(sys.argv[1], key + "_y.npy"), np.asarray(model(x)))
    out[key] = dict(name=model.name, params=model.count_params(),
                    layers=[layer.name for layer in model.layers],
                    trainable=len(model.trainable_variables))
    if key == "v1":              # the saved_model guide's flow: the signature's output keys
        tf.saved_model.save(model, os.path.join(sys.argv[1], "saved"))
        loaded = tf.saved_model.load(os.path.join(sys.argv[1], "saved"))
        out["serving_outputs"] = list(loaded.signatures["serving_default"].structured_outputs)
json.dump(out, open(os.path.join(sys.argv[1], "keras.json"), "w"))
'''


@pytest.mark.slow
def test_outputs_match_keras_3_on_keras_weight_files(tmp_path):
    import importlib.util
    import json
    import os
    import subprocess
    import sys
    if importlib.util.find_spec("tensorflow") is None or importlib.util.find_spec("keras") is None:
        pytest.skip("needs TensorFlow and Keras 3 (the bench extra) to compare against")
    pytest.importorskip("h5py")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", KERAS_BACKEND="tensorflow")
    done = subprocess.run([sys.executable, "-c", _KERAS_SIDE, str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No module named 'keras.src" in done.stderr:
        pytest.skip("the installed keras is not Keras 3")
    assert done.returncode == 0, done.stderr[-2000:]
    reference = json.load(open(tmp_path / "keras.json"))
    for key, ctor, kwargs in [("v1", applications.MobileNet, dict(alpha=0.25, size=128)),
                              ("v2", applications.MobileNetV2, dict(alpha=0.35, size=96))]:
        fe.keras.backend.clear_session()
        size = kwargs.pop("size")
        model = ctor(weights=str(tmp_path / (key + ".h5")), input_shape=(size, size, 3),
                     **kwargs)
        ref = reference[key]
        assert model.name == ref["name"] and model.count_params() == ref["params"]
        assert [layer.name for layer in model.layers] == ref["layers"]
        assert len(model.trainable_variables) == ref["trainable"]
        x = np.load(tmp_path / (key + "_x.npy"))
        want = np.load(tmp_path / (key + "_y.npy"))
        got = model(x).numpy()
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * np.abs(want).max())
        np.testing.assert_array_equal(got.argmax(axis=1), want.argmax(axis=1))
        if key == "v1":
            fe.saved_model.save(model, str(tmp_path / "fe_saved"))
            infer = fe.saved_model.load(str(tmp_path / "fe_saved")).signatures["serving_default"]
            assert list(infer.structured_outputs) == reference["serving_outputs"]  # output_0
