"""Record TensorFlow 2.21's verdict on mutated PNG, GIF and BMP files for
tests/image/test_codecs_against_tensorflow.py: for each file (built from a seed by
tests/image/image_mutations.py, the same bytes in both environments) the error class,
or the output's shape, dtype and SHA-1, of its decode_<format> op and (PNG and GIF) of
decode_image with drawn channels, dtype and expand_animations.

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


def image_kwargs(i):
    """decode_image's arguments for case ``i`` (the test draws the same)."""
    rng = np.random.default_rng([SEED + 1, i])
    return {"channels": [None, 0, 1, 3, 4][int(rng.integers(5))],
            "dtype": ["uint8", "uint16", "float32", "int32"][int(rng.integers(4))],
            "expand_animations": bool(rng.integers(2))}


def main():
    cases = {}
    for fmt, n in COUNTS.items():
        make, op = MAKERS[fmt]
        rows = []
        for i in range(n):
            blob, _, kwargs = make(np.random.default_rng([SEED, i]))
            row = {"input_sha1": hashlib.sha1(blob).hexdigest(), **verdict(op, blob, kwargs)}
            # decode_image too (not of the mutated BMPs: TensorFlow 2.21's decode_image
            # crashes on some of them)
            if fmt != "bmp":
                row["decode_image"] = verdict("decode_image", blob, image_kwargs(i))
            rows.append(row)
        cases[fmt] = rows
    save("image_codecs", {"seed": SEED, "cases": cases})


if __name__ == "__main__":
    main()
