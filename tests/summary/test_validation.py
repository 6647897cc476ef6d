"""Argument validation of fe.summary: every rejected call raises a typed error naming the
op and the argument, and leaves the event file readable by TensorBoard with only the
events of the accepted calls."""
import glob
import os

import numpy as np
import pytest

from fasteager import summary
from fasteager.errors import AlreadyExistsError, InvalidArgumentError
from fasteager.summary import writer as writer_module

loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")

F64_MAX = np.finfo(np.float64).max


def read_events(logdir):
    """(tag, step, value) of every summary in logdir, through TensorBoard's own loader
    (which raises on a record it cannot parse, e.g. a tag that is not UTF-8)."""
    (path,) = glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))
    out = []
    for event in loader.EventFileLoader(path).Load():
        for v in event.summary.value:
            out.append((v.tag, event.step, tensor_util.make_ndarray(v.tensor)))
    return out


def steps(logdir):
    return [(tag, step) for tag, step, _ in read_events(logdir)]


BAD_METADATA_UTF8 = b"\x0a\x03\x0a\x01\xff"      # plugin_data { plugin_name: "\xff" }
BAD_METADATA_WIRE = b"\x0a\x09\x0a"              # plugin_data runs past the end

# (call, error class, words the message must contain)
REJECTED = {
    "scalar name int": (lambda: summary.scalar(5, 1.0), TypeError, "summary.scalar: name"),
    "scalar name bytes not utf8": (lambda: summary.scalar(b"\xffloss", 1.0),
                                   InvalidArgumentError, "name is not valid UTF-8"),
    "scalar name surrogate": (lambda: summary.scalar("\ud800", 1.0), InvalidArgumentError,
                              "UTF-8"),
    "scalar data string": (lambda: summary.scalar("x", "abc"), TypeError, "numeric"),
    "scalar data vector": (lambda: summary.scalar("x", [1.0, 2.0]), ValueError, "scalar"),
    "scalar data ragged": (lambda: summary.scalar("x", [[1.0], [1.0, 2.0]]),
                           InvalidArgumentError, "rectangular"),
    "scalar description int": (lambda: summary.scalar("x", 1.0, description=5), TypeError,
                               "description"),
    "scalar description bytes": (lambda: summary.scalar("x", 1.0, description=b"\xff"),
                                 InvalidArgumentError, "description"),
    "step 2**64+5": (lambda: summary.scalar("x", 1.0, step=2 ** 64 + 5), InvalidArgumentError,
                     "step is out of range"),
    "step 2**63": (lambda: summary.scalar("x", 1.0, step=2 ** 63), InvalidArgumentError,
                   "9223372036854775807"),
    "step below int64": (lambda: summary.scalar("x", 1.0, step=-2 ** 63 - 1),
                         InvalidArgumentError, "step is out of range"),
    "step uint64 array": (lambda: summary.scalar("x", 1.0, step=np.uint64(2 ** 63)),
                          InvalidArgumentError, "step is out of range"),
    "step float": (lambda: summary.scalar("x", 1.0, step=3.0), TypeError, "step must be an int"),
    "step bool": (lambda: summary.scalar("x", 1.0, step=True), TypeError, "bool"),
    "step string": (lambda: summary.scalar("x", 1.0, step="3"), TypeError, "step"),
    "step vector": (lambda: summary.scalar("x", 1.0, step=np.array([1, 2])),
                    InvalidArgumentError, "step must be a scalar"),
    "histogram nan": (lambda: summary.histogram("h", [1.0, np.nan, 2.0]), InvalidArgumentError,
                      "1 NaN and 0 Inf among 3"),
    "histogram inf": (lambda: summary.histogram("h", [1.0, -np.inf, np.inf]),
                      InvalidArgumentError, "0 NaN and 2 Inf"),
    "histogram float128 beyond float64": (
        lambda: summary.histogram("h", np.array([1.0, 1e400], dtype=np.longdouble)),
        InvalidArgumentError, "finite"),
    "histogram strings": (lambda: summary.histogram("h", ["a", "b"]), TypeError, "real numbers"),
    "histogram complex": (lambda: summary.histogram("h", [1j]), TypeError, "real numbers"),
    "histogram objects": (lambda: summary.histogram("h", [object()]), TypeError, "real numbers"),
    "buckets 1e10": (lambda: summary.histogram("h", [1.0], buckets=1e10), TypeError,
                     "buckets must be an integer"),
    "buckets 10**10": (lambda: summary.histogram("h", [1.0], buckets=10 ** 10),
                       InvalidArgumentError, "1 <= buckets <= 65536"),
    "buckets 0": (lambda: summary.histogram("h", [1.0], buckets=0), InvalidArgumentError,
                  "buckets"),
    "buckets negative": (lambda: summary.histogram("h", [1.0], buckets=-3),
                         InvalidArgumentError, "buckets"),
    "buckets bool": (lambda: summary.histogram("h", [1.0], buckets=True), TypeError, "bool"),
    "histogram name int": (lambda: summary.histogram(7, [1.0]), TypeError, "name"),
    "image max_outputs negative": (lambda: summary.image("i", np.zeros((1, 2, 2, 1)),
                                                         max_outputs=-1),
                                   InvalidArgumentError, "max_outputs"),
    "image max_outputs float": (lambda: summary.image("i", np.zeros((1, 2, 2, 1)),
                                                      max_outputs=2.5), TypeError, "max_outputs"),
    "image max_outputs string": (lambda: summary.image("i", np.zeros((1, 2, 2, 1)),
                                                       max_outputs="3"), TypeError,
                                 "max_outputs"),
    "image rank 3": (lambda: summary.image("i", np.zeros((4, 4, 3))), ValueError, "rank 4"),
    "image 5 channels": (lambda: summary.image("i", np.zeros((1, 4, 4, 5))), ValueError,
                         "C in 1..4"),
    "image zero height": (lambda: summary.image("i", np.zeros((1, 0, 4, 3))),
                          InvalidArgumentError, "H, W > 0"),
    "image strings": (lambda: summary.image("i", np.full((1, 1, 1, 1), "a")), TypeError,
                      "numeric"),
    "image name bytes": (lambda: summary.image(b"\x80", np.zeros((1, 2, 2, 1))),
                         InvalidArgumentError, "summary.image: name"),
    "text numbers": (lambda: summary.text("t", np.arange(3)), TypeError, "strings"),
    "text surrogate": (lambda: summary.text("t", "a\udcff"), InvalidArgumentError,
                       "summary.text: data"),
    "text objects": (lambda: summary.text("t", [object()]), TypeError, "summary.text: data"),
    "text description": (lambda: summary.text("t", "x", description=["d"]), TypeError,
                         "description"),
    "write tag None": (lambda: summary.write(None, 1.0), TypeError, "summary.write: tag"),
    "write tag not utf8": (lambda: summary.write(b"\xfe", 1.0), InvalidArgumentError, "tag"),
    "write metadata int": (lambda: summary.write("w", 1.0, metadata=5), TypeError, "metadata"),
    "write metadata str": (lambda: summary.write("w", 1.0, metadata="m"), TypeError,
                           "metadata"),
    "write metadata bad utf8": (lambda: summary.write("w", 1.0, metadata=BAD_METADATA_UTF8),
                                InvalidArgumentError, "SummaryMetadata"),
    "write metadata truncated": (lambda: summary.write("w", 1.0, metadata=BAD_METADATA_WIRE),
                                 InvalidArgumentError, "SummaryMetadata"),
    "write tensor None": (lambda: summary.write("w", None), TypeError, "summary.write: tensor"),
    "write tensor complex": (lambda: summary.write("w", np.array([1j])), TypeError, "dtype"),
    "write name": (lambda: summary.write("w", 1.0, name=3), TypeError, "name"),
}


def test_every_rejected_call_leaves_a_readable_file_with_only_valid_events(tmp_path):
    w = summary.create_file_writer(tmp_path)
    expected = []
    with w.as_default(step=0):
        for i, (label, (call, error, words)) in enumerate(REJECTED.items()):
            with pytest.raises(error) as info:
                call()
            assert words in str(info.value), (label, str(info.value))
            summary.scalar("ok", float(i), step=i)
            expected.append(("ok", i))
            w.flush()
            assert steps(tmp_path) == expected, label
    w.close()
    assert steps(tmp_path) == expected


def test_rejected_calls_raise_even_without_a_writer():
    # The cheap checks (names, bucket counts, metadata) run before the writer check, as
    # TF's summary_scope does; data and steps are only looked at when recording.
    with pytest.raises(TypeError):
        summary.scalar(5, 1.0)
    with pytest.raises(InvalidArgumentError):
        summary.histogram("h", [1.0], buckets=10 ** 10)
    with pytest.raises(InvalidArgumentError):
        summary.write(b"\xff", 1.0)
    assert summary.histogram("h", [np.nan], step=2 ** 70) is False


def test_steps_are_int64_negative_ones_included(tmp_path):
    w = summary.create_file_writer(tmp_path)
    with w.as_default():
        for step in (-5, 2 ** 63 - 1, -2 ** 63, np.int64(-1), np.uint64(2 ** 63 - 1),
                     np.array(12, np.int32)):
            assert summary.scalar("s", 1.0, step=step) is True
    w.close()
    assert [s for _, s in steps(tmp_path)] == [-5, 2 ** 63 - 1, -2 ** 63, -1, 2 ** 63 - 1, 12]


def test_default_steps_are_checked_where_they_are_set(tmp_path):
    w = summary.create_file_writer(tmp_path)
    with pytest.raises(InvalidArgumentError, match="set_step: step is out of range"):
        summary.experimental.set_step(2 ** 64)
    with pytest.raises(TypeError, match="set_step: step must be an integer"):
        summary.experimental.set_step(1.5)
    assert summary.experimental.get_step() is None        # unchanged
    with pytest.raises(TypeError, match="as_default: step"):
        w.as_default(step="x")
    with pytest.raises(InvalidArgumentError, match="as_default: step"):
        w.set_as_default(step=2 ** 63)
    assert writer_module.current_writer() is None          # not made the default
    with pytest.raises(TypeError):
        summary.create_noop_writer().as_default(step=1.5)
    w.close()
    assert steps(tmp_path) == []


def test_default_names_and_utf8_bytes_tags(tmp_path):
    w = summary.create_file_writer(tmp_path)
    with w.as_default(step=1):
        summary.scalar(None, 1.0)                 # as TF's summary_scope: the default name
        summary.histogram("", [1.0])
        summary.image(None, np.zeros((1, 2, 2, 1)))
        summary.text(None, "t")
        summary.scalar("héllo".encode(), 2.0)
        summary.write("", np.zeros(2))             # write has no default name
    w.close()
    assert [t for t, _ in steps(tmp_path)] == [
        "scalar_summary", "histogram_summary", "image_summary", "text_summary", "héllo", ""]


def _histogram(tmp_path, data, **kwargs):
    w = summary.create_file_writer(tmp_path)
    with w.as_default(step=0):
        assert summary.histogram("h", data, **kwargs) is True
    w.close()
    ((_, _, h),) = read_events(tmp_path)
    return h


@pytest.mark.parametrize("data", [
    [-F64_MAX, F64_MAX],                        # hi - lo overflows
    [-F64_MAX, 0.0, 1.0, F64_MAX * 0.75],
    [F64_MAX * 0.5, F64_MAX],
    [0.0, 5e-324],                              # the smallest subnormal span
    [-1e-310, 1e-310, 0.0],
], ids=["full-range", "near-full", "upper-half", "one-subnormal", "subnormals"])
def test_histogram_edges_are_finite_for_extreme_finite_ranges(tmp_path, data):
    with np.errstate(all="raise"):              # no NumPy warning on the way either
        h = _histogram(tmp_path, np.array(data), buckets=30)
    assert h.shape == (30, 3) and np.isfinite(h).all()
    assert h[0, 0] == min(data) and h[-1, 1] == max(data)
    assert np.all(np.diff(h[:, 0]) >= 0) and np.all(h[:, 1] >= h[:, 0])
    np.testing.assert_array_equal(h[1:, 0], h[:-1, 1])
    assert h[:, 2].sum() == len(data)
    assert h[0, 2] >= 1 and h[-1, 2] >= 1        # the min and the max are counted at the ends


def test_histogram_of_float32_at_its_max_and_in_range_bucket_counts(tmp_path):
    f32 = np.finfo(np.float32).max
    h = _histogram(tmp_path / "a", np.array([-f32, f32], np.float32), buckets=2)
    np.testing.assert_array_equal(h, [[-f32, 0.0, 1.0], [0.0, f32, 1.0]])
    h = _histogram(tmp_path / "b", np.arange(10), buckets=np.int32(5))
    np.testing.assert_array_equal(h[:, 2], [2, 2, 2, 2, 2])
    assert _histogram(tmp_path / "c", [3.0, 4.0], buckets=1).tolist() == [[3.0, 4.0, 2.0]]
    assert _histogram(tmp_path / "d", [1.0, 2.0], buckets=1 << 16).shape == (1 << 16, 3)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"logdir": None}, ValueError, "logdir cannot be None"),
    ({"logdir": 5}, TypeError, "logdir must be a path"),
    ({"logdir": ""}, InvalidArgumentError, "logdir must not be empty"),
    ({"logdir": "a\0b"}, InvalidArgumentError, "NUL"),
    ({"max_queue": -1}, InvalidArgumentError, "max_queue is out of range"),
    ({"max_queue": 1.5}, TypeError, "max_queue must be an integer"),
    ({"max_queue": True}, TypeError, "max_queue"),
    ({"flush_millis": float("inf")}, TypeError, "flush_millis"),
    ({"flush_millis": float("nan")}, TypeError, "flush_millis"),
    ({"flush_millis": -5}, InvalidArgumentError, "flush_millis"),
    ({"flush_millis": 2 ** 40}, InvalidArgumentError, "flush_millis"),
    ({"filename_suffix": 5}, TypeError, "filename_suffix"),
    ({"filename_suffix": "/x"}, InvalidArgumentError, "separator"),
    ({"filename_suffix": "a\0"}, InvalidArgumentError, "NUL"),
    ({"filename_suffix": "\ud800"}, InvalidArgumentError, "UTF-8"),
    ({"name": 5}, TypeError, "name"),
])
def test_create_file_writer_rejects_bad_arguments_and_creates_nothing(tmp_path, kwargs,
                                                                      error, words):
    logdir = tmp_path / "logs"
    args = {"logdir": logdir, **kwargs}
    with pytest.raises(error) as info:
        summary.create_file_writer(**args)
    assert "create_file_writer: " in str(info.value) and words in str(info.value)
    assert not logdir.exists()


def test_create_file_writer_on_a_file_and_bytes_logdir(tmp_path):
    (tmp_path / "file").write_bytes(b"x")
    with pytest.raises(AlreadyExistsError, match="create_file_writer: cannot create logdir"):
        summary.create_file_writer(tmp_path / "file")
    with pytest.raises(FileExistsError):       # the typed error is also the built-in
        summary.create_file_writer(str(tmp_path / "file"))
    w = summary.create_file_writer(os.fsencode(tmp_path / "b"), max_queue=np.int64(3),
                                   flush_millis=0)
    with w.as_default(step=0):
        summary.scalar("x", 1.0)
    w.close()
    assert steps(tmp_path / "b") == [("x", 0)]


def test_flush_close_and_record_if_arguments(tmp_path):
    w = summary.create_file_writer(tmp_path)
    with pytest.raises(TypeError, match="summary.flush: writer"):
        summary.flush(writer="not a writer")
    with pytest.raises(TypeError, match="summary.record_if: condition"):
        summary.record_if(5)
    with pytest.raises(InvalidArgumentError, match="record_if: condition must be a scalar"):
        summary.record_if(np.array([True, False]))
    with w.as_default(step=0):
        with summary.record_if(lambda: "yes"), pytest.raises(TypeError, match="condition"):
            summary.scalar("x", 1.0)
        with summary.record_if(np.bool_(True)):
            summary.scalar("x", 2.0)
    summary.flush(writer=w)
    w.close()
    w.close()
    w.flush()
    with pytest.raises(RuntimeError, match="closed"):
        w.as_default()
    assert steps(tmp_path) == [("x", 0)]
