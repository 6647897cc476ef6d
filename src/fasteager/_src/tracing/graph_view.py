"""The graph of a traced ``fe.function`` as TensorFlow shows one: ``ConcreteFunction.graph``.

fasteager's traces are lists of kernel steps over registers, not TensorFlow graphs; this
module presents one as TensorFlow's ``FuncGraph`` does, for the code that inspects
graphs (the guides print ``graph.get_operations()`` and ``graph.as_graph_def()``) and for
``fe.summary.trace_export``, which writes the graph for TensorBoard's graph dashboard:

* each tensor argument is a ``Placeholder`` node named after the argument, each variable
  read a ``ReadVariableOp``, each captured constant a ``Const``, each step a node whose op
  type is TensorFlow's name for it where fasteager's op has one (``AddV2``, ``MatMul``...,
  otherwise fasteager's op name in CamelCase), and the outputs ``Identity`` nodes;
* node names follow TensorFlow's rule (the name TensorFlow gives the node a Python
  operator or ``tf.*`` call makes, ``add`` for ``a + b``, then ``_1``, ``_2``... when taken);
* ``GraphDef.SerializeToString()`` is the real protobuf encoding of GraphDef (what
  TensorBoard parses), and ``str()`` its text format.

It is a view: built from a trace when asked for, never used to run anything.
"""
import struct

import numpy as np

from .autograph.symbolic import _op_name
from ... import dtypes
from ..._graph import KIND_CONTROL, KIND_EFFECT, KIND_OP, KIND_READ
from ..io import protobuf as _pb
from ..io import tensor_proto as _tp
from ...tensor_shape import TensorShape

__all__ = ["FuncGraph", "GraphDef", "NodeDef", "Operation", "GraphTensor"]

# fasteager op -> TensorFlow op type (as TensorFlow's graphs name them)
_TF_TYPES = {
    "add": "AddV2", "subtract": "Sub", "multiply": "Mul", "divide": "RealDiv",
    "truediv": "RealDiv", "negative": "Neg", "matmul": "MatMul", "relu": "Relu",
    "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
    "square": "Square", "abs": "Abs", "greater": "Greater", "less": "Less",
    "greater_equal": "GreaterEqual", "less_equal": "LessEqual", "equal": "Equal",
    "not_equal": "NotEqual", "maximum": "Maximum", "minimum": "Minimum", "pow": "Pow",
    "reduce_sum": "Sum", "reduce_mean": "Mean", "reduce_max": "Max", "reduce_min": "Min",
    "reduce_prod": "Prod", "reshape": "Reshape", "transpose": "Transpose", "cast": "Cast",
    "concat": "ConcatV2", "stack": "Pack", "softmax": "Softmax", "conv2d": "Conv2D",
    "bias_add": "BiasAdd", "gather": "GatherV2", "where": "SelectV2", "identity": "Identity",
    "logical_and": "LogicalAnd", "logical_or": "LogicalOr", "logical_not": "LogicalNot",
    "floormod": "FloorMod", "floordiv": "FloorDiv", "sin": "Sin", "cos": "Cos",
    "argmax": "ArgMax", "argmin": "ArgMin", "tile": "Tile", "expand_dims": "ExpandDims",
    "squeeze": "Squeeze", "one_hot": "OneHot", "range": "Range", "fill": "Fill",
}

# NumPy dtype -> TensorFlow's DataType enum name (GraphDef attrs print it)
_DT_NAMES = {1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8", 5: "DT_INT16",
             6: "DT_INT8", 7: "DT_STRING", 9: "DT_INT64", 10: "DT_BOOL", 17: "DT_UINT16",
             19: "DT_HALF", 20: "DT_RESOURCE", 22: "DT_UINT32", 23: "DT_UINT64"}


def _dtype_enum(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "OSU":
        return _tp.DT_STRING
    return _tp.DTYPE_ENUM.get(dtype, 0)


def _camel(name):
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def tf_op_type(op_name):
    """TensorFlow's op type for fasteager's op ``op_name``."""
    return _TF_TYPES.get(op_name, _camel(op_name))


# ---- attribute values ------------------------------------------------------------------
class AttrValue:
    """One of TensorFlow's AttrValue kinds: ``type``, ``shape``, ``s``, ``i``, ``f``, ``b``."""

    def __init__(self, kind, value):
        self.kind = kind
        self.value = value

    def encode(self):
        k, v = self.kind, self.value
        if k == "type":
            return _pb.field_varint(6, v)
        if k == "shape":
            return _pb.field_bytes(7, _shape_proto(v))
        if k == "s":
            return _pb.field_bytes(2, v)
        if k == "i":
            return _pb.field_varint(3, int(v))
        if k == "f":
            return _pb.key(4, 5) + struct.pack("<f", v)
        if k == "b":
            return _pb.field_varint(5, int(bool(v)))
        if k == "tensor":
            return _pb.field_bytes(8, _tp.tensor_proto(v))
        raise ValueError("AttrValue: unknown kind %r" % k)

    def text(self, indent):
        pad = " " * indent
        k, v = self.kind, self.value
        if k == "type":
            return ["%stype: %s" % (pad, _DT_NAMES.get(v, "DT_INVALID"))]
        if k == "shape":
            lines = ["%sshape {" % pad]
            if v is None:
                lines.append("%s  unknown_rank: true" % pad)
            else:
                for d in v:
                    lines += ["%s  dim {" % pad, "%s    size: %d" % (pad, -1 if d is None else d),
                              "%s  }" % pad]
            return lines + ["%s}" % pad]
        if k == "s":
            return ['%ss: "%s"' % (pad, v.decode("utf-8", "backslashreplace")
                                   if isinstance(v, bytes) else v)]
        if k == "tensor":
            arr = np.asarray(v)
            lines = ["%stensor {" % pad, "%s  dtype: %s" % (pad, _DT_NAMES.get(
                _dtype_enum(arr.dtype), "DT_INVALID")), "%s  tensor_shape {" % pad]
            for d in arr.shape:
                lines += ["%s    dim {" % pad, "%s      size: %d" % (pad, d), "%s    }" % pad]
            lines.append("%s  }" % pad)
            if arr.size == 1:
                field = {"f": "float_val", "i": "int_val", "u": "int_val",
                         "b": "bool_val"}.get(arr.dtype.kind)
                if field is not None:
                    val = arr.reshape(-1)[0]
                    shown = ("true" if val else "false") if arr.dtype.kind == "b" else (
                        repr(float(val)) if arr.dtype.kind == "f" else str(int(val)))
                    lines.append("%s  %s: %s" % (pad, field, shown))
            return lines + ["%s}" % pad]
        return ["%s%s: %s" % (pad, k, str(v).lower() if k == "b" else v)]


def _shape_proto(shape):
    if shape is None:
        return _pb.field_varint(3, 1)               # unknown_rank
    return b"".join(_pb.field_bytes(2, _pb.field_varint(1, -1 if d is None else int(d)))
                    for d in shape)


class NodeDef:
    """A node of a GraphDef: ``name``, ``op``, ``input`` (names), ``device``, ``attr``."""

    def __init__(self, name, op, inputs=(), attr=None, device=""):
        self.name = name
        self.op = op
        self.input = list(inputs)
        self.device = device
        self.attr = dict(attr or {})

    def SerializeToString(self):
        parts = [_pb.field_bytes(1, self.name), _pb.field_bytes(2, self.op)]
        parts += [_pb.field_bytes(3, i) for i in self.input]
        if self.device:
            parts.append(_pb.field_bytes(4, self.device))
        for key in sorted(self.attr):
            entry = _pb.field_bytes(1, key) + _pb.field_bytes(2, self.attr[key].encode())
            parts.append(_pb.field_bytes(5, entry))
        return b"".join(parts)

    def _text(self, indent=0):
        pad = " " * indent
        lines = ['%sname: "%s"' % (pad, self.name), '%sop: "%s"' % (pad, self.op)]
        lines += ['%sinput: "%s"' % (pad, i) for i in self.input]
        if self.device:
            lines.append('%sdevice: "%s"' % (pad, self.device))
        for key in sorted(self.attr):
            lines += ["%sattr {" % pad, '%s  key: "%s"' % (pad, key), "%s  value {" % pad]
            lines += self.attr[key].text(indent + 4)
            lines += ["%s  }" % pad, "%s}" % pad]
        return lines

    def __str__(self):
        return "\n".join(self._text()) + "\n"

    def __repr__(self):
        return "NodeDef(name=%r, op=%r, input=%r)" % (self.name, self.op, self.input)


class GraphDef:
    """TensorFlow's GraphDef: ``node`` (NodeDefs) and the producer version."""

    PRODUCER = 2021     # the GraphDef version TensorFlow 2.21 writes

    def __init__(self, nodes):
        self.node = list(nodes)

    def SerializeToString(self):
        versions = _pb.field_varint(1, self.PRODUCER)
        return b"".join([_pb.field_bytes(1, n.SerializeToString()) for n in self.node]
                        + [_pb.field_bytes(4, versions)])

    def __str__(self):
        lines = []
        for n in self.node:
            lines += ["node {"] + n._text(2) + ["}"]
        lines += ["versions {", "  producer: %d" % self.PRODUCER, "}"]
        return "\n".join(lines) + "\n"


# ---- the graph -------------------------------------------------------------------------
class GraphTensor:
    """A symbolic tensor of a FuncGraph: ``name`` ("op:0"), ``shape``, ``dtype``, ``op``."""

    def __init__(self, op, index, shape, dtype):
        self.op = op
        self.value_index = index
        self.shape = shape
        self.dtype = dtype

    @property
    def name(self):
        return "%s:%d" % (self.op.name, self.value_index)

    @property
    def graph(self):
        return self.op.graph

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, TensorShape(self.shape),
                                                       self.dtype.name)


class Operation:
    """A node of a FuncGraph: ``name``, ``type``, ``inputs``, ``outputs``, ``node_def``."""

    def __init__(self, graph, node, inputs, out_meta):
        self.graph = graph
        self.node_def = node
        self.inputs = list(inputs)
        self.outputs = [GraphTensor(self, i, s, d) for i, (s, d) in enumerate(out_meta)]

    @property
    def name(self):
        return self.node_def.name

    @property
    def type(self):
        return self.node_def.op

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self.name, self.type)


class FuncGraph:
    """The graph of one ``ConcreteFunction`` (see the module docstring)."""

    def __init__(self, concrete):
        self.name = concrete.name
        self._ops = []
        names = {}
        producer = {}            # register -> input name ("op" or "op:k")
        meta = concrete._reg_meta

        def unique(base):
            base = base.replace(" ", "_") or "op"
            n = names.get(base, 0)
            names[base] = n + 1
            return base if n == 0 else "%s_%d" % (base, n)

        def dt(reg):
            return dtypes.as_dtype(meta[reg][1])

        def add(node, regs, in_regs=()):
            ins = [producer[r] for r in in_regs if r in producer]
            node.input = ins
            op = Operation(self, node, [self._tensor(r) for r in in_regs if r in producer],
                           [(tuple(meta[r][0]), dt(r)) for r in regs])
            for k, r in enumerate(regs):
                producer[r] = op.name if k == 0 else "%s:%d" % (op.name, k)
                self._tensor_of[r] = op.outputs[k]
            self._ops.append(op)
            return op

        self._tensor_of = {}
        input_names = list(getattr(concrete, "_input_names", []) or [])
        self.inputs = []
        for i, r in enumerate(concrete._inputs):
            arg = input_names[i] if i < len(input_names) else "input_%d" % i
            node = NodeDef(unique(arg), "Placeholder", attr={
                "dtype": AttrValue("type", _dtype_enum(meta[r][1])),
                "shape": AttrValue("shape", tuple(meta[r][0])),
                "_user_specified_name": AttrValue("s", arg.encode())})
            self.inputs.append(add(node, [r]).outputs[0])
        for var, r in concrete._var_inputs:
            handle = NodeDef(unique(var.name.split(":")[0].replace("/", "_")), "Placeholder",
                             attr={"dtype": AttrValue("type", 20),
                                   "shape": AttrValue("shape", ())})
            add(handle, [])
            producer[("var", r)] = handle.name
            node = NodeDef(unique("ReadVariableOp"), "ReadVariableOp",
                           attr={"dtype": AttrValue("type", _dtype_enum(meta[r][1]))})
            read = add(node, [r])
            read.node_def.input = [handle.name]
        for r, arr in sorted(concrete._consts.items()):
            node = NodeDef(unique("Const"), "Const", attr={
                "dtype": AttrValue("type", _dtype_enum(np.asarray(arr).dtype)),
                "value": AttrValue("tensor", np.asarray(arr)) if np.asarray(arr).dtype.kind
                not in "OSU" else AttrValue("s", b"")})
            add(node, [r])
        for step in concrete._all_steps:
            if step.kind == KIND_EFFECT and (step.name or "").endswith("_keep"):
                continue      # (keeps a control step's outputs live: no TensorFlow node)
            outs = list(step.out) if step.multi else ([] if step.out == -1 else [step.out])
            outs = [r for r in outs if isinstance(r, int) and r >= 0]
            if step.kind == KIND_OP:
                kind = tf_op_type(step.name)
            elif step.kind == KIND_READ:
                kind = "ReadVariableOp"
            elif step.kind == KIND_EFFECT:
                kind = _camel(step.name) if step.name else "Effect"
            elif step.kind == KIND_CONTROL:
                kind = "StatelessIf" if "cond" in (step.name or "") else "StatelessWhile"
            else:
                kind = _camel(step.name or "op")
            # (named as TensorFlow names the node a Python operator or tf.* call makes:
            # ``add`` for ``a + b``, ``Sum``, ``MatMul``; the same names print shows)
            named = step.kind == KIND_OP or step.kind == KIND_CONTROL
            node = NodeDef(unique(_op_name(step.name) if named else kind), kind)
            if outs:
                # TensorFlow's "T" is the type of the inputs (Greater's is int32, not bool)
                typed = step.ins[0] if step.ins and step.kind == KIND_OP else outs[0]
                node.attr["T"] = AttrValue("type", _dtype_enum(meta[typed][1]))
            add(node, outs, step.ins)
        self.outputs = []
        for r in concrete._out_regs:
            node = NodeDef(unique("Identity"), "Identity",
                           attr={"T": AttrValue("type", _dtype_enum(meta[r][1]))})
            self.outputs.append(add(node, [r], (r,)).outputs[0])
        self.variables = tuple(v for v, _ in concrete._var_inputs)

    def _tensor(self, reg):
        return self._tensor_of.get(reg)

    def get_operations(self):
        """The operations, in the order the trace made them."""
        return list(self._ops)

    def get_operation_by_name(self, name):
        for op in self._ops:
            if op.name == name:
                return op
        raise KeyError("The name %r refers to an Operation not in the graph." % name)

    def as_graph_def(self, add_shapes=False):
        return GraphDef([op.node_def for op in self._ops])

    def __repr__(self):
        return "<FuncGraph %r: %d operations>" % (self.name, len(self._ops))


def run_metadata(graph_defs):
    """A serialized RunMetadata holding ``graph_defs`` as function graphs (what
    ``fe.summary.trace_export`` writes for TensorBoard's graph dashboard)."""
    # RunMetadata.function_graphs = 4; FunctionGraphs.pre_optimization_graph = 2
    return b"".join(_pb.field_bytes(4, _pb.field_bytes(2, g.SerializeToString()))
                    for g in graph_defs)


# where these classes were defined before the engine had layers: printed types stay the same
for _cls in (AttrValue, NodeDef, GraphDef, GraphTensor, Operation, FuncGraph):
    _cls.__module__ = "fasteager.graph_view"
del _cls
