"""Segment reductions, bincount and confusion_matrix (tf.math): values, dtypes and errors
as TensorFlow 2.21 gives them (literal values below were printed by TensorFlow), gradients
against finite differences."""
import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

m = fe.math


def close(t, want, dtype=None, rtol=1e-6, atol=1e-6):
    assert isinstance(t, fe.Tensor)
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    np.testing.assert_allclose(t.numpy(), np.asarray(want), rtol=rtol, atol=atol)


# ---- segments -----------------------------------------------------------------------------

DATA = [[1., 2.], [3., 4.], [5., 6.]]


F32_MAX = np.finfo(np.float32).max


def test_bincount():
    close(m.bincount([1, 1, 3]), [0, 2, 0, 1], fe.int32)
    close(m.bincount([1, 1, 3], weights=[0.5, 1., 2.]), [0., 1.5, 0., 2.], fe.float32)
    close(m.bincount([1, 1, 3], minlength=6, maxlength=2), [0, 2])
    close(m.bincount([[1, 1], [0, 3]], axis=-1), [[0, 2, 0, 0], [1, 0, 0, 1]])
    close(m.bincount([1, 1, 3], binary_output=True), [0, 1, 0, 1])
    with pytest.raises(fe.errors.InvalidArgumentError, match="non-negative"):
        m.bincount([1, -1, 3])
    w = fe.constant([0.5, 1., 2.])
    with fe.GradientTape() as tape:
        tape.watch(w)
        total = fe.reduce_sum(m.bincount([1, 1, 3], weights=w) * fe.constant([1., 2., 3., 4.]))
    close(tape.gradient(total, w), [2., 2., 4.])


def test_confusion_matrix():
    want = np.zeros((5, 5), np.int32)
    want[1, 2] = want[2, 2] = want[4, 4] = 1
    close(m.confusion_matrix([1, 2, 4], [2, 2, 4]), want, fe.int32)
    cm = m.confusion_matrix([1, 2, 4], [2, 2, 4], num_classes=5, weights=[1., 2., 3.],
                            dtype=fe.float32)
    close(cm, want * np.array([[1], [1], [2], [1], [3]]), fe.float32)
    with pytest.raises(fe.errors.InvalidArgumentError, match="out of bound"):
        m.confusion_matrix([1, 2, 4], [2, 2, 4], num_classes=3)


def test_sorted_segments():
    close(m.segment_max(DATA, [0, 0, 2]), [[3., 4.], [0., 0.], [5., 6.]])
    close(m.segment_min(DATA, [0, 0, 2]), [[1., 2.], [0., 0.], [5., 6.]])
    close(m.segment_mean(DATA, [0, 0, 2]), [[2., 3.], [0., 0.], [5., 6.]])
    close(m.segment_prod(DATA, [0, 0, 2]), [[3., 8.], [1., 1.], [5., 6.]])
    close(m.segment_max([1, 2, 3], [0, 0, 2]), [2, 0, 3], fe.int32)
    with pytest.raises(fe.errors.InvalidArgumentError, match="sorted"):
        m.segment_max(DATA, [1, 0, 2])


def test_unsorted_segments():
    ids = [2, 0, 2]
    close(m.unsorted_segment_max(DATA, ids, 4),
          [[3., 4.], [-F32_MAX] * 2, [5., 6.], [-F32_MAX] * 2], rtol=0)
    close(m.unsorted_segment_min(DATA, ids, 4),
          [[3., 4.], [F32_MAX] * 2, [1., 2.], [F32_MAX] * 2], rtol=0)
    close(m.unsorted_segment_mean(DATA, ids, 4), [[3., 4.], [0., 0.], [3., 4.], [0., 0.]])
    close(m.unsorted_segment_prod(DATA, ids, 4), [[3., 4.], [1., 1.], [5., 12.], [1., 1.]])
    close(m.unsorted_segment_sqrt_n(DATA, ids, 4),
          [[3., 4.], [0., 0.], [4.242641, 5.656854], [0., 0.]])
    close(m.unsorted_segment_max([1, 2, 3], [2, 0, -1], 3), [2, -2147483648, 1], fe.int32)
    with pytest.raises(fe.errors.InvalidArgumentError, match="out of range"):
        m.unsorted_segment_max(DATA, [0, 5, 1], 3)


def test_segment_max_gradient_shares_ties():
    x = fe.constant([2., 2., 1., 5.])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(m.segment_max(x, [0, 0, 0, 1]) * fe.constant([1., 10.]))
    close(tape.gradient(y, x), [0.5, 0.5, 0., 10.])


def test_segment_prod_gradient_at_zeros():
    # one zero: its gradient is the product of the others; two zeros: all zero
    x = fe.constant([0., 2., 3., 0., 0., 4.])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(m.unsorted_segment_prod(x, [0, 0, 0, 1, 1, 1], 2))
    close(tape.gradient(y, x), [6., 0., 0., 0., 0., 0.])
    check_grads(lambda t: m.segment_prod(t, [0, 0, 1, 1, 1]), [[0.5, -1.5, 2.0, 0.0, 1.2]])


def test_segment_mean_gradient():
    check_grads(lambda t: m.unsorted_segment_mean(t, [1, 0, 1, 3], 4),
                [[[0.5, 1.0], [-1.5, 2.0], [0.3, 0.1], [1.0, 2.0]]])
    check_grads(lambda t: m.unsorted_segment_sqrt_n(t, [1, 0, 1], 2), [[0.5, -1.5, 2.0]])
