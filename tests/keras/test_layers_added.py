"""Layers added for issue 34 (Keras 3.15.1 names fasteager lacked), compared with values
recorded from Keras 3.15.1 by tests/tf_reference/record_layers_added.py."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

L = fe.keras.layers
REF = load("layers_added")


def _from_keras_config(config):
    """Keras's config, as fasteager's constructor takes it (dtype policy -> name, Keras
    serialized objects stay dicts that fasteager's getters read)."""
    config = dict(config)
    if isinstance(config.get("dtype"), dict):
        config["dtype"] = config["dtype"]["config"]["name"]
    # Keras 3.15's variance-scaling initializers add input_axes/output_axes (None here),
    # which fasteager's initializers do not take yet (initializers.py, not this module)
    for k, v in list(config.items()):
        if isinstance(v, dict) and isinstance(v.get("config"), dict):
            config[k] = dict(v, config={a: b for a, b in v["config"].items()
                                        if not (a in ("input_axes", "output_axes")
                                                and b is None)})
    # (Keras writes activity_regularizer=None into every config; fasteager's base Layer
    # writes it only when one is set)
    if config.get("activity_regularizer", 0) is None:
        del config["activity_regularizer"]
    return config


def _run_det(key):
    case = REF["det"][key]
    cls = getattr(L, key.split("_")[0] if key not in L.__dict__ else key)
    config = _from_keras_config(case["config"])
    layer = cls.from_config(config)
    x = fe.constant(np.array(case["x"], np.float32))
    layer.build(x.shape)
    for v, w in zip(layer.weights, case["weights"]):
        v.assign(np.array(w, np.float32))
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        loss = fe.reduce_sum(y * fe.constant(np.array(case["g"], np.float32)))
    grads = tape.gradient(loss, [x] + list(layer.weights))
    return case, layer, y, grads


DET = sorted(REF["det"])


def _lists(v):
    return [_lists(x) for x in v] if isinstance(v, (list, tuple)) else v


@pytest.mark.parametrize("key", DET)
def test_deterministic_layer_matches_keras(key):
    case, layer, y, grads = _run_det(key)
    assert list(y.shape) == case["output_shape"]
    np.testing.assert_allclose(y.numpy(), np.array(case["y"], np.float32), rtol=1e-5,
                               atol=1e-6)
    assert len(grads) == len(case["grads"])
    for got, want in zip(grads, case["grads"]):
        np.testing.assert_allclose(np.asarray(got), np.array(want, np.float32), rtol=1e-5,
                                   atol=1e-6)
    assert len(layer.losses) == len(case["losses"])
    for got, want in zip(layer.losses, case["losses"]):
        np.testing.assert_allclose(float(got), want, rtol=1e-5)


@pytest.mark.parametrize("key", DET)
def test_deterministic_layer_config_round_trip(key):
    case, layer, _, _ = _run_det(key)
    config = layer.get_config()
    want = _from_keras_config(case["config"])
    # the same keys as Keras, and the same plain values
    assert set(config) == set(want)
    for k, v in want.items():
        if not isinstance(v, dict) and k != "name":
            # (JSON recorded Keras's tuples as lists)
            assert _lists(config[k]) == v, k
    again = type(layer).from_config(config)
    assert again.get_config() == config


def _random_input(case):
    x = (np.random.default_rng(case["seed"]).standard_normal(case["shape"]) * 0.5
         + 1.0).astype("float32")
    assert float(x.sum()) == pytest.approx(case["x_checksum"], rel=1e-5)
    return x


RND = sorted(REF["random"])


@pytest.mark.parametrize("key", RND)
def test_random_layer_matches_keras(key):
    case = REF["random"][key]
    cls = getattr(L, key.split("_")[0])
    layer = cls.from_config(_from_keras_config(case["config"]))
    x = _random_input(case)
    y_inf = layer(fe.constant(x), training=False).numpy()
    assert case["inference_is_input"]
    np.testing.assert_array_equal(y_inf, x)
    y = layer(fe.constant(x), training=True).numpy()
    assert list(y.shape) == case["train_shape"]
    # the random streams differ from Keras's: the statistics agree within sampling error
    assert y.mean() == pytest.approx(case["train_mean"], abs=0.03)
    assert y.std() == pytest.approx(case["train_std"], rel=0.04)
    assert (y - x).std() == pytest.approx(case["train_diff_std"], rel=0.04)
    assert (y == 0).mean() == pytest.approx(case["train_zero_fraction"], abs=0.04)
    config = layer.get_config()
    assert set(config) == set(case["config"])
    assert type(layer).from_config(config).get_config() == config


@pytest.mark.parametrize("cls,shape,cf", [(L.SpatialDropout1D, (6, 7, 9), False),
                                          (L.SpatialDropout2D, (6, 3, 4, 9), False),
                                          (L.SpatialDropout2D, (6, 9, 3, 4), True),
                                          (L.SpatialDropout3D, (6, 2, 3, 4, 9), False),
                                          (L.SpatialDropout3D, (6, 9, 2, 3, 4), True)])
def test_spatial_dropout_drops_whole_channels(cls, shape, cf):
    kw = {"data_format": "channels_first"} if cf else {}
    layer = cls(0.5, seed=1, **kw)
    y = layer(fe.ones(shape), training=True).numpy()
    ch = 1 if cf else -1
    y = np.moveaxis(y, ch, 1).reshape(shape[0], shape[ch], -1)
    # each (example, channel) map is all zero or all 2 (= 1 / (1 - rate))
    assert np.all((y == 0).all(-1) | (y == 2).all(-1))
    assert 0 < (y == 0).mean() < 1


def test_spatial_dropout_wrong_rank_and_bad_arguments():
    with pytest.raises(ValueError, match="expected ndim=3"):
        L.SpatialDropout1D(0.5)(fe.ones([2, 3]))
    with pytest.raises(ValueError, match="rate"):
        L.SpatialDropout2D(1.5)
    with pytest.raises(ValueError, match="data_format"):
        L.SpatialDropout2D(0.5, data_format="nchw")
    with pytest.raises(ValueError, match="stddev"):
        L.GaussianNoise(2.0)
    with pytest.raises(ValueError, match="rate"):
        L.GaussianDropout(-0.1)
    with pytest.raises(ValueError, match="rate"):
        L.AlphaDropout(1.2)


def test_prelu_alpha_trains_and_shared_axes():
    layer = L.PReLU(alpha_initializer="ones", shared_axes=2)
    layer(fe.ones([2, 3, 4]))
    assert layer.alpha.shape == (3, 1)
    assert [v.name for v in layer.trainable_weights] == ["alpha"]


def test_normalization_bad_arguments():
    with pytest.raises(ValueError, match="groups"):
        L.GroupNormalization(groups=0)
    with pytest.raises(ValueError, match="multiple"):
        L.GroupNormalization(groups=4)(fe.ones([2, 6]))
    with pytest.raises(ValueError, match="cannot be more"):
        L.GroupNormalization(groups=8)(fe.ones([2, 6]))
    with pytest.raises(TypeError, match="axis"):
        L.UnitNormalization(axis="x")
    layer = L.GroupNormalization(groups=-1)
    layer(fe.ones([2, 3, 5]))
    assert layer.groups == 5 and layer.get_config()["groups"] == 5


def test_pooling_aliases_are_keras_names():
    assert L.MaxPool1D is L.MaxPooling1D and L.AvgPool1D is L.AveragePooling1D
    assert L.MaxPool3D is L.MaxPooling3D and L.AvgPool3D is L.AveragePooling3D
    assert L.GlobalAvgPool3D is L.GlobalAveragePooling3D
    assert L.GlobalMaxPool3D is L.GlobalMaxPooling3D
    assert L.GlobalAvgPool1D is L.GlobalAveragePooling1D
    assert L.GlobalMaxPool1D is L.GlobalMaxPooling1D
    assert L.MaxPooling1D().get_config()["pool_size"] == (2,)
    assert L.MaxPooling3D().get_config()["strides"] == (2, 2, 2)
    with pytest.raises(ValueError, match="padding"):
        L.MaxPooling1D(padding="full")
    with pytest.raises(TypeError):
        L.AveragePooling1D()          # (no default pool_size, as Keras 3)
    with pytest.raises(TypeError):
        L.AveragePooling3D()


def test_3d_reshaping_configs_and_errors():
    assert L.ZeroPadding3D(2).get_config()["padding"] == ((2, 2),) * 3
    assert L.Cropping3D((1, 2, 0)).get_config()["cropping"] == ((1, 1), (2, 2), (0, 0))
    assert L.UpSampling3D(3).get_config()["size"] == (3, 3, 3)
    with pytest.raises(ValueError, match="padding"):
        L.ZeroPadding3D((1, 2))
    with pytest.raises(ValueError, match="cropping"):
        L.Cropping3D(-1)
    with pytest.raises(ValueError, match="leaves nothing"):
        L.Cropping3D(1)(fe.ones([1, 2, 4, 4, 1]))


def test_conv1d_transpose_arguments():
    assert L.Convolution1DTranspose is L.Conv1DTranspose
    layer = L.Conv1DTranspose(2, 3, strides=2)
    y = layer(fe.ones([1, 4, 3]))
    assert y.shape == (1, 9, 2) and layer.kernel.shape == (3, 2, 3)
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv1DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv1DTranspose(2, 3, strides=2, output_padding=(1, 1))
    with pytest.raises(fe.errors.InvalidArgumentError, match="ndim=3"):
        layer(fe.ones([1, 4, 4, 3]))


def test_added_layers_round_trip_in_a_saved_model(tmp_path):
    i = L.Input((6, 4))
    x = L.PReLU()(i)
    x = L.GroupNormalization(2)(x)
    x = L.Conv1DTranspose(3, 2)(x)
    x = L.MaxPool1D()(x)
    x = L.SpatialDropout1D(0.2)(x)
    x = L.ActivityRegularization(0.1)(x)
    x = L.Reshape((3, 3, 1, 1))(x)
    x = L.ZeroPadding3D(1)(x)
    x = L.UpSampling3D()(x)
    x = L.AveragePooling3D(2)(x)
    x = L.Cropping3D(1)(x)
    x = L.GlobalMaxPool3D()(x)
    x = L.RMSNormalization()(x)
    x = L.UnitNormalization()(x)
    x = L.ELU()(x)
    x = L.Identity()(x)
    x = L.AlphaDropout(0.1)(x)
    x = L.GaussianNoise(0.1)(x)
    x = L.GaussianDropout(0.1)(x)
    model = fe.keras.Model(i, x)
    a = np.random.default_rng(0).random((2, 6, 4)).astype("float32")
    again = fe.keras.Model.from_config(model.get_config())
    again.set_weights(model.get_weights())
    np.testing.assert_array_equal(again(a).numpy(), model(a).numpy())
    model.save(str(tmp_path / "m.keras"))
    loaded = fe.keras.models.load_model(str(tmp_path / "m.keras"))
    assert [type(l).__name__ for l in loaded.layers] == [type(l).__name__
                                                         for l in model.layers]
    np.testing.assert_array_equal(loaded(a).numpy(), model(a).numpy())


@pytest.mark.parametrize("key", DET + RND)
def test_layers_deserialize_takes_keras_serialized_layers(key):
    case = REF["det"].get(key) or REF["random"][key]
    keras_form = {"module": "keras.layers", "class_name": key.split("_")[0],
                  "config": _from_keras_config(case["config"]), "registered_name": None}
    layer = L.deserialize(keras_form)
    assert type(layer).__name__ == key.split("_")[0]
    again = L.deserialize(L.serialize(layer))
    assert type(again) is type(layer) and again.get_config() == layer.get_config()


def test_layers_deserialize_refuses_a_non_layer():
    with pytest.raises(ValueError, match="not a `keras.layers.Layer`"):
        L.deserialize({"class_name": "GlorotUniform", "module": "keras.initializers",
                       "config": {}, "registered_name": None})


@pytest.mark.parametrize("cls,shape", [(L.Conv1DTranspose, (1, 4, 2)),
                                       (L.Conv2DTranspose, (1, 3, 3, 2))])
def test_transposed_conv_applies_its_constraints(cls, shape):
    layer = cls(2, 2, kernel_constraint="non_neg", bias_constraint="non_neg",
                kernel_initializer="ones", bias_initializer="ones")
    x = fe.ones(shape)
    with fe.GradientTape() as tape:
        loss = fe.reduce_sum(layer(x))
    grads = tape.gradient(loss, layer.trainable_weights)
    fe.keras.optimizers.SGD(10.0).apply_gradients(zip(grads, layer.trainable_weights))
    # the step drives every weight negative; the constraints clip them to 0, as Keras
    assert float(fe.reduce_min(layer.kernel)) == 0.0
    assert float(fe.reduce_min(layer.bias)) == 0.0
