"""The background flush thread of file writers (``flush_millis``)."""
import gc
import glob
import os
import threading
import time

import pytest

from fasteager import summary
from fasteager.summary import writer as writer_module

ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


@pytest.fixture(autouse=True)
def clean_state():
    yield
    writer_module._state.writer = None
    writer_module._state.step = None
    writer_module._state.is_recording = None


def _flush_threads():
    return [t for t in threading.enumerate() if t.name == "fasteager-summary-flush"]


def _scalars(logdir, tag):
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    if tag not in acc.Tags()["tensors"]:
        return []
    return [e.step for e in acc.Tensors(tag)]


def test_event_reaches_disk_without_flush(tmp_path):
    w = summary.create_file_writer(tmp_path, max_queue=1000, flush_millis=100)
    path = glob.glob(os.path.join(tmp_path, "events.out.tfevents.*"))[0]
    size0 = os.path.getsize(path)
    with w.as_default(step=7):
        summary.scalar("loss", 0.5)
        assert os.path.getsize(path) == size0          # still queued
        deadline = time.monotonic() + 1.0
        while os.path.getsize(path) == size0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert os.path.getsize(path) > size0, "not flushed within 1 s"
        assert _scalars(tmp_path, "loss") == [7]
    w.close()


def test_thread_stops_on_close_and_gc(tmp_path):
    before = len(_flush_threads())
    writers = [summary.create_file_writer(tmp_path / str(i), flush_millis=50) for i in range(3)]
    assert len(_flush_threads()) == before + 3
    for w in writers[:2]:
        w.close()
    del writers[:2]
    assert len(_flush_threads()) == before + 1
    del writers
    gc.collect()
    deadline = time.monotonic() + 2.0
    while len(_flush_threads()) > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(_flush_threads()) == before


def test_long_flush_millis_closes_promptly(tmp_path):
    w = summary.create_file_writer(tmp_path, flush_millis=120000)
    t0 = time.monotonic()
    w.close()
    assert time.monotonic() - t0 < 1.0


def test_no_thread_for_flush_millis_zero(tmp_path):
    before = len(_flush_threads())
    w = summary.create_file_writer(tmp_path, flush_millis=0)
    assert len(_flush_threads()) == before
    w.close()
