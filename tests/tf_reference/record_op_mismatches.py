"""Record TensorFlow's answers where fasteager's ops differed (found building keras.ops):
angle of real input, round of integers, bit shifts by out-of-range amounts, bincount with
axis=-1 on 1-D input, repeat with an out-of-range axis, meshgrid of mixed dtypes.

Run from the repository root:
/path/to/tf-venv/bin/python tests/tf_reference/record_op_mismatches.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

import tensorflow as tf  # noqa: E402

ANGLE_IN = [-1.0, -0.0, 0.0, 2.0, float("nan"), -float("inf"), float("inf")]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _json(a):
    # inf and NaN as strings (JSON has neither)
    return [v if np.isfinite(v) else str(v) for v in np.asarray(a, np.float64).tolist()]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return type(e).__name__
    return None


def main():
    out = {"angle_in": _json(ANGLE_IN), "angle": {}, "round": {}, "shifts": {}}
    for name in ("float16", "bfloat16", "float32", "float64"):
        r = tf.math.angle(tf.constant(ANGLE_IN, name))
        out["angle"][name] = {"dtype": r.dtype.name, "values": _json(tf.cast(r, tf.float64))}
    out["angle_int32"] = _error(lambda: tf.math.angle(tf.constant([-1, 2])))
    for name in INT_DTYPES:
        x = [0, 1, 7, 100] if name.startswith("u") else [-5, 0, 1, 7, 100]
        r = tf.round(tf.constant(x, name))
        out["round"][name] = {"in": x, "dtype": r.dtype.name, "values": r.numpy().tolist()}
    for name in INT_DTYPES:
        bits = tf.as_dtype(name).size * 8
        xs = [21, 1, 100] if name.startswith("u") else [21, -21, 1, 100]
        ys = [0, 1, bits - 1, bits, bits + 5, 100] + ([] if name.startswith("u")
                                                      else [-1, -14, -100])
        xx = [x for x in xs for _ in ys]
        yy = [y for _ in xs for y in ys]
        out["shifts"][name] = {
            "x": xx, "y": yy,
            "left": tf.bitwise.left_shift(tf.constant(xx, name), tf.constant(yy, name))
            .numpy().tolist(),
            "right": tf.bitwise.right_shift(tf.constant(xx, name), tf.constant(yy, name))
            .numpy().tolist()}
    arr = [1, 2, 2, 0, 5]
    out["bincount_1d"] = {
        "arr": arr,
        "plain": tf.math.bincount(tf.constant(arr), axis=-1).numpy().tolist(),
        "minlength": tf.math.bincount(tf.constant(arr), axis=-1, minlength=8).numpy().tolist(),
        "maxlength": tf.math.bincount(tf.constant(arr), axis=-1, maxlength=2).numpy().tolist(),
        "binary": tf.math.bincount(tf.constant(arr), axis=-1, binary_output=True)
        .numpy().tolist(),
        "weights": tf.math.bincount(tf.constant(arr), axis=-1,
                                    weights=tf.constant([1., 2., 3., 4., 5.])).numpy().tolist()}
    x2 = tf.constant([[1, 2], [3, 4]])
    out["repeat_axis"] = {str(ax): _error(lambda ax=ax: tf.repeat(x2, 2, axis=ax))
                          for ax in (2, -3, 5)}
    out["repeat_scalar"] = {str(ax): tf.repeat(tf.constant(3), 2, axis=ax).numpy().tolist()
                            for ax in (0, -1)}
    out["repeat_scalar_axis_1"] = _error(lambda: tf.repeat(tf.constant(3), 2, axis=1))
    out["repeat_axis_ok"] = tf.repeat(x2, 2, axis=-2).numpy().tolist()
    out["meshgrid"] = {
        "int32_float32": _error(lambda: tf.meshgrid(tf.constant([1, 2]),
                                                    tf.constant([1., 2.]))),
        "int32_int64": _error(lambda: tf.meshgrid(tf.constant([1, 2]),
                                                  tf.constant([1, 2], tf.int64))),
        "float64_pylist": _error(lambda: tf.meshgrid(tf.constant([1., 2.], tf.float64),
                                                     [1., 2.])),
        "float32_pylist": _error(lambda: tf.meshgrid(tf.constant([1., 2.]), [1., 2.])),
        "int_float_pylists": _error(lambda: tf.meshgrid([1, 2], [1., 2.])),
        "same_three": _error(lambda: tf.meshgrid([1., 2.], [3.], [4., 5., 6.]))}
    save("op_mismatches", out)


if __name__ == "__main__":
    main()
