"""Losses and metrics against values recorded from Keras 3.15.1 (issue 34).

The recorder is tests/tf_reference/record_losses_metrics.py; its inputs are stored with the
values, so each case here runs the same arrays through fasteager.
"""
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
