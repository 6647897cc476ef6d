"""Model.save to .h5: one real HDF5 file (never a directory with a file's name)."""
import json

import numpy as np
import pytest

import fasteager as fe
from fasteager.errors import DataLossError

keras = fe.keras


def _model():
    fe.random.set_seed(1)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"),
                              keras.layers.Dense(2)])
    return model


@pytest.mark.parametrize("suffix", [".h5", ".hdf5"])
def test_save_h5_writes_one_hdf5_file_and_loads_back(tmp_path, suffix):
    h5py = pytest.importorskip("h5py")
    model = _model()
    x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    path = tmp_path / ("my_model" + suffix)
    model.save(path)
    assert path.is_file()
    with h5py.File(path, "r") as f:                      # readable by plain h5py
        config = json.loads(f.attrs["model_config"])
        assert config["class_name"] == "Sequential"
        n_arrays = []
        f.visititems(lambda name, obj: n_arrays.append(name)
                     if isinstance(obj, h5py.Dataset) else None)
        assert len(n_arrays) == 4                        # two kernels, two biases
    loaded = keras.models.load_model(path)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    other = _model()
    other.layers[0].kernel.assign(np.zeros((4, 3), np.float32))
    other.load_weights(path)                             # the weights read as a weights file
    np.testing.assert_array_equal(other(x).numpy(), model(x).numpy())


def test_weights_only_h5_is_not_a_model(tmp_path):
    pytest.importorskip("h5py")
    model = _model()
    model.save_weights(tmp_path / "w.h5")
    with pytest.raises(DataLossError, match="model_config"):
        keras.models.load_model(tmp_path / "w.h5")


@pytest.mark.parametrize("name", ["my_model.npz", "my_model.safetensors", "model.json"])
def test_unknown_suffix_is_refused_and_writes_nothing(tmp_path, name):
    with pytest.raises(ValueError, match=r"\.keras, \.h5"):
        _model().save(tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_suffixless_path_is_still_a_directory(tmp_path):
    model = _model()
    model.save(tmp_path / "saved")
    assert (tmp_path / "saved").is_dir()
    x = np.ones((2, 4), np.float32)
    np.testing.assert_array_equal(keras.models.load_model(tmp_path / "saved")(x).numpy(),
                                  model(x).numpy())
