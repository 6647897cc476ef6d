"""What HIPS autograd's own test suite found missing in fasteager.numpy (see
tests/numpy/autograd_suite/run.py): complex input to the hyperbolic functions, exp2,
einsum, max/min (NumPy's order), svd, eigh and the nuclear norm; eigh reading one triangle;
batched eig's gradient; logaddexp's second derivative at a tie; NumPy casts to integers
under a tape. Gradients are checked against central differences at orders 1 and 2
(TensorFlow's convention for complex values: dL/dRe + i dL/dIm)."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp

RNG = np.random.default_rng(11)
EPS = 1e-6


def _cplx(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _grad(f, ts):
    with fe.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return tape.gradient(y, ts, unconnected_gradients="zero")


def _fd(f, xs):
    out = []
    for i, x in enumerate(xs):
        g = np.zeros_like(x)
        steps = (EPS, 1j * EPS) if np.iscomplexobj(x) else (EPS,)
        for k in np.ndindex(x.shape):
            for step in steps:
                hi = [v.copy() for v in xs]
                lo = [v.copy() for v in xs]
                hi[i][k] += step
                lo[i][k] -= step
                d = (float(f(*map(fe.constant, hi))) - float(f(*map(fe.constant, lo)))) / (
                    2 * EPS)
                g[k] += d if step == EPS else 1j * d
        out.append(g)
    return out


def check_grads(f, xs, order=2, rtol=1e-5, atol=1e-6):
    """f: tensors -> a real scalar. Its gradient, and at order 2 the gradient of
    Re <u, grad f>, against central differences."""
    xs = [np.asarray(x) for x in xs]
    for got, want in zip(_grad(f, list(map(fe.constant, xs))), _fd(f, xs)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)
    if order < 2:
        return
    us = [RNG.standard_normal(x.shape) * (1 + 1j if np.iscomplexobj(x) else 1) for x in xs]

    def h(*ts):
        gs = _grad(f, list(ts))
        return fe.add_n([fe.math.real(fe.reduce_sum(fe.constant(np.conj(u)) * g))
                         for u, g in zip(us, gs)])
    for got, want in zip(_grad(h, list(map(fe.constant, xs))), _fd(h, xs)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol * 10, atol=atol * 10)


def _re_sum(t, w):
    return fe.reduce_sum(fe.math.real(t * fe.constant(w)))


# ---- complex elementwise functions ------------------------------------------------------
@pytest.mark.parametrize("name", ["sinh", "cosh", "arcsinh", "arccosh", "arctanh", "exp2"])
def test_complex_unary_values_and_grads(name):
    z = _cplx(2, 3) * 0.7
    if name == "arccosh":
        z = z + 2.0         # away from the branch cut (-inf, 1]
    f = getattr(fnp, name)
    got = f(fnp.asarray(z))
    assert got.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(got), getattr(np, name)(z), rtol=1e-12)
    w = _cplx(2, 3)
    check_grads(lambda t: _re_sum(f(t), w), [z])
    # real input keeps its real gradient
    x = RNG.uniform(1.5, 2.5, (3,)) if name == "arccosh" else RNG.uniform(-0.8, 0.8, (3,))
    check_grads(lambda t: fe.reduce_sum(f(t) * np.array([1.0, -2.0, 0.5])), [x])


def test_complex_einsum_grads():
    a, b, w = _cplx(2, 3), _cplx(3, 4), _cplx(2, 4)
    got = fnp.einsum("ij,jk->ik", fnp.asarray(a), fnp.asarray(b))
    np.testing.assert_allclose(np.asarray(got), a @ b, rtol=1e-12)
    check_grads(lambda s, t: _re_sum(fnp.einsum("ij,jk->ik", s, t), w), [a, b])
    check_grads(lambda s: fe.math.real(fnp.einsum("ii->", s * s)), [_cplx(3, 3)])


def test_complex_max_min_in_numpys_order():
    z = np.array([[1 + 5j, 2 - 1j, 2 + 0.5j], [0 + 9j, -1 + 0j, 0 + 9j]])
    for fn in ("max", "min"):
        for axis in (None, 0, 1):
            got = getattr(fnp, fn)(fnp.asarray(z), axis=axis)
            np.testing.assert_array_equal(np.asarray(got), getattr(np, fn)(z, axis=axis))
    # the gradient goes to the chosen entry, split between ties (row 1 has two maxima)
    t = fe.constant(z)
    with fe.GradientTape() as tape:
        tape.watch(t)
        y = fe.math.real(fe.reduce_sum(fnp.max(t, axis=1)))
    np.testing.assert_allclose(np.asarray(tape.gradient(y, t)),
                               [[0, 0, 1], [0.5, 0, 0.5]])
    w = _cplx(3)
    check_grads(lambda s: _re_sum(fnp.min(s, axis=0), w), [_cplx(4, 3)])
    check_grads(lambda s: fe.math.real(fnp.max(s) * (1 - 2j)), [_cplx(2, 3)])


# ---- linalg -----------------------------------------------------------------------------
def test_matmul_adjoint_conjugates():
    a, b = _cplx(3, 2), _cplx(4, 2)
    got = fe.matmul(fe.constant(a), fe.constant(b), adjoint_b=True)
    np.testing.assert_allclose(got.numpy(), a @ b.conj().T, rtol=1e-12)
    got = fe.matmul(fe.constant(a), fe.constant(a), adjoint_a=True)
    np.testing.assert_allclose(got.numpy(), a.conj().T @ a, rtol=1e-12)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (2, 3, 3)])
def test_complex_svd_values_and_grads(shape):
    a = _cplx(*shape)
    u, s, vh = fnp.linalg.svd(fnp.asarray(a), full_matrices=False)
    assert s.dtype == np.float64 and u.dtype == vh.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(fnp.matmul(u * s[..., None, :], vh)), a, atol=1e-12)
    k = min(shape[-2:])
    ws, wu, wv = RNG.standard_normal(k), RNG.standard_normal((shape[-2], k)), \
        RNG.standard_normal((k, shape[-1]))

    # losses that do not depend on the singular vectors' phases
    def loss(t):
        u, s, vh = fnp.linalg.svd(t, full_matrices=False)
        return (fnp.sum(s * ws) + fnp.sum(fnp.abs(u) ** 2 * wu * s[..., None, :])
                + fnp.sum(fnp.abs(vh) * wv) + fnp.real(fnp.sum(fnp.matmul(u, vh)[..., :1, :])))
    check_grads(loss, [a])
    check_grads(lambda t: fnp.sum(fnp.linalg.svd(t, compute_uv=False) ** 3), [a])


def test_complex_nuclear_and_spectral_norms():
    a = _cplx(3, 4)
    for ord in ("nuc", 2, -2):
        got = fnp.linalg.norm(fnp.asarray(a), ord=ord)
        np.testing.assert_allclose(float(got), np.linalg.norm(a, ord=ord), rtol=1e-12)
    check_grads(lambda t: fnp.linalg.norm(t, ord="nuc"), [a])
    b = _cplx(2, 3, 3)
    np.testing.assert_allclose(
        np.asarray(fnp.linalg.norm(fnp.asarray(b), ord="nuc", axis=(1, 2))),
        np.linalg.norm(b, ord="nuc", axis=(1, 2)), rtol=1e-12)
    check_grads(lambda t: fnp.sum(fnp.linalg.norm(t, ord="nuc", axis=(-2, -1))), [b])


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("kind", ["real", "complex"])
def test_eigh_reads_one_triangle(uplo, kind):
    a = RNG.standard_normal((4, 4)) if kind == "real" else _cplx(4, 4)   # not symmetric
    w, v = fnp.linalg.eigh(fnp.asarray(a), UPLO=uplo)
    ref_w, ref_v = np.linalg.eigh(a, UPLO=uplo)
    assert w.dtype == np.float64
    np.testing.assert_allclose(np.asarray(w), ref_w, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.abs(np.asarray(v)), np.abs(ref_v), rtol=1e-8, atol=1e-10)
    wu = RNG.standard_normal((4, 4))

    def loss(t):
        w, v = fnp.linalg.eigh(t, UPLO=uplo)
        return fnp.sum(w ** 3) + fnp.sum(fnp.abs(v) * wu)
    t = fe.constant(a)
    g = np.asarray(_grad(loss, [t])[0])
    unread = np.triu(np.ones((4, 4)), 1) if uplo == "L" else np.tril(np.ones((4, 4)), -1)
    assert np.all(g[unread == 1] == 0)          # NumPy never reads that triangle
    check_grads(loss, [a])                      # perturbing the full matrix


def test_tf_eigh_of_complex_input():
    a = _cplx(3, 3)
    h = a + a.conj().T
    e, v = fe.linalg.eigh(fe.constant(h))
    assert e.dtype == fe.complex128            # TensorFlow's dtype for a complex input
    np.testing.assert_allclose(np.real(e.numpy()), np.linalg.eigvalsh(h), rtol=1e-10)


def test_batched_eig_grads():
    a = _cplx(3, 4, 4)
    wu = RNG.standard_normal((3, 4, 4))

    def loss(t):
        w, v = fnp.linalg.eig(t)
        return fnp.real(fnp.sum(w * (1 + 2j))) + fnp.sum(fnp.abs(v) * wu)
    check_grads(loss, [a], order=1)
    check_grads(lambda t: fnp.real(fnp.sum(fnp.linalg.eig(t)[0] ** 2)), [a[:2]])


# ---- logaddexp at a tie -----------------------------------------------------------------
@pytest.mark.parametrize("name,scale", [("logaddexp", 1.0), ("logaddexp2", np.log(2.0))])
def test_logaddexp_second_derivatives_at_a_tie(name, scale):
    f = getattr(fnp, name)
    x = fe.constant(np.array([0.3, -1.0, 2.0]))
    y = fe.constant(np.array([0.3, -1.0, 5.0]))
    with fe.GradientTape(persistent=True) as outer:
        outer.watch([x, y])
        with fe.GradientTape() as inner:
            inner.watch([x, y])
            out = fnp.sum(f(x, y))
        gx, gy = inner.gradient(out, [x, y])
    dxx, dxy = outer.gradient(gx, [x, y])
    # log(e^x + e^y): d/dx = s = sigmoid(x - y), d2/dx2 = s (1 - s) = -d2/dxdy (1/4 at a
    # tie); logaddexp2 is the same in units of log 2
    s = 1 / (1 + np.exp(-(np.array([0.3, -1.0, 2.0]) - [0.3, -1.0, 5.0]) * scale))
    np.testing.assert_allclose(np.asarray(gx), s, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(gy), 1 - s, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(dxx), s * (1 - s) * scale, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(dxy), -s * (1 - s) * scale, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(f(np.array([-np.inf, np.inf, 1000.0]),
                                            np.array([-np.inf, np.inf, 0.0]))),
                               getattr(np, name)([-np.inf, np.inf, 1000.0],
                                                 [-np.inf, np.inf, 0.0]))


# ---- casts to integers under a tape -----------------------------------------------------
def test_integer_casts_under_a_tape_are_constants():
    w = fnp.asarray(np.array([[1.0, 2.0, 0.0], [3.0, 4.0, 1.0]]))
    with fe.GradientTape() as tape:
        tape.watch(w)
        idx = np.int64(w[:, -1])               # NumPy's own cast: no gradient to lose
        assert idx.dtype == np.int64 and idx.tolist() == [0, 1]
        via_astype = w[:, -1].astype(int)
        assert np.asarray(via_astype).tolist() == [0, 1]
        y = fnp.sum(w[:, :-1][idx])
    np.testing.assert_allclose(np.asarray(tape.gradient(y, w)),
                               [[1, 1, 0], [1, 1, 0]])
    with fe.GradientTape() as tape:            # a float cast still refuses to drop it
        tape.watch(w)
        with pytest.raises(fe.errors.FailedPreconditionError):
            np.float64(w)


def test_iscomplexobj_isrealobj():
    assert fnp.iscomplexobj(fnp.asarray(1j)) and not fnp.isrealobj(fnp.asarray(1j))
    assert fnp.isrealobj(fnp.asarray([1.0])) and fnp.iscomplexobj([1j])


# ---- against TensorFlow (tests/tf_reference/record_complex_linalg.py) --------------------
def _unpack(d):
    return np.asarray(d["re"]) + 1j * np.asarray(d["im"])


def _tf_eigh_loss(x, w):
    e, v = fe.linalg.eigh(x)
    return fe.reduce_sum(fe.math.real(e) ** 3) + fe.reduce_sum(fe.abs(v) * w)


def _tf_svd_loss(x, w):
    s, u, v = fe.linalg.svd(x)
    return (fe.reduce_sum(s * w[0]) + fe.reduce_sum(fe.abs(u[..., :1, :]) ** 2)
            + fe.reduce_sum(fe.math.real(fe.matmul(u, v, adjoint_b=True)) * w[1]))


@pytest.mark.parametrize("case", ["eigh_real_nonsymmetric", "eigh_complex", "eigh_complex_batch",
                                  "svd_complex_square", "svd_complex_wide",
                                  "svd_complex_tall"])
def test_linalg_gradients_match_tensorflow(case):
    from tests.tf_reference import load
    ref = load("complex_linalg")[case]
    a = _unpack(ref["input"])
    if case == "eigh_real_nonsymmetric":
        a = a.real
    ws = [np.real(_unpack(w)) for w in ref["weights"]]
    x = fe.constant(a)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = _tf_eigh_loss(x, ws[0]) if case.startswith("eigh") else _tf_svd_loss(x, ws)
    np.testing.assert_allclose(float(y), ref["loss"], rtol=1e-10)
    want = _unpack(ref["grad"])
    np.testing.assert_allclose(np.asarray(tape.gradient(y, x)),
                               want.real if case == "eigh_real_nonsymmetric" else want,
                               rtol=1e-8, atol=1e-10)
    if case.startswith("eigh"):
        assert fe.linalg.eigh(x)[0].dtype.name == ref["eigenvalue_dtype"]


def test_matmul_adjoint_matches_tensorflow():
    from tests.tf_reference import load
    ref = load("complex_linalg")
    a, b = _unpack(ref["matmul_adjoint_b"]["a"]), _unpack(ref["matmul_adjoint_b"]["b"])
    np.testing.assert_allclose(fe.matmul(a, b, adjoint_b=True).numpy(),
                               _unpack(ref["matmul_adjoint_b"]["out"]), rtol=1e-12)
    a = _unpack(ref["matmul_adjoint_a"]["a"])
    np.testing.assert_allclose(fe.matmul(a, a, adjoint_a=True).numpy(),
                               _unpack(ref["matmul_adjoint_a"]["out"]), rtol=1e-12)
