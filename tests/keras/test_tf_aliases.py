"""TensorFlow 2's short names for Keras namespaces and keras.losses.Reduction."""
import numpy as np
import pytest

import fasteager as fe


def test_short_namespaces_are_keras_ones():
    assert fe.losses is fe.keras.losses and fe.metrics is fe.keras.metrics
    assert fe.optimizers is fe.keras.optimizers and fe.initializers is fe.keras.initializers


def test_reduction_names():
    R = fe.keras.losses.Reduction
    assert R.all() == ("auto", "none", "sum", "sum_over_batch_size")
    loss = fe.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=R.NONE)
    per_example = loss(fe.constant([0, 1]), fe.constant([[2.0, 0.0], [0.0, 2.0]]))
    assert per_example.shape == (2,)
    np.testing.assert_allclose(per_example.numpy(), np.log1p(np.exp(-2.0)) * np.ones(2),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        R.validate("mean")
