"""Record Keras 3.15.1's ModelCheckpoint with an integer save_freq (which files, when).

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_callbacks.py
"""
import os
import sys
import tempfile

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

CASES = [  # (samples, batch_size, epochs, save_freq, file pattern)
    (20, 4, 2, 3, "cp-{epoch:02d}-{batch:02d}.weights.h5"),
    (20, 4, 3, 5, "cp-{epoch:02d}-{batch:02d}.weights.h5"),
    (12, 4, 2, 1, "cp-{epoch:02d}.weights.h5"),
    (20, 4, 2, 7, "cp-{epoch:02d}-{batch:02d}.weights.h5"),
]

out = {"files": [], "errors": {}}
for n, bs, epochs, freq, pattern in CASES:
    d = tempfile.mkdtemp()
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.compile("sgd", "mse")
    cb = keras.callbacks.ModelCheckpoint(os.path.join(d, pattern), save_weights_only=True,
                                         save_freq=freq)
    m.fit(np.ones((n, 3)), np.ones((n, 1)), batch_size=bs, epochs=epochs, callbacks=[cb],
          verbose=0, shuffle=False)
    out["files"].append({"case": [n, bs, epochs, freq, pattern],
                         "files": sorted(os.listdir(d))})
for bad in ["x", 2.5]:
    try:
        keras.callbacks.ModelCheckpoint("a.weights.h5", save_weights_only=True, save_freq=bad)
    except Exception as e:    # noqa: BLE001 - the class and text are what is recorded
        out["errors"][repr(bad)] = [type(e).__name__, str(e)]
save("callbacks", out)
