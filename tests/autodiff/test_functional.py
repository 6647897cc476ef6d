"""gradients_function, implicit_gradients and custom_gradient (the 2017 API and TF2's)."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.contrib.eager as tfe


def test_gradients_function_orders():
    def square(x):
        return fe.multiply(x, x)
    grad = tfe.gradients_function(square)
    assert square(3.0).numpy() == 9.0
    assert grad(3.0)[0].numpy() == 6.0
    gradgrad = tfe.gradients_function(lambda x: grad(x)[0])
    assert gradgrad(3.0)[0].numpy() == 2.0


def test_gradients_function_params_and_value():
    def f(x, y):
        return x * x * y
    g = fe.gradients_function(f, params=[1])
    assert [t.numpy() for t in g(2.0, 3.0)] == [4.0]
    g = fe.gradients_function(f, params=["x"])
    assert [t.numpy() for t in g(2.0, 3.0)] == [12.0]
    value, grads = fe.value_and_gradients_function(f)(2.0, 3.0)
    assert value.numpy() == 12.0 and [t.numpy() for t in grads] == [12.0, 4.0]


def test_control_flow_abs():
    def abs_(x):
        return x if x > 0.0 else -x
    grad = tfe.gradients_function(abs_)
    assert grad(2.0)[0].numpy() == 1.0
    assert grad(-2.0)[0].numpy() == -1.0


def test_implicit_gradients():
    w = fe.Variable(3.0)
    b = fe.Variable(1.0)

    def loss(x):
        return w * x + b
    pairs = tfe.implicit_gradients(loss)(2.0)
    assert [(g.numpy(), v is w or v is b) for g, v in pairs] == [(2.0, True), (1.0, True)]
    value, pairs = fe.implicit_value_and_gradients(loss)(2.0)
    assert value.numpy() == 7.0 and len(pairs) == 2


def test_log1pexp_unstable_then_custom():
    def log1pexp(x):
        return fe.log(1 + fe.exp(x))
    g = tfe.gradients_function(log1pexp)
    assert g(0.0)[0].numpy() == 0.5
    assert np.isnan(g(100.0)[0].numpy())

    @tfe.custom_gradient
    def log1pexp2(x):
        e = fe.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return fe.log(1 + e), grad
    g = tfe.gradients_function(log1pexp2)
    assert g(0.0)[0].numpy() == 0.5
    assert g(100.0)[0].numpy() == 1.0


def test_custom_gradient_clip_by_norm_two_inputs():
    @fe.custom_gradient
    def clip_gradient_by_norm(x, norm):
        y = fe.identity(x)

        def grad_fn(dresult):
            return [fe.clip_by_norm(dresult, norm), None]
        return y, grad_fn
    x = fe.constant([3.0, 4.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(clip_gradient_by_norm(x, 1.0) * fe.constant([30.0, 40.0]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.6, 0.8], rtol=1e-6)


def test_custom_gradient_wrong_count_is_a_value_error():
    @fe.custom_gradient
    def f(x, y):
        def grad(dy):
            return dy            # one gradient for two inputs
        return x * y, grad
    x = fe.constant(1.0)
    with fe.GradientTape() as tape:
        tape.watch(x)
        z = f(x, 2.0)
    with pytest.raises(ValueError, match="returned 1 gradient.*expected 2"):
        tape.gradient(z, x)


def test_custom_gradient_with_variables():
    v = fe.Variable(2.0)

    @fe.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            return dy * v, [dy * x * 10.0]
        return x * v, grad
    x = fe.constant(3.0)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gv = tape.gradient(y, [x, v])
    assert gx.numpy() == 2.0 and gv.numpy() == 30.0

    @fe.custom_gradient
    def needs_kw(x):
        return x * v, lambda dy: dy
    with pytest.raises(TypeError, match="variables"):
        needs_kw(x)


def test_custom_gradient_second_order():
    @fe.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3 * x * x
        return x * x * x, grad
    x = fe.constant(2.0)
    with fe.GradientTape() as t2:
        t2.watch(x)
        with fe.GradientTape() as t1:
            t1.watch(x)
            y = cube(x)
        dy = t1.gradient(y, x)
    assert dy.numpy() == 12.0
    assert t2.gradient(dy, x).numpy() == 12.0


def test_line_search_from_the_guide_runs():
    def line_search_step(fn, init_x, rate=1.0):
        with fe.GradientTape() as tape:
            tape.watch(init_x)
            value = fn(init_x)
        grad = tape.gradient(value, init_x)
        grad_norm = fe.reduce_sum(grad * grad)
        init_value = value
        while value > init_value - rate * grad_norm:
            x = init_x - rate * grad
            value = fn(x)
            rate /= 2.0
        return x, value
    x, value = line_search_step(lambda x: fe.reduce_sum((x - 3.0) ** 2), fe.constant([0.0, 1.0]))
    assert value.numpy() < 13.0
