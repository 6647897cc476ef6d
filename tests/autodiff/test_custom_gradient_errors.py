"""custom_gradient and batch_jacobian misuse: typed errors naming the problem, never an
InternalError (which means a fasteager bug) or a raw Python error."""
import numpy as np
import pytest

import fasteager as fe


def _with_grad(grad_fn):
    @fe.custom_gradient
    def double(x):
        return x * 2, grad_fn
    return double


def _gradient(fn, x):
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


def test_a_gradient_of_the_wrong_shape_is_the_users_error():
    x = fe.constant([1.0, 2.0])
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match=r"custom_gradient: grad_fn of double returned a gradient for "
                             r"input 0 of shape \[3\] \(expected \[2\], the input's shape\)"):
        _gradient(_with_grad(lambda dy: fe.ones([3])), x)


def test_a_gradient_of_another_dtype_is_rejected():
    x = fe.constant([1.0, 2.0])
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match=r"input 0 of dtype int32 \(expected float32, the input's dtype\)"):
        _gradient(_with_grad(lambda dy: fe.cast(dy, fe.int32)), x)
    with pytest.raises(fe.errors.InvalidArgumentError, match="of dtype float64"):
        _gradient(_with_grad(lambda dy: fe.cast(dy, fe.float64)), x)


def test_python_and_numpy_gradients_take_the_inputs_dtype():
    x = fe.constant([1.0, 2.0])
    g = _gradient(_with_grad(lambda dy: np.array([3, 4])), x)
    assert g.dtype == fe.float32
    np.testing.assert_array_equal(g.numpy(), [3.0, 4.0])


def test_a_variable_gradient_of_the_wrong_shape_is_rejected():
    v = fe.Variable([1.0, 2.0])

    @fe.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return [dy], [fe.ones([5])]
        return x * v, grad
    x = fe.constant([1.0, 1.0])
    with fe.GradientTape() as tape:
        y = scale(x)
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match=r"gradient for variable 0 of shape \[5\] \(expected \[2\]"):
        tape.gradient(y, v)


@pytest.mark.parametrize("returned,what", [
    (lambda x: x * 2, "Tensor"),
    (lambda x: (x * 2,), "a tuple of 1"),
    (lambda x: (x * 2, x), "a tuple of 2"),
    (lambda x: None, "NoneType"),
])
def test_f_must_return_y_and_grad_fn(returned, what):
    @fe.custom_gradient
    def f(x):
        return returned(x)
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match=r"custom_gradient: f must return a pair \(y, grad_fn\) .*got %s\)"
                             % what):
        f(fe.constant([1.0, 2.0]))


@pytest.mark.parametrize("source", [lambda x: [x], lambda x: {"x": x},
                                    lambda x: (t for t in [x])])
def test_batch_jacobian_needs_a_single_source(source):
    x = fe.constant([[1.0, 2.0], [3.0, 4.0]])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match=r"batch_jacobian: source must be a single tensor \(expected a "
                             r"Tensor or Variable, got"):
        tape.batch_jacobian(y, source(x))


def test_batch_jacobian_of_a_single_tensor_still_works():
    x = fe.constant([[1.0, 2.0], [3.0, 4.0]])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    j = tape.batch_jacobian(y, x)
    np.testing.assert_allclose(j.numpy(), [np.diag([2.0, 4.0]), np.diag([6.0, 8.0])])
