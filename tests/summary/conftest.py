"""Each summary test starts and ends with no default writer, step or recording condition."""
import pytest

from fasteager.summary import writer as writer_module


@pytest.fixture(autouse=True)
def clean_state():
    yield
    writer_module._state.writer = None
    writer_module._state.step = None
    writer_module._state.is_recording = None
