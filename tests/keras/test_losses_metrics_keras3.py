"""Losses and metrics against values recorded from Keras 3.15.1 (issue 34).

The recorder is tests/tf_reference/record_losses_metrics.py; its inputs are stored with the
values, so each case here runs the same arrays through fasteager.
"""
import re

import numpy as np
import pytest

import fasteager as fe
from fasteager import keras
from tests.tf_reference import load

REF = load("losses_metrics")


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


# ---- SparseCategoricalCrossentropy(ignore_class=...) ------------------------------------------

def _scce_case_id(case):
    return "%s-logits=%s-ignore=%s-%s-w=%s" % (case["case"], case["from_logits"],
                                               case["ignore_class"], case["reduction"],
                                               case["weighted"])


@pytest.mark.parametrize("case", REF["scce"], ids=_scce_case_id)
def test_sparse_categorical_crossentropy_matches_keras(case):
    inp = REF["scce_inputs"]
    if case["case"] == "3d":
        yt = np.array(inp["labels3"], np.int64)
        z = np.array(inp["logits3"], np.float32)
        w = np.array(inp["sw3"], np.float32) if case["weighted"] else None
    else:
        yt = np.array(inp["labels"], np.int64)
        if case["case"] == "2d_col":
            yt = yt[:, None]
        z = np.array(inp["logits"], np.float32)
        w = np.array(inp["sw"], np.float32) if case["weighted"] else None
    yp = z if case["from_logits"] else _softmax(z)
    loss = keras.losses.SparseCategoricalCrossentropy(
        from_logits=case["from_logits"], ignore_class=case["ignore_class"],
        reduction=case["reduction"])
    x = fe.Variable(yp)
    with fe.GradientTape() as tape:
        v = loss(yt, x, sample_weight=w)
        total = fe.reduce_sum(v)
    g = tape.gradient(total, x)
    np.testing.assert_allclose(v.numpy(), case["value"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(g.numpy(), case["grad"], rtol=2e-4, atol=1e-6)
    fn = keras.losses.sparse_categorical_crossentropy(
        yt, yp, from_logits=case["from_logits"], ignore_class=case["ignore_class"])
    np.testing.assert_allclose(fn.numpy(), case["fn"], rtol=2e-5, atol=1e-6)


def test_sparse_categorical_crossentropy_all_ignored_is_zero():
    logits = np.array(REF["scce_inputs"]["logits"], np.float32)[:3]
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)
    v = loss(np.zeros(3, np.int64), logits)
    assert float(v) == REF["scce_all_ignored"] == 0.0


def test_sparse_categorical_crossentropy_axis_and_config():
    with pytest.raises(ValueError, match="Only axis=-1 is currently supported"):
        keras.losses.sparse_categorical_crossentropy([0, 1], np.ones((2, 3), np.float32),
                                                     axis=0)
    loss = keras.losses.SparseCategoricalCrossentropy(ignore_class=2, reduction="mean")
    cfg = loss.get_config()
    assert cfg["ignore_class"] == 2 and cfg["reduction"] == "mean"
    again = keras.losses.SparseCategoricalCrossentropy.from_config(cfg)
    assert again.reduction == "mean" and again.name == "sparse_categorical_crossentropy"


def test_ignore_class_in_fit_averages_over_valid_labels():
    # the compiled loss is the same object: evaluate() reports the mean over valid labels
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True,
                                                                  ignore_class=0))
    x = np.random.RandomState(0).randn(6, 4).astype(np.float32)
    y = np.array([0, 1, 2, 0, 2, 1])
    logits = model(x).numpy()
    per = -np.log(_softmax(logits)[np.arange(6), y])
    expected = per[y != 0].mean()
    got = model.evaluate(x, y, batch_size=6, verbose=0)
    assert got == pytest.approx(expected, rel=1e-5)


# ---- functional metrics: per-element shapes ---------------------------------------------------

def _fn_input(key):
    v = np.asarray(REF["fn_inputs"][key])
    return v.astype(np.int64) if v.dtype.kind == "i" else v.astype(np.float32)


@pytest.mark.parametrize("name", sorted(REF["fns"]))
def test_functional_metrics_shapes_and_values(name):
    case = REF["fns"][name]
    fn = getattr(keras.metrics, case["fn"])
    v = fn(_fn_input(case["y_true"]), _fn_input(case["y_pred"]), **case["kwargs"])
    v = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
    assert list(v.shape) == case["shape"]
    np.testing.assert_allclose(v, case["value"], rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(REF["wrappers"]))
def test_metric_wrappers_match_keras(name):
    case = REF["wrappers"][name]
    m = {"binary_accuracy_w": lambda: keras.metrics.BinaryAccuracy(),
         "binary_accuracy_w2": lambda: keras.metrics.BinaryAccuracy(),
         "bce_ls": lambda: keras.metrics.BinaryCrossentropy(label_smoothing=0.1),
         "bce_ls_logits": lambda: keras.metrics.BinaryCrossentropy(from_logits=True,
                                                                   label_smoothing=0.3),
         "cce_ls": lambda: keras.metrics.CategoricalCrossentropy(label_smoothing=0.2),
         "scce_ignore": lambda: keras.metrics.SparseCategoricalCrossentropy(ignore_class=2),
         "top_k_3d": lambda: keras.metrics.TopKCategoricalAccuracy(k=2)}[name]()
    w = case["sample_weight"]
    m.update_state(_fn_input(case["y_true"]), _fn_input(case["y_pred"]),
                   sample_weight=None if w is None else np.asarray(w, np.float32))
    assert float(m.result()) == pytest.approx(case["value"], rel=1e-5)


def test_binary_accuracy_inside_a_function_is_per_element():
    t = _fn_input("t23")
    p = _fn_input("p23")
    traced = fe.function(lambda a, b: keras.metrics.binary_accuracy.traced(a, b))
    np.testing.assert_array_equal(traced(t, p).numpy(), REF["fns"]["binary_accuracy"]["value"])


# ---- Precision / Recall ----------------------------------------------------------------------

def _pr_id(case):
    return "%s-%s-%s" % (case["class"], "-".join("%s=%s" % kv for kv in
                                                 sorted(case["kwargs"].items())),
                         "+".join(str(u[2]) for u in case["updates"]))


@pytest.mark.parametrize("case", REF["precision_recall"], ids=_pr_id)
def test_precision_recall_match_keras(case):
    inp = {k: np.asarray(v, np.float32) for k, v in REF["pr_inputs"].items()}
    m = getattr(keras.metrics, case["class"])(**case["kwargs"])
    assert [v.name for v in m.variables] == case["variables"]
    for (t, p, w), expected in zip(case["updates"], case["results"]):
        m.update_state(inp[t], inp[p], sample_weight=None if w is None else inp[w])
        r = m.result().numpy()
        assert r.shape == np.asarray(expected).shape
        np.testing.assert_allclose(r, expected, rtol=1e-5, atol=1e-7)
    m.reset_state()
    assert not np.any(m.result().numpy())


def test_precision_thresholds_out_of_range_are_refused_as_keras():
    for kwargs, (cls, msg) in REF["pr_errors"].items():
        kwargs = eval(kwargs)          # the recorded repr of a small dict of numbers
        with pytest.raises(ValueError) as e:
            keras.metrics.Precision(**kwargs)
        assert cls == "ValueError" and str(e.value) == msg


def test_precision_config_and_class_id_on_vectors():
    m = keras.metrics.Precision(thresholds=[0.3, 0.7], top_k=2, class_id=1)
    cfg = m.get_config()
    assert (cfg["thresholds"], cfg["top_k"], cfg["class_id"]) == ([0.3, 0.7], 2, 1)
    with pytest.raises(ValueError, match="When class_id is provided, y_pred must be a 2D"):
        keras.metrics.Recall(class_id=0).update_state([1.0, 0.0], [0.7, 0.2])
    with pytest.raises(fe.errors.InvalidArgumentError, match="slice index 5 of dimension 1"):
        keras.metrics.Recall(class_id=5).update_state(np.ones((2, 3)), np.ones((2, 3)))


# ---- a Metric subclass written for Keras 3 -----------------------------------------------------

class _Custom(keras.metrics.Metric):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.a = self.add_variable(shape=(2,), initializer="ones", name="a")
        self.b = self.add_weight(name="b", initializer="zeros")
        self.c = self.add_variable((), "zeros", "int32", name="c")
        self.inner = keras.metrics.Mean(name="inner")

    def update_state(self, x):
        self.a.assign_add(np.ones(2, np.float32) * x)
        self.b.assign_add(2 * x)
        self.c.assign_add(1)
        self.inner.update_state(x)

    def result(self):
        return self.a[0] + self.b + self.inner.result()


def test_metric_subclass_with_add_variable_matches_keras():
    ref = REF["custom"]
    m = _Custom(dtype="float64", name="custom")
    got = [[v.name, v.path, v.dtype.name, v.shape.as_list()] for v in m.variables]
    assert got == ref["variables"]
    assert m.dtype == ref["dtype"]
    assert [float(m(2.0)), float(m(3.0))] == ref["results"]
    assert [v.numpy().tolist() for v in m.variables] == ref["values"]
    m.reset_state()
    assert [v.numpy().tolist() for v in m.variables] == ref["after_reset"]
    assert float(m.result()) == ref["result_after_reset"]


def test_add_variable_errors_are_typed():
    class NoSuper(keras.metrics.Metric):
        def __init__(self):
            self.v = self.add_variable((), "zeros", name="v")

    with pytest.raises(RuntimeError, match=re.escape("forgot to call `super().__init__()`")):
        NoSuper()
    m = keras.metrics.Mean()
    with pytest.raises(ValueError, match="initializer is required"):
        m.add_variable((), None, name="x")
    with pytest.raises(ValueError, match="invalid aggregation"):
        m.add_variable((), "zeros", aggregation="median", name="x")
    # Keras 2's add_weight(name, shape) still reads as a name and a shape
    v = m.add_weight("old", (3,))
    assert v.name == "old" and v.shape.as_list() == [3] and v.dtype == fe.float32


def test_a_mask_on_y_pred_weighs_losses_and_metrics_as_keras():
    ref = REF["masked"]
    emb = keras.layers.Embedding(5, 3, mask_zero=True)
    dense = keras.layers.Dense(4, use_bias=False)
    ids = np.array(ref["ids"])
    dense(emb(ids))
    emb.set_weights([np.array(ref["emb_w"], np.float32)])
    dense.set_weights([np.array(ref["dense_w"], np.float32)])
    out = dense(emb(ids))
    y = np.array(ref["y"])
    w = np.array(ref["w"], np.float32)
    for red, (plain, weighted) in ref["losses"].items():
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=red)
        np.testing.assert_allclose(loss(y, out).numpy(), plain, rtol=1e-5)
        np.testing.assert_allclose(loss(y, out, sample_weight=w).numpy(), weighted, rtol=1e-5)
    acc = keras.metrics.SparseCategoricalAccuracy()
    acc.update_state(y, out)
    assert float(acc.result()) == pytest.approx(ref["accuracy"])


def test_fit_with_ignore_class_matches_keras():
    ref = REF["fit_ignore"]
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.set_weights([np.array(ref["kernel"], np.float32), np.zeros(3, np.float32)])
    model.compile(optimizer=keras.optimizers.SGD(0.5),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True,
                                                                  ignore_class=0))
    hist = model.fit(np.array(ref["x"], np.float32), np.array(ref["y"]), batch_size=4,
                     epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], ref["loss"], rtol=1e-5)
    for got, want in zip(model.get_weights(), ref["weights"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


class _ScaledMSE(keras.losses.Loss):
    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, y_true, y_pred):
        return self.scale * fe.reduce_mean(fe.square(y_pred - y_true), axis=-1)


def test_loss_subclass_written_for_keras_3():
    loss = _ScaledMSE(2.0, name="scaled", reduction="mean_with_sample_weight", dtype="float64")
    assert (loss.name, loss.reduction, loss.dtype) == ("scaled", "mean_with_sample_weight",
                                                       "float64")
    y = np.array([[0.0, 1.0], [1.0, 1.0]])
    p = np.array([[0.5, 1.0], [0.0, 1.0]])
    v = loss(y, p, sample_weight=np.array([1.0, 3.0]))
    # sum(w * 2 * mse) / sum(w) = (1 * 0.25 + 3 * 1.0) / 4
    assert v.dtype == fe.float64 and float(v) == pytest.approx(3.25 / 4)
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        _ScaledMSE(1.0, reduction="average")


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("index", range(len(REF["means"])))
def test_mean_counts_samples_as_keras(index, traced):
    case = REF["means"][index]
    m = keras.metrics.Mean()
    update = fe.function(m.update_state) if traced else m.update_state
    for v, w in case["updates"]:
        update(np.asarray(v, np.float32), None if w is None else np.asarray(w, np.float32))
    assert float(m.result()) == pytest.approx(case["result"], rel=1e-6)


@pytest.mark.parametrize("name", sorted(n for n, c in REF["fns"].items()
                                        if hasattr(getattr(keras.metrics, c["fn"]), "traced")))
def test_traced_accuracies_match_keras(name):
    # the fasteager-ops forms the metrics use inside fe.function
    case = REF["fns"][name]
    fn = getattr(keras.metrics, case["fn"]).traced
    traced = fe.function(lambda a, b: fn(a, b, **case["kwargs"]))
    v = traced(_fn_input(case["y_true"]), _fn_input(case["y_pred"])).numpy()
    assert list(v.shape) == case["shape"]
    np.testing.assert_allclose(v, case["value"], rtol=2e-6, atol=1e-6)
