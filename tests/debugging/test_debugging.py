"""fe.debugging: assertions (InvalidArgumentError naming both values) and NaN/Inf checks."""
import numpy as np
import pytest

import fasteager as fe

Err = fe.errors.InvalidArgumentError


def test_assert_equal_and_shapes_vs_tuples():
    logits = fe.zeros((32, 10))
    fe.debugging.assert_equal(logits.shape, (32, 10))
    fe.debugging.assert_equal(fe.constant([1, 2]), [1, 2])
    fe.debugging.assert_equal(fe.constant([[1, 1]]), 1)   # broadcasting
    with pytest.raises(Err, match=r"assert_equal: condition x == y did not hold.*\[32, 10\]"
                                  r".*\[32, 11\]"):
        fe.debugging.assert_equal(logits.shape, (32, 11))
    with pytest.raises(ValueError, match="my message"):
        fe.debugging.assert_equal([1, 2], [1, 3], message="my message")
    with pytest.raises(Err, match="do not broadcast"):
        fe.debugging.assert_equal([1, 2], [1, 2, 3])


@pytest.mark.parametrize("fn,good,bad", [
    (fe.debugging.assert_less, ([1, 2], [2, 3]), ([1, 2], [2, 2])),
    (fe.debugging.assert_greater, ([3], [2]), ([2], [2])),
    (fe.debugging.assert_less_equal, ([2, 2], [2, 3]), ([3], [2])),
    (fe.debugging.assert_greater_equal, ([2], [2]), ([1], [2])),
    (fe.debugging.assert_none_equal, ([1], [2]), ([2], [2])),
])
def test_comparisons(fn, good, bad):
    assert fn(*good) is None
    with pytest.raises(Err, match=fn.__name__):
        fn(*bad)


def test_sign_asserts():
    fe.debugging.assert_positive([1.0, 2.0])
    fe.debugging.assert_non_negative([0, 2])
    with pytest.raises(Err, match="assert_negative"):
        fe.debugging.assert_negative([-1.0, 0.0])


def test_assert_near():
    x = fe.constant([1.0, 2.0])
    fe.debugging.assert_near(x, x + 1e-7)
    fe.debugging.assert_near(x, x + 0.01, atol=0.02)
    fe.debugging.assert_near(x, x * 1.01, rtol=0.02, atol=0.0)
    with pytest.raises(Err, match="assert_near.*rtol"):
        fe.debugging.assert_near(x, x + 1e-3)


def test_assert_rank_and_type():
    fe.debugging.assert_rank(fe.zeros((2, 3)), 2)
    fe.debugging.assert_rank_at_least(fe.zeros((2, 3)), 1)
    with pytest.raises(Err, match=r"assert_rank: .*expected rank 3, got rank 2"):
        fe.debugging.assert_rank(fe.zeros((2, 3)), 3)
    fe.debugging.assert_type(fe.zeros(2), fe.float32)
    with pytest.raises(Err, match="assert_type"):
        fe.debugging.assert_type(fe.zeros(2), fe.int32)


def test_assert_shapes():
    x, y = fe.zeros([10, 3]), fe.ones([10, 7])
    param = fe.Variable([1.0, 2.0, 3.0])
    fe.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N", "D")), (param, ("Q",)),
                                (1.0, ())])
    fe.debugging.assert_shapes({x: (10, None), y: (".", 7)})
    fe.debugging.assert_shapes([(fe.zeros([2, 5, 3]), (..., "Q")), (x, ("*", "Q"))])
    with pytest.raises(Err, match="assert_shapes: tensor 1, dimension 1 does not match 'Q'"):
        fe.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N", "Q"))])
    with pytest.raises(Err, match="assert_shapes: tensor 0 has the wrong rank"):
        fe.debugging.assert_shapes([(x, ("N",))])
    with pytest.raises(Err, match="expected 4, got 10"):
        fe.debugging.assert_shapes([(x, (4, 3))])


def test_check_numerics():
    x = fe.constant([1.0, 2.0])
    assert fe.debugging.check_numerics(x, "ok") is x
    with pytest.raises(Err, match="bad values : Tensor had NaN"):
        fe.debugging.check_numerics(fe.constant([1.0, np.nan]), "bad values")
    with pytest.raises(Err, match="Inf"):
        fe.debugging.assert_all_finite(fe.constant([np.inf]), "inf check")


def test_enable_check_numerics_names_the_op():
    fe.debugging.enable_check_numerics()
    try:
        with pytest.raises(Err, match="op log produced"):
            fe.math.log(fe.constant([-1.0]))
        with pytest.raises(Err, match="op truediv produced Inf"):
            fe.constant([1.0]) / fe.constant([0.0])
    finally:
        fe.debugging.disable_check_numerics()
    assert np.isnan(fe.math.log(fe.constant([-1.0])).numpy()).all()
