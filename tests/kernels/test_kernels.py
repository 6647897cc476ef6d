"""Tests of the array-level CPU kernels in fasteager._kernels against plain NumPy loops."""
import math

import numpy as np
import pytest

from fasteager import _kernels as K

DTYPES = [np.float32, np.float64]
TOL = {np.float32: dict(rtol=2e-5, atol=2e-5), np.float64: dict(rtol=1e-11, atol=1e-11)}


# ----------------------------------------------------------------------------------------
# references
# ----------------------------------------------------------------------------------------

def ref_axis(n, k, s, d, padding):
    """TF's output size and padding for one axis, written independently of the kernel."""
    ke = (k - 1) * d + 1
    if padding == "VALID":
        return math.ceil((n - ke + 1) / s), 0, 0
    out = math.ceil(n / s)
    total = max((out - 1) * s + ke - n, 0)
    return out, total // 2, total - total // 2


def ref_pad(x, s, k, d, padding, value=0.0):
    (oh, pt, pb), (ow, pl, pr) = (ref_axis(x.shape[1], k[0], s[0], d[0], padding),
                                  ref_axis(x.shape[2], k[1], s[1], d[1], padding))
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=value)
    return xp, oh, ow, pt, pl


def ref_conv(x, w, s, padding, d):
    KH, KW, _, O = w.shape
    xp, OH, OW, _, _ = ref_pad(x.astype(np.float64), s, (KH, KW), d, padding)
    y = np.zeros((x.shape[0], OH, OW, O))
    for oh in range(OH):
        for ow in range(OW):
            for kh in range(KH):
                for kw in range(KW):
                    y[:, oh, ow] += xp[:, oh * s[0] + kh * d[0], ow * s[1] + kw * d[1]] @ w[kh, kw]
    return y


def ref_conv_grads(x, w, dy, s, padding, d):
    KH, KW, _, _ = w.shape
    xp, OH, OW, pt, pl = ref_pad(x.astype(np.float64), s, (KH, KW), d, padding)
    dxp = np.zeros_like(xp)
    dw = np.zeros(w.shape)
    for oh in range(OH):
        for ow in range(OW):
            for kh in range(KH):
                for kw in range(KW):
                    ih, iw = oh * s[0] + kh * d[0], ow * s[1] + kw * d[1]
                    dxp[:, ih, iw] += dy[:, oh, ow] @ w[kh, kw].T
                    dw[kh, kw] += xp[:, ih, iw].T @ dy[:, oh, ow]
    return dxp[:, pt:pt + x.shape[1], pl:pl + x.shape[2]], dw


def ref_pool(x, k, s, padding, kind):
    """Returns y, the global flat argmax (max) and the per-window valid counts."""
    N, H, W, C = x.shape
    flat = np.arange(x.size).reshape(x.shape)
    fill = -np.inf if kind == "max" else 0.0
    xp, OH, OW, _, _ = ref_pad(x.astype(np.float64), s, k, (1, 1), padding, fill)
    ip, *_ = ref_pad(flat, s, k, (1, 1), padding, -1)
    y = np.zeros((N, OH, OW, C))
    arg = np.zeros((N, OH, OW, C), dtype=np.int64)
    for oh in range(OH):
        for ow in range(OW):
            win = xp[:, oh * s[0]:oh * s[0] + k[0], ow * s[1]:ow * s[1] + k[1]].reshape(N, -1, C)
            idx = ip[:, oh * s[0]:oh * s[0] + k[0], ow * s[1]:ow * s[1] + k[1]].reshape(N, -1, C)
            if kind == "max":
                j = win.argmax(axis=1)
                y[:, oh, ow] = np.take_along_axis(win, j[:, None], 1)[:, 0]
                arg[:, oh, ow] = np.take_along_axis(idx, j[:, None], 1)[:, 0]
            else:
                y[:, oh, ow] = win.sum(axis=1) / (idx >= 0).sum(axis=1)
    return y, arg


def ref_avg_pool_grad(dy, x_shape, k, s, padding):
    flat = np.arange(int(np.prod(x_shape))).reshape(x_shape)
    ip, OH, OW, _, _ = ref_pad(flat, s, k, (1, 1), padding, -1)
    dx = np.zeros(int(np.prod(x_shape)))
    for n in range(x_shape[0]):
        for oh in range(OH):
            for ow in range(OW):
                idx = ip[n, oh * s[0]:oh * s[0] + k[0], ow * s[1]:ow * s[1] + k[1]]
                idx = idx.reshape(-1, x_shape[3])
                idx = idx[idx[:, 0] >= 0]
                for row in idx:
                    dx[row] += dy[n, oh, ow] / len(idx)
    return dx.reshape(x_shape)


# ----------------------------------------------------------------------------------------
# convolution
# ----------------------------------------------------------------------------------------

CONV_CASES = [
    (s, p, d) for s in [(1, 1), (2, 2), (3, 2)] for p in ["VALID", "SAME"] for d in [(1, 1), (2, 2)]
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("s,padding,d", CONV_CASES)
def test_conv2d_forward_and_grads_vs_loops(dtype, s, padding, d):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 7, 5, 3)).astype(dtype)
    w = rng.standard_normal((3, 2, 3, 4)).astype(dtype)
    y = K.conv2d_forward(x, w, s, padding, d)
    yr = ref_conv(x, w, s, padding, d)
    assert y.dtype == dtype and y.shape == yr.shape
    assert K.conv2d_output_shape(x.shape, w.shape, s, padding, d) == y.shape
    np.testing.assert_allclose(y, yr, **TOL[dtype])

    dy = rng.standard_normal(y.shape).astype(dtype)
    dx = K.conv2d_backward_input(dy, w, x.shape, s, padding, d)
    dw = K.conv2d_backward_filter(x, dy, w.shape, s, padding, d)
    dxr, dwr = ref_conv_grads(x, w, dy, s, padding, d)
    assert dx.dtype == dtype and dw.dtype == dtype
    np.testing.assert_allclose(dx, dxr, **TOL[dtype])
    np.testing.assert_allclose(dw, dwr, **TOL[dtype])


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("s", [(1, 1), (2, 1)])
@pytest.mark.parametrize("kshape", [(1, 1), (2, 3)])
def test_conv2d_pointwise_and_h1(kshape, s, padding):
    # 1x1 stride-1 filters take the pure-GEMM path; H=1 is how conv1d reaches conv2d.
    rng = np.random.default_rng(1)
    for xshape in [(3, 4, 6, 5), (2, 1, 9, 3)]:
        kh = 1 if xshape[1] == 1 else kshape[0]
        ss = (1, s[1]) if xshape[1] == 1 else s
        x = rng.standard_normal(xshape)
        w = rng.standard_normal((kh, kshape[1], xshape[3], 2))
        y = K.conv2d_forward(x, w, ss, padding)
        np.testing.assert_allclose(y, ref_conv(x, w, ss, padding, (1, 1)), rtol=1e-12)
        dy = rng.standard_normal(y.shape)
        dxr, dwr = ref_conv_grads(x, w, dy, ss, padding, (1, 1))
        np.testing.assert_allclose(K.conv2d_backward_input(dy, w, x.shape, ss, padding), dxr,
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(K.conv2d_backward_filter(x, dy, w.shape, ss, padding), dwr,
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_conv2d_grads_vs_finite_differences(padding):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 4, 2))
    w = rng.standard_normal((3, 2, 2, 3))
    args = ((2, 1), padding, (1, 2))
    dy = rng.standard_normal(K.conv2d_forward(x, w, *args).shape)

    def f(x_, w_):
        return float(np.sum(K.conv2d_forward(x_, w_, *args) * dy))

    def numgrad(a, fn):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            e = np.zeros_like(a)
            e[i] = 1e-6
            g[i] = (fn(a + e) - fn(a - e)) / 2e-6
        return g

    dx = K.conv2d_backward_input(dy, w, x.shape, *args)
    dw = K.conv2d_backward_filter(x, dy, w.shape, *args)
    np.testing.assert_allclose(dx, numgrad(x, lambda a: f(a, w)), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dw, numgrad(w, lambda a: f(x, a)), rtol=1e-6, atol=1e-7)


def test_conv_output_size_tf_rules():
    assert K.conv_output_size(7, 3, 2, 1, "SAME") == (4, 1, 1)
    assert K.conv_output_size(6, 3, 2, 1, "SAME") == (3, 0, 1)   # extra pad goes after
    assert K.conv_output_size(7, 3, 3, 2, "VALID") == (1, 0, 0)
    assert K.conv_output_size(4, 3, 1, 2, "VALID") == (0, 0, 0)
    with pytest.raises(ValueError, match="conv_output_size"):
        K.conv_output_size(2, 3, 1, 2, "VALID")


def test_conv2d_validation():
    x = np.zeros((1, 5, 5, 2), np.float32)
    w = np.zeros((3, 3, 2, 4), np.float32)
    with pytest.raises(ValueError, match=r"conv2d_forward: .*dtype.*expected float32, got float64"):
        K.conv2d_forward(x, w.astype(np.float64))
    with pytest.raises(ValueError, match=r"conv2d_forward: input channels"):
        K.conv2d_forward(x, np.zeros((3, 3, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r"conv2d_forward: unknown padding"):
        K.conv2d_forward(x, w, padding="FULL")
    with pytest.raises(ValueError, match=r"conv2d_forward: .*rank"):
        K.conv2d_forward(x[0], w)
    with pytest.raises(ValueError, match=r"conv2d_forward: strides"):
        K.conv2d_forward(x, w, strides=(0, 1))
    with pytest.raises(ValueError, match=r"conv2d_forward: window larger"):
        K.conv2d_forward(x, np.zeros((7, 3, 2, 4), np.float32))
    with pytest.raises(ValueError, match=r"conv2d_backward_input: dy has the wrong shape"):
        K.conv2d_backward_input(np.zeros((1, 2, 2, 4), np.float32), w, x.shape)
    with pytest.raises(ValueError, match=r"conv2d_backward_filter: dy has the wrong shape"):
        K.conv2d_backward_filter(x, np.zeros((1, 3, 3, 5), np.float32), (3, 3, 2, 5 - 1))


# ----------------------------------------------------------------------------------------
# pooling
# ----------------------------------------------------------------------------------------

POOL_CASES = [((2, 2), (2, 2)), ((3, 3), (2, 2)), ((3, 2), (1, 2)), ((2, 3), (3, 1))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("k,s", POOL_CASES)
def test_pooling_vs_loops(dtype, padding, k, s):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 7, 5, 3)).astype(dtype)
    y, arg = K.max_pool2d_forward(x, k, s, padding)
    yr, argr = ref_pool(x, k, s, padding, "max")
    assert y.dtype == dtype and arg.dtype == np.int64
    assert K.pool2d_output_shape(x.shape, k, s, padding) == y.shape
    np.testing.assert_array_equal(y, yr.astype(dtype))
    np.testing.assert_array_equal(arg, argr)
    dy = rng.standard_normal(y.shape).astype(dtype)
    dx = K.max_pool2d_backward(dy, arg, x.shape)
    dxr = np.zeros(x.size)
    np.add.at(dxr, argr.ravel(), dy.ravel().astype(np.float64))
    np.testing.assert_allclose(dx, dxr.reshape(x.shape), **TOL[dtype])

    ya = K.avg_pool2d_forward(x, k, s, padding)
    np.testing.assert_allclose(ya, ref_pool(x, k, s, padding, "avg")[0], **TOL[dtype])
    dxa = K.avg_pool2d_backward(dy, x.shape, k, s, padding)
    assert dxa.dtype == dtype
    np.testing.assert_allclose(dxa, ref_avg_pool_grad(dy, x.shape, k, s, padding), **TOL[dtype])


def test_pooling_edge_values_and_validation():
    x = np.full((1, 3, 3, 1), -np.inf)
    y, arg = K.max_pool2d_forward(x, 2, 2, "SAME")
    assert np.all(y == -np.inf) and np.all(arg >= 0)
    # avg pool with SAME divides by valid cells: a constant input stays constant
    np.testing.assert_allclose(K.avg_pool2d_forward(np.ones((1, 5, 4, 2)), 3, 2, "SAME"), 1.0)
    with pytest.raises(ValueError, match=r"max_pool2d_backward: argmax holds indices"):
        K.max_pool2d_backward(np.ones((1, 2, 2, 1)), np.full((1, 2, 2, 1), 99, np.int64),
                              (1, 3, 3, 1))
    with pytest.raises(ValueError, match=r"max_pool2d_backward: argmax must be an int64"):
        K.max_pool2d_backward(np.ones((1, 2, 2, 1)), np.zeros((1, 2, 2, 1), np.int32),
                              (1, 3, 3, 1))
    with pytest.raises(ValueError, match=r"avg_pool2d_backward: dy has the wrong shape"):
        K.avg_pool2d_backward(np.ones((1, 3, 3, 1)), (1, 4, 4, 1), 2, 2)
    with pytest.raises(ValueError, match=r"max_pool2d_forward: ksize"):
        K.max_pool2d_forward(np.ones((1, 3, 3, 1)), (2, 2, 2), 1)


# ----------------------------------------------------------------------------------------
# softmax and cross-entropy
# ----------------------------------------------------------------------------------------

def ref_log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_and_log_softmax(dtype):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((2, 3, 7)) * 5).astype(dtype)
    np.testing.assert_allclose(K.log_softmax(x), ref_log_softmax(x), **TOL[dtype])
    p = K.softmax(x)
    assert p.dtype == dtype and p.shape == x.shape
    np.testing.assert_allclose(p, np.exp(ref_log_softmax(x)), **TOL[dtype])
    big = np.array([[1e4, -1e4, 0.0, -np.inf]], dtype)
    assert np.all(np.isfinite(K.log_softmax(big)[:, :3]))
    np.testing.assert_allclose(K.softmax(big), [[1, 0, 0, 0]])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_softmax_xent(dtype, label_dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((6, 5)) * 3).astype(dtype)
    lab = rng.integers(0, 5, 6).astype(label_dtype)
    loss, d = K.sparse_softmax_xent(x, lab)
    ls = ref_log_softmax(x)
    assert loss.dtype == dtype and d.dtype == dtype
    np.testing.assert_allclose(loss, -ls[np.arange(6), lab], **TOL[dtype])
    np.testing.assert_allclose(d, np.exp(ls) - np.eye(5)[lab], **TOL[dtype])


def test_sparse_softmax_xent_extremes_and_masks():
    x = np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 3.0], [2.0, -np.inf, 1.0]], np.float32)
    loss, d = K.sparse_softmax_xent(x, np.array([0, 0, 2]))
    assert np.all(np.isfinite(loss)) and np.all(np.isfinite(d))
    np.testing.assert_allclose(loss[:2], [0.0, 2e4], rtol=1e-6)
    assert d[2, 1] == 0.0
    np.testing.assert_allclose(loss[2], np.log1p(np.exp(1.0)), rtol=1e-6)


def test_sparse_softmax_xent_finite_differences():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 4))
    lab = np.array([3, 0, 1])
    _, d = K.sparse_softmax_xent(x, lab)
    num = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = 1e-6
        num[i] = (K.sparse_softmax_xent(x + e, lab)[0].sum()
                  - K.sparse_softmax_xent(x - e, lab)[0].sum()) / 2e-6
    np.testing.assert_allclose(d, num, rtol=1e-6, atol=1e-8)


def test_sparse_softmax_xent_validation():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match=r"sparse_softmax_xent: label out of range at row 1 "
                                         r"\(expected 0 <= label < 4, got 4\)"):
        K.sparse_softmax_xent(x, np.array([0, 4, 1]))
    with pytest.raises(ValueError, match=r"got -1\)"):
        K.sparse_softmax_xent(x, np.array([0, 1, -1]))
    with pytest.raises(ValueError, match=r"expected int32 or int64, got float32"):
        K.sparse_softmax_xent(x, np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"expected shape \(3,\)"):
        K.sparse_softmax_xent(x, np.zeros(2, np.int64))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dense_softmax_xent(dtype):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((4, 6)) * 2).astype(dtype)
    y = rng.random((4, 6)).astype(dtype)
    loss, d = K.softmax_xent(x, y)
    ls = ref_log_softmax(x)
    np.testing.assert_allclose(loss, -(y * ls).sum(-1), **TOL[dtype])
    np.testing.assert_allclose(d, np.exp(ls) * y.sum(-1, keepdims=True) - y, **TOL[dtype])
    # masked logit with a zero label: 0 * -inf counts as 0, gradient 0 there
    xm = np.array([[1e4, -np.inf, -1e4]], dtype)
    loss, d = K.softmax_xent(xm, np.array([[0.5, 0.0, 0.5]], dtype))
    assert np.all(np.isfinite(loss)) and np.all(np.isfinite(d)) and d[0, 1] == 0
    np.testing.assert_allclose(loss, [1e4], rtol=1e-6)
    # gradient vs finite differences
    x = rng.standard_normal((2, 3))
    y = rng.random((2, 3))
    num = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = 1e-6
        num[i] = (K.softmax_xent(x + e, y)[0].sum() - K.softmax_xent(x - e, y)[0].sum()) / 2e-6
    np.testing.assert_allclose(K.softmax_xent(x, y)[1], num, rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match=r"softmax_xent: labels must have the dtype"):
        K.softmax_xent(x, y.astype(np.float32))


# ----------------------------------------------------------------------------------------
# optimizers
# ----------------------------------------------------------------------------------------

def _opt_data(dtype, n=(3, 5), seed=8):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n).astype(dtype), [rng.standard_normal(n).astype(dtype)
                                                  for _ in range(4)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_update(dtype, momentum, nesterov):
    var, grads = _opt_data(dtype)
    vel = np.zeros_like(var)
    rv, rvel = var.copy(), vel.copy()
    lr, mom = dtype(0.1), dtype(momentum)
    for g in grads:
        K.sgd_update(var, g, 0.1, momentum, nesterov, vel if momentum else None)
        if momentum == 0:
            rv = rv - g * lr
        else:
            rvel = rvel * mom - g * lr
            rv = rv + (rvel * mom - g * lr if nesterov else rvel)
    np.testing.assert_allclose(var, rv, **TOL[dtype])
    np.testing.assert_allclose(vel, rvel, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_adam_update(dtype, amsgrad, wd):
    var, grads = _opt_data(dtype)
    m, v = np.zeros_like(var), np.zeros_like(var)
    vhat = np.zeros_like(var) if amsgrad else None
    rv, rm, rvv, rh = var.copy(), m.copy(), v.copy(), np.zeros_like(var)
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-7
    for t, g in enumerate(grads, 1):
        K.adam_update(var, m, v, g, lr, b1, b2, eps, t, weight_decay=wd, vhat=vhat)
        rv = rv - rv * dtype(wd * lr)
        alpha = dtype(lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t))
        rm = rm + (g - rm) * dtype(1 - b1)
        rvv = rvv + (g * g - rvv) * dtype(1 - b2)
        rh = np.maximum(rh, rvv)
        rv = rv - rm * alpha / (np.sqrt(rh if amsgrad else rvv) + dtype(eps))
    np.testing.assert_allclose(var, rv, **TOL[dtype])
    np.testing.assert_allclose(m, rm, **TOL[dtype])
    np.testing.assert_allclose(v, rvv, **TOL[dtype])
    if amsgrad:
        np.testing.assert_allclose(vhat, rh, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("momentum", [0.0, 0.5])
@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_update(dtype, momentum, centered):
    var, grads = _opt_data(dtype)
    rms, mom, mg = np.zeros_like(var), np.zeros_like(var), np.zeros_like(var)
    rv, rr, rmo, rmg = var.copy(), rms.copy(), mom.copy(), mg.copy()
    lr, rho, eps = dtype(0.01), dtype(0.9), dtype(1e-7)
    for g in grads:
        K.rmsprop_update(var, rms, g, 0.01, 0.9, momentum, 1e-7, centered,
                         mom=mom if momentum else None, mg=mg if centered else None)
        rr = rho * rr + dtype(1 - 0.9) * g * g
        if centered:
            rmg = rho * rmg + dtype(1 - 0.9) * g
            inc = lr * g / np.sqrt(rr - rmg * rmg + eps)
        else:
            inc = lr * g / np.sqrt(rr + eps)
        if momentum:
            rmo = dtype(momentum) * rmo + inc
            inc = rmo
        rv = rv - inc
    np.testing.assert_allclose(var, rv, **TOL[dtype])
    np.testing.assert_allclose(rms, rr, **TOL[dtype])
    np.testing.assert_allclose(mom, rmo, **TOL[dtype])
    np.testing.assert_allclose(mg, rmg, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_adagrad_update(dtype):
    var, grads = _opt_data(dtype)
    acc = np.full_like(var, 0.1)
    rv, ra = var.copy(), acc.copy()
    for g in grads:
        K.adagrad_update(var, acc, g, 0.05, 1e-7)
        ra = ra + g * g
        rv = rv - dtype(0.05) * g / np.sqrt(ra + dtype(1e-7))
    np.testing.assert_allclose(var, rv, **TOL[dtype])
    np.testing.assert_allclose(acc, ra, **TOL[dtype])


def test_optimizer_update_large_array_parallel_path():
    var, (g, *_) = _opt_data(np.float32, n=(1 << 20 | 1,))
    m, v = np.zeros_like(var), np.zeros_like(var)
    alpha = np.float32(0.001 * math.sqrt(1 - 0.999) / (1 - 0.9))
    expect = var - (g * np.float32(0.1)) * alpha / (np.sqrt(g * g * np.float32(0.001))
                                                    + np.float32(1e-7))
    K.adam_update(var, m, v, g, 0.001, 0.9, 0.999, 1e-7, 1)
    np.testing.assert_allclose(var, expect, rtol=2e-5, atol=2e-6)


def test_optimizer_validation_leaves_arrays_unchanged():
    var, (g, *_) = _opt_data(np.float32)
    m, v = np.ones_like(var), np.ones_like(var)
    before = [a.copy() for a in (var, m, v)]
    bad_cases = [
        (K.adam_update, (var, m, v.astype(np.float64), g, 0.1, 0.9, 0.999, 1e-7, 1), "v must"),
        (K.adam_update, (var, m, v[:2], g, 0.1, 0.9, 0.999, 1e-7, 1), "v must match"),
        (K.adam_update, (var, m, v, g[:, :2], 0.1, 0.9, 0.999, 1e-7, 1), "grad must match"),
        (K.adam_update, (var, m, v, g, 0.1, 0.9, 0.999, 1e-7, 0), "step"),
        (K.adam_update, (var, m, np.ones((3, 10), np.float32)[:, ::2], g, 0.1, 0.9, 0.999,
                         1e-7, 1), "C-contiguous"),
        (K.sgd_update, (var, g, 0.1, 0.9), "velocity"),
        (K.rmsprop_update, (var, m, g, 0.1, 0.9, 0.5), "mom"),
        (K.rmsprop_update, (var, m, g, 0.1, 0.9, 0.0, 1e-7, True, None, None), "mg"),
        (K.adagrad_update, (var, m.astype(np.float64), g, 0.1), "accum must match"),
        (K.sgd_update, (var, g.astype(np.float64), 0.1), "grad must match"),
    ]
    for fn, args, msg in bad_cases:
        with pytest.raises(ValueError, match=msg):
            fn(*args)
        for a, b in zip((var, m, v), before):
            np.testing.assert_array_equal(a, b)


def test_conv2d_multiple_image_blocks(monkeypatch):
    # A small buffer cap makes im2col/col2im run in several blocks of images.
    monkeypatch.setattr(K, "_block_bytes", 1 << 20)
    rng = np.random.default_rng(9)
    x = rng.standard_normal((5, 30, 30, 16))
    w = rng.standard_normal((3, 3, 16, 4))
    y = K.conv2d_forward(x, w, 1, "SAME")
    np.testing.assert_allclose(y, ref_conv(x, w, (1, 1), "SAME", (1, 1)), rtol=1e-10, atol=1e-10)
    dy = rng.standard_normal(y.shape)
    dxr, dwr = ref_conv_grads(x, w, dy, (1, 1), "SAME", (1, 1))
    np.testing.assert_allclose(K.conv2d_backward_input(dy, w, x.shape, 1, "SAME"), dxr,
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(K.conv2d_backward_filter(x, dy, w.shape, 1, "SAME"), dwr,
                               rtol=1e-10, atol=1e-10)
