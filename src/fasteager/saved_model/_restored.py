"""What ``saved_model.load`` rebuilds: objects holding the saved variables and functions,
functions that run a saved graph op by op through the tapes (so they are
differentiable, their custom gradients included), and the signatures.

Every graph is checked when the file loads, before anything runs (``check_graph``): each
step's kind; an op's name (in fasteager's op table), its number of inputs, whether it
gives several outputs, and its attributes (only the names the op declares, each value of
a kind a saved graph holds: integers within int64, dtypes among fasteager's, sizes
non-negative and at most ``MAX_ATTR_ELEMENTS`` elements); every register read is
written before; variables and constants named exist; control steps (``fe.cond``,
``fe.while_loop``) have their kind, two sub-graphs and matching input and output counts,
nested at most ``MAX_CONTROL_DEPTH`` deep; custom-gradient blocks lie within the steps.
What only a call can tell (the input tensors' shapes, the values of a shape-generic
graph's sizes) is checked as the graph runs: the kernels check every array they are
given. All of it raises typed errors (``DataLossError``, ``NotFoundError``,
``InvalidArgumentError``). Nothing a file names is imported or called, except ops looked
up in fasteager's own op table.
"""
import contextlib

import numpy as np

from .. import _core
from .._src import nest
from .._src.composite.extension_type import from_saved_form
from .._src.composite.ragged import RaggedTensor
from .._src.composite.sparse import SparseTensor
from .._src.composite.structure import TensorSpec
from .._src.state.module import Module
from .._src.tracing.function import Function
from ..dtypes import ALL, as_dtype
from ..errors import (DataLossError, InvalidArgumentError, NotFoundError, OpError,
                      ResourceExhaustedError)
from ..ops.registry import OPS
from . import _generic
from ._generic import component_specs
from ._encoding import decode, evaluate, is_symbolic, key_text


class _Restored(Module):
    """An object rebuilt by ``saved_model.load``: its variables, sub-objects and functions
    as attributes, without the class that saved it."""

    def __call__(self, *args, **kwargs):
        fn = self.__dict__.get("__call__")
        if fn is None:
            raise TypeError("saved_model.load: the saved object has no __call__ function")
        return fn(*args, **kwargs)

    # a saved Keras model lists its weights in the model's order (a Module walks its
    # attributes instead)
    def _saved_list(self, name, default):
        lists = self.__dict__.get("_saved_variable_lists")
        return list(lists[name]) if lists and name in lists else default()

    @property
    def variables(self):
        return self._saved_list("variables", lambda: Module.variables.fget(self))

    @property
    def trainable_variables(self):
        return self._saved_list("trainable_variables",
                                lambda: Module.trainable_variables.fget(self))

    @property
    def non_trainable_variables(self):
        return self._saved_list("non_trainable_variables",
                                lambda: Module.non_trainable_variables.fget(self))


class _Environment:
    """What a loaded function's graphs read: the variables by path and the constants."""

    def __init__(self, variables, constants, sym_constants=None, controls=True):
        self.variables = variables
        self.constants = constants
        self.sym_constants = sym_constants or {}
        self.controls = controls      # whether the file's format has control steps

    def constant(self, key, dims):
        entry = self.sym_constants.get(key)
        if entry is not None:
            return _generic.symbolic_constant(entry, dims)
        arr = self.constants.get(key) if isinstance(key, str) else None
        if arr is None:
            raise DataLossError("saved_model.load: constants.safetensors has no constant %.80r"
                                % (key,))
        return arr

    def variable(self, path):
        var = self.variables.get(path) if isinstance(path, str) else None
        if var is None:
            raise DataLossError("saved_model.load: a graph reads variable %.80r, which the "
                                "SavedModel does not hold" % (path,))
        return var


def _reg(r):
    if type(r) is not int or r < 0:
        raise DataLossError("saved_model.load: bad register %.40r" % (r,))
    return r


def _read(vals, r):
    t = vals.get(_reg(r))
    if t is None:
        raise DataLossError("saved_model.load: register %d is read before it is written" % r)
    return t


def _list(value, what):
    if not isinstance(value, list):
        raise DataLossError("saved_model.load: %s is not a list (got %.40r)" % (what, value))
    return value


def run_graph(g, fname, inputs, env, dims=None):
    """Run saved graph ``g`` on tensors ``inputs``; returns its output leaves."""
    if not isinstance(g, dict):
        raise DataLossError("saved_model.load: a graph of %s is not an object" % fname)
    with _malformed(fname):
        in_regs = _list(g["inputs"], "a graph's inputs")
        if len(in_regs) != len(inputs):
            raise DataLossError("saved_model.load: a graph of %s has %d inputs (called with "
                                "%d)" % (fname, len(in_regs), len(inputs)))
        vals = {}
        for r, key in g["consts"].items():
            vals[_reg(int(r))] = _core.wrap(env.constant(key, dims))
        for r, t in zip(in_regs, inputs):
            vals[_reg(r)] = t
        var_regs = {}
        for path, r in _list(g["variables"], "a graph's variables"):
            vals[_reg(r)] = env.variable(path).read_value()
            var_regs[path] = r
        steps = _list(g["steps"], "a graph's steps")
        custom = {}
        for c in _list(g.get("custom", []), "a graph's custom gradients"):
            if not (isinstance(c, dict) and type(c.get("start")) is int and
                    type(c.get("end")) is int and c["start"] <= c["end"] <= len(steps)):
                raise DataLossError("saved_model.load: bad custom_gradient entry %.80r" % (c,))
            custom[c["start"]] = c
        i = 0
        while i <= len(steps):
            c = custom.get(i)
            if c is not None:
                for s in steps[c["start"]:c["end"]]:
                    _run_step(s, vals, fname, dims, OPS, env)
                _record_custom(c, vals, var_regs, fname, env, dims)
                if c["end"] > i:
                    i = c["end"]
                    continue
            if i == len(steps):
                break
            _run_step(steps[i], vals, fname, dims, OPS, env)
            i += 1
        leaves = []
        for x in _list(g["outputs"], "a graph's outputs"):
            if isinstance(x, dict) and "reg" in x:
                leaves.append(_read(vals, x["reg"]))
            elif isinstance(x, dict) and "py" in x:
                leaves.append(decode(x["py"], dims))
            else:
                raise DataLossError("saved_model.load: bad output %.80r" % (x,))
        return leaves


_ASSIGN_KINDS = ("assign", "assign_add", "assign_sub")


def _run_step(s, vals, fname, dims, ops, env):
    if not isinstance(s, dict):
        raise DataLossError("saved_model.load: a step of %s is not an object" % fname)
    if "assign" in s:                  # a variable write (no gradient, as in TensorFlow)
        kind = s["assign"]
        if kind not in _ASSIGN_KINDS:
            raise DataLossError("saved_model.load: unknown variable write %.40r" % (kind,))
        ins = _list(s["ins"], "a write's inputs")
        if len(ins) != 1:
            raise DataLossError("saved_model.load: a variable write reads %d values" % len(ins))
        value = _read(vals, ins[0])
        try:
            getattr(env.variable(s["variable"]), kind)(value)
        except OpError:
            raise
        except Exception as e:
            raise InvalidArgumentError("saved_model: %s of variable %s in function %s failed "
                                       "(%s)" % (kind, s["variable"], fname, e)) from None
        return
    if "read" in s:
        vals[_reg(s["out"])] = env.variable(s["read"]).read_value()
        return
    if "control" in s:
        _run_control(s, vals, fname, dims, env)
        return
    op = ops.get(s.get("op")) if isinstance(s.get("op"), str) else None
    if op is None:
        raise NotFoundError("saved_model: function %s uses op %.80r, which this fasteager "
                            "does not have" % (fname, s.get("op")))
    args = tuple(_read(vals, r) for r in _list(s["ins"], "a step's inputs"))
    if op.nin >= 0 and len(args) != op.nin:          # (-1: any number, as concat)
        raise DataLossError("saved_model.load: op %s of %s is given %d inputs (it takes %d)"
                            % (op.name, fname, len(args), op.nin))
    attrs = decode(s["attrs"], dims) or None
    if dims is not None:
        # a shape-generic graph's sizes are known now: its attributes are checked again
        check_attrs(op, attrs, fname)
    elif attrs is not None and not isinstance(attrs, dict):
        raise DataLossError("saved_model.load: the attributes of op %s are not a dict of "
                            "names" % op.name)
    eager = getattr(op, "eager_call", None)
    try:
        out = _core.execute(op, args, attrs) if eager is None else eager(*args, **(attrs or {}))
    except OpError:
        raise
    except MemoryError as e:
        raise ResourceExhaustedError("saved_model: op %s of function %s: out of memory (%s)"
                                     % (op.name, fname, e)) from None
    except Exception as e:
        # a kernel refusing what the file gave it: the graph or its call is wrong
        raise InvalidArgumentError("saved_model: op %s of function %s failed (%s: %s)"
                                   % (op.name, fname, type(e).__name__, e)) from None
    if s["multi"]:
        outs = _list(s["out"], "a step's outputs")
        if not isinstance(out, (list, tuple)) or len(out) != len(outs):
            raise DataLossError("saved_model.load: op %s gives %s outputs, its step names %d"
                                % (op.name, len(out) if isinstance(out, (list, tuple))
                                   else 1, len(outs)))
        for r, t in zip(outs, out):
            vals[_reg(r)] = t
    else:
        vals[_reg(s["out"])] = out


def _is_float(t):
    return t._value.dtype.kind in "fc"


_CONTROLS = ("cond", "while_loop")
MAX_CONTROL_DEPTH = 32      # control steps nested in control steps (deeper is corruption)

# ---- checking a graph before it runs ----------------------------------------------------------

_INT64 = (-(1 << 63), (1 << 63) - 1)
# attributes that size a tensor an op makes (a reshape or broadcast target, the input of a
# gradient, tile's multiples): at most this many elements, so that a few bytes of a file
# cannot ask for terabytes
MAX_ATTR_ELEMENTS = 1 << 31
_SIZE_ATTRS = frozenset(("shape", "input_shape", "filter_shape", "noise_shape", "multiples",
                         "paddings", "sizes"))
_COUNT_ATTRS = frozenset(("depth", "num_segments", "n"))
_DTYPE_ATTRS = frozenset(("dtype", "output_type", "out_type", "out_idx", "output_idx_type"))


_FE_DTYPES = frozenset(np.dtype(d._np) for d in ALL)


def _bad_attr(fname, opname, attr, what, value):
    return DataLossError("saved_model.load: op %s of %s: attribute %s %s (got %.80r)"
                         % (opname, fname, attr, what, value))


def _check_value(value, fname, opname, attr, dtypes):
    """An attribute value holds only what a saved graph's attributes hold: None, bools,
    int64 integers, floats, strings, slices, Ellipsis, fasteager's dtypes, scalars and
    integer or float arrays of them, in tuples, lists and dicts."""
    if value is None or value is Ellipsis or isinstance(value, (bool, float, str)):
        return
    if isinstance(value, int):
        if not _INT64[0] <= value <= _INT64[1]:
            raise _bad_attr(fname, opname, attr, "holds an integer beyond int64", value)
        return
    if isinstance(value, (np.generic, np.ndarray)):
        if value.dtype not in dtypes:
            raise _bad_attr(fname, opname, attr, "holds a value of a dtype fasteager does "
                            "not have (%s)" % value.dtype, value)
        return
    if isinstance(value, np.dtype) or type(value).__name__ == "DType":
        if np.dtype(getattr(value, "_np", value)) not in dtypes:
            raise _bad_attr(fname, opname, attr, "is a dtype fasteager does not have", value)
        return
    if isinstance(value, slice):
        for v in (value.start, value.stop, value.step):
            _check_value(v, fname, opname, attr, dtypes)
        return
    if isinstance(value, (list, tuple)):
        for v in value:
            _check_value(v, fname, opname, attr, dtypes)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            _check_value(k, fname, opname, attr, dtypes)
            _check_value(v, fname, opname, attr, dtypes)
        return
    raise _bad_attr(fname, opname, attr, "holds a %s, which no op attribute is"
                    % type(value).__name__, value)


def _ints_in(value):
    """The integers of a (nested) size attribute, or None when it holds something else."""
    if type(value) is int or isinstance(value, np.integer):
        return [int(value)]
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return [int(v) for v in value.reshape(-1)]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            inner = _ints_in(v) if v is not None else []
            if inner is None:
                return None
            out += inner
        return out
    return None


def check_attrs(op, attrs, fname):
    """Refuse attributes op ``op`` does not declare, and values no saved graph holds."""
    if attrs is None:
        return
    if not (isinstance(attrs, dict) and all(isinstance(k, str) for k in attrs)):
        raise DataLossError("saved_model.load: the attributes of op %s of %s are not a dict "
                            "of names" % (op.name, fname))
    dtypes = _FE_DTYPES
    for name, value in attrs.items():
        if name not in op.attrs:
            raise DataLossError("saved_model.load: op %s of %s has no attribute %.80r "
                                "(expected %s)" % (op.name, fname, name,
                                                   ", ".join(sorted(op.attrs)) or "none"))
        _check_value(value, fname, op.name, name, dtypes)
        if name in _DTYPE_ATTRS and value is not None:
            try:
                known = np.dtype(as_dtype(value)._np) in dtypes
            except TypeError:
                known = False
            if not known:
                raise _bad_attr(fname, op.name, name, "is not a fasteager dtype", value)
        if name in _SIZE_ATTRS or name in _COUNT_ATTRS:
            ints = _ints_in(value)
            if ints is None:
                continue            # (not sizes: the op's own check refuses what it must)
            total = 1
            for d in ints:
                if d < -1 or d > MAX_ATTR_ELEMENTS:
                    raise _bad_attr(fname, op.name, name, "holds a size out of range "
                                    "(expected -1..%d)" % MAX_ATTR_ELEMENTS, value)
                if name in _SIZE_ATTRS and name not in ("paddings", "sizes") and d > 0:
                    total *= d
            if total > MAX_ATTR_ELEMENTS:
                raise _bad_attr(fname, op.name, name, "sizes a tensor of more than %d "
                                "elements" % MAX_ATTR_ELEMENTS, value)


def _written(defined, regs, fname, what):
    for r in regs:
        if _reg(r) not in defined:
            raise DataLossError("saved_model.load: %s of %s reads register %d, which is not "
                                "written before" % (what, fname, r))


def _out_regs(s, op):
    if op.multi:
        outs = _list(s.get("out"), "a step's outputs")
        return [_reg(r) for r in outs]
    return [_reg(s.get("out"))]


class _Check:
    """What a graph check needs besides the graph: the function's name, whether the file's
    format has control steps, the variables and constants the file holds, and the
    placeholder sizes a shape-generic graph's size expressions are checked at (None:
    a graph that has none)."""

    def __init__(self, fname, env, dims):
        self.fname = fname
        self.allowed = env.controls
        self.variables = env.variables
        self.constants = env.constants
        self.sym_constants = env.sym_constants
        self.dims = dims


def check_graph(g, c, depth=0):
    """Refuse graph ``g`` (and its sub-graphs) when anything in it is malformed (see the
    module docstring); ``c``: a ``_Check``."""
    fname = c.fname
    if not isinstance(g, dict):
        raise DataLossError("saved_model.load: a graph of %s is not an object" % fname)
    defined = {_reg(r) for r in _list(g.get("inputs"), "a graph's inputs")}
    consts = g.get("consts", {})
    if not isinstance(consts, dict):
        raise DataLossError("saved_model.load: the constants of a graph of %s are not an "
                            "object" % fname)
    for r, key in consts.items():
        if not (isinstance(key, str) and (key in c.constants or key in c.sym_constants)):
            raise DataLossError("saved_model.load: constants.safetensors has no constant "
                                "%.80r (a graph of %s reads it)" % (key, fname))
        defined.add(_reg(int(r)))
    for pair in _list(g.get("variables", []), "a graph's variables"):
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and
                pair[0] in c.variables):
            raise DataLossError("saved_model.load: a graph of %s reads variable %.80r, which "
                                "the SavedModel does not hold" % (fname, pair))
        defined.add(_reg(pair[1]))
    steps = _list(g.get("steps"), "a graph's steps")
    for s in steps:
        _check_step(s, c, defined, depth, OPS)
    for entry in _list(g.get("custom", []), "a graph's custom gradients"):
        if not (isinstance(entry, dict) and type(entry.get("start")) is int and
                type(entry.get("end")) is int and 0 <= entry["start"] <= entry["end"] <=
                len(steps) and isinstance(entry.get("grad"), dict)):
            raise DataLossError("saved_model.load: bad custom_gradient entry of %s %.80r"
                                % (fname, entry))
        _written(defined, _list(entry.get("ins"), "a custom_gradient's inputs"), fname,
                 "a custom_gradient")
        _written(defined, _list(entry.get("outs"), "a custom_gradient's outputs"), fname,
                 "a custom_gradient")
        for path in _list(entry.get("grad_variables"), "a custom_gradient's variables"):
            if not isinstance(path, str) or path not in c.variables:
                raise DataLossError("saved_model.load: a custom_gradient of %s reads "
                                    "variable %.80r, which the SavedModel does not hold"
                                    % (fname, path))
        check_graph(entry["grad"], c, depth + 1)
    for x in _list(g.get("outputs"), "a graph's outputs"):
        if isinstance(x, dict) and set(x) == {"reg"}:
            _written(defined, [x["reg"]], fname, "an output")
        elif isinstance(x, dict) and set(x) == {"py"}:
            decode(x["py"], c.dims)
        else:
            raise DataLossError("saved_model.load: bad output of %s %.80r" % (fname, x))
    decode(g.get("structure"), c.dims)


def _check_step(s, c, defined, depth, ops):
    fname = c.fname
    if not isinstance(s, dict):
        raise DataLossError("saved_model.load: a step of %s is not an object" % fname)
    if "assign" in s:
        if s["assign"] not in _ASSIGN_KINDS or not isinstance(s.get("variable"), str) or \
                s["variable"] not in c.variables:
            raise DataLossError("saved_model.load: bad variable write in %s (%.40r of %.80r)"
                                % (fname, s.get("assign"), s.get("variable")))
        ins = _list(s.get("ins"), "a write's inputs")
        if len(ins) != 1:
            raise DataLossError("saved_model.load: a variable write of %s reads %d values"
                                % (fname, len(ins)))
        _written(defined, ins, fname, "a variable write")
        return
    if "read" in s:
        if not isinstance(s["read"], str) or s["read"] not in c.variables:
            raise DataLossError("saved_model.load: a graph of %s reads variable %.80r, which "
                                "the SavedModel does not hold" % (fname, s["read"]))
        defined.add(_reg(s.get("out")))
        return
    if "control" in s:
        if not c.allowed:
            raise DataLossError("saved_model.load: %s has a control step, which its format "
                                "version does not have" % fname)
        if depth >= MAX_CONTROL_DEPTH:
            raise DataLossError("saved_model.load: control steps of %s nested deeper than %d"
                                % (fname, MAX_CONTROL_DEPTH))
        _, ins, graphs, outs, _, _ = _control_parts(s, fname, None)
        _written(defined, ins, fname, "a %s step" % s["control"])
        for sub in graphs:
            check_graph(sub, c, depth + 1)
        defined.update(_reg(r) for r in outs)
        return
    name = s.get("op")
    op = ops.get(name) if isinstance(name, str) else None
    if op is None:
        raise NotFoundError("saved_model: function %s uses op %.80r, which this fasteager "
                            "does not have" % (fname, name))
    ins = _list(s.get("ins"), "a step's inputs")
    if op.nin >= 0 and len(ins) != op.nin:
        raise DataLossError("saved_model.load: op %s of %s is given %d inputs (it takes %d)"
                            % (op.name, fname, len(ins), op.nin))
    _written(defined, ins, fname, "op %s" % op.name)
    if s.get("multi") is not bool(op.multi):
        raise DataLossError("saved_model.load: op %s of %s is saved with multi=%.20r (it "
                            "gives %s)" % (op.name, fname, s.get("multi"),
                                           "several outputs" if op.multi else "one output"))
    check_attrs(op, decode(s.get("attrs"), c.dims) or None, fname)
    defined.update(_out_regs(s, op))


def _control_parts(s, fname, dims):
    """(kind, ins, graphs, outs, loop_vars, maximum_iterations) of a control step, after
    checking that they fit together. ``dims``: the sizes of a shape-generic graph's
    symbols (a loop's maximum_iterations may be a size polynomial), None when checking
    the file before any call."""
    kind = s.get("control")
    if kind not in _CONTROLS:
        raise DataLossError("saved_model.load: unknown control step %.40r in %s"
                            % (kind, fname))
    ins = _list(s.get("ins"), "a control step's inputs")
    outs = _list(s.get("out"), "a control step's outputs")
    graphs = _list(s.get("graphs"), "a control step's graphs")
    if len(graphs) != 2 or not all(isinstance(g, dict) for g in graphs):
        raise DataLossError("saved_model.load: a %s step of %s does not have two graphs"
                            % (kind, fname))
    n_in = [len(_list(g.get("inputs"), "a sub-graph's inputs")) for g in graphs]
    n_out = [len(_list(g.get("outputs"), "a sub-graph's outputs")) for g in graphs]
    loop_vars = maximum = None
    if kind == "cond":
        ok = len(ins) == 1 + n_in[0] + n_in[1] and n_out[0] == n_out[1] == len(outs)
    else:
        loop_vars, maximum = s.get("loop_vars"), s.get("maximum_iterations")
        if is_symbolic(maximum):
            maximum = 0 if dims is None else evaluate(maximum["__sym__"], dims)
        if type(loop_vars) is not int or loop_vars < 1 or not (
                maximum is None or type(maximum) is int and maximum >= 0):
            raise DataLossError("saved_model.load: a while_loop step of %s has bad "
                                "loop_vars %.40r or maximum_iterations %.40r"
                                % (fname, loop_vars, maximum))
        ok = (n_in[0] >= loop_vars and n_in[1] >= loop_vars and
              len(ins) == n_in[0] + n_in[1] - loop_vars and n_out[0] == 1 and
              n_out[1] == loop_vars == len(outs))
    if not ok:
        raise DataLossError("saved_model.load: the inputs and outputs of a %s step of %s do "
                            "not match its graphs" % (kind, fname))
    return kind, ins, graphs, outs, loop_vars, maximum


def _truth(t, what, fname):
    if not isinstance(t, _core.Tensor) or t._value.size != 1:
        raise InvalidArgumentError("saved_model: the %s of function %s must be a scalar "
                                   "tensor (got %s)" % (what, fname, _described(t)))
    return bool(np.asarray(t._value).reshape(-1)[0])


def _described(x):
    if isinstance(x, _core.Tensor):
        return "shape %s" % (list(x._value.shape),)
    return type(x).__name__


def _run_control(s, vals, fname, dims, env):
    """An fe.cond (one branch runs) or fe.while_loop (the body runs while the condition
    holds, at most maximum_iterations times): each sub-graph call runs its ops through
    the tapes, so gradients flow through the branch taken and every iteration."""
    kind, ins, graphs, outs, n, maximum = _control_parts(s, fname, dims)
    args = [_read(vals, r) for r in ins]
    if kind == "cond":
        n_true = len(graphs[0]["inputs"])
        if _truth(args[0], "cond predicate", fname):
            result = run_graph(graphs[0], fname + " (true branch)", args[1:1 + n_true], env,
                               dims)
        else:
            result = run_graph(graphs[1], fname + " (false branch)", args[1 + n_true:], env,
                               dims)
    else:
        n_cond = len(graphs[0]["inputs"]) - n
        values, c_caps, b_caps = args[:n], args[n:n + n_cond], args[n + n_cond:]
        entering = [(_described(t), getattr(t, "dtype", None)) for t in values]
        iterations = 0
        while maximum is None or iterations < maximum:
            p = run_graph(graphs[0], fname + " (loop condition)", values + c_caps, env, dims)
            if not _truth(p[0], "while_loop condition", fname):
                break
            values = run_graph(graphs[1], fname + " (loop body)", values + b_caps, env, dims)
            if [(_described(t), getattr(t, "dtype", None)) for t in values] != entering:
                raise InvalidArgumentError(
                    "saved_model: the while_loop body of function %s changed its loop "
                    "variables' shapes or dtypes (from %s to %s)"
                    % (fname, [e[0] for e in entering], [_described(t) for t in values]))
            iterations += 1
        result = values
    for r, t in zip(outs, result):
        if not isinstance(t, _core.Tensor):
            raise DataLossError("saved_model.load: a %s step of %s gives a Python value"
                                % (kind, fname))
        vals[_reg(r)] = t


def _record_custom(c, vals, var_regs, fname, env, dims):
    """The block of a custom_gradient call has run: tapes reach its outputs only through
    its saved gradient graph, as through the original grad_fn."""
    xs = [_read(vals, r) for r in _list(c["ins"], "a custom_gradient's inputs")]
    var_paths = _list(c["grad_variables"], "a custom_gradient's variables")
    var_tensors = [_read(vals, var_regs[p]) if p in var_regs else env.variable(p).read_value()
                   for p in var_paths]
    outs = []
    for r in _list(c["outs"], "a custom_gradient's outputs"):
        fresh = _core.wrap(_read(vals, r)._value)
        vals[r] = fresh
        outs.append(fresh)
    grad_graph = c["grad"]

    def backward(gs):
        dys = [g if g is not None else _core.wrap(np.zeros_like(o._value))
               for g, o in zip(gs, outs) if _is_float(o)]
        grads = run_graph(grad_graph, fname + " (custom gradient)", xs + dys, env, dims)
        n_float = sum(1 for x in xs if _is_float(x))
        if len(grads) != n_float + len(var_tensors):
            raise DataLossError("saved_model.load: a custom gradient of %s gives %d gradients "
                                "(expected %d)" % (fname, len(grads),
                                                   n_float + len(var_tensors)))
        it = iter(grads)
        return [next(it) if _is_float(x) else None for x in xs] + list(it)
    _core.record_custom(tuple(xs) + tuple(var_tensors), tuple(outs), backward)


@contextlib.contextmanager
def _malformed(fname):
    """Python errors from reading a malformed graph become DataLossError."""
    try:
        yield
    except OpError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as e:
        raise DataLossError("saved_model.load: a graph of %s is malformed (%s: %s)"
                            % (fname, type(e).__name__, e)) from None


def _fill(template, leaves):
    if isinstance(template, dict) and set(template) == {"leaf"}:
        i = template["leaf"]
        if type(i) is not int or not 0 <= i < len(leaves):
            raise DataLossError("saved_model.load: bad output index %.40r" % (i,))
        return leaves[i]
    if isinstance(template, dict) and set(template) == {"composite", "form", "parts"} and \
            template["composite"] == "extension" and isinstance(template["parts"], list):
        return from_saved_form(template["form"], [_fill(p, leaves) for p in template["parts"]],
                               "saved_model.load")
    if isinstance(template, dict) and set(template) == {"composite", "parts"}:
        parts = template["parts"]
        if not isinstance(parts, list) or not all(
                isinstance(p, dict) and set(p) == {"leaf"} for p in parts):
            raise DataLossError("saved_model.load: bad composite output %.80r" % (template,))
        parts = [_fill(p, leaves) for p in parts]
        if template["composite"] == "ragged" and len(parts) >= 2:
            return RaggedTensor.from_nested_row_splits(parts[0], parts[1:], validate=False)
        if template["composite"] == "sparse" and len(parts) == 3:
            return SparseTensor(*parts)
        raise DataLossError("saved_model.load: bad composite output %.80r" % (template,))
    if isinstance(template, (list, tuple)):
        return type(template)(_fill(t, leaves) for t in template)
    if isinstance(template, dict):
        return {k: _fill(v, leaves) for k, v in template.items()}
    return template


class RestoredFunction:
    """A saved ``fe.function``: runs the saved graph matching the call, op by op through
    the tapes (so it is differentiable). A shape-generic graph (saved for an
    input_signature with None dimensions) serves every size of them."""

    def __init__(self, name, spec, env):
        self._name = name
        sig = spec.get("input_signature")
        self.input_signature = None
        if sig is not None:
            sig = decode(sig)
            if not isinstance(sig, (list, tuple)) or not all(
                    isinstance(s, TensorSpec) or component_specs(s) is not None
                    for s in nest.flatten(sig)):
                raise DataLossError("saved_model.load: the input_signature of %s is not a "
                                    "list of TensorSpecs (or RaggedTensorSpecs, "
                                    "SparseTensorSpecs)" % name)
            self.input_signature = tuple(sig)
        self._keyer = Function(lambda *a, **k: None, input_signature=self.input_signature,
                               name=name)
        self._graphs = {}
        for g in _list(spec.get("traces", []), "the traces of " + name):
            if not isinstance(g, dict) or not isinstance(g.get("key"), str):
                raise DataLossError("saved_model.load: a trace of %s has no key" % name)
            self._graphs[g["key"]] = g
        self._generic = spec.get("generic")
        self._env = env
        if self._generic is not None:
            if not isinstance(self._generic, dict) or "graph" not in self._generic:
                raise DataLossError("saved_model.load: bad shape-generic graph of %s" % name)
            self._symbols = self._check_symbols(self._generic.get("symbols"))
            self._used = _generic.used_symbols(self._generic["graph"])
            self._used |= _generic.used_symbols(self._generic.get("sym_constants", {}))
            sym = self._generic.get("sym_constants") or {}
            if not isinstance(sym, dict):
                raise DataLossError("saved_model.load: bad constants of %s" % name)
            self._env = _Environment(env.variables, env.constants, sym, env.controls)
        # every graph is checked now, before any call (a shape-generic one at placeholder
        # sizes of its symbols; its attributes are checked again at each call's sizes)
        for g in self._graphs.values():
            with _malformed(name):
                check_graph(g, _Check(name, env, None))
        if self._generic is not None:
            placeholder = [_generic.BASE] * len(self._symbols)
            with _malformed(name):
                check_graph(self._generic["graph"], _Check(name, self._env, placeholder))

    def _check_symbols(self, symbols):
        n = sum(len(component_specs(s)) for s in nest.flatten(self.input_signature)) \
            if self.input_signature else 0     # (the input tensors: a composite's parts)
        ok = isinstance(symbols, list) and all(
            isinstance(sym, list) and all(
                isinstance(p, list) and len(p) == 2 and type(p[0]) is int and
                type(p[1]) is int and 0 <= p[0] < n and p[1] >= 0 for p in sym)
            for sym in symbols)
        if not ok:
            raise DataLossError("saved_model.load: bad size symbols of %s" % self._name)
        return [[tuple(p) for p in sym] for sym in symbols]

    def __repr__(self):
        return "<restored fe.function %s (%s)>" % (
            self._name, "shape-generic" if self._generic is not None
            else "%d traces" % len(self._graphs))

    def _flat_call(self, args, kwargs):
        """(graph, input tensors, sizes of the symbols) for a call."""
        _, _, _, key, tensors = self._keyer._canonicalize(args, kwargs)
        if self._generic is not None:
            for i, (leaf, axis) in enumerate(p for sym in self._symbols for p in sym):
                if leaf >= len(tensors) or axis >= tensors[leaf]._value.ndim:
                    raise DataLossError("saved_model.load: a size symbol of %s names input %d "
                                        "axis %d, which the call does not have"
                                        % (self._name, leaf, axis))
            dims = _generic.bind(self._symbols, self._used, tensors, self._name)
            return self._generic["graph"], tensors, dims
        g = self._graphs.get(key_text(key))
        if g is None:
            raise InvalidArgumentError(
                "saved_model: function %s was saved with %d traced signatures and this call "
                "matches none (same shapes, dtypes and Python argument values are needed; "
                "trace a signature before saving by calling the function or giving it an "
                "input_signature)" % (self._name, len(self._graphs)))
        return g, tensors, None

    def __call__(self, *args, **kwargs):
        g, tensors, dims = self._flat_call(args, kwargs)
        leaves = run_graph(g, self._name, tensors, self._env, dims)
        with _malformed(self._name):
            return _fill(decode(g["structure"], dims), leaves)


class RestoredSignature:
    """A saved signature: called with its inputs by name (or in order), returns a dict of
    named outputs, as TensorFlow's loaded signatures do."""

    def __init__(self, name, spec, env):
        if not isinstance(spec, dict):
            raise DataLossError("saved_model.load: bad signature %.80r" % (name,))
        self._name = name
        self._function = RestoredFunction("signature " + name, spec, env)
        names = spec.get("input_names")
        outputs = spec.get("output_names")
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names) and
                isinstance(outputs, list) and all(isinstance(n, str) for n in outputs)):
            raise DataLossError("saved_model.load: signature %s has bad input or output "
                                "names" % name)
        self._input_names = names
        self._output_names = outputs
        specs = nest.flatten(self._function.input_signature or ())
        self.structured_input_signature = ((), {n: s for n, s in zip(names, specs)})
        out_specs = decode(spec.get("output_specs", [None] * len(outputs)))
        if not isinstance(out_specs, list) or len(out_specs) != len(outputs):
            raise DataLossError("saved_model.load: signature %s has bad output specs" % name)
        self.structured_outputs = dict(zip(outputs, out_specs))

    def __repr__(self):
        return "<restored signature %s(%s) -> %s>" % (self._name, ", ".join(self._input_names),
                                                      ", ".join(self._output_names))

    def __call__(self, *args, **kwargs):
        names = self._input_names
        if len(args) > len(names):
            raise TypeError("signature %s: expected at most %d positional inputs (got %d)"
                            % (self._name, len(names), len(args)))
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError("signature %s: unexpected input %r (expected %s)"
                                % (self._name, k, ", ".join(names)))
            if k in values:
                raise TypeError("signature %s: input %r given twice" % (self._name, k))
            values[k] = v
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError("signature %s: missing inputs %s" % (self._name,
                                                                 ", ".join(missing)))
        fn = self._function
        # a signature's input_signature is flat: one TensorSpec per named input
        g, tensors, dims = fn._flat_call(tuple(values[n] for n in names), {})
        leaves = run_graph(g, fn._name, tensors, fn._env, dims)
        tensors_out = [x for x in leaves if isinstance(x, _core.Tensor)]
        if len(tensors_out) != len(self._output_names):
            raise DataLossError("saved_model.load: signature %s gives %d outputs, it names %d"
                                % (self._name, len(tensors_out), len(self._output_names)))
        return dict(zip(self._output_names, tensors_out))


class SignatureMap(dict):
    """``loaded.signatures``: signature name -> callable signature."""

    def __repr__(self):
        return "_SignatureMap(%s)" % ", ".join("%r" % k for k in self)
