"""``fe.saved_model.save`` / ``load``: a Module's (or Keras model's) variables, traced
functions and signatures in a directory, reloaded without its Python class.

This is fasteager's own format, not TensorFlow's SavedModel protobuf (TensorFlow cannot
read it, nor fasteager TensorFlow's)::

    <dir>/fasteager_saved_model.json   format, object tree, functions, signatures (JSON)
    <dir>/variables.safetensors        the variables (a fasteager checkpoint, by path)
    <dir>/constants.safetensors        the constants the traced graphs captured

What is saved: every ``fe.function`` reachable as an attribute of the root or of one of its
sub-modules (methods included); the ``signatures`` (a function with an input_signature or
a concrete function, or a dict of them; a Keras model gets ``serving_default`` and
``__call__``, its inference call, see ``_keras``); ``custom_gradient`` calls with their
gradient graphs (``_describe``). A function whose input_signature has None dimensions is
saved as one shape-generic graph serving every size of them (``_generic``); others keep
each trace they hold (the same shapes are then needed to call them).

A graph is a list of fasteager ops by name with their attributes; loading looks the ops
up in the op table, so a loaded function runs the same kernels and, run through the
tapes, is differentiable (``_restored``).

Variable writes (``assign``, ``assign_add``, ``assign_sub``) are saved by the variable's
path. ``fe.cond`` and ``fe.while_loop`` steps are saved with their two sub-graphs (format
3; files of versions 1 and 2 still load): a loaded call takes the branch, or runs the
loop, that its values say, through the tapes. Limits (each raises a clear error at save
time, never a silent loss): a trace that prints, draws random numbers, calls
``py_function``, runs an optimizer update, calls ``next()`` on an iterator, takes a
gradient across control flow inside the function or turned a tensor into Python data
cannot be saved; nor can a None dimension that an attribute depends on in a way a
multilinear polynomial of the sizes does not express.
"""
import json
import os

from .. import _core
from .._src import nest
from .._src.io import atomic as _atomic
from .._src.composite.structure import TensorSpec
from ..errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
from .._src.tracing.concrete import ConcreteFunction
from .._src.tracing.function import Function
from .._src.state.module import Module
from ..train import _safetensors
from ..train import checkpoint as _ckpt
from .._src.state.variables import Variable
from . import _generic
from ._describe import describe
from ._encoding import encode, key_text
from ._restored import RestoredFunction, RestoredSignature, SignatureMap, _Environment, _Restored

__all__ = ["DEFAULT_SERVING_SIGNATURE_DEF_KEY", "LoadOptions", "SaveOptions", "load", "save"]

FORMAT = "fasteager-saved-model-3"
# version 1 had no signatures nor shape-generic graphs, version 2 no control steps
_READS = ("fasteager-saved-model-1", "fasteager-saved-model-2", FORMAT)
GRAPH_FILE = "fasteager_saved_model.json"
VARIABLES_FILE = "variables.safetensors"
CONSTANTS_FILE = "constants.safetensors"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"


class SaveOptions:
    """``tf.saved_model.SaveOptions``. fasteager reads ``experimental_custom_gradients``
    (True: the gradient graphs of custom_gradient calls are saved and used after loading;
    False: the forward ops alone, so loaded gradients are the ops' own); the other options
    are accepted for TensorFlow's code and change nothing here."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None,
                 experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = bool(experimental_custom_gradients)
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver


class LoadOptions:
    """``tf.saved_model.LoadOptions`` (accepted; nothing in it changes a fasteager load)."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint


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


def _default_signature(obj):
    """TensorFlow's choice of a default ``serving_default`` for an object saved without
    ``signatures``: its ``_default_save_signature`` function, else its one function with
    an ``input_signature`` that returns tensors (methods and attributes of the root
    only; a function returning nothing cannot be a signature), else none."""
    with_signature = []
    for name, fn in _functions_of(obj):
        if name == "_default_save_signature":
            return fn
        if fn.input_signature is not None and all(
                type(spec) is TensorSpec for spec in nest.flatten(fn.input_signature)):
            # TF's test: plain tensors in, plain tensors out (no composite, no Python
            # value, not nothing)
            cf = fn.get_concrete_function()
            outputs = nest.flatten(cf._structure)
            if outputs and all(isinstance(o, _core.Tensor) for o in outputs) and \
                    all(type(x) is int for x in cf._out_leaves):
                with_signature.append(fn)
    return with_signature[0] if len(with_signature) == 1 else None


def _module_tree(root):
    """Path -> module, for the root ("") and every sub-module reachable by attributes."""
    tree = {"": root}
    if isinstance(root, Module):
        for path, sub in root._flatten(predicate=lambda x: isinstance(x, Module),
                                       with_path=True):
            tree.setdefault("/".join(str(p) for p in path), sub)
    return tree


class _Plan:
    """How one function is saved: its exact traces, or the traces a shape-generic graph is
    fitted from (made before the variables are listed: a first trace may create some).

    ``template``: the TensorSpec arguments to save it for (default: its input_signature);
    ``exact``: the concrete function to save when they have no None dimension (default:
    every trace the function holds)."""

    def __init__(self, fn, name, template=None, exact=None):
        self.fn = fn
        self.name = name
        self.exact = []          # (key, ConcreteFunction)
        self.symbols = self.specs = None
        self.corners = self.verify = None
        self.input_signature = fn.input_signature if fn is not None else None
        if template is None and fn is not None and fn.input_signature is None:
            # traced only by get_concrete_function(specs), the same specs each time: saved
            # as if they were its input_signature (shape-generic over their None
            # dimensions, ragged and sparse ones included), as TensorFlow serves them
            asked = {_asked_key(cf) for cf in fn._cache.values()}
            cf = next(iter(fn._cache.values()), None)
            if len(asked) == 1 and None not in asked and not cf._asked_specs[2]:
                template = _generic.Template(fn, tuple(cf._asked_specs[1]), {})
                if template.symbols:
                    self.input_signature = tuple(cf._asked_specs[1])
                else:
                    template = None      # fully defined: its exact trace is saved
        if template is None and fn is not None and fn.input_signature is not None:
            template = _generic.Template(fn, fn.input_signature, {})
        if template is not None and template.symbols:
            self._trace_generic(template)
        elif exact is not None:
            self.exact = [(None, exact)]
        else:
            if fn.input_signature is not None and not fn._cache:
                fn.get_concrete_function()
            # a function never called and without a signature has no graph: it is saved
            # with no traces (as in TensorFlow), and calling it after loading raises
            self.exact = list(fn._cache.items())

    def _trace_generic(self, template):
        symbols = template.symbols
        k = len(symbols)
        if k > _generic.MAX_SYMBOLS:
            raise UnimplementedError(
                "saved_model.save: fe.function %s has %d independent None dimensions in its "
                "input_signature (at most %d can be saved shape-generic)"
                % (self.name, k, _generic.MAX_SYMBOLS))
        self.symbols, self.specs = symbols, template.specs
        try:
            self.corners = [template.trace(sizes) for sizes in _generic.corner_sizes(k)]
            self.verify = template.trace(_generic.verify_sizes(k))
        except Exception as e:
            raise UnimplementedError(
                "saved_model.save: fe.function %s cannot be saved for every size of its None "
                "dimensions: tracing it at sizes %s to %s of them failed (%s: %s); give its "
                "input_signature fully defined shapes"
                % (self.name, _generic.BASE, _generic.VERIFY[k - 1], type(e).__name__, e)
            ) from e

    @property
    def first(self):
        """A trace of the function (its input names and outputs are the same in all)."""
        return self.exact[0][1] if self.exact else self.corners[0]

    def describe(self, var_paths, constants, prefix, custom_gradients):
        if self.symbols is None:
            traces = []
            for i, (key, cf) in enumerate(self.exact):
                g, consts = describe(cf, self.name, var_paths, "%s/%d" % (prefix, i),
                                     custom_gradients)
                g["key"] = key_text(key)
                constants.update(consts)
                traces.append(g)
            return {"traces": traces}
        pairs = [describe(cf, self.name, var_paths, prefix + "/generic", custom_gradients)
                 for cf in self.corners + [self.verify]]
        graph, symbolic, fixed = _generic.fit(
            self.name, [g for g, _ in pairs[:-1]], [c for _, c in pairs[:-1]],
            pairs[-1][0], pairs[-1][1], len(self.symbols))
        constants.update(fixed)
        return {"traces": [], "generic": {
            "graph": graph, "sym_constants": symbolic,
            "symbols": [[list(p) for p in sym] for sym in self.symbols]}}


def _asked_key(cf):
    """The specs ``cf`` was asked for by get_concrete_function, as text (None: traced by a
    call, or asked with tensors only)."""
    asked = cf._asked_specs
    if asked is None or asked[0]() is None:
        return None
    return repr((asked[1], sorted(asked[2].items())))


def _signature_spec(sig, name):
    """The encoded input_signature of a function (its TensorSpec structure)."""
    return None if sig is None else encode(list(sig), "the input_signature of " + name)


def _output_names(cf, name):
    """TensorFlow's names of a signature's outputs: a dict's keys, else output_0, ..."""
    structure = cf._structure
    if any(type(x) is not int for x in cf._out_leaves):
        raise InvalidArgumentError("saved_model.save: signature %s returns Python values "
                                   "(a signature's outputs must be tensors)" % name)
    if isinstance(structure, dict):
        keys = sorted(structure)
        if not all(isinstance(k, str) for k in keys) or \
                len(keys) != len(cf._out_leaves):
            raise InvalidArgumentError("saved_model.save: signature %s returns a dict that is "
                                       "not flat with string keys" % name)
        return keys
    return ["output_%d" % i for i in range(len(cf._out_leaves))]


def _unique(names):
    seen, out = set(), []
    for n in names:
        m, i = n, 1
        while m in seen:
            m, i = "%s_%d" % (n, i), i + 1
        seen.add(m)
        out.append(m)
    return out


class _SignaturePlan:
    """One signature: a concrete function, or a function with an input_signature. A
    concrete function made from TensorSpecs with None dimensions is saved shape-generic,
    as TensorFlow's serves every size of them."""

    def __init__(self, name, value, plan=None):
        self.name = name
        if plan is not None:
            self.plan = plan
        elif isinstance(value, ConcreteFunction):
            asked = value._asked_specs
            fn = asked[0]() if asked is not None else None
            template = _generic.Template(fn, asked[1], asked[2]) if fn is not None else None
            self.plan = _Plan(fn, "signature " + name, template, exact=value)
        elif isinstance(value, Function):
            self.plan = _Plan(value, "signature " + name)
        else:
            raise InvalidArgumentError("saved_model.save: signature %r must be an fe.function "
                                       "with an input_signature or a concrete function (got %s)"
                                       % (name, type(value).__name__))
        if isinstance(value, Function) and value.input_signature is None:
            raise InvalidArgumentError(
                "saved_model.save: signature %r is an fe.function without an "
                "input_signature (give one, or pass fn.get_concrete_function(...))" % name)
        if self.plan.symbols is None and not self.plan.exact:
            raise InvalidArgumentError("saved_model.save: signature %r has no trace" % name)

    def describe(self, var_paths, constants, custom_gradients):
        plan = self.plan
        cf = plan.first
        prefix = "signatures/" + self.name
        if plan.symbols is not None:
            specs = plan.specs
            spec = plan.describe(var_paths, constants, prefix, custom_gradients)
        else:
            cf = plan.exact[0][1]
            shapes = [tuple(cf._reg_meta[r][0]) for r in cf._inputs]
            specs = [TensorSpec(shape, cf._reg_meta[r][1])
                     for shape, r in zip(shapes, cf._inputs)]
            g, consts = describe(cf, "signature " + self.name, var_paths, prefix,
                                 custom_gradients)
            g["key"] = key_text(("signature", tuple(shapes)))
            constants.update(consts)
            spec = {"traces": [g]}
        # a signature is called with flat named tensors: its input_signature is flat
        spec["input_signature"] = _signature_spec(specs, self.name)
        spec["input_names"] = _unique(list(cf._input_names) or
                                      ["args_%d" % i for i in range(len(cf._inputs))])
        spec["output_names"] = _output_names(cf, self.name)
        spec["output_specs"] = encode(self._output_specs(cf, spec["output_names"]), "outputs")
        return spec

    def _output_specs(self, cf, names):
        """TensorSpecs of the outputs (a dimension that changes with the inputs is None)."""
        others = [self.plan.verify] if self.plan.symbols is not None else []
        specs = []
        for i, (r, name) in enumerate(zip(cf._out_regs, names)):
            shape, dtype = cf._reg_meta[r]
            shape = list(shape)
            for other in others:
                o_shape = other._reg_meta[other._out_regs[i]][0]
                shape = [d if len(o_shape) == len(shape) and o_shape[j] == d else None
                         for j, d in enumerate(shape)]
            specs.append(TensorSpec(shape, dtype, name))
        return specs


def _signatures_of(signatures):
    if signatures is None:
        return {}
    if isinstance(signatures, (Function, ConcreteFunction)):
        return {DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    if not isinstance(signatures, dict):
        raise InvalidArgumentError("saved_model.save: signatures must be a function, a concrete "
                                   "function or a dict of them (got %s)"
                                   % type(signatures).__name__)
    for key in signatures:
        if not isinstance(key, str):
            raise InvalidArgumentError("saved_model.save: signature names must be strings "
                                       "(got %r)" % (key,))
    return dict(signatures)


# Model classes of the layers above (Keras registers its Model at import, in
# keras/_saved_model.py): such an object is saved with its inference call as __call__ and
# the serving_default signature, and its weight lists.
_model_types = []   # (class, serving_function(obj, name), variable_lists(obj, var_paths))


def register_model_type(cls, serving_function, variable_lists):
    """Save instances of ``cls`` as models: ``serving_function(obj, name)`` is the
    ``fe.function`` saved as ``__call__`` and as the default signature;
    ``variable_lists(obj, var_paths)`` gives its weight lists as checkpoint paths."""
    _model_types.append((cls, serving_function, variable_lists))


def _model_type_of(obj):
    """(serving_function, variable_lists) of a registered model class of ``obj``, or None."""
    for cls, serving_function, variable_lists in _model_types:
        if isinstance(obj, cls):
            return serving_function, variable_lists
    return None


def save(obj, export_dir, signatures=None, options=None, _root_functions=None):
    """Save ``obj`` (a ``fe.Module``, a Keras model, or any trackable object) with its
    ``fe.function`` traces and ``signatures`` to the directory ``export_dir`` (see the
    module docstring)."""
    if not _ckpt._is_trackable(obj):
        raise InvalidArgumentError("saved_model.save: expected a fe.Module or another "
                                   "trackable object (got %s)" % type(obj).__name__)
    if options is not None and not isinstance(options, SaveOptions):
        raise InvalidArgumentError("saved_model.save: options must be a SaveOptions (got %s)"
                                   % type(options).__name__)
    custom_gradients = options is None or options.experimental_custom_gradients
    directory = os.fspath(export_dir)
    root_functions = dict(_root_functions or {})
    model_type = _model_type_of(obj)
    if model_type is not None and _root_functions is None:
        call = model_type[0](obj, "serving_default")
        root_functions["__call__"] = call
        if signatures is None:
            signatures = call
    elif signatures is None:
        signatures = _default_signature(obj)
    plans = {}
    for mpath, module in _module_tree(obj).items():
        for name, fn in _functions_of(module):
            attr = (mpath + "/" if mpath else "") + name
            plans[attr] = _Plan(fn, attr)
    for name, fn in root_functions.items():
        plans[name] = _Plan(fn, name)
    sig_plans = {}
    for name, value in _signatures_of(signatures).items():
        same = next((p for p in plans.values() if p.fn is value), None)
        sig_plans[name] = _SignaturePlan(name, value, same)
    # the variables are listed after tracing: a function's first trace may create some
    variables, _, _ = _ckpt._walk({"root": obj})
    var_paths = {id(v): p for p, v in variables.items()}
    constants = {}
    functions = {}
    for attr, plan in plans.items():
        spec = plan.describe(var_paths, constants, attr, custom_gradients)
        spec["input_signature"] = _signature_spec(plan.input_signature, attr)
        functions[attr] = spec
    sigs = {name: p.describe(var_paths, constants, custom_gradients)
            for name, p in sig_plans.items()}
    description = {"format": FORMAT, "variables": sorted(variables),
                   "trainable": {p: bool(v.trainable) for p, v in variables.items()},
                   "functions": functions, "signatures": sigs}
    if model_type is not None:
        description["variable_lists"] = model_type[1](obj, var_paths)
    os.makedirs(directory, exist_ok=True)
    _ckpt.write_file(os.path.join(directory, VARIABLES_FILE), {"root": obj})
    _safetensors.save_file(constants, os.path.join(directory, CONSTANTS_FILE),
                           metadata={"format": FORMAT})
    _atomic.atomic_write(os.path.join(directory, GRAPH_FILE),
                         json.dumps(description, sort_keys=True, indent=1).encode())


# ---- load -----------------------------------------------------------------------------------

def _child(obj, name):
    child = obj.__dict__.get(name)
    if child is None:
        child = _Restored(name=name if name.isidentifier() else None)
        object.__setattr__(obj, name, child)
    elif not isinstance(child, _Restored):
        raise DataLossError("saved_model.load: %r is both a value and an object in the "
                            "SavedModel" % name)
    return child


def _place(obj, name, value, path):
    """Set attribute ``name`` of a loaded object, once: a second value for one path (a
    function named like a variable) is corruption, never a silent replacement."""
    if name in obj.__dict__:
        raise DataLossError("saved_model.load: %.80r is saved twice (as a %s and a %s)"
                            % (path, type(obj.__dict__[name]).__name__, type(value).__name__))
    object.__setattr__(obj, name, value)


# Names the loaded objects' class uses itself (methods, properties, the attributes a
# Module sets, those load sets: signatures, the Keras weight lists): a name from a file
# never replaces one. "__call__" is the one exception, the slot of a saved __call__
# function (``_Restored.__call__`` calls it); any other dunder name is refused too.
_RESERVED = (frozenset(dir(_Restored)) | frozenset(vars(_Restored(name="root"))) |
             {"signatures", "_saved_variable_lists"}) - {"__call__"}


def _path_parts(path, what, leaf_call=False):
    """The names of a path from the file, each checked (see _RESERVED); ``leaf_call``:
    the last may be ``__call__`` (a function's path)."""
    if not isinstance(path, str) or not path:
        raise DataLossError("saved_model.load: bad %s path %.80r" % (what, path))
    parts = path.split("/")
    for i, p in enumerate(parts):
        call = leaf_call and i == len(parts) - 1 and p == "__call__"
        if not p or (not call and (p in _RESERVED or p.startswith("__") and p.endswith("__"))):
            raise DataLossError("saved_model.load: bad %s path %.80r (%s)"
                                % (what, path, "an empty name" if not p else
                                   "%r is a name the loaded object uses itself" % p))
    return parts


def _unique_keys(file):
    """A JSON object hook refusing a key given twice (JSON would keep the last silently)."""
    def hook(pairs):
        out = dict(pairs)
        if len(out) != len(pairs):
            seen = set()
            twice = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise DataLossError("saved_model.load: %s holds the key %.80r twice in one object"
                                % (file, twice))
        return out
    return hook


def _read_description(directory):
    file = os.path.join(directory, GRAPH_FILE)
    try:
        with open(file, "rb") as f:
            description = json.loads(f.read().decode("utf-8"),
                                     object_pairs_hook=_unique_keys(file))
    except FileNotFoundError:
        raise NotFoundError("saved_model.load: no fasteager SavedModel in %r (expected the "
                            "file %s)" % (directory, GRAPH_FILE)) from None
    except (ValueError, RecursionError) as e:
        raise DataLossError("saved_model.load: %s is not valid JSON (%s)"
                            % (file, e)) from None
    if not isinstance(description, dict) or description.get("format") not in _READS:
        raise DataLossError("saved_model.load: %s is not a fasteager SavedModel "
                            "(expected format %r)" % (file, FORMAT))
    for field, kind, required in (("variables", list, True), ("trainable", dict, True),
                                  ("functions", dict, True), ("signatures", dict, False),
                                  ("variable_lists", dict, False)):
        if required and field not in description:
            raise DataLossError("saved_model.load: %s has no %r" % (file, field))
        if not isinstance(description.get(field, kind()), kind):
            raise DataLossError("saved_model.load: %s: %r is not a %s"
                                % (file, field, kind.__name__))
    return description


def load(export_dir, tags=None, options=None):
    """Load what ``save`` wrote: an object with the saved variables, sub-objects, functions
    and ``signatures`` as attributes (not an instance of the original class)."""
    directory = os.fspath(export_dir)
    description = _read_description(directory)
    _, tensors, metadata = _ckpt._read(os.path.join(directory, VARIABLES_FILE),
                                       "saved_model.load", with_metadata=True)
    names = _ckpt.object_graph(os.path.join(directory, VARIABLES_FILE), metadata,
                               "saved_model.load")
    constants, _ = _safetensors.load_file(os.path.join(directory, CONSTANTS_FILE))
    root = _Restored(name="root")
    variables = {}
    for path in description["variables"]:
        parts = _path_parts(path, "variable")
        if parts[0] != "root" or len(parts) < 2:
            raise DataLossError("saved_model.load: bad variable path %.80r (expected "
                                "root/...)" % (path,))
        parts = parts[1:]
        obj = root
        for part in parts[:-1]:
            obj = _child(obj, part)
        if path not in tensors:
            raise DataLossError("saved_model.load: %s has no value for variable %r"
                                % (VARIABLES_FILE, path))
        name = names.get(path, {}).get("name")
        var = Variable(tensors[path], trainable=bool(description["trainable"].get(path, True)),
                       name=name or parts[-1])
        _place(obj, parts[-1], var, path)
        variables[path] = var
    env = _Environment(variables, constants, controls=description["format"] == FORMAT)
    for attr, spec in description["functions"].items():
        if not isinstance(spec, dict):
            raise DataLossError("saved_model.load: function %.80r is not an object" % (attr,))
        parts = _path_parts(attr, "function", leaf_call=True)
        obj = root
        for part in parts[:-1]:
            obj = _child(obj, part)
        _place(obj, parts[-1], RestoredFunction(attr, spec, env), attr)
    signatures = SignatureMap()
    for name, spec in description.get("signatures", {}).items():
        signatures[name] = RestoredSignature(name, spec, env)
    object.__setattr__(root, "signatures", signatures)
    lists = description.get("variable_lists")
    if lists:
        saved = {}
        for attr in ("variables", "trainable_variables", "non_trainable_variables"):
            paths = lists.get(attr, [])
            if not isinstance(paths, list) or any(p not in variables for p in paths
                                                  if isinstance(p, str)) or \
                    not all(isinstance(p, str) for p in paths):
                raise DataLossError("saved_model.load: the %s list names variables the "
                                    "SavedModel does not hold" % attr)
            saved[attr] = [variables[p] for p in paths]
        object.__setattr__(root, "_saved_variable_lists", saved)
    return root
