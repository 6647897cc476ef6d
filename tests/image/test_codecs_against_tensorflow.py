"""Mutated PNG, GIF and BMP files decode as TensorFlow 2.21 decodes them: the same error
class, or an output of the same shape, dtype and bytes (SHA-1). The files are rebuilt
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


@pytest.mark.parametrize("fmt", sorted(MAKERS))
def test_mutated_files_get_tensorflows_verdict(fmt):
    make, decode = MAKERS[fmt]
    wrong = []
    for i, want in enumerate(REF["cases"][fmt]):
        blob, desc, kwargs = make(np.random.default_rng([REF["seed"], i]))
        assert hashlib.sha1(blob).hexdigest() == want["input_sha1"], \
            "case %d: the file is not the one recorded (re-record)" % i
        if "dtype" in kwargs:
            kwargs = dict(kwargs, dtype=tf.as_dtype(kwargs["dtype"]))
        try:
            out = decode(blob, **kwargs).numpy()
            got = {"shape": list(out.shape), "dtype": out.dtype.name,
                   "sha1": hashlib.sha1(np.ascontiguousarray(out).tobytes()).hexdigest()}
        except (tf.errors.OpError, TypeError, ValueError) as e:
            got = {"error": type(e).__name__}
        expected = {k: v for k, v in want.items() if k != "input_sha1"}
        if got != expected:
            wrong.append("case %d %s: got %s, TensorFlow %s" % (i, desc, got, expected))
    assert not wrong, "%d of %d differ:\n%s" % (len(wrong), len(REF["cases"][fmt]),
                                                "\n".join(wrong[:10]))
