"""Where fasteager's TF namespace behaves as TensorFlow 2.21 eager does (issue 16,
"Semantics that differ"): the values below were read from tensorflow-cpu 2.21."""
import copy

import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp


# -- the tape -------------------------------------------------------------------------------
def test_watched_variables_after_watch_and_after_gradient():
    v = fe.Variable(3.0)
    with fe.GradientTape() as tape:
        tape.watch(v)
    assert tape.watched_variables() == (v,)
    assert tape.gradient(v, v).numpy() == 1.0
    w = fe.Variable(2.0)
    with fe.GradientTape() as tape:
        y = w * 2.0
    assert tape.gradient(y, w).numpy() == 2.0
    # a non-persistent tape frees its records, but still names what it watched
    assert tape.watched_variables() == (w,)


@pytest.mark.parametrize("make", [lambda: fe.constant([3.0, 4.0]),
                                  lambda: fe.Variable([3.0, 4.0]),
                                  lambda: fe.Variable([3.0, 4.0], trainable=False)])
def test_gradient_of_a_source_with_respect_to_itself_is_ones_unwatched(make):
    x = make()
    with fe.GradientTape() as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(x, x).numpy(), [1.0, 1.0])


def test_self_gradient_uses_output_gradients_and_sums_repeated_targets():
    x = fe.constant([1.0, 2.0])
    other = fe.constant([5.0, 5.0])
    with fe.GradientTape(persistent=True) as tape:
        pass
    g = tape.gradient(x, x, output_gradients=fe.constant([2.0, 3.0]))
    np.testing.assert_array_equal(g.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(tape.gradient([x, x], x).numpy(), [2.0, 2.0])
    assert tape.gradient(other, x) is None


# -- NumPy functions on TF-style tensors leave the tape --------------------------------------
@pytest.mark.parametrize("func", [np.mean, np.sum, np.max, np.prod, np.std, np.cumsum,
                                  lambda a: np.reshape(a, (2, 1)), np.transpose,
                                  lambda a: np.clip(a, 0.0, 1.5)])
def test_numpy_function_on_tf_tensor_returns_numpy_without_gradient(func):
    x = fe.constant([1.0, 2.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = func(x)
    assert isinstance(y, (np.ndarray, np.generic)), type(y)
    np.testing.assert_allclose(y, func(np.array([1.0, 2.0], np.float32)))
    # the NumPy value left the tape: no gradient reaches x (TensorFlow even refuses the call)
    assert tape.gradient(y, x) is None


def test_numpy_function_on_tf_tensor_gives_none_gradient_once_converted():
    x = fe.constant([1.0, 2.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.constant(np.mean(x))
    assert tape.gradient(y, x) is None


def test_numpy_functions_on_tf_tensors_keep_numpy_results():
    a, b = fe.constant([1.0, 2.0]), fe.constant([3.0, 4.0])
    assert type(np.concatenate([a, b])) is np.ndarray
    assert type(np.stack((a, b))) is np.ndarray
    assert type(np.multiply(a, b)) is np.ndarray            # ufuncs, as before
    assert np.shape(a) == (2,) and np.ndim(a) == 1
    assert type(np.mean(fe.Variable([1.0, 3.0]))) is np.float32
    assert float(np.sum(a, keepdims=True, axis=0)[0]) == 3.0


def test_fasteager_numpy_tensors_stay_differentiable():
    x = fnp.array([1.0, 2.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = np.mean(x)          # NumPy calls the tensor's own mean: fasteager.numpy's
        z = fnp.mean(x) + y
    assert isinstance(y, fe.Tensor)
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), [1.0, 1.0])
    t = fe.constant([1.0, 2.0])
    with fe.GradientTape() as tape:
        tape.watch(t)
        y = t.mean()            # the method itself is fasteager's, recorded
    np.testing.assert_allclose(tape.gradient(y, t).numpy(), [0.5, 0.5])


def test_numpy_function_mixing_numpy_rules_and_tf_tensors_follows_numpy_rules():
    x = fnp.array([1.0, 2.0])
    t = fe.constant([3.0, 4.0], dtype=fe.float64)
    with fe.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(fe.errors.FailedPreconditionError):
            np.concatenate([x, t])      # a real NumPy function would drop x's gradient


# -- assign ---------------------------------------------------------------------------------
def test_assign_shape_mismatch_is_value_error_with_tensorflows_message():
    v = fe.Variable([1.0, 2.0], name="k")
    with pytest.raises(ValueError) as info:
        v.assign([1.0, 2.0, 3.0])
    assert type(info.value) is ValueError
    assert str(info.value) == ("Cannot assign value to variable ' k:0': Shape mismatch.The "
                               "variable shape (2,), and the assigned value shape (3,) are "
                               "incompatible.")          # TensorFlow 2.21's text
    with pytest.raises(ValueError) as info:
        v.assign(np.zeros(3, np.float32))          # the ndarray fast path checks the same
    assert type(info.value) is ValueError
    for method in (v.assign_add, v.assign_sub):    # TensorFlow's kernels: InvalidArgumentError
        with pytest.raises(fe.errors.InvalidArgumentError, match=r"\[2\].*\[3\]"):
            method([1.0, 2.0, 3.0])
    assert v.numpy().tolist() == [1.0, 2.0]


def test_assign_returns_an_unread_variable_that_reads_later():
    v = fe.Variable(1.0, name="w")
    r = v.assign(27.3)
    assert repr(r) == ("<fe.Variable 'UnreadVariable' shape=() dtype=float32, "
                       "numpy=27.299999237060547>")
    assert str(r) == repr(r)
    assert r.name == "UnreadVariable" and r is not v and r.trainable
    assert r.shape == () and r.dtype == fe.float32 and r.device == v.device
    v.assign(5.0)
    assert r.numpy() == 5.0                    # a read happens when it is used
    r.assign_add(1.0)
    assert v.numpy() == 6.0                    # it writes the same variable
    assert (r + 1).numpy() == 7.0 and (fe.constant(1.0) + r).numpy() == 7.0
    assert fe.add(2.0, r).numpy() == 8.0 and float(r) == 6.0
    assert np.asarray(r) == 6.0 and fe.convert_to_tensor(r).numpy() == 6.0
    assert v.assign(2.0, read_value=False) is None
    assert repr(v.assign_add(1.0)).startswith("<fe.Variable 'UnreadVariable' shape=()")
    assert repr(v.assign_sub(1.0)).endswith("numpy=2.0>")
    assert copy.deepcopy(v).numpy() == 2.0


def test_gradient_through_what_assign_returns():
    v = fe.Variable(1.0)
    x = fe.constant(3.0)
    with fe.GradientTape() as tape:
        y = v.assign_add(1.0) * 2.0 + x * v.assign(2.0)
    assert tape.gradient(y, v).numpy() == 5.0
    assert tape.watched_variables() == (v,)


# -- printing -------------------------------------------------------------------------------
def test_scalar_reprs_print_the_python_value_as_tensorflow():
    assert repr(fe.constant(27.3)) == \
        "<fe.Tensor: shape=(), dtype=float32, numpy=27.299999237060547>"
    assert str(fe.constant(27.3)) == "fe.Tensor(27.3, shape=(), dtype=float32)"
    assert repr(fe.constant(1.1, dtype=fe.float16)).endswith("numpy=1.099609375>")
    assert repr(fe.constant(2.5, dtype=fe.float64)).endswith("numpy=2.5>")
    assert repr(fe.constant(3)).endswith("numpy=3>")
    assert repr(fe.constant(True)).endswith("numpy=True>")
    assert repr(fe.constant([1.5, 2.3])) == \
        "<fe.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2.3], dtype=float32)>"
    assert repr(fe.Variable(27.3)) == \
        "<fe.Variable 'Variable:0' shape=() dtype=float32, numpy=27.299999237060547>"
    assert repr(fe.Variable([1.3, 2.0])) == ("<fe.Variable 'Variable:0' shape=(2,) "
                                            "dtype=float32, numpy=array([1.3, 2. ], "
                                            "dtype=float32)>")


def test_variables_are_resource_variables_as_in_tensorflow():
    v = fe.Variable(1.0)
    assert type(v).__name__ == "ResourceVariable"        # the autodiff guide prints it
    assert isinstance(v, fe.Variable)
    assert type(v.assign_add(1.0)).__name__ == "_UnreadVariable"
    assert float(v) == 2.0
