"""Record TensorFlow's special functions where an argument asks for much work:
polygamma at large orders (n! past the dtype's range: inf or NaN), zeta far below zero,
and the gradient of igamma in a far out in x.

Run from the repository root:
/path/to/tf-venv/bin/python tests/tf_reference/record_special_bounds.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

import tensorflow as tf  # noqa: E402

ORDERS = [1, 2, 3, 10, 30, 34, 35, 50, 100, 170, 171, 172, 200, 1000, 10 ** 6, 2 ** 62]
POINTS = [0.5, 1.5, 3.0, 10.0, 100.0, 1e6, -1.5, 0.0, -2.0]
IGAMMA_A = [1e4, 1e6, 1e6, 2.0, 3000.0]
IGAMMA_X = [1e4 + 50, 1e6 - 1000, 1e6 + 1000, 1e6, 3100.0]
ZETA_Q = [-1e5 + 0.5, -(2.0 ** 20) + 0.5, 0.5, 3.25]


def _json(a):
    # inf and NaN as strings (JSON has neither)
    return [v if np.isfinite(v) else str(v) for v in np.asarray(a, np.float64).tolist()]


def main():
    out = {"orders": ORDERS, "points": POINTS, "polygamma": {}}
    for dt in (tf.float32, tf.float64):
        n = tf.constant(np.repeat(np.array(ORDERS, np.float64)[:, None], len(POINTS), 1), dt)
        x = tf.constant(np.repeat(np.array(POINTS)[None, :], len(ORDERS), 0), dt)
        out["polygamma"][dt.name] = [_json(r) for r in tf.math.polygamma(n, x).numpy()]
    a = tf.Variable(np.array(IGAMMA_A))
    with tf.GradientTape() as tape:
        y = tf.math.igamma(a, tf.constant(np.array(IGAMMA_X)))
    out["igamma_grad_a"] = {"a": IGAMMA_A, "x": IGAMMA_X,
                            "grad": _json(tape.gradient(y, a).numpy())}
    out["zeta"] = {"q": ZETA_Q, "value": _json(
        tf.math.zeta(tf.constant(2.0, tf.float64), tf.constant(ZETA_Q, tf.float64)).numpy())}
    save("special_bounds", out)


if __name__ == "__main__":
    main()
