"""The functional API: ``fe.keras.Model(inputs, outputs)``, a model that is a graph of layer
calls on symbolic tensors.

Calling a layer on ``KerasTensor``s (from ``fe.keras.Input``) records a ``Node`` (the
layer, its call arguments, its output specs; see ``layers/base.py``). ``Functional`` walks
those nodes back from ``outputs`` to ``inputs`` once, keeps them in dependency order, and
``call`` replays them on real tensors. Several inputs and outputs (lists or dicts), shared
layers (one layer, several nodes) and nested models (a model called as a layer) follow.

>>> inputs = fe.keras.Input(shape=(784,))
>>> hidden = fe.keras.layers.Dense(64, activation="relu")(inputs)
>>> model = fe.keras.Model(inputs, fe.keras.layers.Dense(10)(hidden))
>>> model(fe.zeros([2, 784])).shape
TensorShape([2, 10])

``get_config`` writes Keras 3's functional layout (``layers`` with their
``inbound_nodes``, ``input_layers``, ``output_layers``); ``from_config`` rebuilds every
layer through the allow-listed deserializer of ``_serialization`` and replays the nodes,
whose arguments are plain JSON values and tensor references: nothing in a file runs.

``StructuredLoss`` is the compiled loss of a model with several outputs: a loss (list, dict
or one for all), ``loss_weights`` and metrics per output, logged as ``<output>_loss`` and
``<output>_<metric>``, as Keras 3 does.
"""
from .. import errors, nest
from .._core import Tensor, convert_to_tensor
from .._src.state.variables import Variable
from ..errors import DataLossError
from ..ops import array_ops, elementwise_ops
from ..ops.elementwise_ops import add, cast, multiply, negative, subtract, truediv
from ..ops.linalg_ops import matmul
from ..ragged import RaggedTensor
from ..sparse import SparseTensor
from . import _serialization
from ._serialization import deserialize_keras_object, in_safe_mode, serialize_keras_object
from .layers.base import InputLayer, KerasTensor, Layer, ListInput, set_symbolic_op
from .training import Model, _next_mask, _takes_mask, set_functional_class

_TENSOR_TAG = "__keras_tensor__"


def _tensors(structure, where, argname):
    """The KerasTensors of ``structure`` (a tensor, or lists/tuples/dicts of them), flat."""
    flat = nest.flatten(structure)
    for t in flat:
        if not isinstance(t, KerasTensor):
            raise TypeError("%s: %s must be KerasTensors from fe.keras.Input or layer calls "
                            "on them (got %r)" % (where, argname, t))
    if not flat:
        raise ValueError("%s: %s is empty (expected at least one KerasTensor)"
                         % (where, argname))
    return flat


class Functional(Model):
    """A model defined by its ``inputs`` and ``outputs`` KerasTensors (see the module)."""

    _graph_model = True     # _summary prints its graph

    _NOT_TRACKED = Model._NOT_TRACKED | {"_inputs_struct", "_outputs_struct", "_nodes",
                                         "_node_index", "inputs", "outputs"}

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if isinstance(inputs, tuple):
            inputs = list(inputs)
        if isinstance(outputs, tuple):
            outputs = list(outputs)
        self.inputs = _tensors(inputs, "Model", "inputs")
        self.outputs = _tensors(outputs, "Model", "outputs")
        for t in self.inputs:
            if t._history is None or not isinstance(t._history[0], InputLayer):
                raise ValueError("Model: inputs must be made by fe.keras.Input (got %r, the "
                                 "output of layer %r)" % (t, t._history and t._history[0].name))
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self._nodes = self._order_nodes()
        layers = [t._history[0] for t in self.inputs]
        for node in self._nodes:
            if not any(lay is node.layer for lay in layers):
                layers.append(node.layer)
        self._layers = layers
        # each layer's nodes in this model, numbered as keras_history numbers them
        index = {}
        ours = {id(n) for n in self._nodes} | {id(t._history[0]._inbound_nodes[0])
                                               for t in self.inputs}
        for layer in layers:
            mine = [n for n in layer._inbound_nodes if id(n) in ours]
            for i, n in enumerate(mine):
                index[id(n)] = i
        self._node_index = index
        # whether any layer makes masks (else call() skips the mask bookkeeping)
        self._masking = any(type(lay).compute_mask is not Layer.compute_mask
                            for lay in layers)
        self.built = True

    def _order_nodes(self):
        """The nodes from the inputs to the outputs, each after the nodes it reads from."""
        known = {id(t) for t in self.inputs}
        order, done, active = [], set(), set()

        def visit(tensor):
            if id(tensor) in known:
                return
            if tensor._history is None:
                raise ValueError("Model: the graph is disconnected: %r was not made by a layer "
                                 "call on the model's inputs" % (tensor,))
            layer, node_index, _ = tensor._history
            node = layer._inbound_nodes[node_index]
            if id(node) in done:
                return
            if isinstance(layer, InputLayer):
                raise ValueError(
                    "Model: the graph is disconnected: cannot obtain a value for the input "
                    "%r (layer %r); pass it in inputs (expected every Input the outputs "
                    "depend on among inputs)" % (tensor, layer.name))
            if id(node) in active:
                raise ValueError("Model: the layer graph has a cycle at layer %r" % layer.name)
            active.add(id(node))
            for t in node.input_tensors:
                visit(t)
            active.discard(id(node))
            done.add(id(node))
            order.append(node)
        for t in self.outputs:
            visit(t)
        return order

    # ---- structure ------------------------------------------------------------------------
    @property
    def layers(self):
        return list(self._layers)

    @property
    def input(self):
        return self._inputs_struct

    @property
    def output(self):
        return self._outputs_struct

    @property
    def input_names(self):
        return [t._history[0].name for t in self.inputs]

    @property
    def output_names(self):
        if isinstance(self._outputs_struct, dict):
            return sorted(self._outputs_struct)
        return [t._history[0].name for t in self.outputs]

    @property
    def input_shape(self):
        shapes = [tuple(t.shape.as_list()) for t in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        shapes = [tuple(t.shape.as_list()) for t in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    # ---- running --------------------------------------------------------------------------
    def _flat_inputs(self, inputs):
        """The call's inputs in the order of ``self.inputs`` (by name for a dict)."""
        n = len(self.inputs)
        if isinstance(inputs, dict):
            names = self.input_names if not isinstance(self._inputs_struct, dict) \
                else sorted(self._inputs_struct)
            missing = [k for k in names if k not in inputs]
            if missing:
                raise ValueError("%s: missing inputs %s (expected keys %s, got %s)"
                                 % (self.name, missing, names, sorted(inputs)))
            return [inputs[k] for k in names]
        if isinstance(inputs, (list, tuple)) and (n > 1 or len(inputs) == 1):
            flat = list(inputs)
        else:
            flat = [inputs]
        if len(flat) != n:
            raise ValueError("%s: the model expects %d inputs, but it received %d input "
                             "tensors" % (self.name, n, len(flat)))
        return flat

    def _convert_input(self, x):
        flat = self._flat_inputs(x)
        out = []
        for spec, v in zip(self.inputs, flat):
            if not isinstance(v, (SparseTensor, RaggedTensor)):   # kept, as Keras's
                v = convert_to_tensor(v.read_value() if isinstance(v, Variable) else v)
            if v.dtype != spec.dtype and v.dtype.is_floating == spec.dtype.is_floating:
                v = cast(v, spec.dtype)    # Keras casts inputs to the Input's dtype
            out.append(v)
        return out

    def call(self, inputs, training=None, mask=None):
        flat = inputs if isinstance(inputs, list) and len(inputs) == len(self.inputs) and \
            all(isinstance(v, Tensor) for v in inputs) else self._convert_input(inputs)
        for spec, v in zip(self.inputs, flat):
            want, got = spec.shape.as_list(), v.shape.as_list()
            if len(want) != len(got) or any(w is not None and w != g
                                            for w, g in zip(want, got)):
                raise errors.InvalidArgumentError(
                    "%s: input %r is incompatible with the model (expected shape %s, got %s)"
                    % (self.name, spec.name, tuple(want), tuple(got)))
        values = {id(t): v for t, v in zip(self.inputs, flat)}
        # masks (Embedding(mask_zero=True), Masking, RNNs) travel along the graph as in
        # Sequential: a layer that takes mask= gets its inputs' masks
        masks = {}
        if mask is not None:
            masks = {id(t): m for t, m in zip(self.inputs, self._flat_inputs(mask))}

        def value(v):
            return values[id(v)] if isinstance(v, KerasTensor) else v
        for node in self._nodes:
            x, args, kwargs = nest.map_structure(value, node.call_args)
            in_mask = None
            if masks:
                in_mask = _map_tensors(lambda t: masks.get(id(t)), node.call_args[0])
                if any(m is not None for m in nest.flatten(in_mask)) and \
                        "mask" not in kwargs and _takes_mask(node.layer):
                    kwargs["mask"] = in_mask
            out = node.layer(x, *args, **kwargs)
            out_mask = _next_mask(node.layer, x, in_mask) if self._masking else None
            outs = nest.flatten(out)
            out_masks = list(out_mask) if isinstance(out_mask, (list, tuple)) else \
                [out_mask] + [None] * (len(outs) - 1)
            for t, v, m in zip(node.outputs, outs, out_masks):
                values[id(t)] = v
                if m is not None:
                    masks[id(t)] = m
        return nest.map_structure(value, self._outputs_struct)

    # ---- config ---------------------------------------------------------------------------
    def _history_config(self, tensor):
        layer, node_index, tensor_index = tensor._history
        return [layer.name, self._node_index[id(layer._inbound_nodes[node_index])],
                tensor_index]

    def get_config(self):

        def encode(v):
            if isinstance(v, KerasTensor):
                return {"class_name": _TENSOR_TAG, "config": {
                    "shape": v.shape.as_list(), "dtype": v.dtype.name,
                    "keras_history": self._history_config(v)}}
            if v is None or isinstance(v, (bool, int, float, str)):
                return v
            raise TypeError("%s.get_config: a layer was called with %r, which a saved config "
                            "cannot hold (expected tensors and JSON values)" % (self.name, v))
        layers = []
        for layer in self._layers:
            entry = serialize_keras_object(layer)
            entry["name"] = layer.name
            entry["inbound_nodes"] = []
            for node in layer._inbound_nodes:
                if id(node) in self._node_index and not isinstance(layer, InputLayer):
                    x, args, kwargs = nest.map_structure(encode, node.call_args)
                    entry["inbound_nodes"].append({"args": [x] + list(args), "kwargs": kwargs})
            layers.append(entry)
        return {"name": self.name, "trainable": self.trainable, "layers": layers,
                "input_layers": _map_tensors(self._history_config, self._inputs_struct),
                "output_layers": _map_tensors(self._history_config, self._outputs_struct)}

    # load_model hands this class its config undecoded: the layer graph holds tensor
    # references, which are no objects to construct
    _deserializes_own_config = True

    @classmethod
    def from_config(cls, config, custom_objects=None):
        where = "Functional.from_config"
        entries = config.get("layers")
        if not isinstance(entries, list):
            raise DataLossError("%s: the config has no list of layers" % where)
        created, outputs, pending = {}, {}, []
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or \
                    not isinstance(entry.get("inbound_nodes", []), list):
                raise DataLossError("%s: a layer entry must be a dict with a name and "
                                    "inbound_nodes (got %r)" % (where, entry))
            spec = {k: entry[k] for k in ("class_name", "config", "module", "registered_name")
                    if k in entry}
            layer = deserialize_keras_object(spec, custom_objects, safe_mode=in_safe_mode(),
                                             where=where)
            if not isinstance(layer, Layer):
                raise DataLossError("%s: %r is not a layer" % (where, entry["name"]))
            created[entry["name"]] = layer
            outputs[entry["name"]] = [[layer.output]] if isinstance(layer, InputLayer) else []
            pending.extend((entry["name"], n) for n in entry.get("inbound_nodes", []))

        def lookup(history):
            if not (isinstance(history, list) and len(history) == 3 and
                    isinstance(history[0], str) and all(type(i) is int for i in history[1:])):
                raise DataLossError("%s: a tensor reference must be [layer, node, tensor] "
                                    "(got %r)" % (where, history))
            nodes = outputs.get(history[0])
            if nodes is None:
                raise DataLossError("%s: a node reads from an unknown layer %r"
                                    % (where, history[0]))
            if history[1] >= len(nodes):
                raise _NotReady()
            if not 0 <= history[2] < len(nodes[history[1]]):
                raise DataLossError("%s: layer %r has no output %d" % (where, history[0],
                                                                        history[2]))
            return nodes[history[1]][history[2]]

        def decode(v):
            if isinstance(v, dict) and v.get("class_name") == _TENSOR_TAG:
                return lookup((v.get("config") or {}).get("keras_history"))
            if isinstance(v, dict):
                return {k: decode(x) for k, x in v.items()}
            if isinstance(v, list):
                return [decode(x) for x in v]
            return v
        # replay the nodes in dependency order: a node waits until what it reads exists
        while pending:
            progressed = False
            for item in list(pending):
                name, node = item
                if any(p is not item and p[0] == name for p in pending[:pending.index(item)]):
                    continue    # a layer's nodes run in their saved order
                try:
                    args = decode(node.get("args", []) if isinstance(node, dict) else None)
                    kwargs = decode(node.get("kwargs", {}))
                except _NotReady:
                    continue
                except AttributeError:
                    raise DataLossError("%s: a node of layer %r is not a dict of args and "
                                        "kwargs" % (where, name)) from None
                if not isinstance(args, list) or not args or not isinstance(kwargs, dict):
                    raise DataLossError("%s: a node of layer %r has no arguments"
                                        % (where, name))
                out = created[name](*args, **kwargs)
                outputs[name].append(nest.flatten(out))
                pending.remove(item)
                progressed = True
            if not progressed:
                raise DataLossError("%s: the saved layer graph cannot be rebuilt (nodes of "
                                    "%s read tensors no node makes)"
                                    % (where, sorted({p[0] for p in pending})))
        try:
            inputs = _map_histories(lookup, config.get("input_layers"))
            outs = _map_histories(lookup, config.get("output_layers"))
        except _NotReady:
            raise DataLossError("%s: the model's inputs or outputs name nodes that do not "
                                "exist" % where) from None
        return cls(inputs, outs, name=config.get("name"),
                   trainable=config.get("trainable", True))


class _NotReady(Exception):
    """A node reads a tensor that no replayed node has made yet."""


def _map_tensors(fn, structure):
    if isinstance(structure, dict):
        return {k: _map_tensors(fn, v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return [_map_tensors(fn, v) for v in structure]
    return fn(structure)


def _map_histories(fn, structure):
    """The inverse of ``_map_tensors(_history_config, ...)``: a leaf is [name, node, i]."""
    if isinstance(structure, dict):
        return {k: _map_histories(fn, v) for k, v in structure.items()}
    if isinstance(structure, list) and structure and isinstance(structure[0], str):
        return fn(structure)
    if isinstance(structure, list):
        return [_map_histories(fn, v) for v in structure]
    raise DataLossError("Functional.from_config: input_layers/output_layers must be tensor "
                        "references (got %r)" % (structure,))


# ---- operators on KerasTensors ----------------------------------------------------------------

_OPERATORS = {"add": add, "subtract": subtract, "multiply": multiply,
              "truediv": truediv, "pow": elementwise_ops.pow, "matmul": matmul,
              "negative": negative, "abs": elementwise_ops.abs}


def _encode_index(index):
    """A __getitem__ key as JSON: ints, None, '...' and {"slice": [start, stop, step]}."""
    items = index if isinstance(index, tuple) else (index,)
    out = []
    for item in items:
        if item is Ellipsis:
            out.append("...")
        elif isinstance(item, slice):
            parts = [item.start, item.stop, item.step]
            if not all(p is None or (isinstance(p, int) and not isinstance(p, bool))
                       for p in parts):
                raise TypeError("KerasTensor[...]: slice bounds must be ints (got %r)" % item)
            out.append({"slice": parts})
        elif item is None or (isinstance(item, int) and not isinstance(item, bool)):
            out.append(item)
        else:
            raise TypeError("KerasTensor[...]: indices must be ints, slices, None or ... "
                            "(got %r); use a layer for tensor indices" % (item,))
    return out


def _decode_index(items):
    out = []
    for item in items:
        if item == "...":
            out.append(Ellipsis)
        elif isinstance(item, dict):
            out.append(slice(*item["slice"]))
        else:
            out.append(item)
    return tuple(out)


class TensorOp(ListInput, Layer):
    """One operator applied to KerasTensors (``x + y``, ``2.0 * x``, ``-x``, ``x[:, 0]``),
    recorded as a layer of the graph. The operator is a name from a fixed table and any
    constant operand a JSON value, so a saved config names no code."""

    def __init__(self, op, constant=None, constant_first=False, index=None, **kwargs):
        super().__init__(**kwargs)
        if op != "getitem" and op not in _OPERATORS:
            raise ValueError("TensorOp: unknown op %r (expected one of %s)"
                             % (op, sorted(_OPERATORS) + ["getitem"]))
        self.op = op
        self.constant = constant
        self.constant_first = bool(constant_first)
        self.index = index

    def call(self, inputs):
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if self.op == "getitem":
            return inputs[0][_decode_index(self.index)]
        fn = _OPERATORS[self.op]
        if self.op in ("negative", "abs"):
            return fn(inputs[0])
        if len(inputs) == 2:
            return fn(inputs[0], inputs[1])
        c = array_ops.constant(self.constant, dtype=inputs[0].dtype)
        return fn(c, inputs[0]) if self.constant_first else fn(inputs[0], c)

    def get_config(self):
        config = super().get_config()
        config.update(op=self.op, constant=self.constant, constant_first=self.constant_first,
                      index=self.index)
        return config


def symbolic_op(op, a, b=None, reverse=False):
    """``op`` of KerasTensor ``a`` and ``b`` (a KerasTensor, a number or an array)."""
    if op == "getitem":
        return TensorOp("getitem", index=_encode_index(b))([a])
    if op in ("negative", "abs"):
        return TensorOp(op)([a])
    if isinstance(b, KerasTensor):
        return TensorOp(op)([b, a] if reverse else [a, b])
    if isinstance(b, (Variable, Layer)):
        raise TypeError("KerasTensor %s: a Variable operand would not be saved with the "
                        "model (got %r); create it in a layer's build()" % (op, b))
    if isinstance(b, Tensor):
        b = b.numpy()
    value = b.tolist() if hasattr(b, "tolist") else b
    if not isinstance(value, (int, float, list)) or isinstance(value, bool):
        raise TypeError("KerasTensor %s: expected a KerasTensor, a number or an array "
                        "operand (got %r)" % (op, b))
    return TensorOp(op, constant=value, constant_first=reverse)([a])

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("functional", globals(), Layer)


set_symbolic_op(symbolic_op)
set_functional_class(Functional)
