"""fit with optimizer options that reach into the training loop, against Keras 3.15.1's
recorded runs (tests/tf_reference/record_fit_optimizer.py): use_ema's weights at the end
of fit, loss_scale_factor, and a metric with several values in the logs."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load
from tests.tf_reference.record_fit_optimizer import CASES, run

REF = load("fit_optimizer")


@pytest.mark.parametrize("name", sorted(CASES))
def test_fit_matches_keras3(name):
    got, want = run(fe.keras, name), REF[name]
    np.testing.assert_allclose(got["kernel"], want["kernel"], rtol=1e-5, atol=1e-6)
    assert sorted(got["history"]) == sorted(want["history"])
    for key in want["history"]:
        np.testing.assert_allclose(got["history"][key], want["history"][key], rtol=1e-5,
                                   atol=1e-6, err_msg=key)
    assert sorted(got["evaluate"]) == sorted(want["evaluate"])
    for key in want["evaluate"]:
        np.testing.assert_allclose(got["evaluate"][key], want["evaluate"][key], rtol=1e-5,
                                   atol=1e-6, err_msg=key)


def test_a_metric_with_several_values_is_an_array_in_the_logs():
    h = REF["precision_thresholds"]["history"]["precision"]
    assert np.shape(h[0]) == (2,)
    x, y = np.ones((8, 4), np.float32), np.ones((8, 1), np.float32)
    m = fe.keras.Sequential([fe.keras.Input((4,)), fe.keras.layers.Dense(1)])
    m.compile("sgd", "mse", metrics=[fe.keras.metrics.Precision(thresholds=[0.3, 0.7])])
    hist = m.fit(x, y, epochs=1, verbose=1)       # the progress bar prints it too
    assert isinstance(hist.history["precision"][0], np.ndarray)
    assert isinstance(hist.history["loss"][0], float)
