"""Record Keras 3.15.1's keras.ops.linalg functions on the TensorFlow backend: values, dtypes,
shapes, error classes and gradients of sum(output), for the cases in ``cases()`` (shared
with tests/keras/ops/test_linalg.py, which runs them on fasteager).

Decompositions whose factors are unique only up to signs or order (eig, eigh's vectors, qr,
svd's u and v) are recorded through sign/order-free views: sorted eigenvalues, |vectors|,
products that rebuild the input.

Run from the repository root:
/work/tfenv/bin/python tests/tf_reference/record_kops_linalg.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _kops_cases import evaluate

RNG = None


def _f(shape, dtype="float32", lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def _spd(n, dtype="float32", batch=()):
    a = RNG.uniform(-1, 1, size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _tri(n, lower, dtype="float32"):
    a = RNG.uniform(-1, 1, size=(n, n)) + 3 * np.eye(n)
    return (np.tril(a) if lower else np.triu(a)).astype(dtype)


def _eig_view(out, N):
    w, v = (N(t) for t in out)
    order = np.lexsort((w.imag, w.real))
    vecs = np.abs(v[:, order])
    return w[order], vecs / np.linalg.norm(vecs, axis=0, keepdims=True)


def _eigh_view(out, N):
    w, v = (N(t) for t in out)
    return w, np.abs(v)


def _qr_view(out, N):
    q, r = (N(t) for t in out)
    return np.abs(r), np.abs(q), q @ r


def _svd_view(out, N):
    u, s, vh = (N(t) for t in out)
    k = s.shape[-1]
    rebuilt = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    return u.shape, s, vh.shape, rebuilt


def cases():
    global RNG
    RNG = np.random.RandomState(6)  # the same inputs in the recorder and in the test
    c = []

    def add(name, cid, fn, inputs, **opts):
        c.append((name, "%s:%s" % (name, cid), fn, list(inputs), opts))

    tol = 20  # LAPACK (fasteager) and Eigen (TensorFlow) round differently in float32
    sq = _f((3, 3)) + 2 * np.eye(3, dtype="float32")
    # cholesky / cholesky_inverse
    for dt in ["float32", "float64"]:
        add("cholesky", dt, lambda o, x: o.cholesky(x), [_spd(3, dt)], grad=True, tol=tol)
        add("cholesky", dt + "_upper", lambda o, x: o.cholesky(x, upper=True), [_spd(4, dt)],
            grad=True, tol=tol)
    add("cholesky", "batch", lambda o, x: o.cholesky(x), [_spd(3, "float64", (2,))], grad=True)
    add("cholesky", "not_pd", lambda o, x: o.cholesky(x),
        [np.array([[1.0, 2.0], [2.0, 1.0]], "float32")])
    add("cholesky", "not_square", lambda o, x: o.cholesky(x), [_f((2, 3))])
    add("cholesky", "rank1", lambda o, x: o.cholesky(x), [_f((3,))])
    for upper in [False, True]:
        add("cholesky_inverse", "upper%s" % upper,
            lambda o, x, u=upper: o.cholesky_inverse(x, upper=u), [_tri(3, not upper)],
            grad=True, tol=tol)
    add("cholesky_inverse", "f64", lambda o, x: o.cholesky_inverse(x),
        [_tri(4, True, "float64")], grad=True)
    add("cholesky_inverse", "not_square", lambda o, x: o.cholesky_inverse(x), [_f((2, 3))])
    # det / inv
    for dt in ["float32", "float64"]:
        add("det", dt, lambda o, x: o.det(x), [sq.astype(dt)], grad=True, tol=tol)
        add("inv", dt, lambda o, x: o.inv(x), [sq.astype(dt)], grad=True, tol=tol)
    add("det", "batch", lambda o, x: o.det(x), [_f((2, 2, 2), "float64")], grad=True)
    add("det", "not_square", lambda o, x: o.det(x), [_f((2, 3))])
    add("det", "rank1", lambda o, x: o.det(x), [_f((3,))])
    add("inv", "batch", lambda o, x: o.inv(x), [_spd(3, "float64", (2,))], grad=True)
    add("inv", "not_square", lambda o, x: o.inv(x), [_f((3, 2))])
    # eig / eigh
    nonsym = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 0.2, -1.0]])
    for dt in ["float32", "float64"]:
        add("eig", dt, lambda o, x: o.eig(x), [nonsym.astype(dt)], post=_eig_view, tol=tol)
        add("eigh", dt, lambda o, x: o.eigh(x), [_spd(4, dt)], post=_eigh_view, tol=tol)
        add("eigh", dt + "_values_grad", lambda o, x: o.eigh(x)[0], [_spd(3, dt)], grad=True,
            tol=tol)
    add("eig", "complex_pair", lambda o, x: o.eig(x),
        [np.array([[0.0, -1.0], [1.0, 0.0]], "float64")], post=_eig_view)
    add("eig", "not_square", lambda o, x: o.eig(x), [_f((2, 3))])
    add("eigh", "not_square", lambda o, x: o.eigh(x), [_f((2, 3))])
    # lu_factor
    lu_in = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5], [7.0, 8.5, 9.0]])
    for dt in ["float32", "float64"]:
        add("lu_factor", dt, lambda o, x: o.lu_factor(x), [lu_in.astype(dt)], tol=tol)
    add("lu_factor", "batch", lambda o, x: o.lu_factor(x), [_f((2, 3, 3), "float64")])
    add("lu_factor", "not_square", lambda o, x: o.lu_factor(x), [_f((2, 3))])
    add("lu_factor", "rank1", lambda o, x: o.lu_factor(x), [_f((3,))])
    # norm
    v = _f((5,))
    for ordv in [None, 1, 2, np.inf, -np.inf, 0, 3, -1, 0.5]:
        add("norm", "vec_ord%s" % ordv, lambda o, x, p=ordv: o.norm(x, ord=p), [v],
            grad=ordv != 0)
    m = _f((3, 4))
    for ordm in [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]:
        for kd in [False, True]:
            add("norm", "mat_ord%s_kd%s" % (ordm, kd),
                lambda o, x, p=ordm, k=kd: o.norm(x, ord=p, axis=(0, 1), keepdims=k), [m],
                grad=True, tol=tol)
    t3 = _f((2, 3, 4))
    add("norm", "axis_none_3d", lambda o, x: o.norm(x), [t3], grad=True)
    add("norm", "axis1_kd", lambda o, x: o.norm(x, axis=1, keepdims=True), [t3], grad=True)
    add("norm", "axis_-1_ord1", lambda o, x: o.norm(x, ord=1, axis=-1), [t3], grad=True)
    add("norm", "axes_2_0_inf", lambda o, x: o.norm(x, ord=np.inf, axis=(2, 0)), [t3],
        grad=True)
    add("norm", "axes_-1_-2_nuc", lambda o, x: o.norm(x, ord="nuc", axis=(-1, -2),
                                                      keepdims=True), [t3], grad=True, tol=tol)
    add("norm", "axes_1_0_ord1_kd", lambda o, x: o.norm(x, ord=1, axis=(1, 0),
                                                        keepdims=True), [t3], grad=True)
    for dt in ["int32", "int64", "float64", "float16", "bool", "uint8"]:
        add("norm", "dtype_" + dt, lambda o, x: o.norm(x),
            [(np.arange(6).reshape(2, 3) % 3).astype(dt)])
    add("norm", "bad_axis", lambda o, x: o.norm(x, axis=2), [m])
    add("norm", "three_axes", lambda o, x: o.norm(x, axis=(0, 1, 2)), [t3])
    add("norm", "vec_str_ord", lambda o, x: o.norm(x, ord="fro"), [v])
    add("norm", "mat_bad_ord", lambda o, x: o.norm(x, ord=3, axis=(0, 1)), [m])
    # qr
    for shape in [(4, 3), (3, 4), (3, 3)]:
        for mode in ["reduced", "complete"]:
            add("qr", "%dx%d_%s" % (shape + (mode,)), lambda o, x, md=mode: o.qr(x, mode=md),
                [_f(shape, "float64")], post=_qr_view)
    add("qr", "f32", lambda o, x: o.qr(x), [_f((4, 3))], post=_qr_view, tol=tol)
    add("qr", "bad_mode", lambda o, x: o.qr(x, mode="r"), [_f((3, 3))])
    # solve / solve_triangular
    for dt in ["float32", "float64"]:
        add("solve", dt + "_vec", lambda o, a, b: o.solve(a, b), [sq.astype(dt), _f((3,), dt)],
            grad=True, tol=tol)
        add("solve", dt + "_mat", lambda o, a, b: o.solve(a, b),
            [sq.astype(dt), _f((3, 2), dt)], grad=True, tol=tol)
    add("solve", "batch", lambda o, a, b: o.solve(a, b),
        [_spd(3, "float64", (2,)), _f((2, 3, 1), "float64")], grad=True)
    add("solve", "not_square", lambda o, a, b: o.solve(a, b), [_f((3, 2)), _f((3,))])
    add("solve", "mismatch", lambda o, a, b: o.solve(a, b), [sq, _f((4, 2))])
    add("solve", "mismatch_vec", lambda o, a, b: o.solve(a, b), [sq, _f((4,))])
    add("solve", "scalar_b", lambda o, a, b: o.solve(a, b), [sq, np.float32(1.0).reshape(())])
    for lower in [False, True]:
        for rhs in [(3,), (3, 2)]:
            add("solve_triangular", "lower%s_%d" % (lower, len(rhs)),
                lambda o, a, b, lw=lower: o.solve_triangular(a, b, lower=lw),
                [_tri(3, lower), _f(rhs)], grad=True, tol=tol)
    add("solve_triangular", "default_upper_f64", lambda o, a, b: o.solve_triangular(a, b),
        [_tri(4, False, "float64"), _f((4,), "float64")], grad=True)
    add("solve_triangular", "mismatch", lambda o, a, b: o.solve_triangular(a, b),
        [_tri(3, True), _f((2,))])
    # svd
    for shape in [(4, 3), (3, 4), (3, 3)]:
        for full in [True, False]:
            add("svd", "%dx%d_full%s" % (shape + (full,)),
                lambda o, x, fm=full: o.svd(x, full_matrices=fm), [_f(shape, "float64")],
                post=_svd_view)
    add("svd", "values_only", lambda o, x: o.svd(x, compute_uv=False), [_f((4, 3))],
        grad=True, tol=tol)
    add("svd", "values_only_f64_batch", lambda o, x: o.svd(x, compute_uv=False),
        [_f((2, 3, 5), "float64")], grad=True)
    add("svd", "f32", lambda o, x: o.svd(x, full_matrices=False), [_f((5, 3))],
        post=_svd_view, tol=tol)
    add("svd", "rank1", lambda o, x: o.svd(x), [_f((3,))])
    # lstsq
    a43 = _f((4, 3), "float64")
    add("lstsq", "vec", lambda o, a, b: o.lstsq(a, b), [a43, _f((4,), "float64")], grad=True)
    add("lstsq", "mat", lambda o, a, b: o.lstsq(a, b), [a43, _f((4, 2), "float64")], grad=True)
    add("lstsq", "f32", lambda o, a, b: o.lstsq(a, b), [_f((5, 2)), _f((5,))], grad=True,
        tol=tol)
    deficient = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    add("lstsq", "rank_deficient", lambda o, a, b: o.lstsq(a, b),
        [deficient, np.array([1.0, 2.0, 3.0])])
    add("lstsq", "rcond", lambda o, a, b: o.lstsq(a, b, rcond=0.5), [a43, _f((4,), "float64")])
    add("lstsq", "rcond_negative", lambda o, a, b: o.lstsq(a, b, rcond=-1.0),
        [a43, _f((4,), "float64")])
    add("lstsq", "lead_mismatch", lambda o, a, b: o.lstsq(a, b), [a43, _f((3,), "float64")])
    add("lstsq", "a_3d", lambda o, a, b: o.lstsq(a, b), [_f((4, 3, 2)), _f((4,))])
    add("lstsq", "b_3d", lambda o, a, b: o.lstsq(a, b), [_f((4, 3)), _f((4, 2, 2))])
    # matrix_rank / pinv
    add("matrix_rank", "full", lambda o, x: o.matrix_rank(x), [_f((3, 4))])
    add("matrix_rank", "deficient", lambda o, x: o.matrix_rank(x), [deficient])
    add("matrix_rank", "tol", lambda o, x: o.matrix_rank(x, tol=2.0), [_f((4, 4), "float64")])
    add("matrix_rank", "batch", lambda o, x: o.matrix_rank(x), [_f((2, 3, 3))])
    add("pinv", "tall", lambda o, x: o.pinv(x), [_f((4, 3), "float64")], grad=True)
    add("pinv", "wide_f32", lambda o, x: o.pinv(x), [_f((2, 4))], grad=True, tol=tol)
    add("pinv", "rcond", lambda o, x: o.pinv(x, rcond=0.5), [_f((3, 3), "float64")])
    add("pinv", "deficient", lambda o, x: o.pinv(x), [deficient])
    # empty inputs and Python scalars
    add("norm", "empty_vec", lambda o, x: o.norm(x), [np.zeros((0,), "float32")])
    add("norm", "py_list_int", lambda o: o.norm([[3, 4], [0, 0]]), [])
    add("norm", "py_list_axis", lambda o: o.norm([[3.0, 4.0], [6.0, 8.0]], axis=-1), [])
    add("det", "empty", lambda o, x: o.det(x), [np.zeros((0, 0), "float64")])
    add("inv", "int_input", lambda o, x: o.inv(x), [np.array([[2, 0], [0, 4]], "int32")])
    add("solve", "py_lists", lambda o: o.solve([[2.0, 0.0], [0.0, 4.0]], [1.0, 2.0]), [])
    # jvp
    add("jvp", "square", lambda o, x, t: o.jvp(lambda v: v * v * 3.0, (x,), (t,)),
        [_f((3,)), _f((3,))])
    add("jvp", "two_inputs", lambda o, x, y, t, u: o.jvp(lambda a, b: a * b + a, (x, y),
                                                         (t, u)),
        [_f((2, 2), "float64"), _f((2, 2), "float64"), _f((2, 2), "float64"),
         _f((2, 2), "float64")])
    add("jvp", "has_aux", lambda o, x, t: o.jvp(lambda v: (v * 2.0, v + 1.0), (x,), (t,),
                                                has_aux=True), [_f((3,)), _f((3,))])
    add("jvp", "dict_out", lambda o, x, t: o.jvp(lambda v: {"a": v * v, "b": v * 4.0}, (x,),
                                                 (t,)), [_f((2,)), _f((2,))])
    add("jvp", "tangent_cast", lambda o, x, t: o.jvp(lambda v: v * v, (x,), (t,)),
        [_f((3,), "float64"), _f((3,), "float32")])
    return c


def main():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras
    import tensorflow as tf
    from __init__ import save
    save("kops_linalg", {case[1]: evaluate(tf, keras.ops, case) for case in cases()})


if __name__ == "__main__":
    main()
