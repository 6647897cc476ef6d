"""fe.autodiff.ForwardAccumulator, jvp and linearize: TensorFlow's documented examples,
nesting, Hessian-vector products both ways, variables, threads, and bad input."""
import threading
import warnings

import numpy as np
import pytest

import fasteager as fe
import fasteager.numpy as fnp

ForwardAccumulator = fe.autodiff.ForwardAccumulator


def test_tensorflow_docstring_hessian_vector_product_of_a_variable():
    # tf.autodiff.ForwardAccumulator's own example: forward-over-backward
    v = fe.Variable([1., 2.])
    with ForwardAccumulator(v, fe.constant([1., 0.])) as acc:
        with fe.GradientTape() as tape:
            y = fe.reduce_sum(v ** 3.)
        backward = tape.gradient(y, v)
    assert backward.numpy().tolist() == [3., 12.]
    hvp = acc.jvp(backward)
    assert hvp.dtype == fe.float32 and hvp.numpy().tolist() == [6., 0.]


def test_tensorflow_docstring_nesting():
    x = fe.constant(1.)
    with ForwardAccumulator(x, fe.constant(1.)) as outer:
        with ForwardAccumulator(x, fe.constant(1.)) as inner:
            y = x * x * x
        inner_jvp = inner.jvp(y)
    assert float(inner_jvp) == 3.
    assert float(outer.jvp(inner_jvp)) == 6.
    # the inner accumulator does not see the outer one's JVP computation (as in TF)
    assert inner.jvp(outer.jvp(y)) is None


def test_tensorflow_docstring_linear_regression_matches_reverse_mode():
    x = fe.constant([[2.0, 3.0], [1.0, 4.0]])
    targets = fe.constant([[1.], [-1.]])
    dense = fe.keras.layers.Dense(1)
    dense.build([None, 2])
    tangent = fe.constant([[1.], [0.]])
    with ForwardAccumulator(primals=dense.kernel, tangents=tangent) as acc:
        loss = fe.reduce_sum((dense(x) - targets) ** 2.)
    with fe.GradientTape() as tape:
        loss2 = fe.reduce_sum((dense(x) - targets) ** 2.)
    grad = tape.gradient(loss2, dense.kernel)
    np.testing.assert_allclose(float(acc.jvp(loss)), float(fe.reduce_sum(grad * tangent)),
                               rtol=1e-6)


def test_guide_hessian_vector_products_forward_over_reverse_and_reverse_over_forward():
    x = fe.constant([0.5, -1.0, 2.0], dtype=fe.float64)
    v = fe.constant([1.0, 2.0, -0.5], dtype=fe.float64)

    def f(x):
        return fe.reduce_sum(fe.tanh(x) * x ** 2) + fe.reduce_prod(fe.exp(x))
    with ForwardAccumulator(x, v) as acc:            # the guide's forward-over-backward
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    fob = acc.jvp(g)
    with fe.GradientTape() as tape:                  # backward-over-forward
        tape.watch(x)
        with ForwardAccumulator(x, v) as acc:
            y = f(x)
        jvp = acc.jvp(y)
    bof = tape.gradient(jvp, x)
    with fe.GradientTape() as outer:                 # reverse-over-reverse reference
        outer.watch(x)
        with fe.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    bob = outer.gradient(g, x, output_gradients=v)
    np.testing.assert_allclose(fob.numpy(), bob.numpy(), rtol=1e-12)
    np.testing.assert_allclose(bof.numpy(), bob.numpy(), rtol=1e-12)


def test_tapes_inside_the_accumulator_do_not_record_its_tangents():
    x = fe.constant([1.0, 2.0])
    with ForwardAccumulator(x, fe.constant([1.0, 1.0])) as acc:
        with fe.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = fe.sin(x)
        assert not tape._is_watched(acc.jvp(y))
    with fe.GradientTape() as tape:
        tape.watch(x)
        with ForwardAccumulator(x, fe.constant([1.0, 1.0])) as acc:
            y = fe.sin(x)
        assert tape._is_watched(acc.jvp(y))


def test_jvp_of_primal_unconnected_and_zero():
    x = fe.constant([1.0, 2.0])
    c = fe.constant([3.0, 4.0])
    before = x * 2.0
    with ForwardAccumulator(x, fe.constant([0.5, 0.25])) as acc:
        y = c * 2.0
        z = x * c
    assert acc.jvp(x).numpy().tolist() == [0.5, 0.25]
    assert acc.jvp(y) is None and acc.jvp(before) is None
    zero = acc.jvp(y, unconnected_gradients=fe.UnconnectedGradients.ZERO)
    assert zero.numpy().tolist() == [0., 0.] and zero.dtype == fe.float32
    assert acc.jvp([z, {"a": y}], unconnected_gradients="zero")[0].numpy().tolist() == [1.5, 1.]
    # integer outputs carry no tangent
    with ForwardAccumulator(x, fe.constant([1.0, 1.0])) as acc:
        n = fe.cast(x, fe.int32)
    assert acc.jvp(n) is None


def test_nested_structures_and_several_primals():
    a, b = fe.constant(2.0), fe.constant(3.0)
    with ForwardAccumulator({"a": a, "b": [b]}, {"a": 1.0, "b": [10.0]}) as acc:
        y = a * b
    assert float(acc.jvp(y)) == 3.0 + 10.0 * 2.0


def test_variable_keeps_its_tangent_across_assignments():
    v = fe.Variable([1.0, 2.0])
    with ForwardAccumulator(v, fe.constant([1.0, 1.0])) as acc:
        y = v * v
        v.assign([3.0, 4.0])
        z = v * v
    assert acc.jvp(y).numpy().tolist() == [2.0, 4.0]
    assert acc.jvp(z).numpy().tolist() == [6.0, 8.0]
    assert acc.jvp(v).numpy().tolist() == [1.0, 1.0]


def test_ops_through_fe_function_and_custom_gradient():
    @fe.function
    def g(x):
        return fe.sin(x) * x

    @fe.custom_gradient
    def cube(x):
        return x * x * x, lambda dy: dy * 3.0 * x * x
    x = fe.constant([0.5, 1.5], dtype=fe.float64)
    with ForwardAccumulator(x, fe.constant([1.0, -2.0], dtype=fe.float64)) as acc:
        y = g(x)
        c = cube(x)
    want = (np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy())) * [1.0, -2.0]
    np.testing.assert_allclose(acc.jvp(y).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(acc.jvp(c).numpy(), 3 * x.numpy() ** 2 * [1.0, -2.0])


def test_a_gradient_no_tape_records_refuses_forward_mode():
    @fe.custom_gradient
    def opaque(x):
        # the gradient leaves the library (NumPy): nothing can differentiate it
        return x * 2.0, lambda dy: fe.constant(np.asarray(dy) * 2.0)
    x = fe.constant([1.0])
    with ForwardAccumulator(x, fe.constant([1.0])):
        with pytest.raises(fe.errors.UnimplementedError, match="JVP cannot be derived"):
            opaque(x)


def test_per_thread_state():
    x = fe.constant(2.0)
    seen = {}

    def other():
        seen["y"] = x * x      # another thread's op: not this accumulator's
    with ForwardAccumulator(x, fe.constant(1.0)) as acc:
        t = threading.Thread(target=other)
        t.start()
        t.join()
        mine = x * x
    assert acc.jvp(seen["y"]) is None
    assert float(acc.jvp(mine)) == 4.0


def test_accumulator_enters_once_and_primals_once():
    x = fe.constant(1.0)
    acc = ForwardAccumulator(x, fe.constant(1.0))
    with acc:
        with pytest.raises(ValueError, match="already recording"):
            acc.__enter__()
    with pytest.raises(ValueError, match="more than once"):
        ForwardAccumulator([x, x], [fe.constant(1.0), fe.constant(1.0)])


def test_bad_tangents_are_refused_with_typed_errors():
    x = fe.constant([1.0, 2.0])
    # an integer tangent tensor for a float primal: TensorFlow's conversion error class
    with pytest.raises(fe.errors.InvalidArgumentError) as e:
        ForwardAccumulator(x, fe.constant([1, 2]))
    assert isinstance(e.value, ValueError)
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"tangent 0 has shape \[3\] "
                       r"\(expected \[2\]"):
        ForwardAccumulator(x, fe.constant([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="structure"):
        ForwardAccumulator([x, x * 1.0], [fe.constant([1.0, 1.0])])
    with pytest.raises(TypeError, match="primal 0 must be a Tensor"):
        ForwardAccumulator("x", 1.0)
    # Python numbers adopt the primal's dtype, as TensorFlow converts them
    with ForwardAccumulator(fe.constant(1.0, dtype=fe.float64), 2) as acc:
        pass
    # an integer primal is not watched (TensorFlow warns and gives no JVP)
    n = fe.constant([1, 2])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with ForwardAccumulator(n, fe.constant([1, 1])) as acc:
            m = n * 2
    assert acc.jvp(m) is None and "floating" in str(w[0].message)


# ---- the functional API (JAX semantics) ---------------------------------------------------

def test_jvp_functional():
    def f(x, y):
        return {"s": fe.sin(x) * y, "c": fe.constant(1.0)}
    x, y = fe.constant(0.5), fe.constant(2.0)
    out, tangent = fe.autodiff.jvp(f, (x, y), (fe.constant(1.0), fe.constant(0.0)))
    np.testing.assert_allclose(float(out["s"]), np.sin(0.5) * 2.0, rtol=1e-6)
    np.testing.assert_allclose(float(tangent["s"]), np.cos(0.5) * 2.0, rtol=1e-6)
    assert float(tangent["c"]) == 0.0          # unconnected outputs: zero tangents, as JAX
    # the same tensor given twice gets one tangent per argument
    _, t = fe.autodiff.jvp(lambda a, b: a * b, [x, x], [fe.constant(1.0), fe.constant(0.0)])
    assert float(t) == 0.5


def test_jvp_functional_refuses_bad_input():
    x = fe.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="tuple or list"):
        fe.autodiff.jvp(fe.sin, x, (x,))
    with pytest.raises(TypeError, match="same structure"):
        fe.autodiff.jvp(fe.sin, (x,), (x, x))
    with pytest.raises(TypeError, match=r"tangent 0 has dtype float64 \(expected float32"):
        fe.autodiff.jvp(fe.sin, (x,), (fe.constant([1.0, 2.0], dtype=fe.float64),))
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"shape \[1\] \(expected \[2\]"):
        fe.autodiff.jvp(fe.sin, (x,), (fe.constant([1.0]),))
    with pytest.raises(TypeError, match="integer"):
        fe.autodiff.jvp(lambda n: n * 2, (fe.constant([1, 2]),), (fe.constant([1, 1]),))


def test_linearize_applies_the_jvp_without_running_f_again():
    calls = []

    def f(x):
        calls.append(1)
        return fe.reduce_sum(fe.exp(x) * fe.sin(x))
    x = fe.constant([0.1, 0.2, 0.3], dtype=fe.float64)
    y, f_jvp = fe.autodiff.linearize(f, x)
    assert len(calls) == 1
    for v in ([1.0, 0.0, 0.0], [0.5, -1.0, 2.0]):
        v = fe.constant(v, dtype=fe.float64)
        _, want = fe.autodiff.jvp(f, (x,), (v,))
        np.testing.assert_allclose(float(f_jvp(v)), float(want), rtol=1e-12)
    assert len(calls) == 3   # two jvp calls above, none from f_jvp
    np.testing.assert_allclose(float(y), float(f(x)), rtol=1e-12)
    with pytest.raises(TypeError, match="structure"):
        f_jvp(v, v)


def test_linearize_is_differentiable_by_an_outer_tape():
    x = fe.constant([0.3, 0.7], dtype=fe.float64)
    v = fe.constant([1.0, 2.0], dtype=fe.float64)
    with fe.GradientTape() as tape:
        tape.watch(x)
        _, f_jvp = fe.autodiff.linearize(lambda a: fe.reduce_sum(a ** 3), x)
        t = f_jvp(v)
    # d/dx <3x^2, v> = 6 x v
    np.testing.assert_allclose(tape.gradient(t, x).numpy(), 6 * x.numpy() * v.numpy())


def test_fasteager_numpy_program_jvp():
    def predict(w, x):
        return fnp.tanh(fnp.dot(x, w))
    w = fnp.array([0.5, -0.3])
    x = fnp.array([[1.0, 2.0], [0.5, -1.0]])
    _, t = fe.autodiff.jvp(predict, (w, x), (fnp.array([1.0, 0.0]), fnp.zeros((2, 2))))
    z = x.numpy() @ w.numpy()
    np.testing.assert_allclose(t.numpy(), (1 - np.tanh(z) ** 2) * x.numpy()[:, 0])


def test_a_long_loop_inside_an_accumulator_keeps_only_live_tangents():
    x = fe.constant(np.linspace(0.0, 1.0, 8))
    with ForwardAccumulator(x, fe.ones_like(x)) as acc:
        y = x
        kept = fe.sin(x)
        for _ in range(3000):
            y = fe.sin(y) * 0.5 + x
        # the dropped intermediates are forgotten; what is still held keeps its tangent
        assert len(acc._tangents) < 1000
    np.testing.assert_allclose(acc.jvp(kept).numpy(), np.cos(x.numpy()))
    assert acc.jvp(x) is not None
    # y = 0.5 sin(y) + x at its fixed point: y' = 1 / (1 - 0.5 cos(y))
    np.testing.assert_allclose(acc.jvp(y).numpy(), 1 / (1 - 0.5 * np.cos(y.numpy())),
                               rtol=1e-10)
