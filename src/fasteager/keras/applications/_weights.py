"""Weights for the Keras applications: Keras's published ImageNet files, and the
helpers the constructors share.

Keras's application weights are HDF5 files in Keras's legacy layout (the one
``keras.Model.load_weights`` reads for a ``.h5`` path): the root attribute
``layer_names`` lists the layers, each layer's group lists its ``weight_names``, and the
values are matched to the model's layers *by order* among the layers that have weights,
each layer's values in the order trainable then non-trainable (Keras's
``load_weights_from_hdf5_group``). h5py reads them (the optional ``[h5]`` extra); every
other weights file goes to fasteager's own ``Model.load_weights``. All values are checked
(layer count, weight count, shapes) before any variable is assigned.
"""
import os

import numpy as np

from ...errors import DataLossError
from ...train import weights as _weight_files
from .._files import get_file
from ..layers import InputLayer, KerasTensor


def source_inputs(tensor):
    """The ``Input`` tensors that ``tensor`` (a KerasTensor) was computed from, in the
    order first met (Keras's ``operation_utils.get_source_inputs``)."""
    found, seen, stack = [], set(), [tensor]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if not isinstance(t, KerasTensor) or t._history is None:
            raise ValueError("get_source_inputs: %r was not made by fe.keras.Input or a layer "
                             "call on one" % (t,))
        layer, node_index, _ = t._history
        if isinstance(layer, InputLayer):
            found.append(t)
        else:
            stack.extend(reversed(layer._inbound_nodes[node_index].input_tensors))
    return found[0] if len(found) == 1 else found


def load_application_weights(model, path_or_name, origin=None):
    """Load a weights file into ``model``: with ``origin``, first download
    ``path_or_name`` from there into the ``models`` cache (``get_file``)."""
    path = os.fspath(path_or_name)
    if origin is not None:
        path = get_file(path, origin, cache_subdir="models")
    if _is_keras_h5(path):
        return load_keras_h5_weights(model, path)
    return model.load_weights(path)


def _is_keras_h5(path):
    with open(path, "rb") as f:
        if f.read(8) != b"\x89HDF\r\n\x1a\n":
            return False
    h5py = _weight_files._h5py("load_weights")
    with h5py.File(path, "r") as f:
        root = f["model_weights"] if "model_weights" in f else f
        return _has_list(root, "layer_names")


def _has_list(group, name):
    return name in group.attrs or (name + "0") in group.attrs


def _names(group, name):
    """A list attribute that Keras may have split into ``name0``, ``name1`` ... chunks."""
    if name in group.attrs:
        chunks = [group.attrs[name]]
    else:
        chunks, i = [], 0
        while "%s%d" % (name, i) in group.attrs:
            chunks.append(group.attrs["%s%d" % (name, i)])
            i += 1
    return [n.decode("utf8") if isinstance(n, bytes) else str(n)
            for chunk in chunks for n in np.atleast_1d(chunk)]


def _legacy_weights(layer):
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def load_keras_h5_weights(model, path):
    """Keras's order-based loading of a legacy-layout HDF5 weights file (see the module)."""
    h5py = _weight_files._h5py("load_weights")
    with h5py.File(path, "r") as f:
        root = f["model_weights"] if "model_weights" in f else f
        saved = []
        for name in _names(root, "layer_names"):
            if name not in root:
                raise DataLossError("load_weights: %s: layer %r is listed in layer_names but "
                                    "has no group" % (path, name))
            group = root[name]
            weight_names = _names(group, "weight_names")
            if weight_names:
                saved.append((name, [np.asarray(group[w][()]) for w in weight_names]))
    layers = [layer for layer in model.layers if _legacy_weights(layer)]
    if len(saved) != len(layers):
        raise ValueError("Layer count mismatch when loading weights from file. Model expected "
                         "%d layers, found %d saved layers." % (len(layers), len(saved)))
    assignments = []
    for k, (layer, (saved_name, values)) in enumerate(zip(layers, saved)):
        variables = _legacy_weights(layer)
        if len(values) != len(variables):
            raise ValueError(
                "Weight count mismatch for layer #%d (named %s in the current model, %s in "
                "the save file). Layer expects %d weight(s). Received %d saved weight(s)"
                % (k, layer.name, saved_name, len(variables), len(values)))
        for variable, value in zip(variables, values):
            if tuple(variable.shape.as_list()) != value.shape:
                raise ValueError(
                    "Shape mismatch in layer #%d (named %s) for weight %s. Weight expects "
                    "shape %s. Received saved weight with shape %s"
                    % (k, layer.name, variable.path, tuple(variable.shape.as_list()),
                       value.shape))
            assignments.append((variable, value))
    for variable, value in assignments:
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))
