"""Record Keras 3.15.1's training loop: logs with sample_weight and weighted_metrics, the
*_on_batch returns, the callback call sequence of fit/evaluate/predict, ModelCheckpoint's
filename rules, and fit(class_weight=...).

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_fit_loop.py
"""
import os
import sys
import tempfile

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

X = (np.arange(30, dtype="float32").reshape(10, 3) % 7 - 3) / 4
Y = (np.arange(10, dtype="float32").reshape(10, 1) % 4) / 3
SW = np.linspace(0.2, 2.0, 10).astype("float32")
XV, YV, SWV = X[:6] * 0.5 + 0.1, Y[:6][::-1].copy(), SW[:6][::-1].copy()
KERNEL = np.array([[0.5], [-0.25], [0.1]], "float32")
BIAS = np.array([0.2], "float32")


def regressor():
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.set_weights([KERNEL, BIAS])
    return m


def floats(d):
    return {k: [float(v) for v in vs] if isinstance(vs, list) else float(vs)
            for k, vs in d.items()}


out = {}

# -- A. metrics / weighted_metrics with sample_weight ---------------------------------------
METRIC_CASES = {"metrics": (["mae"], None), "both": (["mae"], ["mae"]),
                "weighted_only": (None, ["mae", "mse"]), "none": (None, None)}
out["weighted"] = {}
for name, (metrics, weighted) in METRIC_CASES.items():
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=metrics, weighted_metrics=weighted)
    h = m.fit(X, Y, sample_weight=SW, batch_size=4, epochs=2, shuffle=False, verbose=0,
              validation_data=(XV, YV, SWV))
    m2 = regressor()
    m2.compile(keras.optimizers.SGD(0.05), "mse", metrics=metrics, weighted_metrics=weighted)
    out["weighted"][name] = {
        "history": floats(h.history),
        "evaluate_sw": floats(m2.evaluate(X, Y, sample_weight=SW, batch_size=4, verbose=0,
                                          return_dict=True)),
        "evaluate": floats(m2.evaluate(X, Y, batch_size=4, verbose=0, return_dict=True)),
        "evaluate_list": np.asarray(m2.evaluate(X, Y, sample_weight=SW, batch_size=4,
                                                verbose=0), "float64").tolist(),
        "metrics_names": m2.metrics_names,
    }

# -- B. train_on_batch / test_on_batch / predict_on_batch -----------------------------------
out["on_batch"] = {}
for name, metrics in (("no_metrics", None), ("mae", ["mae"])):
    rec = {}
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=metrics)
    for call, args in (("train", {}), ("train_sw", {"sample_weight": SW}),
                       ("test", {}), ("test_sw", {"sample_weight": SW})):
        fn = m.train_on_batch if call.startswith("train") else m.test_on_batch
        r = fn(X, Y, **args)
        rec[call] = [type(r).__name__, np.asarray(r, "float64").tolist()]
        r = fn(X, Y, return_dict=True, **args)
        rec[call + "_dict"] = [type(r).__name__, floats(r)]
    p = m.predict_on_batch(X)
    rec["predict"] = [type(p).__name__, str(p.dtype), list(p.shape),
                      np.asarray(p, "float64").tolist()]
    out["on_batch"][name] = rec


# -- C. callback call sequences -------------------------------------------------------------
HOOKS = ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
         "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
         "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
         "on_predict_batch_begin", "on_predict_batch_end", "on_batch_begin", "on_batch_end"]


def entry(hook, args, kwargs):
    arg = args[0] if args and not isinstance(args[0], dict) and args[0] is not None else None
    logs = kwargs.get("logs", args[-1] if args and (isinstance(args[-1], dict)
                                                    or args[-1] is None) else "missing")
    keys = sorted(logs) if isinstance(logs, dict) else logs
    return [hook, None if arg is None else int(arg), keys]


def recorder(hooks):
    calls = []

    def make(hook):
        def fn(self, *args, **kwargs):
            calls.append(entry(hook, args, kwargs))
        return fn
    cls = type("Rec", (keras.callbacks.Callback,), {h: make(h) for h in hooks})
    return cls(), calls


def lambda_recorder():
    calls = []
    cb = keras.callbacks.LambdaCallback(
        on_train_begin=lambda logs: calls.append(["on_train_begin", sorted(logs)]),
        on_train_end=lambda logs: calls.append(["on_train_end", sorted(logs)]),
        on_epoch_begin=lambda epoch, logs: calls.append(["on_epoch_begin", epoch, sorted(logs)]),
        on_epoch_end=lambda epoch, logs: calls.append(["on_epoch_end", epoch, sorted(logs)]),
        on_train_batch_begin=lambda batch, logs: calls.append(
            ["on_train_batch_begin", batch, sorted(logs)]),
        on_train_batch_end=lambda batch, logs: calls.append(
            ["on_train_batch_end", batch, sorted(logs)]))
    return cb, calls


out["sequence"] = {}
SEQ_CASES = {
    "fit_validation_data": dict(validation_data=(XV, YV), epochs=2),
    "fit_validation_split": dict(validation_split=0.3, epochs=2),
    "fit_validation_freq": dict(validation_data=(XV, YV), epochs=3, validation_freq=2),
    "fit_plain": dict(epochs=1),
}
for name, kwargs in SEQ_CASES.items():
    res = {}
    for which, hooks in (("all", HOOKS), ("keras1", ["on_batch_begin", "on_batch_end"])):
        m = regressor()
        m.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
        cb, calls = recorder(hooks)
        m.fit(X, Y, batch_size=4, shuffle=False, verbose=0, callbacks=[cb], **kwargs)
        res[which] = calls
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    cb, calls = lambda_recorder()
    m.fit(X, Y, batch_size=4, shuffle=False, verbose=0, callbacks=[cb], **kwargs)
    res["lambda"] = calls
    out["sequence"][name] = res
m = regressor()
m.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
cb, calls = recorder(HOOKS)
m.evaluate(X, Y, batch_size=4, verbose=0, callbacks=[cb])
out["sequence"]["evaluate"] = {"all": calls}
cb, calls = recorder(HOOKS)
m.predict(X, batch_size=4, verbose=0, callbacks=[cb])
out["sequence"]["predict"] = {"all": calls}
# what on_train_end and on_epoch_end receive (values)
m = regressor()
m.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
seen = {}
cb = keras.callbacks.LambdaCallback(on_train_end=lambda logs: seen.update(end=dict(logs)))
h = m.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0, callbacks=[cb],
          validation_data=(XV, YV))
out["train_end_logs"] = {"logs": floats(seen["end"]), "history": floats(h.history)}

# -- D. ModelCheckpoint's filename rules ----------------------------------------------------
ck = {"errors": {}, "files": {}}
for path, weights_only in (("w.npz", False), ("w.weights.h5", False), ("w.npz", True),
                           ("best.keras", True), ("w.h5", True), ("m.hdf5", False),
                           ("m", False), ("best.keras", False), ("m.h5", False),
                           ("w.weights.h5", True)):
    try:
        keras.callbacks.ModelCheckpoint(path, save_weights_only=weights_only)
        ck["errors"]["%s|%s" % (path, weights_only)] = None
    except Exception as e:  # noqa: BLE001 - the class and text are what is recorded
        ck["errors"]["%s|%s" % (path, weights_only)] = [type(e).__name__, str(e)]
for pattern, kwargs in (("best.keras", dict(save_best_only=True)),
                        ("m-{epoch:02d}.keras", {}),
                        ("sub/m-{epoch:02d}-{val_loss:.3f}.keras", {}),
                        ("w-{epoch:02d}.weights.h5", dict(save_weights_only=True))):
    d = tempfile.mkdtemp()
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse")
    cb = keras.callbacks.ModelCheckpoint(os.path.join(d, pattern), **kwargs)
    m.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0, callbacks=[cb],
          validation_data=(XV, YV))
    files = sorted(os.path.relpath(os.path.join(r, f), d)
                   for r, _, fs in os.walk(d) for f in fs)
    ck["files"][pattern] = files
    if pattern == "best.keras":
        loaded = keras.models.load_model(os.path.join(d, "best.keras"))
        ck["best_predict"] = np.asarray(loaded.predict(X, verbose=0), "float64").tolist()
        ck["best_class"] = type(loaded).__name__
out["checkpoint"] = ck

# -- E. class_weight ------------------------------------------------------------------------
XC = (np.arange(36, dtype="float32").reshape(12, 3) % 5 - 2) / 3
YS = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1, 1, 2])
CW = {0: 1.0, 1: 2.5, 2: 0.5}
KC = np.array([[0.3, -0.2, 0.1], [0.05, 0.4, -0.3], [-0.1, 0.2, 0.25]], "float32")
BC = np.array([0.0, 0.1, -0.1], "float32")


def classifier(units=3, activation="softmax"):
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(units, activation=activation)])
    m.set_weights([KC[:, :units], BC[:units]])
    return m


cw = {}
for name, (y, loss, units, act, weights, metrics) in {
        "sparse": (YS, "sparse_categorical_crossentropy", 3, "softmax", CW, ["accuracy"]),
        "sparse_col": (YS[:, None], "sparse_categorical_crossentropy", 3, "softmax", CW, None),
        "onehot": (np.eye(3, dtype="float32")[YS], "categorical_crossentropy", 3, "softmax",
                   CW, None),
        "binary": ((YS[:, None] == 1).astype("float32"), "binary_crossentropy", 1, "sigmoid",
                   {0: 1.0, 1: 3.0}, None),
        "partial": (YS, "sparse_categorical_crossentropy", 3, "softmax", {1: 2.0},
                    None)}.items():
    m = classifier(units, act)
    m.compile(keras.optimizers.SGD(0.1), loss, metrics=metrics,
              weighted_metrics=["accuracy"] if name == "sparse" else None)
    h = m.fit(XC, y, class_weight=weights, batch_size=5, epochs=3, shuffle=False, verbose=0,
              validation_data=(XC[:4], y[:4]))
    cw[name] = floats(h.history)
try:
    m = classifier()
    m.compile("sgd", "sparse_categorical_crossentropy")
    m.fit(XC, YS, class_weight=CW, sample_weight=np.ones(12), verbose=0)
    cw["with_sample_weight"] = None
except Exception as e:  # noqa: BLE001
    cw["with_sample_weight"] = [type(e).__name__, str(e)]

# train_on_batch(class_weight=...)
m = classifier()
m.compile(keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy")
cw["train_on_batch"] = [float(m.train_on_batch(XC, YS, class_weight=CW)) for _ in range(2)]
out["class_weight"] = cw

# -- F. two outputs: compiled metrics per output ignore sample_weight ----------------------
for eager in (False, True):
    inp = keras.Input((3,))
    a = keras.layers.Dense(1, name="a")(inp)
    b = keras.layers.Dense(1, name="b")(inp)
    m = keras.Model(inp, {"a": a, "b": b})
    m.set_weights([KERNEL, BIAS, KERNEL[::-1].copy(), -BIAS])
    m.compile(keras.optimizers.SGD(0.05), {"a": "mse", "b": "mae"},
              metrics={"a": ["mae"], "b": ["mse"]}, run_eagerly=eager)
    h = m.fit(X, {"a": Y, "b": 1 - Y}, sample_weight=SW, batch_size=4, epochs=2,
              shuffle=False, verbose=0)
    out["two_outputs_eager" if eager else "two_outputs"] = floats(h.history)

# -- G. LearningRateScheduler's log key -----------------------------------------------------
m = regressor()
m.compile(keras.optimizers.SGD(0.05), "mse")
h = m.fit(X, Y, epochs=2, verbose=0, callbacks=[
    keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)])
out["lr_scheduler"] = floats(h.history)

# -- H. metrics_names, and evaluate's list with two outputs ---------------------------------
names = {}
for key, (metrics, weighted) in {"none": (None, None), "mae": (["mae"], None),
                                 "weighted": (None, ["mae"]),
                                 "both": (["mae", "mse"], ["mae"])}.items():
    m = regressor()
    before = m.metrics_names
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=metrics, weighted_metrics=weighted)
    compiled = m.metrics_names
    m.fit(X, Y, verbose=0)
    names[key] = [before, compiled, m.metrics_names]
inp = keras.Input((3,))
m = keras.Model(inp, {"a": keras.layers.Dense(1, name="a")(inp),
                      "b": keras.layers.Dense(1, name="b")(inp)})
m.set_weights([KERNEL, BIAS, KERNEL[::-1].copy(), -BIAS])
m.compile(keras.optimizers.SGD(0.05), {"a": "mse", "b": "mae"}, metrics={"a": ["mae"]})
compiled = m.metrics_names
ev = m.evaluate(X, {"a": Y, "b": 1 - Y}, batch_size=4, verbose=0)
names["two_outputs"] = [[], compiled, m.metrics_names]
out["metrics_names"] = names
out["two_outputs_evaluate"] = [float(v) for v in ev]

save("fit_loop", out)
