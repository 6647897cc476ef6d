"""The README's tour runs as written (MNIST cut to 512 images to keep the test short)."""
import os
import re
import pathlib

import pytest

import fasteager as fe

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def _tour_blocks():
    text = README.read_text()
    tour = text[text.index("## A short tour"):text.index("## How it is built")]
    return re.findall(r"```python\n(.*?)```", tour, re.S)


def test_tour_runs(tmp_path, monkeypatch):
    if not os.environ.get("FASTEAGER_DATA"):
        pytest.skip("FASTEAGER_DATA is not set (no MNIST)")
    real = fe.keras.datasets.mnist.load_data

    def small(path=None):
        (x, y), (xt, yt) = real(path)
        return (x[:512], y[:512]), (xt[:128], yt[:128])
    monkeypatch.setattr(fe.keras.datasets.mnist, "load_data", small)
    monkeypatch.chdir(tmp_path)
    blocks = _tour_blocks()
    assert len(blocks) >= 8
    namespace = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert os.path.exists(tmp_path / "runs" / "ckpt" / "checkpoint")
    assert os.path.exists(tmp_path / "w.safetensors")
