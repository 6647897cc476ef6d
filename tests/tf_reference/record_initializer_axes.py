"""Record Keras 3.15.1's variance-scaling initializers' configs (input_axes/output_axes
included) and the bound of a uniform draw with input/output axes given (the fans it uses).

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_initializer_axes.py
"""
import os
import sys

import numpy as np

NAMES = ["GlorotUniform", "GlorotNormal", "HeNormal", "HeUniform", "LecunNormal",
         "LecunUniform", "VarianceScaling"]
# (class, shape, input_axes, output_axes): uniform draws, whose largest |value| approaches
# the limit sqrt(3 * scale / n) the fans give
AXES_CASES = [("GlorotUniform", [4, 5, 6], [0], [2]), ("HeUniform", [3, 8, 2], [0, 2], [1]),
              ("LecunUniform", [6, 2, 7], [1], [0, 2])]

if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from __init__ import save
    out = {"configs": {n: getattr(keras.initializers, n)(seed=3).get_config() for n in NAMES},
           "bounds": []}
    for name, shape, ia, oa in AXES_CASES:
        init = getattr(keras.initializers, name)(seed=1, input_axes=ia, output_axes=oa)
        vals = np.concatenate([np.abs(np.asarray(getattr(keras.initializers, name)(
            seed=s, input_axes=ia, output_axes=oa)(shape))).ravel() for s in range(400)])
        out["bounds"].append({"case": [name, shape, ia, oa], "max_abs": float(vals.max()),
                              "config": init.get_config()})
    save("initializer_axes", out)
