"""GradientTape semantics: watching, persistence, nesting, variables, jacobians, threads."""
import gc
import threading
import tracemalloc

import numpy as np
import pytest

import fasteager as fe


def test_variable_gradient_from_the_guide():
    w = fe.Variable([[1.0]])
    with fe.GradientTape() as tape:
        loss = w * w
    g = tape.gradient(loss, w)
    assert str(g) == "fe.Tensor([[2.]], shape=(1, 1), dtype=float32)"


def test_tensors_must_be_watched():
    x = fe.constant(3.0)
    with fe.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x).numpy() == 6.0


def test_non_persistent_tape_single_use():
    x = fe.constant(3.0)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_persistent_tape_many_gradients():
    x = fe.constant(3.0)
    with fe.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).numpy() == 108.0   # 4 x^3
    assert tape.gradient(y, x).numpy() == 6.0
    assert tape.gradient(z, y).numpy() == 18.0


def test_nested_tapes_second_and_third_order():
    x = fe.constant(2.0)
    with fe.GradientTape() as t3:
        t3.watch(x)
        with fe.GradientTape() as t2:
            t2.watch(x)
            with fe.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    assert dy.numpy() == 12.0 and d2y.numpy() == 12.0 and d3y.numpy() == 6.0


def test_trainable_variables_are_watched_on_read():
    v = fe.Variable(2.0)
    frozen = fe.Variable(3.0, trainable=False)
    with fe.GradientTape() as tape:
        y = v * frozen
    assert tape.watched_variables() == (v,)
    gv, gf = tape.gradient(y, [v, frozen])
    assert gv.numpy() == 3.0 and gf is None
    with fe.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    with fe.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(frozen)
        y = frozen * frozen
    assert tape.gradient(y, frozen).numpy() == 6.0


def test_variable_read_twice_after_assign_sums_both_reads():
    v = fe.Variable(2.0)
    with fe.GradientTape() as tape:
        a = v * 1.0
        v.assign(5.0)
        b = v * v
        y = a + b
    assert tape.gradient(y, v).numpy() == 1.0 + 10.0


def test_saved_values_are_snapshots():
    v = fe.Variable([1.0, 2.0])
    with fe.GradientTape() as tape:
        y = fe.reduce_sum(v * v)
    v.assign([10.0, 20.0])          # must not change the recorded values
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0, 4.0])
    assert v.numpy().tolist() == [10.0, 20.0]


def test_assign_in_place_when_not_shared():
    v = fe.Variable(np.zeros(3, np.float32))
    buf = v._mutable_array()
    v.assign([1.0, 2.0, 3.0])
    del buf
    v.assign_add([1.0, 1.0, 1.0])
    v.assign_sub(1.0)
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]


def test_assign_validates_before_writing():
    v = fe.Variable([1.0, 2.0], name="weight")
    # TensorFlow: assign's shape check is a ValueError, assign_add's InvalidArgumentError
    with pytest.raises(ValueError, match=r"weight.*\(2,\).*\(3,\)"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"weight.*\[2\].*\[3\]"):
        v.assign_add([1.0, 2.0, 3.0])
    with pytest.raises(fe.errors.InvalidArgumentError):
        v.assign(fe.constant([1, 2]))
    assert v.numpy().tolist() == [1.0, 2.0]


def test_variable_repr_and_properties():
    v = fe.Variable(5.0, name="weight")
    assert repr(v) == "<fe.Variable 'weight:0' shape=() dtype=float32, numpy=5.0>"
    assert fe.Variable(1.0).name == "Variable:0"
    v.assign(11.0)
    assert repr(v).endswith("numpy=11.0>")
    assert v.shape == () and v.dtype == fe.float32 and v.trainable
    assert (v + 1).numpy() == 12.0 and (1 + v).numpy() == 12.0
    assert (v * v).numpy() == 121.0 and float(v) == 11.0
    assert "{:.1f}".format(v) == "11.0"
    assert isinstance(v.read_value(), fe.Tensor)
    assert fe.Variable(lambda: fe.ones([2])).shape == (2,)


def test_stop_recording_and_reset():
    x = fe.constant(3.0)
    with fe.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * x          # not recorded
        w = y * 2.0
    assert tape.gradient(z, x) is None
    assert tape.gradient(w, x).numpy() == 12.0
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        y = x * 5.0
    assert tape.gradient(y, x).numpy() == 5.0


def test_output_gradients_and_unconnected():
    x = fe.constant([1.0, 2.0])
    u = fe.constant(1.0)
    with fe.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * x
    g = tape.gradient(y, x, output_gradients=fe.constant([10.0, 100.0]))
    assert g.numpy().tolist() == [20.0, 400.0]
    assert tape.gradient(y, u) is None
    assert tape.gradient(y, u, unconnected_gradients=fe.UnconnectedGradients.ZERO).numpy() == 0


def test_nested_structures_of_sources():
    a = fe.Variable(1.0)
    b = fe.Variable(2.0)
    with fe.GradientTape() as tape:
        y = a * b
    g = tape.gradient(y, {"a": a, "pair": (b, a)})
    assert set(g) == {"a", "pair"} and isinstance(g["pair"], tuple)
    assert g["a"].numpy() == 2.0 and g["pair"][0].numpy() == 1.0


def test_integer_sources_give_none_with_warning():
    x = fe.constant(3)
    with fe.GradientTape() as tape:
        with pytest.warns(UserWarning):
            tape.watch(x)
        y = x * x
    with pytest.warns(UserWarning, match="floating"):
        assert tape.gradient(y, x) is None


def test_jacobian_and_batch_jacobian():
    x = fe.constant([1.0, 2.0, 3.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    j = tape.jacobian(y, x).numpy()
    np.testing.assert_allclose(j, np.diag([2.0, 4.0, 6.0]))
    xb = fe.constant(np.arange(6.0).reshape(2, 3))
    w = fe.constant(np.arange(12.0).reshape(3, 4))
    with fe.GradientTape() as tape:
        tape.watch(xb)
        yb = fe.matmul(xb, w)
    bj = tape.batch_jacobian(yb, xb).numpy()
    assert bj.shape == (2, 4, 3)
    np.testing.assert_allclose(bj[0], w.numpy().T)
    np.testing.assert_allclose(bj[1], w.numpy().T)


def test_tapes_are_thread_local():
    x = fe.constant(2.0)
    results = {}

    def worker():
        # a tape in the main thread must not record this thread's ops
        y = x * x
        results["recorded"] = y

    with fe.GradientTape() as tape:
        tape.watch(x)
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        z = x * 3.0
    assert tape.gradient(results["recorded"], x) is None
    assert tape.gradient is not None and z.numpy() == 6.0

    def other():
        with fe.GradientTape() as t2:
            t2.watch(x)
            y = x * x
        results["g"] = t2.gradient(y, x).numpy()
    th = threading.Thread(target=other)
    th.start()
    th.join()
    assert results["g"] == 4.0


def test_non_persistent_tape_frees_records():
    x = fe.constant(np.ones(10))
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.reduce_sum(x * x)
    assert tape._num_records == 2
    tape.gradient(y, x)
    assert tape._num_records == 0


def test_record_and_differentiate_loop_keeps_memory_flat():
    w = fe.Variable(np.ones((8, 8), np.float32))
    x = fe.constant(np.ones((4, 8), np.float32))

    def step():
        with fe.GradientTape() as tape:
            y = fe.reduce_sum(fe.tanh(fe.matmul(x, w)))
        g = tape.gradient(y, w)
        w.assign_sub(g * 0.001)

    for _ in range(200):
        step()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    for _ in range(3000):
        step()
    gc.collect()
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(base, "filename"))
    tracemalloc.stop()
    assert grown < 200_000, "memory grew by %d bytes over 3000 steps" % grown


def test_gradient_inside_own_context_persistent():
    x = fe.constant(3.0)
    with fe.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
        assert g.numpy() == 6.0
        z = y * 2.0
    assert tape.gradient(z, x).numpy() == 12.0


def test_persistent_tape_records_its_own_gradient_inside_its_context():
    # as TensorFlow: a persistent tape keeps recording while it computes a gradient
    # inside its context, so the gradient can be differentiated again
    x = fe.constant([0.5, 1.0, 2.0], dtype=fe.float64)
    with fe.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fe.reduce_sum(fe.exp(x) * x)
        g = tape.gradient(y, x)
    xv = x.numpy()
    np.testing.assert_allclose(g.numpy(), np.exp(xv) * (xv + 1), rtol=1e-12)
    np.testing.assert_allclose(tape.gradient(g, x).numpy(), np.exp(xv) * (xv + 2),
                               rtol=1e-12)
    # a non-persistent tape does not record its one gradient
    with fe.GradientTape() as outer:
        outer.watch(x)
        with fe.GradientTape() as once:
            once.watch(x)
            y = fe.reduce_sum(x * x * x)
            g = once.gradient(y, x)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), 6 * xv, rtol=1e-12)
