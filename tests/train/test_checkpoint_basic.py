"""Checkpoints of plain variables: format, state file, restore rules, bad files, crash safety."""
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import fasteager as fe
from fasteager.train.checkpoint import Checkpoint, CheckpointManager, latest_checkpoint


def test_guide_program(tmp_path):
    x = fe.Variable(10.0)
    checkpoint = Checkpoint(x=x)
    x.assign(2.0)
    checkpoint_path = tmp_path / "ckpt/"
    path = checkpoint.save(checkpoint_path)
    assert path == str(tmp_path / "ckpt-1")
    x.assign(11.0)
    # the guide passes the prefix (not a directory): latest_checkpoint gives None
    assert latest_checkpoint(checkpoint_path) is None
    checkpoint.restore(latest_checkpoint(checkpoint_path))
    assert x.numpy() == 11.0
    checkpoint.restore(latest_checkpoint(tmp_path))
    assert x.numpy() == 2.0


def test_file_opens_with_the_safetensors_package(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    a = fe.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = fe.Variable(np.int64(7), trainable=False)
    path = Checkpoint(a=a, nested=Checkpoint(b=b)).save(tmp_path / "c")
    loaded = st.load_file(path + ".safetensors")
    np.testing.assert_array_equal(loaded["a"], a.numpy())
    assert loaded["nested/b"] == 7 and loaded["nested/b"].shape == ()


def test_save_counts_and_state_file(tmp_path):
    v = fe.Variable(1.0)
    ck = Checkpoint(v=v)
    p1 = ck.save(tmp_path / "ck")
    p2 = ck.save(tmp_path / "ck")
    assert p1.endswith("ck-1") and p2.endswith("ck-2")
    assert latest_checkpoint(tmp_path) == p2
    state = (tmp_path / "checkpoint").read_text()
    assert 'model_checkpoint_path: "ck-2"' in state
    assert latest_checkpoint(tmp_path / "missing") is None


def test_restore_validates_before_assigning(tmp_path):
    a = fe.Variable([1.0, 2.0])
    b = fe.Variable([3.0])
    path = Checkpoint(a=a, b=b).save(tmp_path / "c")
    a2 = fe.Variable([0.0, 0.0])
    b2 = fe.Variable([0.0, 0.0])          # wrong shape
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"'b'.*\[1\].*\[2\]"):
        Checkpoint(a=a2, b=b2).restore(path)
    assert a2.numpy().tolist() == [0.0, 0.0]      # nothing changed
    b3 = fe.Variable([0], dtype=fe.int32)
    with pytest.raises(fe.errors.InvalidArgumentError, match="dtype"):
        Checkpoint(b=b3).restore(path)


def test_corrupt_and_truncated_files(tmp_path):
    v = fe.Variable(np.ones(100, np.float32))
    path = Checkpoint(v=v).save(tmp_path / "c")
    data = open(path + ".safetensors", "rb").read()
    bad = tmp_path / "bad-1.safetensors"
    bad.write_bytes(data[: len(data) - 10])
    target = fe.Variable(np.zeros(100, np.float32))
    with pytest.raises(fe.errors.DataLossError, match="bad-1"):
        Checkpoint(v=target).restore(str(tmp_path / "bad-1"))
    assert target.numpy().sum() == 0
    bad.write_bytes(b"\x05" + data[1:])
    with pytest.raises(fe.errors.DataLossError):
        Checkpoint(v=target).restore(str(tmp_path / "bad-1"))
    with pytest.raises(fe.errors.NotFoundError):
        Checkpoint(v=target).restore(str(tmp_path / "nothing-here"))


def test_assert_consumed_and_partial(tmp_path):
    a = fe.Variable(1.0)
    b = fe.Variable(2.0)
    path = Checkpoint(a=a, b=b).save(tmp_path / "c")
    status = Checkpoint(a=fe.Variable(0.0)).restore(path)
    with pytest.raises(AssertionError, match="b"):
        status.assert_consumed()
    status.assert_existing_objects_matched()
    status.expect_partial()
    status = Checkpoint(a=fe.Variable(0.0), c=fe.Variable(0.0)).restore(path)
    with pytest.raises(AssertionError, match="c"):
        status.assert_existing_objects_matched()
    Checkpoint(a=a).restore(None)        # a no-op


def test_manager_keeps_max_to_keep(tmp_path):
    v = fe.Variable(0.0)
    manager = CheckpointManager(Checkpoint(v=v), tmp_path, max_to_keep=2)
    for i in range(4):
        v.assign(float(i))
        manager.save()
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-3", "ckpt-4"]
    assert not os.path.exists(tmp_path / "ckpt-1.safetensors")
    assert manager.latest_checkpoint == latest_checkpoint(tmp_path)
    v.assign(-1.0)
    Checkpoint(v=v).restore(manager.latest_checkpoint)
    assert v.numpy() == 3.0


_SAVER = textwrap.dedent("""
    import sys
    import numpy as np
    import fasteager as fe
    from fasteager.train.checkpoint import Checkpoint
    vs = [fe.Variable(np.zeros(20000, np.float32)) for _ in range(3)]
    step = fe.Variable(np.int64(0), trainable=False)
    ck = Checkpoint(a=vs[0], b=vs[1], c=vs[2], step=step)
    i = 0
    print("ready", flush=True)
    while True:
        i += 1
        for v in vs:
            v.assign(np.full(20000, i, np.float32))
        step.assign(np.int64(i))
        ck.save(sys.argv[1] + "/ckpt")
""")


@pytest.mark.slow
def test_sigkill_during_saves_never_leaves_a_broken_latest_checkpoint(tmp_path):
    rng = random.Random(0)
    kills = 0
    for attempt in range(12):
        d = tmp_path / ("run%d" % attempt)
        d.mkdir()
        proc = subprocess.Popen([sys.executable, "-c", _SAVER, str(d)], stdout=subprocess.PIPE,
                                env=dict(os.environ))
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.05, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        latest = latest_checkpoint(d)
        if latest is None:
            continue              # killed before the first save finished
        vs = [fe.Variable(np.zeros(20000, np.float32)) for _ in range(3)]
        step = fe.Variable(np.int64(-1), trainable=False)
        Checkpoint(a=vs[0], b=vs[1], c=vs[2], step=step).restore(latest).assert_consumed()
        n = int(step.numpy())
        assert n >= 1 and latest.endswith("ckpt-%d" % n)
        for v in vs:
            assert (v.numpy() == n).all(), "variables from different steps"
    assert kills >= 10
