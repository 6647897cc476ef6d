"""Complex dtypes through the op table and fasteager.numpy.

Values against NumPy; gradients by TensorFlow's convention (the gradient of a real loss L
at z = x + iy is dL/dx + i dL/dy) against central finite differences on the real and the
imaginary parts, at orders 1 and 2 (order 2 differentiates h(z) = <u, grad L(z)>, the
real inner product, through the recorded backward pass).
"""
import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp

RNG = np.random.default_rng(3)
Z = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
W = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
M = RNG.standard_normal((3, 2)) + 1j * RNG.standard_normal((3, 2))
EPS = 1e-6


def _grad(f, zs):
    ts = [fe.constant(z) for z in zs]
    with fe.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return tape.gradient(y, ts, unconnected_gradients="zero")


def _fd(f, zs):
    """dL/dx + i dL/dy by central differences, per complex input."""
    out = []
    for i, z in enumerate(zs):
        g = np.zeros_like(z)
        for k in np.ndindex(z.shape):
            parts = []
            for step in (EPS, 1j * EPS):
                hi = [v.copy() for v in zs]
                lo = [v.copy() for v in zs]
                hi[i][k] += step
                lo[i][k] -= step
                parts.append((float(f(*[fe.constant(v) for v in hi]))
                              - float(f(*[fe.constant(v) for v in lo]))) / (2 * EPS))
            g[k] = parts[0] + 1j * parts[1]
        out.append(g)
    return out


def check_complex_grads(f, zs, order=2, rtol=1e-5, atol=1e-6):
    zs = [np.asarray(z, dtype=np.complex128) for z in zs]
    for got, want in zip(_grad(f, zs), _fd(f, zs)):
        assert got.dtype == fe.complex128
        np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol)
    if order >= 2:
        us = [RNG.standard_normal(z.shape) + 1j * RNG.standard_normal(z.shape) for z in zs]

        def h(*ts):
            grads = _grad_inner(f, ts)
            return fe.add_n([fe.math.real(fe.reduce_sum(fe.math.conj(fe.constant(u)) * g))
                             for u, g in zip(us, grads)])
        for got, want in zip(_grad(h, zs), _fd(h, zs)):
            np.testing.assert_allclose(got.numpy(), want, rtol=rtol * 10, atol=atol * 10)


def _grad_inner(f, ts):
    with fe.GradientTape() as tape:
        tape.watch(list(ts))
        y = f(*ts)
    return tape.gradient(y, list(ts), unconnected_gradients="zero")


def _re(t):
    return fe.math.real(t)


LOSSES = [
    ("add_sub", lambda z, w: fe.reduce_sum(_re((z + w) * fe.math.conj(z - w)))),
    ("multiply", lambda z, w: fe.reduce_sum(_re(z * w * z))),
    ("divide", lambda z, w: fe.reduce_sum(fe.math.imag(z / (w + 3)))),
    ("pow", lambda z, w: fe.reduce_sum(_re(fe.pow(z + 3, w * 0.3)))),
    ("square_reciprocal", lambda z, w: fe.reduce_sum(_re(fe.square(z) + fe.math.reciprocal(w)))),
    ("exp_log", lambda z, w: fe.reduce_sum(_re(fe.exp(z) + fe.math.log(w)))),
    ("expm1_log1p", lambda z, w: fe.reduce_sum(fe.math.imag(fe.math.expm1(z)
                                                            * fe.math.log1p(w + 2)))),
    ("sqrt", lambda z, w: fe.reduce_sum(_re(fe.sqrt(z) * fe.math.conj(fe.sqrt(w))))),
    ("abs", lambda z, w: fe.reduce_sum(fe.abs(z) * fe.abs(w - z))),
    ("angle", lambda z, w: fe.reduce_sum(fe.math.angle(z) * fe.math.angle(w))),
    ("real_imag_conj", lambda z, w: fe.reduce_sum(fe.math.real(z) * fe.math.imag(w)
                                                  + _re(fe.math.conj(z) * w))),
    ("trig", lambda z, w: fe.reduce_sum(_re(fe.sin(z) * fe.cos(w) + fe.tanh(z) * fe.tan(w)))),
    ("matmul", lambda z, w: fe.reduce_sum(_re(fe.matmul(z, fe.linalg.adjoint(w))))),
    ("matmul_t", lambda z, w: fe.reduce_sum(fe.abs(fe.matmul(z, w, transpose_b=True)))),
    ("sum_mean_prod", lambda z, w: _re(fe.reduce_sum(z * w, axis=0)[0]
                                       + fe.reduce_mean(z) * fe.reduce_prod(w))),
    ("cumsum_cumprod", lambda z, w: fe.reduce_sum(_re(fe.cumsum(z, axis=1)
                                                      * fe.math.cumprod(w, axis=1)))),
    ("where_concat", lambda z, w: fe.reduce_sum(_re(fe.where(fe.abs(z) > 1, z, w)
                                                    * fe.concat([w, z], 0)[1:3]))),
    ("cast_mixed", lambda z, w: fe.reduce_sum(_re(z * fe.cast(fe.math.real(w), fe.complex128)))),
]


@pytest.mark.parametrize("name,f", LOSSES, ids=[n for n, _ in LOSSES])
def test_complex_gradients_match_finite_differences(name, f):
    check_complex_grads(f, [Z, W])


def test_gradient_convention_is_tensorflows():
    # d|z|^2 = 2z (TensorFlow); autograd's grad is its conjugate, 2 conj(z)
    (g,) = _grad(lambda z: fe.reduce_sum(fe.math.real(z * fe.math.conj(z))), [Z])
    np.testing.assert_allclose(g.numpy(), 2 * Z)
    # a real input feeding complex ops gets the real part
    x = fe.constant(np.array([0.5, -1.0]))
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(fe.math.imag(fe.exp(fe.complex(x, x * 2))))
    dx = tape.gradient(y, x)
    assert dx.dtype == fe.float64
    xv = x.numpy()
    want = np.exp(xv) * (np.sin(2 * xv) + 2 * np.cos(2 * xv))
    np.testing.assert_allclose(dx.numpy(), want)


def test_complex_matmul_inverse_solve_det():
    sq = M[:2] + 3 * np.eye(2)
    rhs = np.ascontiguousarray(M.T)
    check_complex_grads(lambda a, b: fe.reduce_sum(fe.abs(fe.matmul(fe.linalg.inv(a), b))),
                        [sq, rhs])
    check_complex_grads(lambda a, b: fe.reduce_sum(fe.abs(fe.linalg.solve(a, b))), [sq, rhs])
    check_complex_grads(lambda a, b: fe.reduce_sum(fe.math.imag(
        fe.linalg.solve(a, b, adjoint=True))), [sq, rhs])
    check_complex_grads(lambda a: fe.math.real(fe.reduce_sum(fe.linalg.det(a))), [sq])
    np.testing.assert_allclose(fe.linalg.solve(sq, rhs, adjoint=True).numpy(),
                               np.linalg.solve(sq.conj().T, rhs))


def test_fnp_promotes_to_complex_as_numpy():
    x32 = RNG.standard_normal(3).astype(np.float32)
    cases = [
        (lambda xp: xp.add(x32, 1j), None),
        (lambda xp: xp.multiply(x32, Z[0].astype(np.complex64)), None),
        (lambda xp: xp.exp(Z), None),
        (lambda xp: xp.sqrt(Z) * 2, None),
        (lambda xp: xp.abs(Z), None),
        (lambda xp: xp.angle(Z, deg=True), None),
        (lambda xp: xp.real(Z) + xp.imag(Z), None),
        (lambda xp: xp.conj(Z), None),
        (lambda xp: xp.conjugate(Z.astype(np.complex64)), None),
        (lambda xp: xp.dot(Z, M), None),
        (lambda xp: xp.matmul(Z, W.T), None),
        (lambda xp: xp.vdot(Z, W), None),
        (lambda xp: xp.sum(Z, axis=0), None),
        (lambda xp: xp.mean(Z), None),
        (lambda xp: xp.prod(Z, axis=1), None),
        (lambda xp: xp.cumsum(Z), None),
        (lambda xp: xp.var(Z, axis=1), None),
        (lambda xp: xp.std(Z, ddof=1), None),
        (lambda xp: xp.power(Z, 2.5), None),
        (lambda xp: xp.log(Z) - xp.sin(Z), None),
        (lambda xp: xp.linalg.norm(Z), None),
        (lambda xp: xp.linalg.norm(Z, 1), None),
        (lambda xp: xp.where(xp.abs(Z) > 1, Z, 0), None),
        (lambda xp: xp.fft.fft(Z) + xp.fft.ifft2(Z), None),
        (lambda xp: xp.array([1 + 2j, 3]), None),
        (lambda xp: xp.linalg.inv(M[:2] + 3 * np.eye(2)), None),
        (lambda xp: xp.linalg.det(M[:2] + 3 * np.eye(2)), None),
        (lambda xp: xp.linalg.solve(M[:2] + 3 * np.eye(2), Z), None),
        (lambda xp: xp.linalg.solve(M[:2] + 3 * np.eye(2), Z[:, 0]), None),
    ]
    for fn, _ in cases:
        got, want = fn(fnp), np.asarray(fn(np))
        assert np.asarray(got).dtype == want.dtype, (np.asarray(got).dtype, want.dtype)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


def test_fnp_complex_program_gradient():
    # a real loss written with fasteager.numpy on complex parameters: |FFT(z) * w|^2 + ...
    def loss(z):
        spec = fnp.fft.fft(z * W[0])
        return (fnp.sum(fnp.abs(spec) ** 2) + fnp.real(fnp.vdot(z, z)) + fnp.sum(fnp.angle(z))
                + fnp.var(z))
    check_complex_grads(loss, [Z[1]])


def test_complex_ops_reject_what_has_no_complex_meaning():
    z = fe.constant(Z)
    with pytest.raises(fe.errors.InvalidArgumentError, match="maximum"):
        fe.maximum(z, z)
    with pytest.raises(fe.errors.InvalidArgumentError, match="cholesky"):
        fnp.linalg.cholesky(M[:2] + 3 * np.eye(2))
    with pytest.raises(fe.errors.InvalidArgumentError, match="erf"):
        fe.math.erf(z)
    with pytest.raises(fe.errors.InvalidArgumentError, match="complex"):
        fe.complex(fe.constant([1.0]), fe.constant([1.0], dtype=fe.float64))
    # (the nuclear norm of a complex matrix is defined: see test_autograd_suite_gaps.py)
    np.testing.assert_allclose(float(fnp.linalg.norm(Z, "nuc")), np.linalg.norm(Z, "nuc"))


def test_tensor_real_imag_conj_attributes():
    import fasteager as fe
    z = fe.constant(np.array([1 + 2j, 3 - 1j], np.complex64))
    np.testing.assert_array_equal(z.real.numpy(), [1, 3])
    np.testing.assert_array_equal(z.imag.numpy(), [2, -1])
    np.testing.assert_array_equal(z.conj().numpy(), [1 - 2j, 3 + 1j])
    np.testing.assert_array_equal(z.conjugate().numpy(), z.conj().numpy())
    x = fe.constant([1.0, 2.0])
    assert x.real is x and x.conj() is x
    np.testing.assert_array_equal(x.imag.numpy(), [0, 0])
    with fe.GradientTape() as tape:                    # |z|^2: gradient 2z (TF's rule)
        tape.watch(z)
        loss = fe.reduce_sum(z.real * z.real + z.imag * z.imag)
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), 2 * z.numpy())
