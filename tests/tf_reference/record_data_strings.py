"""Record what ``tf.data.Dataset.from_generator`` yields for ``tf.string`` outputs given
Python ``str``/``bytes`` and NumPy string arrays (topic "data_strings").

Run from the repository root with TensorFlow's interpreter:
    /path/to/tf-venv/bin/python tests/tf_reference/record_data_strings.py
"""
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

# name -> (python source of the yielded values, how the output is declared)
CASES = {
    "str_scalar": ("['ab', 'héllo', '']", "scalar"),
    "bytes_scalar": ("[b'ab', b'\\xff\\x00z']", "scalar"),
    "numpy_str_scalar": ("[np.str_('abcd'), np.array('xyz')]", "scalar"),
    "numpy_bytes_scalar": ("[np.bytes_(b'abcd'), np.array(b'xyz')]", "scalar"),
    "numpy_unicode_vector": ("[np.array(['abcd', 'e', 'ü'])]", "vector"),
    "numpy_bytes_vector": ("[np.array([b'abcd', b'e'])]", "vector"),
    "list_of_str": ("[['a', 'bc'], [b'x', 'y']]", "vector"),
    "object_array": ("[np.array(['a', b'b'], dtype=object)]", "vector"),
    "numpy_unicode_matrix": ("[np.array([['ab', 'c'], ['d', 'ef']])]", "matrix"),
    "int_for_string": ("[3]", "scalar"),
    "float_for_string": ("[1.5]", "scalar"),
    "string_for_int": ("['3']", "int_scalar"),
    "bytes_for_float": ("[b'1.5']", "float_scalar"),
}
SHAPES = {"scalar": [], "vector": [None], "matrix": [None, None], "int_scalar": [],
          "float_scalar": []}
DTYPES = {"int_scalar": tf.int32, "float_scalar": tf.float32}


def run(values_src, kind, mode):
    values = eval(values_src)
    dtype = DTYPES.get(kind, tf.string)

    def gen():
        yield from values
    if mode == "signature":
        ds = tf.data.Dataset.from_generator(
            gen, output_signature=tf.TensorSpec(SHAPES[kind], dtype))
    else:
        ds = tf.data.Dataset.from_generator(gen, output_types=dtype)
    out = []
    try:
        for x in ds:
            v = x.numpy()
            out.append({"dtype": x.dtype.name,
                        "value": np.vectorize(lambda b: b.hex(), otypes=[object])(v).tolist()
                        if x.dtype == tf.string else v.tolist()})
        return {"elements": out}
    except Exception as e:  # the error a bad value raises
        return {"elements": out, "error": type(e).__name__}


result = {}
for name, (src, kind) in CASES.items():
    for mode in ("signature", "types"):
        result["%s/%s" % (name, mode)] = dict(run(src, kind, mode), source=src, kind=kind)
save("data_strings", result)
