"""``fe.saved_model.save`` / ``load``: a Module's variables and traced functions in a
directory, reloaded without its Python class.

This is fasteager's own format, not TensorFlow's SavedModel protobuf (TensorFlow cannot
read it, nor fasteager TensorFlow's)::

    <dir>/fasteager_saved_model.json   format, object tree, functions (op steps as JSON)
    <dir>/variables.safetensors        the variables (a fasteager checkpoint, by path)
    <dir>/constants.safetensors        the constants the traced graphs captured

What is saved: every ``fe.function`` reachable as an attribute of the root or of one of its
sub-modules (methods included), with each trace it holds (a function with an
``input_signature`` that was never called is traced for it first). A trace is a list of
fasteager ops by name with their attributes; loading looks the ops up in the op table, so
a loaded function runs the same kernels and, run through the tapes, is differentiable.

Limits (each raises a clear error at save time, never a silent loss): a trace that
assigns variables, draws random numbers, calls ``custom_gradient`` or ``py_function``, or
turned a tensor into Python data cannot be saved. A loaded function accepts exactly the
signatures that were traced (the same shapes and dtypes, and the same values of Python
arguments): TensorFlow's symbolic shapes do not exist here, and a traced graph may have
shape-dependent attributes baked in. Keras models are saved with ``model.save``, not here.
"""
import json
import os

import numpy as np

from .. import _core, nest
from ..errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
from ..function import KIND_OP, Function
from ..module import Module
from ..train import _safetensors
from ..train import checkpoint as _ckpt
from ..variables import Variable

__all__ = ["load", "save"]

FORMAT = "fasteager-saved-model-1"
GRAPH_FILE = "fasteager_saved_model.json"
VARIABLES_FILE = "variables.safetensors"
CONSTANTS_FILE = "constants.safetensors"


# ---- JSON encoding of keys, attributes and Python values -----------------------------------

def _encode(value, what):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not np.isfinite(value):
            return {"__float__": repr(value)}
        return value
    if isinstance(value, np.generic):
        return {"__np__": value.dtype.str, "value": _encode(value.item(), what)}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, what) for v in value]}
    if isinstance(value, list):
        return [_encode(v, what) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[_encode(k, what), _encode(v, what)] for k, v in value.items()]}
    if isinstance(value, np.dtype):
        return {"__npdtype__": value.str}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"__npdtype__": np.dtype(value).str}
    if type(value).__name__ == "DType" and hasattr(value, "as_numpy_dtype"):
        return {"__dtype__": value.name}
    if isinstance(value, slice):
        return {"__slice__": [_encode(value.start, what), _encode(value.stop, what),
                              _encode(value.step, what)]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return {"__array__": value.tolist(), "dtype": value.dtype.str}
    raise UnimplementedError("saved_model.save: %s holds a %s, which cannot be saved "
                             "(expected numbers, strings, tuples, lists, dicts, dtypes)"
                             % (what, type(value).__name__))


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__tuple__" in value:
        return tuple(_decode(v) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_decode(k): _decode(v) for k, v in value["__dict__"]}
    if "__float__" in value:
        return float(value["__float__"])
    if "__np__" in value:
        return np.dtype(value["__np__"]).type(_decode(value["value"]))
    if "__npdtype__" in value:
        return np.dtype(value["__npdtype__"])
    if "__dtype__" in value:
        from ..dtypes import as_dtype
        return as_dtype(value["__dtype__"])
    if "__slice__" in value:
        return slice(*[_decode(v) for v in value["__slice__"]])
    if "__ellipsis__" in value:
        return Ellipsis
    if "__array__" in value:
        return np.asarray(value["__array__"], dtype=np.dtype(value["dtype"]))
    raise InvalidArgumentError("saved_model.load: unknown encoded value %.80r" % (value,))


def _key_text(key):
    return json.dumps(_encode(key, "a call signature"), sort_keys=True)


# ---- save -----------------------------------------------------------------------------------

def _functions_of(obj):
    """(attribute name, bound fe.function) of ``obj``: methods and instance attributes."""
    found = {}
    for cls in reversed(type(obj).__mro__):
        for name, value in vars(cls).items():
            if isinstance(value, Function):
                found[name] = getattr(obj, name)
    for name, value in vars(obj).items():
        if isinstance(value, Function):
            found[name] = value
    return sorted(found.items())


def _traces(fn, name):
    if fn.input_signature is not None and not fn._cache:
        fn.get_concrete_function()
    # a function never called and without a signature has no graph: it is saved with no
    # traces (as in TensorFlow), and calling it after loading raises
    return list(fn._cache.items())


def _graph(cf, fname, var_paths, constants, prefix):
    """The JSON description of one ConcreteFunction (constants go to ``constants``)."""
    if cf._eager_only:
        raise UnimplementedError("saved_model.save: fe.function %s cannot be saved: its trace "
                                 "used %s, so it runs eagerly" % (fname, cf._eager_only))
    if cf._custom:
        raise UnimplementedError("saved_model.save: fe.function %s calls custom_gradient or "
                                 "py_function, whose Python code cannot be saved" % fname)
    steps = []
    for s in cf._all_steps:
        if s.kind != KIND_OP or s.op is None:
            raise UnimplementedError("saved_model.save: fe.function %s has a %s step (variable "
                                     "assignments, prints and device copies cannot be saved)"
                                     % (fname, s.name))
        steps.append({"op": s.op.name, "ins": list(s.ins),
                      "out": list(s.out) if s.multi else s.out, "multi": bool(s.multi),
                      "attrs": _encode(s.attrs or {}, "op %s of %s" % (s.op.name, fname))})
    consts = {}
    for r, arr in cf._consts.items():
        key = "%s/%d" % (prefix, r)
        constants[key] = np.asarray(arr, order="C")
        consts[str(r)] = key
    variables = []
    for v, r in cf._var_inputs:
        path = var_paths.get(id(v))
        if path is None:
            raise UnimplementedError("saved_model.save: fe.function %s reads variable %r, which "
                                     "is not reachable from the saved object" % (fname, v.name))
        variables.append([path, r])
    leaves = [{"reg": x} if type(x) is int else
              {"py": _encode(x.value, "an output of " + fname)} for x in cf._out_leaves]
    it = iter(range(len(cf._out_leaves)))
    template = nest.pack_sequence_as(cf._structure, [{"leaf": next(it)}
                                                     for _ in cf._out_leaves]) \
        if nest.is_nested(cf._structure) else {"leaf": 0}
    return {"inputs": list(cf._inputs), "variables": variables, "consts": consts,
            "steps": steps, "outputs": leaves,
            "structure": _encode(template, "the outputs of " + fname)}


def _module_tree(root):
    """Path -> module, for the root ("") and every sub-module reachable by attributes."""
    tree = {"": root}
    if isinstance(root, Module):
        for path, sub in root._flatten(predicate=lambda x: isinstance(x, Module),
                                       with_path=True):
            tree.setdefault("/".join(str(p) for p in path), sub)
    return tree


def save(obj, export_dir, signatures=None, options=None):
    """Save ``obj`` (a ``fe.Module`` or any trackable object) with its ``fe.function``
    traces to the directory ``export_dir`` (see the module docstring)."""
    if not _ckpt._is_trackable(obj):
        raise InvalidArgumentError("saved_model.save: expected a fe.Module or another "
                                   "trackable object (got %s)" % type(obj).__name__)
    directory = os.fspath(export_dir)
    variables, _, _ = _ckpt._walk({"root": obj})
    var_paths = {id(v): p for p, v in variables.items()}
    constants = {}
    functions = {}
    for mpath, module in _module_tree(obj).items():
        for name, fn in _functions_of(module):
            attr = (mpath + "/" if mpath else "") + name
            traces = []
            for i, (key, cf) in enumerate(_traces(fn, attr)):
                g = _graph(cf, attr, var_paths, constants, "%s/%d" % (attr, i))
                g["key"] = _key_text(key)
                traces.append(g)
            functions[attr] = {
                "input_signature": None if fn.input_signature is None else _encode(
                    [[list(s.shape) if s.shape is not None else None, s.dtype.name]
                     for s in nest.flatten(fn.input_signature)], "an input_signature"),
                "traces": traces}
    os.makedirs(directory, exist_ok=True)
    _ckpt.write_file(os.path.join(directory, VARIABLES_FILE), {"root": obj})
    _safetensors.save_file(constants, os.path.join(directory, CONSTANTS_FILE),
                           metadata={"format": FORMAT})
    description = {"format": FORMAT, "variables": sorted(variables),
                   "trainable": {p: bool(v.trainable) for p, v in variables.items()},
                   "functions": functions}
    from .. import _atomic
    _atomic.atomic_write(os.path.join(directory, GRAPH_FILE),
                         json.dumps(description, sort_keys=True, indent=1).encode())


# ---- load -----------------------------------------------------------------------------------

class _Restored(Module):
    """An object rebuilt by ``saved_model.load``: its variables, sub-objects and functions
    as attributes, without the class that saved it."""

    def __call__(self, *args, **kwargs):
        fn = self.__dict__.get("__call__")
        if fn is None:
            raise TypeError("saved_model.load: the saved object has no __call__ function")
        return fn(*args, **kwargs)


class _RestoredFunction:
    """A saved ``fe.function``: runs the saved graph matching the call's signature, op by
    op through the tapes (so it is differentiable)."""

    def __init__(self, name, spec, variables, constants):
        self._name = name
        sig = spec["input_signature"]
        if sig is not None:
            from ..data.structure import TensorSpec
            sig = [TensorSpec(shape, dtype) for shape, dtype in _decode(sig)]
        self._keyer = Function(lambda *a, **k: None, input_signature=sig, name=name)
        self._graphs = {g["key"]: g for g in spec["traces"]}
        self._variables = variables
        self._constants = constants

    def __repr__(self):
        return "<restored fe.function %s (%d traces)>" % (self._name, len(self._graphs))

    def __call__(self, *args, **kwargs):
        from ..ops.registry import OPS
        _, _, _, key, tensors = self._keyer._canonicalize(args, kwargs)
        g = self._graphs.get(_key_text(key))
        if g is None:
            raise InvalidArgumentError(
                "saved_model: function %s was saved with %d traced signatures and this call "
                "matches none (same shapes, dtypes and Python argument values are needed; "
                "trace a signature before saving by calling the function or giving it an "
                "input_signature)" % (self._name, len(self._graphs)))
        vals = {}
        for r, key_ in g["consts"].items():
            vals[int(r)] = _core.wrap(self._constants[key_])
        for r, t in zip(g["inputs"], tensors):
            vals[r] = t
        for path, r in g["variables"]:
            vals[r] = self._variables[path].read_value()
        for s in g["steps"]:
            op = OPS.get(s["op"])
            if op is None:
                raise NotFoundError("saved_model: function %s uses op %r, which this fasteager "
                                    "does not have" % (self._name, s["op"]))
            attrs = _decode(s["attrs"]) or None
            out = _core.execute(op, tuple(vals[r] for r in s["ins"]), attrs)
            if s["multi"]:
                for r, t in zip(s["out"], out):
                    vals[r] = t
            else:
                vals[s["out"]] = out
        leaves = [vals[x["reg"]] if "reg" in x else _decode(x["py"]) for x in g["outputs"]]

        def fill(template):
            if isinstance(template, dict) and set(template) == {"leaf"}:
                return leaves[template["leaf"]]
            if isinstance(template, (list, tuple)):
                return type(template)(fill(t) for t in template)
            if isinstance(template, dict):
                return {k: fill(v) for k, v in template.items()}
            return template
        return fill(_decode(g["structure"]))


def _child(obj, name):
    child = obj.__dict__.get(name)
    if child is None:
        child = _Restored(name=name if name.isidentifier() else None)
        object.__setattr__(obj, name, child)
    return child


def load(export_dir, tags=None, options=None):
    """Load what ``save`` wrote: an object with the saved variables, sub-objects and
    functions as attributes (not an instance of the original class)."""
    directory = os.fspath(export_dir)
    file = os.path.join(directory, GRAPH_FILE)
    try:
        with open(file, "rb") as f:
            description = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        raise NotFoundError("saved_model.load: no fasteager SavedModel in %r (expected the "
                            "file %s)" % (directory, GRAPH_FILE)) from None
    except ValueError as e:
        raise DataLossError("saved_model.load: %s is not valid JSON (%s)"
                                  % (file, e)) from None
    if not isinstance(description, dict) or description.get("format") != FORMAT:
        raise DataLossError("saved_model.load: %s is not a fasteager SavedModel "
                                  "(expected format %r)" % (file, FORMAT))
    _, tensors, metadata = _ckpt._read(os.path.join(directory, VARIABLES_FILE),
                                       "saved_model.load", with_metadata=True)
    names = json.loads(metadata.get("object_graph") or "{}")
    constants, _ = _safetensors.load_file(os.path.join(directory, CONSTANTS_FILE))
    root = _Restored(name="root")
    variables = {}
    for path in description["variables"]:
        parts = path.split("/")[1:]             # below "root"
        obj = root
        for part in parts[:-1]:
            obj = _child(obj, part)
        if path not in tensors:
            raise DataLossError("saved_model.load: %s has no value for variable %r"
                                % (VARIABLES_FILE, path))
        var = Variable(tensors[path], trainable=description["trainable"].get(path, True),
                       name=names.get(path, {}).get("name") or parts[-1])
        object.__setattr__(obj, parts[-1], var)
        variables[path] = var
    for attr, spec in description["functions"].items():
        parts = attr.split("/")
        obj = root
        for part in parts[:-1]:
            obj = _child(obj, part)
        object.__setattr__(obj, parts[-1], _RestoredFunction(attr, spec, variables, constants))
    return root
