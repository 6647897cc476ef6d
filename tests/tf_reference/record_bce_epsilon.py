"""Record Keras 3.15.1's binary cross-entropy on probabilities, with the default epsilon
and with keras.config.set_epsilon(0.1) (Keras 3 clips, then takes plain logs).

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_bce_epsilon.py
"""
import os
import sys

Y_TRUE = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]]
Y_PRED = [[1.0, 0.0, 0.3, 0.9999999], [1e-9, 0.5, 0.999, 0.2]]

if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    import numpy as np
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from __init__ import save
    out = {}
    for eps in (1e-7, 0.1):
        keras.config.set_epsilon(eps)
        out[repr(eps)] = np.asarray(keras.losses.binary_crossentropy(Y_TRUE, Y_PRED)).tolist()
    save("bce_epsilon", out)
