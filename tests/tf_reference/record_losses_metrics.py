"""Record Keras 3.15.1's losses and metrics where fasteager differed (issue 34).

SparseCategoricalCrossentropy(ignore_class=...) (values, gradients, reductions), the shapes
of the functional metrics, Precision/Recall with lists of thresholds, top_k, class_id and
multi-label weights, the cross-entropy metrics' label_smoothing, and a Metric subclass
written with add_variable. The inputs are stored with the values.

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_losses_metrics.py
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

rng = np.random.RandomState(34)


def arr(x):
    return np.asarray(x).tolist()


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


out = {}

# ---- SparseCategoricalCrossentropy(ignore_class=...) -----------------------------------
logits = rng.randn(6, 4).astype(np.float32)
labels = np.array([0, 1, 3, 0, 2, 1], np.int64)
logits3 = rng.randn(2, 5, 3).astype(np.float32)
labels3 = np.array([[0, 1, 2, 0, 2], [1, 0, 0, 2, 1]], np.int64)
sw = np.array([1.0, 0.5, 2.0, 1.0, 0.0, 3.0], np.float32)
sw3 = rng.rand(2, 5).astype(np.float32)
out["scce_inputs"] = {"logits": arr(logits), "labels": arr(labels), "logits3": arr(logits3),
                      "labels3": arr(labels3), "sw": arr(sw), "sw3": arr(sw3)}
scce = []
for from_logits in (True, False):
    for ignore in (None, 0, 1, 5):
        for reduction in ("sum_over_batch_size", "sum", "none", "mean",
                          "mean_with_sample_weight", None):
            for weighted in (False, True):
                for case in ("2d", "2d_col", "3d"):
                    if case == "3d":
                        yt, zp, w = labels3, logits3, (sw3 if weighted else None)
                    else:
                        yt = labels if case == "2d" else labels[:, None]
                        zp, w = logits, (sw if weighted else None)
                    yp = zp if from_logits else softmax(zp)
                    loss = keras.losses.SparseCategoricalCrossentropy(
                        from_logits=from_logits, ignore_class=ignore, reduction=reduction)
                    x = tf.Variable(yp)
                    with tf.GradientTape() as tape:
                        v = loss(yt, x, sample_weight=w)
                        total = tf.reduce_sum(v)
                    g = tape.gradient(total, x)
                    fn = keras.losses.sparse_categorical_crossentropy(
                        yt, yp, from_logits=from_logits, ignore_class=ignore)
                    scce.append({"from_logits": from_logits, "ignore_class": ignore,
                                 "reduction": reduction, "weighted": weighted, "case": case,
                                 "value": arr(v.numpy()), "grad": arr(g.numpy()),
                                 "fn": arr(np.asarray(fn))})
out["scce"] = scce
# every label ignored: Keras divides by no valid entry (divide_no_nan)
allign = keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)
out["scce_all_ignored"] = float(allign(np.zeros(3, np.int64), logits[:3]))

# ---- one epoch of fit with ignore_class (the gradient through the compiled loss) ------------
fit_x = np.random.RandomState(7).randn(8, 4).astype(np.float32)
fit_y = np.array([0, 1, 2, 0, 2, 1, 0, 2])
fit_k = np.random.RandomState(8).randn(4, 3).astype(np.float32)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
model.set_weights([fit_k, np.zeros(3, np.float32)])
model.compile(optimizer=keras.optimizers.SGD(0.5),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))
hist = model.fit(fit_x, fit_y, batch_size=4, epochs=2, shuffle=False, verbose=0)
out["fit_ignore"] = {"x": arr(fit_x), "y": arr(fit_y), "kernel": arr(fit_k),
                     "loss": hist.history["loss"],
                     "weights": [arr(w) for w in model.get_weights()]}

# ---- a Keras mask on y_pred (Embedding(mask_zero=True)'s output) --------------------------
emb_w = rng.randn(5, 3).astype(np.float32)
dense_w = rng.randn(3, 4).astype(np.float32)
ids = np.array([[1, 2, 0, 0], [3, 4, 2, 0]])
y_seq = np.array([[1, 2, 3, 0], [2, 1, 3, 1]])
w_seq = np.array([[1.0, 2.0, 1, 1], [2, 2, 1, 3]], np.float32)
emb = keras.layers.Embedding(5, 3, mask_zero=True)
dense = keras.layers.Dense(4, use_bias=False)
dense(emb(ids))
emb.set_weights([emb_w])
dense.set_weights([dense_w])
seq_out = dense(emb(ids))
masked = {"emb_w": arr(emb_w), "dense_w": arr(dense_w), "ids": arr(ids), "y": arr(y_seq),
          "w": arr(w_seq), "losses": {}}
for red in ("sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none"):
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=red)
    masked["losses"][red] = [arr(np.asarray(loss(y_seq, seq_out))),
                             arr(np.asarray(loss(y_seq, seq_out, sample_weight=w_seq)))]
acc = keras.metrics.SparseCategoricalAccuracy()
acc.update_state(y_seq, seq_out)
masked["accuracy"] = float(acc.result())
out["masked"] = masked

# ---- functional metrics: shapes and values ----------------------------------------------
p23 = np.array([[0.6, 0.4, 0.2], [0.1, 0.8, 0.7]], np.float32)
t23 = np.array([[1, 0, 1], [0, 1, 1]], np.float32)
oh23 = np.array([[0, 1, 0], [1, 0, 0]], np.float32)
p243 = rng.rand(2, 4, 3).astype(np.float32)
s24 = np.array([[0, 1, 2, 1], [2, 2, 0, 1]], np.int64)
tie = np.array([[0.5, 0.5, 0.1], [0.2, 0.2, 0.2]], np.float32)
fn_inputs = {"p23": p23, "t23": t23, "oh23": oh23, "p243": p243, "s24": s24, "tie": tie,
             "t2": np.array([1.0, 0.0], np.float32), "p2": np.array([0.6, 0.7], np.float32),
             "s2": np.array([1, 1], np.int64), "s21": np.array([[1], [1]], np.int64),
             "oh243": np.eye(3, dtype=np.float32)[s24],
             "stie": np.array([1, 2], np.int64)}
out["fn_inputs"] = {k: arr(v) for k, v in fn_inputs.items()}
M = keras.metrics
FN_CASES = [  # (name, function, y_true key, y_pred key, kwargs)
    ("binary_accuracy", "binary_accuracy", "t23", "p23", {}),
    ("binary_accuracy_thr", "binary_accuracy", "t23", "p23", {"threshold": 0.65}),
    ("binary_accuracy_1d", "binary_accuracy", "t2", "p2", {}),
    ("binary_accuracy_3d", "binary_accuracy", "oh243", "p243", {}),
    ("categorical_accuracy", "categorical_accuracy", "oh23", "p23", {}),
    ("categorical_accuracy_3d", "categorical_accuracy", "oh243", "p243", {}),
    ("sparse_categorical_accuracy", "sparse_categorical_accuracy", "s2", "p23", {}),
    ("sparse_categorical_accuracy_col", "sparse_categorical_accuracy", "s21", "p23", {}),
    ("sparse_categorical_accuracy_3d", "sparse_categorical_accuracy", "s24", "p243", {}),
    ("top_k", "top_k_categorical_accuracy", "oh23", "p23", {"k": 2}),
    ("top_k_3d", "top_k_categorical_accuracy", "oh243", "p243", {"k": 2}),
    ("top_k_tie", "top_k_categorical_accuracy", "oh23", "tie", {"k": 1}),
    ("sparse_top_k", "sparse_top_k_categorical_accuracy", "s2", "p23", {"k": 2}),
    ("sparse_top_k_col", "sparse_top_k_categorical_accuracy", "s21", "p23", {"k": 2}),
    ("sparse_top_k_3d", "sparse_top_k_categorical_accuracy", "s24", "p243", {"k": 2}),
    ("sparse_top_k_tie", "sparse_top_k_categorical_accuracy", "stie", "tie", {"k": 1}),
    ("mse", "mean_squared_error", "t23", "p23", {}),
    ("mae", "mean_absolute_error", "t23", "p23", {}),
    ("binary_crossentropy", "binary_crossentropy", "t23", "p23", {}),
    ("binary_crossentropy_ls", "binary_crossentropy", "t23", "p23", {"label_smoothing": 0.2}),
    ("categorical_crossentropy", "categorical_crossentropy", "oh23", "p23", {}),
    ("sparse_categorical_crossentropy", "sparse_categorical_crossentropy", "s2", "p23", {}),
    ("sparse_categorical_crossentropy_3d", "sparse_categorical_crossentropy", "s24", "p243",
     {}),
]
fns = {}
for name, fname, t, p, kw in FN_CASES:
    v = np.asarray(getattr(M, fname)(fn_inputs[t], fn_inputs[p], **kw))
    fns[name] = {"fn": fname, "y_true": t, "y_pred": p, "kwargs": kw, "shape": list(v.shape),
                 "value": arr(v)}
out["fns"] = fns
# the wrappers' weighted means over multi-label rows
wrap = {}
for name, obj, t, p, w in [
        ("binary_accuracy_w", M.BinaryAccuracy(), "t23", "p23", [1.0, 3.0]),
        ("binary_accuracy_w2", M.BinaryAccuracy(), "t23", "p23", [[1.0, 0, 2], [0.5, 1, 1]]),
        ("bce_ls", M.BinaryCrossentropy(label_smoothing=0.1), "t23", "p23", None),
        ("bce_ls_logits", M.BinaryCrossentropy(from_logits=True, label_smoothing=0.3), "t23",
         "p23", [1.0, 2.0]),
        ("cce_ls", M.CategoricalCrossentropy(label_smoothing=0.2), "oh23", "p23", None),
        ("scce_ignore", M.SparseCategoricalCrossentropy(ignore_class=2), "s24", "p243", None),
        ("top_k_3d", M.TopKCategoricalAccuracy(k=2), "oh243", "p243", [1.0, 0.25])]:
    obj.update_state(fn_inputs[t], fn_inputs[p], sample_weight=w)
    wrap[name] = {"y_true": t, "y_pred": p, "sample_weight": w, "value": float(obj.result())}
out["wrappers"] = wrap

# ---- Mean counts samples (rows of different lengths, scalar weights) -----------------------
MEAN_CASES = [  # each: the updates (values, sample_weight) of one Mean
    [([[1.0, 2, 3]], None), ([[10.0]], None)],
    [([1.0, 2, 3], 2.0), ([10.0], None)],
    [([[1.0, 2], [3, 4]], [[1, 0], [2, 1]]), ([[10.0, 0]], None)],
    [(5.0, None), ([[1.0, 2]], [3.0])],
    [([[[1.0], [2]], [[3], [4]]], [0.5, 2.0]), ([[7.0, 1, 1]], [[1.0, 1, 0]])],
]
means = []
for updates in MEAN_CASES:
    m = M.Mean()
    for v, w in updates:
        m.update_state(np.asarray(v, np.float32),
                       sample_weight=None if w is None else np.asarray(w, np.float32))
    means.append({"updates": updates, "result": float(m.result())})
out["means"] = means

# ---- Precision / Recall --------------------------------------------------------------------
yt_ml = np.array([[1, 0, 1, 0], [0, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 1]],
                 np.float32)
yp_ml = np.array([[0.9, 0.2, 0.65, 0.4], [0.1, 0.75, 0.55, 0.3], [0.6, 0.35, 0.8, 0.05],
                  [0.45, 0.5, 0.7, 0.85], [0.95, 0.15, 0.25, 0.6]], np.float32)
yt_b = np.array([1, 0, 1, 1, 0, 0], np.float32)
yp_b = np.array([0.2, 0.8, 0.5, 0.9, 0.3, 0.65], np.float32)
pr_inputs = {"yt_ml": yt_ml, "yp_ml": yp_ml, "yt_b": yt_b, "yp_b": yp_b,
             "yp_bcol": yp_b[:, None], "w_rows": rng.rand(5).astype(np.float32),
             "w_elems": rng.rand(5, 4).astype(np.float32),
             "w_b": np.array([1, 2, 0.5, 1, 3, 1], np.float32)}
out["pr_inputs"] = {k: arr(v) for k, v in pr_inputs.items()}
PR_CASES = [  # (kwargs, [(y_true, y_pred, sample_weight), ...])
    ({}, [("yt_b", "yp_b", None)]),
    ({}, [("yt_b", "yp_bcol", "w_b")]),
    ({"thresholds": [0.3, 0.7]}, [("yt_b", "yp_b", None), ("yt_ml", "yp_ml", None)]),
    ({"thresholds": 0.65}, [("yt_b", "yp_b", "w_b")]),
    ({"thresholds": [0.0, 0.5, 1.0]}, [("yt_b", "yp_b", None)]),
    ({"thresholds": [0.0, 0.25, 0.5, 0.75, 1.0]}, [("yt_ml", "yp_ml", "w_rows")]),
    ({}, [("yt_ml", "yp_ml", "w_rows")]),
    ({}, [("yt_ml", "yp_ml", "w_elems")]),
    ({"top_k": 2}, [("yt_ml", "yp_ml", None)]),
    ({"top_k": 1}, [("yt_ml", "yp_ml", "w_rows")]),
    ({"top_k": 2, "thresholds": [0.4, 0.6]}, [("yt_ml", "yp_ml", None)]),
    ({"class_id": 1}, [("yt_ml", "yp_ml", None), ("yt_ml", "yp_ml", "w_rows")]),
    ({"class_id": 2, "thresholds": [0.2, 0.8]}, [("yt_ml", "yp_ml", "w_rows")]),
    ({"class_id": 3, "top_k": 2}, [("yt_ml", "yp_ml", None)]),
]
pr = []
for kwargs, updates in PR_CASES:
    for cls in ("Precision", "Recall"):
        m = getattr(M, cls)(**kwargs)
        results = []
        for t, p, w in updates:
            m.update_state(pr_inputs[t], pr_inputs[p],
                           sample_weight=None if w is None else pr_inputs[w])
            results.append(arr(np.asarray(m.result())))
        pr.append({"class": cls, "kwargs": kwargs, "updates": updates, "results": results,
                   "variables": [v.name for v in m.variables]})
out["precision_recall"] = pr
errs = {}
for kwargs in ({"thresholds": [0.3, 1.5]}, {"thresholds": -0.1}):
    try:
        M.Precision(**kwargs)
    except Exception as e:    # noqa: BLE001 - the class and text are what is recorded
        errs[repr(kwargs)] = [type(e).__name__, str(e)]
out["pr_errors"] = errs


# ---- a Metric subclass written for Keras 3 -------------------------------------------------
class Custom(keras.metrics.Metric):
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


m = Custom(dtype="float64", name="custom")
before = [[v.name, v.path, v.dtype, list(v.shape)] for v in m.variables]
r1 = float(m(2.0))
r2 = float(m(3.0))
vals = [arr(v.numpy()) for v in m.variables]
m.reset_state()
out["custom"] = {"variables": before, "results": [r1, r2], "values": vals,
                 "after_reset": [arr(v.numpy()) for v in m.variables],
                 "result_after_reset": float(m.result()), "dtype": m.dtype}

save("losses_metrics", out)
print("wrote losses_metrics.json")
