"""Dtypes of binary operators and functions with mixed operands, against TensorFlow 2.21.

tests/tf_reference/record_tensor_semantics.py recorded, for every operand kind (Python
bool/int/float/complex, lists, NumPy scalars and arrays of each dtype, tensors of each dtype)
against a tensor of each dtype, in both orders, for each operator and a few ``tf.*``
functions, the result's dtype or the error's class. This test walks the whole table.
"""
import operator
import warnings

import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

REF = load("tensor_semantics")
DTYPES = REF["dtypes"]


def make_operand(name):
    # (the recorder's operands, made with fasteager)
    py = {"py_bool": True, "py_int": 2, "py_int_big": 2 ** 40, "py_float": 2.5,
          "py_float_whole": 2.0, "py_complex": 1 + 2j, "list_int": [[1, 2], [3, 4]],
          "list_float": [[1.0, 2.0], [3.0, 4.0]], "list_bool": [[True, False], [True, True]]}
    if name in py:
        return py[name]
    kind, dtype = name.rsplit("_", 1)
    value = (np.array([[1, 2], [3, 1]]) if dtype != "bool"
             else np.array([[True, False], [True, True]])).astype(dtype)
    if kind == "np_scalar":
        return value.reshape(-1)[0]
    if kind == "np_array":
        return value
    return fe.constant(value)


def apply_op(op, a, b):
    if op.startswith("tf."):
        fn = fe
        for part in op[3:].split("."):
            fn = getattr(fn, part)
        return fn(a, b)
    return getattr(operator, {"and": "and_", "or": "or_"}.get(op, op))(a, b)


def describe(r):
    dtype = getattr(r, "dtype", None)
    if dtype is not None and hasattr(r, "shape"):
        return "%s%s" % (getattr(dtype, "name", str(dtype)), list(r.shape))
    return "py:%s:%r" % (type(r).__name__, r)


def known_divergence(op, dtype, other, want):
    """Cells where fasteager knowingly differs (each a quirk of TensorFlow's Python layer):
    ``bool_tensor / numpy_value`` fails TensorFlow's dtype check, whose TypeError then
    hands the division to NumPy's reflected operator (a NumPy array comes back), and
    ``tensor | value`` raises AttributeError inside TensorFlow's or_ where fasteager
    raises TypeError."""
    if op == "truediv" and dtype == "bool" and other.startswith("np_") and \
            not want.startswith("error"):
        return True
    return op == "or" and want == "error:AttributeError"


def _walk():
    got_table, mismatches, divergent = {}, [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, want in REF["promotion"].items():
            op, dtype, other, order = key.split("|")
            t = make_operand("tensor_" + dtype)
            o = make_operand(other)
            a, b = (t, o) if order == "tensor_first" else (o, t)
            try:
                got = describe(apply_op(op, a, b))
            except Exception as e:
                got = "error:" + type(e).__name__
            got_table[key] = got
            if got != want:
                (divergent if known_divergence(op, dtype, other, want)
                 else mismatches).append("%s: TensorFlow %s, fasteager %s" % (key, want, got))
    return mismatches, divergent


def test_promotion_table_matches_tensorflow():
    assert len(REF["promotion"]) == len(REF["ops"]) * len(DTYPES) * len(REF["operands"]) * 2
    mismatches, divergent = _walk()
    assert not mismatches, "%d cells differ:\n%s" % (len(mismatches),
                                                      "\n".join(mismatches[:40]))
    assert len(divergent) <= 80, divergent       # the known quirks stay few


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_numpy_slice_adopts_the_tensor_dtype(dtype):
    # the program: a float64 NumPy slice beside a float32 tensor
    t = fe.zeros((1, 2, 3), dtype=dtype)
    out = t + np.ones((1, 4, 3))[:, :2, :]
    assert out.dtype.name == dtype
    np.testing.assert_array_equal(out.numpy(), np.ones((1, 2, 3)))
    out = np.ones((1, 4, 3))[:, :2, :] - t
    assert out.dtype.name == dtype


def test_float64_tensor_with_float32_tensor_stays_an_error():
    with pytest.raises(fe.errors.InvalidArgumentError):
        fe.zeros((2,), fe.float64) + fe.zeros((2,), fe.float32)


def test_values_of_mixed_operands():
    t = fe.constant([1, 2, 3], fe.int8)
    # NumPy operands are cast as NumPy casts them (TensorFlow's C conversion)
    np.testing.assert_array_equal((t + np.array([1.7, 2.2, 3.9])).numpy(), [2, 4, 6])
    np.testing.assert_array_equal((t * 2 ** 40).numpy(), [0, 0, 0])
    # a bool tensor under *: both sides as int32, the product as bool
    b = fe.constant([True, False, True])
    np.testing.assert_array_equal((b * 2.5).numpy(), [True, False, True])
    # 8- and 16-bit integers divide in float32, wider ones in float64
    assert (t / t).dtype == fe.float32
    assert (fe.constant([1, 2]) / 2).dtype == fe.float64


def test_integer_division_by_zero_is_an_error():
    with pytest.raises(fe.errors.InvalidArgumentError, match="floordiv: integer division"):
        fe.constant([1, 2]) // fe.constant([1, 0])
    with pytest.raises(fe.errors.InvalidArgumentError, match="floormod: integer division"):
        fe.constant([1, 2]) % 0
    assert np.isinf((fe.constant([1.]) // 0.).numpy()).all()


def test_operand_conversion_errors_name_the_op():
    with pytest.raises(TypeError, match="subtract: cannot convert 2.5 to EagerTensor of "
                                        "dtype int32"):
        fe.constant([1, 2]) - 2.5
    with pytest.raises(TypeError, match="add: cannot convert 2.5"):
        2.5 + fe.constant([1, 2])
    # add converts with a dtype hint: what does not convert meets the dtype check
    with pytest.raises(fe.errors.InvalidArgumentError, match="add"):
        fe.constant([1, 2]) + 2.5
