"""Record Keras 3.15.1's fit with optimizer options that reach into the training loop:
use_ema (weights take their averages at the end of fit), loss_scale_factor (the scaled
loss is differentiated, the loss itself logged), and a metric with several values
(Precision with a list of thresholds: the logs keep an array). The test imports ``run``
and ``CASES`` from here and runs them on fasteager.keras.

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_fit_optimizer.py
"""
import os
import sys

import numpy as np


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype("float32")
    y = (rng.random((32, 1)) > 0.5).astype("float32")
    return x, y


def model(keras):
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(
        1, activation="sigmoid", kernel_initializer="ones", bias_initializer="zeros")])


CASES = {
    "ema": lambda k: (k.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5), []),
    "loss_scale": lambda k: (k.optimizers.SGD(0.1, loss_scale_factor=128.0), []),
    "precision_thresholds": lambda k: ("sgd", [k.metrics.Precision(thresholds=[0.3, 0.7])]),
}


def run(keras, name):
    """(final kernel, history, evaluate's dict) of one case, as JSON-ready lists."""
    x, y = data()
    opt, metrics = CASES[name](keras)
    m = model(keras)
    m.compile(opt, "mse", metrics=metrics)
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    ev = m.evaluate(x, y, verbose=0, return_dict=True)
    return {"kernel": m.get_weights()[0].ravel().tolist(),
            "history": {k: [np.asarray(v).tolist() for v in vs]
                        for k, vs in h.history.items()},
            "evaluate": {k: np.asarray(v).tolist() for k, v in ev.items()}}


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from __init__ import save
    save("fit_optimizer", {name: run(keras, name) for name in CASES})
