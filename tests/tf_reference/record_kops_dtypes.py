"""Record Keras 3.15.1's dtype promotion (``keras.backend.result_type``, TensorFlow backend)
over every pair of the dtypes fasteager has (plus bfloat16 by name) and the Python types
int / float / bool / None, and ``standardize_dtype`` of names and Python types.

Run from the repository root:
/work/tfenv/bin/python tests/tf_reference/record_kops_dtypes.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras

NAMES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
         "bfloat16", "float16", "float32", "float64", "complex64", "complex128"]
PYTHON = {"py_int": int, "py_float": float, "py_bool": bool, "None": None}
ALL = dict({n: n for n in NAMES}, **PYTHON)


def _call(fn, *args):
    try:
        return {"value": fn(*args)}
    except Exception as e:  # noqa: BLE001 - the error class is what we record
        return {"error": type(e).__name__}


def main():
    rt = keras.backend.result_type
    out = {"pairs": {}, "singles": {}, "triples": {}, "standardize": {}, "floatx64": {}}
    keys = list(ALL)
    for a in keys:
        out["singles"][a] = _call(rt, ALL[a])
        for b in keys:
            out["pairs"]["%s|%s" % (a, b)] = _call(rt, ALL[a], ALL[b])
    for trip in [("int8", "uint8", "py_float"), ("bool", "py_int", "py_float"),
                 ("int16", "float16", "py_int"), ("uint32", "int8", "bool"),
                 ("py_int", "py_int", "py_float"), ("float16", "bfloat16", "int64")]:
        out["triples"]["|".join(trip)] = _call(rt, *(ALL[t] for t in trip))
    out["empty"] = rt()
    for k in keys + ["string", "float8_e4m3fn", "nonsense"]:
        out["standardize"][k] = _call(keras.backend.standardize_dtype, ALL.get(k, k))
    # Weak results take floatx()'s width.
    keras.config.set_floatx("float64")
    for a in ["py_int", "py_float", "int8", "bool"]:
        for b in ["py_int", "py_float", "py_bool"]:
            out["floatx64"]["%s|%s" % (a, b)] = _call(rt, ALL[a], ALL[b])
    keras.config.set_floatx("float32")
    save("kops_dtypes", out)


if __name__ == "__main__":
    main()
