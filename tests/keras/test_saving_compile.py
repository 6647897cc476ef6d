"""Model.save / load_model keep the compile state (Keras 3's compile_config): the loaded
model is compiled with the same optimizer, loss and metrics, and the optimizer's state
(iterations, slots) is restored, so training continues exactly. Values recorded from
Keras 3.15.1 (tests/tf_reference/record_saving_compile.py)."""
import json
import zipfile

import numpy as np
import pytest

import fasteager as fe
from fasteager.errors import DataLossError
from tests.tf_reference import load

REF = load("saving_compile")
X = np.array(REF["x"], "float32")
Y = np.array(REF["y"], "float32")


def _forms():
    sched = fe.keras.optimizers.schedules.ExponentialDecay(0.1, 3, 0.5)
    return {
        "strings": dict(optimizer="adam", loss="mse", metrics=["mae"]),
        "objects": dict(optimizer=fe.keras.optimizers.SGD(0.1, momentum=0.9),
                        loss=fe.keras.losses.MeanSquaredError(),
                        metrics=[fe.keras.metrics.MeanAbsoluteError()]),
        "schedule": dict(optimizer=fe.keras.optimizers.Adam(sched), loss="mae"),
        "rmsprop_weighted": dict(optimizer=fe.keras.optimizers.RMSprop(0.01), loss="mse",
                                 weighted_metrics=["mae"]),
    }


def _model():
    m = fe.keras.Sequential([fe.keras.Input((3,)), fe.keras.layers.Dense(2)])
    m.set_weights([np.array(REF["kernel"], "float32"), np.array(REF["bias"], "float32")])
    return m


def _trained(form):
    m = _model()
    m.compile(**_forms()[form])
    m.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    return m


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, "float64"), np.asarray(b, "float64"),
                               rtol=2e-5, atol=2e-6)


FORMS = sorted(REF["forms"])


@pytest.mark.parametrize("form", FORMS)
def test_compile_config_as_keras(form, tmp_path):
    ref = REF["forms"][form]
    m = _trained(form)
    path = str(tmp_path / "m.keras")
    m.save(path)
    cc = json.loads(zipfile.ZipFile(path).read("config.json"))["compile_config"]
    assert cc == m.get_compile_config()
    assert sorted(cc) == ref["compile_config_keys"]
    assert cc["optimizer"]["class_name"] == ref["optimizer_class"]
    assert sorted(cc["optimizer"]["config"]) == ref["optimizer_config_keys"]
    loss = cc["loss"] if isinstance(cc["loss"], str) else cc["loss"]["class_name"]
    assert loss == ref["loss"]
    lr = cc["optimizer"]["config"]["learning_rate"]
    if isinstance(ref["learning_rate"], float):
        assert lr == pytest.approx(ref["learning_rate"], rel=1e-7)
    else:
        assert lr["class_name"] == ref["learning_rate"]
    names = [m_ if isinstance(m_, str) else m_["class_name"] for m_ in cc["metrics"] or []]
    assert names == [m_ if isinstance(m_, str) else m_["class_name"]
                     for m_ in ref["metrics"] or []]
    for key in ("weighted_metrics", "run_eagerly", "steps_per_execution", "jit_compile"):
        assert cc[key] == ref[key], key


@pytest.mark.parametrize("suffix", [".keras", ".h5", ""])
@pytest.mark.parametrize("form", FORMS)
def test_loaded_model_evaluates_and_keeps_training_as_keras(form, suffix, tmp_path):
    if suffix == ".h5":
        pytest.importorskip("h5py")       # the [h5] extra
    ref = REF["forms"][form]
    m = _trained(form)
    path = str(tmp_path / ("m" + suffix))
    m.save(path)
    n = fe.keras.models.load_model(path)
    assert type(n.optimizer) is type(m.optimizer)
    assert int(n.optimizer.iterations) == ref["iterations_after_load"]
    _close(m.evaluate(X, Y, verbose=0), ref["evaluate_original"])
    _close(n.evaluate(X, Y, verbose=0), ref["evaluate_loaded"])
    # one more step: identical only when the optimizer state (iterations, slots) came back
    m.fit(X, Y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    n.fit(X, Y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(m.get_weights(), n.get_weights()):
        np.testing.assert_array_equal(a, b)
    for got, want in zip(n.get_weights(), ref["weights_after_step_loaded"]):
        _close(got, want)


def test_slots_restored_not_fresh(tmp_path):
    m = _trained("strings")
    m.save(str(tmp_path / "m.keras"))
    n = fe.keras.models.load_model(str(tmp_path / "m.keras"))
    for v, w in zip(m.trainable_variables, n.trainable_variables):
        for slot in ("m", "v"):
            got = m.optimizer.get_slot(v, slot), n.optimizer.get_slot(w, slot)
            assert np.abs(np.asarray(got[0])).max() > 0
            np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(got[1]))


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_compile_false_gives_uncompiled_model(suffix, tmp_path):
    if suffix == ".h5":
        pytest.importorskip("h5py")
    ref = REF["forms"]["strings"]
    path = str(tmp_path / ("m" + suffix))
    _trained("strings").save(path)
    u = fe.keras.models.load_model(path, compile=False)
    assert not ref["uncompiled_has_optimizer"] and u.optimizer is None
    with pytest.raises(ValueError, match="You must call `compile"):     # Keras 3's error
        u.evaluate(X, Y, verbose=0)
    _close(u.predict(X, verbose=0), fe.keras.models.load_model(path).predict(X, verbose=0))


def test_h5_training_config_in_keras_layout(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = str(tmp_path / "m.h5")
    _trained("strings").save(path)
    with h5py.File(path, "r") as f:
        tc = json.loads(f.attrs["training_config"])
    assert sorted(tc) == sorted(["optimizer_config"] + [
        k for k in REF["forms"]["strings"]["compile_config_keys"] if k != "optimizer"])
    assert tc["optimizer_config"]["class_name"] == "Adam" and tc["loss"] == "mse"


def test_uncompiled_model_saves_no_compile_config(tmp_path):
    path = str(tmp_path / "m.keras")
    _model().save(path)
    assert "compile_config" not in json.loads(zipfile.ZipFile(path).read("config.json"))
    n = fe.keras.models.load_model(path)
    assert n.optimizer is None and n.get_compile_config() is None


def _rewrite(path, out, edit):
    """Copy a .keras zip with its config.json changed by ``edit(desc)``."""
    with zipfile.ZipFile(path) as z:
        desc = json.loads(z.read("config.json"))
        weights = z.read("model.weights.safetensors")
    edit(desc)
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("config.json", json.dumps(desc))
        z.writestr("model.weights.safetensors", weights)
    return out


def test_old_file_without_compile_config_loads_uncompiled(tmp_path):
    src = str(tmp_path / "m.keras")
    _trained("strings").save(src)
    old = _rewrite(src, str(tmp_path / "old.keras"), lambda d: d.pop("compile_config"))
    n = fe.keras.models.load_model(old)      # the optimizer's saved values are unused
    assert n.optimizer is None
    _close(n.predict(X, verbose=0), _trained("strings").predict(X, verbose=0))


def test_custom_loss_unregistered_and_registered(tmp_path):
    def my_loss(y_true, y_pred):
        return fe.reduce_mean(fe.square(y_true - y_pred), axis=-1)
    m = _model()
    m.compile(optimizer="sgd", loss=my_loss)
    m.fit(X, Y, verbose=0)
    path = str(tmp_path / "m.keras")
    m.save(path)
    # Keras 3.15.1 raises TypeError ("Could not locate function 'my_loss'")
    with pytest.raises(TypeError, match="my_loss"):
        fe.keras.models.load_model(path)
    assert fe.keras.models.load_model(path, compile=False).optimizer is None
    n = fe.keras.models.load_model(path, custom_objects={"my_loss": my_loss})
    _close(n.evaluate(X, Y, verbose=0), m.evaluate(X, Y, verbose=0))


BAD = [
    ("not a dict", lambda cc: [1, 2], DataLossError),
    ("unknown key", lambda cc: dict(cc, exec_this="x"), DataLossError),
    ("optimizer number", lambda cc: dict(cc, optimizer=3), DataLossError),
    ("run_eagerly text", lambda cc: dict(cc, run_eagerly="yes"), DataLossError),
    ("steps negative", lambda cc: dict(cc, steps_per_execution=-1), DataLossError),
    ("steps float", lambda cc: dict(cc, steps_per_execution=1.5), DataLossError),
    ("unknown optimizer class", lambda cc: dict(cc, optimizer={
        "class_name": "Popen", "module": "subprocess", "config": {"args": "id"}}), TypeError),
    ("optimizer is a layer", lambda cc: dict(cc, optimizer={
        "class_name": "Dense", "config": {"units": 1}}), TypeError),
    ("optimizer bad config", lambda cc: dict(cc, optimizer={
        "class_name": "Adam", "config": {"no_such_arg": 1}}), DataLossError),
    ("optimizer config list", lambda cc: dict(cc, optimizer={
        "class_name": "Adam", "config": [1]}), DataLossError),
    ("unknown loss name", lambda cc: dict(cc, loss="os.system"), TypeError),
    ("unknown loss class", lambda cc: dict(cc, loss={
        "class_name": "Evil", "module": "os", "config": {}}), TypeError),
    ("lambda loss", lambda cc: dict(cc, loss={
        "class_name": "__lambda__", "config": {"code": "AAAA"}}), fe.errors.InvalidArgumentError),
    ("unknown metric", lambda cc: dict(cc, metrics=["nope_metric"]), TypeError),
    ("deep nesting", lambda cc: dict(cc, metrics=_deep(300)), DataLossError),
]


def _deep(n):
    v = []
    for _ in range(n):
        v = [v]
    return v


@pytest.mark.parametrize("case", BAD, ids=[b[0] for b in BAD])
def test_malformed_compile_config_typed_error(case, tmp_path):
    _, edit, err = case
    src = str(tmp_path / "m.keras")
    _trained("strings").save(src)
    bad = _rewrite(src, str(tmp_path / "bad.keras"),
                   lambda d: d.__setitem__("compile_config", edit(d["compile_config"])))
    with pytest.raises(err):
        fe.keras.models.load_model(bad)
    # compile=False does not read it (as Keras)
    assert fe.keras.models.load_model(bad, compile=False).optimizer is None


def test_malformed_h5_training_config_typed_error(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = str(tmp_path / "m.h5")
    _trained("strings").save(path)
    for raw in (b"\xff\xfe", "{not json", "[1, 2]", json.dumps({"optimizer_config": 5})):
        with h5py.File(path, "r+") as f:
            f.attrs["training_config"] = raw
        with pytest.raises(DataLossError):
            fe.keras.models.load_model(path)


def test_compile_from_config_api():
    m = _trained("objects")
    n = _model()
    n.compile_from_config(m.get_compile_config())
    assert isinstance(n.optimizer, fe.keras.optimizers.SGD) and n.optimizer.momentum == 0.9
    assert n.optimizer is not m.optimizer
    _close(n.evaluate(X, Y, verbose=0), _model_eval_after_compile(m))


def _model_eval_after_compile(m):
    k = _model()
    k.compile(**_forms()["objects"])
    return k.evaluate(X, Y, verbose=0)


def test_metric_config_without_module_loads(tmp_path):
    # the bare class name "MeanAbsoluteError" finds the loss class first; as a metric it
    # must still work (Keras 3 logs a Loss object used as a metric by its name)
    src = str(tmp_path / "m.keras")
    m = _trained("objects")
    m.save(src)
    n = fe.keras.models.load_model(_rewrite(src, str(tmp_path / "n.keras"), lambda d: d[
        "compile_config"]["metrics"][0].pop("module")))
    _close(n.evaluate(X, Y, verbose=0), m.evaluate(X, Y, verbose=0))
    assert "mean_absolute_error" in n.evaluate(X, Y, verbose=0, return_dict=True)
