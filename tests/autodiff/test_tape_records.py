"""What a tape keeps per recorded op, and its set of watched ids.

A record keeps an op's output only when the op's gradient reads it (``ans``): an output
that nobody else holds is freed at once. The watched ids live in a flat hash table that
grows, is reset and is reused by the next tape.
"""
import gc
import weakref

import numpy as np
import pytest

import fasteager as fe
from fasteager import _core


def _freed_under_tape(make):
    """Whether the array of ``make(x)``'s result is freed while the tape still records."""
    x = fe.constant([1.0, 2.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = make(x)
        ref = weakref.ref(y._value)
        del y
        gc.collect()
        freed = ref() is None
    assert tape._num_records == 1
    return freed


def test_output_not_read_by_the_gradient_is_freed_while_recording():
    assert _freed_under_tape(lambda x: x + 1.0)
    assert _freed_under_tape(lambda x: x * x)


def test_output_read_by_the_gradient_is_kept():
    # d/dx exp(x) = exp(x): the VJP reads its output
    assert not _freed_under_tape(fe.exp)


def test_gradient_through_outputs_the_caller_dropped():
    x = fe.constant([1.0, 2.0, 3.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = fe.exp(y) + y
        del y
        unused = x + 5.0        # recorded, never reaches the target
        del unused
        loss = fe.reduce_sum(z * 2.0)
    g = tape.gradient(loss, x)
    xv = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(g.numpy(), 2 * (np.exp(xv * xv) + 1) * 2 * xv, rtol=1e-5)


def test_multi_output_op_keeps_its_outputs_for_zero_filled_gradients():
    x = fe.constant([[1.0, 2.0], [3.0, 4.0]])
    with fe.GradientTape() as tape:
        tape.watch(x)
        first, _ = fe.unstack(x)
        loss = fe.reduce_sum(first * 3.0)
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), [[3.0, 3.0], [0.0, 0.0]])


def _op_freed(grad):
    op = _core.Op("test_negate", np.negative, grads=[grad], kinds="f", nin=1)
    return op, _freed_under_tape(op)


def test_which_gradients_count_as_reading_the_output():
    def closure_over_ans(g, ans, x):
        return (lambda: g * 0.0 + ans * 0.0 - g)()

    def by_args(*args):
        return -args[0]

    class Callable:
        def __call__(self, g, ans, x):
            return -g

    class Holder:
        def vjp(self, g, ans, x):     # arguments shifted by self: not looked into
            return -g

    assert _op_freed(lambda g, ans, x: -g)[1]
    assert not _op_freed(lambda g, ans, x: -g + ans * 0.0)[1]
    assert not _op_freed(closure_over_ans)[1]
    assert not _op_freed(by_args)[1]
    assert not _op_freed(Callable())[1]
    assert not _op_freed(Holder().vjp)[1]


def test_setting_the_gradient_again_is_looked_at_anew():
    op, freed = _op_freed(lambda g, ans, x: -g)
    assert freed
    op.grads = [lambda g, ans, x: -g + ans * 0.0]
    assert not _freed_under_tape(op)
    op.grads = [lambda g, ans, x: -g]
    assert _freed_under_tape(op)


def test_op_that_reads_its_output_gives_the_right_gradient():
    op = _core.Op("test_square_root", np.sqrt, grads=[lambda g, ans, x: g / (2.0 * ans)],
                  kinds="f", nin=1)
    x = fe.constant([4.0, 9.0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = op(x) * 1.0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.25, 1.0 / 6.0])


def test_watched_set_grows_and_answers_for_every_id():
    tensors = [fe.constant([float(i)]) for i in range(5000)]
    others = [fe.constant([float(i)]) for i in range(5000)]
    tape = fe.GradientTape()
    with tape:
        for t in tensors[::2]:
            tape.watch(t)
    assert all(tape._is_watched(t) for t in tensors[::2])
    assert not any(tape._is_watched(t) for t in tensors[1::2])
    assert not any(tape._is_watched(t) for t in others)


def test_reset_empties_the_watched_set_and_a_later_tape_starts_empty():
    a = fe.constant([1.0])
    b = fe.constant([2.0])
    with fe.GradientTape(persistent=True) as tape:
        tape.watch(a)
        for _ in range(300):
            a + 1.0
        tape.reset()
        assert not tape._is_watched(a)
        tape.watch(b)
        y = b * 3.0
    assert tape.gradient(y, a) is None
    assert float(tape.gradient(y, b)) == 3.0
    del tape
    with fe.GradientTape() as fresh:       # reuses the freed table: it must be empty
        assert not fresh._is_watched(a) and not fresh._is_watched(b)
        assert not fresh._is_watched(y)


def test_nested_tapes_share_records_and_see_their_own_watches():
    x = fe.constant(2.0)
    with fe.GradientTape() as outer:
        outer.watch(x)
        with fe.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0


def test_entering_a_tape_twice_raises_and_exit_stops_recording():
    tape = fe.GradientTape()
    with tape:
        assert tape._is_recording
        with pytest.raises(ValueError, match="already recording"):
            tape.__enter__()
    assert not tape._is_recording
    assert not _core.any_tape_recording()
