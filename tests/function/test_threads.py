"""fe.function across threads: each thread traces with its own recorder, concurrent first
calls of one function trace once, and the main thread stays eager throughout."""
import threading

import numpy as np

import fasteager as fe


def _run_all(target, n):
    errors = []

    def guarded(i):
        try:
            target(i)
        except BaseException as e:   # reported by the main thread below
            errors.append(e)
    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _traced_concurrently(n):
    barrier = threading.Barrier(n, timeout=20)
    functions = []
    for k in range(n):
        def body(x, k=k):
            y = x * float(k + 1)
            barrier.wait()           # every thread is inside its trace at once
            y = y + 1.0
            barrier.wait()
            return y * 2.0
        functions.append(fe.function(body))
    first = [None] * n

    def trace(i):
        first[i] = functions[i](fe.constant([1.0, 2.0])).numpy()
    _run_all(trace, n)
    for k in range(n):
        np.testing.assert_allclose(first[k], (np.array([1.0, 2.0]) * (k + 1) + 1.0) * 2.0)
        x = np.array([3.0, -1.0], np.float32)
        np.testing.assert_allclose(functions[k](fe.constant(x)).numpy(),
                                   (x * (k + 1) + 1.0) * 2.0)
        assert functions[k].experimental_get_tracing_count() == 1
    assert fe.executing_eagerly()
    assert fe._core.get_tracer() is None


def test_two_threads_trace_different_functions_at_once():
    _traced_concurrently(2)


def test_eight_threads_trace_different_functions_at_once():
    _traced_concurrently(8)


def test_main_thread_traces_while_another_thread_traces():
    inside = threading.Event()
    release = threading.Event()

    @fe.function
    def slow(x):
        inside.set()
        assert release.wait(20)
        return x + 1.0

    @fe.function
    def quick(x):
        return x * 3.0

    worker = threading.Thread(target=lambda: slow(fe.constant(1.0)))
    worker.start()
    try:
        assert inside.wait(20)
        assert fe.executing_eagerly()                 # the other thread's trace
        assert float(quick(fe.constant(2.0)).numpy()) == 6.0
        assert float(quick(fe.constant(5.0)).numpy()) == 15.0
        assert fe.executing_eagerly()
    finally:
        release.set()
        worker.join()
    assert float(slow(fe.constant(4.0)).numpy()) == 5.0
    assert fe.executing_eagerly()
    assert quick.experimental_get_tracing_count() == 1


def test_eight_threads_train_their_own_models():
    n = 8
    barrier = threading.Barrier(n, timeout=20)
    losses = [None] * n

    def train(i):
        rng = np.random.default_rng(i)
        xs = rng.normal(size=(32, 3)).astype(np.float32)
        x = fe.constant(xs)
        y = fe.constant(xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) * (i + 1))
        w = fe.Variable(np.zeros((3, 1), np.float32))

        @fe.function
        def step():
            with fe.GradientTape() as tape:
                loss = fe.reduce_mean((fe.matmul(x, w) - y) ** 2)
            barrier.wait()           # all eight traces overlap
            w.assign_sub(0.1 * tape.gradient(loss, w))
            return loss
        losses[i] = [float(step().numpy()) for _ in range(30)]
    _run_all(train, n)
    for curve in losses:
        assert curve[-1] < 0.1 * curve[0], curve
        assert all(b < a for a, b in zip(curve, curve[1:])), curve
    assert fe.executing_eagerly()


def test_concurrent_first_calls_of_one_function():
    n = 8
    start = threading.Barrier(n, timeout=20)
    calls = []

    @fe.function
    def f(x):
        calls.append(1)
        return fe.reduce_sum(x * x) + 1.0
    out = [None] * n

    def call(i):
        start.wait()
        out[i] = [float(f(fe.constant([float(i), 1.0])).numpy()) for _ in range(3)]
    _run_all(call, n)
    for i in range(n):
        assert out[i] == [i * i + 2.0] * 3
    assert f.experimental_get_tracing_count() == 1
    assert len(calls) == 1                   # one trace, the others waited for it
    assert float(f(fe.constant([3.0, 4.0])).numpy()) == 26.0
    assert fe.executing_eagerly()
