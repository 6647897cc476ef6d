"""fit/evaluate/predict as Keras 3.15.1 runs them, against values recorded from it
(tests/tf_reference/record_fit_loop.py): logs with sample_weight and weighted_metrics,
the *_on_batch returns, the callback call sequence, ModelCheckpoint's filename rules and
fit(class_weight=...)."""
import os

import numpy as np
import pytest

import fasteager as tf
from tests.tf_reference import load

keras = tf.keras
REF = load("fit_loop")

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


def assert_logs(got, want):
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=2e-5, atol=1e-6, err_msg=k)


# -- metrics / weighted_metrics with sample_weight -----------------------------------------
METRIC_CASES = {"metrics": (["mae"], None), "both": (["mae"], ["mae"]),
                "weighted_only": (None, ["mae", "mse"]), "none": (None, None)}


@pytest.mark.parametrize("case", sorted(METRIC_CASES))
def test_sample_weight_and_weighted_metrics_logs(case):
    metrics, weighted = METRIC_CASES[case]
    want = REF["weighted"][case]
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=metrics, weighted_metrics=weighted)
    h = m.fit(X, Y, sample_weight=SW, batch_size=4, epochs=2, shuffle=False, verbose=0,
              validation_data=(XV, YV, SWV))
    assert_logs(h.history, want["history"])
    m2 = regressor()
    m2.compile(keras.optimizers.SGD(0.05), "mse", metrics=metrics, weighted_metrics=weighted)
    assert_logs(m2.evaluate(X, Y, sample_weight=SW, batch_size=4, verbose=0, return_dict=True),
                want["evaluate_sw"])
    assert_logs(m2.evaluate(X, Y, batch_size=4, verbose=0, return_dict=True),
                want["evaluate"])
    np.testing.assert_allclose(m2.evaluate(X, Y, sample_weight=SW, batch_size=4, verbose=0),
                               want["evaluate_list"], rtol=2e-5)


# -- train_on_batch / test_on_batch / predict_on_batch -------------------------------------
@pytest.mark.parametrize("case", ["no_metrics", "mae"])
def test_on_batch_returns(case):
    want = REF["on_batch"][case]
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=None if case == "no_metrics"
              else ["mae"])
    for call, args in (("train", {}), ("train_sw", {"sample_weight": SW}),
                       ("test", {}), ("test_sw", {"sample_weight": SW})):
        fn = m.train_on_batch if call.startswith("train") else m.test_on_batch
        r = fn(X, Y, **args)
        assert type(r).__name__ == want[call][0], call
        np.testing.assert_allclose(r, want[call][1], rtol=2e-5, err_msg=call)
        r = fn(X, Y, return_dict=True, **args)
        assert type(r) is dict and all(type(v) is float for v in r.values())
        assert_logs(r, want[call + "_dict"][1])
    p = m.predict_on_batch(X)
    kind, dtype, shape, values = want["predict"]
    assert (type(p).__name__, str(p.dtype), list(p.shape)) == (kind, dtype, shape)
    np.testing.assert_allclose(p, values, rtol=2e-5)


# -- callback call sequences ---------------------------------------------------------------
HOOKS = ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
         "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
         "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
         "on_predict_batch_begin", "on_predict_batch_end", "on_batch_begin", "on_batch_end"]


def _entry(hook, args, kwargs):
    # as the recorder: the epoch/batch argument, and the sorted log keys (or what came)
    arg = args[0] if args and not isinstance(args[0], dict) and args[0] is not None else None
    logs = kwargs.get("logs", args[-1] if args and (isinstance(args[-1], dict)
                                                    or args[-1] is None) else "missing")
    return [hook, None if arg is None else int(arg),
            sorted(logs) if isinstance(logs, dict) else logs]


def _recorder(hooks):
    calls = []

    def make(hook):
        def fn(self, *args, **kwargs):
            calls.append(_entry(hook, args, kwargs))
        return fn
    cls = type("Rec", (keras.callbacks.Callback,), {h: make(h) for h in hooks})
    return cls(), calls


def _lambda_recorder():
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


SEQ_CASES = {
    "fit_validation_data": dict(validation_data=(XV, YV), epochs=2),
    "fit_validation_split": dict(validation_split=0.3, epochs=2),
    "fit_validation_freq": dict(validation_data=(XV, YV), epochs=3, validation_freq=2),
    "fit_plain": dict(epochs=1),
}


def _compiled():
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    return m


@pytest.mark.parametrize("which", ["all", "keras1", "lambda"])
@pytest.mark.parametrize("case", sorted(SEQ_CASES))
def test_fit_callback_sequence(case, which):
    if which == "lambda":
        cb, calls = _lambda_recorder()
    else:
        cb, calls = _recorder(HOOKS if which == "all" else ["on_batch_begin", "on_batch_end"])
    _compiled().fit(X, Y, batch_size=4, shuffle=False, verbose=0, callbacks=[cb],
                    **SEQ_CASES[case])
    assert calls == REF["sequence"][case][which]


@pytest.mark.parametrize("verbose", [0, 1])
def test_evaluate_and_predict_callback_sequence(verbose, capsys):
    m = _compiled()
    cb, calls = _recorder(HOOKS)
    m.evaluate(X, Y, batch_size=4, verbose=verbose, callbacks=[cb])
    assert calls == REF["sequence"]["evaluate"]["all"]
    cb, calls = _recorder(HOOKS)
    m.predict(X, batch_size=4, verbose=verbose, callbacks=[cb])
    assert calls == REF["sequence"]["predict"]["all"]


def test_on_train_end_gets_the_last_epoch_logs():
    seen = {}
    cb = keras.callbacks.LambdaCallback(on_train_end=lambda logs: seen.update(end=dict(logs)))
    h = _compiled().fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0, callbacks=[cb],
                        validation_data=(XV, YV))
    want = REF["train_end_logs"]
    assert_logs(seen["end"], want["logs"])
    assert_logs(h.history, want["history"])


# -- ModelCheckpoint -----------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(REF["checkpoint"]["errors"]))
def test_model_checkpoint_filename_rules(key):
    path, weights_only = key.split("|")
    want = REF["checkpoint"]["errors"][key]
    if want is None:
        keras.callbacks.ModelCheckpoint(path, save_weights_only=weights_only == "True")
        return
    if weights_only == "True" and path.endswith((".npz", ".safetensors")):
        # fasteager's own weights formats stay accepted beside Keras's .weights.h5
        keras.callbacks.ModelCheckpoint(path, save_weights_only=True)
        return
    with pytest.raises(ValueError) as e:
        keras.callbacks.ModelCheckpoint(path, save_weights_only=weights_only == "True")
    # Keras's text; fasteager adds a hint for its own weights formats
    assert str(e.value).startswith(want[1])


def test_model_checkpoint_default_is_the_whole_model():
    # Keras 3: save_weights_only=False by default, and a .keras path saves the model
    assert keras.callbacks.ModelCheckpoint("best.keras").save_weights_only is False


@pytest.mark.parametrize("pattern", sorted(REF["checkpoint"]["files"]))
def test_model_checkpoint_files(pattern, tmp_path):
    kwargs = {"best.keras": dict(save_best_only=True),
              "w-{epoch:02d}.weights.h5": dict(save_weights_only=True)}.get(pattern, {})
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse")
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / pattern), **kwargs)
    m.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0, callbacks=[cb],
          validation_data=(XV, YV))
    files = sorted(os.path.relpath(os.path.join(r, f), tmp_path)
                   for r, _, fs in os.walk(tmp_path) for f in fs)
    assert files == REF["checkpoint"]["files"][pattern]
    if pattern == "best.keras":
        loaded = keras.models.load_model(str(tmp_path / "best.keras"))
        assert type(loaded).__name__ == REF["checkpoint"]["best_class"]
        np.testing.assert_allclose(loaded.predict(X, verbose=0),
                                   REF["checkpoint"]["best_predict"], rtol=2e-5)


def test_model_checkpoint_npz_weights_still_written(tmp_path):
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse")
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / "w-{epoch}.npz"), save_weights_only=True)
    m.fit(X, Y, epochs=2, verbose=0, callbacks=[cb])
    assert sorted(os.listdir(tmp_path)) == ["w-1.npz", "w-2.npz"]


# -- class_weight --------------------------------------------------------------------------
XC = (np.arange(36, dtype="float32").reshape(12, 3) % 5 - 2) / 3
YS = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1, 1, 2])
CW = {0: 1.0, 1: 2.5, 2: 0.5}
KC = np.array([[0.3, -0.2, 0.1], [0.05, 0.4, -0.3], [-0.1, 0.2, 0.25]], "float32")
BC = np.array([0.0, 0.1, -0.1], "float32")
CW_CASES = {
    "sparse": (YS, "sparse_categorical_crossentropy", 3, "softmax", CW, ["accuracy"]),
    "sparse_col": (YS[:, None], "sparse_categorical_crossentropy", 3, "softmax", CW, None),
    "onehot": (np.eye(3, dtype="float32")[YS], "categorical_crossentropy", 3, "softmax",
               CW, None),
    "binary": ((YS[:, None] == 1).astype("float32"), "binary_crossentropy", 1, "sigmoid",
               {0: 1.0, 1: 3.0}, None),
    "partial": (YS, "sparse_categorical_crossentropy", 3, "softmax", {1: 2.0}, None)}


def _classifier(units=3, activation="softmax"):
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(units, activation=activation)])
    m.set_weights([KC[:, :units], BC[:units]])
    return m


@pytest.mark.parametrize("case", sorted(CW_CASES))
def test_fit_class_weight(case):
    y, loss, units, act, weights, metrics = CW_CASES[case]
    m = _classifier(units, act)
    m.compile(keras.optimizers.SGD(0.1), loss, metrics=metrics,
              weighted_metrics=["accuracy"] if case == "sparse" else None)
    h = m.fit(XC, y, class_weight=weights, batch_size=5, epochs=3, shuffle=False, verbose=0,
              validation_data=(XC[:4], y[:4]))
    assert_logs(h.history, REF["class_weight"][case])


def test_fit_class_weight_on_a_dataset():
    y, loss, units, act, weights, metrics = CW_CASES["sparse_col"]
    m = _classifier(units, act)
    m.compile(keras.optimizers.SGD(0.1), loss)
    ds = tf.data.Dataset.from_tensor_slices((XC, y)).batch(5)
    h = m.fit(ds, class_weight=weights, epochs=3, verbose=0,
              validation_data=(XC[:4], y[:4]))
    assert_logs(h.history, REF["class_weight"]["sparse_col"])


def test_fit_class_weight_with_sample_weight_is_refused():
    m = _classifier()
    m.compile("sgd", "sparse_categorical_crossentropy")
    with pytest.raises(ValueError) as e:
        m.fit(XC, YS, class_weight=CW, sample_weight=np.ones(12), verbose=0)
    assert str(e.value) == REF["class_weight"]["with_sample_weight"][1]


def test_train_on_batch_class_weight():
    m = _classifier()
    m.compile(keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy")
    got = [m.train_on_batch(XC, YS, class_weight=CW) for _ in range(2)]
    assert all(type(v) is float for v in got)
    np.testing.assert_allclose(got, REF["class_weight"]["train_on_batch"], rtol=2e-5)


@pytest.mark.parametrize("eager", [False, True])
def test_two_outputs_logs(eager):
    # the per-output metrics ignore sample_weight; the per-output losses are averaged
    # over batches as Keras 3's traced step does (each batch once: the last one, of 2,
    # counts as much as one of 4), or by batch size with run_eagerly=True
    inp = keras.Input((3,))
    a = keras.layers.Dense(1, name="a")(inp)
    b = keras.layers.Dense(1, name="b")(inp)
    m = keras.Model(inp, {"a": a, "b": b})
    m.set_weights([KERNEL, BIAS, KERNEL[::-1].copy(), -BIAS])
    m.compile(keras.optimizers.SGD(0.05), {"a": "mse", "b": "mae"},
              metrics={"a": ["mae"], "b": ["mse"]}, run_eagerly=eager)
    h = m.fit(X, {"a": Y, "b": 1 - Y}, sample_weight=SW, batch_size=4, epochs=2,
              shuffle=False, verbose=0)
    assert_logs(h.history, REF["two_outputs_eager" if eager else "two_outputs"])


def test_learning_rate_scheduler_logs_learning_rate():
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse")
    h = m.fit(X, Y, epochs=2, verbose=0, callbacks=[
        keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)])
    assert_logs(h.history, REF["lr_scheduler"])


class _TwinComm:
    """Two workers with the same data: an all-reduce doubles every number."""
    size = 2
    rank = 0

    def allreduce_(self, buf, op="sum"):
        buf *= 2
        return buf


def test_multi_worker_log_reduction_keeps_weighted_keys_apart():
    # the all-worker reduction of the logs finds each metric by its log key: with the
    # same data on both workers the logs stay as they are ('mae' is not the weighted one)
    from fasteager.distribute.strategy import MultiWorkerMirroredStrategy
    m = regressor()
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"], weighted_metrics=["mae"])
    logs = m.evaluate(X, Y, sample_weight=SW, batch_size=4, verbose=0, return_dict=True)
    strategy = object.__new__(MultiWorkerMirroredStrategy)
    strategy._comm = _TwinComm()
    assert_logs(strategy._reduce_logs(m, logs), logs)


NAMES_CASES = {"none": (None, None), "mae": (["mae"], None), "weighted": (None, ["mae"]),
               "both": (["mae", "mse"], ["mae"])}


@pytest.mark.parametrize("case", sorted(NAMES_CASES))
def test_metrics_names(case):
    metrics, weighted = NAMES_CASES[case]
    m = regressor()
    before = m.metrics_names
    m.compile(keras.optimizers.SGD(0.05), "mse", metrics=metrics, weighted_metrics=weighted)
    compiled = m.metrics_names
    m.fit(X, Y, verbose=0)
    assert [before, compiled, m.metrics_names] == REF["metrics_names"][case]


def test_two_outputs_metrics_names_and_evaluate_list():
    inp = keras.Input((3,))
    m = keras.Model(inp, {"a": keras.layers.Dense(1, name="a")(inp),
                          "b": keras.layers.Dense(1, name="b")(inp)})
    m.set_weights([KERNEL, BIAS, KERNEL[::-1].copy(), -BIAS])
    m.compile(keras.optimizers.SGD(0.05), {"a": "mse", "b": "mae"}, metrics={"a": ["mae"]})
    compiled = m.metrics_names
    ev = m.evaluate(X, {"a": Y, "b": 1 - Y}, batch_size=4, verbose=0)
    assert [[], compiled, m.metrics_names] == REF["metrics_names"]["two_outputs"]
    # Keras 3's order: the loss, each output's loss, then the prefixed metrics sorted
    np.testing.assert_allclose(ev, REF["two_outputs_evaluate"], rtol=2e-5)
