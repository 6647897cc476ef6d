"""Record TensorFlow 2.21's tensor semantics for fasteager's tests (topic "tensor_semantics").

Run from the repository root with a Python that has TensorFlow::

    /work/tfenv/bin/python tests/tf_reference/record_tensor_semantics.py

What it records (issue 33): the result dtype (or error class) of every operator and a few
``tf.*`` binary functions over a table of operand kinds (Python scalars, NumPy scalars and
arrays of each dtype, lists, tensors) against tensors of each dtype, in both orders;
assignments to slices of variables; ``tf.range``'s float32 values; ``tf.boolean_mask``
with non-bool masks; and the object ``with tf.device(...) as d`` binds.
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from tests.tf_reference import save  # noqa: E402

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]

# operand kinds: (name, how to build it from a module `m` that is tf or fasteager);
# the test rebuilds the same operands with fasteager from these names
def operand_names():
    names = ["py_bool", "py_int", "py_int_big", "py_float", "py_float_whole", "py_complex",
             "list_int", "list_float", "list_bool"]
    names += ["np_scalar_" + d for d in DTYPES]
    names += ["np_array_" + d for d in DTYPES]
    names += ["tensor_" + d for d in DTYPES]
    return names


def make_operand(name, m):
    """The operand ``name`` (a 2x2 value where it has a shape), tensors made by module m."""
    if name == "py_bool":
        return True
    if name == "py_int":
        return 2
    if name == "py_int_big":
        return 2 ** 40
    if name == "py_float":
        return 2.5
    if name == "py_float_whole":
        return 2.0
    if name == "py_complex":
        return 1 + 2j
    if name == "list_int":
        return [[1, 2], [3, 4]]
    if name == "list_float":
        return [[1.0, 2.0], [3.0, 4.0]]
    if name == "list_bool":
        return [[True, False], [True, True]]
    kind, dtype = name.rsplit("_", 1)
    value = np.array([[1, 2], [3, 1]]) if dtype != "bool" else np.array([[True, False],
                                                                         [True, True]])
    value = value.astype(dtype)
    if kind == "np_scalar":
        return value.reshape(-1)[0]
    if kind == "np_array":
        return value
    return m.constant(value)


OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "eq", "ne", "and",
       "or", "matmul", "tf.add", "tf.subtract", "tf.multiply", "tf.maximum", "tf.matmul",
       "tf.equal", "tf.math.greater"]


def apply_op(op, a, b, m):
    import operator
    if op.startswith("tf."):
        fn = m
        for part in op[3:].split("."):
            fn = getattr(fn, part)
        return fn(a, b)
    return getattr(operator, {"and": "and_", "or": "or_"}.get(op, op))(a, b)


def describe(r):
    """What a result is, as a string: the dtype of a tensor, else the type and value."""
    dtype = getattr(r, "dtype", None)
    if dtype is not None and hasattr(r, "shape"):
        return "%s%s" % (getattr(dtype, "name", str(dtype)), list(r.shape))
    return "py:%s:%r" % (type(r).__name__, r)


def promotion_table():
    table = {}
    for other in operand_names():
        for dtype in DTYPES:
            t = make_operand("tensor_" + dtype, tf)
            o = make_operand(other, tf)
            for op in OPS:
                for order in ("tensor_first", "tensor_second"):
                    a, b = (t, o) if order == "tensor_first" else (o, t)
                    try:
                        got = describe(apply_op(op, a, b, tf))
                    except Exception as e:  # the class is what the test compares
                        got = "error:" + type(e).__name__
                    table["%s|%s|%s|%s" % (op, dtype, other, order)] = got
    return table


def sliced_assign():
    out = {}
    cases = {
        "scalar": ("[1, 2]", "7."),
        "row_slice": ("[:1, :]", "[[1., 2., 3.]]"),
        "all": ("[:]", "[[1., 2., 3.], [4., 5., 6.]]"),
        "newaxis": ("[tf.newaxis, 0]", "[[1., 1., 1.]]"),
        "ellipsis": ("[..., 1]", "[5., 6.]"),
        "negative_stride": ("[:, ::-1]", "[[1., 2., 3.], [4., 5., 6.]]"),
        "stride2": ("[:, ::2]", "[[1., 2.], [3., 4.]]"),
        "broadcast": ("[0]", "9."),
        "python_ints": ("[0]", "[1, 2, 3]"),
        "python_int_scalar": ("[0, 0]", "3"),
        "numpy_float64": ("[0]", "np.array([1., 2., 3.])"),
        "tensor_index": ("[tf.constant(1)]", "[1., 1., 1.]"),
        "negative_index": ("[-1, -1]", "8."),
        "list_index": ("[[0, 1]]", "5."),
        "shape_mismatch": ("[0]", "[1., 2.]"),
        "shape_mismatch_2d": ("[:, :2]", "[[1., 2., 3.]]"),
        "dtype_int_tensor": ("[0]", "tf.constant([1, 2, 3])"),
        "dtype_float64_tensor": ("[0]", "tf.constant([1., 2., 3.], tf.float64)"),
        "python_float_fraction_int_var": ("[0]", "[1.5, 2., 3.]"),
        "out_of_range": ("[5]", "[1., 1., 1.]"),
        "bool_mask": ("[tf.constant([True, False])]", "[[1., 1., 1.]]"),
    }
    for name, (index, value) in cases.items():
        init = np.arange(6, dtype=np.float32).reshape(2, 3)
        if name == "python_float_fraction_int_var":
            init = init.astype(np.int32)
        Y = tf.Variable(init)
        rec = {"index": index, "value": value, "init": init.tolist(), "dtype": init.dtype.name}
        try:
            r = eval("Y%s.assign(%s)" % (index, value), {"Y": Y, "tf": tf, "np": np})
            rec["result"] = type(r).__name__
            rec["result_value"] = np.asarray(r).tolist()
        except Exception as e:
            rec["error"] = type(e).__name__
            rec["message"] = str(e).split(" [Op:")[0].split("}} ")[-1]
        rec["after"] = Y.numpy().tolist()
        out[name] = rec
    # what the indexing of a variable returns; the methods a slice has
    Y = tf.Variable(tf.zeros((2, 3)))
    s = Y[0]
    out["slice_attrs"] = {"assign": hasattr(s, "assign"),
                          "assign_add": hasattr(s, "assign_add"),
                          "assign_sub": hasattr(s, "assign_sub"),
                          "tensor_of_tensor_assign": hasattr((Y + 0)[0], "assign"),
                          "slice_of_slice_assign": hasattr(s[1:], "assign")}
    # under a tape; inside tf.function
    Y = tf.Variable(tf.zeros((2, 3)))
    with tf.GradientTape() as tape:
        tape.watch(Y)
        Y[0].assign([1., 2., 3.])
        loss = tf.reduce_sum(Y * Y)
    out["tape_grad"] = tape.gradient(loss, Y).numpy().tolist()

    @tf.function
    def f(v, x):
        v[0, 0].assign(x)
        v[1, :].assign(v[0] * 2.)
        return v[0, 0].assign(x + 1.)
    Y = tf.Variable(tf.ones((2, 3)))
    out["function_result"] = f(Y, tf.constant(5.)).numpy().tolist()
    out["function_after"] = Y.numpy().tolist()
    return out


def tensor_index_list():
    t = tf.constant(np.arange(6).reshape(2, 3))
    out = {}
    for name, key in [("list_pair", [0, 1]), ("list_one", [1])]:
        try:
            r = t[key]
            out[name] = {"value": r.numpy().tolist(), "shape": r.shape.as_list()}
        except Exception as e:
            out[name] = {"error": type(e).__name__}
    return out


def range_values():
    out = {}
    for name, args in [("float32_small_step", (-10.0, 10.0, 0.01)), ("float32_tenth", (0.0, 1.0, 0.1)),
                       ("float32_neg", (5.0, -5.0, -0.3)), ("float32_int_args", (0, 7, 0.7)),
                       ("float64", (-10.0, 10.0, 0.01, tf.float64)),
                       ("float32_limit_only", (3.7,)), ("int", (1, 20, 3)), ("int_neg", (10, -3, -4)),
                       ("float32_exact", (0.0, 1.0, 0.25))]:
        dtype = None
        if len(args) == 4:
            args, dtype = args[:3], args[3]
        r = tf.range(*args, dtype=dtype) if dtype is not None else tf.range(*args)
        out[name] = {"args": list(args), "dtype": r.dtype.name, "n": int(r.shape[0]),
                     "values": [float(v) if r.dtype.is_floating else int(v)
                                for v in r.numpy()]}
    return out


def boolean_mask_cases():
    out = {}
    x = tf.constant([1., 2., 3., 4.])
    for name, mask in [("float", [1., 0., 2., -0.5]), ("int32", np.array([1, 0, 2, -1], np.int32)),
                       ("int64", np.array([1, 0, 2, 0], np.int64)), ("uint8", np.array([1, 0, 2, 0], np.uint8)),
                       ("python_ints", [1, 0, 3, 0]), ("float_nan", [np.nan, 0., 1., 0.])]:
        try:
            r = tf.boolean_mask(x, tf.constant(mask) if not isinstance(mask, list) else mask)
            out[name] = {"value": r.numpy().tolist()}
        except Exception as e:
            out[name] = {"error": type(e).__name__}
    return out


def device_context():
    out = {}
    with tf.device("/CPU:0") as d:
        out["as_binds"] = repr(d)
    dev = tf.device("/CPU:0")
    out["type"] = type(dev).__name__
    out["slots"] = sorted(getattr(type(dev), "__slots__", ()))
    out["has_dict"] = hasattr(dev, "__dict__")
    out["device_name"] = dev._device_name
    out["ctx_type"] = type(dev._ctx).__name__
    out["gpu_name"] = tf.device("gpu:1")._device_name
    out["none_name"] = tf.device(None)._device_name
    out["has_name"] = hasattr(dev, "name")
    return out


def main():
    save("tensor_semantics", {
        "tensorflow": tf.__version__,
        "dtypes": DTYPES,
        "ops": OPS,
        "operands": operand_names(),
        "promotion": promotion_table(),
        "sliced_assign": sliced_assign(),
        "tensor_index_list": tensor_index_list(),
        "range": range_values(),
        "boolean_mask": boolean_mask_cases(),
        "device": device_context(),
    })


if __name__ == "__main__":
    main()
