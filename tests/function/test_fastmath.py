"""The vectorised float32 exp/log/tanh/sigmoid of the fused kernel (``_fastmath.h``),
against the correctly rounded result (float64 math rounded to float32) over random bit
patterns spanning the whole float32 range, dense samples of the interesting domain, and
the special values."""
import numpy as np
import pytest

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
    # fasteager's sigmoid, (tanh(x/2) + 1) / 2 in float32 steps, with a correctly
    # rounded tanh (NaN where x is)
    t = np.tanh((x * np.float32(0.5)).astype(np.float64)).astype(np.float32)
    return (t + np.float32(1)) * np.float32(0.5)


CASES = {
    "exp": (lambda x: np.exp(x.astype(np.float64)).astype(np.float32), (-110.0, 90.0)),
    "log": (lambda x: np.log(x.astype(np.float64)).astype(np.float32), (0.0, 10.0)),
    "tanh": (lambda x: np.tanh(x.astype(np.float64)).astype(np.float32), (-12.0, 12.0)),
    "sigmoid": (sigmoid_reference, (-30.0, 30.0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_within_one_ulp_of_correctly_rounded(name):
    reference, domain = CASES[name]
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2 ** 32, 400_000, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([bits.view(np.float32),
                        rng.uniform(*domain, 400_000).astype(np.float32), SPECIAL])
    with np.errstate(all="ignore"):
        want = reference(x)
    got = fused(name, x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    if name == "sigmoid":
        # the steps after its tanh (checked above) round as fasteager's eager sigmoid
        half = x * np.float32(0.5)
        steps = (fused("tanh", half) + np.float32(1)) * np.float32(0.5)
        np.testing.assert_array_equal(got, steps)
    else:
        assert ulps(got[ok], want[ok]).max() <= 1


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
