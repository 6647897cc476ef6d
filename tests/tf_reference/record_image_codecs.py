"""Record TensorFlow 2.21's verdict on mutated PNG, GIF and BMP files for
tests/image/test_codecs_against_tensorflow.py: for each file (built from a seed by
tests/image/image_mutations.py, the same bytes in both environments) the error class,
or the output's shape, dtype and SHA-1.

Run from the repository root:
/path/to/tf-venv/bin/python tests/tf_reference/record_image_codecs.py
"""
import hashlib
import pathlib
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from tests.image import image_mutations as M  # noqa: E402
from tests.tf_reference import save  # noqa: E402

SEED = 2027
COUNTS = {"png": 300, "gif": 300, "bmp": 200}
MAKERS = {"png": (M.mutated_png, "decode_png"), "gif": (M.mutated_gif, "decode_gif"),
          "bmp": (M.mutated_bmp, "decode_bmp")}


def verdict(op, blob, kwargs):
    kwargs = dict(kwargs)
    if "dtype" in kwargs:
        kwargs["dtype"] = tf.as_dtype(kwargs["dtype"])
    try:
        out = getattr(tf.io, op)(blob, **kwargs).numpy()
    except Exception as e:      # noqa: BLE001 - the class is what is recorded
        return {"error": type(e).__name__}
    return {"shape": list(out.shape), "dtype": out.dtype.name,
            "sha1": hashlib.sha1(np.ascontiguousarray(out).tobytes()).hexdigest()}


def main():
    cases = {}
    for fmt, n in COUNTS.items():
        make, op = MAKERS[fmt]
        rows = []
        for i in range(n):
            blob, _, kwargs = make(np.random.default_rng([SEED, i]))
            rows.append({"input_sha1": hashlib.sha1(blob).hexdigest(),
                         **verdict(op, blob, kwargs)})
        cases[fmt] = rows
    save("image_codecs", {"seed": SEED, "cases": cases})


if __name__ == "__main__":
    main()
