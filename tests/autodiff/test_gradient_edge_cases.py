"""Gradients that were wrong (issue 17, item 4), in reverse and forward mode: std at zero
variance, power(x, 0.) at x = 0, linspace in its end points."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp
from tests.gradcheck import check_grads


def _both_modes(f, x):
    """(reverse gradient, forward JVP along ones) of scalar-summed f at x."""
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(f(x))
    with fe.autodiff.ForwardAccumulator(x, fe.ones_like(x)) as acc:
        z = fe.reduce_sum(f(x))
    return tape.gradient(y, x).numpy(), float(acc.jvp(z))


def test_std_gradient_is_zero_where_the_variance_is_zero():
    x = fnp.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    grad, jvp = _both_modes(lambda t: fnp.std(t, axis=1), x)
    assert np.all(np.isfinite(grad)) and grad[0].tolist() == [0.0, 0.0, 0.0]
    row = np.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(grad[1], (row - row.mean()) / (3 * row.std()))
    assert jvp == pytest.approx(grad.sum())
    # elsewhere std is unchanged: values (NaN stays NaN) and gradients to order 2
    assert np.isnan(float(fnp.std(fnp.array([1.0, np.nan]))))
    check_grads(lambda t: fnp.std(t, axis=0, ddof=1), [np.array([[1.0, 2.0], [3.0, 5.0]])])


def test_power_zero_exponent_at_zero_has_gradient_zero():
    x = fe.constant([0.0, 2.0, -1.5], dtype=fe.float64)
    grad, jvp = _both_modes(lambda t: fe.pow(t, 0.0), x)
    assert grad.tolist() == [0.0, 0.0, 0.0] and jvp == 0.0
    grad, _ = _both_modes(lambda t: fnp.power(t, 0.0), fnp.array([0.0, 1.0]))
    assert grad.tolist() == [0.0, 0.0]
    # other exponents keep y x^(y-1), also at x = 0
    grad, _ = _both_modes(lambda t: fe.pow(t, 2.0), x)
    assert grad.tolist() == [0.0, 4.0, -3.0]


@pytest.mark.parametrize("linspace", [
    lambda a, b: fe.linspace(a, b, 5),
    lambda a, b: fnp.linspace(a, b, 4, endpoint=False),
    lambda a, b: fnp.linspace(a, b, 3, axis=-1),
])
def test_linspace_is_differentiable_in_its_end_points(linspace):
    a = np.array([0.5, -1.0])
    b = np.array([2.0, 3.0])
    check_grads(lambda s, t: linspace(s, t) ** 2, [a, b])
    ones, zeros = (fe.constant(v, dtype=fe.float64) for v in ([1.0, 1.0], [0.0, 0.0]))
    primals = (fe.constant(a), fe.constant(b))
    _, t = fe.autodiff.jvp(linspace, primals, (ones, ones))
    np.testing.assert_allclose(t.numpy(), 1.0)      # moving both ends moves every point
    _, t_start = fe.autodiff.jvp(linspace, primals, (ones, zeros))
    _, t_stop = fe.autodiff.jvp(linspace, primals, (zeros, ones))
    assert np.all(t_stop.numpy() >= 0) and np.all(t_stop.numpy() < 1 + 1e-12)
    np.testing.assert_allclose(t_start.numpy() + t_stop.numpy(), 1.0)


def test_linspace_values_equal_numpys():
    for args in [(0.0, 1.0, 5), (2.0, -1.0, 4), (0.0, 1.0, 1), (0.0, 1.0, 0), (3.0, 3.0, 3)]:
        got = fe.linspace(fe.constant(args[0], dtype=fe.float64), args[1], args[2])
        assert np.array_equal(got.numpy(), np.linspace(*args))
    start, stop = np.array([0.0, 1.0]), np.array([1.0, 7.0])
    for kw in [{}, {"endpoint": False}, {"axis": 1}, {"num": 7}]:
        got = fnp.linspace(fnp.array(start), fnp.array(stop), **{"num": 5, **kw})
        assert np.array_equal(got.numpy(), np.linspace(start, stop, **{"num": 5, **kw}))
    assert fnp.linspace(fnp.array(np.float32(0)), np.float32(1), 3).dtype == np.float32
    with pytest.raises(fe.errors.InvalidArgumentError, match="num must be non-negative"):
        fe.linspace(fe.constant(0.0), 1.0, -1)
