"""fe.profiler: TensorBoard profile files (XSpace protobufs) with one event per executed
op, per replayed fe.function step and per Trace annotation."""
import glob
import os
import threading

import numpy as np
import pytest

import fasteager as tf
from fasteager.profiler import _xplane


def _profile_file(logdir):
    files = glob.glob(os.path.join(str(logdir), "plugins", "profile", "*", "*.xplane.pb"))
    assert len(files) == 1, files
    return files[0]


def _events(path):
    space = _xplane.decode_space(open(path, "rb").read())
    (plane,) = space["planes"]
    assert plane["name"] == "/host:CPU"
    return space, plane["lines"]


def _absolute(line):
    """(name, start ns, end ns, stats) of a line's events."""
    t0 = line["timestamp_ns"]
    return [(e["name"], t0 + e["offset_ps"] / 1000, t0 + (e["offset_ps"] + e["duration_ps"])
             / 1000, e["stats"]) for e in line["events"]]


def test_ops_and_annotations_are_events_on_the_thread_line(tmp_path):
    @tf.function
    def step(x):
        return tf.reduce_sum(tf.matmul(x, x))

    x = tf.constant(np.ones((3, 3), np.float32))
    step(x)                                     # traced before: profiled as a replay
    tf.profiler.experimental.start(str(tmp_path))
    with tf.profiler.experimental.Trace("train", step_num=7):
        y = x + 1.0
        tf.nn.relu(y)
        step(x)
    path = tf.profiler.experimental.stop()
    assert path == _profile_file(tmp_path)
    assert os.path.basename(path) == "%s.xplane.pb" % __import__("socket").gethostname()
    space, lines = _events(path)
    assert space["hostnames"] == [__import__("socket").gethostname()]
    (line,) = lines
    assert line["name"] == threading.current_thread().name
    events = _absolute(line)
    names = [e[0] for e in events]
    assert names[0] == "train" and events[0][3] == {"step_num": 7}
    assert "add" in names and "relu" in names
    assert "matmul" in names and "reduce_sum" in names       # the replay's steps
    _, start, end, _ = events[0]
    for name, s, e, _ in events[1:]:
        assert start <= s <= e <= end, name            # inside the annotation
    assert line["duration_ps"] >= events[0][2] - events[0][1]


def test_file_parses_with_tensorflows_xplane_proto(tmp_path):
    xplane_pb2 = pytest.importorskip("tensorflow.tsl.profiler.protobuf.xplane_pb2")
    with tf.profiler.experimental.Profile(str(tmp_path)):
        with tf.profiler.experimental.Trace("block", label="a"):
            tf.constant([1.0]) * 3.0
    space = xplane_pb2.XSpace()
    space.ParseFromString(open(_profile_file(tmp_path), "rb").read())
    plane = space.planes[0]
    assert plane.name == "/host:CPU"
    events = [(plane.event_metadata[e.metadata_id].name, e) for e in plane.lines[0].events]
    assert [n for n, _ in events] == ["block", "multiply"]
    block = events[0][1]
    assert [(plane.stat_metadata[s.metadata_id].name, s.str_value) for s in block.stats] == \
        [("label", "a")]
    assert all(e.duration_ps > 0 for _, e in events)


def test_threads_have_their_own_lines(tmp_path):
    tf.profiler.experimental.start(str(tmp_path))

    def work():
        with tf.profiler.experimental.Trace("worker"):
            tf.constant([1.0]) - 1.0
    t = threading.Thread(target=work, name="worker-thread")
    t.start()
    t.join()
    with tf.profiler.experimental.Trace("main"):
        pass
    tf.profiler.experimental.stop()
    _, lines = _events(_profile_file(tmp_path))
    by_name = {line["name"]: [e["name"] for e in line["events"]] for line in lines}
    assert by_name["worker-thread"] == ["worker", "subtract"]
    assert by_name[threading.current_thread().name] == ["main"]


def test_start_stop_errors_and_levels(tmp_path):
    with pytest.raises(tf.errors.UnavailableError, match="No profiler is running"):
        tf.profiler.experimental.stop()
    tf.profiler.experimental.start(str(tmp_path / "a"),
                                   tf.profiler.experimental.ProfilerOptions(
                                       host_tracer_level=1))
    with pytest.raises(tf.errors.AlreadyExistsError, match="Another profiler is running"):
        tf.profiler.experimental.start(str(tmp_path / "b"))
    with tf.profiler.experimental.Trace("only"):
        tf.constant([2.0]) * 2.0               # level 1: annotations only
    tf.profiler.experimental.stop()
    _, lines = _events(_profile_file(tmp_path / "a"))
    assert [e["name"] for line in lines for e in line["events"]] == ["only"]
    tf.profiler.experimental.start(str(tmp_path / "b"))
    assert tf.profiler.experimental.stop(save=False) is None
    with tf.profiler.experimental.Trace("nothing"):   # no profiler: nothing recorded
        pass
    assert not os.path.exists(tmp_path / "b")


def test_summary_trace_on_with_the_profiler(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))

    @tf.function
    def f(x):
        return x * x

    tf.summary.trace_on(graph=True, profiler=True, profiler_outdir=str(tmp_path / "prof"))
    f(tf.constant(2.0))
    with writer.as_default():
        tf.summary.trace_export("f_trace", step=0)
    writer.flush()
    _, lines = _events(_profile_file(tmp_path / "prof"))
    assert "multiply" in [e["name"] for line in lines for e in line["events"]]
    assert glob.glob(str(tmp_path / "logs" / "events.out.tfevents.*"))
    with pytest.raises(tf.errors.UnavailableError):   # trace_export stopped it
        tf.profiler.experimental.stop()


def test_xplane_codec_round_trip():
    data = _xplane.encode_space("host", [(3, "/host:CPU", [
        (11, "t", 1000, [(1, 1000, 1005, [(1, -4)]), (2, 1001, 1002, [(2, 1.5)])])],
        {1: "op", 2: "inner"}, {1: "neg", 2: "x"})])
    space = _xplane.decode_space(data)
    assert space["hostnames"] == ["host"]
    (plane,) = space["planes"]
    assert plane["id"] == 3
    (line,) = plane["lines"]
    assert (line["id"], line["name"], line["timestamp_ns"], line["duration_ps"]) == \
        (11, "t", 1000, 5000)
    assert [(e["name"], e["offset_ps"], e["duration_ps"], e["stats"]) for e in
            line["events"]] == [("op", 0, 5000, {"neg": -4}), ("inner", 1000, 1000,
                                                               {"x": 1.5})]
