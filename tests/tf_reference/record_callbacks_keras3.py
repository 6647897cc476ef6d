"""Record Keras 3.15.1's CSVLogger files, ReduceLROnPlateau's learning-rate trajectory and
log key, TerminateOnNaN's stopping batch and SwapEMAWeights' values (same data and initial
weights as tests/keras/test_callbacks_keras3.py, shuffle=False).

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_callbacks_keras3.py
"""
import contextlib
import io
import os
import sys
import tempfile

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

X = (np.arange(36, dtype="float32").reshape(12, 3) % 7 - 3) / 4
Y = (np.arange(12, dtype="float32").reshape(12, 1) % 5) / 4
XV, YV = X[:6] * 0.5 + 0.1, Y[:6][::-1].copy()
KERNEL = np.array([[0.5], [-0.25], [0.1]], "float32")
BIAS = np.array([0.2], "float32")


def model(optimizer):
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.set_weights([KERNEL, BIAS])
    m.compile(optimizer=optimizer, loss="mse", metrics=["mae"])
    return m


def floats(d):
    return {k: [float(v) for v in vs] for k, vs in d.items()}


class Logs(keras.callbacks.Callback):
    """The epoch logs each epoch-end hook sees (placed first, so as fit hands them)."""

    def __init__(self):
        super().__init__()
        self.epochs = []
        self.batches = []

    def on_epoch_end(self, epoch, logs=None):
        self.epochs.append({k: float(v) for k, v in logs.items()})

    def on_train_batch_end(self, batch, logs=None):
        self.batches.append(batch)


out = {}
tmp = tempfile.mkdtemp()

# -- CSVLogger ---------------------------------------------------------------------------
path = os.path.join(tmp, "log.csv")
rec = Logs()
m = model(keras.optimizers.SGD(0.1))
m.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0, validation_data=(XV, YV),
      callbacks=[rec, keras.callbacks.CSVLogger(path)])
with open(path, "rb") as f:
    out["csv_val"] = {"bytes": f.read().decode("latin-1"), "logs": rec.epochs}
# appended: a second fit, without validation, separator ';'
rec = Logs()
m.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0,
      callbacks=[rec, keras.callbacks.CSVLogger(path, separator=";", append=True)])
with open(path, "rb") as f:
    out["csv_append"] = {"bytes": f.read().decode("latin-1"), "logs": rec.epochs}
# no validation at the first epoch: Keras adds val_ columns filled with NA
path2 = os.path.join(tmp, "noval.csv")
rec = Logs()
model(keras.optimizers.SGD(0.1)).fit(
    X, Y, batch_size=6, epochs=2, shuffle=False, verbose=0,
    callbacks=[rec, keras.callbacks.CSVLogger(path2, separator="\t")])
with open(path2, "rb") as f:
    out["csv_noval"] = {"bytes": f.read().decode("latin-1"), "logs": rec.epochs}

# -- ReduceLROnPlateau --------------------------------------------------------------------
cases = {
    "loss_min_delta": dict(monitor="loss", factor=0.5, patience=1, min_delta=10.0,
                           cooldown=1, min_lr=0.03),
    "val_loss": dict(monitor="val_loss", factor=0.2, patience=2, verbose=1),
    "val_mae_max": dict(monitor="val_mae", mode="max", factor=0.5, patience=1,
                        min_lr=0.01),
}
out["rlrop"] = {}
for name, kwargs in cases.items():
    m = model(keras.optimizers.SGD(0.4))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        h = m.fit(X, Y, batch_size=4, epochs=7, shuffle=False, verbose=0,
                  validation_data=(XV, YV),
                  callbacks=[keras.callbacks.ReduceLROnPlateau(**kwargs)])
    out["rlrop"][name] = {"kwargs": kwargs, "history": floats(h.history),
                          "stdout": buf.getvalue(),
                          "weights": [w.tolist() for w in m.get_weights()]}
try:
    keras.callbacks.ReduceLROnPlateau(factor=1.0)
except ValueError as e:
    out["rlrop_factor_error"] = str(e)
sched = keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)
m = model(keras.optimizers.SGD(sched))
try:
    m.fit(X, Y, batch_size=4, epochs=4, shuffle=False, verbose=0,
          callbacks=[keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=0,
                                                       min_delta=10.0)])
except TypeError as e:
    out["rlrop_schedule_error"] = str(e)

# -- TerminateOnNaN -----------------------------------------------------------------------
XN = X.copy()
XN[5, 1] = np.nan
rec = Logs()
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    h = model(keras.optimizers.SGD(0.1)).fit(
        XN, Y, batch_size=2, epochs=3, shuffle=False, verbose=0,
        validation_data=(XV, YV), callbacks=[rec, keras.callbacks.TerminateOnNaN()])
out["nan"] = {"batches": rec.batches, "epochs": len(h.history["loss"]),
              "stdout": buf.getvalue()}
try:
    model(keras.optimizers.SGD(0.1)).fit(
        XN, Y, batch_size=2, epochs=1, shuffle=False, verbose=0,
        callbacks=[keras.callbacks.TerminateOnNaN(raise_error=True)])
except RuntimeError as e:
    out["nan_raise"] = str(e)

# -- SwapEMAWeights -----------------------------------------------------------------------
out["ema"] = {}
for swap_on_epoch in (False, True):
    m = model(keras.optimizers.SGD(0.2, use_ema=True, ema_momentum=0.7))
    rec = Logs()
    h = m.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0,
              validation_data=(XV, YV),
              callbacks=[keras.callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch), rec])
    out["ema"][str(swap_on_epoch)] = {
        "history": floats(h.history),
        "weights": [w.tolist() for w in m.get_weights()],
        "evaluate": [float(v) for v in m.evaluate(
            XV, YV, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])],
        "weights_after_evaluate": [w.tolist() for w in m.get_weights()],
    }
# the swap's own rounding: weights and averages of very different sizes
W_SWAP = [np.array([[1e8 + 3], [0.1], [-7.3e-3]], "float32"), np.array([0.3], "float32")]
A_SWAP = [np.array([[0.7], [3.3e7], [1.1]], "float32"), np.array([-2.9e-8], "float32")]
m = model(keras.optimizers.SGD(0.2, use_ema=True))
m.optimizer.build(m.trainable_variables)
m.set_weights(W_SWAP)
for avg, a in zip(m.optimizer._model_variables_moving_average, A_SWAP):
    avg.assign(a)
cb = keras.callbacks.SwapEMAWeights()
cb.set_model(m)
cb.on_test_begin()
swapped = [w.tolist() for w in m.get_weights()]
cb.on_test_end()
out["ema_swap_rounding"] = {
    "swapped": swapped, "back": [w.tolist() for w in m.get_weights()],
    "averages": [np.asarray(a).tolist()
                 for a in m.optimizer._model_variables_moving_average]}

m = model(keras.optimizers.SGD(0.2))
m.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
try:
    m.evaluate(XV, YV, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])
except ValueError as e:
    out["ema_no_ema_error"] = str(e)

# -- RemoteMonitor: what it POSTs to a server on the loopback address ---------------------
import http.server  # noqa: E402
import threading  # noqa: E402


def serve():
    got = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.append({"path": self.path, "content_type": self.headers["Content-Type"],
                        "x_test": self.headers.get("X-Test"), "body": body.decode()})
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, got


out["remote"] = {}
for as_json in (False, True):
    server, got = serve()
    rec = Logs()
    model(keras.optimizers.SGD(0.1)).fit(
        X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0, validation_data=(XV, YV),
        callbacks=[rec, keras.callbacks.RemoteMonitor(
            root="http://127.0.0.1:%d" % server.server_port, path="/p/", field="f",
            headers={"X-Test": "1"}, send_as_json=as_json)])
    server.shutdown()
    out["remote"][str(as_json)] = {"logs": rec.epochs, "posts": got}

save("callbacks_keras3", out)
