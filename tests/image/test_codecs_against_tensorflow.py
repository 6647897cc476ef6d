"""Mutated PNG, GIF and BMP files decode as TensorFlow 2.21 decodes them: the same error
class, or an output of the same shape, dtype and bytes (SHA-1), by their own decode op
and (PNG, GIF) by decode_image with drawn channels, dtype and expand_animations. The files are rebuilt
here from the seeds the recorder used (tests/image/image_mutations.py), and TensorFlow's
verdicts are read from tests/tf_reference/image_codecs.json
(tests/tf_reference/record_image_codecs.py)."""
import hashlib

import numpy as np
import pytest

import fasteager as tf
from tests.image import image_mutations as M
from tests.tf_reference import load

REF = load("image_codecs")
MAKERS = {"png": (M.mutated_png, tf.io.decode_png), "gif": (M.mutated_gif, tf.io.decode_gif),
          "bmp": (M.mutated_bmp, tf.io.decode_bmp)}


def _verdict(decode, blob, kwargs):
    if "dtype" in kwargs:
        kwargs = dict(kwargs, dtype=tf.as_dtype(kwargs["dtype"]))
    try:
        out = decode(blob, **kwargs).numpy()
    except (tf.errors.OpError, TypeError, ValueError) as e:
        return {"error": type(e).__name__}
    return {"shape": list(out.shape), "dtype": out.dtype.name,
            "sha1": hashlib.sha1(np.ascontiguousarray(out).tobytes()).hexdigest()}


def _image_kwargs(i):
    # the recorder's draw (tests/tf_reference/record_image_codecs.py: image_kwargs)
    rng = np.random.default_rng([REF["seed"] + 1, i])
    return {"channels": [None, 0, 1, 3, 4][int(rng.integers(5))],
            "dtype": ["uint8", "uint16", "float32", "int32"][int(rng.integers(4))],
            "expand_animations": bool(rng.integers(2))}


@pytest.mark.parametrize("fmt", sorted(MAKERS))
def test_mutated_files_get_tensorflows_verdict(fmt):
    make, decode = MAKERS[fmt]
    wrong = []
    for i, want in enumerate(REF["cases"][fmt]):
        blob, desc, kwargs = make(np.random.default_rng([REF["seed"], i]))
        assert hashlib.sha1(blob).hexdigest() == want["input_sha1"], \
            "case %d: the file is not the one recorded (re-record)" % i
        got = _verdict(decode, blob, kwargs)
        expected = {k: v for k, v in want.items() if k not in ("input_sha1", "decode_image")}
        if got != expected:
            wrong.append("case %d %s: got %s, TensorFlow %s" % (i, desc, got, expected))
        if "decode_image" in want:
            kw = _image_kwargs(i)
            got = _verdict(tf.io.decode_image, blob, kw)
            if got != want["decode_image"]:
                wrong.append("case %d %s, decode_image(%s): got %s, TensorFlow %s"
                             % (i, desc, kw, got, want["decode_image"]))
    assert not wrong, "%d of %d differ:\n%s" % (len(wrong), len(REF["cases"][fmt]),
                                                "\n".join(wrong[:10]))
