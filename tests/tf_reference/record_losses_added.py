"""Record Keras 3.15.1's losses that fasteager added in issue 34 (the missing names).

For each case: the loss object's value (default reduction), its per-example losses
(reduction='none'), the 'sum' with sample weights, the gradient of the default value with
respect to y_pred, the function form's output, and get_config. Inputs are stored with the
values.

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_losses_added.py
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

rng = np.random.RandomState(3415)

FUNCS = {
    "BinaryFocalCrossentropy": "binary_focal_crossentropy",
    "CategoricalFocalCrossentropy": "categorical_focal_crossentropy",
    "CategoricalHinge": "categorical_hinge", "Hinge": "hinge", "SquaredHinge": "squared_hinge",
    "CosineSimilarity": "cosine_similarity", "KLDivergence": "kl_divergence",
    "LogCosh": "log_cosh", "Poisson": "poisson",
    "MeanAbsolutePercentageError": "mean_absolute_percentage_error",
    "MeanSquaredLogarithmicError": "mean_squared_logarithmic_error",
    "Dice": "dice", "Tversky": "tversky", "Circle": "circle",
    "CategoricalGeneralizedCrossEntropy": "categorical_generalized_cross_entropy",
    "CTC": "ctc",
}


def f32(*shape):
    return rng.randn(*shape).astype(np.float32)


def probs(n, k):
    z = np.exp(f32(n, k))
    return (z / z.sum(-1, keepdims=True)).astype(np.float32)


def onehot(n, k):
    return np.eye(k, dtype=np.float32)[rng.randint(0, k, n)]


def unit(n, d):
    e = f32(n, d)
    return (e / np.linalg.norm(e, axis=1, keepdims=True)).astype(np.float32)


bin_t = rng.randint(0, 2, (4, 3)).astype(np.float32)
bin_p = rng.uniform(0.02, 0.98, (4, 3)).astype(np.float32)
cases = []


def add(cls, kwargs, yt, yp, sw=True):
    cases.append({"class": cls, "kwargs": kwargs, "y_true": np.asarray(yt).tolist(),
                  "y_pred": np.asarray(yp).tolist(), "weighted": sw})


for kw in ({}, {"from_logits": True}, {"label_smoothing": 0.2},
           {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5},
           {"from_logits": True, "label_smoothing": 0.1, "apply_class_balancing": True}):
    add("BinaryFocalCrossentropy", kw, bin_t, f32(4, 3) if kw.get("from_logits") else bin_p)
for kw in ({}, {"from_logits": True}, {"label_smoothing": 0.2, "gamma": 1.0},
           {"alpha": [0.1, 0.2, 0.3, 0.4]}, {"from_logits": True, "label_smoothing": 0.1}):
    add("CategoricalFocalCrossentropy", kw, onehot(5, 4),
        f32(5, 4) if kw.get("from_logits") else probs(5, 4))
add("CategoricalHinge", {}, onehot(5, 4), f32(5, 4))
add("Hinge", {}, bin_t, f32(4, 3))
add("Hinge", {}, 2 * bin_t - 1, f32(4, 3))
add("Hinge", {}, rng.uniform(-1, 1, (4, 3)).astype(np.float32), f32(4, 3))
add("SquaredHinge", {}, bin_t, f32(4, 3))
add("SquaredHinge", {}, 2 * bin_t - 1, f32(4, 3))
add("CosineSimilarity", {}, f32(4, 3), f32(4, 3))
add("CosineSimilarity", {"axis": 0}, f32(4, 3), f32(4, 3), sw=False)
add("CosineSimilarity", {}, np.zeros((2, 3), np.float32), f32(2, 3))
add("KLDivergence", {}, probs(4, 5), probs(4, 5))
add("KLDivergence", {}, onehot(4, 5), probs(4, 5))
add("LogCosh", {}, f32(4, 3), 5 * f32(4, 3))
add("Poisson", {}, rng.poisson(2.0, (4, 3)).astype(np.float32),
    rng.uniform(0.1, 4, (4, 3)).astype(np.float32))
add("MeanAbsolutePercentageError", {}, f32(4, 3), f32(4, 3))
add("MeanAbsolutePercentageError", {}, np.array([[0., 1., 2.], [3., 0., -1.]], np.float32),
    f32(2, 3))
add("MeanSquaredLogarithmicError", {}, rng.uniform(0, 3, (4, 3)).astype(np.float32),
    f32(4, 3))
seg_t = rng.randint(0, 2, (3, 4, 4, 1)).astype(np.float32)
seg_p = rng.uniform(0, 1, (3, 4, 4, 1)).astype(np.float32)
add("Dice", {}, seg_t, seg_p, sw=False)
add("Dice", {"axis": [1, 2, 3]}, seg_t, seg_p)
add("Tversky", {}, seg_t, seg_p, sw=False)
add("Tversky", {"alpha": 0.3, "beta": 0.7, "axis": [1, 2, 3]}, seg_t, seg_p)
add("Circle", {}, [0, 1, 0, 1, 2, 2], unit(6, 4))
add("Circle", {"gamma": 10.0, "margin": 0.25}, [0, 1, 0, 1, 2, 2, 1, 0], unit(8, 5))
add("Circle", {"remove_diagonal": False, "gamma": 5.0}, [0, 1, 2, 1, 0], unit(5, 3))
add("CategoricalGeneralizedCrossEntropy", {}, [1, 0, 3, 2, 1], probs(5, 4))
add("CategoricalGeneralizedCrossEntropy", {"q": 0.2}, [[1], [0], [3]], probs(3, 4))
# CTC: padding (0) at the end, repeated labels (need a blank between), an empty label row
add("CTC", {}, [[1, 2, 0], [3, 3, 1], [2, 0, 0]], f32(3, 6, 4))
add("CTC", {}, [[1, 1, 2, 2], [0, 0, 0, 0]], 3 * f32(2, 9, 3))

out = []
for c in cases:
    cls = getattr(keras.losses, c["class"])
    fn = getattr(keras.losses, FUNCS[c["class"]])
    yt = np.asarray(c["y_true"], np.float32 if c["class"] not in (
        "Circle", "CategoricalGeneralizedCrossEntropy", "CTC") else np.int32)
    yp = tf.constant(np.asarray(c["y_pred"], np.float32))
    loss = cls(**c["kwargs"])
    with tf.GradientTape() as tape:
        tape.watch(yp)
        value = loss(yt, yp)
    rec = dict(c)
    rec["value"] = float(value)
    rec["grad"] = tape.gradient(value, yp).numpy().tolist()
    rec["none"] = np.asarray(cls(reduction="none", **c["kwargs"])(yt, yp)).tolist()
    fkw = dict(c["kwargs"])
    if c["class"] == "CategoricalGeneralizedCrossEntropy":
        fkw.setdefault("q", 0.5)
    rec["function"] = np.asarray(fn(yt, yp, **fkw)).tolist()
    if c["weighted"]:
        sw = rng.uniform(0, 2, (yp.shape[0],)).astype(np.float32)
        rec["sample_weight"] = sw.tolist()
        rec["sum_weighted"] = float(cls(reduction="sum", **c["kwargs"])(yt, yp, sw))
        rec["mean_weighted"] = float(loss(yt, yp, sw))
    config = loss.get_config()
    config.pop("dtype", None)
    rec["config"] = config
    out.append(rec)

get_names = {}
for name in ("kld", "KLD", "mape", "MAPE", "msle", "MSLE", "bce", "BCE", "poisson",
             "cosine_similarity", "log_cosh", "hinge", "squared_hinge", "categorical_hinge",
             "binary_focal_crossentropy", "categorical_focal_crossentropy", "dice", "tversky",
             "circle", "ctc", "CTC", "KLDivergence", "Poisson", "Dice", "Tversky", "Circle",
             "LogCosh",
             "Hinge", "SquaredHinge", "CategoricalHinge", "CosineSimilarity",
             "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
             "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy", "logcosh"):
    try:
        obj = keras.losses.get(name)
        get_names[name] = getattr(obj, "__name__", None) or type(obj).__name__
    except ValueError:
        get_names[name] = None

# circle against separate reference embeddings and labels
q_emb, r_emb = unit(4, 3), unit(5, 3)
q_lab, r_lab = [0, 1, 2, 1], [1, 0, 0, 2, 1]
circle_ref = {"y_true": q_lab, "y_pred": q_emb.tolist(), "ref_labels": r_lab,
              "ref_embeddings": r_emb.tolist()}
for rd in (True, False):
    circle_ref["remove_diagonal_%s" % rd] = np.asarray(keras.losses.circle(
        np.array(q_lab), q_emb, ref_labels=np.array(r_lab), ref_embeddings=r_emb,
        remove_diagonal=rd, gamma=20.0, margin=0.3)).tolist()

save("losses_added", {"cases": out, "get": get_names, "circle_ref": circle_ref})
print(len(out), "cases")
