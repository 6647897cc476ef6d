"""Record the error class TensorFlow raises when a shape-producing op is asked for an
output whose element count overflows int64 (InvalidArgumentError) or that no memory can
hold (ResourceExhaustedError), by case name; tests/ops/test_output_sizes.py runs the same
cases on fasteager.

Run from the repository root: /path/to/tf-venv/bin/python tests/tf_reference/record_output_sizes.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

import tensorflow as tf  # noqa: E402

BIG = 2 ** 20       # BIG x BIG floats: 4 TiB, more than any test machine has
HUGE = 2 ** 40      # HUGE x HUGE: more than 2**63 - 1 elements

CASES = {
    "tile_overflow": lambda: tf.tile(tf.ones([4, 3]), [2, 2 ** 62]),
    "tile_too_big": lambda: tf.tile(tf.ones([4, 3]), [BIG, BIG]),
    "broadcast_to_overflow": lambda: tf.broadcast_to(tf.ones([3]), [HUGE, HUGE, 3]),
    "broadcast_to_too_big": lambda: tf.broadcast_to(tf.ones([3]), [BIG, BIG, 3]),
    "zeros_overflow": lambda: tf.zeros([HUGE, HUGE]),
    "zeros_too_big": lambda: tf.zeros([BIG, BIG]),
    "ones_overflow": lambda: tf.ones([HUGE, HUGE]),
    "ones_too_big": lambda: tf.ones([BIG, BIG]),
    "fill_overflow": lambda: tf.fill([HUGE, HUGE], 1.0),
    "fill_too_big": lambda: tf.fill([BIG, BIG], 1.0),
    "pad_overflow": lambda: tf.pad(tf.ones([2, 2]), [[0, 2 ** 62], [0, 2 ** 62]]),
    "pad_too_big": lambda: tf.pad(tf.ones([2, 2]), [[0, BIG], [0, BIG]]),
    "range_too_big": lambda: tf.range(0, 2 ** 62, dtype=tf.int64),
    "range_float_overflow": lambda: tf.range(0.0, 1e30),
    "eye_too_big": lambda: tf.eye(BIG),
    "eye_batch_overflow": lambda: tf.eye(2, batch_shape=[2 ** 62, 4]),
    "resize_too_big": lambda: tf.image.resize(tf.ones([1, 2, 2, 1]), [BIG, BIG]),
    "zeros_negative": lambda: tf.zeros([-1, 3]),
}


def main():
    out = {}
    for name, case in CASES.items():
        try:
            case()
            out[name] = None
        except Exception as e:   # noqa: BLE001 - the class is what is recorded
            out[name] = type(e).__name__
    save("output_sizes", out)


if __name__ == "__main__":
    main()
