"""fasteager._gemm.sgemm, the float32 GEMM of _gemm.h, and its use by matmul: results
against a float64 NumPy reference over all transpose combinations, views, ``out=``,
NaN/inf, determinism (calls, threads, tilings), each instruction set level, errors."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fasteager as fe
from fasteager import _gemm

LEVELS = [lv for lv in (0, 1, 2) if lv <= _gemm.cpu_level]
EPS32 = 2.0 ** -24


@pytest.fixture(params=LEVELS, ids=["baseline", "avx2", "avx512"][:len(LEVELS)])
def level(request):
    old = _gemm._set_level(request.param)
    yield request.param
    _gemm._set_level(old)


@pytest.fixture
def threads():
    old = _gemm._set_threads(0)
    yield _gemm._set_threads
    _gemm._set_threads(old)


def _operands(rng, m, n, k, ta, tb):
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    return a, b


def _op(x, t):
    return x.T if t else x


def _check_close(c, a, b, ta=False, tb=False):
    """c against the float64 product, within the error bound of a float32 sum of K
    products, (K + 2) eps |A| |B| elementwise (any summation order meets it)."""
    x = _op(a, ta).astype(np.float64)
    y = _op(b, tb).astype(np.float64)
    ref = x @ y
    bound = (x.shape[1] + 2) * EPS32 * (np.abs(x) @ np.abs(y)) + 1e-30
    assert c.dtype == np.float32 and c.shape == ref.shape
    err = np.abs(c.astype(np.float64) - ref)
    assert np.all(err <= bound), "max excess %g" % np.max(err - bound)


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 300), n=st.integers(1, 300), k=st.integers(1, 300),
       ta=st.booleans(), tb=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_matches_float64_reference_for_drawn_shapes(m, n, k, ta, tb, seed):
    for lv in LEVELS:
        old = _gemm._set_level(lv)
        try:
            a, b = _operands(np.random.default_rng(seed), m, n, k, ta, tb)
            _check_close(_gemm.sgemm(a, b, ta, tb), a, b, ta, tb)
        finally:
            _gemm._set_level(old)


# the masked last vector (N around 8, 16, 32, 48, 64 lanes), prime sizes, rows around
# the tile heights (4, 6, 8, 12) and K across a K block
EDGE_SHAPES = [(1, 1, 1), (1, 10, 1), (7, 1, 5), (32, 10, 128), (128, 10, 32),
               (32, 128, 10), (13, 17, 19), (31, 33, 257), (5, 47, 64), (29, 49, 3),
               (12, 64, 65), (25, 65, 97), (97, 15, 31), (2, 129, 1), (300, 7, 2),
               (9, 139, 45), (3, 9, 600)]


@pytest.mark.parametrize("m,n,k", EDGE_SHAPES)
@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_edge_shapes_at_each_level(level, m, n, k, ta, tb):
    a, b = _operands(np.random.default_rng(m * 1000 + n * 10 + k), m, n, k, ta, tb)
    _check_close(_gemm.sgemm(a, b, ta, tb), a, b, ta, tb)


@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_empty_shapes(ta, tb):
    for m, n, k in [(0, 5, 3), (4, 0, 3), (0, 0, 0)]:
        a, b = _operands(np.random.default_rng(0), m, n, k, ta, tb)
        c = _gemm.sgemm(a, b, ta, tb)
        assert c.shape == (m, n) and c.dtype == np.float32
    a, b = _operands(np.random.default_rng(0), 4, 6, 0, ta, tb)   # K = 0: zeros
    c = _gemm.sgemm(a, b, ta, tb)
    np.testing.assert_array_equal(c, np.zeros((4, 6), np.float32))
    out = np.full((4, 6), 7, np.float32)
    assert _gemm.sgemm(a, b, ta, tb, out=out) is out
    np.testing.assert_array_equal(out, 0)


def test_views_and_layouts(level):
    rng = np.random.default_rng(1)
    big_a = rng.standard_normal((40, 60)).astype(np.float32)
    big_b = rng.standard_normal((60, 50)).astype(np.float32)
    cases = [
        (big_a[::2, :30], big_b[:30, ::1]),           # row step in A
        (big_a[:20, ::2], big_b[:30, :17]),           # no unit stride in A: copied
        (big_a[:20, :30], big_b[:30, ::2]),           # no unit stride in B: copied
        (big_a[::-1, ::-1][:20, :30], big_b[::-1][:30, :25]),     # negative strides
        (np.asfortranarray(big_a[:20, :30]), np.asfortranarray(big_b[:30, :25])),
        (np.swapaxes(big_a[:30, :20], 0, 1), np.swapaxes(big_b[:25, :30], 0, 1)),
        (np.broadcast_to(big_a[0], (9, 60)), big_b),  # zero stride in A
        (big_a[:20, :30], np.broadcast_to(big_b[:30, :1], (30, 12))),  # zero stride in B
    ]
    for x, y in cases:
        _check_close(_gemm.sgemm(x, y), x, y)
        # the same operands through the transpose flags (views of the transposes)
        _check_close(_gemm.sgemm(x.T, y, transpose_a=True), x.T, y, True, False)
        _check_close(_gemm.sgemm(x, y.T, transpose_b=True), x, y.T, False, True)


def test_unaligned_input():
    raw = np.zeros(4 * 12 * 10 + 1, np.uint8)[1:].view(np.float32).reshape(12, 10)
    raw[...] = np.arange(120, dtype=np.float32).reshape(12, 10) / 7
    assert not raw.flags.aligned
    b = np.random.default_rng(2).standard_normal((10, 9)).astype(np.float32)
    _check_close(_gemm.sgemm(raw, b), raw, b)


def test_byte_swapped_arrays():
    rng = np.random.default_rng(12)
    a, b = _operands(rng, 9, 20, 11, False, False)
    want = _gemm.sgemm(a, b)
    np.testing.assert_array_equal(_gemm.sgemm(a.astype(">f4"), b.astype(">f4")), want)
    out = np.zeros((9, 20), ">f4")
    _gemm.sgemm(a, b, out=out)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_read_only_inputs(ta, tb):
    a, b = _operands(np.random.default_rng(3), 17, 33, 20, ta, tb)
    want = _gemm.sgemm(a, b, ta, tb)
    a.flags.writeable = False
    b.flags.writeable = False
    np.testing.assert_array_equal(_gemm.sgemm(a, b, ta, tb), want)


def test_out_argument(level):
    rng = np.random.default_rng(4)
    a, b = _operands(rng, 21, 37, 50, False, False)
    want = _gemm.sgemm(a, b)
    out = np.empty((21, 37), np.float32)
    assert _gemm.sgemm(a, b, out=out) is out
    np.testing.assert_array_equal(out, want)
    wide = np.full((21, 50), -1, np.float32)                 # rows further apart than N
    _gemm.sgemm(a, b, out=wide[:, 5:42])
    np.testing.assert_array_equal(wide[:, 5:42], want)
    assert np.all(wide[:, :5] == -1) and np.all(wide[:, 42:] == -1)
    strided = np.zeros((21, 74), np.float32)[:, ::2]          # no unit stride: via a copy
    _gemm.sgemm(a, b, out=strided)
    np.testing.assert_array_equal(strided, want)
    fortran = np.zeros((21, 37), np.float32, order="F")
    _gemm.sgemm(a, b, out=fortran)
    np.testing.assert_array_equal(fortran, want)


def test_out_aliasing_an_input():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    want = _gemm.sgemm(a, b)
    _gemm.sgemm(a, b, out=a)            # overwrites its own input: computed into a copy
    np.testing.assert_array_equal(a, want)


def test_nan_and_inf_propagate_as_a_plain_sum(level):
    a = np.ones((5, 4), np.float32)
    b = np.ones((4, 20), np.float32)
    a[1, 2] = np.nan
    a[2, 0] = np.inf
    b[0, 3] = 0.0               # inf * 0 is NaN: zeros are not skipped
    a[3, 1] = np.inf
    a[3, 3] = -np.inf           # inf - inf is NaN
    b[2, 7] = np.inf            # row 1 has NaN already; rows 0, 4 get +inf in column 7
    c = _gemm.sgemm(a, b)
    with np.errstate(invalid="ignore"):
        ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(c), np.isnan(ref))
    np.testing.assert_array_equal(np.isposinf(c), np.isposinf(ref))
    np.testing.assert_array_equal(np.isneginf(c), np.isneginf(ref))
    assert np.isnan(c[2, 3]) and np.isnan(c[3]).all() and np.isnan(c[1]).all()
    assert np.isposinf(c[0, 7]) and np.isposinf(c[2, 0])
    # in the transposed layouts too
    np.testing.assert_array_equal(np.isnan(_gemm.sgemm(a.T.copy(), b.T.copy(), True, True)),
                                  np.isnan(ref))


@pytest.mark.parametrize("m,n,k,ta,tb", [(32, 128, 784, False, False),
                                         (784, 128, 32, True, False),
                                         (37, 100, 300, False, True),
                                         (70, 10, 200, True, True)])
def test_deterministic_across_calls_threads_and_row_ranges(level, threads, m, n, k, ta, tb):
    a, b = _operands(np.random.default_rng(6), m, n, k, ta, tb)
    threads(1)
    one = _gemm.sgemm(a, b, ta, tb)
    np.testing.assert_array_equal(_gemm.sgemm(a, b, ta, tb), one)
    threads(2)
    two = _gemm.sgemm(a, b, ta, tb)
    assert one.tobytes() == two.tobytes()
    # rows computed on their own (other tiles, other remainders) give the same bits:
    # each element is one FMA chain over k in order
    threads(1)
    rows = slice(3, m - 2)
    part = _gemm.sgemm(a[:, rows] if ta else a[rows], b, ta, tb)
    assert part.tobytes() == one[rows].tobytes()
    cols = slice(1, n - 1)
    part = _gemm.sgemm(a, b[cols] if tb else b[:, cols], ta, tb)
    assert part.tobytes() == one[:, cols].tobytes()


def test_bad_arguments_name_sgemm_and_the_argument():
    a = np.ones((3, 4), np.float32)
    b = np.ones((4, 5), np.float32)
    with pytest.raises(ValueError, match=r"sgemm: b must be float32 .*got float64"):
        _gemm.sgemm(a, b.astype(np.float64))
    with pytest.raises(ValueError, match=r"sgemm: a must be 2-D .*got shape \[2, 3, 4\]"):
        _gemm.sgemm(np.ones((2, 3, 4), np.float32), b)
    with pytest.raises(ValueError, match=r"sgemm: a must be a NumPy array"):
        _gemm.sgemm([[1.0]], b)
    with pytest.raises(ValueError, match=r"sgemm: inner dimensions differ .*expected 3 == 4"):
        _gemm.sgemm(a, b, transpose_a=True)
    with pytest.raises(ValueError, match=r"sgemm: out must be float32 of shape \[3, 5\]"):
        _gemm.sgemm(a, b, out=np.empty((5, 3), np.float32))
    with pytest.raises(ValueError, match=r"sgemm: out must be float32"):
        _gemm.sgemm(a, b, out=np.empty((3, 5), np.float64))
    ro = np.empty((3, 5), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"sgemm: out must be writeable"):
        _gemm.sgemm(a, b, out=ro)


def test_sgemm_pays():
    old = _gemm._set_level(2)
    try:
        if _gemm.cpu_level == 2:
            assert _gemm.sgemm_pays(32, 128, 784)              # the MLP's forward product
            assert _gemm.sgemm_pays(784, 128, 32, True, False)  # its kernel gradient
            assert _gemm.sgemm_pays(256, 128, 784)              # batch 256, 26 M
            assert not _gemm.sgemm_pays(1792, 512, 28)          # 26 M with a short K
            assert not _gemm.sgemm_pays(512, 512, 512)          # 134 M: OpenBLAS
            assert not _gemm.sgemm_pays(8, 128, 512, False, True)  # B to pack for 8 rows
            assert _gemm.sgemm_pays(32, 784, 128, False, True)      # g @ W^T
            assert not _gemm.sgemm_pays(256, 512, 512, False, True)  # 64 M: OpenBLAS
        assert not _gemm.sgemm_pays(0, 4, 4) and not _gemm.sgemm_pays(4, 4, 0)
        if _gemm.cpu_level >= 1:
            _gemm._set_level(1)       # AVX2: only the small products
            assert _gemm.sgemm_pays(32, 10, 128) and not _gemm.sgemm_pays(32, 128, 784)
        _gemm._set_level(0)
        assert not _gemm.sgemm_pays(32, 10, 128)    # the baseline is never picked
    finally:
        _gemm._set_level(old)


# ---- matmul uses the kernel -------------------------------------------------------------

@pytest.mark.skipif(_gemm.cpu_level < 1, reason="matmul picks sgemm only with AVX2 or AVX-512")
@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_matmul_uses_sgemm_for_float32_matrices(ta, tb):
    a, b = _operands(np.random.default_rng(7), 32, 10, 128, ta, tb)
    assert _gemm.sgemm_pays(32, 10, 128, ta, tb)
    got = fe.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy()
    assert got.tobytes() == _gemm.sgemm(a, b, ta, tb).tobytes()
    _check_close(got, a, b, ta, tb)


def test_matmul_gradients_of_a_dense_layer_shape():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((32, 784)).astype(np.float32)
    w = rng.standard_normal((784, 128)).astype(np.float32) * 0.05
    g = rng.standard_normal((32, 128)).astype(np.float32)
    xv, wv = fe.constant(x), fe.Variable(w)
    with fe.GradientTape() as tape:
        tape.watch(xv)
        y = fe.matmul(xv, wv)
    dx, dw = tape.gradient(y, [xv, wv], output_gradients=fe.constant(g))
    _check_close(y.numpy(), x, w)
    _check_close(dw.numpy(), x, g, True, False)
    _check_close(dx.numpy(), g, w, False, True)


def test_matmul_other_dtypes_and_batches_stay_on_numpy():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((3, 5, 7))
    b = rng.standard_normal((3, 7, 4))
    assert fe.matmul(a, b).numpy().tobytes() == np.matmul(a, b).tobytes()
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    assert fe.matmul(a32, b32).numpy().tobytes() == np.matmul(a32, b32).tobytes()
    assert fe.matmul(a[0], b[0]).numpy().tobytes() == np.matmul(a[0], b[0]).tobytes()


@pytest.mark.skipif(_gemm.cpu_level < 1, reason="sgemm_pays is False without AVX2")
def test_sgemm_if_pays_computes_only_what_pays():
    rng = np.random.default_rng(10)
    a, b = _operands(rng, 32, 10, 128, False, False)
    got = _gemm.sgemm_if_pays(a, b)
    assert got is not None and got.tobytes() == _gemm.sgemm(a, b).tobytes()
    out = np.empty((32, 10), np.float32)
    assert _gemm.sgemm_if_pays(a, b, out=out) is out
    assert out.tobytes() == got.tobytes()
    # not handled: the caller's np.matmul runs (and reports any error)
    assert _gemm.sgemm_if_pays(a.astype(np.float64), b) is None
    assert _gemm.sgemm_if_pays(a[None], b) is None
    assert _gemm.sgemm_if_pays(a, b[:64]) is None                   # inner sizes differ
    assert _gemm.sgemm_if_pays(a, b, out=np.empty((10, 32), np.float32)) is None
    assert _gemm.sgemm_if_pays(a, b, out=np.empty((32, 10))) is None
    big_a, big_b = _operands(rng, 1792, 512, 28, False, False)
    assert _gemm.sgemm_if_pays(big_a, big_b) is None                 # OpenBLAS's size
    assert _gemm.sgemm_if_pays(a.tolist(), b) is None


@pytest.mark.parametrize("m,n,k", [(128, 10, 32), (128, 10, 256), (16, 15, 40), (300, 2, 7)])
def test_narrow_kernel_gradient_route_gives_the_direct_bits(level, m, n, k):
    # A^T with N < 16 is computed as C^T = B^T A into a contiguous C; an out whose rows
    # are further apart than N takes the direct route: the same FMA chains, same bits
    a, b = _operands(np.random.default_rng(11), m, n, k, True, False)
    routed = _gemm.sgemm(a, b, transpose_a=True)
    wide = np.zeros((m, n + 3), np.float32)
    _gemm.sgemm(a, b, transpose_a=True, out=wide[:, :n])
    assert routed.tobytes() == np.ascontiguousarray(wide[:, :n]).tobytes()
    _check_close(routed, a, b, True, False)
    bt = np.ascontiguousarray(b.T)          # a transposed B is read in place on this route
    assert _gemm.sgemm(a, bt, True, True).tobytes() == routed.tobytes()


def test_thread_count_chosen_at_run_time_keeps_the_bits(threads):
    # from 1 M multiply-adds on, each shape alternates one thread and all for its first
    # calls, then keeps the faster (timed, so either may win): the bits never change
    threads(0)
    a, b = _operands(np.random.default_rng(13), 64, 130, 127, True, False)
    first = _gemm.sgemm(a, b, True, False)
    for _ in range(40):
        assert _gemm.sgemm(a, b, True, False).tobytes() == first.tobytes()
    if _gemm._max_threads() == 1:
        assert _gemm._thread_choice(64, 130, 127, True, False) is None
    else:
        calls, chosen = _gemm._thread_choice(64, 130, 127, True, False)
        assert calls == 41 and chosen in (1, "all")
    small_a, small_b = _operands(np.random.default_rng(14), 32, 10, 128, False, False)
    _gemm.sgemm(small_a, small_b)
    assert _gemm._thread_choice(32, 10, 128) is None     # one thread, never timed


@pytest.mark.parametrize("m,n,k", [(33, 70, 130), (128, 10, 32), (5, 200, 600)])
def test_every_layout_gives_the_same_bits(level, m, n, k):
    # B read in place, B^T packed per block, A^T read through strides, the C^T route:
    # the same FMA chain per element each time
    a, b = _operands(np.random.default_rng(15), m, n, k, False, False)
    want = _gemm.sgemm(a, b).tobytes()
    at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    for x, y, ta, tb in [(at, b, True, False), (a, bt, False, True), (at, bt, True, True),
                         (np.asfortranarray(a), np.asfortranarray(b), False, False)]:
        assert _gemm.sgemm(x, y, ta, tb).tobytes() == want
