"""Old module paths of fe.data that moved keep working for one release, with a
DeprecationWarning (the data package's module __getattr__)."""
import importlib

import pytest

import fasteager as fe


def test_data_composite_moved_to_the_composite_layer_and_warns():
    leaves = importlib.import_module("fasteager._src.composite.leaves")
    with pytest.warns(DeprecationWarning, match="fasteager.data.composite"):
        old = fe.data.composite
    assert old is leaves
    assert old.LEAVES is leaves.LEAVES


def test_unknown_data_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing"):
        fe.data.no_such_thing
