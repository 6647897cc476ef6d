"""Optimizer slots in checkpoints: TensorFlow 2.21 + Keras 3's names (recorded by
tests/tf_reference/record_keras_semantics.py) when writing; files of the older layout,
which named slots as Keras 2 did, still restore."""
import json

import numpy as np

import fasteager as fe
from fasteager.train import _safetensors
from tests.tf_reference import load

REF = load("keras_semantics")["checkpoint_keys"]


def trained():
    model = fe.keras.Sequential([fe.keras.layers.Dense(2)])
    model(fe.ones((1, 3)))
    opt = fe.keras.optimizers.Adam()
    with fe.GradientTape() as tape:
        loss = fe.reduce_sum(model(fe.ones((1, 3))))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                            model.trainable_variables))
    return model, opt


def test_slot_keys_follow_keras3_layout(tmp_path):
    model, opt = trained()
    path = fe.train.Checkpoint(model=model, optimizer=opt).write(str(tmp_path / "c"))
    shapes = fe.train.load_checkpoint(path).get_variable_to_shape_map()
    ref_opt = {k: v for k, v in REF["shapes"].items() if k.startswith("optimizer/_")
               and not k.startswith("optimizer/_trainable_variables/")}
    got_opt = {k: v for k, v in shapes.items() if k.startswith("optimizer/")}
    assert got_opt == ref_opt
    assert not any(".OPTIMIZER_SLOT" in k for k in shapes)
    # each name holds the slot at that index of optimizer.variables
    reader = fe.train.load_checkpoint(path)
    for i, v in enumerate(opt.variables):
        if i >= 2:
            np.testing.assert_array_equal(
                reader.get_tensor("optimizer/_variables/%d/.ATTRIBUTES/VARIABLE_VALUE" % i),
                v.numpy())


def _rewrite_as_old_layout(file):
    """The file as fasteager wrote it before Keras 3's names: every slot named
    <variable>/.OPTIMIZER_SLOT/<optimizer>/<slot> in the object graph."""
    tensors, metadata = _safetensors.load_file(file)
    graph = json.loads(metadata["object_graph"])
    for key, entry in graph.items():
        if "/slots/" in key:
            opt_path, rest = key.split("/slots/", 1)
            var_path, slot = rest.rsplit("/", 1)
            entry["tf_name"] = "%s/.OPTIMIZER_SLOT/%s/%s" % (var_path, opt_path, slot)
    metadata["object_graph"] = json.dumps(graph, sort_keys=True)
    _safetensors.save_file({k: np.array(v) for k, v in tensors.items()}, file,
                           metadata=metadata)


def test_old_layout_checkpoint_still_restores(tmp_path):
    model, opt = trained()
    path = fe.train.Checkpoint(model=model, optimizer=opt).write(str(tmp_path / "c"))
    _rewrite_as_old_layout(path + ".safetensors")
    names = fe.train.load_checkpoint(path).get_variable_to_shape_map()
    assert "model/_layers/0/kernel/.OPTIMIZER_SLOT/optimizer/m" in names
    fresh, fresh_opt = trained()
    for v in fresh.weights + fresh_opt.variables:
        v.assign(fe.zeros_like(v))
    fe.train.Checkpoint(model=fresh, optimizer=fresh_opt).restore(path).assert_consumed()
    for a, b in zip(model.weights + opt.variables, fresh.weights + fresh_opt.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
