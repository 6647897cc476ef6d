"""The convolution paths added for the ResNet shapes, against the NumPy loop references:
the input gradient of a strided convolution by phase decomposition (each phase a stride-1
direct convolution written into every s-th row and column of dx), and 1x1 convolutions
at any stride as one GEMM of the pixels they read (no im2col). Every variant of the
direct kernels (AVX-512, AVX2, baseline), both dtypes, batch 1, odd sizes, C_in = 3,
windows narrower than the stride (phases that receive no tap)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fasteager import _kernels as K
from tests.kernels.test_kernels import ref_conv, ref_conv_grads

TOL = {np.float32: dict(rtol=1e-4, atol=1e-4), np.float64: dict(rtol=1e-10, atol=1e-10)}
DIRECT = ("direct", "direct-avx2", "direct-baseline")


def _case_arrays(xshape, wshape, s, padding, dtype, seed, d=(1, 1)):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xshape).astype(dtype)
    w = rng.standard_normal(wshape).astype(dtype)
    dy = rng.standard_normal(ref_conv(x, w, s, padding, d).shape).astype(dtype)
    return x, w, dy


@st.composite
def strided_case(draw):
    kh, kw = draw(st.sampled_from([1, 2, 3, 4])), draw(st.sampled_from([1, 2, 3]))
    s = (draw(st.integers(1, 3)), draw(st.integers(2, 3)))
    padding = draw(st.sampled_from(["VALID", "SAME"]))
    h = draw(st.integers(kh if padding == "VALID" else 1, 11))
    w = draw(st.integers(kw if padding == "VALID" else 1, 11))
    n = draw(st.integers(1, 3))
    c = draw(st.sampled_from([1, 3, 5, 16, 17, 32]))
    o = draw(st.sampled_from([1, 3, 16, 32, 33]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    return (n, h, w, c), (kh, kw, c, o), s, padding, dtype, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=80, deadline=None)
@given(strided_case())
def test_strided_input_gradient_by_phases_matches_the_reference(case):
    xshape, wshape, s, padding, dtype, seed = case
    x, w, dy = _case_arrays(xshape, wshape, s, padding, dtype, seed)
    dxr, _ = ref_conv_grads(x, w, dy, s, padding, (1, 1))
    for algorithm in DIRECT + ("auto",):
        dx = K.conv2d_backward_input(dy, w, x.shape, s, padding, algorithm=algorithm)
        assert dx.dtype == dtype and dx.shape == x.shape and dx.flags.c_contiguous
        np.testing.assert_allclose(dx, dxr, err_msg=algorithm, **TOL[dtype])


@st.composite
def one_by_one_case(draw):
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    padding = draw(st.sampled_from(["VALID", "SAME"]))
    h, w = draw(st.integers(1, 10)), draw(st.integers(1, 10))
    n = draw(st.integers(1, 3))
    c = draw(st.sampled_from([1, 3, 16, 32]))
    o = draw(st.sampled_from([1, 5, 16, 32, 64]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    return (n, h, w, c), (1, 1, c, o), s, padding, dtype, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None)
@given(one_by_one_case())
def test_one_by_one_convolutions_at_any_stride_match_the_reference(case):
    xshape, wshape, s, padding, dtype, seed = case
    x, w, dy = _case_arrays(xshape, wshape, s, padding, dtype, seed)
    yr = ref_conv(x, w, s, padding, (1, 1))
    dxr, dwr = ref_conv_grads(x, w, dy, s, padding, (1, 1))
    for algorithm in ("im2col", "auto") + DIRECT:
        y = K.conv2d_forward(x, w, s, padding, algorithm=algorithm)
        dx = K.conv2d_backward_input(dy, w, x.shape, s, padding, algorithm=algorithm)
        dw = K.conv2d_backward_filter(x, dy, w.shape, s, padding, algorithm=algorithm)
        for name, got, want in (("y", y, yr), ("dx", dx, dxr), ("dw", dw, dwr)):
            assert got.dtype == dtype and got.shape == want.shape, (algorithm, name)
            assert got.flags.c_contiguous, (algorithm, name)
            np.testing.assert_allclose(got, want, err_msg=f"{algorithm} {name}", **TOL[dtype])


# the ResNet step's strided layers, batch 1 and odd sizes (SAME pads differently when the
# size is odd: the phases start at other rows)
RESNET_STRIDED = [
    ((1, 32, 32, 16), (3, 3, 16, 32), (2, 2), "SAME"),
    ((1, 16, 16, 32), (3, 3, 32, 64), (2, 2), "SAME"),
    ((2, 15, 17, 16), (3, 3, 16, 32), (2, 2), "SAME"),
    ((1, 32, 32, 16), (1, 1, 16, 32), (2, 2), "VALID"),
    ((1, 16, 16, 32), (1, 1, 32, 64), (2, 2), "VALID"),
    ((2, 9, 11, 3), (3, 3, 3, 16), (2, 2), "VALID"),
    ((1, 13, 13, 16), (5, 5, 16, 16), (3, 3), "SAME"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xshape,wshape,s,padding", RESNET_STRIDED)
def test_strided_model_shapes_match_the_reference(xshape, wshape, s, padding, dtype):
    x, w, dy = _case_arrays(xshape, wshape, s, padding, dtype, sum(xshape) + sum(wshape))
    yr = ref_conv(x, w, s, padding, (1, 1))
    dxr, dwr = ref_conv_grads(x, w, dy, s, padding, (1, 1))
    for algorithm in ("auto", "im2col") + DIRECT:
        y = K.conv2d_forward(x, w, s, padding, algorithm=algorithm)
        dx = K.conv2d_backward_input(dy, w, x.shape, s, padding, algorithm=algorithm)
        dw = K.conv2d_backward_filter(x, dy, w.shape, s, padding, algorithm=algorithm)
        np.testing.assert_allclose(y, yr, err_msg=f"{algorithm} y", **TOL[dtype])
        np.testing.assert_allclose(dx, dxr, err_msg=f"{algorithm} dx", **TOL[dtype])
        np.testing.assert_allclose(dw, dwr, err_msg=f"{algorithm} dw", **TOL[dtype])


def test_strided_and_dilated_input_gradient_still_matches_the_reference():
    # stride and dilation together take the zero-upsampled gradient, not the phases
    x, w, dy = _case_arrays((2, 11, 10, 16), (3, 2, 16, 16), (2, 2), "SAME", np.float64, 7,
                            d=(2, 2))
    dxr, _ = ref_conv_grads(x, w, dy, (2, 2), "SAME", (2, 2))
    for algorithm in DIRECT + ("auto",):
        dx = K.conv2d_backward_input(dy, w, x.shape, (2, 2), "SAME", (2, 2),
                                     algorithm=algorithm)
        np.testing.assert_allclose(dx, dxr, err_msg=algorithm, **TOL[np.float64])
    assert not K._auto_is_direct("conv2d_backward_input", x.shape, w.shape, (2, 2), "SAME",
                                 (2, 2))


def test_phases_without_taps_leave_zeros_not_stale_memory():
    # a 1x1 window at stride 3: two of every three rows and columns of dx get no tap
    x, w, dy = _case_arrays((2, 7, 8, 16), (1, 1, 16, 16), (3, 3), "VALID", np.float32, 11)
    for algorithm in DIRECT + ("im2col",):
        for _ in range(3):  # freed blocks of earlier calls must not show through
            dx = K.conv2d_backward_input(dy, w, x.shape, (3, 3), "VALID",
                                         algorithm=algorithm)
            mask = np.ones(x.shape[1:3], bool)
            mask[::3, ::3] = False
            assert np.all(dx[:, mask] == 0), algorithm
            np.testing.assert_allclose(dx[:, ::3, ::3], dy @ w[0, 0].T, rtol=1e-5, atol=1e-5)


def test_auto_runs_the_resnet_strided_layers_on_the_new_paths():
    if not K.direct_conv_vectorised:
        pytest.skip("auto keeps im2col where the direct kernels are not vectorised")
    # 3x3 stride 2, 16 -> 32 and 32 -> 64: the input gradient by phases (C lanes: 16, 32)
    assert K._auto_is_direct("conv2d_backward_input", (64, 32, 32, 16), (3, 3, 16, 32),
                             (2, 2), "SAME")
    assert K._auto_is_direct("conv2d_backward_input", (64, 16, 16, 32), (3, 3, 32, 64),
                             (2, 2), "SAME")
    # the 1x1 stride-2 projections: all three kernels direct at 32 lanes
    for kernel in ("conv2d_forward", "conv2d_backward_input", "conv2d_backward_filter"):
        assert K._auto_is_direct(kernel, (64, 32, 32, 16), (1, 1, 16, 32), (2, 2), "VALID")
    # 1x1 stride 1 stays one GEMM of x itself
    assert not K._auto_is_direct("conv2d_forward", (8, 9, 9, 16), (1, 1, 16, 16))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 9), st.integers(1, 9), st.sampled_from([1, 3, 16]),
       st.integers(0, 3), st.integers(0, 3), st.integers(1, 13), st.integers(1, 13),
       st.sampled_from([np.float32, np.float64]))
def test_the_padded_grid_holds_the_source_at_its_offset_and_zeros_around(n, hs, ws, c, pt, pl,
                                                                        hp, wp, dtype):
    # grids smaller than the padded source crop it (the windows never read there)
    src = np.random.default_rng(hs * ws + c).standard_normal((n, hs, ws, c)).astype(dtype)
    grid, img, row = K._window_grid(src, pt, pl, hp, wp)
    want = np.zeros((n, max(hp, pt + hs), max(wp, pl + ws), c), dtype)
    want[:, pt:pt + hs, pl:pl + ws] = src
    assert (img, row) == (grid.shape[1] * grid.shape[2] * c, grid.shape[2] * c)
    np.testing.assert_array_equal(grid, want[:, :grid.shape[1], :grid.shape[2]])
    if not (pt == 0 and pl == 0 and hp <= hs and wp <= ws):
        assert grid.shape == (n, hp, wp, c)


def test_the_threaded_filter_gradient_gives_the_same_bits_on_every_call():
    # the threads take image blocks dynamically; the partials are summed in block order
    rng = np.random.default_rng(5)
    x = rng.standard_normal((24, 20, 20, 16), dtype=np.float32)
    dy = rng.standard_normal((24, 20, 20, 32), dtype=np.float32)
    first = K.conv2d_backward_filter(x, dy, (3, 3, 16, 32), (1, 1), "SAME")
    for _ in range(10):
        np.testing.assert_array_equal(
            K.conv2d_backward_filter(x, dy, (3, 3, 16, 32), (1, 1), "SAME"), first)
    _, dwr = ref_conv_grads(x[:3], w=np.zeros((3, 3, 16, 32)), dy=dy[:3], s=(1, 1),
                            padding="SAME", d=(1, 1))
    np.testing.assert_allclose(K.conv2d_backward_filter(x[:3], dy[:3], (3, 3, 16, 32), (1, 1),
                                                        "SAME"), dwr, rtol=1e-4, atol=1e-4)
