"""Record Keras 3.15.1's activations that fasteager added in issue 34 (celu, glu, mish,
sparsemax, ...): values and gradients on a grid with large, negative and kink inputs, in
float32 and float64, plus their names through serialize/get and in Dense/Activation.

Run from the repository root: /path/to/tf-venv/bin/python tests/tf_reference/record_activations_added.py
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

A = keras.activations

# the kinks of every function here (0, +-0.5, +-1, -3, 3), near them, and large values
GRID = [-1000.0, -100.0, -30.0, -20.0, -3.5, -3.0, -2.5, -1.0001, -1.0, -0.9999, -0.75,
        -0.5, -0.4999, -0.25, -1e-4, 0.0, 1e-4, 0.25, 0.4999, 0.5, 0.75, 0.9999, 1.0,
        1.0001, 2.5, 3.0, 3.5, 20.0, 30.0, 100.0, 1000.0]

# (case name, activation name, kwargs, input shape or None for the 1-D grid)
CASES = [
    ("celu", "celu", {}, None), ("celu_alpha", "celu", {"alpha": 0.5}, None),
    ("celu_alpha2", "celu", {"alpha": 2.0}, None),
    ("hard_shrink", "hard_shrink", {}, None),
    ("hard_shrink_t", "hard_shrink", {"threshold": 1.0}, None),
    ("hard_silu", "hard_silu", {}, None), ("hard_swish", "hard_swish", {}, None),
    ("hard_tanh", "hard_tanh", {}, None), ("log_sigmoid", "log_sigmoid", {}, None),
    ("mish", "mish", {}, None), ("soft_shrink", "soft_shrink", {}, None),
    ("soft_shrink_t", "soft_shrink", {"threshold": 1.0}, None),
    ("sparse_plus", "sparse_plus", {}, None), ("sparse_sigmoid", "sparse_sigmoid", {}, None),
    ("squareplus", "squareplus", {}, None), ("squareplus_b", "squareplus", {"b": 1}, None),
    ("squareplus_b0", "squareplus", {"b": 0.0}, None),
    ("tanh_shrink", "tanh_shrink", {}, None),
    ("threshold", "threshold", {"threshold": 0.5, "default_value": -2.0}, None),
    ("threshold_0", "threshold", {"threshold": 0.0, "default_value": 0.0}, None),
    ("glu", "glu", {}, (4, 6)), ("glu_axis0", "glu", {"axis": 0}, (4, 3)),
    ("glu_grid", "glu", {}, "even"),
    ("sparsemax", "sparsemax", {}, (5, 6)), ("sparsemax_axis0", "sparsemax", {"axis": 0}, (6, 4)),
    ("sparsemax_grid", "sparsemax", {}, None),
    ("sparsemax_ties", "sparsemax", {}, "ties"),
]


def inputs(shape, seed):
    if shape is None:
        return np.array(GRID)
    if shape == "even":     # glu halves its axis: the grid and one more kink
        return np.array(GRID + [-0.5])
    if shape == "ties":     # equal values and a support that changes at exact kinks
        return np.array([[0.5, 0.5, 0.0, -1.0], [1.0, 0.0, 0.0, 0.0], [2.0, 1.0, 1.0, 1.0],
                         [0.0, 0.0, 0.0, 0.0], [3.0, 2.0, -5.0, 2.5]])
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 2.0, size=shape)


def main():
    out = {"grid": GRID, "cases": {}}
    for seed, (case, name, kwargs, shape) in enumerate(CASES):
        x64 = inputs(shape, seed)
        # upstream weights that differ per element, so a wrong vector-Jacobian shows
        fn = getattr(A, name)
        probe = np.asarray(fn(tf.constant(x64), **kwargs))
        w = np.random.default_rng(100 + seed).uniform(0.5, 1.5, size=probe.shape)
        entry = {"name": name, "kwargs": kwargs, "x": x64.tolist(), "w": w.tolist()}
        for dtype in ("float32", "float64"):
            x = tf.constant(x64, dtype=dtype)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = fn(x, **kwargs)
                loss = tf.reduce_sum(y * tf.constant(w, dtype=dtype))
            g = tape.gradient(loss, x)
            entry[dtype] = {"y": np.asarray(y).tolist(), "grad": np.asarray(g).tolist(),
                            "dtype": y.dtype.name}
        out["cases"][case] = entry

    names = sorted(n for n in dir(A) if not n.startswith("_"))
    out["dir"] = names
    out["serialize"] = {n: A.serialize(getattr(A, n)) for n in names
                        if n not in ("get", "serialize", "deserialize")}
    out["signatures"] = {}
    import inspect
    for n in names:
        sig = inspect.signature(getattr(A, n))
        out["signatures"][n] = [[p.name, None if p.default is p.empty else p.default]
                                for p in sig.parameters.values()]

    # in layers: Dense with given weights and Activation, and their configs
    rng = np.random.default_rng(7)
    xin = rng.normal(0.0, 2.0, size=(4, 5))
    kernel = rng.normal(0.0, 1.0, size=(5, 6))
    bias = rng.normal(0.0, 0.5, size=(6,))
    layers = {}
    for name in ("celu", "glu", "hard_shrink", "hard_silu", "hard_swish", "hard_tanh",
                 "log_sigmoid", "mish", "soft_shrink", "sparse_plus", "sparse_sigmoid",
                 "sparsemax", "squareplus", "tanh_shrink", "swish"):
        dense = keras.layers.Dense(6, activation=name)
        dense.build((None, 5))
        dense.set_weights([kernel, bias])
        act = keras.layers.Activation(name)
        layers[name] = {"dense": np.asarray(dense(xin)).tolist(),
                        "activation": np.asarray(act(xin)).tolist() if name != "glu" else None,
                        "dense_config": dense.get_config()["activation"],
                        "activation_config": act.get_config()["activation"]}
    out["layers"] = {"x": xin.tolist(), "kernel": kernel.tolist(), "bias": bias.tolist(),
                     "by_name": layers}
    save("activations_added", out)


if __name__ == "__main__":
    main()
