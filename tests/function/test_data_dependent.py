"""Python-level ops that read a tensor's values (indices, sort order) stay correct when
the tensor changes between calls of an fe.function (it runs them eagerly)."""
import warnings

import numpy as np

import fasteager as fe


def _call_twice(f, a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(a).numpy(), f(b).numpy()


def test_gather_with_changing_indices():
    params = fe.constant([10.0, 20.0, 30.0])
    f = fe.function(lambda i: fe.gather(params, i))
    r1, r2 = _call_twice(f, fe.constant([0, 1]), fe.constant([2, 2]))
    assert r1.tolist() == [10.0, 20.0] and r2.tolist() == [30.0, 30.0]


def test_tensor_index_with_changing_labels():
    x = fe.constant(np.arange(6.0).reshape(3, 2))
    f = fe.function(lambda labels: x[fe.range(3), labels])
    r1, r2 = _call_twice(f, fe.constant([0, 1, 0]), fe.constant([1, 0, 1]))
    assert r1.tolist() == [0.0, 3.0, 4.0] and r2.tolist() == [1.0, 2.0, 5.0]


def test_sort_and_top_k_follow_their_input():
    f = fe.function(lambda v: fe.sort(v))
    r1, r2 = _call_twice(f, fe.constant([3.0, 1.0, 2.0]), fe.constant([0.0, 5.0, -1.0]))
    assert r1.tolist() == [1.0, 2.0, 3.0] and r2.tolist() == [-1.0, 0.0, 5.0]
    g = fe.function(lambda v: fe.math.top_k(v, 1).values)
    r1, r2 = _call_twice(g, fe.constant([3.0, 1.0]), fe.constant([0.0, 5.0]))
    assert r1.tolist() == [3.0] and r2.tolist() == [5.0]


def test_boolean_mask_and_fill():
    f = fe.function(lambda v: fe.boolean_mask(v, v > 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert f(fe.constant([1.0, -1.0])).numpy().tolist() == [1.0]
        assert f(fe.constant([-1.0, 2.0])).numpy().tolist() == [2.0]
    h = fe.function(lambda v: fe.fill([2], fe.reduce_sum(v)))
    r1, r2 = _call_twice(h, fe.constant([1.0, 2.0]), fe.constant([5.0, 5.0]))
    assert r1.tolist() == [3.0, 3.0] and r2.tolist() == [10.0, 10.0]


def test_the_fallback_warning_points_at_the_users_call():
    import warnings
    f = fe.function(lambda x: float(x) * x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(fe.constant(2.0))                      # <- the line the warning names
    assert caught and caught[0].filename == __file__
