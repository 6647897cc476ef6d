"""The op modules named by arrival (math_ops, more_*_ops) were regrouped by topic; their
old names still work for one release and warn."""
import importlib

import pytest

import fasteager as fe
from fasteager import ops


@pytest.mark.parametrize("old,name,home", [
    ("math_ops", "reduce_sum", "reduction_ops"),
    ("math_ops", "exp", "elementwise_ops"),
    ("math_ops", "matmul", "linalg_ops"),
    ("more_math_ops", "segment_max", "segment_ops"),
    ("more_math_ops", "in_top_k", "sort_ops"),
    ("more_nn_ops", "conv3d", "conv_ops"),
    ("more_nn_ops", "max_pool3d", "pool_ops"),
    ("more_special_ops", "erfinv", "special_ops"),
])
def test_old_module_name_warns_and_gives_the_moved_function(old, name, home):
    with pytest.warns(DeprecationWarning, match="fasteager.ops.%s is deprecated" % old):
        module = getattr(ops, old)
    new = importlib.import_module("fasteager.ops." + home)
    assert getattr(module, name) is getattr(new, name)


def test_from_import_of_an_old_module_warns():
    with pytest.warns(DeprecationWarning):
        from fasteager.ops import more_math_ops
    assert more_math_ops.unsorted_segment_max is fe.math.unsorted_segment_max


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_ops"):
        ops.no_such_ops


def test_generator_old_path_warns():
    from fasteager.ops import random_ops
    with pytest.warns(DeprecationWarning, match="use fasteager.random.Generator"):
        assert random_ops.Generator is fe.random.Generator
