"""reduce_sum/reduce_mean call np.add.reduce directly (np.sum's wrapper costs ~2 us);
their results must be bitwise NumPy's np.sum/np.mean."""
import numpy as np
import pytest

import fasteager as fe

SHAPES = [(), (1,), (7,), (1000,), (3, 5), (4, 1, 6), (2, 3, 4, 5), (0,), (0, 3), (3, 0)]


def axes_of(ndim):
    out = [None]
    for a in range(ndim):
        out.append((a,))
    if ndim >= 2:
        out.append((0, ndim - 1))
        out.append(tuple(range(ndim)))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape", SHAPES)
def test_sum_and_mean_are_numpys(shape, dtype):
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    for axis in axes_of(len(shape)):
        for keepdims in (False, True):
            got = fe.reduce_sum(x, axis=list(axis) if axis else None, keepdims=keepdims)
            want = np.sum(x, axis=axis, keepdims=keepdims,
                          dtype=x.dtype if x.dtype.kind == "i" else None)
            np.testing.assert_array_equal(got.numpy(), want)
            assert got.numpy().dtype == want.dtype
            if x.dtype.kind == "f" and x.size:
                got = fe.reduce_mean(x, axis=list(axis) if axis else None, keepdims=keepdims)
                if 0 in np.shape(want) or (axis and any(shape[a] == 0 for a in axis)):
                    continue
                want = np.mean(x, axis=axis, keepdims=keepdims)
                np.testing.assert_array_equal(got.numpy(), want)
                assert got.numpy().dtype == want.dtype


# runs of axes with 8 or more entries kept after them take _kernels.sum_middle_axes, which
# must add in NumPy's order (row by row) to give its bits, NaN and -0.0 included
MIDDLE = [((32, 6, 6, 16), (0, 1, 2)), ((32, 6, 6, 16), (1, 2)), ((5, 7, 8), (0,)),
          ((5, 7, 8), (1,)), ((3, 4, 5, 9), (1, 2)), ((2, 3, 8), (0, 1)), ((100, 33), (0,)),
          ((4, 3, 1000), (0, 1)), ((2, 1, 8), (1,))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", MIDDLE)
def test_sums_over_middle_axes_are_numpys(shape, axis, dtype):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    x.flat[::97] = np.nan
    x.flat[5::89] = -0.0
    for keepdims in (False, True):
        got = fe.reduce_sum(x, axis=list(axis), keepdims=keepdims).numpy()
        np.testing.assert_array_equal(got, np.sum(x, axis=axis, keepdims=keepdims))
        got = fe.reduce_mean(x, axis=list(axis), keepdims=keepdims).numpy()
        np.testing.assert_array_equal(got, np.mean(x, axis=axis, keepdims=keepdims))
    # the same entries, not contiguous: NumPy's own loop
    xt = np.swapaxes(np.swapaxes(x, 0, -1).copy(), 0, -1)
    np.testing.assert_array_equal(fe.reduce_sum(xt, axis=list(axis)).numpy(),
                                  np.sum(xt, axis=axis))
