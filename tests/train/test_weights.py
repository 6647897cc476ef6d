"""Model.save_weights / load_weights in .safetensors, .npz and .h5; bad files."""
import builtins
import os

import numpy as np
import pytest

import fasteager as fe

from _weight_files import rewrite_entry  # tests/train/_weight_files.py

X = np.random.RandomState(0).randn(4, 5).astype("float32")
FORMATS = [".safetensors", ".npz",
           pytest.param(".h5", marks=pytest.mark.skipif(
               __import__("importlib").util.find_spec("h5py") is None,
               reason="h5py is not installed"))]


def make():
    return fe.keras.Sequential([fe.keras.layers.Dense(6, activation="relu"),
                                fe.keras.layers.Dense(2)])


class Sub(fe.keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = {"a": fe.keras.layers.Dense(4), "b": [fe.keras.layers.Dense(3)]}

    def call(self, x):
        return self.blocks["b"][0](self.blocks["a"](x))


def values(model):
    return [w.numpy().copy() for w in model.weights]


@pytest.mark.parametrize("suffix", FORMATS)
@pytest.mark.parametrize("factory", [make, Sub])
def test_round_trip(tmp_path, suffix, factory):
    m = factory()
    y = m(X).numpy()
    path = tmp_path / ("w" + suffix)
    m.save_weights(path)
    assert os.path.exists(path)
    m2 = factory()
    m2(X)
    m2.load_weights(str(path))
    for a, b in zip(values(m), values(m2)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(m2(X).numpy(), y)


@pytest.mark.parametrize("suffix", FORMATS)
def test_load_before_build_is_deferred(tmp_path, suffix):
    m = make()
    y = m(X).numpy()
    m.save_weights(tmp_path / ("w" + suffix))
    m2 = make()
    status = m2.load_weights(tmp_path / ("w" + suffix))
    np.testing.assert_array_equal(m2(X).numpy(), y)
    if suffix == ".h5":
        assert status is None          # Keras 3 returns None for its HDF5 weights files
    else:
        status.assert_consumed()


def test_npz_is_plain_arrays(tmp_path):
    m = make()
    m(X)
    m.save_weights(tmp_path / "w.npz")
    with np.load(tmp_path / "w.npz", allow_pickle=False) as z:
        assert sorted(z.files) == sorted(["_layers/0/kernel", "_layers/0/bias",
                                          "_layers/1/kernel", "_layers/1/bias"])


def test_unknown_suffix(tmp_path):
    m = make()
    m(X)
    # Keras 3's error class and wording, with the formats fasteager adds
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5` .*\.safetensors"):
        m.save_weights(tmp_path / "w.bin")
    with pytest.raises(ValueError, match="Received: filepath=.*easy_checkpoint"):
        m.save_weights(tmp_path / "easy_checkpoint")      # TF 2's checkpoint-prefix style
    with pytest.raises(ValueError, match=r"must end in"):
        m.load_weights(tmp_path / "easy_checkpoint")
    assert not list(tmp_path.iterdir())


def test_missing_h5py_names_the_extra(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "h5py" or name.startswith("h5py."):
            raise ImportError("No module named 'h5py'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    monkeypatch.delitem(__import__("sys").modules, "h5py", raising=False)
    m = make()
    m(X)
    with pytest.raises(ImportError, match=r"fasteager\[h5\]"):
        m.save_weights(tmp_path / "w.h5")
    with pytest.raises(ImportError, match=r"fasteager\[h5\]"):
        m.load_weights(tmp_path / "w.h5")
    assert not os.path.exists(tmp_path / "w.h5")


# ---- bad files: clear errors naming the file (and entry), no variable changes -----------

def _saved(tmp_path, suffix):
    m = make()
    m(X)
    path = str(tmp_path / ("w" + suffix))
    m.save_weights(path)
    return path


def _expect_no_change(path, exc, match):
    m = make()
    m(X)
    before = values(m)
    with pytest.raises(exc, match=match):
        m.load_weights(path)
    for a, b in zip(before, values(m)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("suffix", FORMATS)
def test_truncated(tmp_path, suffix):
    path = _saved(tmp_path, suffix)
    data = open(path, "rb").read()
    open(path, "wb").write(data[:len(data) * 2 // 3])
    _expect_no_change(path, fe.errors.DataLossError, os.path.basename(path))


@pytest.mark.parametrize("suffix", FORMATS)
def test_corrupt(tmp_path, suffix):
    path = _saved(tmp_path, suffix)
    data = bytearray(open(path, "rb").read())
    data[:16] = b"\xff" * 16
    open(path, "wb").write(bytes(data))
    _expect_no_change(path, fe.errors.DataLossError, os.path.basename(path))


@pytest.mark.parametrize("suffix", FORMATS)
def test_wrong_shape(tmp_path, suffix):
    path = _saved(tmp_path, suffix)
    rewrite_entry(path, suffix, "_layers/1/kernel", np.zeros((6, 3), np.float32))
    _expect_no_change(path, fe.errors.InvalidArgumentError,
                      r"w\%s.*_layers/1/kernel.*shape" % suffix)


@pytest.mark.parametrize("suffix", FORMATS)
def test_wrong_dtype(tmp_path, suffix):
    path = _saved(tmp_path, suffix)
    rewrite_entry(path, suffix, "_layers/1/bias", np.zeros((2,), np.float64))
    _expect_no_change(path, fe.errors.InvalidArgumentError,
                      r"w\%s.*_layers/1/bias.*dtype" % suffix)
