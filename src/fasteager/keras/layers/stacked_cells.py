"""StackedRNNCells: several RNN cells run as one cell (each cell's output is the next
one's input), as Keras 3's; ``keras.layers.RNN([cell, cell])`` builds one."""
from ...ops.array_ops import zeros
from ...tensor_shape import TensorShape
from .. import _naming
from .._serialization import deserialize_keras_object, serialize_keras_object
from .base import Layer


def _sizes(cell):
    """The cell's state sizes as a list (Keras's state_size is an int or a list)."""
    s = cell.state_size
    return [int(d) for d in s] if isinstance(s, (list, tuple)) else [int(s)]


def _output_size(cell):
    if getattr(cell, "output_size", None) is not None:
        return cell.output_size
    return _sizes(cell)[0]


class StackedRNNCells(Layer):
    """A list of cells as one cell: ``state_size`` is the list of the cells' state sizes,
    ``call(inputs, states)`` runs the cells in order and returns the last cell's output
    and each cell's new states (a list per cell)."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if "call" not in dir(cell):
                raise ValueError("All cells must have a `call` method. Received cell without "
                                 "a `call` method: %s" % (cell,))
            if "state_size" not in dir(cell):
                raise ValueError("All cells must have a `state_size` attribute. Received "
                                 "cell without a `state_size`: %s" % (cell,))
        self.cells = list(cells)

    @property
    def state_size(self):
        return [c.state_size for c in self.cells]

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    def get_initial_state(self, batch_size=None):
        states = []
        for cell in self.cells:
            if getattr(cell, "get_initial_state", None):
                s = cell.get_initial_state(batch_size=batch_size)
                states.append(list(s) if isinstance(s, (list, tuple)) else [s])
            else:
                states.append([zeros([batch_size, d], dtype=self.compute_dtype)
                               for d in _sizes(cell)])
        return states

    def group_states(self, states):
        """``states`` as a list per cell: they may come nested (one list per cell) or flat
        (every cell's states in order, as the RNN layer carries them)."""
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        if len(states) == len(self.cells) and all(
                isinstance(s, (list, tuple)) or len(_sizes(c)) == 1
                for s, c in zip(states, self.cells)):
            return [list(s) if isinstance(s, (list, tuple)) else [s] for s in states]
        counts = [len(_sizes(c)) for c in self.cells]
        if len(states) != sum(counts):
            raise ValueError("StackedRNNCells (layer %r): expected %d states for its cells' "
                             "state sizes %s, got %d"
                             % (self.name, sum(counts), self.state_size, len(states)))
        out, i = [], 0
        for n in counts:
            out.append(states[i:i + n])
            i += n
        return out

    def call(self, inputs, states, training=False, **kwargs):
        new_states = []
        for cell, cell_states in zip(self.cells, self.group_states(states)):
            if isinstance(cell, Layer) and cell._call_takes_training:
                kwargs["training"] = training
            else:
                kwargs.pop("training", None)
            inputs, cell_states = cell.call(inputs, cell_states, **kwargs)
            new_states.append(list(cell_states) if isinstance(cell_states, (list, tuple))
                              else [cell_states])
        return inputs, new_states

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                _naming.build_in_scope(cell, shape)
                cell.built = True
            shape = TensorShape([shape[0], _output_size(cell)])
        self.built = True

    def get_config(self):
        config = super().get_config()
        config["cells"] = [serialize_keras_object(c) for c in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [deserialize_keras_object(c, custom_objects=custom_objects)
                 if isinstance(c, dict) else c for c in config.pop("cells")]
        return cls(cells, **config)
