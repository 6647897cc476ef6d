"""Record Keras 3.15.1's compiled save/load: the compile_config of a few compile() forms,
evaluate() of a loaded model, and the weights after one more fit step (the optimizer state
restored). Run: /work/tfenv/bin/python tests/tf_reference/record_saving_compile.py"""
import json
import os
import sys
import tempfile
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

X = (np.arange(24, dtype="float32").reshape(8, 3) / 10.0 - 1.0)
Y = np.stack([np.sin(X.sum(1)), np.cos(X[:, 0])], 1).astype("float32")
KERNEL = np.array([[0.1, -0.2], [0.3, 0.05], [-0.4, 0.25]], "float32")
BIAS = np.array([0.01, -0.02], "float32")


def forms():
    sched = keras.optimizers.schedules.ExponentialDecay(0.1, 3, 0.5)
    return {
        "strings": dict(optimizer="adam", loss="mse", metrics=["mae"]),
        "objects": dict(optimizer=keras.optimizers.SGD(0.1, momentum=0.9),
                        loss=keras.losses.MeanSquaredError(),
                        metrics=[keras.metrics.MeanAbsoluteError()]),
        "schedule": dict(optimizer=keras.optimizers.Adam(sched), loss="mae"),
        "rmsprop_weighted": dict(optimizer=keras.optimizers.RMSprop(0.01), loss="mse",
                                 weighted_metrics=["mae"]),
    }


def model():
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    m.set_weights([KERNEL, BIAS])
    return m


def floats(ws):
    return [np.asarray(w, "float64").tolist() for w in ws]


def main():
    out = {"x": X.tolist(), "y": Y.tolist(), "kernel": KERNEL.tolist(), "bias": BIAS.tolist(),
           "forms": {}}
    tmp = tempfile.mkdtemp()
    for name, args in forms().items():
        m = model()
        m.compile(**args)
        m.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        path = os.path.join(tmp, name + ".keras")
        m.save(path)
        cc = json.loads(zipfile.ZipFile(path).read("config.json"))["compile_config"]
        n = keras.models.load_model(path)
        rec = {"compile_config_keys": sorted(cc),
               "loss": cc["loss"] if isinstance(cc["loss"], str) else cc["loss"]["class_name"],
               "optimizer_class": cc["optimizer"]["class_name"],
               "optimizer_config_keys": sorted(cc["optimizer"]["config"]),
               "metrics": cc["metrics"], "weighted_metrics": cc["weighted_metrics"],
               "run_eagerly": cc["run_eagerly"], "steps_per_execution": cc["steps_per_execution"],
               "jit_compile": cc["jit_compile"],
               "iterations_after_load": int(n.optimizer.iterations),
               "evaluate_original": m.evaluate(X, Y, verbose=0),
               "evaluate_loaded": n.evaluate(X, Y, verbose=0)}
        lr = cc["optimizer"]["config"]["learning_rate"]
        rec["learning_rate"] = lr if isinstance(lr, float) else lr["class_name"]
        m.fit(X, Y, batch_size=8, epochs=1, shuffle=False, verbose=0)
        n.fit(X, Y, batch_size=8, epochs=1, shuffle=False, verbose=0)
        rec["weights_after_step_original"] = floats(m.get_weights())
        rec["weights_after_step_loaded"] = floats(n.get_weights())
        u = keras.models.load_model(path, compile=False)
        rec["uncompiled_has_optimizer"] = getattr(u, "optimizer", None) is not None
        try:
            u.evaluate(X, Y, verbose=0)
            rec["uncompiled_evaluate_error"] = None
        except Exception as e:      # record what Keras raises
            rec["uncompiled_evaluate_error"] = type(e).__name__
        out["forms"][name] = rec
    save("saving_compile", out)


if __name__ == "__main__":
    main()
