"""fit/evaluate/predict argument and data checks, layer input ranks, and the warning a
training step that cannot be traced gives."""
import warnings

import numpy as np
import pytest

import fasteager as fe

K = fe.keras
X = np.random.RandomState(0).rand(8, 4).astype("float32")
Y = np.random.RandomState(1).rand(8, 1).astype("float32")


def _model():
    m = K.Sequential([K.layers.Dense(3, activation="tanh"), K.layers.Dense(1)])
    m.compile("sgd", "mse")
    m(X)
    return m


@pytest.mark.parametrize("bad", [0, -1, 2.5, "8", True, [4]])
def test_fit_rejects_bad_batch_size_before_training(bad):
    m = _model()
    before = m.get_weights()
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"fit: batch_size.*got"):
        m.fit(X, Y, batch_size=bad, verbose=0)
    for a, b in zip(before, m.get_weights()):
        np.testing.assert_array_equal(a, b)        # nothing trained
    assert m.history is None


@pytest.mark.parametrize("method", ["evaluate", "predict"])
def test_evaluate_predict_reject_bad_batch_size(method):
    m = _model()
    args = (X, Y) if method == "evaluate" else (X,)
    for bad in (0, -4, 1.0):
        with pytest.raises(fe.errors.InvalidArgumentError, match="%s: batch_size" % method):
            getattr(m, method)(*args, batch_size=bad, verbose=0)


@pytest.mark.parametrize("kwargs, name", [
    ({"epochs": -1}, "epochs"), ({"epochs": 1.5}, "epochs"),
    ({"steps_per_epoch": 0}, "steps_per_epoch"),
    ({"validation_batch_size": 0, "validation_split": 0.25}, "validation_batch_size"),
    ({"validation_freq": 0}, "validation_freq"), ({"initial_epoch": -1}, "initial_epoch")])
def test_fit_rejects_other_bad_counts(kwargs, name):
    with pytest.raises(fe.errors.InvalidArgumentError, match="fit: %s" % name):
        _model().fit(X, Y, verbose=0, **kwargs)


def test_valid_counts_still_work():
    m = _model()
    h = m.fit(X, Y, batch_size=np.int64(4), epochs=2, verbose=0)
    assert len(h.history["loss"]) == 2
    assert m.predict(X, batch_size=3, verbose=0).shape == (8, 1)


def _empty_dataset():
    return fe.data.Dataset.from_tensor_slices((X[:0], Y[:0])).batch(2)


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
def test_empty_data_raises(method):
    m = _model()
    array_args = (X[:0], Y[:0]) if method != "predict" else (X[:0],)
    with pytest.raises(ValueError, match="%s: Unexpected result.*no data" % method):
        getattr(m, method)(*array_args, verbose=0)
    with pytest.raises(ValueError, match="%s: Unexpected result.*no data" % method):
        getattr(m, method)(_empty_dataset(), verbose=0)


def test_empty_validation_data_raises():
    with pytest.raises(ValueError, match="evaluate: Unexpected result.*no data"):
        _model().fit(X, Y, validation_data=(X[:0], Y[:0]), verbose=0)


# ---- input ranks ---------------------------------------------------------------------------
L = K.layers


@pytest.mark.parametrize("layer, shape, expected", [
    (lambda: L.Dense(3), (4,), "min_ndim=2"),
    (lambda: L.Dense(3), (), "min_ndim=2"),
    (lambda: L.Conv2D(2, 3), (2, 5, 5), "ndim=4"),
    (lambda: L.Conv2D(2, 3), (1, 2, 5, 5, 1), "ndim=4"),
    (lambda: L.Conv1D(2, 3), (2, 5), "ndim=3"),
    (lambda: L.MaxPooling2D(), (2, 4, 4), "ndim=4"),
    (lambda: L.AveragePooling2D(), (2, 4, 4, 1, 1), "ndim=4"),
    (lambda: L.GlobalAveragePooling2D(), (2, 4, 3), "ndim=4"),
    (lambda: L.GlobalMaxPooling1D(), (2, 4), "ndim=3"),
    (lambda: L.Flatten(), (), "min_ndim=1"),
    (lambda: L.Reshape((2, 2)), (), "min_ndim=1")])
def test_layer_input_rank(layer, shape, expected):
    lay = layer()
    with pytest.raises(ValueError, match=r"%s \(layer %r\).*expected %s, got ndim=%d"
                                         % (type(lay).__name__, lay.name, expected,
                                            len(shape))):
        lay(np.zeros(shape, np.float32))
    assert not lay.built and not lay.weights           # refused before building


def test_rank_checked_on_symbolic_inputs_too():
    with pytest.raises(ValueError, match="min_ndim=2"):
        K.Sequential([K.Input(shape=()), L.Dense(3)])
    assert L.Dense(2)(np.zeros((2, 3, 4), np.float32)).shape == (2, 3, 2)   # rank 3 is fine


# ---- a step that cannot be traced ----------------------------------------------------------
class PythonBranch(L.Layer):
    """Reads a computed tensor as Python data: the step cannot be replayed as a graph."""

    def call(self, x):
        if float(fe.reduce_sum(x).numpy()) > -1e30:
            return x * 2.0
        return x


def _fit_warnings(layers, epochs=3):
    m = K.Sequential(layers)
    m.compile("sgd", "mse")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h = m.fit(X, Y, batch_size=2, epochs=epochs, verbose=0)
    return m, h, [w for w in caught if "runs eagerly" in str(w.message)]


def test_untraceable_step_warns_once_and_trains():
    m, h, caught = _fit_warnings([L.Dense(3), PythonBranch(), L.Dense(1)])
    assert len(caught) == 1                           # 12 steps, one warning
    assert "train_step" in str(caught[0].message) and "numpy()" in str(caught[0].message)
    loss = h.history["loss"]
    assert len(loss) == 3 and loss[-1] < loss[0]


def test_traceable_step_does_not_warn():
    _, _, caught = _fit_warnings([L.Dense(3), L.Dense(1)], epochs=2)
    assert caught == []


def test_run_eagerly_does_not_warn():
    m = K.Sequential([L.Dense(3), PythonBranch(), L.Dense(1)])
    m.compile("sgd", "mse", run_eagerly=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.fit(X, Y, batch_size=4, verbose=0)
    assert not [w for w in caught if "runs eagerly" in str(w.message)]
