"""Keras object (de)serialization with an allow-list: what ``load_model`` may construct.

A saved config names classes by ``class_name`` (plus, for information, ``module`` and
``registered_name``). Loading never imports a module or resolves a dotted path from the
file: a name is looked up, in this order, in the ``custom_objects`` argument, the
thread's ``custom_object_scope`` stack, the objects registered with
``register_keras_serializable`` (or added to ``get_custom_objects()``), and fasteager's
own classes (layers, models, initializers, regularizers, losses, metrics, optimizers,
schedules; activation and loss functions by name). Anything else is refused with a
``TypeError`` saying how to allow it. Lambdas saved as marshalled bytecode are refused
unless ``safe_mode=False``.

>>> @fe.keras.saving.register_keras_serializable(package="my_pkg")
... class Scale(fe.keras.layers.Layer):
...     ...
>>> fe.keras.saving.get_registered_name(Scale)
'my_pkg>Scale'
"""
import base64
import builtins
import marshal
import sys
import threading
import types

from .._core import Op
from ..errors import DataLossError, InvalidArgumentError

# registered name ('package>Name') -> object, process-wide like Keras's registry
_CUSTOM_OBJECTS = {}
_REGISTERED_NAMES = {}  # object -> its registered name
_MAX_DEPTH = 100        # nesting limit of a config: a hostile file cannot exhaust the stack
# config keys whose strings are plain data, never names of objects to substitute
_DATA_KEYS = frozenset(["name", "dtype", "padding", "data_format", "reduction"])


class _State(threading.local):
    def __init__(self):
        self.scopes = []          # custom_object_scope dicts, innermost last
        self.safe_mode = True     # of the load_model / deserialize call in progress


_STATE = _State()


# ---- registration ---------------------------------------------------------------------------
def register_keras_serializable(package="Custom", name=None):
    """Register a class or function under ``'package>name'`` so that saved models holding it
    load without ``custom_objects``: ``@register_keras_serializable(package="my_pkg")``."""
    if not isinstance(package, str) or ">" in package or not package:
        raise ValueError("register_keras_serializable: package must be a non-empty string "
                         "without '>' (got %r)" % (package,))
    if name is not None and (not isinstance(name, str) or not name):
        raise ValueError("register_keras_serializable: name must be a non-empty string "
                         "(got %r)" % (name,))

    def decorator(obj):
        if not callable(obj):
            raise TypeError("register_keras_serializable: expected a class or function "
                            "(got %r)" % (obj,))
        if isinstance(obj, type) and not hasattr(obj, "get_config"):
            raise ValueError("register_keras_serializable: %s has no get_config() method, so "
                             "it cannot be saved (expected a class with get_config)"
                             % obj.__name__)
        key = "%s>%s" % (package, name or obj.__name__)
        old = _CUSTOM_OBJECTS.get(key)
        # redefining the same class (a re-run cell, a reloaded module) replaces it
        if old is not None and old is not obj and _origin(old) != _origin(obj):
            raise ValueError("register_keras_serializable: %r is already registered to %s.%s "
                             "(expected a new name, got the same one for %s.%s)"
                             % ((key,) + _origin(old) + _origin(obj)))
        _CUSTOM_OBJECTS[key] = obj
        _REGISTERED_NAMES[obj] = key
        return obj
    return decorator


def _origin(obj):
    return (getattr(obj, "__module__", "?"), getattr(obj, "__qualname__", repr(obj)))


def get_custom_objects():
    """The process-wide dict of registered objects (name -> object); may be updated."""
    return _CUSTOM_OBJECTS


def get_registered_name(obj):
    """The name ``obj`` was registered under, or its ``__name__`` if it was not."""
    try:
        key = _REGISTERED_NAMES.get(obj)
    except TypeError:           # an unhashable object is never registered
        key = None
    if key is not None and _CUSTOM_OBJECTS.get(key) is obj:
        return key
    return getattr(obj, "__name__", type(obj).__name__)


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered (or in scope) under ``name``, or None."""
    obj = _custom_lookup(name, custom_objects)
    if obj is None and module_objects:
        obj = module_objects.get(name)
    return obj


class CustomObjectScope:
    """``with CustomObjectScope({"MyLayer": MyLayer}): load_model(path)``: objects that
    loading may construct inside the block (this thread only)."""

    def __init__(self, *custom_objects):
        for d in custom_objects:
            if not isinstance(d, dict):
                raise TypeError("CustomObjectScope: expected dicts of name -> object (got %r)"
                                % (d,))
        self._objects = {}
        for d in custom_objects:
            self._objects.update(d)

    def __enter__(self):
        _STATE.scopes.append(self._objects)
        return self

    def __exit__(self, *exc):
        scopes = _STATE.scopes
        for i in range(len(scopes) - 1, -1, -1):    # by identity: equal dicts may nest
            if scopes[i] is self._objects:
                del scopes[i]
                break
        return False


custom_object_scope = CustomObjectScope


def _custom_lookup(key, custom_objects):
    if not isinstance(key, str):
        return None
    if custom_objects and key in custom_objects:
        return custom_objects[key]
    for scope in reversed(_STATE.scopes):
        if key in scope:
            return scope[key]
    return _CUSTOM_OBJECTS.get(key)


# ---- fasteager's own objects ----------------------------------------------------------------
# Each Keras module registers what it defines (it imports this module; this module imports
# none of them). The order of _SOURCES decides a bare name found in two places (losses
# before metrics), whatever order the modules were imported in.
_SOURCES = ("layers", "training", "functional", "initializers", "regularizers",
            "constraints", "optimizers", "schedules", "losses", "metrics", "dtype_policies",
            "loss_scale")
_FUNCTION_SOURCES = ("activations", "losses")
_REGISTERED = {}            # source -> (the module's namespace, the base class)
_REGISTERED_FUNCTIONS = {}  # source -> {name: function}
_BUILTINS = None


def register_builtins(source, namespace, base):
    """Make the ``base`` subclasses in ``namespace`` (a module's globals, read when the
    first lookup needs them) loadable by class name; ``source`` is one of _SOURCES."""
    global _BUILTINS
    if source not in _SOURCES:
        raise ValueError("register_builtins: unknown source %r (expected one of %s)"
                         % (source, _SOURCES))
    _REGISTERED[source] = (namespace, base)
    _BUILTINS = None


def register_functions(source, by_name):
    """Make the functions of ``by_name`` (a live name -> function dict) loadable by name."""
    global _BUILTINS
    if source not in _FUNCTION_SOURCES:
        raise ValueError("register_functions: unknown source %r (expected one of %s)"
                         % (source, _FUNCTION_SOURCES))
    _REGISTERED_FUNCTIONS[source] = by_name
    _BUILTINS = None


def activation_names():
    """The activations' name -> function table (empty before keras.activations loads)."""
    return _REGISTERED_FUNCTIONS.get("activations", {})


def _builtins():
    """class or function name -> [candidates], from fasteager's own modules (built once)."""
    global _BUILTINS
    if _BUILTINS is not None:
        return _BUILTINS
    table = {}

    def add(name, obj):
        if obj not in table.setdefault(name, []):
            table[name].append(obj)

    for source in _SOURCES:
        if source not in _REGISTERED:
            continue
        namespace, base = _REGISTERED[source]
        for obj in list(namespace.values()):
            if isinstance(obj, type) and issubclass(obj, base) and \
                    obj.__module__.startswith("fasteager."):
                add(obj.__name__, obj)
    for source in _FUNCTION_SOURCES:
        for name, fn in list(_REGISTERED_FUNCTIONS.get(source, {}).items()):
            add(name, fn)
    _BUILTINS = table
    return table


def lookup(spec, custom_objects=None):
    """The object a serialized ``{"class_name": ...}`` names (custom objects first, then
    fasteager's own), or None. Nothing is imported."""
    name, registered = spec.get("class_name"), spec.get("registered_name")
    for key in (registered, name):
        obj = _custom_lookup(key, custom_objects)
        if obj is not None:
            return obj
    # a registered class saved without its registered name: match the class name, using the
    # saved module/qualname only to pick between registrations (never to import anything)
    same = [o for o in _CUSTOM_OBJECTS.values() if getattr(o, "__name__", None) == name]
    if len(same) > 1:
        same = [o for o in same if _origin(o) == (spec.get("module"), spec.get("qualname"))]
    if len(same) == 1:
        return same[0]
    candidates = _builtins().get(name, []) if isinstance(name, str) else []
    for obj in candidates:
        if getattr(obj, "__module__", None) == spec.get("module"):
            return obj
    return candidates[0] if candidates else None


class _RefusedError(TypeError):
    """An object the file names that loading may not construct."""


def refuse(spec, where):
    name, module = spec.get("class_name"), spec.get("module")
    where_from = " (module %r)" % module if isinstance(module, str) else ""
    return _RefusedError(
        "%s: refusing to construct %r%s: only fasteager's own classes and registered ones are "
        "loaded (expected a known class, got an unknown one). If you trust it, decorate the "
        "class with @fe.keras.saving.register_keras_serializable() or pass "
        "custom_objects={%r: cls}" % (where, name, where_from, name))


# ---- serialize ------------------------------------------------------------------------------
def serialize_keras_object(obj):
    """A JSON-ready config: ``{"class_name", "module", "registered_name", "config"}`` for
    objects with ``get_config``, the registered name for functions, values as they are."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(v) for v in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, type) or not hasattr(obj, "get_config"):
        if isinstance(obj, Op) and obj.name in activation_names():
            return obj.name      # an op used as an activation (fe.nn.relu): Keras's name for it
        if callable(obj):
            return get_registered_name(obj)
        if isinstance(getattr(obj, "name", None), str):     # a DType
            return obj.name
        raise TypeError("save: cannot store %r in the model config (expected JSON values or "
                        "objects with get_config)" % (obj,))
    cls = type(obj)
    out = {"class_name": cls.__name__, "module": cls.__module__,
           "config": serialize_keras_object(obj.get_config())}
    if get_registered_name(cls) != cls.__name__:
        out["registered_name"] = get_registered_name(cls)
    return out


def dump_function(fn):
    """A lambda or local function as marshalled bytecode (base64), its defaults and closure
    values, and its module's name: Keras's ``__lambda__`` form."""
    for value in list(fn.__defaults__ or ()) + [c.cell_contents for c in fn.__closure__ or ()]:
        if not isinstance(value, (type(None), bool, int, float, str, list, dict)):
            raise TypeError("Lambda: cannot save %s: its defaults and closure must be JSON "
                            "values (got %r); use a registered function instead"
                            % (fn.__qualname__, value))
    return {"class_name": "__lambda__", "config": {
        "code": base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii"),
        "defaults": list(fn.__defaults__) if fn.__defaults__ else None,
        "closure": [c.cell_contents for c in fn.__closure__] if fn.__closure__ else None,
        "module": fn.__module__}}


def _load_function(config, custom_objects):
    """Rebuild a ``__lambda__`` (only with safe_mode=False: this runs code from the file)."""
    try:
        code = marshal.loads(base64.b64decode(config["code"]))
        if not isinstance(code, types.CodeType):
            raise ValueError("not a code object")
    except (KeyError, TypeError, ValueError, EOFError) as e:
        raise DataLossError("load_model: a saved lambda is corrupt (%s)" % e) from None
    # the globals of the lambda's own module when it is already imported (never imported
    # here), then custom_objects, as Keras does
    module = sys.modules.get(config.get("module"))
    scope = dict(vars(module)) if module is not None else {"__builtins__": builtins}
    scope.update(custom_objects or {})
    closure = config.get("closure")
    cells = tuple(types.CellType(v) for v in closure) if closure else None
    defaults = config.get("defaults")
    try:
        return types.FunctionType(code, scope, code.co_name,
                                  tuple(defaults) if defaults else None, cells)
    except (TypeError, ValueError) as e:
        raise DataLossError("load_model: a saved lambda does not fit its code (%s)" % e) \
            from None


# ---- deserialize ----------------------------------------------------------------------------
def deserialize_keras_object(config, custom_objects=None, safe_mode=True, where="load_model"):
    """Rebuild what :func:`serialize_keras_object` made, constructing only allowed objects.

    Nested configs (a layer's initializer, a model's layers) go through the same gate. A
    ``__lambda__`` is refused unless ``safe_mode=False``."""
    saved = _STATE.safe_mode
    _STATE.safe_mode = bool(safe_mode)
    try:
        return _decode(config, custom_objects, where, 0, None)
    finally:
        _STATE.safe_mode = saved


_UNSAFE = [False]       # keras.config.enable_unsafe_deserialization(): for every thread


def enable_unsafe_deserialization():
    """Let every later load run lambdas from files, as ``safe_mode=False`` (Keras 3)."""
    _UNSAFE[0] = True


def in_safe_mode():
    """Whether the deserialization in progress on this thread refuses lambdas."""
    return _STATE.safe_mode and not _UNSAFE[0]


def _is_object(value):
    return isinstance(value, dict) and "class_name" in value and "config" in value


def _decode(value, custom_objects, where, depth, key):
    if depth > _MAX_DEPTH:
        raise DataLossError("%s: the config is nested deeper than %d levels" % (where,
                                                                                _MAX_DEPTH))
    if isinstance(value, list):
        return [_decode(v, custom_objects, where, depth + 1, None) for v in value]
    if _is_object(value):
        return _construct(value, custom_objects, where, depth)
    if isinstance(value, dict):
        return {k: _decode(v, custom_objects, where, depth + 1, k) for k, v in value.items()}
    if isinstance(value, str) and key not in _DATA_KEYS:
        # a function saved by its (registered) name; built-in names stay strings, which the
        # layers resolve through their own tables
        obj = _custom_lookup(value, custom_objects)
        if obj is not None:
            return obj
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError("%s: a config holds %r (expected JSON values)" % (where, value))


def _construct(spec, custom_objects, where, depth):
    name = spec["class_name"]
    if not isinstance(name, str):
        raise DataLossError("%s: class_name must be a string (got %r)" % (where, name))
    if name == "__lambda__":
        if in_safe_mode():
            raise InvalidArgumentError(
                "%s: the file holds a Python lambda (marshalled bytecode); loading it would run "
                "code from the file, which safe_mode=True refuses (expected no lambdas). If you "
                "trust the file, pass safe_mode=False" % where)
        if not isinstance(spec["config"], dict):
            raise DataLossError("%s: a saved lambda is corrupt (its config is not a dict)"
                                % where)
        return _load_function(spec["config"], custom_objects)
    cls = lookup(spec, custom_objects)
    if cls is None:
        raise refuse(spec, where)
    if not isinstance(cls, type):
        raise TypeError("%s: %r names a function, not a class (expected a class config)"
                        % (where, name))
    config = spec["config"] if spec["config"] is not None else {}
    if not isinstance(config, dict):
        raise DataLossError("%s: the config of %s must be a dict (got %s)"
                            % (where, name, type(config).__name__))
    if getattr(cls, "_deserializes_own_config", False):
        # the class decodes its nested configs itself, each through this same gate (a
        # functional model's layer graph holds tensor references, not objects)
        try:
            return cls.from_config(config, custom_objects=custom_objects)
        except (TypeError, ValueError, KeyError) as e:
            if isinstance(e, (DataLossError, InvalidArgumentError, _RefusedError)):
                raise
            raise DataLossError("%s: cannot rebuild %s from its saved config (%s: %s)"
                                % (where, name, type(e).__name__, e)) from e
    kwargs = _decode(config, custom_objects, where, depth + 1, None)
    try:
        if hasattr(cls, "from_config"):
            return cls.from_config(kwargs)
        return cls(**kwargs)
    except (TypeError, ValueError, KeyError) as e:
        # refusals and typed errors from nested deserialization pass through unchanged
        if isinstance(e, (DataLossError, InvalidArgumentError, _RefusedError)):
            raise
        raise DataLossError("%s: cannot rebuild %s from its saved config (%s: %s)"
                            % (where, name, type(e).__name__, e)) from e


def deserialize_in(config, custom_objects, by_name, base, where):
    """``keras.<module>.deserialize``: the object a name or a ``{"class_name", "config"}``
    dict names, looked up in ``custom_objects`` (and registered objects), then in
    ``by_name`` (the module's own classes); its config goes through the same gate as
    ``deserialize_keras_object``."""
    if isinstance(config, str):
        obj = _custom_lookup(config, custom_objects)
        if obj is None:
            obj = by_name.get(config)
        if obj is None:
            raise ValueError("%s: unknown name %r (known: %s)"
                             % (where, config, ", ".join(sorted(by_name))))
        return obj() if isinstance(obj, type) else obj
    if not (isinstance(config, dict) and isinstance(config.get("class_name"), str)):
        raise ValueError("%s: expected a name or a {'class_name': ..., 'config': ...} dict "
                         "(got %r)" % (where, config))
    name = config["class_name"]
    cls = _custom_lookup(config.get("registered_name"), custom_objects) or \
        _custom_lookup(name, custom_objects) or by_name.get(name)
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ValueError("%s: unknown class %r (expected one of %s or a custom object)"
                         % (where, name, ", ".join(sorted(by_name))))
    inner = config.get("config") or {}
    if not isinstance(inner, dict):
        raise ValueError("%s: the config of %s must be a dict (got %s)"
                         % (where, name, type(inner).__name__))
    return cls.from_config(_decode(inner, custom_objects, where, 1, None))
