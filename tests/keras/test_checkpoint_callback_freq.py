"""ModelCheckpoint with an integer save_freq, against Keras 3.15.1's recorded files
(tests/tf_reference/record_callbacks.py): which batches save, and the names they get."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

keras = fe.keras
REF = load("callbacks")


@pytest.mark.parametrize("rec", REF["files"], ids=lambda r: "freq%d-epochs%d" % (
    r["case"][3], r["case"][2]))
def test_integer_save_freq_saves_the_batches_keras_saves(rec, tmp_path):
    n, bs, epochs, freq, pattern = rec["case"]
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.compile("sgd", "mse")
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / pattern), save_weights_only=True,
                                         save_freq=freq)
    m.fit(np.ones((n, 3)), np.ones((n, 1)), batch_size=bs, epochs=epochs, callbacks=[cb],
          verbose=0, shuffle=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == rec["files"]


@pytest.mark.parametrize("bad", ["x", 2.5])
def test_unrecognized_save_freq_is_keras_value_error(bad):
    cls, msg = REF["errors"][repr(bad)]
    with pytest.raises(ValueError) as e:
        keras.callbacks.ModelCheckpoint("a.weights.h5", save_weights_only=True, save_freq=bad)
    assert type(e.value).__name__ == cls and str(e.value) == msg
