"""fe.keras.datasets: MNIST's IDX/npz loaders on generated files, the search order, the
download path (with the fetch function replaced: no network), the real data, digits."""
import gzip
import hashlib
import os
import pathlib
import struct

import numpy as np
import pytest

from fasteager.errors import DataLossError
from fasteager.keras.datasets import digits, mnist


def idx_bytes(arr):
    arr = np.ascontiguousarray(arr, np.uint8)
    return bytes([0, 0, 8, arr.ndim]) + struct.pack(">%dI" % arr.ndim, *arr.shape) + \
        arr.tobytes()


def small_arrays(seed=0, n_train=5, n_test=3):
    rng = np.random.default_rng(seed)
    return {"x_train": rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
            "y_train": rng.integers(0, 10, n_train, dtype=np.uint8),
            "x_test": rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
            "y_test": rng.integers(0, 10, n_test, dtype=np.uint8)}


def write_idx(folder, arrays, gz=True):
    folder.mkdir(parents=True, exist_ok=True)
    for key, stem in mnist.FILES.items():
        data = idx_bytes(arrays[key])
        if gz:
            (folder / (stem + ".gz")).write_bytes(gzip.compress(data))
        else:
            (folder / stem).write_bytes(data)


def check(result, arrays):
    (xt, yt), (xs, ys) = result
    for got, key in ((xt, "x_train"), (yt, "y_train"), (xs, "x_test"), (ys, "y_test")):
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, arrays[key])


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No FASTEAGER_DATA, a fresh HOME, and a fetch that fails like an offline machine."""
    monkeypatch.delenv("FASTEAGER_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def offline(url, dest):
        raise OSError("network disabled in tests")
    monkeypatch.setattr(mnist, "fetch", offline)
    return tmp_path


@pytest.mark.parametrize("gz", [True, False])
def test_idx_folder_via_path(isolated, gz):
    arrays = small_arrays()
    write_idx(isolated / "d", arrays, gz)
    check(mnist.load_data(isolated / "d"), arrays)
    check(mnist.load_data(str(isolated / "d")), arrays)


def test_npz_file_and_folder(isolated):
    arrays = small_arrays(1)
    np.savez(isolated / "mnist.npz", **arrays)
    check(mnist.load_data(isolated / "mnist.npz"), arrays)
    check(mnist.load_data(isolated), arrays)


def test_npz_with_pickle_is_refused(isolated):
    np.savez(isolated / "mnist.npz", x_train=np.array([object()], dtype=object),
             y_train=np.zeros(1), x_test=np.zeros(1), y_test=np.zeros(1))
    with pytest.raises(DataLossError, match="mnist.npz"):
        mnist.load_data(isolated / "mnist.npz")


def test_search_order_env_then_cache(isolated, monkeypatch):
    env_arrays, cache_arrays = small_arrays(2), small_arrays(3)
    write_idx(isolated / "data" / "mnist", env_arrays)
    write_idx(mnist.cache_dir(), cache_arrays)
    assert str(mnist.cache_dir()).startswith(str(isolated / "home"))
    monkeypatch.setenv("FASTEAGER_DATA", str(isolated / "data"))
    check(mnist.load_data(), env_arrays)
    monkeypatch.delenv("FASTEAGER_DATA")
    check(mnist.load_data(), cache_arrays)


def test_corrupt_files_name_the_file(isolated):
    arrays = small_arrays()
    folder = isolated / "bad"
    write_idx(folder, arrays)
    target = folder / "train-labels-idx1-ubyte.gz"
    target.write_bytes(gzip.compress(idx_bytes(arrays["y_train"])[:-2]))   # truncated data
    with pytest.raises(DataLossError, match="train-labels-idx1-ubyte.gz.*wrong data size"):
        mnist.load_data(folder)
    target.write_bytes(gzip.compress(b"\x00\x00\x07\x01" + b"\x00" * 8))   # bad type code
    with pytest.raises(DataLossError, match="not an IDX file"):
        mnist.load_data(folder)
    target.write_bytes(b"\x1f\x8b" + b"garbage")
    with pytest.raises(DataLossError, match="not a valid gzip"):
        mnist.load_data(folder)
    write_idx(folder, dict(arrays, y_train=arrays["y_train"][:2]))   # count mismatch
    with pytest.raises(DataLossError, match="differ in number"):
        mnist.load_data(folder)


def test_offline_error_says_where_to_put_files(isolated):
    with pytest.raises(FileNotFoundError, match="FASTEAGER_DATA") as e:
        mnist.load_data()
    assert "train-images-idx3-ubyte.gz" in str(e.value)
    assert not (isolated / "home").exists()   # a failed download leaves no empty folders


def test_failed_download_keeps_folders_it_did_not_make(isolated):
    keep = isolated / "home" / ".fasteager" / "other"
    keep.mkdir(parents=True)
    with pytest.raises(FileNotFoundError):
        mnist.load_data()
    assert keep.is_dir() and not (isolated / "home" / ".fasteager" / "datasets").exists()


def test_download_verifies_and_caches(isolated, monkeypatch):
    arrays = small_arrays(4)
    payload = {stem + ".gz": gzip.compress(idx_bytes(arrays[k]))
               for k, stem in mnist.FILES.items()}
    monkeypatch.setattr(mnist, "SHA256", {n: hashlib.sha256(b).hexdigest()
                                          for n, b in payload.items()})
    calls = []

    def fake_fetch(url, dest):
        calls.append(url)
        name = url.rsplit("/", 1)[1]
        if url.startswith(mnist.MIRRORS[0]):
            dest.write(b"corrupted")   # first mirror serves bad bytes: checksum rejects
        else:
            dest.write(payload[name])
    monkeypatch.setattr(mnist, "fetch", fake_fetch)
    check(mnist.load_data(), arrays)
    assert len(calls) == 8
    assert sorted(p.name for p in mnist.cache_dir().iterdir()) == sorted(payload)
    calls.clear()
    check(mnist.load_data(), arrays)   # cached: no second download
    assert calls == []


def test_hardcoded_checksums_match_shared_data():
    folder = pathlib.Path(os.environ.get("FASTEAGER_DATA", "/nonexistent")) / "mnist"
    if not folder.is_dir():
        pytest.skip("real MNIST not available")
    for name, digest in mnist.SHA256.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest


def test_real_mnist():
    if not os.environ.get("FASTEAGER_DATA") or \
            not (pathlib.Path(os.environ["FASTEAGER_DATA"]) / "mnist").is_dir():
        pytest.skip("real MNIST not available (set FASTEAGER_DATA)")
    (xt, yt), (xs, ys) = mnist.load_data()
    assert (xt.shape, yt.shape, xs.shape, ys.shape) == \
        ((60000, 28, 28), (60000,), (10000, 28, 28), (10000,))
    assert xt.dtype == yt.dtype == np.uint8
    assert yt[:5].tolist() == [5, 0, 4, 1, 9]
    assert np.bincount(yt)[:2].tolist() == [5923, 6742]
    x = xt / 255.0
    assert round(float(x.mean()), 4) == 0.1307 and round(float(x.std()), 4) == 0.3081


def test_digits():
    pytest.importorskip("sklearn")
    (xt, yt), (xs, ys) = digits.load_data()
    assert xt.shape[1:] == (8, 8) and xt.dtype == np.uint8 and yt.dtype == np.uint8
    assert len(xt) + len(xs) == 1797 and len(xs) == 359
    assert set(np.unique(yt)) == set(range(10)) and xt.max() == 255
    (xt2, _), _ = digits.load_data()
    np.testing.assert_array_equal(xt, xt2)


def test_digits_without_sklearn(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_sklearn(name, *a, **k):
        if name.startswith("sklearn"):
            raise ImportError("no sklearn")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_sklearn)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        digits.load_data()
