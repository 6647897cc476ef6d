"""Dataset.from_generator with tf.string outputs, against values recorded from TensorFlow
(tests/tf_reference/record_data_strings.py, topic "data_strings")."""
import numpy as np  # noqa: F401  (the recorded sources build NumPy values)
import pytest

import fasteager as fe
from tests.tf_reference import load

REF = load("data_strings")
SHAPES = {"scalar": [], "vector": [None], "matrix": [None, None], "int_scalar": [],
          "float_scalar": []}
DTYPES = {"int_scalar": fe.int32, "float_scalar": fe.float32}


def _dataset(source, kind, mode):
    values = eval(source)
    dtype = DTYPES.get(kind, fe.string)

    def gen():
        yield from values
    if mode == "signature":
        return fe.data.Dataset.from_generator(
            gen, output_signature=fe.TensorSpec(SHAPES[kind], dtype))
    return fe.data.Dataset.from_generator(gen, output_types=dtype)


def _hex(value):
    if isinstance(value, bytes):
        return value.hex()
    return [_hex(v) for v in value]


@pytest.mark.parametrize("case", sorted(REF))
def test_from_generator_strings_match_tensorflow(case):
    ref = REF[case]
    ds = _dataset(ref["source"], ref["kind"], case.split("/")[1])
    got = []
    if "error" in ref:
        # TensorFlow raises InvalidArgumentError, or InternalError from its py_func for a
        # number given to a string output with output_signature; both are OpErrors here
        want = getattr(fe.errors, ref["error"])
        with pytest.raises(fe.errors.InvalidArgumentError if want is fe.errors.InternalError
                           else want):
            for x in ds:
                got.append(x)
        assert len(got) == len(ref["elements"])
        return
    for x in ds:
        v = x.numpy()
        got.append({"dtype": x.dtype.name,
                    "value": _hex(v.tolist() if isinstance(v, np.ndarray) else v)
                    if x.dtype == fe.string else v.tolist()})
    assert got == ref["elements"]


def test_from_generator_string_element_spec_and_batch():
    def gen():
        yield "ab"
        yield b"c"
        yield np.str_("de")
    ds = fe.data.Dataset.from_generator(gen, output_signature=fe.TensorSpec([], fe.string))
    assert ds.element_spec == fe.TensorSpec([], fe.string)
    (batch,) = list(ds.batch(3))
    assert batch.numpy().tolist() == [b"ab", b"c", b"de"]
