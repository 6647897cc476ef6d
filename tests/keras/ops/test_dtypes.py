"""Keras's dtype promotion (fe.keras.backend.result_type / standardize_dtype, which every
keras.ops function follows) against Keras 3.15.1's, recorded by
tests/tf_reference/record_kops_dtypes.py."""
import numpy as np
import pytest

import fasteager as fe
from fasteager.keras import backend as K
from tests.tf_reference import load

REF = load("kops_dtypes")
PYTHON = {"py_int": int, "py_float": float, "py_bool": bool, "None": None}


def _arg(key):
    return PYTHON.get(key, key)


def _check(fn, args, rec):
    if "error" in rec:
        with pytest.raises(ValueError):
            fn(*args)
    else:
        assert fn(*args) == rec["value"], args


@pytest.mark.parametrize("pair", sorted(REF["pairs"]))
def test_pairs(pair):
    a, b = pair.split("|")
    _check(K.result_type, (_arg(a), _arg(b)), REF["pairs"][pair])


def test_singles_triples_and_empty():
    for k, rec in REF["singles"].items():
        _check(K.result_type, (_arg(k),), rec)
    for k, rec in REF["triples"].items():
        _check(K.result_type, tuple(_arg(t) for t in k.split("|")), rec)
    assert K.result_type() == REF["empty"]


def test_standardize_dtype():
    for k, rec in REF["standardize"].items():
        _check(K.standardize_dtype, (_arg(k),), rec)


def test_weak_results_follow_floatx():
    try:
        K.set_floatx("float64")
        for k, rec in REF["floatx64"].items():
            a, b = k.split("|")
            _check(K.result_type, (_arg(a), _arg(b)), rec)
    finally:
        K.set_floatx("float32")


def test_dtype_objects_and_values():
    # fasteager / NumPy dtypes read as their names; tensors as their dtype; Python
    # scalars as weak types (the helper keras.ops uses on its arguments).
    for name in ("int8", "uint16", "float64", "bool", "complex64"):
        assert K.standardize_dtype(fe.as_dtype(name)) == name
        assert K.standardize_dtype(np.dtype(name)) == name
    assert K.standardize_dtype(np.float32) == "float32"
    assert K.result_type(fe.constant([1, 2], fe.int8), 3) == "int8"
    assert K.result_type(fe.constant([1, 2], fe.int8), 3.0) == "float32"
    assert K.result_type(fe.constant([1.0], fe.float16), 2) == "float16"
    assert K.result_type(np.zeros(2, np.uint8), True) == "uint8"
    assert K.result_type(fe.int32, fe.float16) == "float16"


def test_float8_has_no_implicit_promotion():
    with pytest.raises(ValueError, match="float8"):
        K.result_type("float8_e4m3fn", "float32")
