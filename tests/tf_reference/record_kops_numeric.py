"""Record Keras 3.15.1's NumPy-style math ops (``keras.ops`` names of fasteager's
``keras/ops/numeric.py``) on the TensorFlow backend: for every name, fixed inputs in
several dtypes (float16/32/64, int8/32/64, uint8, bool, Python scalars), several axis and
keepdims forms and edge cases; the output's values, dtype and shape, the error class
where Keras raises, and for float inputs the gradient of sum(output) (GradientTape).

Each case stores its inputs too (tensors as values + dtype; Python values as they are), so
the test rebuilds exactly what Keras was given.

Run from the repository root: /path/to/tf-venv/bin/python tests/tf_reference/record_kops_numeric.py
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

K = keras.ops
NAN, INF = float("nan"), float("inf")


class T:
    """A tensor input: recorded as values + dtype, passed to Keras as a tf constant."""

    def __init__(self, values, dtype):
        self.array = np.array(values, dtype=dtype)


F = [[-1.5, -0.25, 0.0], [0.5, 1.25, 2.0]]
UNIT = [[-0.9, -0.3, 0.0], [0.2, 0.5, 0.8]]
POS = [[0.5, 1.0, 1.5], [2.0, 3.0, 4.5]]
GE1 = [[1.0, 1.5, 2.0], [3.0, 4.0, 10.0]]
I = [[-3, -1, 0], [1, 2, 5]]
IPOS = [[1, 2, 3], [4, 6, 9]]
U8 = [[0, 1, 2], [3, 4, 250]]
B = [[True, False, True], [False, False, True]]
NANS = [[1.0, NAN, -2.0], [NAN, NAN, NAN]]
SPECIAL = [[NAN, INF, -INF], [0.0, -0.0, 1.5]]
ROW = [0.5, -1.0, 2.0]


def float_unary_inputs(base):
    return [T(base, "float32"), T(base, "float64"), T(base, "float16"),
            T(IPOS if base in (POS, GE1) else I, "int32"),
            T(IPOS if base in (POS, GE1) else I, "int64"), T(U8, "uint8"), T(B, "bool"),
            base[1][1]]


UNARY = {
    # name: base float values (domain of the function)
    "abs": F, "absolute": F, "fabs": F, "negative": F, "sign": F, "square": F, "sqrt": POS,
    "cbrt": F, "reciprocal": POS, "exp": F, "exp2": F, "expm1": F, "log": POS, "log1p": POS,
    "log2": POS, "log10": POS, "sin": F, "cos": F, "tan": UNIT, "sinh": F, "cosh": F,
    "tanh": F, "arcsin": UNIT, "arccos": UNIT, "arctan": F, "arcsinh": F, "arccosh": GE1,
    "arctanh": UNIT, "floor": F, "ceil": F, "trunc": F, "round": F, "deg2rad": F,
    "rad2deg": F, "i0": F, "sinc": POS, "isfinite": SPECIAL, "isinf": SPECIAL,
    "isnan": SPECIAL, "isposinf": SPECIAL, "isneginf": SPECIAL, "isreal": F, "signbit": F,
    "logical_not": F, "bitwise_invert": None, "bitwise_not": None, "real": F, "imag": F,
    "conj": F, "conjugate": F, "angle": F, "nan_to_num": SPECIAL,
}

BINARY = {
    # name: (base x1, base x2)
    "add": (F, POS), "subtract": (F, POS), "multiply": (F, POS), "divide": (F, POS),
    "true_divide": (F, POS), "divide_no_nan": (F, [[0.0, 1.0, 2.0], [0.0, 4.0, 0.5]]),
    "floor_divide": (F, POS), "power": (POS, F), "maximum": (F, POS), "minimum": (F, POS),
    "fmax": (NANS, F), "fmin": (NANS, F), "mod": (F, POS), "fmod": (F, POS),
    "equal": (F, F), "not_equal": (F, POS), "less": (F, POS), "less_equal": (F, F),
    "greater": (F, POS), "greater_equal": (F, F), "logical_and": (F, POS),
    "logical_or": (F, POS), "logical_xor": (F, POS), "arctan2": (F, POS),
    "hypot": (F, POS), "heaviside": (F, POS), "logaddexp": (F, POS),
    "logaddexp2": (F, POS), "nextafter": (F, POS), "isclose": (F, F),
    "allclose": (F, F),
}

BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
           "bitwise_right_shift", "left_shift", "right_shift", "gcd", "lcm"]

REDUCE = ["sum", "prod", "mean", "max", "min", "amax", "amin", "all", "any", "std", "var",
          "ptp", "argmax", "argmin", "nansum", "nanprod", "nanmean", "nanmax", "nanmin",
          "nanstd", "nanvar", "nanargmax", "nanargmin", "median", "nanmedian"]
NO_KEEPDIMS = {"count_nonzero"}
CUMULATIVE = ["cumsum", "cumprod", "nancumsum", "nancumprod"]


def binary_cases(name, a, b):
    return [
        (name, [T(a, "float32"), T(b, "float32")], {}),
        (name, [T(a, "float64"), T(b[0], "float64")], {}),            # broadcast
        (name, [T(a, "float16"), T(b, "float32")], {}),
        (name, [T(I, "int32"), T(b, "float32")], {}),
        (name, [T(IPOS, "int32"), T(IPOS, "int64")], {}),
        (name, [T(I, "int8"), 2], {}),                               # weak int
        (name, [T(a, "float16"), 2.0], {}),                          # weak float
        (name, [T(I, "int32"), 1.5], {}),
        (name, [T(B, "bool"), T(B, "bool")], {}),
        (name, [T(U8, "uint8"), T(IPOS, "uint8")], {}),
        (name, [3.0, T(b, "float32")], {}),
    ]


def build_cases():
    cases = []
    for name, base in UNARY.items():
        if base is None:
            for dt in ("int8", "int32", "int64", "uint8"):
                cases.append((name, [T(U8 if dt == "uint8" else I, dt)], {}))
            cases.append((name, [T(B, "bool")], {}))
            continue
        for x in float_unary_inputs(base):
            cases.append((name, [x], {}))
        if name in ("real", "imag", "conj", "conjugate", "angle", "isreal", "abs"):
            cases.append((name, [T(np.array(F) + 1j * np.array(POS), "complex64")], {}))
    cases += [("round", [T(F, "float32")], {"decimals": 1}),
              ("round", [T([[123.456, -7.891]], "float64")], {"decimals": 2}),
              ("round", [T([[1234, -5678]], "int32")], {"decimals": -2}),
              ("round", [T([[12, -56]], "int32")], {"decimals": 1}),
              ("nan_to_num", [T(SPECIAL, "float32")], {"nan": 7.0, "posinf": 9.0,
                                                        "neginf": -9.0}),
              ("nan_to_num", [T(SPECIAL, "float64")], {"nan": -1.0}),
              ("signbit", [T(SPECIAL, "float32")], {}),
              ("sinc", [T(F, "float32")], {})]
    for name, (a, b) in BINARY.items():
        cases += binary_cases(name, a, b)
    cases += [("isclose", [T([1.0, 1.0 + 1e-6, NAN], "float32"),
                           T([1.0, 1.0, NAN], "float32")], {"equal_nan": True}),
              ("isclose", [T([1.0, 1.1], "float32"), T([1.05, 1.0], "float32")],
               {"rtol": 0.1, "atol": 0.0}),
              ("allclose", [T([1.0, NAN], "float32"), T([1.0, NAN], "float32")],
               {"equal_nan": True}),
              ("allclose", [T([1.0, 2.0], "float32"), T([1.0, 2.01], "float32")],
               {"atol": 0.1}),
              ("ldexp", [T(F, "float32"), T(I, "int32")], {}),
              ("ldexp", [T(I, "int32"), T(IPOS, "int32")], {}),
              ("ldexp", [T(F, "float64"), T([1, 2, -1], "int64")], {}),
              ("ldexp", [T(F, "float32"), T(F, "float32")], {}),
              ("clip", [T(F, "float32"), -1.0, 1.0], {}),
              ("clip", [T(I, "int32"), 0, 2], {}),
              ("clip", [T(B, "bool"), 0, 0], {}),
              ("clip", [T(F, "float64"), T(-0.5, "float64"), T(POS, "float64")], {})]
    for name in BITWISE:
        cases += [(name, [T(IPOS, "int32"), T([[1, 3, 2], [2, 4, 6]], "int32")], {}),
                  (name, [T(U8, "uint8"), T([[1, 3, 2], [2, 4, 6]], "uint8")], {}),
                  (name, [T(IPOS, "int8"), T([1, 2, 3], "int32")], {}),
                  (name, [T(IPOS, "int64"), 2], {}),
                  (name, [T([[12, -18, 0], [7, 0, 21]], "int32"),
                          T([[8, 27, 5], [0, 0, -14]], "int32")], {})]
        if name in ("gcd", "lcm"):
            cases.append((name, [T(F, "float32"), T(F, "float32")], {}))
    x3 = np.arange(24, dtype="float32").reshape(2, 3, 4) * 0.37 - 3.1
    for name in REDUCE:
        base = NANS if name.startswith("nan") else F
        forms = [{}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"axis": 1}]
        if name not in ("argmax", "argmin", "nanargmax", "nanargmin"):
            forms.append({"axis": (0, 1), "keepdims": True})
        for kw in forms:
            cases.append((name, [T(base, "float32")], kw))
        for dt in ("float64", "float16", "int32", "int8", "uint8", "bool"):
            cases.append((name, [T(B if dt == "bool" else
                                   (U8 if dt == "uint8" else
                                    (base if "float" in dt else I)), dt)], {"axis": 1}))
        cases.append((name, [T(x3, "float32")], {"axis": (0, 2)}))
        cases.append((name, [T(x3, "float32")], {"keepdims": True}))
        cases.append((name, [T(F, "float32")], {"axis": -2}))
    cases += [("max", [T(F, "float32")], {"initial": 1.0}),
              ("max", [T(B, "bool")], {"axis": 0, "initial": 0}),
              ("min", [T(I, "int32")], {"axis": 1, "initial": -2}),
              ("min", [T(B, "bool")], {"initial": 1}),
              ("max", [T(np.zeros((0,), "float32"), "float32")], {}),
              ("min", [T(np.zeros((2, 0), "float32"), "float32")], {}),
              ("prod", [T(I, "int8")], {"dtype": "int32"}),
              ("mean", [[1, 2, 4]], {}),
              ("sum", [[1.0, 2.5]], {}),
              ("nanmean", [T(NANS, "float32")], {"axis": ()})]
    for kw in [{}, {"axis": 0}, {"axis": (0, 1)}, {"axis": -1}]:
        for dt in ("float32", "int32", "bool"):
            cases.append(("count_nonzero", [T(B if dt == "bool" else
                                              [[0.0, 1.0, 0.0], [2.5, 0.0, 0.0]], dt)], kw))
    for name in CUMULATIVE:
        base = NANS if name.startswith("nan") else F
        for kw in [{}, {"axis": 0}, {"axis": 1}, {"axis": -1, "dtype": "float64"}]:
            cases.append((name, [T(base, "float32")], kw))
        for dt in ("int32", "int8", "uint8", "bool", "float16"):
            cases.append((name, [T(B if dt == "bool" else (U8 if dt == "uint8" else
                                                          (base if "float" in dt else I)),
                                   dt)], {"axis": 1}))
    q_vals = [0.5, [0.1, 0.5, 0.9], T([0.25, 0.75], "float32"), 0.0, 1.0]
    for name in ("quantile", "nanquantile", "percentile", "nanpercentile"):
        base = NANS if name.startswith("nan") else x3.tolist()
        nan_base = [[1.0, NAN, 3.0, 4.0], [4.0, 5.0, 6.0, 7.0]]
        scale = 100.0 if "percentile" in name else 1.0
        for q in q_vals:
            q = (T(q.array * scale, "float32") if isinstance(q, T)
                 else (np.multiply(q, scale).tolist()))
            cases.append((name, [T(base if not name.startswith("nan") else nan_base,
                                   "float32"), q], {}))
            cases.append((name, [T(x3 if not name.startswith("nan") else nan_base,
                                   "float32"), q], {"axis": -1}))
        for method in ("linear", "lower", "higher", "midpoint", "nearest"):
            cases.append((name, [T(x3, "float32"), 0.3 * scale], {"axis": 1,
                                                                   "method": method}))
            cases.append((name, [T(x3, "float32"), [0.3 * scale, 0.8 * scale]],
                          {"axis": (0, 2), "method": method, "keepdims": True}))
        cases.append((name, [T(x3, "float32"), [0.2 * scale, 0.6 * scale]],
                      {"keepdims": True}))
        cases.append((name, [T(x3, "float64"), 0.5 * scale], {"axis": 0, "keepdims": True}))
        cases.append((name, [T(nan_base, "float32"), 0.5 * scale], {"axis": 0}))
        cases.append((name, [T(I, "int32"), 0.5 * scale], {}))
    cases += [("median", [T(x3, "float32")], {"axis": (1, 2)}),
              ("nanmedian", [T([[1.0, NAN, 3.0], [NAN, 5.0, 6.0]], "float32")],
               {"axis": 1, "keepdims": True})]
    w = [[1.0, 2.0, 0.5], [0.0, 1.0, 3.0]]
    cases += [("average", [T(F, "float32")], {}),
              ("average", [T(F, "float32")], {"axis": 1}),
              ("average", [T(F, "float32")], {"axis": 0, "weights": T(w, "float32")}),
              ("average", [T(F, "float32")], {"axis": 1, "weights": T([1.0, 2.0, 3.0],
                                                                      "float32")}),
              ("average", [T(I, "int32")], {"weights": T(w, "float64")}),
              ("average", [T(F, "float16")], {"axis": 0, "weights": T([1.0, 3.0],
                                                                      "float16")}),
              ("average", [T(B, "bool")], {"axis": 1})]
    xc = [[1.0, 2.0, 4.0, 7.0], [0.5, -1.0, 2.0, 3.0], [3.0, 1.0, 0.0, -2.0]]
    cases += [("corrcoef", [T(xc, "float32")], {}),
              ("corrcoef", [T(xc, "float64")], {}),
              ("corrcoef", [T([[1, 2, 4], [3, 1, 0]], "int32")], {}),
              ("corrcoef", [T([1.0, 2.0, 5.0], "float32")], {})]
    for mode in ("valid", "same", "full"):
        cases += [("correlate", [T([1.0, 2.0, 3.0, -1.0, 0.5], "float32"),
                                 T([0.5, 1.0, -2.0], "float32")], {"mode": mode}),
                  ("correlate", [T([1.0, 2.0, 3.0, -1.0], "float64"),
                                 T([0.5, 1.0], "float64")], {"mode": mode}),
                  ("correlate", [T([1, 2, 3, 4, 5], "int32"), T([1, 0, 2, 1], "int32")],
                   {"mode": mode})]
    cases.append(("correlate", [T([1.0, 2.0], "float32"), T([1.0], "float32")],
                  {"mode": "bogus"}))
    hx = [0.5, 1.0, 1.0, 2.5, 3.0, -1.0, 4.0, 2.0]
    cases += [("histogram", [T(hx, "float32")], {}),
              ("histogram", [T(hx, "float32")], {"bins": 3}),
              ("histogram", [T(hx, "float64")], {"bins": 4, "range": (0.0, 3.0)}),
              ("histogram", [T(hx, "float32")], {"bins": 5, "range": (0, 4)}),
              ("histogram", [T(hx, "float32")], {"bins": 2.0}),
              ("histogram", [T(hx, "float32")], {"bins": -1}),
              ("histogram", [T(hx, "float32")], {"range": (3.0, 1.0)}),
              ("histogram", [T(hx, "float32")], {"range": [0.0, 1.0]}),
              ("histogram", [T([hx], "float32")], {})]
    # Python scalars on both sides, 0-d and empty tensors, signed zeros, ties, infinities
    cases += [("add", [1, 2], {}), ("add", [1.5, 2], {}), ("multiply", [True, 3], {}),
              ("divide", [T(I, "int32"), 2], {}), ("divide", [7, 2], {}),
              ("power", [2, T(F, "float32")], {}), ("power", [T(U8, "uint8"), 2], {}),
              ("subtract", [T(I, "int16"), T(IPOS, "uint8")], {}),
              ("maximum", [T(I, "int64"), 1.5], {}),
              ("sum", [T(np.zeros((0,), "float32"), "float32")], {}),
              ("sum", [T(np.zeros((0, 3), "int32"), "int32")], {"axis": 0}),
              ("mean", [T(np.zeros((2, 0), "float32"), "float32")], {"axis": 1}),
              ("prod", [T(np.zeros((0,), "float32"), "float32")], {}),
              ("sqrt", [T(3.0, "float32")], {}), ("exp", [T([], "float32")], {}),
              ("sin", [2], {}), ("log", [[1.0, 2.0]], {}),
              ("argmax", [T([[0.0, -0.0], [-0.0, 0.0]], "float32")], {"axis": 1}),
              ("argmin", [T([[0.0, -0.0], [-0.0, 0.0]], "float32")], {"axis": 1}),
              ("argmax", [T(3.0, "float32")], {}),
              ("std", [T(I, "int64")], {"axis": 0}), ("var", [T(F, "float16")], {}),
              ("var", [T(B, "bool")], {}), ("std", [T(F, "float64")], {"keepdims": True}),
              ("cumsum", [T(I, "int32")], {"dtype": "float32"}),
              ("cumprod", [T(F, "float32")], {"axis": 0, "dtype": "int32"}),
              ("round", [T([0.5, 1.5, 2.5, -0.5, -1.5], "float32")], {}),
              ("round", [T([0.25, 0.35, -0.45], "float64")], {"decimals": 1}),
              ("nan_to_num", [T(SPECIAL, "float16")], {}),
              ("isclose", [T(I, "int32"), T(IPOS, "int32")], {}),
              ("logaddexp", [T([INF, -INF, INF], "float32"), T([INF, -INF, 1.0], "float32")],
               {}),
              ("logaddexp2", [T([INF, -INF, 0.0], "float64"), T([INF, -INF, 0.0], "float64")],
               {}),
              ("fmax", [T([NAN, 1.0], "float32"), NAN], {}),
              ("fmin", [T(I, "int32"), 0], {}),
              ("hypot", [T([0.0, 3e30, -5.0], "float32"), T([0.0, 4e30, 12.0], "float32")],
               {}),
              ("sinc", [T([0.0, 1.0, -0.5], "float64")], {}),
              ("clip", [T(F, "float16"), 0.0, 1.0], {}),
              ("count_nonzero", [T(np.zeros((0,), "float32"), "float32")], {}),
              ("nansum", [T([[NAN, NAN]], "float32")], {"axis": 1}),
              ("nanmean", [T([[NAN, NAN], [1.0, NAN]], "float32")], {"axis": 1}),
              ("nanvar", [T(NANS, "float64")], {"axis": 1, "keepdims": True}),
              ("nanargmax", [T([[NAN, NAN], [1.0, NAN]], "float32")], {"axis": 1}),
              ("median", [T([[3.0, 1.0, NAN, 2.0]], "float32")], {"axis": 1}),
              ("ptp", [T(U8, "uint8")], {"axis": 0}),
              ("average", [T(F, "float32")], {"axis": -1,
                                             "weights": T([1.0, 0.0, 1.0], "float32")}),
              ("signbit", [T([-0.0, 0.0, -INF, 1e-45], "float32")], {}),
              ("trunc", [T([-2.7, -0.5, 0.5, 2.7], "float16")], {})]
    return cases


def encode(v):
    """JSON form of an input or output: tensors as values + dtype + shape."""
    if isinstance(v, T):
        v = v.array
    if isinstance(v, (tf.Tensor, tf.Variable)):
        v = v.numpy()
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
        out = {"dtype": str(a.dtype), "shape": list(a.shape)}
        if np.iscomplexobj(a):
            out["re"], out["im"] = a.real.tolist(), a.imag.tolist()
        else:
            out["values"] = a.tolist()
        return out
    if isinstance(v, tuple):
        return {"tuple": [encode(e) for e in v]}
    if isinstance(v, list):
        return {"list": [encode(e) for e in v]}
    return {"py": v}


def to_keras(v):
    if isinstance(v, T):
        return tf.constant(v.array)
    return v


def run_case(name, args, kwargs):
    fn = getattr(K, name)
    targs = [to_keras(a) for a in args]
    tkw = {k: to_keras(v) for k, v in kwargs.items()}
    rec = {"fn": name, "args": [encode(a) for a in args],
           "kwargs": {k: encode(v) for k, v in kwargs.items()}}
    watched = [i for i, a in enumerate(targs)
               if isinstance(a, tf.Tensor) and a.dtype.is_floating]
    try:
        with tf.GradientTape(persistent=True) as tape:
            for i in watched:
                tape.watch(targs[i])
            out = fn(*targs, **tkw)
    except Exception as e:  # the error class Keras raises is the recorded behaviour
        rec["error"] = type(e).__name__
        return rec
    rec["out"] = encode(out) if not isinstance(out, tuple) else [encode(o) for o in out]
    if watched and not isinstance(out, tuple) and out.dtype.is_floating:
        total = tf.reduce_sum(out)
        grads = tape.gradient(total, [targs[i] for i in watched])
        rec["grads"] = {str(i): (None if g is None else encode(g))
                        for i, g in zip(watched, grads)}
    return rec


def main():
    records = [run_case(*c) for c in build_cases()]
    names = sorted({r["fn"] for r in records})
    # where Keras exposes each name (keras.ops, keras.ops.numpy, ...)
    spaces = {n: [ns for ns in ("ops", "ops.numpy", "ops.nn", "ops.linalg")
                  if hasattr(eval("keras." + ns), n)] for n in names}
    save("kops_numeric", {"keras": keras.__version__, "tensorflow": tf.__version__,
                          "namespaces": spaces, "cases": records})
    print(len(records), "cases,", sum("error" in r for r in records), "errors")


if __name__ == "__main__":
    main()
