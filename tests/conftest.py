"""Shared test set-up: real MNIST from ../shared/data, and the `gpu` marker's skip rule."""
import os
import pathlib

import pytest

_SHARED_DATA = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "data"
if "FASTEAGER_DATA" not in os.environ and _SHARED_DATA.is_dir():
    os.environ["FASTEAGER_DATA"] = str(_SHARED_DATA)


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
