"""Checkpoint paths are prefixes, as in TensorFlow: write("./checkpoint") then
restore("./checkpoint") reads checkpoint.safetensors even beside a CheckpointManager's
state file named "checkpoint"."""
import os

import fasteager as fe


def test_prefix_named_like_the_state_file(tmp_path):
    v = fe.Variable(3.0)
    manager = fe.train.CheckpointManager(fe.train.Checkpoint(v=v), str(tmp_path), 2)
    manager.save()                                # writes the "checkpoint" state file
    assert os.path.exists(tmp_path / "checkpoint")
    prefix = str(tmp_path / "checkpoint")
    ckpt = fe.train.Checkpoint(v=v)
    ckpt.write(prefix)
    v.assign(7.0)
    ckpt.restore(prefix)
    assert float(v) == 3.0
