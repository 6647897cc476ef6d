"""fasteager.summary: event files read back by TensorBoard's own readers."""

import gc
import glob
import io
import os
import re
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import fasteager as fe
from fasteager import summary
from fasteager.errors import DataLossError
from fasteager.summary import _events
from tests.child_process import child_env

ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def accumulate(logdir):
    acc = ea.EventAccumulator(str(logdir), size_guidance={
        ea.SCALARS: 0, ea.TENSORS: 0, ea.HISTOGRAMS: 0, ea.IMAGES: 0})
    acc.Reload()
    return acc


def tensors(acc, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def event_files(logdir):
    return sorted(glob.glob(os.path.join(str(logdir), "events.out.tfevents.*")))


def strict_record_count(path):
    """Read every record with TensorBoard's strict reader (raises DataLossError on bad CRC)."""
    from tensorboard.compat.tensorflow_stub import errors, pywrap_tensorflow
    reader = pywrap_tensorflow.PyRecordReader_New(path)
    n = 0
    while True:
        try:
            reader.GetNext()
        except errors.OutOfRangeError:
            return n
        n += 1


def own_record_count(path):
    with open(path, "rb") as f:
        return sum(1 for _ in _events.iter_records(f))


class FakeTensor:
    """Stands in for a fasteager Tensor: only ``__array__``."""

    def __init__(self, value):
        self._value = np.asarray(value)

    def __array__(self, dtype=None, copy=None):
        return self._value if dtype is None else self._value.astype(dtype)


@pytest.fixture(autouse=True)
def clean_state():
    summary.experimental.set_step(None)
    yield
    summary.experimental.set_step(None)
    from fasteager.summary import writer
    writer._state.writer = None
    writer._state.is_recording = None


# ---------------------------------------------------------------------------
# files and records
# ---------------------------------------------------------------------------

def test_file_name_and_first_record(tmp_path):
    logdir = tmp_path / "a" / "b"  # parents are created
    w1 = summary.create_file_writer(logdir)
    w2 = summary.create_file_writer(logdir)
    w1.close()
    w2.close()
    files = event_files(logdir)
    assert len(files) == 2
    pattern = re.compile(r"events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+)\.v2$")
    matches = [pattern.search(os.path.basename(f)) for f in files]
    assert all(matches)
    assert {int(m.group(3)) for m in matches} == {os.getpid()}
    assert abs(int(matches[0].group(1)) - time.time()) < 60
    assert len({int(m.group(4)) for m in matches}) == 2  # per-process counter
    from tensorboard.compat.proto import event_pb2
    with open(files[0], "rb") as f:
        records = _events.iter_records(f)
        first = event_pb2.Event.FromString(next(records))
    assert first.file_version == "brain.Event:2"
    assert abs(first.wall_time - time.time()) < 60


def test_filename_suffix(tmp_path):
    summary.create_file_writer(tmp_path, filename_suffix=".custom").close()
    (path,) = event_files(tmp_path)
    assert path.endswith(".custom") and not path.endswith(".v2.custom")


def test_strict_reader_reads_every_record(tmp_path):
    w = summary.create_file_writer(tmp_path)
    rng = np.random.default_rng(0)
    with w.as_default(step=1):
        for i in range(25):
            summary.scalar("s", float(i), step=i)
        summary.histogram("h", rng.normal(size=10_000))
        summary.image("i", rng.random((3, 64, 48, 3)))
        summary.text("t", "hello")
    w.close()
    (path,) = event_files(tmp_path)
    assert strict_record_count(path) == 1 + 25 + 3
    assert own_record_count(path) == 1 + 25 + 3


def test_corrupt_record_is_detected(tmp_path):
    w = summary.create_file_writer(tmp_path)
    with w.as_default():
        summary.scalar("s", 1.0, step=0)
    w.close()
    (path,) = event_files(tmp_path)
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    raw[-6] ^= 0x01  # inside the last record's data
    with pytest.raises(DataLossError, match="CRC"):
        list(_events.iter_records(io.BytesIO(bytes(raw))))
    with pytest.raises(DataLossError, match="truncated record"):
        list(_events.iter_records(io.BytesIO(bytes(raw[:-3]))))
    with open(path, "wb") as f:
        f.write(raw)
    from tensorboard.compat.tensorflow_stub import errors
    with pytest.raises(errors.DataLossError):
        strict_record_count(path)


# ---------------------------------------------------------------------------
# ops read back through TensorBoard
# ---------------------------------------------------------------------------

def test_guide_program_loss_every_100_steps(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(1000):
            loss = 1.0 / (step + 1)
            if step % 100 == 0:
                assert summary.scalar("loss", loss, step=step) is True
    writer.close()
    got = tensors(accumulate(tmp_path), "loss")
    assert [s for s, _ in got] == list(range(0, 1000, 100))
    for step, value in got:
        assert value.dtype == np.float32 and value.shape == ()
        assert value == np.float32(1.0 / (step + 1))


def test_scalar_metadata_and_data_provider(tmp_path):
    from tensorboard import context
    from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
    from tensorboard.compat.proto import summary_pb2
    w = summary.create_file_writer(tmp_path / "run")
    with w.as_default():
        summary.scalar("acc", np.float64(0.5), step=3, description="accuracy")
        summary.scalar("acc", FakeTensor(0.75), step=np.int64(4))
    w.close()
    acc = accumulate(tmp_path / "run")
    meta = acc.SummaryMetadata("acc")
    assert meta.plugin_data.plugin_name == "scalars"
    assert meta.data_class == summary_pb2.DATA_CLASS_SCALAR
    assert meta.summary_description == "accuracy"
    mux = plugin_event_multiplexer.EventMultiplexer()
    mux.AddRunsFromDirectory(str(tmp_path))
    mux.Reload()
    provider = data_provider.MultiplexerDataProvider(mux, str(tmp_path))
    series = provider.read_scalars(context.RequestContext(), experiment_id="",
                                   plugin_name="scalars", downsample=100)
    assert [(d.step, d.value) for d in series["run"]["acc"]] == [(3, 0.5), (4, 0.75)]


def test_histogram(tmp_path):
    rng = np.random.default_rng(0)
    data = rng.normal(size=(100, 50))
    w = summary.create_file_writer(tmp_path)
    with w.as_default(step=7):
        summary.histogram("h", FakeTensor(data))
        summary.histogram("h5", data, buckets=5)
        summary.histogram("one", np.full(10, 2.5))
        summary.histogram("empty", np.zeros((0,)))
    w.close()
    acc = accumulate(tmp_path)
    assert acc.SummaryMetadata("h").plugin_data.plugin_name == "histograms"
    assert acc.SummaryMetadata("h").data_class == 2
    ((step, h),) = tensors(acc, "h")
    assert step == 7 and h.dtype == np.float64 and h.shape == (30, 3)
    assert h[:, 2].sum() == data.size
    assert h[0, 0] == data.min() and h[-1, 1] == data.max()
    np.testing.assert_allclose(h[1:, 0], h[:-1, 1])
    expected, _ = np.histogram(data, bins=30, range=(data.min(), data.max()))
    # Counts agree with NumPy except for values sitting on a float-rounded edge.
    assert np.abs(h[:, 2] - expected).sum() <= 2
    ((_, h5),) = tensors(acc, "h5")
    assert h5.shape == (5, 3) and h5[:, 2].sum() == data.size
    ((_, one),) = tensors(acc, "one")
    assert one.shape == (30, 3)
    assert np.all(one[:, :2] == 2.5) and one[-1, 2] == 10 and one[:-1, 2].sum() == 0
    ((_, empty),) = tensors(acc, "empty")
    assert empty.shape == (30, 3) and not empty.any()


def _expected_uint8(images):
    return np.clip(np.asarray(images, np.float64) * 255.5, 0, 255).astype(np.uint8)


def test_image_float_and_uint8(tmp_path):
    rng = np.random.default_rng(0)
    floats = rng.random((5, 6, 7, 3)) * 1.2 - 0.1  # out-of-range values are clipped
    gray = rng.integers(0, 256, (2, 4, 9, 1), dtype=np.uint8)
    rgba = rng.integers(0, 256, (1, 3, 3, 4), dtype=np.uint8)
    w = summary.create_file_writer(tmp_path)
    with w.as_default(step=2):
        assert summary.image("rgb", floats) is True  # max_outputs defaults to 3
        summary.image("gray", gray, max_outputs=10)
        summary.image("rgba", FakeTensor(rgba))
    w.close()
    acc = accumulate(tmp_path)
    meta = acc.SummaryMetadata("rgb")
    assert meta.plugin_data.plugin_name == "images" and meta.data_class == 3
    ((step, rgb),) = tensors(acc, "rgb")
    assert step == 2 and rgb.shape == (2 + 3,)
    assert rgb[0] == b"7" and rgb[1] == b"6"  # width, height
    for png, expected in zip(rgb[2:], _expected_uint8(floats[:3])):
        np.testing.assert_array_equal(fe.io.decode_png(png).numpy(), expected)
    ((_, g),) = tensors(acc, "gray")
    assert g.shape == (4,) and g[0] == b"9" and g[1] == b"4"
    for png, expected in zip(g[2:], gray):
        np.testing.assert_array_equal(fe.io.decode_png(png).numpy(), expected)
    ((_, a),) = tensors(acc, "rgba")
    np.testing.assert_array_equal(fe.io.decode_png(a[2]).numpy(), rgba[0])


def test_text(tmp_path):
    w = summary.create_file_writer(tmp_path)
    with w.as_default(step=5):
        summary.text("note", "héllo **world**")
        summary.text("table", np.array([["a", "b"], ["c", "d"]]))
        summary.text("raw", [b"x", b"y"])
    w.close()
    acc = accumulate(tmp_path)
    meta = acc.SummaryMetadata("note")
    assert meta.plugin_data.plugin_name == "text" and meta.data_class == 2
    ((step, note),) = tensors(acc, "note")
    assert step == 5 and note.shape == () and note.item().decode() == "héllo **world**"
    ((_, table),) = tensors(acc, "table")
    np.testing.assert_array_equal(table, np.array([[b"a", b"b"], [b"c", b"d"]]))
    ((_, raw),) = tensors(acc, "raw")
    assert list(raw) == [b"x", b"y"]


def test_generic_write_with_callable(tmp_path):
    calls = []

    def make():
        calls.append(1)
        return np.arange(6, dtype=np.int32).reshape(2, 3)

    assert summary.write("w", make, step=0) is False  # no writer: not even called
    assert calls == []
    w = summary.create_file_writer(tmp_path)
    with w.as_default():
        assert summary.write("w", make, step=1) is True
    w.close()
    ((step, value),) = tensors(accumulate(tmp_path), "w")
    assert step == 1 and calls == [1]
    np.testing.assert_array_equal(value, np.arange(6).reshape(2, 3))


# ---------------------------------------------------------------------------
# state: default writer, step, record_if, threads
# ---------------------------------------------------------------------------

def test_no_writer_returns_false():
    assert summary.scalar("x", 1.0, step=0) is False
    assert summary.histogram("x", [1.0], step=0) is False
    assert summary.image("x", np.zeros((1, 2, 2, 1)), step=0) is False
    assert summary.text("x", "t", step=0) is False
    assert summary.should_record_summaries() is False
    summary.flush()  # no default writer: nothing to do


def test_missing_step_raises(tmp_path):
    w = summary.create_file_writer(tmp_path)
    with w.as_default():
        with pytest.raises(ValueError, match="step"):
            summary.scalar("x", 1.0)
        with summary.record_if(False):  # not recording: the step is not needed
            assert summary.scalar("x", 1.0) is False
    w.close()


def test_default_step_sources(tmp_path):
    w = summary.create_file_writer(tmp_path)
    step_var = FakeTensor(np.int64(40))
    with w.as_default(step=10):
        summary.scalar("a", 1.0)  # step from as_default
        summary.experimental.set_step(20)
        assert summary.experimental.get_step() == 20
        summary.scalar("a", 2.0)
        summary.scalar("a", 3.0, step=np.array(30))  # explicit step wins
        summary.experimental.set_step(step_var)  # array-like steps are read per call
        summary.scalar("a", 4.0)
    # as_default restores the step it replaced
    assert summary.experimental.get_step() is None
    with w.as_default(), pytest.raises(TypeError, match="integer"):
        summary.scalar("a", 1.0, step=1.5)   # TF's steps are int64: floats are refused
    w.close()
    assert [s for s, _ in tensors(accumulate(tmp_path), "a")] == [10, 20, 30, 40]


def test_as_default_nesting_and_set_as_default(tmp_path):
    wa = summary.create_file_writer(tmp_path / "a")
    wb = summary.create_file_writer(tmp_path / "b")
    with wa.as_default(step=1):
        summary.scalar("x", 1.0)
        with wb.as_default(step=2):
            summary.scalar("x", 2.0)
        summary.scalar("x", 3.0)
    wb.set_as_default(step=9)
    summary.scalar("x", 4.0)
    wa.close()
    wb.close()
    assert tensors(accumulate(tmp_path / "a"), "x") == [(1, 1.0), (1, 3.0)]
    assert tensors(accumulate(tmp_path / "b"), "x") == [(2, 2.0), (9, 4.0)]


def test_record_if(tmp_path):
    w = summary.create_file_writer(tmp_path)
    step = {"n": 0}
    with w.as_default():
        with summary.record_if(False):
            assert summary.should_record_summaries() is False
            assert summary.scalar("x", 0.0, step=0) is False
        with summary.record_if(lambda: step["n"] % 2 == 0):
            for n in range(6):
                step["n"] = n
                summary.scalar("x", float(n), step=n)
        with summary.record_if(np.bool_(True)):
            assert summary.should_record_summaries() is True
    w.close()
    assert [s for s, _ in tensors(accumulate(tmp_path), "x")] == [0, 2, 4]


def test_state_is_thread_local(tmp_path):
    w = summary.create_file_writer(tmp_path)
    seen = {}

    def worker():
        seen["writes"] = summary.scalar("x", 1.0, step=0)
        seen["step"] = summary.experimental.get_step()

    with w.as_default(step=3):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    w.close()
    assert seen == {"writes": False, "step": None}


def test_bad_inputs(tmp_path):
    w = summary.create_file_writer(tmp_path)
    with w.as_default(step=0):
        with pytest.raises(ValueError, match="scalar"):
            summary.scalar("x", [1.0, 2.0])
        with pytest.raises(ValueError, match="rank 4"):
            summary.image("x", np.zeros((4, 4, 3)))
        with pytest.raises(TypeError):
            summary.text("x", np.arange(3))
    w.close()
    with pytest.raises(ValueError):
        summary.create_file_writer(None)
    with pytest.raises(ValueError):
        summary.create_file_writer(tmp_path, max_queue=-1)


def test_noop_writer():
    w = summary.create_noop_writer()
    with w.as_default(step=1):
        assert summary.scalar("x", 1.0) is False
    w.flush()
    w.close()


# ---------------------------------------------------------------------------
# flushing and closing
# ---------------------------------------------------------------------------

def _records_on_disk(path):
    return own_record_count(path)


def test_queue_flushes_past_max_queue(tmp_path):
    w = summary.create_file_writer(tmp_path, max_queue=3, flush_millis=10**9)
    w.set_as_default(step=0)
    path = event_files(tmp_path)[0]
    assert _records_on_disk(path) == 1  # file_version is written at once
    for i in range(3):
        summary.scalar("x", float(i))
    assert _records_on_disk(path) == 1  # 3 queued, not more than max_queue
    summary.scalar("x", 3.0)
    assert _records_on_disk(path) == 5
    summary.scalar("x", 4.0)
    summary.flush()
    assert _records_on_disk(path) == 6
    w.close()


def test_flush_millis_zero_writes_each_event(tmp_path):
    w = summary.create_file_writer(tmp_path, max_queue=100, flush_millis=0)
    path = event_files(tmp_path)[0]
    w.set_as_default(step=0)
    summary.scalar("x", 1.0)            # no time needs to pass: 0 ms means every write
    assert _records_on_disk(path) == 2
    w.close()


def test_as_default_exit_flushes_and_close(tmp_path):
    w = summary.create_file_writer(tmp_path, max_queue=100)
    path = event_files(tmp_path)[0]
    with w.as_default(step=0):
        summary.scalar("x", 1.0)
        assert _records_on_disk(path) == 1
    assert _records_on_disk(path) == 2
    w.close()
    w.close()  # idempotent
    w.flush()  # no-op once closed
    with pytest.raises(RuntimeError, match="closed"):
        w.as_default()
    with pytest.raises(RuntimeError, match="closed"):
        w.set_as_default()


def test_write_after_close_raises(tmp_path):
    w = summary.create_file_writer(tmp_path)
    w.set_as_default(step=0)
    w.close()
    with pytest.raises(RuntimeError, match="closed"):
        summary.scalar("x", 1.0)


def test_garbage_collected_writer_flushes(tmp_path):
    def scope():
        w = summary.create_file_writer(tmp_path, max_queue=100)
        with summary.record_if(True):
            w.set_as_default(step=0)
            summary.scalar("x", 1.0)
            from fasteager.summary import writer
            writer._state.writer = None
        return event_files(tmp_path)[0]

    path = scope()
    gc.collect()
    assert _records_on_disk(path) == 2


def test_interpreter_exit_flushes(tmp_path):
    code = textwrap.dedent(f"""
        from fasteager import summary
        w = summary.create_file_writer({str(tmp_path)!r}, max_queue=1000)
        w.set_as_default(step=0)
        for i in range(5):
            summary.scalar("x", float(i), step=i)
    """)
    subprocess.run([sys.executable, "-c", code], check=True, env=child_env(), timeout=60)
    (path,) = event_files(tmp_path)
    assert strict_record_count(path) == 6
    assert [s for s, _ in tensors(accumulate(tmp_path), "x")] == list(range(5))
