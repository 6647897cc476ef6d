"""The background flush thread of file writers (``flush_millis``), driven by a manual timer.

The writer reads time through ``writer._new_timer()``; these tests substitute a timer whose
clock only moves when the test advances it, and wait for the flush thread to be asleep
before each step, so they check the schedule itself and never depend on how fast the
machine is.
"""
import gc
import threading

import pytest

from fasteager import summary
from fasteager.summary import writer as writer_module

ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

HANG = 60.0   # seconds before a wait that should end at once is reported as a hang


class ManualTimer:
    """A clock the test sets, and sleeps that end only when ``advance_to`` passes their
    deadline (setting ``now`` directly moves the clock without waking the sleeper)."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps = []        # every duration the flush thread asked to sleep
        self.stopped = False
        self._deadline = None
        self._cond = threading.Condition()

    def clock(self):
        return self.now

    def sleep(self, seconds):
        with self._cond:
            self.sleeps.append(seconds)
            self._deadline = self.now + seconds
            self._cond.notify_all()
            self._cond.wait_for(lambda: self.stopped or self._deadline is None)
            return self.stopped

    def stop(self):
        with self._cond:
            self.stopped = True
            self._cond.notify_all()

    def advance_to(self, now, then_sleeps):
        """Set the clock, wake the sleeper if its deadline has come, then wait until the
        flush thread has begun sleep number ``then_sleeps`` (so whatever it did on waking
        is done)."""
        with self._cond:
            self.now = now
            if self._deadline is not None and now >= self._deadline:
                self._deadline = None
                self._cond.notify_all()
            assert self._cond.wait_for(lambda: len(self.sleeps) >= then_sleeps, HANG), \
                f"the flush thread never slept again (sleeps so far: {self.sleeps})"


@pytest.fixture
def timer(monkeypatch):
    t = ManualTimer()
    monkeypatch.setattr(writer_module, "_new_timer", lambda: t)
    return t


def _steps_on_disk(logdir, tag="loss"):
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    if tag not in acc.Tags()["tensors"]:
        return []
    return [e.step for e in acc.Tensors(tag)]


def _flush_threads():
    return [t for t in threading.enumerate() if t.name == "fasteager-summary-flush"]


# Times are binary fractions (flush_millis=250 is 0.25 s) so the arithmetic is exact.

def test_pending_event_is_flushed_once_the_interval_has_passed(tmp_path, timer):
    w = summary.create_file_writer(tmp_path, max_queue=1000, flush_millis=250)
    timer.advance_to(1000.0, then_sleeps=1)
    assert timer.sleeps == [0.25]                    # sleeps flush_millis from the start
    w.set_as_default(step=7)
    timer.now = 1000.125
    summary.scalar("loss", 0.5)                      # 125 ms after the last flush: queued
    assert _steps_on_disk(tmp_path) == []
    timer.advance_to(1000.25, then_sleeps=2)         # the interval is over: flushed
    assert _steps_on_disk(tmp_path) == [7]
    assert timer.sleeps == [0.25, 0.25]
    w.close()
    assert timer.stopped


def test_a_flush_in_between_pushes_the_next_background_flush_back(tmp_path, timer):
    w = summary.create_file_writer(tmp_path, max_queue=1000, flush_millis=250)
    timer.advance_to(1000.0, then_sleeps=1)
    w.set_as_default(step=1)
    timer.now = 1000.125
    summary.scalar("loss", 1.0)
    summary.flush()                                  # the last flush is now at 1000.125
    summary.scalar("loss", 2.0, step=2)              # queued again
    timer.advance_to(1000.25, then_sleeps=2)         # woken 125 ms after that flush
    assert timer.sleeps[1] == 0.125                  # so it sleeps the rest of the interval
    assert _steps_on_disk(tmp_path) == [1]
    timer.advance_to(1000.375, then_sleeps=3)
    assert _steps_on_disk(tmp_path) == [1, 2]
    w.close()


def test_write_after_the_interval_flushes_without_the_thread(tmp_path, timer):
    # TF's C++ writer checks the interval on each write; the thread is only a backstop.
    w = summary.create_file_writer(tmp_path, max_queue=1000, flush_millis=250)
    timer.advance_to(1000.0, then_sleeps=1)
    with w.as_default(step=3):
        timer.now = 1000.5                           # the thread is still asleep
        summary.scalar("loss", 0.5)
        assert _steps_on_disk(tmp_path) == [3]
        assert len(timer.sleeps) == 1
    w.close()


def test_close_interrupts_the_sleep_and_joins_the_thread(tmp_path, timer):
    before = set(_flush_threads())
    w = summary.create_file_writer(tmp_path, flush_millis=120000)
    timer.advance_to(timer.now, then_sleeps=1)
    (thread,) = [t for t in _flush_threads() if t not in before]
    w.close()                                        # a 2-minute sleep is cut short
    assert timer.stopped and not thread.is_alive()


def test_thread_stops_on_close_and_gc(tmp_path):
    before = set(_flush_threads())
    writers = [summary.create_file_writer(tmp_path / str(i), flush_millis=50) for i in range(3)]
    threads = [t for t in _flush_threads() if t not in before]
    assert len(threads) == 3
    for w in writers[:2]:
        w.close()
    del writers[:2]
    assert sum(t.is_alive() for t in threads) == 1   # close() joins its thread
    del writers
    gc.collect()                                     # the finalizer closes and joins it too
    assert not any(t.is_alive() for t in threads)


def test_real_timer_sleeps_until_stopped():
    t = writer_module._Timer()
    assert t.sleep(0) is False
    t.stop()
    assert t.sleep(HANG) is True                     # returns at once once stopped
    assert t.clock() <= t.clock()


def test_no_thread_for_flush_millis_zero(tmp_path):
    before = set(_flush_threads())
    w = summary.create_file_writer(tmp_path, flush_millis=0)
    assert set(_flush_threads()) <= before
    w.close()


def test_flush_millis_zero_writes_each_event_even_if_the_clock_stands_still(tmp_path, timer):
    w = summary.create_file_writer(tmp_path, max_queue=1000, flush_millis=0)
    with w.as_default(step=4):
        summary.scalar("loss", 0.5)                  # timer.now has not moved
        assert _steps_on_disk(tmp_path) == [4]
    assert timer.sleeps == []                        # and no thread was started
    w.close()
