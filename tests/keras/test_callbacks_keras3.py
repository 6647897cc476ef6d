"""CSVLogger, ReduceLROnPlateau, TerminateOnNaN and SwapEMAWeights against values recorded
from Keras 3.15.1 (tests/tf_reference/record_callbacks_keras3.py: same data, same initial
weights, shuffle=False)."""
import contextlib
import io
import warnings

import numpy as np
import pytest

import fasteager as tf
from tests.tf_reference import load

keras = tf.keras
REF = load("callbacks_keras3")

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


class Logs(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = []

    def on_train_batch_end(self, batch, logs=None):
        self.batches.append(batch)


def rows(text):
    return [line.split(sep) for line in text.split("\r\n") if line
            for sep in [";" if ";" in line else "\t" if "\t" in line else ","]]


def assert_csv_close(got, want):
    """Same header, epochs, NA cells and separators; numbers to float32 rounding."""
    g, w = rows(got), rows(want)
    assert len(g) == len(w)
    for gr, wr in zip(g, w):
        assert len(gr) == len(wr)
        for gc, wc in zip(gr, wr):
            try:
                np.testing.assert_allclose(float(gc), float(wc), rtol=1e-5, atol=1e-7)
            except ValueError:
                assert gc == wc


# -- CSVLogger ----------------------------------------------------------------------------
def _replay(path, recorded, **kwargs):
    """Hand Keras's recorded epoch logs to the logger, as fit would."""
    cb = keras.callbacks.CSVLogger(path, **kwargs)
    cb.on_train_begin({})
    for epoch, logs in enumerate(recorded):
        cb.on_epoch_end(epoch, dict(logs))
    cb.on_train_end({})


def test_csv_logger_bytes_match_keras_for_the_same_logs(tmp_path):
    path = str(tmp_path / "log.csv")
    _replay(path, REF["csv_val"]["logs"])
    with open(path, "rb") as f:
        assert f.read().decode("latin-1") == REF["csv_val"]["bytes"]
    _replay(path, REF["csv_append"]["logs"], separator=";", append=True)
    with open(path, "rb") as f:
        assert f.read().decode("latin-1") == REF["csv_append"]["bytes"]
    _replay(str(tmp_path / "n.csv"), REF["csv_noval"]["logs"], separator="\t")
    with open(str(tmp_path / "n.csv"), "rb") as f:
        assert f.read().decode("latin-1") == REF["csv_noval"]["bytes"]


def test_csv_logger_in_fit_matches_keras(tmp_path):
    path = str(tmp_path / "log.csv")
    m = model(keras.optimizers.SGD(0.1))
    m.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0, validation_data=(XV, YV),
          callbacks=[keras.callbacks.CSVLogger(path)])
    with open(path, "rb") as f:
        text = f.read().decode("latin-1")
    assert text.split("\r\n")[0] == "epoch,loss,mae,val_loss,val_mae"
    assert_csv_close(text, REF["csv_val"]["bytes"])
    m.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0,
          callbacks=[keras.callbacks.CSVLogger(path, separator=";", append=True)])
    with open(path, "rb") as f:
        assert_csv_close(f.read().decode("latin-1"), REF["csv_append"]["bytes"])
    path2 = str(tmp_path / "noval.csv")
    model(keras.optimizers.SGD(0.1)).fit(
        X, Y, batch_size=6, epochs=2, shuffle=False, verbose=0,
        callbacks=[keras.callbacks.CSVLogger(path2, separator="\t")])
    with open(path2, "rb") as f:
        assert_csv_close(f.read().decode("latin-1"), REF["csv_noval"]["bytes"])


def test_csv_logger_writes_arrays_as_one_quoted_cell(tmp_path):
    path = str(tmp_path / "a.csv")
    cb = keras.callbacks.CSVLogger(path)
    cb.on_train_begin()
    cb.on_epoch_end(0, {"loss": 0.5, "val_v": np.array([1, 2])})
    cb.on_train_end()
    with open(path) as f:
        assert f.read().splitlines() == ["epoch,loss,val_v", '0,0.5,"""[1, 2]"""']


# -- ReduceLROnPlateau --------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(REF["rlrop"]))
def test_reduce_lr_on_plateau_matches_keras(case):
    ref = REF["rlrop"][case]
    m = model(keras.optimizers.SGD(0.4))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        h = m.fit(X, Y, batch_size=4, epochs=7, shuffle=False, verbose=0,
                  validation_data=(XV, YV),
                  callbacks=[keras.callbacks.ReduceLROnPlateau(**ref["kwargs"])])
    assert sorted(h.history) == sorted(ref["history"])
    # the learning rate is a float32 variable: its trajectory is exact
    assert h.history["learning_rate"] == ref["history"]["learning_rate"]
    for k in ref["history"]:
        np.testing.assert_allclose(h.history[k], ref["history"][k], rtol=1e-5, atol=1e-7)
    for w, rw in zip(m.get_weights(), ref["weights"]):
        np.testing.assert_allclose(w, rw, rtol=1e-5, atol=1e-6)
    assert buf.getvalue() == ref["stdout"]


def test_reduce_lr_on_plateau_with_a_float_learning_rate_attribute():
    class Holder:
        learning_rate = 0.4

    class Model:
        optimizer = Holder()

    cb = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0,
                                           min_delta=10.0)
    cb.set_model(Model())
    cb.on_train_begin()
    seen = []
    for epoch in range(3):
        logs = {"loss": 1.0}
        cb.on_epoch_end(epoch, logs)
        seen.append(logs["learning_rate"])
    # the first epoch sets the best value; each later one reduces (logged before it)
    assert seen == [0.4, 0.4, 0.2]
    assert Model.optimizer.learning_rate == 0.1


def test_reduce_lr_on_plateau_refuses_as_keras():
    with pytest.raises(ValueError) as e:
        keras.callbacks.ReduceLROnPlateau(factor=1.0)
    assert str(e.value) == REF["rlrop_factor_error"]
    sched = keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)
    m = model(keras.optimizers.SGD(sched))
    with pytest.raises(TypeError) as e:
        m.fit(X, Y, batch_size=4, epochs=4, shuffle=False, verbose=0,
              callbacks=[keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=0,
                                                           min_delta=10.0)])
    assert str(e.value) == REF["rlrop_schedule_error"]
    with pytest.warns(UserWarning, match="unknown, fallback to auto"):
        keras.callbacks.ReduceLROnPlateau(mode="sideways")


def test_reduce_lr_on_plateau_warns_on_a_missing_metric():
    m = model(keras.optimizers.SGD(0.4))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0,
              callbacks=[keras.callbacks.ReduceLROnPlateau()])
    assert any("`val_loss` which is not available" in str(x.message) for x in w)


# -- TerminateOnNaN -----------------------------------------------------------------------
def test_terminate_on_nan_stops_at_keras_batch():
    XN = X.copy()
    XN[5, 1] = np.nan
    rec = Logs()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        h = model(keras.optimizers.SGD(0.1)).fit(
            XN, Y, batch_size=2, epochs=3, shuffle=False, verbose=0,
            validation_data=(XV, YV), callbacks=[rec, keras.callbacks.TerminateOnNaN()])
    assert rec.batches == REF["nan"]["batches"]
    assert len(h.history["loss"]) == REF["nan"]["epochs"]
    assert buf.getvalue() == REF["nan"]["stdout"]
    with pytest.raises(RuntimeError) as e:
        model(keras.optimizers.SGD(0.1)).fit(
            XN, Y, batch_size=2, epochs=1, shuffle=False, verbose=0,
            callbacks=[keras.callbacks.TerminateOnNaN(raise_error=True)])
    assert str(e.value) == REF["nan_raise"]


# -- SwapEMAWeights -----------------------------------------------------------------------
@pytest.mark.parametrize("swap_on_epoch", [False, True])
def test_swap_ema_weights_matches_keras(swap_on_epoch):
    ref = REF["ema"][str(swap_on_epoch)]
    m = model(keras.optimizers.SGD(0.2, use_ema=True, ema_momentum=0.7))
    h = m.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0,
              validation_data=(XV, YV),
              callbacks=[keras.callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch)])
    for k in ref["history"]:
        np.testing.assert_allclose(h.history[k], ref["history"][k], rtol=1e-5, atol=1e-7)
    for w, rw in zip(m.get_weights(), ref["weights"]):
        np.testing.assert_allclose(w, rw, rtol=1e-5, atol=1e-6)
    got = m.evaluate(XV, YV, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])
    np.testing.assert_allclose(got, ref["evaluate"], rtol=1e-5, atol=1e-7)
    for w, rw in zip(m.get_weights(), ref["weights_after_evaluate"]):
        np.testing.assert_allclose(w, rw, rtol=1e-5, atol=1e-6)


def test_swap_ema_weights_rounds_as_keras():
    # TensorFlow's Keras swaps by additions: with weights and averages of very different
    # sizes the swap is not exact, and Keras's values are the rounded ones
    from fasteager.keras.optimizers.base import _var_key
    ref = REF["ema_swap_rounding"]
    m = model(keras.optimizers.SGD(0.2, use_ema=True))
    m.optimizer.build(m.trainable_variables)
    m.set_weights([np.array([[1e8 + 3], [0.1], [-7.3e-3]], "float32"),
                   np.array([0.3], "float32")])
    averages = [m.optimizer._slots[_var_key(v)]["average"] for v in m.trainable_variables]
    for avg, a in zip(averages, [np.array([[0.7], [3.3e7], [1.1]], "float32"),
                                 np.array([-2.9e-8], "float32")]):
        avg.assign(a)
    cb = keras.callbacks.SwapEMAWeights()
    cb.set_model(m)
    cb.on_test_begin()
    assert [w.tolist() for w in m.get_weights()] == ref["swapped"]
    cb.on_test_end()
    assert [w.tolist() for w in m.get_weights()] == ref["back"]
    assert [a.numpy().tolist() for a in averages] == ref["averages"]


def test_swap_ema_weights_needs_use_ema():
    m = model(keras.optimizers.SGD(0.2))
    m.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    with pytest.raises(ValueError) as e:
        m.evaluate(XV, YV, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])
    assert str(e.value) == REF["ema_no_ema_error"]


# -- RemoteMonitor ------------------------------------------------------------------------
def _serve():
    import http.server
    import threading
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


@pytest.mark.parametrize("as_json", [False, True])
def test_remote_monitor_posts_what_keras_posts(as_json):
    pytest.importorskip("requests")
    import json
    ref = REF["remote"][str(as_json)]
    server, got = _serve()
    try:
        root = "http://127.0.0.1:%d" % server.server_port
        # Keras's own logs: the request bodies are byte for byte Keras's
        cb = keras.callbacks.RemoteMonitor(root=root, path="/p/", field="f",
                                           headers={"X-Test": "1"}, send_as_json=as_json)
        for epoch, logs in enumerate(ref["logs"]):
            cb.on_epoch_end(epoch, dict(logs))
        assert got == ref["posts"]
        # in fit: the same requests, values to float32 rounding
        del got[:]
        model(keras.optimizers.SGD(0.1)).fit(
            X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0, validation_data=(XV, YV),
            callbacks=[keras.callbacks.RemoteMonitor(
                root=root, path="/p/", field="f", headers={"X-Test": "1"},
                send_as_json=as_json)])
    finally:
        server.shutdown()
        server.server_close()
    assert len(got) == len(ref["posts"])
    import urllib.parse
    for g, r in zip(got, ref["posts"]):
        assert {k: g[k] for k in ("path", "content_type", "x_test")} == \
            {k: r[k] for k in ("path", "content_type", "x_test")}
        def payload(p):
            body = p["body"]
            return json.loads(body if as_json else urllib.parse.parse_qs(body)["f"][0])
        gp, rp = payload(g), payload(r)
        assert list(gp) == list(rp)
        np.testing.assert_allclose(list(gp.values()), list(rp.values()), rtol=1e-5)


def test_remote_monitor_warns_when_the_server_is_unreachable():
    pytest.importorskip("requests")
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                       # nothing listens on this port now
    cb = keras.callbacks.RemoteMonitor(root="http://127.0.0.1:%d" % port)
    with pytest.warns(UserWarning, match="Could not reach RemoteMonitor root server"):
        cb.on_epoch_end(0, {"loss": np.float32(0.5)})
