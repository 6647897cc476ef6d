"""Fusion of elementwise chains in fe.function replay (``_fusion.fuse``, ``_graph.Fused``).

Fused results are compared with eager ones with a tight rtol (1e-6 float32, 1e-12
float64) rather than exactly: add/sub/mul/div/max/min/square/sqrt/abs/relu/neg are
computed as the same IEEE operations in the same precision, but exp/log/tanh (and
sigmoid's tanh) come from libm in the kernel and from NumPy's SIMD code eagerly, which
may differ in the last place.
"""
import numpy as np
import pytest

import fasteager as fe
from fasteager import _graph
from fasteager._src.tracing import fusion as _fusion

RTOL = {np.float32: 1e-6, np.float64: 1e-12}


def c(x, dtype=np.float32):
    return fe.constant(np.asarray(x, dtype))


def chain(x):
    y = x
    for _ in range(5):
        y = fe.tanh(y * 0.5 + 0.25) - y * 0.125
    y = fe.sigmoid(y) * fe.nn.relu(y - 0.1) + fe.exp(-fe.square(y))
    y = fe.maximum(y, 0.05) - fe.minimum(y, 0.5) / 3.0
    return fe.sqrt(fe.abs(y) + 1.0) + fe.log(fe.abs(y) + 2.0)


def n_fused(f, *args):
    cf = f.get_concrete_function(*args)
    return len(cf.fused_steps)


def check(f, g, *args, dtype=np.float32, atol=0.0):
    got = f(*args)
    want = g(*args)
    if isinstance(got, (list, tuple)):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=RTOL[dtype], atol=atol)
            assert a.numpy().dtype == b.numpy().dtype and a.shape == b.shape
    else:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=RTOL[dtype], atol=atol)
        assert got.numpy().dtype == want.numpy().dtype and got.shape == want.shape
    # a replayed call, not the first (traced, eager) one
    got2 = f(*args)
    w = want if isinstance(want, (list, tuple)) else [want]
    g2 = got2 if isinstance(got2, (list, tuple)) else [got2]
    for a, b in zip(g2, w):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=RTOL[dtype], atol=atol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64,), (3, 5), (), (0,), (0, 4), (300_001,)])
def test_chain_equals_eager(dtype, shape):
    rng = np.random.default_rng(0)
    x = c(rng.standard_normal(shape) * 2, dtype)
    f = fe.function(chain)
    check(f, chain, x, dtype=dtype)
    cf = f.get_concrete_function(x)
    assert len(cf.fused_steps) == 1
    assert cf.graph_size == 1


def test_slow_float32_ops_stay_numpys_on_large_arrays():
    # sin/cos/log1p/expm1 have only scalar libm versions in the kernel: on large float32
    # arrays NumPy's SIMD loops are faster, so they split the chain; small arrays fuse
    def g(x):
        y = fe.sin(x * 0.5 + 0.25) * 2.0 + 1.0
        return fe.math.log1p(fe.abs(fe.cos(y) - 0.5)) * 3.0 - y
    for n, n_steps in ((64, 1), (_fusion.SLOW_F32_MAX + 1, None)):
        x = c(np.linspace(-2, 2, n))
        f = fe.function(g)
        check(f, g, x, atol=1e-6)         # "- y" cancels: absolute error near 0
        cf = f.get_concrete_function(x)
        if n_steps is not None:
            assert cf.graph_size == n_steps
        else:
            assert cf.graph_size > 1 and len(cf.fused_steps) >= 2
            for k in cf.fused_steps:
                assert not _fusion.SLOW_F32.intersection(k.names)
            assert {"sin", "cos", "log1p"} <= {s.name for s in cf._steps}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_opcode(dtype):
    rng = np.random.default_rng(1)
    x = c(rng.uniform(0.1, 2.0, (200,)), dtype)
    y = c(rng.uniform(0.1, 2.0, (200,)), dtype)

    def g(x, y):
        a = x + y - x * y / (y + 1.0)
        a = fe.maximum(a, y) + fe.minimum(a, x) + fe.math.squared_difference(a, y)
        a = -a + fe.exp(x) + fe.math.log(y) + fe.tanh(a) + fe.sqrt(y)
        a = a + fe.sin(x) + fe.cos(y) + fe.abs(a) + fe.square(x) + fe.sigmoid(a)
        a = a + fe.nn.relu(a - 3.0) + fe.math.reciprocal(y) + fe.math.log1p(x)
        return a + fe.math.expm1(y) + fe.math.rsqrt(x)
    f = fe.function(g)
    check(f, g, x, y, dtype=dtype)
    assert n_fused(f, x, y) == 1
    assert f.get_concrete_function(x, y).graph_size == 1


def test_scalar_operands_and_0d_inputs():
    def g(x, s):
        return (x * s + 2.0) * s - fe.exp(s) + x / 4.0
    f = fe.function(g)
    x = c(np.linspace(-1, 1, 33))
    s = c(0.75)
    check(f, g, x, s)
    assert n_fused(f, x, s) == 1
    check(f, g, c(3.0), s)           # all 0-d
    assert n_fused(f, c(3.0), s) == 1


def test_nan_inf_semantics():
    def g(x, y):
        return fe.maximum(x, y) + 0.0 + fe.minimum(x, y) * 1.0 + fe.nn.relu(x) * 1.0
    f = fe.function(g)
    x = c([np.nan, 1.0, -np.inf, 2.0, np.nan, -0.0])
    y = c([1.0, np.nan, 3.0, np.inf, np.nan, 0.0])
    np.testing.assert_array_equal(f(x, y).numpy(), g(x, y).numpy())
    np.testing.assert_array_equal(f(x, y).numpy(), g(x, y).numpy())
    assert n_fused(f, x, y) == 1


def test_basic_arithmetic_is_bitwise_equal():
    def g(x, y):
        a = (x + y) * (x - y) / (y + 3.0)
        return fe.sqrt(fe.abs(fe.maximum(a, -a * 0.5))) + fe.square(a) - fe.nn.relu(-a)
    f = fe.function(g)
    rng = np.random.default_rng(2)
    for dt in (np.float32, np.float64):
        x, y = c(rng.standard_normal(1000), dt), c(rng.standard_normal(1000), dt)
        f(x, y)
        np.testing.assert_array_equal(f(x, y).numpy(), g(x, y).numpy())


def test_returned_intermediate_is_not_fused_across():
    def g(x):
        a = fe.tanh(x * 2.0 + 1.0)
        b = a * a - 3.0
        return a, b
    f = fe.function(g)
    x = c(np.linspace(-2, 2, 10))
    check(f, g, x)
    cf = f.get_concrete_function(x)
    fused = cf.fused_steps
    # a = tanh(x*2+1) fuses into one kernel, b = a*a-3 into another: a stays materialized
    assert len(fused) == 2
    assert sorted(len(k.names) for k in fused) == [2, 3]


def test_intermediate_read_by_other_op_breaks_run():
    def g(x):
        a = x * 2.0 + 1.0
        s = fe.reduce_sum(a)             # non-elementwise reader of a
        return fe.exp(a) * 3.0 + s
    f = fe.function(g)
    x = c(np.linspace(-1, 1, 7))
    check(f, g, x)
    cf = f.get_concrete_function(x)
    assert len(cf.fused_steps) == 2
    # the add with the broadcast (0-d) sum result joins the second kernel
    names = sorted(k.names for k in cf.fused_steps)
    assert names == [("exp", "multiply", "add"), ("multiply", "add")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 3), (300, 3), (1, 1)])
def test_rows_broadcast_along_leading_axes_fuse(shape, dtype):
    # a bias row (and values computed from it) repeats every 3 (or 1) output elements;
    # (300, 3) spans several blocks of the kernel, which start mid-row
    def g(x, b, s):
        return fe.tanh(x + b * 0.5) * 2.0 + fe.square(b - s) - s
    f = fe.function(g)
    rng = np.random.default_rng(3)
    x = c(rng.standard_normal(shape), dtype)
    b = c(rng.standard_normal(shape[-1:]), dtype)
    b2 = c(rng.standard_normal((1,) + shape[-1:]), dtype)
    s = c(0.25, dtype)
    for bias in (b, b2):
        check(f, g, x, bias, s, dtype=dtype, atol=1e-6)   # "- s" cancels near 0
        cf = f.get_concrete_function(x, bias, s)
        assert cf.graph_size == 1 and len(cf.fused_steps) == 1


def test_broadcasting_a_column_is_not_fused():
    def g(x, b):
        return fe.tanh(x + b) * 2.0
    f = fe.function(g)
    x = c(np.ones((4, 3)))
    b = c([[1.0], [2.0], [3.0], [4.0]])        # (4, 1): repeats along the last axis
    check(f, g, x, b)
    cf = f.get_concrete_function(x, b)
    assert [k.names for k in cf.fused_steps] == [("tanh", "multiply")]


def test_broadcastable_suffix():
    from fasteager._graph import broadcastable_suffix as ok
    assert ok((), (4, 3)) and ok((3,), (4, 3)) and ok((1, 3), (4, 3))
    assert ok((1, 1), (4, 3)) and ok((5, 3), (2, 5, 3)) and ok((1, 5, 3), (2, 5, 3))
    assert not ok((4, 1), (4, 3)) and not ok((2,), (4, 3)) and not ok((1, 4, 3), (4, 3))
    assert not ok((5, 1), (2, 5, 3))


def test_mixed_dtypes_not_fused():
    def g(x, y):
        return fe.cast(x * 2.0, fe.float64) + y * 2.0
    f = fe.function(g)
    x, y = c([1.0, 2.0]), c([3.0, 4.0], np.float64)
    check(f, g, x, y, dtype=np.float64)
    assert f.get_concrete_function(x, y).fused_steps[0].names == ("multiply", "add")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradients_through_fused_function(dtype):
    f = fe.function(chain)
    x = c(np.linspace(-1.5, 1.5, 11), dtype)
    assert n_fused(f, x) == 1

    def grads(fn):
        with fe.GradientTape() as t2:
            t2.watch(x)
            with fe.GradientTape() as t1:
                t1.watch(x)
                y = fe.reduce_sum(fn(x))
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)
        return y, g1, g2
    for _ in range(2):
        got = grads(f)
        want = grads(chain)
        tol = 1e-5 if dtype == np.float32 else 1e-11
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol)


def test_train_step_with_tape_inside():
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((16, 4)).astype(np.float32)
    ys = rng.standard_normal((16, 1)).astype(np.float32)

    def make():
        w = fe.Variable(np.full((4, 1), 0.1, np.float32))
        b = fe.Variable(np.zeros((1,), np.float32))

        def step(x, y):
            with fe.GradientTape() as tape:
                h = fe.matmul(x, w) + b
                p = fe.sigmoid(fe.tanh(h * 0.5) * 2.0 + 0.1)
                loss = fe.reduce_mean(fe.square(p - y) * 0.5 + fe.abs(p) * 0.01)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(gw * 0.1)
            b.assign_sub(gb * 0.1)
            return loss
        return step, w, b
    step_e, we, be = make()
    step_f, wf, bf = make()
    step_f = fe.function(step_f)
    x, y = fe.constant(xs), fe.constant(ys)
    for _ in range(5):
        le = step_e(x, y)
        lf = step_f(x, y)
        np.testing.assert_allclose(lf.numpy(), le.numpy(), rtol=1e-5)
    np.testing.assert_allclose(wf.numpy(), we.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(bf.numpy(), be.numpy(), rtol=1e-5, atol=1e-7)
    cf = step_f.get_concrete_function(x, y)
    # no fused kernel swallowed an intermediate that a gradient step reads
    produced_by_kept = set()
    for s in cf._steps:
        outs = s.out if s.multi else (s.out,)
        produced_by_kept.update(outs)
    inputs = set(cf._inputs) | {r for _, r in cf._var_inputs} | \
        {r for r, a in enumerate(cf._template) if a is not None}
    for s in cf._steps:
        for r in s.ins:
            assert r in produced_by_kept or r in inputs


def test_fused_kernel_fallback_on_unexpected_input():
    k = _graph.Fused(np.array([[2, 0, 1, 2], [0, 2, 1, 3]], np.int32), 1, [2.0], 4,
                     np.float32, (3,), ((3,),),
                     fallback=lambda arrays: np.asarray("fallback"))
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(k.run([x]), (x * 2 + 2))
    assert k.run([x.astype(np.float64)]) == "fallback"
    assert k.run([np.ones(4, np.float32)]) == "fallback"
    # non-contiguous input of the right dtype and shape
    xs = np.arange(6, dtype=np.float32)[::2]
    np.testing.assert_array_equal(k.run([xs]), xs * 2 + 2)


def test_variable_write_between_ops_not_fused_across():
    v = fe.Variable(np.ones(3, np.float32))

    def g(x):
        a = x * v + 1.0
        v.assign_add(fe.ones(3))
        return a * v + 2.0
    f = fe.function(g)
    x = c([1.0, 2.0, 3.0])
    r1 = f(x).numpy()           # trace: v 1 -> 2
    r2 = f(x).numpy()           # replay: v 2 -> 3
    np.testing.assert_allclose(r1, (np.array([1, 2, 3]) * 1 + 1) * 2 + 2)
    np.testing.assert_allclose(r2, (np.array([1, 2, 3]) * 2 + 1) * 3 + 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (), (0,), (400, 333)])
def test_full_reductions_fold_into_the_chain(shape, dtype):
    def g(x, b):
        return (fe.reduce_sum(fe.square(x - 0.5) * 2.0),
                fe.reduce_mean(fe.tanh(x + b)),
                fe.reduce_sum(fe.exp(x * 0.1)))
    rng = np.random.default_rng(4)
    x = c(rng.standard_normal(shape), dtype)
    b = c(rng.standard_normal(shape[-1:]), dtype)
    f = fe.function(g)
    with np.errstate(invalid="ignore"):        # the mean of nothing is NaN
        f(x, b)                                 # the trace (eager results)
        got, want, again = f(x, b), g(x, b), f(x, b)
    for a, w, a2 in zip(got, want, again):
        # double-precision block sums vs NumPy's pairwise float32 ones
        np.testing.assert_allclose(a.numpy(), w.numpy(), rtol=RTOL[dtype] * 10)
        np.testing.assert_array_equal(a2.numpy(), a.numpy())     # deterministic
        assert a.numpy().dtype == w.numpy().dtype and a.shape == ()
    cf = f.get_concrete_function(x, b)
    assert cf.graph_size == 3
    assert [k.names[-1] for k in cf.fused_steps] == ["reduce_sum", "reduce_mean", "reduce_sum"]


def test_reductions_that_do_not_fold():
    def g(x):
        y = x * 2.0 + 1.0
        return (fe.reduce_sum(y, axis=0),            # along an axis: NumPy's
                fe.reduce_sum(fe.tanh(x) * 3.0, keepdims=True),
                y, fe.reduce_sum(y))                  # y is an output: materialised
    f = fe.function(g)
    x = c(np.linspace(-1, 2, 12).reshape(3, 4))
    check(f, g, x)
    cf = f.get_concrete_function(x)
    assert not any(k.reduce for k in cf.fused_steps)
    assert sum(s.name == "reduce_sum" for s in cf._steps) == 3


def test_gradients_through_a_folded_reduction():
    def g(x):
        return fe.reduce_mean(fe.sin(x) * x)
    f = fe.function(g)
    x = c(np.linspace(-2, 2, 50), np.float64)
    for _ in range(3):
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        xv = x.numpy()
        np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                                   (np.cos(xv) * xv + np.sin(xv)) / 50, rtol=1e-12)
    assert f.get_concrete_function(x).fused_steps[0].reduce == _graph.REDUCE_MEAN
