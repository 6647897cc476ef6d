"""The vectorised float32 exp/log/tanh/sigmoid of the fused kernel (``_fastmath.h``, also
fe.sigmoid's eager float32 kernel), against the correctly rounded result (float64 math
rounded to float32) over random bit patterns spanning the whole float32 range, dense
samples of the interesting domain, and the special values."""
import numpy as np
import pytest

import fasteager as fe
from fasteager import _graph

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38,
                    88.72, 88.7228, 88.73, -87.3, -103.9, -103.98, -104.0, 0.625, -0.625,
                    0.62499994, 1.0, -1.0, 2.0, 0.5, 1e30, -1e30], np.float32)


def fused(name, x):
    code = np.array([[_graph.OPCODES[name], 0, 0, 1]], np.int32)
    return _graph.Fused(code, 1, [], 2, np.float32, x.shape, (x.shape,)).run([x])


def ulps(a, b):
    """Distance in float32 units in the last place (0 between +0 and -0)."""
    def ordered(v):
        i = v.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return np.abs(ordered(a) - ordered(b))


def sigmoid_reference(x):
    # the float64 logistic function rounded once to float32 (exp(-x) overflowing to inf
    # gives the right 0)
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)


# name -> (correctly rounded reference, dense domain, ulps allowed)
CASES = {
    "exp": (lambda x: np.exp(x.astype(np.float64)).astype(np.float32), (-110.0, 90.0), 1),
    "log": (lambda x: np.log(x.astype(np.float64)).astype(np.float32), (0.0, 10.0), 1),
    "tanh": (lambda x: np.tanh(x.astype(np.float64)).astype(np.float32), (-12.0, 12.0), 1),
    # the whole range, negatives included: the dense domain reaches through the subnormal
    # results (x < -87.3) to 0 (x < -103.97)
    "sigmoid": (sigmoid_reference, (-110.0, 30.0), 3),
}


def sweep(domain):
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2 ** 32, 400_000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([bits.view(np.float32),
                           rng.uniform(*domain, 400_000).astype(np.float32), SPECIAL])


@pytest.mark.parametrize("name", sorted(CASES))
def test_within_a_few_ulp_of_correctly_rounded(name):
    # ulps() counts the float32 values between result and reference, so it is a relative
    # error for normal results and, in the subnormal tail, where the float32 spacing stops
    # shrinking, an absolute one with the floor 2^-149 (one subnormal step) per ulp
    reference, domain, allowed = CASES[name]
    x = sweep(domain)
    with np.errstate(all="ignore"):
        want = reference(x)
    got = fused(name, x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert ulps(got[ok], want[ok]).max() <= allowed


def test_eager_float32_sigmoid_is_the_fused_one():
    # fe.sigmoid on float32 runs the same loop: bitwise the fused results
    x = sweep(CASES["sigmoid"][1])
    np.testing.assert_array_equal(fe.sigmoid(fe.constant(x)).numpy(), fused("sigmoid", x))


def test_sigmoid_negative_tail_is_accurate():
    # (1 + tanh(x/2)) / 2 cancelled here: 4.5389e-05 at -10 (200 ulp off)
    x = np.float32([-10.0, -20.0, -50.0, -87.0, -88.0, -100.0])
    want = sigmoid_reference(x)
    for got in (fused("sigmoid", x), fe.sigmoid(fe.constant(x)).numpy()):
        assert ulps(got, want).max() <= 1
    np.testing.assert_array_equal(fused("sigmoid", np.float32([-104.0, -np.inf, np.inf])),
                                  [0, 0, 1])
    x64 = np.array([-10.0, -40.0, -700.0])
    np.testing.assert_allclose(fe.sigmoid(fe.constant(x64)).numpy(),
                               np.exp(x64) / (1 + np.exp(x64)), rtol=1e-15)


def test_special_values_follow_c99():
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(fused("exp", SPECIAL[:5]), [1, 1, np.inf, 0, np.nan])
        np.testing.assert_array_equal(fused("log", SPECIAL[:5]),
                                      [-np.inf, -np.inf, np.inf, np.nan, np.nan])
        np.testing.assert_array_equal(fused("tanh", SPECIAL[:5]), [0, -0.0, 1, -1, np.nan])
    assert np.signbit(fused("tanh", SPECIAL[:2]))[1]
    top = np.float32([88.72, 88.7228])           # the largest finite results
    assert ulps(fused("exp", top), np.exp(top.astype(np.float64)).astype(np.float32)).max() <= 1
    # exp underflows through the subnormals, as libm does
    sub = np.float32([-90.0, -100.0, -103.0])
    np.testing.assert_array_equal(fused("exp", sub),
                                  np.exp(sub.astype(np.float64)).astype(np.float32))
    assert np.isnan(fused("log", np.float32([-1e-45, -1.0]))).all()
    tiny = np.float32([1e-45, 1e-40])          # subnormal inputs
    np.testing.assert_array_equal(fused("log", tiny),
                                  np.log(tiny.astype(np.float64)).astype(np.float32))
