"""Walking the graph of layer calls behind a KerasTensor: ``get_source_inputs``
(``keras.utils.get_source_inputs``)."""
from .layers.base import InputLayer


def get_source_inputs(tensor):
    """The ``Input`` tensors that ``tensor`` is computed from, as a list (a value that is
    not a KerasTensor comes back as it is, as in Keras)."""
    if not hasattr(tensor, "_history"):
        return tensor
    layer, node_index, _ = tensor._history if tensor._history else (None, 0, 0)
    if layer is None or not layer._inbound_nodes:
        return [tensor]
    node = layer._inbound_nodes[node_index]
    if isinstance(layer, InputLayer):
        return list(node.outputs)
    sources = []
    for t in node.input_tensors:
        for s in get_source_inputs(t):
            if all(s is not seen for seen in sources):
                sources.append(s)
    return sources
