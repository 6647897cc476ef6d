"""Array ops built on getitem (gather family, pad modes, slices, sort, top_k, segment sums)
and the math composites: forward vs NumPy, gradients vs finite differences, errors."""
import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

RNG = np.random.default_rng(0)
P = RNG.standard_normal((3, 4, 5))
Err = fe.errors.InvalidArgumentError


def _np(t):
    return np.asarray(t.numpy() if isinstance(t, fe.Tensor) else t)


# ---- gather ---------------------------------------------------------------------------------

def _gather_ref(params, indices, axis, batch_dims):
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([_gather_ref(p, i, axis - 1, batch_dims - 1)
                     for p, i in zip(params, indices)])


@pytest.mark.parametrize("indices,axis,batch_dims", [
    (np.array([2, 0, 2]), 0, 0), (np.array([[1, 3], [0, 0]]), 1, 0), (np.array([4, 0]), -1, 0),
    (np.array([[1, 0], [2, 2], [0, 1]]), 1, 1), (np.array([[4], [0], [1]]), 2, 1),
    (np.array([[[1, 2], [0, 0], [3, 3], [4, 1]]] * 3), 2, 2),
])
def test_gather(indices, axis, batch_dims):
    got = fe.gather(P, indices, axis=axis, batch_dims=batch_dims)
    np.testing.assert_allclose(_np(got), _gather_ref(P, indices, axis % 3, batch_dims))
    check_grads(lambda p: fe.gather(p, indices, axis=axis, batch_dims=batch_dims) ** 2, [P])


def test_gather_repeated_indices_accumulate():
    p = fe.constant([1.0, 2.0, 3.0])
    with fe.GradientTape() as tape:
        tape.watch(p)
        y = fe.reduce_sum(fe.gather(p, fe.constant([2, 2, 0])))
    np.testing.assert_array_equal(_np(tape.gradient(y, p)), [1.0, 0.0, 2.0])


def test_gather_errors():
    with pytest.raises(Err, match="gather: index 5 is out of range"):
        fe.gather(P, [5], axis=1)
    with pytest.raises(Err, match="gather: index -1"):
        fe.gather(P, [-1])
    with pytest.raises(Err, match="gather: indices must be integers"):
        fe.gather(P, [0.5])
    with pytest.raises(Err, match="gather: batch dimensions differ"):
        fe.gather(P, np.zeros((2, 1), np.int32), axis=1, batch_dims=1)


def test_gather_nd():
    idx = np.array([[0, 1], [2, 3], [0, 1]])
    np.testing.assert_allclose(_np(fe.gather_nd(P, idx)), P[idx[:, 0], idx[:, 1]])
    idx3 = np.array([[[1, 2, 3]], [[0, 0, 0]]])
    np.testing.assert_allclose(_np(fe.gather_nd(P, idx3)), P[idx3[..., 0], idx3[..., 1],
                                                              idx3[..., 2]])
    bidx = np.array([[1], [3], [0]])   # batch_dims=1: per-row index into axis 1
    np.testing.assert_allclose(_np(fe.gather_nd(P, bidx, batch_dims=1)),
                               P[np.arange(3), bidx[:, 0]])
    check_grads(lambda p: fe.gather_nd(p, idx) ** 2, [P])
    check_grads(lambda p: fe.gather_nd(p, bidx, batch_dims=1) ** 2, [P])
    with pytest.raises(Err, match="gather_nd: index 4 is out of range"):
        fe.gather_nd(P, [[0, 4]])


def test_scatter_nd_sums_duplicates_and_has_gradient():
    idx = np.array([[0], [2], [0]])
    upd = RNG.standard_normal((3, 4))
    want = np.zeros((3, 4))
    np.add.at(want, idx[:, 0], upd)
    np.testing.assert_allclose(_np(fe.scatter_nd(idx, upd, [3, 4])), want)
    ints = fe.scatter_nd([[1], [1]], fe.constant([2, 3]), [3])
    np.testing.assert_array_equal(_np(ints), [0, 5, 0])
    check_grads(lambda u: fe.scatter_nd(idx, u * u, [3, 4]), [upd])
    with pytest.raises(Err, match="scatter_nd: updates have the wrong shape"):
        fe.scatter_nd(idx, upd[:2], [3, 4])


def test_segment_sums():
    data = RNG.standard_normal((5, 2))
    ids = np.array([0, 0, 1, 3, 3])
    want = np.zeros((4, 2))
    np.add.at(want, ids, data)
    np.testing.assert_allclose(_np(fe.math.segment_sum(data, ids)), want)
    check_grads(lambda d: fe.math.segment_sum(d * d, ids), [data])
    uids = np.array([2, -1, 0, 2, 1])
    uwant = np.zeros((3, 2))
    np.add.at(uwant, uids[uids >= 0], data[uids >= 0])
    np.testing.assert_allclose(_np(fe.math.unsorted_segment_sum(data, uids, 3)), uwant)
    check_grads(lambda d: fe.math.unsorted_segment_sum(d * d, uids, 3), [data])
    with pytest.raises(Err, match="sorted"):
        fe.math.segment_sum(data, [1, 0, 0, 0, 0])


# ---- masks, slices, reverse, repeat -----------------------------------------------------------

def test_boolean_mask():
    m = P[:, :, 0] > 0
    np.testing.assert_allclose(_np(fe.boolean_mask(P, m)), P[m])
    m1 = np.array([True, False, True, True, False])
    np.testing.assert_allclose(_np(fe.boolean_mask(P, m1, axis=2)), P[:, :, m1])
    check_grads(lambda p: fe.boolean_mask(p, m1, axis=-1) ** 2, [P])
    with pytest.raises(Err, match="boolean_mask: mask shape"):
        fe.boolean_mask(P, [True, False])
    with pytest.raises(Err, match="boolean_mask: mask must be bool or numeric"):
        fe.boolean_mask(P, fe.fill(P.shape, "a"))


def test_slice_and_strided_slice():
    np.testing.assert_allclose(_np(fe.slice(P, [1, 0, 2], [2, -1, 2])), P[1:3, :, 2:4])
    check_grads(lambda p: fe.slice(p, [1, 0, 2], [2, -1, 2]) ** 2, [P])
    with pytest.raises(Err, match="slice: axis 0"):
        fe.slice(P, [2, 0, 0], [2, 1, 1])
    got = fe.strided_slice(P, [0, 3, 0], [2, 0, 5], [1, -1, 2], end_mask=1)
    np.testing.assert_allclose(_np(got), P[0:, 3:0:-1, 0:5:2])
    got = fe.strided_slice(P, [1, 0, 0], [2, 0, 3], shrink_axis_mask=1, new_axis_mask=2)
    np.testing.assert_allclose(_np(got), P[1, None, 0:3])
    got = fe.strided_slice(P, [0, 1], [0, 3], ellipsis_mask=1)
    np.testing.assert_allclose(_np(got), P[..., 1:3])
    check_grads(lambda p: fe.strided_slice(p, [2, 0], [0, 4], [-1, 2]) ** 2, [P])


def test_reverse_and_repeat():
    np.testing.assert_allclose(_np(fe.reverse(P, [0, -1])), P[::-1, :, ::-1])
    check_grads(lambda p: fe.reverse(p, [1]) * p, [P])
    np.testing.assert_allclose(_np(fe.repeat(P, 2, axis=1)), np.repeat(P, 2, axis=1))
    np.testing.assert_allclose(_np(fe.repeat(P, [1, 0, 3], axis=0)),
                               np.repeat(P, [1, 0, 3], axis=0))
    np.testing.assert_allclose(_np(fe.repeat([[1, 2], [3, 4]], 2)), np.repeat([1, 2, 3, 4], 2))
    check_grads(lambda p: fe.repeat(p, [2, 0, 1], axis=0) ** 2, [P])


def test_meshgrid():
    x, y = np.arange(3.0), np.arange(4.0)
    for indexing in ("xy", "ij"):
        got = fe.meshgrid(x, y, indexing=indexing)
        for g, w in zip(got, np.meshgrid(x, y, indexing=indexing)):
            np.testing.assert_array_equal(_np(g), w)
    check_grads(lambda a, b: [t * t for t in fe.meshgrid(a, b)], [x, y])


# ---- tile, pad, one_hot --------------------------------------------------------------------

def test_tile_and_errors():
    np.testing.assert_allclose(_np(fe.tile(P, [1, 2, 3])), np.tile(P, [1, 2, 3]))
    check_grads(lambda p: fe.tile(p, [2, 1, 2]) ** 2, [P])
    with pytest.raises(Err, match="tile: multiples"):
        fe.tile(P, [2, 2])


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "reflect"])
def test_pad_modes(mode):
    pads = [[1, 2], [0, 3], [2, 1]]
    got = fe.pad(P, pads, mode=mode, constant_values=0.0)
    np_mode = "constant" if mode == "CONSTANT" else mode.lower()
    np.testing.assert_allclose(_np(got), np.pad(P, pads, mode=np_mode))
    check_grads(lambda p: fe.pad(p, pads, mode=mode) ** 2, [P])


def test_pad_errors_and_constant_values():
    x = fe.constant([[1, 2], [3, 4]])
    np.testing.assert_array_equal(_np(fe.pad(x, [[0, 1], [1, 0]], constant_values=7)),
                                  np.pad([[1, 2], [3, 4]], [[0, 1], [1, 0]], constant_values=7))
    with pytest.raises(Err, match="pad: REFLECT paddings"):
        fe.pad(x, [[2, 0], [0, 0]], mode="REFLECT")
    with pytest.raises(Err, match="pad: paddings must be an int array of shape"):
        fe.pad(x, [[1, 1]])
    with pytest.raises(Err, match="pad: mode"):
        fe.pad(x, [[1, 1], [1, 1]], mode="EDGE")


def test_one_hot():
    idx = np.array([[0, 3], [1, -1]])
    want = (idx[..., None] == np.arange(3)).astype(np.float32)
    got = fe.one_hot(idx, 3)
    assert got.dtype == fe.float32
    np.testing.assert_array_equal(_np(got), want)
    got = fe.one_hot(idx, 3, on_value=5, off_value=-1, axis=0)
    assert got.dtype == fe.int32
    np.testing.assert_array_equal(_np(got), np.moveaxis(np.where(want > 0, 5, -1), -1, 0))
    assert fe.one_hot([1], 2, dtype=fe.float64).dtype == fe.float64
    with pytest.raises(Err, match="one_hot: unsupported dtype"):
        fe.one_hot([1.0], 2)


# ---- sort, argsort, top_k ------------------------------------------------------------------

def test_sort_argsort_directions():
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 2.0]])
    np.testing.assert_array_equal(_np(fe.sort(x)), np.sort(x))
    np.testing.assert_array_equal(_np(fe.sort(x, direction="DESCENDING")), -np.sort(-x))
    np.testing.assert_array_equal(_np(fe.sort(x, axis=0)), np.sort(x, axis=0))
    np.testing.assert_array_equal(_np(fe.argsort(x, direction="DESCENDING")),
                                  [[0, 2, 1, 3], [2, 3, 0, 1]])   # ties keep their order
    assert fe.argsort(x).dtype == fe.int32
    check_grads(lambda t: fe.sort(t * t, direction="DESCENDING"), [P])
    with pytest.raises(Err, match="sort: direction"):
        fe.sort(x, direction="UP")


def test_top_k():
    x = np.array([[1.0, 5.0, 3.0, 5.0], [2.0, 0.0, -1.0, 4.0]])
    values, indices = fe.math.top_k(x, k=2)
    np.testing.assert_array_equal(_np(values), [[5.0, 5.0], [4.0, 2.0]])
    np.testing.assert_array_equal(_np(indices), [[1, 3], [3, 0]])
    res = fe.math.top_k(x)
    assert res.values.shape == (2, 1) and res.indices.dtype == fe.int32
    check_grads(lambda t: fe.math.top_k(t * t, k=3).values, [P])
    with pytest.raises(Err, match="top_k: k must be"):
        fe.math.top_k(x, k=5)


# ---- math composites and ops beyond the table -------------------------------------------------

def test_reduce_prod_gradient_with_zeros():
    x = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]])
    t = fe.constant(x)
    with fe.GradientTape() as tape:
        tape.watch(t)
        y = fe.reduce_prod(t, axis=1)
    np.testing.assert_array_equal(_np(tape.gradient(y, t)),
                                  [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]])
    check_grads(lambda a: fe.reduce_prod(a, axis=[0, 2], keepdims=True), [P])
    check_grads(lambda a: fe.reduce_prod(a), [P[:2, :2, :2]])


def test_reduce_prod_int_wraps_like_numpy():
    x = np.full(40, 3, dtype=np.int32)
    assert int(fe.reduce_prod(x)) == int(np.prod(x, dtype=np.int32))
    assert fe.reduce_prod(x).dtype == fe.int32


def test_logsumexp_stable_and_std_variance():
    x = np.array([[1000.0, 1000.0], [-1000.0, -np.inf]], dtype=np.float32)
    got = _np(fe.reduce_logsumexp(x, axis=1))
    np.testing.assert_allclose(got, [1000.0 + np.log(2.0), -1000.0], rtol=1e-6)
    assert got.dtype == np.float32
    assert float(fe.reduce_logsumexp(np.full(3, -np.inf))) == -np.inf
    np.testing.assert_allclose(_np(fe.math.reduce_variance(P, axis=1)), np.var(P, axis=1))
    np.testing.assert_allclose(_np(fe.math.reduce_std(P, keepdims=True)),
                               np.std(P, keepdims=True))
    check_grads(lambda a: fe.math.reduce_std(a, axis=-1), [P])


def test_cumsum_int_and_errors():
    np.testing.assert_array_equal(_np(fe.cumsum([1, 2, 3], exclusive=True)), [0, 1, 3])
    assert fe.cumsum(np.array([1, 2], np.int32)).dtype == fe.int32
    np.testing.assert_allclose(_np(fe.cumsum(P, axis=1)), np.cumsum(P, axis=1))
    with pytest.raises(Err, match="cumsum: input must have rank >= 1"):
        fe.cumsum(1.0)


def test_log_sigmoid_and_erf():
    x = np.array([-200.0, -1.0, 0.5, 200.0])
    np.testing.assert_allclose(_np(fe.math.log_sigmoid(x)), -np.logaddexp(0, -x))
    check_grads(fe.math.log_sigmoid, [np.array([-3.0, -0.7, 0.4, 2.0])])
    import math
    big = np.linspace(-6, 6, 101)
    np.testing.assert_allclose(_np(fe.math.erf(big)), [math.erf(v) for v in big], rtol=1e-15)
    with pytest.raises(Err, match="erf: unsupported dtype"):
        fe.math.erf([1, 2])
