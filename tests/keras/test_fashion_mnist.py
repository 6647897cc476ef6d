"""fe.keras.datasets.fashion_mnist: the loader rules (on small IDX files the tests write)
and the real data where Debian's dataset-fashion-mnist package is installed."""
import gzip
import hashlib

import numpy as np
import pytest

from fasteager.errors import DataLossError
from fasteager.keras.datasets import fashion_mnist
from tests.keras.test_datasets import check, idx_bytes, small_arrays, write_idx


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No FASTEAGER_DATA, no system copy, a fresh HOME, and an offline fetch."""
    monkeypatch.delenv("FASTEAGER_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(fashion_mnist, "SYSTEM_DIR", tmp_path / "no-system-copy")

    def offline(url, dest):
        raise OSError("network disabled in tests")
    monkeypatch.setattr(fashion_mnist, "fetch", offline)
    return tmp_path


@pytest.mark.parametrize("gz", [True, False])
def test_folder_via_path(isolated, gz):
    arrays = small_arrays(1)
    write_idx(isolated / "d", arrays, gz=gz)
    check(fashion_mnist.load_data(isolated / "d"), arrays)


def test_search_order_env_then_system_then_cache(isolated, monkeypatch):
    env, system, cache = small_arrays(2), small_arrays(3), small_arrays(4)
    write_idx(isolated / "env" / "fashion-mnist", env)
    write_idx(isolated / "sys", system)
    write_idx(fashion_mnist.cache_dir(), cache)
    monkeypatch.setattr(fashion_mnist, "SYSTEM_DIR", isolated / "sys")
    check(fashion_mnist.load_data(), system)
    monkeypatch.setenv("FASTEAGER_DATA", str(isolated / "env"))
    check(fashion_mnist.load_data(), env)
    monkeypatch.delenv("FASTEAGER_DATA")
    monkeypatch.setattr(fashion_mnist, "SYSTEM_DIR", isolated / "none")
    check(fashion_mnist.load_data(), cache)


def test_corrupt_file_names_this_loader(isolated):
    arrays = small_arrays(5)
    write_idx(isolated / "d", arrays)
    (isolated / "d" / "t10k-labels-idx1-ubyte.gz").write_bytes(b"\x1f\x8bnot gzip")
    with pytest.raises(DataLossError, match="fashion_mnist.load_data: .*t10k-labels"):
        fashion_mnist.load_data(isolated / "d")


def test_offline_error_says_where_to_put_files(isolated):
    with pytest.raises(FileNotFoundError, match="dataset-fashion-mnist"):
        fashion_mnist.load_data()
    assert not (isolated / "home").exists()     # no empty folders left behind


def test_download_checks_the_data_and_caches(isolated, monkeypatch):
    arrays = small_arrays(6)
    payload = {stem: idx_bytes(arrays[key]) for key, stem in fashion_mnist.FILES.items()}
    monkeypatch.setattr(fashion_mnist, "SHA256",
                        {s: hashlib.sha256(d).hexdigest() for s, d in payload.items()})

    def fake_fetch(url, dest):
        dest.write(gzip.compress(payload[url.rsplit("/", 1)[1][:-3]]))
    monkeypatch.setattr(fashion_mnist, "fetch", fake_fetch)
    check(fashion_mnist.load_data(), arrays)
    assert sorted(p.name for p in fashion_mnist.cache_dir().iterdir()) == sorted(
        s + ".gz" for s in payload)


def test_download_with_a_wrong_checksum_caches_nothing(isolated, monkeypatch):
    monkeypatch.setattr(fashion_mnist, "fetch",
                        lambda url, dest: dest.write(gzip.compress(b"\0\0\x08\x01bad")))
    with pytest.raises(FileNotFoundError, match="checksum mismatch"):
        fashion_mnist.load_data()
    assert not fashion_mnist.cache_dir().exists()


def test_real_fashion_mnist():
    if not (fashion_mnist.SYSTEM_DIR / "t10k-labels-idx1-ubyte.gz").is_file():
        pytest.skip("Debian's dataset-fashion-mnist is not installed")
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data(fashion_mnist.SYSTEM_DIR)
    assert x_train.shape == (60000, 28, 28) and x_test.shape == (10000, 28, 28)
    assert x_train.dtype == np.uint8 and y_test.dtype == np.uint8
    # balanced classes: 6,000 training and 1,000 test images of each
    np.testing.assert_array_equal(np.bincount(y_train), [6000] * 10)
    np.testing.assert_array_equal(np.bincount(y_test), [1000] * 10)
    # the first training labels of the canonical files: Ankle boot, T-shirt, T-shirt, Dress
    assert y_train[:4].tolist() == [9, 0, 0, 3]
