"""Zero-copy interop, Tensor's NumPy-style methods, and UnimplementedError for the rest."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp

A = np.arange(6.0).reshape(2, 3)


def test_read_only_array_is_shared():
    a = np.arange(6.0)
    a.flags.writeable = False
    t = fnp.asarray(a)
    assert np.shares_memory(t.numpy(), a)
    assert t.dtype == np.float64


def test_writeable_array_is_copied():
    a = np.arange(6.0)
    t = fnp.asarray(a)
    assert not np.shares_memory(t.numpy(), a)
    a[0] = 100.0
    assert float(t[0]) == 0.0


def test_read_only_view_of_writeable_array_is_copied():
    base = np.arange(6.0)
    view = base.view()
    view.flags.writeable = False
    t = fnp.asarray(view)
    assert not np.shares_memory(t.numpy(), base)
    base[0] = 5.0
    assert float(t[0]) == 0.0


def test_non_contiguous_and_array_copy():
    a = np.arange(12.0).reshape(3, 4)[:, ::2]
    a.flags.writeable = False
    assert not np.shares_memory(fnp.asarray(a).numpy(), a)
    b = np.arange(3.0)
    b.flags.writeable = False
    assert not np.shares_memory(fnp.array(b).numpy(), b)     # array copies, as NumPy
    assert not np.shares_memory(fnp.asarray(b, dtype=np.float32).numpy(), b)


def test_numpy_is_a_read_only_view_and_asarray_passes_tensors():
    t = fnp.arange(4.0)
    v = t.numpy()
    assert not v.flags.writeable
    assert np.shares_memory(v, t.numpy())
    assert fnp.asarray(t) is t


def test_tensor_methods_match_numpy():
    t = fnp.asarray(A)
    cases = {
        "sum": ((), {}), "mean": ((0,), {}), "max": ((), {"axis": 1}), "min": ((), {}),
        "prod": ((1,), {}), "std": ((), {}), "var": ((), {"ddof": 1}), "argmax": ((), {}),
        "argmin": ((1,), {}), "cumsum": ((), {}), "clip": ((1, 4), {}), "flatten": ((), {}),
        "ravel": ((), {}), "all": ((), {}), "any": ((0,), {}), "round": ((), {}),
        "copy": ((), {}), "transpose": ((), {}), "squeeze": ((), {}), "trace": ((), {}),
        "repeat": ((2,), {}), "swapaxes": ((0, 1), {}),
    }
    for name, (args, kwargs) in cases.items():
        got = getattr(t, name)(*args, **kwargs)
        want = getattr(A, name)(*args, **kwargs)
        np.testing.assert_allclose(np.asarray(got), want, err_msg=name)
        assert np.asarray(got).dtype == want.dtype, name
    assert t.transpose(1, 0).shape == (3, 2) and t.transpose((1, 0)).shape == (3, 2)
    np.testing.assert_allclose(np.asarray(t.dot(A.T)), A.dot(A.T))
    np.testing.assert_allclose(np.asarray(t.T), A.T)
    assert t.reshape(3, 2).shape == (3, 2) and t.reshape((6,)).shape == (6,)
    assert t.astype(np.int32).dtype == np.int32
    assert t.ndim == 2 and t.size == 6 and t.dtype == np.float64 and t.dtype == fnp.float64
    assert t.tolist() == A.tolist() and t[1, 2].item() == 5.0


def test_fancy_indexing():
    t = fnp.asarray(A)
    labels = np.array([2, 0])
    np.testing.assert_array_equal(np.asarray(t[fnp.arange(2), labels]), A[np.arange(2), labels])
    np.testing.assert_array_equal(np.asarray(t[:, fnp.newaxis]), A[:, np.newaxis])
    np.testing.assert_array_equal(np.asarray(t[t > 2]), A[A > 2])


def test_unimplemented_names_the_function():
    with pytest.raises(fe.errors.UnimplementedError, match=r"fasteager\.numpy\.histogram is "):
        fnp.histogram
    with pytest.raises(NotImplementedError, match="fasteager.numpy.random.Philox"):
        fnp.random.Philox
    with pytest.raises(AttributeError):
        fnp.definitely_not_numpy
    with pytest.raises(fe.errors.UnimplementedError, match="out="):
        fnp.add(A, A, out=np.empty_like(A))
    with pytest.raises(fe.errors.UnimplementedError, match="out="):
        fnp.sum(A, out=np.empty(()))
    with pytest.raises(fe.errors.UnimplementedError):
        fnp.random.shuffle(A)
    with pytest.raises(fe.errors.InvalidArgumentError, match="ord"):
        fnp.linalg.norm(A, ord="bogus")


def test_top_level_keeps_tensorflow_rules():
    assert fe.constant([1.0, 2.0]).dtype == fe.float32
    assert fnp.array([1.0, 2.0]).dtype == np.float64
    with pytest.raises(fe.errors.InvalidArgumentError):
        fe.add(fe.constant([1], dtype=fe.int32), fe.constant([1.0], dtype=fe.float64))


def test_docs_table_lists_every_covered_name():
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "numpy.md").read_text()
    missing = [n for n in fnp._covered() if "`%s`" % n not in doc]
    assert not missing, missing
