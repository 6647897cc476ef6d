"""Ops that gave other answers than TensorFlow 2.21 (found while building keras.ops), checked
against values recorded from the real thing (tests/tf_reference/record_op_mismatches.py)."""
import numpy as np
import pytest

import fasteager as fe
from fasteager.errors import InvalidArgumentError
from tests.tf_reference import load

REF = load("op_mismatches")


def _floats(values):
    return np.array([float(v) for v in values], np.float64)


@pytest.mark.parametrize("name", sorted(REF["angle"]))
def test_angle_of_real_input_is_pi_for_negatives(name):
    # atan2(x * 0, x) gave -pi for x < 0 (x * 0 is -0.0 there); TF gives pi, and 0 for NaN
    if not hasattr(fe, name):
        pytest.skip(f"no {name} in fasteager")
    ref = REF["angle"][name]
    x = fe.constant(_floats(REF["angle_in"]), getattr(fe, name))
    out = fe.math.angle(x)
    assert out.dtype.name == ref["dtype"]
    np.testing.assert_array_equal(out.numpy().astype(np.float64), _floats(ref["values"]))


def test_angle_of_integers_is_a_type_error():
    assert REF["angle_int32"] == "TypeError"
    with pytest.raises(TypeError, match="angle"):
        fe.math.angle(fe.constant([-1, 2]))


@pytest.mark.parametrize("name", sorted(REF["round"]))
def test_round_returns_integers_unchanged(name):
    ref = REF["round"][name]
    out = fe.round(fe.constant(ref["in"], getattr(fe, name)))
    assert out.dtype.name == ref["dtype"]
    assert out.numpy().tolist() == ref["values"]


@pytest.mark.parametrize("name", sorted(REF["shifts"]))
def test_shifts_clamp_the_amount_as_tensorflow(name):
    ref = REF["shifts"][name]
    dt = getattr(fe, name)
    x, y = fe.constant(ref["x"], dt), fe.constant(ref["y"], dt)
    assert fe.bitwise.left_shift(x, y).numpy().tolist() == ref["left"]
    assert fe.bitwise.right_shift(x, y).numpy().tolist() == ref["right"]


def test_bincount_axis_minus_one_takes_1d_input():
    ref = REF["bincount_1d"]
    arr = fe.constant(ref["arr"])
    b = fe.math.bincount
    assert b(arr, axis=-1).numpy().tolist() == ref["plain"]
    assert b(arr, axis=-1, minlength=8).numpy().tolist() == ref["minlength"]
    assert b(arr, axis=-1, maxlength=2).numpy().tolist() == ref["maxlength"]
    assert b(arr, axis=-1, binary_output=True).numpy().tolist() == ref["binary"]
    w = fe.constant([1., 2., 3., 4., 5.])
    assert b(arr, axis=-1, weights=w).numpy().tolist() == ref["weights"]


def test_repeat_out_of_range_axis_raises_tensorflows_class():
    x = fe.constant([[1, 2], [3, 4]])
    for ax, cls in REF["repeat_axis"].items():
        with pytest.raises(Exception) as info:
            fe.repeat(x, 2, axis=int(ax))
        assert type(info.value).__name__ == cls
        assert "repeat" in str(info.value) and "axis" in str(info.value)
    assert fe.repeat(x, 2, axis=-2).numpy().tolist() == REF["repeat_axis_ok"]
    # a scalar repeats as a 1-D tensor along axis 0 or -1; axis 1 is out of range
    for ax, values in REF["repeat_scalar"].items():
        assert fe.repeat(fe.constant(3), 2, axis=int(ax)).numpy().tolist() == values
    assert REF["repeat_scalar_axis_1"] == "ValueError"
    with pytest.raises(ValueError, match="repeat"):
        fe.repeat(fe.constant(3), 2, axis=1)


def test_meshgrid_refuses_mixed_dtypes():
    ref = REF["meshgrid"]
    cases = {
        "int32_float32": lambda: fe.meshgrid(fe.constant([1, 2]), fe.constant([1., 2.])),
        "int32_int64": lambda: fe.meshgrid(fe.constant([1, 2]), fe.constant([1, 2], fe.int64)),
        "float64_pylist": lambda: fe.meshgrid(fe.constant([1., 2.], fe.float64), [1., 2.]),
        "float32_pylist": lambda: fe.meshgrid(fe.constant([1., 2.]), [1., 2.]),
        "int_float_pylists": lambda: fe.meshgrid([1, 2], [1., 2.]),
        "same_three": lambda: fe.meshgrid([1., 2.], [3.], [4., 5., 6.]),
    }
    assert sorted(cases) == sorted(ref)
    for key, fn in cases.items():
        if ref[key] is None:
            fn()
        else:
            assert ref[key] == "InvalidArgumentError"
            with pytest.raises(InvalidArgumentError, match="meshgrid"):
                fn()


def test_numpy_angle_of_real_input_follows_numpy():
    # fe.numpy follows NumPy (arctan2(+0, x)), not TF: pi for -0.0, NaN for NaN
    import fasteager.numpy as fnp
    for dt in (np.float32, np.float64):
        x = np.array([-1.0, -0.0, 0.0, 2.0, np.nan, -np.inf], dt)
        np.testing.assert_array_equal(fnp.angle(x).numpy(), np.angle(x))
    np.testing.assert_array_equal(fnp.angle(np.array([-3, 2])).numpy(),
                                  np.angle(np.array([-3, 2])))
