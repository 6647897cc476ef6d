"""NumPy indexing on tensors: forward against NumPy, gradients (orders 1 and 2) against
finite differences, and errors as InvalidArgumentError naming getitem."""
import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7.0 - 1.0
MASK = np.array([[True, False, True, True], [False, False, True, False],
                 [True, True, False, False]])

KEYS = [
    1, -1, (1, 2), (0, -1, 3), slice(None), slice(None, None, -1), (slice(None), slice(1, None)),
    (Ellipsis, 1), (Ellipsis, slice(None, None, -2)), (None, 1), (1, None, Ellipsis, None),
    (slice(None), None, slice(2, 0, -1)), (), Ellipsis,
    np.array([1, 0, 1]), [1, 0, 1], (slice(None), [2, 0, 2, 2]), (0, [0, 2], [1, 3]),
    (Ellipsis, [3, 3, 0]), ([0, 1], slice(None), [1, 2]), (slice(None), MASK),
    (1, MASK), (np.array([True, False]),), (slice(None), np.array([[0, 1], [2, 2]])),
    (None, [1, 1], Ellipsis), (np.array([1, 1, 0]), 2, slice(None, None, -1)),
    (slice(None, None, -1), np.array([[0], [2]]), np.array([1, 3])),
]


def _ids(k):
    return repr(k).replace("\n", "")[:40]


@pytest.mark.parametrize("key", KEYS, ids=_ids)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_matches_numpy(key, dtype):
    x = X.astype(dtype)
    got = fe.constant(x)[key]
    want = x[key]
    assert got.shape == want.shape
    assert got.dtype == fe.as_dtype(dtype)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("key", KEYS, ids=_ids)
def test_gradients_orders_1_and_2(key):
    # x * x makes the indexed values depend nonlinearly on x, so order 2 is not trivial
    check_grads(lambda t: t[key] * t[key], [X], order=2)


def test_repeated_indices_accumulate():
    x = fe.constant([1.0, 2.0, 3.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(x[[0, 0, 2, 0]])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 0.0, 1.0])


def test_arange_labels_pick():
    # cross-entropy style: logits[np.arange(n), labels]
    logits = np.random.default_rng(0).standard_normal((5, 4))
    labels = np.array([3, 0, 0, 2, 3])
    t = fe.constant(logits)
    np.testing.assert_array_equal(t[np.arange(5), labels].numpy(), logits[np.arange(5), labels])
    np.testing.assert_array_equal(t[np.arange(5), fe.constant(labels)].numpy(),
                                  logits[np.arange(5), labels])
    check_grads(lambda z: z[np.arange(5), labels] ** 2, [logits], order=2)


def test_tensor_keys():
    t = fe.constant(X)
    np.testing.assert_array_equal(t[fe.constant(1)].numpy(), X[1])
    np.testing.assert_array_equal(t[fe.constant([1, 0])].numpy(), X[[1, 0]])
    mask = fe.constant(X) > 0
    np.testing.assert_array_equal(t[mask].numpy(), X[X > 0])
    np.testing.assert_array_equal(t[fe.newaxis, 0].numpy(), X[None, 0])
    check_grads(lambda z: z[z > 0.01] ** 2, [X], order=2)   # no entry near the mask edge


def test_variable_indexing_and_gradient():
    v = fe.Variable(X)
    with fe.GradientTape() as tape:
        y = fe.reduce_sum(v[:, [0, 0], 1:] ** 2)
    g = tape.gradient(y, v).numpy()
    want = np.zeros_like(X)
    np.add.at(want, (slice(None), [0, 0], slice(1, None)), 2 * X[:, [0, 0], 1:])
    np.testing.assert_allclose(g, want)


def test_int_and_bool_tensors_index():
    t = fe.constant(np.arange(12, dtype=np.int32).reshape(3, 4))
    np.testing.assert_array_equal(t[::-1, 1].numpy(), np.arange(12).reshape(3, 4)[::-1, 1])
    b = fe.constant(MASK)
    np.testing.assert_array_equal(b[1:, ::2].numpy(), MASK[1:, ::2])


@pytest.mark.parametrize("key", [5, (0, 3), (0, 0, -5), [0, 3], (slice(None), MASK[:2]),
                                 1.5, (Ellipsis, Ellipsis), (0, 0, 0, 0)], ids=_ids)
def test_errors_are_invalid_argument_naming_getitem(key):
    with pytest.raises(fe.errors.InvalidArgumentError, match="getitem"):
        fe.constant(X)[key]


def test_out_of_range_is_also_a_value_error():
    # InvalidArgumentError subclasses ValueError; the message names the bad index
    with pytest.raises(ValueError, match="out of bounds"):
        fe.constant([1.0, 2.0])[2]


def test_basic_index_is_cheap():
    # the basic-index path is one execute call: no copy of the input
    x = fe.constant(np.zeros((1000, 100)))
    y = x[3]
    assert np.shares_memory(y.numpy(), x.numpy())


def test_empty_integer_list_key():
    t = fe.constant(X)
    assert t[[]].shape == X[[]].shape
    assert t[:, []].shape == X[:, []].shape
    with fe.GradientTape() as tape:
        tape.watch(t)
        y = fe.reduce_sum(t[:, []])
    assert tape.gradient(y, t).shape == X.shape
