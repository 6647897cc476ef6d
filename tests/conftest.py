"""Shared test set-up: real MNIST from ../shared/data (else the examples' offline fallback, or a
skip), and the `gpu` marker's skip rule."""
import os
import pathlib

import pytest

_SHARED_DATA = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "data"
if "FASTEAGER_DATA" not in os.environ and _SHARED_DATA.is_dir():
    os.environ["FASTEAGER_DATA"] = str(_SHARED_DATA)


def example_data_source():
    """What the examples' data rule (examples/_data.py) finds without a network: "MNIST"
    (FASTEAGER_DATA or the download cache holds it), "digits" (scikit-learn, the offline
    fallback), or None."""
    import importlib.util
    from fasteager.keras.datasets import mnist
    env = os.environ.get("FASTEAGER_DATA")
    # a folder only counts with files in it: a test may leave an empty cache folder behind
    for folder in ([pathlib.Path(env) / "mnist"] if env else []) + [mnist.cache_dir()]:
        if folder.is_dir() and any(folder.iterdir()):
            return "MNIST"
    return "digits" if importlib.util.find_spec("sklearn") is not None else None


def skip_without_example_data():
    if example_data_source() is None:
        pytest.skip("no MNIST (FASTEAGER_DATA unset, nothing cached) and no scikit-learn for "
                    "the offline digits: pip install scikit-learn, or set FASTEAGER_DATA")


def _gpu_available():
    try:
        import fasteager as fe
        return bool(fe.config.list_physical_devices("GPU"))
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU with PyCUDA on this machine")
    for item in items:
        if item.get_closest_marker("gpu") is not None:   # not the tests/gpu folder name
            item.add_marker(skip)
