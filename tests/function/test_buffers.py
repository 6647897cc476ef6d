"""Buffer reuse across calls of fe.function graphs (``fasteager._src.tracing.buffers.plan``).

Intermediates that never leave the graph live in buffers the concrete function keeps;
these tests check that results stay right when buffers are shared and reused (views of
intermediates, outputs kept by the caller, effects, threads), and that a warm replay
really allocates no intermediates.
"""
import threading
import tracemalloc

import numpy as np
import pytest

import fasteager as fe


def rand(*shape, seed=0, dtype=np.float32):
    return fe.constant(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def chain(x, b):
    # on float32 arrays over 256 elements, sin/cos/log1p are steps of their own (NumPy's
    # SIMD loops), and so are matmul and the ops between them
    y = fe.sin(x * 0.1)
    z = fe.cos(y + b)
    w = fe.math.log1p(fe.abs(z))
    v = fe.matmul(w, fe.transpose(w))
    return fe.reduce_sum(fe.sqrt(fe.exp(v * 0.01) + 1.0))


def test_intermediates_get_kept_buffers_and_share_them():
    f = fe.function(chain)
    x, b = rand(64, 64), rand(64, seed=1)
    f(x, b)
    cf = f.get_concrete_function(x, b)
    buffered = [s for s in cf._steps if s.buf >= 0]
    assert len(buffered) >= 4
    # lifetimes that do not overlap share a buffer
    assert len(cf._buffer_specs) < len(buffered)
    assert cf.buffer_bytes == sum(int(np.prod(s)) * np.dtype(d).itemsize
                                  for s, d in cf._buffer_specs)
    plain = fe.function(chain, reuse_buffers=False)
    for seed in range(4):
        x, b = rand(64, 64, seed=seed), rand(64, seed=seed + 10)
        got = f(x, b).numpy()
        np.testing.assert_array_equal(got, plain(x, b).numpy())
        np.testing.assert_allclose(got, chain(x, b).numpy(), rtol=1e-5)
    assert plain.get_concrete_function(x, b).buffer_bytes == 0


def test_warm_replay_allocates_no_intermediates():
    n = 512                     # each intermediate is 1 MiB
    x, b = rand(n, n), rand(n, seed=1)

    def peak(f):
        f(x, b)
        f(x, b)                 # warm: buffers allocated
        tracemalloc.start()
        try:
            f(x, b)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    fresh = peak(fe.function(chain, reuse_buffers=False))
    kept = peak(fe.function(chain))
    assert fresh >= n * n * 4            # the unplanned replay allocates intermediates
    assert kept < n * n * 4 // 4, (kept, fresh)


def test_outputs_are_never_overwritten_by_a_later_call():
    # outputs and views of intermediates that are returned must not live in buffers
    @fe.function
    def f(x):
        a = x * 2.0 + 1.0
        h = fe.exp(a)                    # an intermediate with a view returned
        t = fe.transpose(h)
        flat = fe.reshape(h, [-1])
        return t, flat[3:], fe.tanh(a), h[1]

    f(rand(8, 8, seed=0))                # the trace (eager results)
    first = f(rand(8, 8, seed=1))        # replays from here on
    kept = [o.numpy().copy() for o in first]
    second = f(rand(8, 8, seed=2))
    third = f(rand(8, 8, seed=3))
    for o, k in zip(first, kept):
        np.testing.assert_array_equal(o.numpy(), k)
    for o, k in zip(second, kept):
        assert not np.array_equal(o.numpy(), k)
    want = f.python_function(rand(8, 8, seed=3))
    for o, w in zip(third, want):
        np.testing.assert_allclose(o.numpy(), w.numpy(), rtol=1e-6)


def test_views_of_intermediates_extend_their_buffer():
    # ``r`` is a view of ``a``'s buffer read after ``a``'s last direct reader: the
    # buffer must not be handed to ``c`` or ``d`` while ``r`` is still to be read
    def g(x):
        a = fe.sin(x * 0.5)
        r = fe.reshape(a, [-1])
        c = fe.sqrt(a + 3.0) + fe.matmul(x, x)
        d = fe.cos(c) * 2.0
        return fe.reduce_sum(fe.reshape(d, [-1]) * r)
    f = fe.function(g)
    for seed in range(4):                 # 32x32: sin and cos stay unfused steps
        x = rand(32, 32, seed=seed)
        np.testing.assert_allclose(f(x).numpy(), g(x).numpy(), rtol=1e-5)
    cf = f.get_concrete_function(rand(32, 32))
    assert any(s.buf >= 0 for s in cf._steps)


def test_effects_that_keep_their_inputs_keep_them_out_of_buffers():
    from fasteager._src.tracing.tracer import current_tracer
    kept = []

    @fe.function
    def f(x, retains):
        y = fe.sin(x) * 2.0
        current_tracer().effect(lambda a: kept.append(a), [y], retains_inputs=retains)
        return fe.reduce_sum(fe.tanh(y))

    for retains in (True, False):
        kept.clear()
        xs = [rand(32, 32, seed=s) for s in range(4)]
        for x in xs:
            f(x, retains)
        cf = f.get_concrete_function(xs[0], retains)
        effect = next(s for s in cf._steps if s.kind == 2)
        y_step = next(s for s in cf._steps if s.out == effect.ins[0])
        if retains:        # what the effect kept is still each call's value
            assert y_step.buf < 0
            assert len(kept) == 3     # the replays (the trace only records)
            for a, x in zip(kept, xs[1:]):
                np.testing.assert_allclose(a, np.sin(x.numpy()) * 2.0, rtol=1e-6)
        else:              # read-only effects do not stop reuse
            assert y_step.buf >= 0


def test_effect_inputs_are_read_during_the_call():
    v = fe.Variable(np.zeros((4, 4), np.float32))
    seen = []

    @fe.function
    def f(x):
        y = fe.exp(x) * 2.0
        v.assign(y)                       # the write copies; y is read by an effect
        fe.print(fe.reduce_sum(y), output_stream=_Sink(seen))
        return fe.reduce_sum(fe.tanh(y))

    for seed in range(3):
        x = rand(4, 4, seed=seed)
        f(x)
        np.testing.assert_allclose(v.numpy(), np.exp(x.numpy()) * 2.0, rtol=1e-6)
    assert len(seen) == 3


class _Sink:
    def __init__(self, lines):
        self.lines = lines

    def write(self, s):
        if s.strip():
            self.lines.append(s)

    def flush(self):
        pass


def test_concurrent_calls_from_threads_get_right_results():
    f = fe.function(chain)
    x0, b = rand(32, 32), rand(32, seed=1)
    f(x0, b)
    inputs = [rand(32, 32, seed=s) for s in range(8)]
    want = [chain(x, b).numpy() for x in inputs]
    errors = []

    def work(k):
        try:
            for _ in range(30):
                got = f(inputs[k], b).numpy()
                np.testing.assert_allclose(got, want[k], rtol=1e-5)
        except Exception as e:            # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_training_step_matches_without_buffers(dtype):
    def run(reuse):
        fe.random.set_seed(3)
        fe.keras.backend.set_floatx(np.dtype(dtype).name)
        try:
            model = fe.keras.Sequential([fe.keras.layers.Dense(32, activation="relu"),
                                         fe.keras.layers.Dense(32, activation="sigmoid"),
                                         fe.keras.layers.Dense(5)])
            opt = fe.keras.optimizers.Adam(1e-2)
            x = rand(16, 12, seed=4, dtype=dtype)
            y = fe.constant(np.arange(16) % 5)

            def step(x, y):
                with fe.GradientTape() as tape:
                    logits = model(x)
                    loss = fe.reduce_mean(fe.nn.sparse_softmax_cross_entropy_with_logits(
                        labels=y, logits=logits))
                grads = tape.gradient(loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
                return loss
            f = fe.function(step, reuse_buffers=reuse)
            losses = [float(f(x, y)) for _ in range(8)]
            return losses, [w.numpy() for w in model.weights], f.get_concrete_function(x, y)
        finally:
            fe.keras.backend.set_floatx("float32")
    l1, w1, cf1 = run(True)
    l2, w2, cf2 = run(False)
    assert cf1.buffer_bytes > 0 and cf2.buffer_bytes == 0
    assert l1 == l2
    for a, b in zip(w1, w2):
        np.testing.assert_array_equal(a, b)
    assert l1[-1] < l1[0]


def test_gradients_through_a_buffered_function():
    f = fe.function(chain)
    x, b = rand(16, 16), rand(16, seed=1)
    for _ in range(3):
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = f(x, b)
        g = tape.gradient(y, x)
        with fe.GradientTape() as tape:
            tape.watch(x)
            y2 = chain(x, b)
        np.testing.assert_allclose(g.numpy(), tape.gradient(y2, x).numpy(), rtol=1e-4)
