"""Losses against NumPy formulas for each reduction; metrics against hand-computed values."""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import fasteager as fe
import fasteager.keras as keras
from tests.child_process import child_env

EPS = 1e-7
rng = np.random.RandomState(0)
LOGITS = rng.normal(size=(4, 3)).astype(np.float32)
PROBS = np.exp(LOGITS) / np.exp(LOGITS).sum(1, keepdims=True)
LABELS = np.array([0, 2, 1, 2])
ONEHOT = np.eye(3, dtype=np.float32)[LABELS]
SW = np.array([1.0, 0.5, 0.0, 2.0], np.float32)


def _reduce(per, reduction, sw=None):
    if sw is not None:
        per = per * sw
    if reduction == "none":
        return per
    if reduction == "sum":
        return per.sum()
    return per.sum() / per.size


def _np_losses():
    p = np.clip(PROBS, EPS, 1 - EPS)
    xent = -np.log(p[np.arange(4), LABELS])
    y = rng.rand(4, 3).astype(np.float32)
    bin_t = (y > 0.5).astype(np.float32)
    pr = 1 / (1 + np.exp(-LOGITS))
    prc = np.clip(pr, EPS, 1 - EPS)
    bce = -(bin_t * np.log(prc + EPS) + (1 - bin_t) * np.log(1 - prc + EPS)).mean(1)
    err = LOGITS - y
    hub = np.where(np.abs(err) <= 1.0, 0.5 * err ** 2, np.abs(err) - 0.5).mean(1)
    return [
        (keras.losses.SparseCategoricalCrossentropy(from_logits=True), LABELS, LOGITS, xent),
        (keras.losses.SparseCategoricalCrossentropy(), LABELS, PROBS, xent),
        (keras.losses.CategoricalCrossentropy(from_logits=True), ONEHOT, LOGITS, xent),
        (keras.losses.CategoricalCrossentropy(), ONEHOT, PROBS, xent),
        (keras.losses.BinaryCrossentropy(), bin_t, pr, bce),
        (keras.losses.BinaryCrossentropy(from_logits=True), bin_t, LOGITS, bce),
        (keras.losses.MeanSquaredError(), y, LOGITS, (err ** 2).mean(1)),
        (keras.losses.MeanAbsoluteError(), y, LOGITS, np.abs(err).mean(1)),
        (keras.losses.Huber(), y, LOGITS, hub),
    ]


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_losses_match_numpy(reduction, weighted):
    for loss, y_true, y_pred, per in _np_losses():
        loss.reduction = reduction
        sw = SW if weighted else None
        got = loss(y_true, y_pred, sample_weight=sw).numpy()
        np.testing.assert_allclose(got, _reduce(per, reduction, sw), rtol=1e-4, atol=1e-6,
                                   err_msg=type(loss).__name__)


def test_loss_functions_get_and_errors():
    per = keras.losses.sparse_categorical_crossentropy(LABELS, LOGITS, from_logits=True)
    assert per.shape == (4,)
    assert keras.losses.get("mse") is keras.losses.mean_squared_error
    assert isinstance(keras.losses.get("Huber"), keras.losses.Huber)
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        keras.losses.MeanSquaredError(reduction="average")   # ("mean" is Keras 3's too)
    with pytest.raises(fe.errors.InvalidArgumentError, match="label out of range at row 1"):
        keras.losses.SparseCategoricalCrossentropy(True)([0, 5, 1, 2], LOGITS)
    # stable with extreme logits
    big = np.array([[1000.0, -1000.0]], np.float32)
    v = keras.losses.SparseCategoricalCrossentropy(from_logits=True)([1], big)
    assert np.isfinite(v.numpy()) and float(v) == pytest.approx(2000.0)
    # gradients flow
    x = fe.Variable(LOGITS)
    with fe.GradientTape() as tape:
        val = keras.losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, x)
    g = tape.gradient(val, x).numpy()
    np.testing.assert_allclose(g, (PROBS - ONEHOT) / 4, rtol=1e-4, atol=1e-6)


def test_guide_mean_metric():
    m = keras.metrics.Mean("loss")
    m(0)
    m(5)
    r = m.result()
    assert r.dtype == fe.float32 and r.shape == () and float(r) == 2.5
    m([8, 9])
    assert float(m.result()) == 5.5
    assert all(not v.trainable for v in m.variables)
    m.reset_state()
    assert float(m.result()) == 0.0
    m.update_state([1.0, 3.0], sample_weight=[3.0, 1.0])
    assert float(m.result()) == 1.5
    m.reset_state()
    s = keras.metrics.Sum()
    s([1, 2, 3])
    assert float(s.result()) == 6


def test_accuracy_metrics():
    m = keras.metrics.SparseCategoricalAccuracy()
    m.update_state(LABELS, PROBS)
    expect = (PROBS.argmax(1) == LABELS).mean()
    assert float(m.result()) == pytest.approx(expect)
    m2 = keras.metrics.SparseCategoricalAccuracy()
    m2.update_state(LABELS[:, None].astype(np.float32), PROBS)      # (N, 1) float labels
    assert float(m2.result()) == pytest.approx(expect)
    c = keras.metrics.CategoricalAccuracy()
    assert float(c(ONEHOT, PROBS)) == pytest.approx(expect)
    b = keras.metrics.BinaryAccuracy()
    assert float(b([[1], [0], [1], [0]], [[0.9], [0.2], [0.4], [0.6]])) == 0.5
    a = keras.metrics.Accuracy()
    assert float(a([1, 2, 3, 4], [1, 2, 0, 4])) == 0.75
    mse = keras.metrics.MeanSquaredError()
    assert float(mse([[0.0, 1.0]], [[1.0, 1.0]])) == 0.5
    p = keras.metrics.Precision()
    r = keras.metrics.Recall()
    t, pr = [1, 0, 1, 1], [0.9, 0.8, 0.3, 0.7]
    assert float(p(t, pr)) == pytest.approx(2 / 3) and float(r(t, pr)) == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        keras.metrics.get("nope")


def test_accuracy_string_resolution():
    from fasteager.keras._compile import _resolve_metric
    logits = fe.zeros([4, 3])
    assert isinstance(_resolve_metric("accuracy", fe.constant(LABELS), logits, None),
                      keras.metrics.SparseCategoricalAccuracy)
    assert isinstance(_resolve_metric("accuracy", fe.constant(ONEHOT), logits, None),
                      keras.metrics.CategoricalAccuracy)
    assert isinstance(_resolve_metric("accuracy", fe.zeros([4, 1]), fe.zeros([4, 1]), None),
                      keras.metrics.BinaryAccuracy)


def test_train_mnist_example_quick(tmp_path):
    root = pathlib.Path(__file__).resolve().parents[2]
    data = root.parent / "shared" / "data" / "mnist"
    if not data.is_dir() and "FASTEAGER_DATA" not in os.environ:
        pytest.skip("no MNIST copy")
    env = child_env()
    for loop in ("fit", "tape"):
        out = subprocess.run(
            [sys.executable, str(root / "examples" / "train_mnist.py"), "--steps", "30",
             "--epochs", "1", "--loop", loop, "--logdir", str(tmp_path / loop)],
            env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        assert "test accuracy" in out.stdout
        # the tape loop prints its own epoch lines; fit prints none for one epoch (Keras 3)
        assert ("Epoch 1/1" in out.stdout) == (loop == "tape")
        assert re.search(r"/step - (accuracy|loss): \d\.\d{4}", out.stdout)
        acc = float(out.stdout.split("test accuracy: ")[1].split()[0])
        assert acc > 0.6
        assert list((tmp_path / loop / "train").glob("events.out.tfevents.*"))


# -- metrics updated inside fe.function: fasteager ops, so the function stays a graph ----
@pytest.mark.parametrize("make, data", [
    (lambda: fe.keras.metrics.Mean(), lambda r: (r.rand(6).astype(np.float32),)),
    (lambda: fe.keras.metrics.Sum(), lambda r: (r.rand(6).astype(np.float32),)),
    (lambda: fe.keras.metrics.SparseCategoricalAccuracy(),
     lambda r: (r.randint(0, 3, 8), r.rand(8, 3).astype(np.float32))),
    (lambda: fe.keras.metrics.Accuracy(), lambda r: (r.randint(0, 2, 8), r.randint(0, 2, 8))),
    (lambda: fe.keras.metrics.CategoricalAccuracy(),
     lambda r: (np.eye(3, dtype=np.float32)[r.randint(0, 3, 8)], r.rand(8, 3).astype(np.float32))),
    (lambda: fe.keras.metrics.BinaryAccuracy(),
     lambda r: (r.randint(0, 2, (8, 1)).astype(np.float32), r.rand(8, 1).astype(np.float32))),
    (lambda: fe.keras.metrics.MeanSquaredError(),
     lambda r: (r.rand(4, 3).astype(np.float32), r.rand(4, 3).astype(np.float32))),
])
def test_metric_updates_inside_a_function_match_eager_ones(make, data):
    import warnings
    rng = np.random.RandomState(0)
    batches = [data(rng) for _ in range(3)]
    eager, traced = make(), make()
    for b in batches:
        eager.update_state(*b)
    f = fe.function(lambda *args: (traced.update_state(*args), traced.result())[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # no "runs eagerly on every call"
        for b in batches:
            last = f(*[fe.constant(a) for a in b])
    assert float(traced.result()) == pytest.approx(float(eager.result()), rel=1e-6)
    assert float(last) == pytest.approx(float(eager.result()), rel=1e-6)


def test_weighted_mean_inside_a_function():
    m = fe.keras.metrics.Mean()
    f = fe.function(lambda v, w: m.update_state(v, sample_weight=w))
    f(fe.constant([1.0, 2.0, 3.0]), fe.constant([1.0, 0.0, 3.0]))
    assert float(m.result()) == pytest.approx(10.0 / 4.0)


def test_divide_no_nan():
    x, y = fe.constant([1.0, 2.0, 3.0]), fe.constant([0.0, 2.0, 4.0])
    assert fe.math.divide_no_nan(x, y).numpy().tolist() == [0.0, 1.0, 0.75]
    with fe.GradientTape() as tape:
        tape.watch([x, y])
        z = fe.reduce_sum(fe.math.divide_no_nan(x, y))
    gx, gy = tape.gradient(z, [x, y])
    assert gx.numpy().tolist() == [0.0, 0.5, 0.25]
    assert gy.numpy().tolist() == [0.0, -0.5, -0.1875]
    assert fe.math.multiply_no_nan(fe.constant([np.inf, 2.0]), fe.constant([0.0, 3.0])
                                   ).numpy().tolist() == [0.0, 6.0]


def test_metrics_have_keras_3s_reset_state_only():
    m = fe.keras.metrics.Mean()
    m.update_state([1.0, 3.0])
    m.reset_state()
    assert float(m.result()) == 0.0
    with pytest.raises(AttributeError):
        m.reset_states            # Keras 2's name: gone in Keras 3 (the effective_tf2 guide)
