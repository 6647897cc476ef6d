"""binary_crossentropy on probabilities as Keras 3.15.1 computes it (clip to [eps, 1-eps],
then plain logs), with the default epsilon and with set_epsilon(0.1)."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load
from tests.tf_reference.record_bce_epsilon import Y_PRED, Y_TRUE

REF = load("bce_epsilon")


@pytest.mark.parametrize("eps", [1e-7, 0.1])
def test_binary_crossentropy_matches_keras(eps):
    old = fe.keras.config.epsilon()
    fe.keras.config.set_epsilon(eps)
    try:
        got = fe.keras.losses.binary_crossentropy(Y_TRUE, Y_PRED).numpy()
    finally:
        fe.keras.config.set_epsilon(old)
    np.testing.assert_allclose(got, REF[repr(eps)], rtol=1e-6)
