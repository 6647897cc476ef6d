"""Record Keras 3.15.1's optimizers step by step: every optimizer with its default arguments
and with weight_decay, clipnorm, clipvalue, global_clipnorm, amsgrad, nesterov, centered;
use_ema (ema_momentum, ema_overwrite_frequency, finalize_variable_values) and
gradient_accumulation_steps (with a learning-rate schedule); ``Optimizer.apply``; and
model.fit with EMA and accumulation.

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_optimizer_options.py
"""
import os
import sys
import warnings

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

# each optimizer's configuration with default arguments (first: Keras numbers later names)
DEFAULT_CONFIGS = {name: getattr(keras.optimizers, name)().get_config()
                   for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]}

STEPS = 6
rng = np.random.default_rng(34)
W0 = [rng.normal(size=(3, 2)).astype("float32"), rng.normal(size=(2,)).astype("float32")]
GRADS = [[rng.normal(size=(3, 2)).astype("float32"), rng.normal(size=(2,)).astype("float32")]
         for _ in range(STEPS)]

OPTIONS = [{}, {"weight_decay": 0.05}, {"clipnorm": 0.5}, {"clipvalue": 0.3},
           {"global_clipnorm": 0.7}]
EXTRA = {"SGD": [{"momentum": 0.9}, {"momentum": 0.9, "nesterov": True},
                 {"momentum": 0.5, "nesterov": True, "weight_decay": 0.1, "clipnorm": 1.0}],
         "Adam": [{"amsgrad": True}, {"amsgrad": True, "weight_decay": 0.05}],
         "AdamW": [{"amsgrad": True}],
         "RMSprop": [{"centered": True}, {"momentum": 0.5}, {"momentum": 0.5, "centered": True,
                                                           "clipvalue": 0.3}],
         "Adagrad": [{"initial_accumulator_value": 0.5}]}
# the options of issue 34 that fasteager refused, on every optimizer
STATEFUL = [{"use_ema": True},
            {"use_ema": True, "ema_momentum": 0.5, "ema_overwrite_frequency": 2},
            {"gradient_accumulation_steps": 2},
            {"gradient_accumulation_steps": 3, "learning_rate": "schedule"},
            {"gradient_accumulation_steps": 2, "use_ema": True, "ema_momentum": 0.6,
             "ema_overwrite_frequency": 2, "weight_decay": 0.05, "clipnorm": 0.5},
            {"loss_scale_factor": 4.0},
            {"loss_scale_factor": 2.0, "gradient_accumulation_steps": 2}]
BASE = {"SGD": {"momentum": 0.9}, "Adam": {}, "AdamW": {}, "RMSprop": {"momentum": 0.3},
        "Adagrad": {}}


def make(cls_name, kwargs):
    kwargs = dict(kwargs)
    if kwargs.get("learning_rate") == "schedule":
        kwargs["learning_rate"] = keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)
    return getattr(keras.optimizers, cls_name)(**kwargs)


def run(cls_name, kwargs, use_apply=False):
    opt = make(cls_name, kwargs)
    ws = [keras.Variable(w, name="w%d" % i) for i, w in enumerate(W0)]
    steps = []
    for g in GRADS:
        if use_apply:
            if opt.built:
                opt.apply(g)          # the variables it was built with
            else:
                opt.apply(g, ws)
        else:
            opt.apply_gradients(zip(g, ws))
        steps.append({"vars": [np.asarray(w).tolist() for w in ws],
                      "iterations": int(opt.iterations), "raw": int(opt._iterations)})
    rec = {"class": cls_name, "kwargs": kwargs, "steps": steps,
           "variables": [v.path for v in opt.variables],
           "config": {k: v for k, v in opt.get_config().items()
                      if k in ("use_ema", "ema_momentum", "ema_overwrite_frequency",
                               "gradient_accumulation_steps", "loss_scale_factor")}}
    if kwargs.get("use_ema"):
        opt.finalize_variable_values(ws)
        rec["finalized"] = [np.asarray(w).tolist() for w in ws]
    return rec


cases = []
for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]:
    for kw in OPTIONS + EXTRA[name]:
        cases.append(run(name, kw))
    for kw in STATEFUL:
        cases.append(run(name, dict(BASE[name], **kw)))

apply_cases = [run("Adam", {}, use_apply=True),
               run("SGD", {"momentum": 0.9, "gradient_accumulation_steps": 2},
                   use_apply=True)]

errors = {}


def record_error(key, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and text are what is recorded
        errors[key] = [type(e).__name__, str(e)]
    else:
        errors[key] = None


v = keras.Variable(np.zeros(2, "float32"))
record_error("apply_unbuilt", lambda: keras.optimizers.SGD().apply([np.ones(2, "float32")]))


def _wrong_count():
    opt = keras.optimizers.SGD()
    opt.apply([np.ones(2, "float32")], [v])
    opt.apply([np.ones(2, "float32"), np.ones(2, "float32")])


record_error("apply_wrong_count", _wrong_count)
record_error("apply_empty", lambda: keras.optimizers.SGD().apply([], [v]))
record_error("unknown_kwarg", lambda: keras.optimizers.Adam(foo=1))
record_error("accum_1", lambda: keras.optimizers.SGD(gradient_accumulation_steps=1))
record_error("ema_momentum_2", lambda: keras.optimizers.SGD(use_ema=True, ema_momentum=2.0))
record_error("ema_freq_0", lambda: keras.optimizers.SGD(use_ema=True,
                                                       ema_overwrite_frequency=0))
record_error("ema_freq_float", lambda: keras.optimizers.SGD(use_ema=True,
                                                           ema_overwrite_frequency=1.5))

# TF 2.x's `decay`: warned about and ignored (the steps are those of the plain optimizer)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    decayed = run("SGD", {"learning_rate": 0.1, "decay": 0.5})
warned = [str(w.message) for w in caught if "decay" in str(w.message)]

# clipping a non-finite gradient (one SGD step of two variables)
nonfinite = []
for kw in [{"clipnorm": 1.0}, {"global_clipnorm": 1.0}, {"clipvalue": 1.0}, {}]:
    for bad in ("inf", "nan"):
        opt = keras.optimizers.SGD(1.0, **kw)
        a = keras.Variable(np.zeros(2, "float32"))
        b = keras.Variable(np.zeros(2, "float32"))
        opt.apply_gradients([(np.array([float(bad), 1.0], "float32"), a),
                             (np.array([1.0, 2.0], "float32"), b)])
        nonfinite.append({"kwargs": kw, "bad": bad,
                          "vars": [[repr(float(x)) for x in np.asarray(v)] for v in (a, b)]})

# the learning-rate schedules at steps 0..24
SCHEDULES = [("ExponentialDecay", {"initial_learning_rate": 0.1, "decay_steps": 4,
                                   "decay_rate": 0.5}),
             ("ExponentialDecay", {"initial_learning_rate": 0.1, "decay_steps": 4,
                                   "decay_rate": 0.5, "staircase": True}),
             ("InverseTimeDecay", {"initial_learning_rate": 0.3, "decay_steps": 3,
                                   "decay_rate": 0.7}),
             ("InverseTimeDecay", {"initial_learning_rate": 0.3, "decay_steps": 3,
                                   "decay_rate": 0.7, "staircase": True}),
             ("PiecewiseConstantDecay", {"boundaries": [3, 10], "values": [1.0, 0.5, 0.1]}),
             ("CosineDecay", {"initial_learning_rate": 0.2, "decay_steps": 10}),
             ("CosineDecay", {"initial_learning_rate": 0.2, "decay_steps": 10, "alpha": 0.1}),
             ("CosineDecay", {"initial_learning_rate": 0.0, "decay_steps": 10,
                              "warmup_target": 0.4, "warmup_steps": 5, "alpha": 0.2})]
schedules = []
for cls_name, kw in SCHEDULES:
    sched = getattr(keras.optimizers.schedules, cls_name)(**kw)
    schedules.append({"class": cls_name, "kwargs": kw, "config": sched.get_config(),
                      "values": [float(sched(step)) for step in range(25)]})

# model.fit: a Dense layer, 8 batches of 4 over 2 epochs
X = rng.normal(size=(16, 3)).astype("float32")
Y = rng.normal(size=(16, 2)).astype("float32")
fits = []
for cls_name, kw in [("SGD", {"learning_rate": 0.1, "use_ema": True, "ema_momentum": 0.7}),
                     ("Adam", {"learning_rate": 0.05, "gradient_accumulation_steps": 3}),
                     ("RMSprop", {"learning_rate": 0.01, "gradient_accumulation_steps": 2,
                                  "use_ema": True, "ema_overwrite_frequency": 3})]:
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.set_weights(W0)
    opt = make(cls_name, kw)
    model.compile(opt, "mse")
    seen = {}
    cb = keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.update(
        {"before_finalize": [w.tolist() for w in model.get_weights()],
         "loss_%d" % e: float(logs["loss"])}))
    model.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0, callbacks=[cb])
    fits.append({"class": cls_name, "kwargs": kw, "iterations": int(opt.iterations),
                 "final": [w.tolist() for w in model.get_weights()], **seen})

save("optimizer_options", {"w0": [w.tolist() for w in W0],
                           "grads": [[g.tolist() for g in gs] for gs in GRADS],
                           "cases": cases, "apply": apply_cases, "errors": errors,
                           "decay": {"case": decayed, "warnings": warned},
                           "schedules": schedules, "default_configs": DEFAULT_CONFIGS,
                           "nonfinite": nonfinite,
                           "fit": {"x": X.tolist(), "y": Y.tolist(), "runs": fits}})
