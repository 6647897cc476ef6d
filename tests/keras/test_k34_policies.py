"""Dtype policies, mixed precision and keras.config switches of issue 34 (part L4) against
values recorded from Keras 3.15.1 (tests/tf_reference/record_k34_policies.py)."""
import logging
import math

import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

K = fe.keras
REF = load("k34_policies")


@pytest.fixture(autouse=True)
def _reset_globals():
    yield
    # back to "no policy set" (layers then follow floatx, as before any set_dtype_policy)
    K.dtype_policies._global_policy = None
    K.config.set_max_epochs(None)
    K.config.set_max_steps_per_epoch(None)
    K.config.enable_interactive_logging()
    K.config.enable_flash_attention()
    K.config.enable_traceback_filtering()


def _raises(ref, fn):
    cls = {"ValueError": ValueError, "TypeError": TypeError}[ref[0]]
    with pytest.raises(cls) as info:
        fn()
    assert str(info.value) == ref[1]


# ---- policies ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", REF["policies"], ids=lambda c: c["name"])
def test_policy(case):
    p = K.DTypePolicy(case["name"])
    assert (p.name, p.compute_dtype, p.variable_dtype) == \
        (case["name"], case["compute"], case["variable"])
    assert p.get_config() == case["config"]
    assert K.dtype_policies.serialize(p) == case["serialized"]
    assert repr(p) == case["repr"]
    assert repr(K.FloatDTypePolicy(case["name"])) == case["float_repr"]
    assert (K.FloatDTypePolicy(case["name"]) == p) == case["eq_float"]
    assert p.quantization_mode == case["quantization_mode"]
    back = K.dtype_policies.deserialize(case["serialized"])
    assert back == p and type(back) is K.DTypePolicy
    assert K.dtype_policies.DTypePolicy.from_config(p.get_config()) == p
    assert K.mixed_precision.Policy is K.DTypePolicy is K.mixed_precision.DTypePolicy


def test_policy_errors():
    _raises(REF["policy_errors"]["foo"], lambda: K.DTypePolicy("foo"))
    _raises(REF["policy_errors"]["int"], lambda: K.DTypePolicy(3))
    _raises(REF["get"]["bad"], lambda: K.dtype_policies.get(3.5))


def test_bfloat16_is_a_clear_error():
    # fasteager has no bfloat16 dtype (Keras accepts the name): a ValueError naming it
    for name in ("mixed_bfloat16", "bfloat16"):
        with pytest.raises(ValueError, match="no bfloat16"):
            K.DTypePolicy(name)
        with pytest.raises(ValueError, match="no bfloat16"):
            K.layers.Dense(2, dtype=name)


def test_get():
    g = REF["get"]
    assert K.dtype_policies.get(None).name == g["none"]
    assert K.dtype_policies.get("mixed_float16").name == g["str"]
    assert K.dtype_policies.get({"class_name": "DTypePolicy",
                                 "config": {"name": "float16"}}).name == g["dict"]
    p = K.DTypePolicy("float16")
    assert K.dtype_policies.get(p) is p
    assert K.dtype_policies.get(fe.float64).name == "float64"


def test_policy_map():
    ref = REF["policy_map"]
    pm = K.dtype_policies.DTypePolicyMap(default_policy="float32")
    pm["encoder/dense"] = "mixed_float16"
    pm["encoder/.*"] = "float16"
    pm["decoder"] = K.DTypePolicy("float64")
    assert pm.get_config() == ref["config"]
    assert K.dtype_policies.serialize(pm) == ref["serialized"]
    assert {k: pm[k].name for k in ref["lookups"]} == ref["lookups"]
    assert (pm.name, pm.compute_dtype, pm.variable_dtype) == \
        (ref["name"], ref["compute"], ref["variable"])
    _raises(ref["dup"], lambda: pm.__setitem__("decoder", "float32"))
    back = K.dtype_policies.deserialize(ref["serialized"])
    assert isinstance(back, K.dtype_policies.DTypePolicyMap)
    assert {k: back[k].name for k in ref["lookups"]} == ref["lookups"]
    pm2 = K.dtype_policies.DTypePolicyMap()
    assert pm2.get_config() == REF["policy_map_default"]["config"]
    assert pm2.name == REF["policy_map_default"]["name"]
    pm["encoder/.+"] = "float64"          # two patterns now match: Keras refuses
    with pytest.raises(ValueError, match="matches multiple"):
        pm["encoder/attention"]


def test_global_policy():
    g = REF["global"]
    assert K.config.dtype_policy().name == g["default"]
    assert K.mixed_precision.global_policy().name == g["legacy_default"]
    K.config.set_dtype_policy("mixed_float16")
    d = K.layers.Dense(2)
    a = g["after_set"]
    assert K.mixed_precision.global_policy().name == a["global"]
    assert (d.dtype_policy.name, d.dtype, d.compute_dtype, d.variable_dtype) == \
        (a["dense"], a["dtype"], a["compute"], a["variable"])
    assert K.layers.Dense(2, dtype="float32").dtype_policy.name == a["float32_layer"]
    K.mixed_precision.set_global_policy("float32")
    assert K.config.dtype_policy().name == g["reset"]
    _raises(g["bad"], lambda: K.config.set_dtype_policy(3))


# ---- layers -----------------------------------------------------------------------------
_LAYERS = {"Dense": K.layers.Dense, "Dense_float16": K.layers.Dense,
           "Conv2D": K.layers.Conv2D, "LayerNormalization": K.layers.LayerNormalization,
           "BatchNormalization": K.layers.BatchNormalization, "LSTM": K.layers.LSTM,
           "Embedding": K.layers.Embedding}


@pytest.mark.parametrize("case", REF["layers"], ids=lambda c: c["kind"])
def test_layer_values_and_gradients(case):
    config = dict(case["config"])
    config.pop("quantization_config", None)     # quantization is not in fasteager
    layer = _LAYERS[case["kind"]].from_config(config)
    x = np.asarray(case["x"], case["x_dtype"])
    layer.build(x.shape)
    layer.set_weights([np.asarray(w, np.float32) for w in case["weights"]])
    assert [w.dtype.name for w in layer.weights] == case["weight_dtypes"]
    assert (layer.dtype, layer.compute_dtype, layer.variable_dtype) == \
        (case["dtype"], case["compute"], case["variable"])
    # fasteager writes a one-dtype policy as its name (the other layer records compare so);
    # a mixed one as Keras's serialized policy
    expected = case["config"]["dtype"]
    if case["compute"] == case["variable"]:
        expected = expected["config"]["name"]
    assert layer.get_config()["dtype"] == expected
    with fe.GradientTape() as tape:
        y = layer(x)
        s = fe.reduce_sum(fe.cast(y, "float32") ** 2)
    grads = tape.gradient(s, layer.trainable_weights)
    assert y.dtype.name == case["y_dtype"]
    # float16 computation: about 3 significant digits
    np.testing.assert_allclose(np.asarray(y, np.float32), case["y"], rtol=1e-2, atol=1e-2)
    assert [g.dtype.name for g in grads] == case["grad_dtypes"]
    for g, ref in zip(grads, case["grads"]):
        g = fe.convert_to_tensor(g) if isinstance(g, fe.IndexedSlices) else g
        np.testing.assert_allclose(np.asarray(g, np.float32), ref, rtol=2e-2, atol=5e-2)


def test_mixed_model():
    ref = REF["model"]
    inp = K.Input((4,))
    h = K.layers.Dense(3, dtype="mixed_float16", name="mixed")(inp)
    out = K.layers.Dense(2, dtype="float32", name="head")(h)
    model = K.Model(inp, out)
    model.set_weights([np.asarray(w, np.float32) for w in ref["weights"]])
    assert h.dtype.name == ref["hidden_dtype"]
    x = np.asarray(ref["x"])
    y = model(x)
    assert y.dtype.name == ref["y_dtype"]
    np.testing.assert_allclose(y.numpy(), ref["y"], rtol=1e-2, atol=1e-2)
    loss = K.losses.MeanSquaredError()(np.ones((3, 3), "float32"), model.get_layer("mixed")(x))
    assert loss.dtype.name == ref["loss_dtype"]


def test_float32_layers_unchanged():
    # no policy given: float32 weights and outputs, plain (not autocast) variables
    d = K.layers.Dense(2)
    y = d(np.ones((1, 3)))
    assert y.dtype == fe.float32 and type(d.kernel) is fe.keras.Variable
    assert d.get_config()["dtype"] == "float32"


def test_nested_float32_layer_reads_float32_inside_mixed_layer():
    class Outer(K.layers.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.inner = K.layers.Dense(2, dtype="float32")

        def call(self, x):
            return self.inner(x)

    o = Outer(dtype="mixed_float16")
    y = o(np.ones((1, 3), "float32"))
    assert y.dtype == fe.float32          # the inner layer's own policy
    assert o.inner.kernel.dtype == fe.float32


# ---- LossScaleOptimizer -----------------------------------------------------------------
def test_loss_scale_optimizer_steps():
    ref = REF["loss_scale"]
    opt = K.optimizers.LossScaleOptimizer(K.optimizers.SGD(0.1), initial_scale=8.0,
                                          dynamic_growth_steps=2)
    assert K.mixed_precision.LossScaleOptimizer is K.optimizers.LossScaleOptimizer
    v = K.Variable(np.array([1.0, 2.0], "float32"))
    for step in ref["steps"]:
        grad = np.array([float(g) for g in step["grad"]], "float32")
        opt.apply([fe.constant(grad)], [v])
        np.testing.assert_allclose(v.numpy(), step["v"], rtol=1e-6)
        assert float(opt.dynamic_scale.numpy()) == step["scale"]
        assert int(opt.step_counter.numpy()) == step["counter"]
        assert int(opt.iterations.numpy()) == step["iterations"]
    assert opt.get_config() == ref["config"]
    assert math.isclose(float(opt.scale_loss(fe.constant(1.5))), ref["scaled_loss"])
    default = K.optimizers.LossScaleOptimizer(K.optimizers.Adam()).get_config()
    expected = dict(ref["default_config"], name="loss_scale_optimizer")   # (Keras numbers it)
    assert default == expected
    back = K.optimizers.LossScaleOptimizer.from_config(ref["config"])
    assert back.get_config() == ref["config"]
    assert type(K.optimizers.deserialize(
        {"class_name": "LossScaleOptimizer", "config": ref["config"]})).__name__ == \
        "LossScaleOptimizer"


def test_loss_scale_optimizer_errors():
    e = REF["loss_scale"]["errors"]
    _raises(e["dynamic"], lambda: K.optimizers.LossScaleOptimizer(K.optimizers.SGD(),
                                                                  dynamic=False))
    _raises(e["clipnorm"], lambda: K.optimizers.LossScaleOptimizer(K.optimizers.SGD(),
                                                                   clipnorm=1.0))
    _raises(e["other"], lambda: K.optimizers.LossScaleOptimizer(K.optimizers.SGD(), foo=1))


def test_fit_mixed_float16():
    ref = REF["fit"]
    K.config.set_dtype_policy("mixed_float16")
    m = K.Sequential([K.Input((4,)), K.layers.Dense(8, activation="relu"), K.layers.Dense(1)])
    m.set_weights([np.asarray(w, np.float32) for w in ref["weights"]])
    m.compile(optimizer=K.optimizers.SGD(0.02), loss="mse")
    x, y = np.asarray(ref["x"], np.float32), np.asarray(ref["y"], np.float32)
    hist = m.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0)
    assert type(m.optimizer).__name__ == ref["optimizer"]
    losses = hist.history["loss"]
    assert all(b < a for a, b in zip(losses, losses[1:]))          # it trains
    np.testing.assert_allclose(losses, ref["loss"], rtol=2e-2)
    # the same overflowing first steps are skipped and the scale lands where Keras's does
    assert float(m.optimizer.dynamic_scale.numpy()) == ref["scale"]
    assert int(m.optimizer.iterations.numpy()) == ref["iterations"]
    assert [w.dtype.name for w in m.weights] == ref["weight_dtypes"]
    assert m(x).dtype.name == ref["out_dtype"]
    assert m.layers[0](x).dtype == fe.float16       # activations in float16
    for w, f in zip(m.get_weights(), ref["final"]):
        np.testing.assert_allclose(w, f, rtol=2e-2, atol=2e-2)


def test_auto_scale_loss_off():
    K.config.set_dtype_policy("mixed_float16")
    m = K.Sequential([K.Input((2,)), K.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse", auto_scale_loss=False)
    assert type(m.optimizer).__name__ == "SGD"


# ---- keras.config -----------------------------------------------------------------------
def test_config_switches():
    c = REF["config"]
    C = K.config
    assert [C.max_epochs(), C.max_steps_per_epoch(), C.is_flash_attention_enabled(),
            C.is_traceback_filtering_enabled(), C.is_interactive_logging_enabled()] == \
        [c["max_epochs"], c["max_steps_per_epoch"], c["flash"], c["traceback"],
         c["interactive"]]
    C.disable_flash_attention()
    C.disable_traceback_filtering()
    C.disable_interactive_logging()
    assert [C.is_flash_attention_enabled(), C.is_traceback_filtering_enabled(),
            C.is_interactive_logging_enabled()] == c["disabled"]
    C.enable_flash_attention()
    C.enable_traceback_filtering()
    C.enable_interactive_logging()
    assert [C.is_flash_attention_enabled(), C.is_traceback_filtering_enabled(),
            C.is_interactive_logging_enabled()] == c["enabled"]


def test_fit_honours_max_epochs_and_steps():
    c = REF["config"]["limited"]
    K.config.set_max_epochs(2)
    K.config.set_max_steps_per_epoch(3)
    m = K.Sequential([K.Input((2,)), K.layers.Dense(1)])
    m.compile("sgd", "mse")
    with pytest.warns(UserWarning, match="Limiting"):
        h = m.fit(np.ones((40, 2), "float32"), np.ones((40, 1), "float32"), batch_size=4,
                  epochs=5, verbose=0)
    assert len(h.history["loss"]) == c["epochs"]
    assert int(m.optimizer.iterations.numpy()) == c["iterations"]
    # evaluate and predict take the steps cap too (the first 3 batches of 4)
    xl = np.arange(80, dtype="float32").reshape(40, 2) / 40
    m.set_weights([np.array([[0.5], [-1.0]], "float32"), np.array([0.25], "float32")])
    with pytest.warns(UserWarning, match="Limiting"):
        assert len(m.predict(xl, batch_size=4, verbose=0)) == c["predict_rows"]
    with pytest.warns(UserWarning, match="Limiting"):
        loss = m.evaluate(xl, np.zeros((40, 1), "float32"), batch_size=4, verbose=0)
    assert math.isclose(loss, c["evaluate"], rel_tol=1e-6)


def test_interactive_logging_off_sends_progress_to_logging(capsys, caplog):
    m = K.Sequential([K.Input((2,)), K.layers.Dense(1)])
    m.compile("sgd", "mse")
    x, y = np.ones((8, 2), "float32"), np.ones((8, 1), "float32")
    m.fit(x, y, epochs=1, verbose=1)
    assert "loss" in capsys.readouterr().out
    K.config.disable_interactive_logging()
    with caplog.at_level(logging.INFO, logger="fasteager.keras"):
        m.fit(x, y, epochs=1, verbose=1)
    assert capsys.readouterr().out == ""
    assert "loss" in caplog.text


def test_set_backend():
    K.config.set_backend("tensorflow")
    assert K.config.backend() == "tensorflow"
    with pytest.raises(ValueError, match="only the 'tensorflow' backend"):
        K.config.set_backend("jax")


def test_save_load_mixed_model_with_loss_scale_optimizer(tmp_path):
    m = K.Sequential([K.Input((3,)), K.layers.Dense(4, dtype="mixed_float16"),
                      K.layers.BatchNormalization(dtype="mixed_float16"),
                      K.layers.Dense(1, dtype="float32")])
    m.compile(K.optimizers.LossScaleOptimizer(K.optimizers.Adam(), initial_scale=4.0,
                                              dynamic_growth_steps=1), "mse")
    x = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
    m.fit(x, np.ones((8, 1), "float32"), epochs=3, verbose=0)
    path = str(tmp_path / "m.keras")
    m.save(path)
    m2 = K.models.load_model(path)
    assert m2.layers[0].dtype_policy == K.DTypePolicy("mixed_float16")
    assert type(m2.optimizer).__name__ == "LossScaleOptimizer"
    np.testing.assert_array_equal(m2(x).numpy(), m(x).numpy())
    # the scale, the step count and the inner optimizer's slots come back
    assert float(m2.optimizer.dynamic_scale.numpy()) == float(m.optimizer.dynamic_scale.numpy())
    assert int(m2.optimizer.iterations.numpy()) == int(m.optimizer.iterations.numpy()) == 3
    for a, b in zip(m2.optimizer.variables, m.optimizer.variables):
        assert a.path == b.path
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_mixed_attention_and_stacked_cells_follow_the_policy():
    # sublayers take the layer's policy (MultiHeadAttention's projections) and recurrent
    # states start in the compute dtype: float16 outputs close to the float32 layer's
    x = np.random.default_rng(1).normal(size=(2, 5, 4)).astype("float32")
    ref = K.layers.MultiHeadAttention(2, 4)
    want = ref(x, x).numpy()
    mha = K.layers.MultiHeadAttention(2, 4, dtype="mixed_float16")
    mha(x, x)
    mha.set_weights(ref.get_weights())
    y = mha(x, x)
    assert y.dtype == fe.float16 and {w.dtype for w in mha.weights} == {fe.float32}
    np.testing.assert_allclose(y.numpy().astype(np.float32), want, rtol=1e-2, atol=1e-2)
    K.config.set_dtype_policy("mixed_float16")
    rnn = K.layers.RNN(K.layers.StackedRNNCells([K.layers.SimpleRNNCell(3),
                                                 K.layers.GRUCell(2)]))
    assert rnn(x).dtype == fe.float16
