"""Tapes and variable watchers are per thread: threads that come and go (and reuse a dead
thread's id) never see another thread's tapes, and no tape loses its records."""
import threading
import time

import numpy as np
import fasteager as fe


def test_short_lived_threads_each_get_their_own_tape_stack():
    # One short thread at a time, so that each new one tends to get the id of the one
    # that just died; the long-lived thread records an op now and then, so it often runs
    # between a short thread's tape push and that thread's first op.
    stop = threading.Event()
    long_ok = []

    def long_lived():
        w = fe.Variable(np.ones(3, np.float32))
        with fe.GradientTape() as tape:
            y = fe.constant(0.0)
            while not stop.is_set():
                y = y + fe.reduce_sum(w * w) * 0.0 + 1.0
                time.sleep(0.0005)
        long_ok.append(tape.gradient(y, w) is not None)

    background = threading.Thread(target=long_lived)
    background.start()
    results = {}

    def short(i):
        x = fe.constant(float(i))
        with fe.GradientTape() as tape:
            tape.watch(x)
            time.sleep(0.001)
            y = x * x
            y = y + x
        g = tape.gradient(y, x)
        results[i] = None if g is None else float(g.numpy())

    try:
        for i in range(400):
            t = threading.Thread(target=short, args=(i,))
            t.start()
            t.join()
    finally:
        stop.set()
        background.join()
    missing = [i for i in range(400) if results.get(i) is None]
    assert not missing, "%d of 400 gradients were None" % len(missing)
    for i in range(400):
        assert results[i] == 2.0 * i + 1.0
    assert long_ok == [True]


def test_a_variable_watcher_in_one_thread_does_not_break_reads_in_another():
    v = fe.Variable(2.0)
    inside = threading.Event()
    release = threading.Event()

    @fe.custom_gradient
    def slow(x):
        inside.set()
        release.wait(10)
        return x * 3.0, lambda g: g * 3.0

    worker = threading.Thread(target=lambda: slow(fe.constant(1.0)))
    worker.start()
    try:
        assert inside.wait(10)
        # this thread has no watcher of its own: reading a variable must just work
        w = fe.Variable(1.0)
        with fe.GradientTape() as tape:
            y = v * w
        assert float(tape.gradient(y, w).numpy()) == 2.0
        assert float(v.read_value().numpy()) == 2.0
    finally:
        release.set()
        worker.join()


def test_tapes_of_concurrent_threads_stay_separate():
    barrier = threading.Barrier(8, timeout=20)
    grads = [None] * 8

    def work(i):
        x = fe.constant(float(i + 1))
        with fe.GradientTape() as tape:
            tape.watch(x)
            barrier.wait()              # every thread's tape is open at once
            y = x * x * x
            barrier.wait()
        grads[i] = float(tape.gradient(y, x).numpy())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert grads == [3.0 * (i + 1) ** 2 for i in range(8)]
    assert not fe._core.recording_tapes()
