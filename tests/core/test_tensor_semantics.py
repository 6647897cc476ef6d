"""tf.range, tf.boolean_mask and tf.device against values recorded from TensorFlow 2.21
(tests/tf_reference/record_tensor_semantics.py)."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

REF = load("tensor_semantics")


@pytest.mark.parametrize("case", sorted(REF["range"]))
def test_range_matches_tensorflow(case):
    want = REF["range"][case]
    dtype = fe.float64 if case == "float64" else None
    got = fe.range(*want["args"], dtype=dtype) if dtype else fe.range(*want["args"])
    assert got.dtype.name == want["dtype"]
    assert got.shape == (want["n"],)
    # start + i * delta in the output dtype: the very same values, no accumulated drift
    np.testing.assert_array_equal(got.numpy(), np.array(want["values"], dtype=want["dtype"]))


def test_range_errors_as_tensorflow():
    with pytest.raises(fe.errors.InvalidArgumentError, match="start <= limit"):
        fe.range(5, 1)
    with pytest.raises(fe.errors.InvalidArgumentError, match="start >= limit"):
        fe.range(0., 1., -0.1)
    with pytest.raises(fe.errors.InvalidArgumentError, match="delta must not be 0"):
        fe.range(0, 3, 0)
    assert fe.range(1, 1).shape == (0,)
    assert fe.range(np.float64(0.5), 3).dtype == fe.float64


@pytest.mark.parametrize("case", sorted(REF["boolean_mask"]))
def test_boolean_mask_numeric_masks(case):
    want = REF["boolean_mask"][case]
    masks = {"float": [1., 0., 2., -0.5], "int32": np.array([1, 0, 2, -1], np.int32),
             "int64": np.array([1, 0, 2, 0], np.int64),
             "uint8": np.array([1, 0, 2, 0], np.uint8), "python_ints": [1, 0, 3, 0],
             "float_nan": [np.nan, 0., 1., 0.]}
    mask = masks[case]
    got = fe.boolean_mask(fe.constant([1., 2., 3., 4.]),
                          mask if isinstance(mask, list) else fe.constant(mask))
    np.testing.assert_array_equal(got.numpy(), want["value"])


def test_boolean_mask_string_mask_is_refused():
    with pytest.raises(fe.errors.InvalidArgumentError, match="mask must be bool or numeric"):
        fe.boolean_mask(fe.constant([1., 2.]), fe.constant(["a", "b"]))


def test_device_context_object():
    want = REF["device"]
    with fe.device("/CPU:0") as d:
        assert repr(d) == want["as_binds"]          # TensorFlow binds None
    dev = fe.device("/CPU:0")
    assert dev._device_name == want["device_name"]
    assert fe.device("gpu:1")._device_name == want["gpu_name"]
    assert fe.device(None)._device_name == want["none_name"]
    assert hasattr(dev, "__dict__") == want["has_dict"]
    assert hasattr(dev, "name") == want["has_name"]
    # one object entered twice, nested, restores each level
    with dev:
        with dev:
            assert (fe.constant(1.) + 1).numpy() == 2.
    assert dev._stack == []


def test_float_list_to_int_dtype_loses_nothing():
    # (TensorFlow refuses it with TypeError; fasteager's class for a lossy conversion)
    with pytest.raises(fe.errors.InvalidArgumentError, match="without losing precision"):
        fe.constant([1.5, 2.0], fe.int32)
