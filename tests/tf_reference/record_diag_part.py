"""Record tf.linalg.diag_part over offsets, bands, alignments and its gradient (TF 2.21)."""
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

CASES = [(k, align) for k in (0, 1, -1, 2, -2, [-1, 1], [0, 2], [-2, 0], [-1, 2], [1, 1])
         for align in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")]
out = {}
for shape in ((3, 4), (4, 3), (2, 3, 3)):
    x = tf.constant(np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape))
    for k, align in CASES:
        key = "%s %s %s" % (shape, k, align)
        try:
            with tf.GradientTape() as t:
                t.watch(x)
                v = tf.linalg.diag_part(x, k=k, padding_value=9, align=align)
                s = tf.reduce_sum(v * v)
            out[key] = {"value": v.numpy().tolist(), "grad": t.gradient(s, x).numpy().tolist()}
        except Exception as e:  # noqa: BLE001 - the error class is the record
            out[key] = {"error": type(e).__name__}
save("diag_part", out)
