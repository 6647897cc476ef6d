"""``keras.utils.model_to_dot`` and ``plot_model``: a model's layer graph as a pydot graph
(and an image file through Graphviz), drawn as Keras 3 draws it: one HTML-table box per
layer (name, class, optional activation, shapes, dtype, trainable), edges along the layer
calls, nested models expanded as dashed clusters. pydot (and Graphviz for images) are
optional: without them these functions raise ImportError, as Keras does."""
import os
import sys

from .layers.base import InputLayer

# pydot, an optional third-party package, is imported on first use: loading fe.keras must
# not import it (every name below reaches it through check_pydot first)
_UNLOADED = object()
pydot = _UNLOADED


def _load_pydot():
    global pydot
    if pydot is _UNLOADED:
        try:
            import pydot as module
        except ImportError:
            module = None
        pydot = module
    return pydot


# (keras.utils imports this module before functional/training can be imported: the model
# kinds are told by the markers _summary reads too)
def _is_functional(model):
    return getattr(type(model), "_graph_model", False) and hasattr(model, "_inputs_struct")


def _is_sequential(model):
    return getattr(type(model), "_layer_stack", False)


def _is_model_graph(model):
    return _is_functional(model) or _is_sequential(model)


def check_pydot():
    return _load_pydot() is not None


def check_graphviz():
    if not check_pydot():
        return False
    try:
        pydot.Dot.create(pydot.Dot())
        return True
    except (OSError, pydot.PydotException, FileNotFoundError):
        return False


def _add_edge(dot, src, dst):
    src_id, dst_id = str(id(src)), str(id(dst))
    if not dot.get_edge(src_id, dst_id):
        edge = pydot.Edge(src_id, dst_id)
        edge.set("penwidth", "2")
        dot.add_edge(edge)


def _activation_name(layer):
    activation = layer.activation
    if hasattr(activation, "name"):
        return activation.name
    if hasattr(activation, "__name__"):
        return activation.__name__
    return str(activation)


def _node_tensors(layer, what):
    """Keras's ``layer.input`` / ``layer.output``: the first call's tensors (one, or a
    list)."""
    if not layer._inbound_nodes:
        raise AttributeError("%s has no calls" % layer.name)
    node = layer._inbound_nodes[0]
    values = list(node.outputs) if what == "output" else list(node.input_tensors)
    if isinstance(layer, InputLayer) and what == "input":
        values = list(node.outputs)
    return values[0] if len(values) == 1 else values


def _format_shape(value):
    if value is None:
        return "?"
    if isinstance(value, list):
        return str([tuple(v.shape.as_list()) for v in value])
    return str(tuple(value.shape.as_list()))


def _format_dtype(value):
    if isinstance(value, list):
        return str([v.dtype.name for v in value])
    return value.dtype.name


def _layer_label(layer, show_layer_names, show_layer_activations, show_dtype, show_shapes,
                 show_trainable):
    class_name = layer.__class__.__name__
    table = '<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
    colspan = max(1, int(show_dtype) + int(show_trainable) + (2 if show_shapes else 0))
    title = "<b>%s</b> (%s)" % (layer.name, class_name) if show_layer_names else \
        "<b>%s</b>" % class_name
    table += ('<tr><td colspan="%d" bgcolor="black"><font point-size="16" color="white">'
              "%s</font></td></tr>" % (colspan, title))
    if show_layer_activations and getattr(layer, "activation", None) is not None:
        table += ('<tr><td bgcolor="white" colspan="%d"><font point-size="14">Activation: '
                  "<b>%s</b></font></td></tr>" % (colspan, _activation_name(layer)))
    cols = []
    if show_shapes:
        try:
            inputs, outputs = _node_tensors(layer, "input"), _node_tensors(layer, "output")
        except AttributeError:
            inputs = outputs = None
        if class_name != "InputLayer":
            cols.append('<td bgcolor="white"><font point-size="14">Input shape: <b>%s</b>'
                        "</font></td>" % _format_shape(inputs))
        cols.append('<td bgcolor="white"><font point-size="14">Output shape: <b>%s</b>'
                    "</font></td>" % _format_shape(outputs))
    if show_dtype:
        try:
            dtype = _format_dtype(_node_tensors(layer, "output"))
        except AttributeError:
            dtype = None
        cols.append('<td bgcolor="white"><font point-size="14">Output dtype: <b>%s</b>'
                    "</font></td>" % (dtype or "?"))
    if show_trainable and hasattr(layer, "trainable") and layer.weights:
        if layer.trainable:
            cols.append('<td bgcolor="forestgreen"><font point-size="14" color="white">'
                        "<b>Trainable</b></font></td>")
        else:
            cols.append('<td bgcolor="firebrick"><font point-size="14" color="white">'
                        "<b>Non-trainable</b></font></td>")
    if cols:
        table += "<tr>%s</tr>" % "".join(cols)
    return table + "</table>>"


def _make_node(layer, **options):
    node = pydot.Node(str(id(layer)), label=_layer_label(layer, **options))
    node.set("fontname", "Helvetica")
    node.set("border", "0")
    node.set("margin", "0")
    return node


def _not_built(model):
    if not model.built:
        raise ValueError("This model has not yet been built. Build the model first by calling "
                         "`build()` or by calling the model on a batch of data.")


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=200, subgraph=False,
                 show_layer_activations=False, show_trainable=False, splines="ortho",
                 **kwargs):
    """The model's layer graph as a ``pydot.Dot`` (a ``pydot.Cluster`` for a subgraph)."""
    _not_built(model)
    if not check_pydot():
        raise ImportError("You must install pydot (`pip install pydot`) for model_to_dot to "
                          "work.")
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set("splines", splines)
        dot.set_node_defaults(shape="record")
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError("Unrecognized keyword arguments: %s" % (kwargs,))
    options = dict(show_layer_names=show_layer_names,
                   show_layer_activations=show_layer_activations, show_dtype=show_dtype,
                   show_shapes=show_shapes, show_trainable=show_trainable)
    if _is_sequential(model):
        layers = model.layers
    elif not _is_functional(model):
        dot.add_node(_make_node(model, **options))     # a subclassed model: one box
        return dot
    else:
        layers = model._layers
    for layer in layers:
        if expand_nested and _is_model_graph(layer):
            dot.add_subgraph(model_to_dot(
                layer, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested,
                subgraph=True, show_layer_activations=show_layer_activations,
                show_trainable=show_trainable))
        else:
            dot.add_node(_make_node(layer, **options))
    if _is_sequential(model):
        # consecutive layers; a nested model (expanded) is entered at its first real layer
        # and left from its last one
        for a, b in zip(layers, layers[1:]):
            if expand_nested:
                a, b = _last_layer(a), _first_layer(b, 0)
            _add_edge(dot, a, b)
        return dot
    ours = getattr(model, "_node_index", None)
    for layer in layers:
        for node in layer._inbound_nodes:
            if ours is not None and id(node) not in ours:
                continue
            for input_index, tensor in enumerate(node.input_tensors):
                if tensor._history is None:
                    continue
                source, _, output_index = tensor._history
                destination = layer
                if not expand_nested:
                    _add_edge(dot, source, layer)
                    continue
                # nested models have no boxes of their own: reach the real layers
                _add_edge(dot, _last_layer(source, output_index),
                          _first_layer(destination, input_index))
    return dot


def _last_layer(layer, output_index=0):
    """The real layer that makes output ``output_index`` of ``layer`` (inside nested
    models)."""
    while _is_model_graph(layer):
        if _is_sequential(layer):
            layer, output_index = layer.layers[-1], 0
        else:
            layer, _, output_index = layer.outputs[output_index]._history
    return layer


def _first_layer(layer, input_index=0):
    """The real layer that reads input ``input_index`` of ``layer``."""
    while _is_model_graph(layer):
        if _is_sequential(layer):
            layer, input_index = layer.layers[0], 0
        else:
            layer = layer.inputs[input_index]._history[0]
    return layer


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=False, rankdir="TB", expand_nested=False, dpi=200,
               show_layer_activations=False, show_trainable=False, splines="ortho", **kwargs):
    """Draw ``model_to_dot(model, ...)`` into ``to_file`` (its suffix picks the format)
    with Graphviz."""
    _not_built(model)
    for ok, message in ((check_pydot, ("You must install pydot (`pip install pydot`) for "
                                       "`plot_model` to work.")),
                        (check_graphviz, ("You must install graphviz (see instructions at "
                                          "https://graphviz.gitlab.io/download/) for "
                                          "`plot_model` to work."))):
        if not ok():
            if "IPython.core.magics.namespace" in sys.modules:
                print(message)      # in a notebook Keras prints instead of failing
                return None
            raise ImportError(message)
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError("Unrecognized keyword arguments: %s" % (kwargs,))
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations,
                       show_trainable=show_trainable, splines=splines)
    to_file = str(to_file)
    extension = os.path.splitext(to_file)[1][1:] or "png"
    dot.write(to_file, format=extension)
    if extension != "pdf":
        try:
            from IPython import display  # optional: the image for a notebook
            return display.Image(filename=to_file)
        except ImportError:
            pass
    return None
