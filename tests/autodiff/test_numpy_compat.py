"""The tensor type where NumPy code meets it (issue 17, item 5): ``x.dtype`` works as a
NumPy dtype, and a real NumPy function given a NumPy-rules tensor that is being
differentiated raises instead of silently returning an ndarray without the gradient."""
import pickle

import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp


@pytest.mark.parametrize("dtype", [fe.float16, fe.float32, fe.float64, fe.int8, fe.int32,
                                   fe.int64, fe.uint8, fe.bool, fe.complex64])
def test_dtype_is_a_numpy_dtype_for_numpy_code(dtype):
    want = dtype.as_numpy_dtype
    nd = np.dtype(want)
    x = fnp.zeros(3, dtype=want) if dtype != fe.bool else fnp.zeros(3, dtype=bool)
    assert np.dtype(x.dtype) == nd
    assert (x.dtype.kind, x.dtype.type, x.dtype.itemsize, x.dtype.char, x.dtype.str) == \
        (nd.kind, nd.type, nd.itemsize, nd.char, nd.str)
    assert x.dtype == want and x.dtype == nd
    assert np.zeros(2, dtype=x.dtype).dtype == nd
    assert np.issubdtype(x.dtype, np.floating) == (nd.kind == "f")
    assert np.issubdtype(x.dtype, np.integer) == (nd.kind in "iu")
    assert np.issubdtype(x.dtype, np.complexfloating) == (nd.kind == "c")
    assert np.result_type(x.dtype, nd) == nd


def test_dtype_stays_tensorflows():
    x = fe.constant([1.0])
    assert x.dtype is fe.float32 and repr(x.dtype) == "fe.float32"
    assert x.dtype.name == "float32" and x.dtype.is_floating and x.dtype.as_numpy_dtype is \
        np.float32
    assert pickle.loads(pickle.dumps(x.dtype)) is fe.float32
    assert np.finfo(x.dtype).eps == np.finfo(np.float32).eps
    assert not hasattr(x.dtype, "shape")     # not mistaken for an array
    with pytest.raises(AttributeError, match="no attribute 'bogus'"):
        x.dtype.bogus  # noqa: B018 - the attribute read is what raises


def test_numpy_ufunc_on_a_differentiated_numpy_rules_tensor_raises():
    x = fnp.array([0.5, 1.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(fe.errors.FailedPreconditionError, match="gradient would be lost"):
            np.exp(x)
        y = fnp.exp(x) * 2.0
        with pytest.raises(fe.errors.FailedPreconditionError, match="fasteager.numpy"):
            np.sin(y)           # a value computed from a watched one
        # values no tape watches still convert, and .numpy() leaves the tape on purpose
        assert type(np.exp(fnp.array([1.0]))) is np.ndarray
        assert type(np.exp(y.numpy())) is np.ndarray
        total = fnp.sum(y)
    np.testing.assert_allclose(tape.gradient(total, x).numpy(), 2 * np.exp([0.5, 1.0]))
    with fe.autodiff.ForwardAccumulator(x, fnp.array([1.0, 1.0])):
        with pytest.raises(fe.errors.FailedPreconditionError):
            np.tanh(x * 3.0)


def test_numpy_interop_outside_differentiation_is_unchanged():
    x = fnp.array([0.5, 1.0])
    assert type(np.exp(x)) is np.ndarray and np.allclose(np.exp(x), np.exp([0.5, 1.0]))
    assert isinstance(np.ones(2) + x, fe.Tensor)
    # tf-style tensors under a tape keep today's interop (TensorFlow allows np.asarray)
    t = fe.constant([1.0, 2.0])
    with fe.GradientTape() as tape:
        tape.watch(t)
        assert type(np.multiply(t, t)) is np.ndarray
