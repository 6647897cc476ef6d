"""Record Keras 3.15.1's metrics that fasteager added in issue 34 (the missing names).

For each case: the metric's class, constructor arguments and a list of update_state calls
(y_true, y_pred, sample_weight or None); recorded are the result after all the updates,
the result after reset_state and the first update alone, get_config, and the variables'
names. Inputs are stored with the values.

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_metrics_added.py
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

rng = np.random.RandomState(3416)


def probs(*shape):
    return rng.uniform(0, 1, shape).astype(np.float32)


def labels(*shape):
    return (rng.uniform(0, 1, shape) > 0.5).astype(np.float32)


def weights(*shape):
    return rng.uniform(0, 2, shape).astype(np.float32)


def binary_updates(shape=(8,), weighted=True):
    out = []
    for i in range(3):
        sw = weights(shape[0]) if (weighted and i != 1) else None
        out.append((labels(*shape), probs(*shape), sw))
    return out


def onehot(n, k):
    return np.eye(k, dtype=np.float32)[rng.randint(0, k, n)]


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


CASES = []


def case(cls, kwargs, updates):
    CASES.append((cls, kwargs, updates))


for cls in ("TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives"):
    case(cls, {}, binary_updates())
    case(cls, {"thresholds": [0.1, 0.5, 0.8]}, binary_updates((6, 2)))
    case(cls, {"thresholds": [0.0, 0.25, 0.5, 0.75, 1.0]}, binary_updates((10,)))

for kw in ({}, {"num_thresholds": 7}, {"curve": "PR"}, {"curve": "PR", "num_thresholds": 11},
           {"summation_method": "minoring"}, {"summation_method": "majoring", "curve": "PR"},
           {"thresholds": [0.3, 0.6, 0.7]}, {"from_logits": True},
           {"label_weights": [0.5, 2.0, 1.0]}):
    ups = binary_updates((12, 3))
    if kw.get("from_logits"):
        ups = [(t, (p - 0.5) * 6, w) for t, p, w in ups]
    case("AUC", kw, ups)
for kw in ({"multi_label": True}, {"multi_label": True, "num_labels": 3, "curve": "PR"},
           {"multi_label": True, "label_weights": [0.5, 2.0, 1.0]},
           {"multi_label": True, "summation_method": "minoring", "num_thresholds": 9}):
    case("AUC", kw, binary_updates((12, 3)))

reg = lambda: [(probs(5, 3) * 4, probs(5, 3) * 4, w) for w in (None, weights(5), weights(5))]
case("RootMeanSquaredError", {}, reg())
case("CosineSimilarity", {}, [(rng.randn(4, 3).astype(np.float32),
                               rng.randn(4, 3).astype(np.float32), w)
                              for w in (None, weights(4), weights(4))])
case("CosineSimilarity", {"axis": 0}, [(rng.randn(4, 3).astype(np.float32),
                                        rng.randn(4, 3).astype(np.float32), None)
                                       for _ in range(2)])
case("KLDivergence", {}, [(softmax(rng.randn(5, 4)), softmax(rng.randn(5, 4)), w)
                          for w in (None, weights(5))])
case("Poisson", {}, reg())
case("LogCoshError", {}, reg())
case("Hinge", {}, binary_updates((6, 3)))
case("SquaredHinge", {}, [(t * 2 - 1, p * 2 - 1, w) for t, p, w in binary_updates((6, 3))])
case("CategoricalHinge", {}, [(onehot(6, 4), probs(6, 4), w)
                              for w in (None, weights(6), weights(6))])

for kw in ({}, {"class_aggregation": None}, {"class_aggregation": "variance_weighted_average"},
           {"num_regressors": 2}):
    case("R2Score", kw, reg())
for cls, kw in (("F1Score", {}), ("F1Score", {"average": "micro"}),
                ("F1Score", {"average": "macro", "threshold": 0.4}),
                ("F1Score", {"average": "weighted"}),
                ("FBetaScore", {"beta": 2.0}), ("FBetaScore", {"beta": 0.5, "average": "macro"}),
                ("FBetaScore", {"beta": 2.0, "threshold": 0.6, "average": "weighted"})):
    case(cls, kw, [(labels(8, 3), probs(8, 3), w) for w in (weights(8), None, weights(8))])
for cls in ("PearsonCorrelation", "ConcordanceCorrelation"):
    case(cls, {}, [(rng.randn(4, 5).astype(np.float32), rng.randn(4, 5).astype(np.float32), w)
                   for w in (None, weights(4))])
    case(cls, {"axis": 0}, [(rng.randn(6, 3).astype(np.float32),
                             rng.randn(6, 3).astype(np.float32), None) for _ in range(2)])

cls_ids = lambda n, k: rng.randint(0, k, n).astype(np.float32)
case("IoU", {"num_classes": 3, "target_class_ids": [0, 2]},
     [(cls_ids(10, 3), cls_ids(10, 3), w) for w in (None, weights(10) * 2, None)])
case("IoU", {"num_classes": 4, "target_class_ids": [1], "ignore_class": 0},
     [(rng.randint(-1, 5, (3, 4)).astype(np.float32), cls_ids(12, 4).reshape(3, 4), w)
      for w in (None, weights(3, 4) * 3)])
case("IoU", {"num_classes": 3, "target_class_ids": [0, 1, 2], "sparse_y_pred": False,
             "dtype": "float32"},
     [(cls_ids(6, 3), probs(6, 3), w) for w in (None, weights(6))])
case("MeanIoU", {"num_classes": 3},
     [(cls_ids(10, 3), cls_ids(10, 3), w) for w in (None, weights(10) * 3)])
case("MeanIoU", {"num_classes": 3, "dtype": "float32", "ignore_class": 1},
     [(cls_ids(10, 3), cls_ids(10, 3), w) for w in (weights(10), None)])
case("BinaryIoU", {}, [(labels(8), probs(8), w) for w in (None, weights(8) * 3)])
case("BinaryIoU", {"target_class_ids": [1], "threshold": 0.3, "dtype": "float32"},
     [(labels(8), probs(8), w) for w in (weights(8), None)])
case("OneHotIoU", {"num_classes": 3, "target_class_ids": [0, 2]},
     [(onehot(7, 3), probs(7, 3), w) for w in (None, weights(7) * 3)])
case("OneHotMeanIoU", {"num_classes": 4, "dtype": "float32"},
     [(onehot(7, 4), probs(7, 4), w) for w in (None, weights(7))])
case("OneHotMeanIoU", {"num_classes": 3, "sparse_y_pred": True},
     [(onehot(7, 3), cls_ids(7, 3), None) for _ in range(2)])

for cls, arg in (("SensitivityAtSpecificity", "specificity"),
                 ("SpecificityAtSensitivity", "sensitivity"),
                 ("PrecisionAtRecall", "recall"), ("RecallAtPrecision", "precision")):
    case(cls, {arg: 0.6}, binary_updates((10,)))
    case(cls, {arg: 0.3, "num_thresholds": 7}, binary_updates((6, 2)))
    case(cls, {arg: 0.8, "num_thresholds": 1}, binary_updates((10,)))
    case(cls, {arg: 0.5, "class_id": 1, "num_thresholds": 20}, binary_updates((8, 3)))


def arr(x):
    return None if x is None else np.asarray(x).tolist()


out = {"cases": []}
for cls, kwargs, updates in CASES:
    m = getattr(keras.metrics, cls)(**kwargs)
    for t, p, w in updates:
        m.update_state(t, p, sample_weight=w)
    total = np.asarray(m.result()).tolist()
    paths = [v.path for v in m.variables]
    dtypes = [str(v.dtype) for v in m.variables]
    m.reset_state()
    t, p, w = updates[0]
    m.update_state(t, p, sample_weight=w)
    first = np.asarray(m.result()).tolist()
    config = m.get_config()
    config = {k: (np.asarray(v).tolist() if hasattr(v, "shape") else v)
              for k, v in config.items()}
    out["cases"].append({"cls": cls, "kwargs": kwargs,
                         "updates": [[arr(t), arr(p), arr(w)] for t, p, w in updates],
                         "result": total, "first": first, "config": config,
                         "paths": paths, "var_dtypes": dtypes})

out["get"] = {}
for name in ("true_positives", "false_positives", "true_negatives", "false_negatives", "auc",
             "AUC", "TruePositives", "root_mean_squared_error", "RootMeanSquaredError",
             "cosine_similarity", "kl_divergence", "poisson", "hinge", "squared_hinge",
             "categorical_hinge", "LogCoshError", "r2_score", "f1_score", "F1Score",
             "FBetaScore", "pearson_correlation", "concordance_correlation", "log_cosh",
             "fbeta_score", "BinaryIoU", "iou", "mean_iou"):
    try:
        out["get"][name] = type(keras.metrics.get(name)).__name__
    except ValueError:
        out["get"][name] = None

# serialize: Keras 3's dict for each class (default arguments where it has them)
out["serialize"] = {}
for cls, kwargs in (("AUC", {"curve": "PR", "num_thresholds": 9}),
                    ("F1Score", {"average": "macro"}), ("TruePositives", {"thresholds": 0.3}),
                    ("MeanIoU", {"num_classes": 3}), ("R2Score", {}),
                    ("PrecisionAtRecall", {"recall": 0.4}), ("CosineSimilarity", {})):
    keras.utils.clear_session() if hasattr(keras.utils, "clear_session") else None
    ser = keras.metrics.serialize(getattr(keras.metrics, cls)(**kwargs))
    out["serialize"][cls] = {"kwargs": kwargs, "serialized": ser,
                             "back": keras.metrics.deserialize(ser).get_config()}

# errors
errs = {}
for label, fn in (("num_thresholds_1", lambda: keras.metrics.AUC(num_thresholds=1)),
                  ("bad_curve", lambda: keras.metrics.AUC(curve="XY")),
                  ("bad_summation", lambda: keras.metrics.AUC(summation_method="sum")),
                  ("tp_bad_threshold", lambda: keras.metrics.TruePositives(thresholds=1.5)),
                  ("r2_bad_aggregation", lambda: keras.metrics.R2Score(class_aggregation="x")),
                  ("r2_negative_regressors", lambda: keras.metrics.R2Score(num_regressors=-1)),
                  ("fbeta_int_beta", lambda: keras.metrics.FBetaScore(beta=2)),
                  ("fbeta_bad_average", lambda: keras.metrics.FBetaScore(average="x")),
                  ("f1_bad_threshold", lambda: keras.metrics.F1Score(threshold=1.5)),
                  ("pr_at_bad_recall", lambda: keras.metrics.PrecisionAtRecall(1.5)),
                  ("sens_zero_thresholds",
                   lambda: keras.metrics.SensitivityAtSpecificity(0.5, num_thresholds=0)),
                  ("iou_bad_target", lambda: keras.metrics.IoU(3, [0, 3])),
                  ("r2_rank1", lambda: keras.metrics.R2Score().update_state(
                      np.ones(6, np.float32), np.ones(6, np.float32)))):
    try:
        fn()
        errs[label] = None
    except Exception as e:  # noqa: BLE001
        errs[label] = type(e).__name__
out["errors"] = errs
save("metrics_added", out)
print(len(out["cases"]), "cases")
