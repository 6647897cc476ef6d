"""Record Keras 3.15.1's keras.ops core functions (and keras.ops.rearrange) on the TensorFlow
backend: values, dtypes, shapes, error classes and gradients of sum(output), for the cases
in ``cases()`` (shared with tests/keras/ops/test_core.py, which runs them on fasteager).

Run from the repository root:
/work/tfenv/bin/python tests/tf_reference/record_kops_core.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _kops_cases import evaluate

RNG = None


def _f(shape, dtype="float32", lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def _custom_square(ops, x):
    @ops.custom_gradient
    def f(v):
        def grad(dy):
            return dy * 3.0  # deliberately not 2 * v: the rule must be the user's
        return v * v, grad
    return f(x)


def _pair_scan(ops, a, b):
    # Nested elems: a running (sum, product).
    return ops.associative_scan(lambda x, y: (x[0] + y[0], x[1] * y[1]), (a, b))


def cases():
    global RNG
    RNG = np.random.RandomState(4)  # the same inputs in the recorder and in the test
    c = []

    def add(name, cid, fn, inputs, **opts):
        c.append((name, "%s:%s" % (name, cid), fn, list(inputs), opts))

    x23 = _f((2, 3))
    # cast
    for src, dst in [("float32", "int32"), ("float32", "uint8"), ("float32", "bool"),
                     ("float32", "float16"), ("float32", "float64"), ("int32", "float32"),
                     ("bool", "float32"), ("int64", "int8"), ("float64", "float32")]:
        v = np.array([1.7, -2.5, 0.0, 3.2]).astype(src) if src != "bool" \
            else np.array([True, False, True])
        add("cast", "%s_to_%s" % (src, dst), lambda o, x, d=dst: o.cast(x, d), [v], grad=True)
    add("cast", "bad_dtype", lambda o, x: o.cast(x, "float17"), [x23])
    # convert_to_tensor
    for dt in [None, "int32", "float16", "bool", "float64"]:
        add("convert_to_tensor", "list_%s" % dt,
            lambda o, d=dt: o.convert_to_tensor([[1.7, -2.0], [0.0, 3.5]], dtype=d), [])
    add("convert_to_tensor", "int_list", lambda o: o.convert_to_tensor([1, 2, 3]), [])
    add("convert_to_tensor", "py_float", lambda o: o.convert_to_tensor(2.5), [])
    add("convert_to_tensor", "numpy_f64", lambda o, x: o.convert_to_tensor(x),
        [_f((3,), "float64")], raw=True)
    add("convert_to_tensor", "tensor_recast", lambda o, x: o.convert_to_tensor(x, "int64"),
        [x23])
    add("convert_to_tensor", "tensor_same", lambda o, x: o.convert_to_tensor(x, "float32"),
        [x23], grad=True)
    # convert_to_numpy / is_tensor / shape / dtype
    add("convert_to_numpy", "tensor", lambda o, x: o.convert_to_numpy(x), [x23])
    add("convert_to_numpy", "list", lambda o: o.convert_to_numpy([[1, 2], [3, 4]]), [])
    add("is_tensor", "tensor", lambda o, x: o.is_tensor(x), [x23])
    add("is_tensor", "numpy", lambda o, x: o.is_tensor(x), [x23], raw=True)
    add("is_tensor", "python", lambda o: o.is_tensor(1.5), [])
    add("shape", "tensor", lambda o, x: o.shape(x), [_f((2, 3, 4))])
    add("shape", "scalar", lambda o, x: o.shape(x), [np.float32(1.0).reshape(())])
    add("shape", "list", lambda o: o.shape([[1, 2, 3]]), [])
    for dt in ["float32", "float64", "int32", "int64", "uint8", "bool", "float16", "int8"]:
        add("dtype", dt, lambda o, x: o.dtype(x), [np.zeros((2,), dt)])
    # saturate_cast
    big = np.array([-1e10, -300.0, -1.5, 0.0, 1.5, 200.0, 300.0, 1e10], "float32")
    for dst in ["uint8", "int8", "int16", "int32", "uint16", "float16"]:
        add("saturate_cast", "f32_to_%s" % dst, lambda o, x, d=dst: o.saturate_cast(x, d),
            [big])
    add("saturate_cast", "i32_to_int8", lambda o, x: o.saturate_cast(x, "int8"),
        [np.array([-1000, -5, 0, 100, 1000], "int32")])
    add("saturate_cast", "i32_to_uint8", lambda o, x: o.saturate_cast(x, "uint8"),
        [np.array([-1000, -5, 0, 100, 1000], "int32")])
    add("saturate_cast", "i64_to_int32", lambda o, x: o.saturate_cast(x, "int32"),
        [np.array([-2 ** 40, 7, 2 ** 40], "int64")])
    add("saturate_cast", "f64_to_f32", lambda o, x: o.saturate_cast(x, "float32"),
        [np.array([-1e300, 1.0, 1e300], "float64")], grad=True)
    add("saturate_cast", "f32_to_f64", lambda o, x: o.saturate_cast(x, "float64"),
        [big], grad=True)
    add("saturate_cast", "f32_to_f16_grad", lambda o, x: o.saturate_cast(x, "float16"),
        [_f((4,))], grad=True)
    add("saturate_cast", "bool_to_f32", lambda o, x: o.saturate_cast(x, "float32"),
        [np.array([True, False])])
    # stop_gradient / custom_gradient / unstack
    add("stop_gradient", "value", lambda o, x: o.stop_gradient(x), [x23])
    add("stop_gradient", "grad", lambda o, x: o.stop_gradient(x) * x, [x23], grad=True)
    add("custom_gradient", "square", _custom_square, [x23], grad=True)
    for ax in [0, 1, -1]:
        add("unstack", "axis%d" % ax, lambda o, x, a=ax: o.unstack(x, axis=a), [x23],
            grad=True)
    add("unstack", "num", lambda o, x: o.unstack(x, num=2), [x23])
    add("unstack", "num_wrong", lambda o, x: o.unstack(x, num=3), [x23])
    # cond / switch
    for p in [True, False]:
        add("cond", "py_%s" % p, lambda o, x, p=p: o.cond(p, lambda: x * 2.0, lambda: x - 1.0),
            [x23], grad=True)
    add("cond", "tensor_pred", lambda o, x: o.cond(o.convert_to_tensor(False),
                                                   lambda: x * x, lambda: x * 3.0),
        [x23], grad=True)
    for i in [0, 1, 5, -3]:
        add("switch", "index%d" % i,
            lambda o, x, y, i=i: o.switch(i, [lambda a, b: a + b, lambda a, b: a * b], x, y),
            [x23, _f((2, 3))], grad=True)
    # while_loop / fori_loop
    add("while_loop", "tuple",
        lambda o, x: o.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), (0, x)),
        [x23], grad=True)
    add("while_loop", "list",
        lambda o, x: o.while_loop(lambda i, v: i < 2, lambda i, v: [i + 1, v + 1.0], [0, x]),
        [x23], grad=True)
    add("while_loop", "single",
        lambda o, x: o.while_loop(lambda v: o.convert_to_numpy(v).sum() < 100.0,
                                  lambda v: v * 2.0, x),
        [np.array([1.0, 2.0], "float32")], grad=True)
    add("while_loop", "max_iter",
        lambda o, x: o.while_loop(lambda i, v: i < 10, lambda i, v: (i + 1, v * 1.5), (0, x),
                                  maximum_iterations=4),
        [x23], grad=True)
    add("fori_loop", "sum", lambda o, x: o.fori_loop(0, 4, lambda i, v: v * 2.0 + 1.0, x),
        [x23], grad=True)
    add("fori_loop", "index", lambda o: o.fori_loop(2, 6, lambda i, v: v + i, 0), [])
    # scan
    xs = _f((4, 3))
    add("scan", "cumsum",
        lambda o, c, x: o.scan(lambda a, b: (a + b, a * b), c, x), [_f((3,)), xs], grad=True)
    add("scan", "reverse",
        lambda o, c, x: o.scan(lambda a, b: (a + b, a * b), c, x, reverse=True),
        [_f((3,)), xs], grad=True)
    add("scan", "length_no_xs",
        lambda o, c: o.scan(lambda a, b: (a * 2.0, a + 1.0), c, None, length=3),
        [_f((2,))], grad=True)
    add("scan", "nested",
        lambda o, c, d, x: o.scan(lambda a, b: ((a[0] + b["u"], a[1] * 2.0),
                                             (a[0] - b["v"], a[1] + 1.0)),
                                  (c, d), {"u": x, "v": x * 2.0}),
        [_f((3,)), _f((3,)), xs], grad=True)
    add("scan", "unroll_bad", lambda o, c, x: o.scan(lambda a, b: (a, b), c, x, unroll=0),
        [_f((3,)), xs])
    add("scan", "no_xs_no_length", lambda o, c: o.scan(lambda a, b: (a, b), c), [_f((3,))])
    add("scan", "not_callable", lambda o, c, x: o.scan(3, c, x), [_f((3,)), xs])
    # associative_scan
    for n in [1, 2, 3, 5, 8]:
        add("associative_scan", "add_n%d" % n,
            lambda o, x: o.associative_scan(lambda a, b: a + b, x), [_f((n, 2))], grad=True)
    add("associative_scan", "mul_axis1_reverse",
        lambda o, x: o.associative_scan(lambda a, b: a * b, x, reverse=True, axis=1),
        [_f((2, 7), lo=0.5, hi=1.5)], grad=True)
    add("associative_scan", "max_axis_neg",
        lambda o, x: o.associative_scan(lambda a, b: (a + b + abs(a - b)) / 2.0, x, axis=-1),
        [_f((3, 6))], grad=True)
    add("associative_scan", "nested", _pair_scan,
        [_f((6,)), _f((6,), lo=0.5, hi=1.5)], grad=True)
    add("associative_scan", "int", lambda o, x: o.associative_scan(lambda a, b: a + b, x),
        [np.arange(1, 10, dtype="int32")])
    add("associative_scan", "mismatch",
        lambda o, a, b: o.associative_scan(lambda x, y: (x[0] + y[0], x[1] + y[1]), (a, b)),
        [_f((4,)), _f((5,))])
    # map / vectorized_map
    add("map", "double", lambda o, x: o.map(lambda v: v * 2.0 + 1.0, x), [xs], grad=True)
    add("map", "int", lambda o, x: o.map(lambda v: v * 3, x),
        [np.arange(6, dtype="int32").reshape(3, 2)])
    add("map", "nested",
        lambda o, a, b: o.map(lambda d: {"s": d["a"] + d["b"], "p": d["a"] * d["b"]},
                              {"a": a, "b": b}), [xs, _f((4, 3))], grad=True)
    add("vectorized_map", "square", lambda o, x: o.vectorized_map(lambda v: v * v, x),
        [xs], grad=True)
    add("vectorized_map", "tuple",
        lambda o, a, b: o.vectorized_map(lambda t: t[0] * t[1], (a, b)),
        [xs, _f((4, 3))], grad=True)
    # scatter / scatter_update
    add("scatter", "1d", lambda o, v: o.scatter([[0], [2], [0]], v, (4,)),
        [np.array([1.0, 2.0, 3.0], "float32")], grad=True)
    add("scatter", "2d_rows", lambda o, v: o.scatter([[1], [3]], v, (4, 3)), [_f((2, 3))],
        grad=True)
    add("scatter", "2d_points", lambda o, v: o.scatter([[0, 1], [2, 2]], v, (3, 3)),
        [np.array([5, 7], "int32")])
    base = _f((4, 3))
    for red in [None, "add", "max", "min", "mul", "ADD"]:
        add("scatter_update", "%s" % red,
            lambda o, x, u, r=red: o.scatter_update(x, [[0], [2], [0]], u, reduction=r),
            [base, _f((3, 3))], grad=red in (None, "add"))
    add("scatter_update", "points",
        lambda o, x, u: o.scatter_update(x, [[0, 1], [3, 2]], u), [base, _f((2,))], grad=True)
    add("scatter_update", "bad_reduction",
        lambda o, x, u: o.scatter_update(x, [[0]], u, reduction="mean"), [base, _f((1, 3))])
    # slice / slice_update
    x34 = _f((3, 4))
    add("slice", "block", lambda o, x: o.slice(x, [1, 0], [2, 3]), [x34], grad=True)
    add("slice", "minus_one", lambda o, x: o.slice(x, [0, 1], [-1, 2]), [x34], grad=True)
    add("slice", "int", lambda o, x: o.slice(x, [1], [2]), [np.arange(5, dtype="int32")])
    add("slice_update", "inside", lambda o, x, u: o.slice_update(x, [1, 1], u),
        [x34, _f((2, 2))])
    add("slice_update", "clamped", lambda o, x, u: o.slice_update(x, [2, 3], u),
        [x34, _f((2, 2))])
    add("slice_update", "negative_start", lambda o, x, u: o.slice_update(x, [-1, 0], u),
        [x34, _f((1, 4))])
    add("slice_update", "int", lambda o, x, u: o.slice_update(x, [2], u),
        [np.arange(6, dtype="int32"), np.array([9, 9], "int32")])
    # empty inputs and Python values
    add("scan", "empty_xs", lambda o, c, x: o.scan(lambda a, b: (a + b, a * b), c, x),
        [_f((3,)), np.zeros((0, 3), "float32")])
    add("associative_scan", "empty", lambda o, x: o.associative_scan(lambda a, b: a + b, x),
        [np.zeros((0, 2), "float32")])
    add("cast", "py_list_to_int8", lambda o: o.cast([1.9, -1.9, 127.0], "int8"), [])
    add("cast", "empty", lambda o, x: o.cast(x, "int32"), [np.zeros((0, 2), "float32")])
    add("scatter_update", "int_add",
        lambda o, x: o.scatter_update(x, [[1], [1]], np.array([5, 6], "int32"), "add"),
        [np.arange(4, dtype="int32")])
    add("slice", "empty", lambda o, x: o.slice(x, [1, 0], [0, 2]), [x34])
    add("unstack", "empty_axis", lambda o, x: o.unstack(x, axis=1), [np.zeros((2, 0), "float32")])
    # rearrange (keras.ops.einops)
    img = _f((2, 4, 6, 3))
    for pat, kw in [("b h w c -> b c h w", {}), ("b h w c -> (b h) w c", {}),
                    ("b h w c -> h (b w) c", {}), ("b h w c -> b (c h w)", {}),
                    ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
                    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 3})]:
        add("rearrange", pat.replace(" ", "_"),
            lambda o, x, p=pat, k=kw: o.rearrange(x, p, **k), [img], grad=True)
    add("rearrange", "numpy_input", lambda o, x: o.rearrange(x, "a b c -> c (a b)"),
        [_f((2, 3, 4), "float64")], raw=True)
    add("rearrange", "int", lambda o, x: o.rearrange(x, "a b -> b a"),
        [np.arange(6, dtype="int64").reshape(2, 3)])
    return c


def main():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras
    import tensorflow as tf
    from __init__ import save
    save("kops_core", {case[1]: evaluate(tf, keras.ops, case) for case in cases()})


if __name__ == "__main__":
    main()
