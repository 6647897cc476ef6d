"""load_model on untrusted files: only fasteager's classes and allowed custom ones are
constructed, no module a file names is imported, lambdas need safe_mode=False."""
import json
import sys
import threading
import zipfile

import numpy as np
import pytest

import fasteager as fe

K = fe.keras
X = np.random.RandomState(0).rand(2, 4).astype("float32")


def _weights_payload(tmp_path):
    """A valid weights file, so that loading reaches the config (not a weights error)."""
    m = K.Sequential([K.layers.Dense(2)])
    m(X)
    m.save(tmp_path / "real.keras")
    with zipfile.ZipFile(tmp_path / "real.keras") as z:
        return z.read("model.weights.safetensors")


def _hand_made(tmp_path, desc, name="evil.keras"):
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("config.json", json.dumps(desc))
        z.writestr("model.weights.safetensors", _weights_payload(tmp_path))
    return path


def _touch_cmd(marker):
    return [sys.executable, "-c", "open(%r, 'w').close()" % str(marker)]


def _attacks(marker):
    touch = _touch_cmd(marker)
    popen = {"class_name": "Popen", "module": "subprocess", "qualname": "Popen",
             "config": {"args": touch}}
    return {
        "popen": popen,
        "os.system": {"class_name": "system", "module": "os", "qualname": "system",
                      "config": {"command": " ".join(touch)}},
        "builtins.eval": {"class_name": "eval", "module": "builtins", "qualname": "eval",
                          "config": {"source": "open(%r, 'w')" % str(marker)}},
        # a fasteager module function that is no registered class: it would write the file
        "fasteager._atomic": {"class_name": "atomic_write", "module": "fasteager._src.io.atomic",
                              "qualname": "atomic_write",
                              "config": {"path": str(marker), "chunks": ["x"]}},
        "fasteager._core": {"class_name": "set_tracer", "module": "fasteager._core",
                            "qualname": "set_tracer", "config": {"tracer": None}},
        "nested layer": {"class_name": "Sequential", "module": "fasteager.keras.training",
                         "config": {"name": "s", "layers": [popen]}},
        "nested initializer": {"class_name": "Sequential", "config": {"layers": [
            {"class_name": "Dense", "config": {"units": 2, "kernel_initializer": popen}}]}},
        "config value": {"class_name": "Sequential", "config": {"layers": [
            {"class_name": "Dense", "config": {"units": popen}}]}},
    }


@pytest.mark.parametrize("case", sorted(_attacks("m")))
def test_hand_made_file_cannot_run_code(tmp_path, case):
    marker = tmp_path / "pwned"
    path = _hand_made(tmp_path, _attacks(marker)[case])
    with pytest.raises(TypeError) as info:
        fe.keras.models.load_model(path)
    msg = str(info.value)
    assert "register_keras_serializable" in msg and "custom_objects" in msg
    assert not marker.exists()


def test_popen_refused_with_safe_mode_false_too(tmp_path):
    marker = tmp_path / "pwned"
    path = _hand_made(tmp_path, _attacks(marker)["popen"])
    with pytest.raises(TypeError, match="'Popen' \\(module 'subprocess'\\)"):
        fe.keras.saving.load_model(path, safe_mode=False)
    assert not marker.exists()


def test_named_module_is_never_imported(tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    (tmp_path / "evil_mod_fe.py").write_text(
        "open(%r, 'w').close()\nclass Evil:\n    pass\n" % str(marker))
    monkeypatch.syspath_prepend(str(tmp_path))
    unknown = {"class_name": "Evil", "module": "evil_mod_fe", "qualname": "Evil", "config": {}}
    with pytest.raises(TypeError, match="Evil"):
        fe.keras.models.load_model(_hand_made(tmp_path, unknown, "a.keras"))
    # a fasteager class name is taken from fasteager whatever module the file claims
    dense = {"class_name": "Sequential", "module": "evil_mod_fe", "config": {"layers": [
        {"class_name": "Dense", "module": "evil_mod_fe", "config": {"units": 2}}]},
        "build_input_shape": [None, 4]}
    m = fe.keras.models.load_model(_hand_made(tmp_path, dense, "b.keras"))
    assert type(m) is K.Sequential and type(m.layers[0]) is K.layers.Dense
    assert not marker.exists() and "evil_mod_fe" not in sys.modules


def test_top_level_must_be_a_model(tmp_path):
    path = _hand_made(tmp_path, {"class_name": "GlorotUniform", "config": {}})
    with pytest.raises(TypeError, match="not a model"):
        fe.keras.models.load_model(path)


def test_malformed_configs_are_data_loss(tmp_path):
    deep = {"class_name": "Sequential", "config": {"layers": []}}
    inner = deep["config"]
    for _ in range(200):
        inner["x"] = {"y": [{}]}
        inner = inner["x"]["y"][0]
    bad = [deep, {"class_name": 3, "config": {}}, {"class_name": "Sequential", "config": []},
           {"class_name": "Sequential", "config": {}, "build_input_shape": ["a"]},
           {"class_name": "Sequential", "config": {"layers": [
               {"class_name": "Dense", "config": {"units": 2, "bogus": 1}}]}}]
    for i, desc in enumerate(bad):
        with pytest.raises(fe.errors.DataLossError):
            fe.keras.models.load_model(_hand_made(tmp_path, desc, "bad%d.keras" % i))


# ---- lambdas -----------------------------------------------------------------------------
def test_lambda_needs_safe_mode_false(tmp_path):
    m = K.Sequential([K.layers.Dense(3), K.layers.Lambda(lambda t: t * 2.0 + 1.0)])
    y = m(X).numpy()
    m.save(tmp_path / "m.keras")
    with pytest.raises(ValueError, match="safe_mode=False"):
        fe.keras.models.load_model(tmp_path / "m.keras")
    m2 = fe.keras.models.load_model(tmp_path / "m.keras", safe_mode=False)
    np.testing.assert_allclose(m2(X).numpy(), y, rtol=1e-6)


def test_hand_made_lambda_bytecode_refused(tmp_path):
    marker = str(tmp_path / "pwned")

    def payload(t):
        open(marker, "w").close()
        return t
    lam = K.layers.Lambda(payload).get_config()["function"]
    assert lam["class_name"] == "__lambda__"        # a local function is saved as bytecode
    desc = {"class_name": "Sequential", "config": {"layers": [
        {"class_name": "Lambda", "config": {"function": lam}}]}}
    path = _hand_made(tmp_path, desc)
    with pytest.raises(ValueError, match="lambda"):
        fe.keras.models.load_model(path)
    with pytest.raises(ValueError, match="safe_mode=False"):
        K.layers.Lambda.from_config({"function": lam})
    assert not (tmp_path / "pwned").exists()
    # the bytecode is real: a trusted load runs it
    fe.keras.models.load_model(path, safe_mode=False)(X)
    assert (tmp_path / "pwned").exists()


def test_lambda_with_registered_function_loads_in_safe_mode(tmp_path):
    @fe.keras.saving.register_keras_serializable(package="test_security")
    def triple(t):
        return t * 3.0
    m = K.Sequential([K.layers.Dense(2), K.layers.Lambda(triple)])
    y = m(X).numpy()
    m.save(tmp_path / "m.keras")
    m2 = fe.keras.models.load_model(tmp_path / "m.keras")
    assert m2.layers[1].function is triple
    np.testing.assert_allclose(m2(X).numpy(), y, rtol=1e-6)


# ---- allowed custom objects --------------------------------------------------------------
@fe.keras.utils.register_keras_serializable(package="test_security")
class Scale(K.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(shape=[input_shape[-1]], initializer="ones", name="w")

    def call(self, x):
        return x * self.w * self.factor

    def get_config(self):
        config = super().get_config()
        config["factor"] = self.factor
        return config


class Unregistered(Scale):
    pass


@fe.keras.saving.register_keras_serializable(package="test_security")
def shifted_relu(t):
    return fe.nn.relu(t - 0.1)


def test_registered_layer_and_activation_round_trip(tmp_path):
    assert fe.keras.saving.get_registered_name(Scale) == "test_security>Scale"
    assert fe.keras.saving.get_registered_object("test_security>Scale") is Scale
    assert fe.keras.utils.get_registered_name(Unregistered) == "Unregistered"
    m = K.Sequential([K.layers.Dense(3, activation=shifted_relu), Scale(3.0)])
    y = m(X).numpy()
    m.layers[1].w.assign(np.array([1., 2., 3.], np.float32))
    y = m(X).numpy()
    m.save(tmp_path / "m.keras")
    m2 = fe.keras.models.load_model(tmp_path / "m.keras")
    assert type(m2.layers[1]) is Scale and m2.layers[1].factor == 3.0
    assert m2.layers[0].activation is shifted_relu
    np.testing.assert_allclose(m2(X).numpy(), y, rtol=1e-6)


def test_unregistered_class_gives_clear_error_and_custom_objects_allow_it(tmp_path):
    m = K.Sequential([K.layers.Dense(3), Unregistered(1.5)])
    y = m(X).numpy()
    m.save(tmp_path / "m.keras")
    with pytest.raises(TypeError, match=r"'Unregistered'.*register_keras_serializable.*"
                                        r"custom_objects=\{'Unregistered': cls\}"):
        fe.keras.models.load_model(tmp_path / "m.keras")
    m2 = fe.keras.models.load_model(tmp_path / "m.keras",
                                    custom_objects={"Unregistered": Unregistered})
    assert type(m2.layers[1]) is Unregistered
    np.testing.assert_allclose(m2(X).numpy(), y, rtol=1e-6)
    with fe.keras.saving.custom_object_scope({"Unregistered": Unregistered}):
        assert type(fe.keras.models.load_model(tmp_path / "m.keras").layers[1]) is Unregistered
    with pytest.raises(TypeError):          # the scope ended
        fe.keras.models.load_model(tmp_path / "m.keras")


def test_custom_object_scope_is_per_thread(tmp_path):
    m = K.Sequential([K.layers.Dense(3), Unregistered()])
    m(X)
    m.save(tmp_path / "m.keras")
    seen = []

    def other():
        try:
            fe.keras.models.load_model(tmp_path / "m.keras")
            seen.append("loaded")
        except TypeError:
            seen.append("refused")
    with K.saving.CustomObjectScope({"Unregistered": Unregistered}):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == ["refused"]


def test_ordinary_models_round_trip(tmp_path):
    m = K.Sequential([K.Input((4,)), K.layers.Dense(5, activation="tanh",
                                                    kernel_regularizer=K.regularizers.l2(0.1)),
                      K.layers.Dropout(0.1), K.layers.Dense(2, activation="softmax")])
    y = m(X).numpy()
    for name in ("m.keras", "m_dir"):
        m.save(tmp_path / name)
        m2 = fe.keras.models.load_model(tmp_path / name)
        np.testing.assert_allclose(m2(X).numpy(), y, rtol=1e-6)
        # the regularizer came back through the same gate
        assert [float(v.numpy()) for v in m2.losses] == [float(v.numpy()) for v in m.losses]


def test_register_rejects_bad_arguments():
    with pytest.raises(ValueError, match="package"):
        fe.keras.saving.register_keras_serializable(package="a>b")

    class NoConfig:
        pass
    with pytest.raises(ValueError, match="get_config"):
        fe.keras.saving.register_keras_serializable()(NoConfig)
    with pytest.raises(TypeError, match="custom_objects"):
        fe.keras.models.load_model("x.keras", custom_objects=[Scale])
