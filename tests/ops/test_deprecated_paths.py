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


@pytest.mark.parametrize("old,name,home", [
    ("array_ops", "gather", "indexing_ops"),
    ("array_ops", "unsorted_segment_sum", "segment_ops"),
    ("special_ops", "top_k", "sort_ops"),
    ("special_ops", "atan2", "elementwise_ops"),
    ("conv_ops", "max_pool2d", "pool_ops"),
    ("nn_ops", "moments", "norm_ops"),
    ("sequence_ops", "unique", "sort_ops"),
    ("indexing_ops", "segment_sum", "segment_ops"),
    ("linalg_ops", "svd", "decomposition_ops"),
])
def test_a_function_that_moved_between_op_modules_warns_at_its_old_path(old, name, home):
    module = importlib.import_module("fasteager.ops." + old)
    with pytest.warns(DeprecationWarning, match="fasteager.ops.%s.%s is deprecated" % (old, name)):
        moved = getattr(module, name)
    assert moved is getattr(importlib.import_module("fasteager.ops." + home), name)


def test_a_name_that_never_existed_is_still_an_attribute_error():
    from fasteager.ops import array_ops
    with pytest.raises(AttributeError, match="no_such_function"):
        array_ops.no_such_function
