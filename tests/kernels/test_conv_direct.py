"""The direct convolution kernels (_conv_direct.h) against the im2col + GEMM path and the
NumPy loop references of test_kernels, over random shapes, strides, dilations, paddings
and both float dtypes; plus the shape-based choice between the two paths."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fasteager import _kernels as K
from tests.kernels.test_kernels import ref_conv, ref_conv_grads

TOL = {np.float32: dict(rtol=1e-4, atol=1e-4), np.float64: dict(rtol=1e-10, atol=1e-10)}
# "direct-avx2" and "direct-baseline" run the variants compiled for other CPUs (at most
# the one this CPU runs), with their smaller register tiles
ALGORITHMS = ("direct", "direct-avx2", "direct-baseline", "im2col", "auto")


def run_all(x, w, dy, s, padding, d, algorithm):
    return (K.conv2d_forward(x, w, s, padding, d, algorithm=algorithm),
            K.conv2d_backward_input(dy, w, x.shape, s, padding, d, algorithm=algorithm),
            K.conv2d_backward_filter(x, dy, w.shape, s, padding, d, algorithm=algorithm))


def check_against_reference(x, w, s, padding, d, rng):
    dtype = x.dtype.type
    yr = ref_conv(x, w, s, padding, d)
    dy = rng.standard_normal(yr.shape).astype(dtype)
    dxr, dwr = ref_conv_grads(x, w, dy, s, padding, d)
    for algorithm in ALGORITHMS:
        y, dx, dw = run_all(x, w, dy, s, padding, d, algorithm)
        for name, got, want in (("y", y, yr), ("dx", dx, dxr), ("dw", dw, dwr)):
            assert got.dtype == dtype and got.shape == want.shape, (algorithm, name)
            assert got.flags.c_contiguous, (algorithm, name)
            np.testing.assert_allclose(got, want, err_msg=f"{algorithm} {name}", **TOL[dtype])


@st.composite
def conv_case(draw):
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = draw(st.sampled_from(["VALID", "SAME"]))
    # VALID needs the dilated window inside the input
    h = draw(st.integers((kh - 1) * d[0] + 1 if padding == "VALID" else 1, 11))
    w = draw(st.integers((kw - 1) * d[1] + 1 if padding == "VALID" else 1, 11))
    n = draw(st.integers(1, 3))
    c = draw(st.sampled_from([1, 2, 3, 5, 16, 17]))
    o = draw(st.sampled_from([1, 3, 8, 15, 16, 17, 32, 33]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    return (n, h, w, c), (kh, kw, c, o), s, padding, d, dtype, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=120, deadline=None)
@given(conv_case())
def test_every_path_matches_the_reference_on_random_shapes(case):
    xshape, wshape, s, padding, d, dtype, seed = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xshape).astype(dtype)
    w = rng.standard_normal(wshape).astype(dtype)
    check_against_reference(x, w, s, padding, d, rng)


# the guide's convnet (26x26x16 -> 24x24x16 after a 28x28x1 -> 26x26x16), ResNet-style SAME
# layers, and batches large enough that the kernels run on several threads
CONVNET_CASES = [
    ((1, 28, 28, 1), (3, 3, 1, 16), (1, 1), "VALID"),
    ((3, 26, 26, 16), (3, 3, 16, 16), (1, 1), "VALID"),
    ((8, 26, 26, 16), (3, 3, 16, 16), (1, 1), "VALID"),
    ((20, 28, 28, 1), (3, 3, 1, 16), (1, 1), "VALID"),
    ((2, 32, 32, 3), (3, 3, 3, 16), (1, 1), "SAME"),
    ((2, 16, 16, 32), (3, 3, 32, 32), (1, 1), "SAME"),
    ((2, 32, 32, 16), (3, 3, 16, 32), (2, 2), "SAME"),
    ((2, 9, 9, 16), (3, 3, 16, 64), (2, 2), "SAME"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xshape,wshape,s,padding", CONVNET_CASES)
def test_direct_equals_im2col_on_model_shapes(xshape, wshape, s, padding, dtype):
    rng = np.random.default_rng(sum(xshape) + sum(wshape))
    x = rng.standard_normal(xshape).astype(dtype)
    w = rng.standard_normal(wshape).astype(dtype)
    dy = rng.standard_normal(K.conv2d_output_shape(xshape, wshape, s, padding)).astype(dtype)
    direct = run_all(x, w, dy, s, padding, (1, 1), "direct")
    im2col = run_all(x, w, dy, s, padding, (1, 1), "im2col")
    auto = run_all(x, w, dy, s, padding, (1, 1), "auto")
    # float32 sums of up to 20*26*26 products: compare relative to their scale
    tol = dict(rtol=1e-4, atol=1e-3) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-9)
    for a, b, c in zip(direct, im2col, auto):
        np.testing.assert_allclose(a, b, **tol)
        np.testing.assert_allclose(c, b, **tol)


def test_the_direct_kernels_read_noncontiguous_inputs():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 9, 10, 6))[:, ::-1, :, 1:5]
    w = np.asfortranarray(rng.standard_normal((3, 3, 4, 16)))
    check_against_reference(x, w, (1, 1), "SAME", (1, 2), rng)


def test_the_im2col_path_in_several_image_blocks(monkeypatch):
    # the shapes auto sends to the direct kernels: keep im2col's blocking covered too
    monkeypatch.setattr(K, "_block_bytes", 1 << 16)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 12, 12, 16))
    w = rng.standard_normal((3, 3, 16, 16))
    dy = rng.standard_normal((5, 12, 12, 16))
    dxr, dwr = ref_conv_grads(x, w, dy, (1, 1), "SAME", (1, 1))
    y, dx, dw = run_all(x, w, dy, (1, 1), "SAME", (1, 1), "im2col")
    np.testing.assert_allclose(y, ref_conv(x, w, (1, 1), "SAME", (1, 1)), rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(dx, dxr, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dw, dwr, rtol=1e-10, atol=1e-10)


def test_empty_inputs_on_the_direct_path():
    x = np.zeros((0, 5, 5, 3), np.float32)
    w = np.ones((3, 3, 3, 16), np.float32)
    dy = np.zeros((0, 3, 3, 16), np.float32)
    y, dx, dw = run_all(x, w, dy, (1, 1), "VALID", (1, 1), "direct")
    assert y.shape == (0, 3, 3, 16) and dx.shape == x.shape
    np.testing.assert_array_equal(dw, np.zeros(w.shape, np.float32))


@pytest.mark.parametrize("kernel", ["conv2d_forward", "conv2d_backward_input",
                                    "conv2d_backward_filter"])
def test_unknown_algorithm_is_a_value_error_naming_the_kernel(kernel):
    x = np.ones((1, 4, 4, 2))
    w = np.ones((3, 3, 2, 2))
    dy = np.ones((1, 2, 2, 2))
    call = {"conv2d_forward": lambda a: K.conv2d_forward(x, w, algorithm=a),
            "conv2d_backward_input": lambda a: K.conv2d_backward_input(dy, w, x.shape,
                                                                       algorithm=a),
            "conv2d_backward_filter": lambda a: K.conv2d_backward_filter(x, dy, w.shape,
                                                                         algorithm=a)}[kernel]
    with pytest.raises(ValueError, match=rf"{kernel}: unknown algorithm \(expected 'auto', "
                                         r"'direct' or 'im2col', got 'winograd'\)"):
        call("winograd")
    with pytest.raises(ValueError, match=rf"{kernel}: unknown algorithm .*got \['direct'\]"):
        call(["direct"])


def test_auto_takes_the_direct_kernels_for_few_channels_only():
    guide = [((32, 28, 28, 1), (3, 3, 1, 16)), ((32, 26, 26, 16), (3, 3, 16, 16))]
    for xs, ws in guide:
        for kernel in ("conv2d_forward", "conv2d_backward_filter"):
            assert K._auto_is_direct(kernel, xs, ws) == K.direct_conv_vectorised
    assert K._auto_is_direct("conv2d_backward_input", *guide[1]) == K.direct_conv_vectorised
    # dx of a 1-channel image would fill 1 of 16 lanes; 1x1 filters are one GEMM already;
    # a strided and dilated input gradient would do stride_h * stride_w times the work
    # (strided alone runs by phases: test_conv_paths.py); wide layers are BLAS's
    assert not K._auto_is_direct("conv2d_backward_input", *guide[0])
    assert not K._auto_is_direct("conv2d_forward", (8, 9, 9, 16), (1, 1, 16, 16))
    assert not K._auto_is_direct("conv2d_backward_input", (8, 19, 19, 16), (3, 3, 16, 16),
                                 (2, 2), "SAME", (2, 2))
    assert not K._auto_is_direct("conv2d_forward", (8, 9, 9, 128), (3, 3, 128, 128))
