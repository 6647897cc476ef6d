"""fasteager's one nest (``fasteager._src.nest``): ``fe.nest``'s view (lists, tuples and
dicts nest; composites expand on request) and ``fe.data``'s element view (tuples and dicts
nest, lists are values, extension values always expand), each with its own rules kept."""
import collections

import numpy as np

import fasteager as tf
from fasteager._src import nest
from fasteager.data import structure

Point = collections.namedtuple("Point", "x y")


class Pair(tf.experimental.ExtensionType):
    a: tf.Tensor
    b: tf.Tensor


def test_tf_nest_flattens_lists_tuples_and_dicts_in_sorted_key_order():
    s = {"b": [1, (2, 3)], "a": Point(4, 5)}
    assert tf.nest.flatten(s) == [4, 5, 1, 2, 3]
    packed = tf.nest.pack_sequence_as(s, list("vwxyz"))
    assert packed == {"b": ["x", ("y", "z")], "a": Point("v", "w")}
    assert list(packed) == ["b", "a"]               # the structure's own key order
    assert type(packed["a"]) is Point


def test_tf_nest_keeps_mapping_and_sequence_types():
    od = collections.OrderedDict([("z", 1), ("a", 2)])
    out = tf.nest.pack_sequence_as(od, [10, 20])
    assert type(out) is collections.OrderedDict and list(out.items()) == [("z", 20), ("a", 10)]
    assert tf.nest.map_structure(lambda v: v * 2, [1, (2, {"k": 3})]) == [2, (4, {"k": 6})]
    assert tf.nest.is_nested([]) and tf.nest.is_nested({}) and not tf.nest.is_nested(3)


def test_tf_nest_expands_composites_only_when_asked():
    rt = tf.ragged.constant([[1, 2], [3]])
    assert tf.nest.flatten([rt]) == [rt]
    parts = tf.nest.flatten([rt], expand_composites=True)
    assert len(parts) == 2 and all(isinstance(p, tf.Tensor) for p in parts)
    again = tf.nest.pack_sequence_as([rt], parts, expand_composites=True)[0]
    assert again.to_list() == [[1, 2], [3]]


def test_element_view_lists_are_values_and_extension_values_expand():
    p = Pair(tf.constant(1), tf.constant(2))
    element = (p, {"y": [7, 8], "x": 3})
    leaves = structure.flatten(element)
    assert len(leaves) == 4
    assert leaves[2] == 3 and leaves[3] == [7, 8]       # the list is one leaf
    rebuilt = structure.pack(element, [tf.constant(5), tf.constant(6), "x", "y"])
    assert isinstance(rebuilt[0], Pair) and int(rebuilt[0].b.numpy()) == 6
    assert rebuilt[1] == {"y": "y", "x": "x"}


def test_element_view_rebuilds_plain_containers_and_maps_in_insertion_order():
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    assert type(structure.pack(od, [3, 4])) is dict
    seen = []
    out = structure.map_structure(lambda v: seen.append(v) or -v, {"b": 1, "a": (2, Point(3, 4))})
    assert seen == [1, 2, 3, 4]                          # dict insertion order, not sorted
    assert out == {"b": -1, "a": (-2, Point(-3, -4))}


def test_both_views_are_one_implementation():
    # fe.nest and fe.data walk structures with the same functions
    assert tf.nest.flatten is nest.flatten
    np.testing.assert_array_equal(nest.flatten_element(({"k": 1}, 2), lambda v: False), [1, 2])
    assert nest.flatten([1, [2]]) == [1, 2]
    assert nest.flatten_element([1, [2]], lambda v: False) == [[1, [2]]]
