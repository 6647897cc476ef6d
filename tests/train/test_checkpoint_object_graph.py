"""A checkpoint's object-graph metadata is checked where it is read (issue 31, item 16):
``list_variables``, ``load_checkpoint`` and ``saved_model.load`` raise DataLossError
naming the file, never JSONDecodeError, AttributeError, TypeError or RecursionError."""
import json

import numpy as np
import pytest

import fasteager as fe
from fasteager.train import _safetensors


@pytest.fixture()
def checkpoint(tmp_path):
    module = fe.Module()
    module.v = fe.Variable([1.0, 2.0])
    module.w = fe.Variable(np.ones((2, 2), np.float32))
    prefix = fe.train.Checkpoint(model=module).write(str(tmp_path / "c"))
    return prefix


def _with_graph(prefix, tmp_path, graph_text):
    tensors, metadata = _safetensors.load_file(prefix + ".safetensors")
    bad = str(tmp_path / "bad")
    metadata = dict(metadata)
    if graph_text is None:
        metadata.pop("object_graph")
    else:
        metadata["object_graph"] = graph_text
    _safetensors.save_file(tensors, bad + ".safetensors", metadata=metadata)
    return bad


BAD_GRAPHS = {
    "not JSON": "{",
    "deep nesting": "[" * 50000 + "]" * 50000,
    "a list": "[]",
    "a number": "5",
    "an entry not an object": '{"model/v": 5}',
    "an entry as a list": '{"model/v": ["tf_name"]}',
    "a tf_name not a string": '{"model/v": {"tf_name": 3}}',
    "a name not a string": '{"model/v": {"name": ["a"]}}',
    "trainable not a bool": '{"model/v": {"trainable": "yes"}}',
    "an unknown field": '{"model/v": {"name": "v", "shape": [2]}}',
    "two values one name": json.dumps({
        "model/v": {"tf_name": "x/.ATTRIBUTES/VARIABLE_VALUE"},
        "model/w": {"tf_name": "x/.ATTRIBUTES/VARIABLE_VALUE"}}),
    "the object graph's own name": json.dumps({
        "model/v": {"tf_name": "_CHECKPOINTABLE_OBJECT_GRAPH"}}),
}


@pytest.mark.parametrize("what", sorted(BAD_GRAPHS))
@pytest.mark.parametrize("reader", ["list_variables", "load_checkpoint", "load_variable"])
def test_bad_object_graph_is_data_loss_naming_the_file(checkpoint, tmp_path, what, reader):
    bad = _with_graph(checkpoint, tmp_path, BAD_GRAPHS[what])
    args = (bad, "model/v") if reader == "load_variable" else (bad,)
    with pytest.raises(fe.errors.DataLossError, match="bad.safetensors"):
        getattr(fe.train, reader)(*args)


def test_a_name_colliding_with_a_key_is_data_loss(checkpoint, tmp_path):
    # model/w's TensorFlow name is what model/v's key gives by default
    bad = _with_graph(checkpoint, tmp_path, json.dumps({
        "model/w": {"tf_name": "model/v/.ATTRIBUTES/VARIABLE_VALUE"}}))
    with pytest.raises(fe.errors.DataLossError, match="two saved values"):
        fe.train.list_variables(bad)


def test_good_and_absent_object_graphs_read(checkpoint, tmp_path):
    names = dict(fe.train.list_variables(checkpoint))
    assert names["model/v/.ATTRIBUTES/VARIABLE_VALUE"] == [2]
    old = _with_graph(checkpoint, tmp_path, None)      # written before names were recorded
    assert dict(fe.train.list_variables(old))["model/w/.ATTRIBUTES/VARIABLE_VALUE"] == [2, 2]
    np.testing.assert_array_equal(fe.train.load_variable(old, "model/v"), [1.0, 2.0])


def test_saved_model_load_checks_the_variables_object_graph(tmp_path):
    module = fe.Module()
    module.v = fe.Variable([1.0, 2.0])
    fe.saved_model.save(module, str(tmp_path / "m"))
    path = tmp_path / "m" / "variables.safetensors"
    tensors, metadata = _safetensors.load_file(str(path))
    _safetensors.save_file(tensors, str(path), metadata=dict(metadata, object_graph="[1]"))
    with pytest.raises(fe.errors.DataLossError, match="variables.safetensors"):
        fe.saved_model.load(str(tmp_path / "m"))
