"""Reading a checkpoint's saved values by name: ``fe.train.load_checkpoint``,
``list_variables`` and ``load_variable``, with TensorFlow's key names.

A value's name is the attribute path to its variable from the checkpoint's root objects
plus ``/.ATTRIBUTES/VARIABLE_VALUE`` (``model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE``); an
optimizer slot is ``<optimizer path>/_variables/<index>/.ATTRIBUTES/VARIABLE_VALUE``
(Keras 3's layout; older files say ``<variable path>/.OPTIMIZER_SLOT/<optimizer
path>/<slot>``), and
``_CHECKPOINTABLE_OBJECT_GRAPH`` holds the object graph (here the JSON that the file's
metadata carries, as bytes; TensorFlow stores a protobuf there).
"""
import os

import numpy as np

from ..dtypes import from_numpy
from ..errors import DataLossError, NotFoundError
from . import checkpoint as _ckpt

__all__ = ["CheckpointReader", "list_variables", "load_checkpoint", "load_variable"]


def _prefix(ckpt_dir_or_file, opname):
    """The checkpoint a directory's state file names, or the given path itself."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = _ckpt.latest_checkpoint(path)
        if latest is None:
            raise ValueError("%s: couldn't find 'checkpoint' file or checkpoints in given "
                             "directory %s" % (opname, path))
        return latest
    return path


class CheckpointReader:
    """The saved values of one checkpoint file, by TensorFlow's names (read into memory)."""

    def __init__(self, path, opname="load_checkpoint"):
        file, tensors, metadata = _ckpt._read(path, opname, with_metadata=True)
        self._file = file
        graph = _ckpt.object_graph(file, metadata, opname)
        self._graph = metadata.get("object_graph") or "{}"
        # files written before names were recorded: every entry is a variable's value
        self._values = {}
        for k, arr in tensors.items():
            name = graph.get(k, {}).get("tf_name") or k + _ckpt.ATTRIBUTES
            if name in self._values:
                raise DataLossError("%s: %s: two saved values are named %.80r"
                                    % (opname, file, name))
            self._values[name] = arr

    def _get(self, name, opname):
        if name == _ckpt.OBJECT_GRAPH_KEY:
            return np.array(self._graph.encode(), dtype=object)
        value = self._values.get(name)
        if value is None:
            value = self._values.get(name + _ckpt.ATTRIBUTES)   # the attribute path alone
        if value is None:
            raise NotFoundError("%s: key %s not found in checkpoint %s" % (opname, name,
                                                                          self._file))
        return value

    def has_tensor(self, name):
        return name == _ckpt.OBJECT_GRAPH_KEY or name in self._values

    def get_tensor(self, name):
        """The saved value ``name`` as a NumPy array (a copy)."""
        return np.array(self._get(name, "CheckpointReader.get_tensor"))

    def get_variable_to_shape_map(self):
        out = {name: list(arr.shape) for name, arr in self._values.items()}
        out[_ckpt.OBJECT_GRAPH_KEY] = []
        return out

    def get_variable_to_dtype_map(self):
        """Name -> ``fe.DType`` of every saved value (the object graph entry, which holds
        text, is left out)."""
        return {name: from_numpy(arr.dtype) for name, arr in self._values.items()}


def load_checkpoint(ckpt_dir_or_file):
    """A ``CheckpointReader`` for a checkpoint prefix or (its newest in) a directory."""
    return CheckpointReader(_prefix(ckpt_dir_or_file, "load_checkpoint"), "load_checkpoint")


def list_variables(ckpt_dir_or_file):
    """``[(name, shape), ...]`` of every value in a checkpoint, sorted by name.

    >>> fe.train.list_variables("/tmp/ckpt")
    [('_CHECKPOINTABLE_OBJECT_GRAPH', []), ('model/w/.ATTRIBUTES/VARIABLE_VALUE', [3])]
    """
    reader = CheckpointReader(_prefix(ckpt_dir_or_file, "list_variables"), "list_variables")
    return sorted(reader.get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file, name):
    """The saved value ``name`` (a NumPy array) from a checkpoint."""
    reader = CheckpointReader(_prefix(ckpt_dir_or_file, "load_variable"), "load_variable")
    return reader._get(name, "load_variable").copy()
