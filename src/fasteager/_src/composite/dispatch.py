"""Type-based dispatch of fasteager's API functions, as ``tf.experimental.dispatch_for_*``.

``dispatch_for_api(fe.stack)`` registers a function that runs instead of ``fe.stack``
when the call's arguments match its type annotations (or the signatures given), and
``dispatch_for_unary_elementwise_apis(T)`` / ``dispatch_for_binary_elementwise_apis(T, U)``
register a handler for every elementwise API of TensorFlow's lists that fasteager has.

Nothing is paid when nothing is registered: an API gets a dispatching wrapper only when a
first dispatcher for it is registered, by replacing the API's attribute in every public
fasteager module that holds it (``fe.abs`` and ``fe.math.abs`` alike), and gets its own
function back when its last dispatcher is unregistered. Modules imported after a
registration keep the plain function. Registrations are process-wide, as in TensorFlow.

As in TensorFlow, a dispatcher is chosen only when every annotated parameter matches its
type and at least one argument is of a type other than the core ones (a tensor, a
variable, a NumPy value or a Python number): ``List[Union[MaskedTensor, fe.Tensor]]``
takes a list mixing both, but not a list of tensors alone.
"""
import collections.abc
import inspect
import sys
import threading
import types as _types
import typing

import numpy as np

from ... import _core
from ...ops.registry import register_composite

__all__ = ["register_type", "dispatch_for_api", "dispatch_for_binary_elementwise_apis",
           "dispatch_for_unary_elementwise_apis", "unregister_dispatch_for",
           "unary_elementwise_apis", "binary_elementwise_apis"]

# TensorFlow 2.21's ``dispatch.unary_elementwise_apis()`` / ``binary_elementwise_apis()``,
# by canonical name (tf.compat.v1 names left out); those fasteager lacks are skipped.
_UNARY_NAMES = (
    "bitwise.invert", "cast", "clip_by_value", "debugging.check_numerics",
    "dtypes.saturate_cast", "image.adjust_brightness", "image.adjust_gamma",
    "image.convert_image_dtype", "image.random_brightness", "image.stateless_random_brightness",
    "io.decode_base64", "io.decode_compressed", "io.encode_base64", "math.abs", "math.acos",
    "math.acosh", "math.angle", "math.asin", "math.asinh", "math.atan", "math.atanh",
    "math.bessel_i0", "math.bessel_i0e", "math.bessel_i1", "math.bessel_i1e", "math.ceil",
    "math.conj", "math.cos", "math.cosh", "math.digamma", "math.erf", "math.erfc",
    "math.erfcinv", "math.erfinv", "math.exp", "math.expm1", "math.floor", "math.imag",
    "math.is_finite", "math.is_inf", "math.is_nan", "math.lgamma", "math.log", "math.log1p",
    "math.log_sigmoid", "math.logical_not", "math.ndtri", "math.negative", "math.nextafter",
    "math.real", "math.reciprocal", "math.reciprocal_no_nan", "math.rint", "math.round",
    "math.rsqrt", "math.sigmoid", "math.sign", "math.sin", "math.sinh", "math.softplus",
    "math.special.bessel_j0", "math.special.bessel_j1", "math.special.bessel_k0",
    "math.special.bessel_k0e", "math.special.bessel_k1", "math.special.bessel_k1e",
    "math.special.bessel_y0", "math.special.bessel_y1", "math.special.dawsn",
    "math.special.expint", "math.special.fresnel_cos", "math.special.fresnel_sin",
    "math.special.spence", "math.sqrt", "math.square", "math.tan", "math.tanh", "nn.elu",
    "nn.gelu", "nn.leaky_relu", "nn.relu", "nn.relu6", "nn.selu", "nn.silu", "nn.softsign",
    "ones_like", "strings.as_string", "strings.length", "strings.lower",
    "strings.regex_full_match", "strings.regex_replace", "strings.strip", "strings.substr",
    "strings.to_hash_bucket", "strings.to_hash_bucket_fast", "strings.to_hash_bucket_strong",
    "strings.to_number", "strings.unicode_script", "strings.unicode_transcode",
    "strings.upper", "zeros_like")
_BINARY_NAMES = (
    "bitwise.bitwise_and", "bitwise.bitwise_or", "bitwise.bitwise_xor", "bitwise.left_shift",
    "bitwise.right_shift", "dtypes.complex", "math.add", "math.atan2", "math.divide",
    "math.divide_no_nan", "math.equal", "math.floordiv", "math.floormod", "math.greater",
    "math.greater_equal", "math.less", "math.less_equal", "math.logical_and",
    "math.logical_or", "math.logical_xor", "math.maximum", "math.minimum", "math.multiply",
    "math.multiply_no_nan", "math.not_equal", "math.pow", "math.scalar_mul",
    "math.squared_difference", "math.subtract", "math.truediv", "math.xdivy", "math.xlog1py",
    "math.xlogy", "math.zeta", "nn.sigmoid_cross_entropy_with_logits", "realdiv",
    "truncatediv", "truncatemod")

def register_type(cls, functions=None, op_handler=None):
    """Let values of ``cls`` (a composite tensor type: RaggedTensor, SparseTensor, ...) take
    over TensorFlow's API on them: ``op_handler(op, args, attrs)`` runs an op called with a
    ``cls`` argument (the core asks it only for arguments that are neither tensors nor
    Python numbers), and ``functions[name](*args, **kwargs)`` runs the Python-level function
    ``name`` (a reduction, concat, cast ...) called on one (they test
    ``type(x) in COMPOSITE_TYPES`` first: no cost on the tensor path)."""
    if functions:
        register_composite(cls, functions)
    if op_handler is not None:
        _core.register_dispatch(cls, op_handler)


_lock = threading.RLock()
_entries = {}          # id(original API) -> _Entry, while it has dispatchers
_by_dispatcher = {}    # dispatcher function -> [(entry, target)] it registered
_unary_handlers = {}   # x_type -> handler
_binary_handlers = {}  # (x_type, y_type) -> handler


def _resolve(name):
    obj = sys.modules["fasteager"]
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def unary_elementwise_apis():
    """The unary elementwise APIs (TensorFlow's list) fasteager has."""
    return [f for f in map(_resolve, _UNARY_NAMES) if f is not None]


def binary_elementwise_apis():
    """The binary elementwise APIs (TensorFlow's list) fasteager has."""
    return [f for f in map(_resolve, _BINARY_NAMES) if f is not None]


# -- where the API functions live -----------------------------------------------------------
def _public_modules():
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "fasteager" or name.startswith("fasteager.")):
            continue
        if any(part.startswith("_") for part in name.split(".")):
            continue
        yield mod


def _places(originals):
    """id(original) -> [(module, attribute)] holding it, for each API in ``originals``."""
    wanted = {id(f): [] for f in originals}
    for mod in _public_modules():
        for attr, value in list(vars(mod).items()):
            places = wanted.get(id(value))
            if places is not None and not attr.startswith("_"):
                places.append((mod, attr))
    return wanted


class _Entry:
    """One dispatched API: its own function, the wrapper standing in for it, and the
    dispatch targets tried in registration order."""

    def __init__(self, original, places):
        self.original = original
        self.places = places
        self.targets = []
        self.wrapper = _make_wrapper(self)
        for mod, attr in places:
            setattr(mod, attr, self.wrapper)

    def restore(self):
        for mod, attr in self.places:
            if vars(mod).get(attr) is self.wrapper:
                setattr(mod, attr, self.original)


def _make_wrapper(entry):
    original = entry.original

    def dispatching(*args, **kwargs):
        for target in entry.targets:
            result = target(args, kwargs)
            if result is not NotImplemented:
                return result
        return original(*args, **kwargs)
    name = getattr(original, "__name__", None) or getattr(original, "name", "api")
    dispatching.__name__ = dispatching.__qualname__ = name
    dispatching.__doc__ = getattr(original, "__doc__", None)
    dispatching.__wrapped__ = original
    dispatching._fe_dispatch_entry = entry
    return dispatching


def _original(api):
    entry = getattr(api, "_fe_dispatch_entry", None)
    return entry.original if entry is not None else api


def _entries_for(originals, what):
    """The _Entry of each API (made, with its wrapper installed, where new)."""
    missing = [f for f in originals if id(f) not in _entries]
    places = _places(missing) if missing else {}
    out = []
    for f in originals:
        entry = _entries.get(id(f))
        if entry is None:
            if not places.get(id(f)):
                raise ValueError("%s: %r does not support dispatch (expected a fasteager API "
                                 "function)" % (what, f))
            entry = _entries[id(f)] = _Entry(f, places[id(f)])
        out.append(entry)
    return out


def _add(dispatcher, entry, target):
    entry.targets = entry.targets + [target]      # (a call in progress keeps its list)
    _by_dispatcher.setdefault(dispatcher, []).append((entry, target))


# -- type annotations as checks -------------------------------------------------------------
_NO, _PLAIN, _DISPATCHABLE = 0, 1, 2
_CORE_TYPES = (_core.Tensor, _core.VariableBase, np.ndarray, np.generic, int, float, bool,
               complex)


def _checker(annotation, where):
    """``check(value)``: _NO when ``value`` does not match ``annotation``, _DISPATCHABLE
    when it matches through a type other than the core ones, else _PLAIN."""
    if annotation is typing.Any:
        return lambda v: _PLAIN
    if annotation is None or annotation is type(None):
        return lambda v: _PLAIN if v is None else _NO
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or origin is _types.UnionType:
        options = [_checker(a, where) for a in args]

        def union(v):
            return max(check(v) for check in options)
        return union
    if origin in (list, tuple, collections.abc.Sequence, collections.abc.Iterable):
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            items = [_checker(a, where) for a in args]

            def fixed(v):
                if not isinstance(v, (list, tuple)) or len(v) != len(items):
                    return _NO
                got = [check(x) for check, x in zip(items, v)]
                return _NO if _NO in got else max(got, default=_PLAIN)
            return fixed
        item = _checker(args[0], where) if args else (lambda v: _PLAIN)

        def sequence(v):
            if not isinstance(v, (list, tuple)):
                return _NO
            got = [item(x) for x in v]
            return _NO if _NO in got else max(got, default=_PLAIN)
        return sequence
    if isinstance(annotation, type):
        if annotation is _core.Tensor:
            classes = (_core.Tensor, _core.VariableBase)
        else:
            classes = annotation
        core = issubclass(annotation, _CORE_TYPES) or annotation is _core.Tensor

        def instance(v):
            if not isinstance(v, classes):
                return _NO
            return _PLAIN if core else _DISPATCHABLE
        return instance
    raise TypeError("%s: unsupported type annotation %r (expected a type, or Union, "
                    "Optional, List, Tuple or Sequence of types)" % (where, annotation))


# -- dispatch_for_api -----------------------------------------------------------------------
def _api_parameters(api, dispatcher, what):
    """The parameter names a call of ``api`` binds to, checked against the dispatcher's."""
    mine = inspect.signature(dispatcher)
    try:
        theirs = inspect.signature(api)
    except (TypeError, ValueError):       # an op-table entry: positional tensors, attrs
        return mine
    # the API's required parameters are the dispatcher's too, in the same order; the
    # dispatcher may leave out optional ones (``name``) and add optional ones of its own
    # (TensorFlow's API may have parameters fasteager's lacks)
    ok = all(p.name in mine.parameters for p in theirs.parameters.values()
             if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
    ok = ok and all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                    for p in mine.parameters.values() if p.name not in theirs.parameters)
    ok = ok and [n for n in mine.parameters if n in theirs.parameters] == \
        [n for n in theirs.parameters if n in mine.parameters]
    if not ok:
        raise ValueError("%s: Dispatch function's signature %s does not match API's "
                         "signature %s." % (what, mine, theirs))
    return theirs


def dispatch_for_api(api, *signatures):
    """Decorator: ``dispatcher`` runs instead of ``api`` for calls whose arguments match
    its parameter annotations (or one of ``signatures``, dicts of parameter name -> type).

    >>> @fe.experimental.dispatch_for_api(fe.stack)
    ... def masked_stack(values: List[MaskedTensor], axis=0):
    ...     return MaskedTensor(fe.stack([v.values for v in values], axis),
    ...                         fe.stack([v.mask for v in values], axis))
    """
    what = "dispatch_for_api"
    original = _original(api)
    if not callable(original):
        raise TypeError("%s: api must be a fasteager API function, got %r" % (what, api))

    def decorator(dispatcher):
        if not callable(dispatcher):
            raise TypeError("%s: expected a function to register, got %r" % (what, dispatcher))
        if signatures:
            sigs = list(signatures)
            for s in sigs:
                if not isinstance(s, dict):
                    raise TypeError("%s: a signature must be a dict of parameter name -> type, "
                                    "got %r" % (what, s))
        else:
            hints = typing.get_type_hints(dispatcher)
            hints.pop("return", None)
            if not hints:
                raise ValueError("The dispatch_for_api decorator must be called with at least "
                                 "one signature, or applied to a function that has type "
                                 "annotations on its parameters.")
            sigs = [hints]
        with _lock:
            api_sig = _api_parameters(original, dispatcher, what)
            for s in sigs:
                unknown = [n for n in s if n not in api_sig.parameters]
                if unknown:
                    raise ValueError("%s: the signature names parameter(s) %s that %r does "
                                     "not have (its parameters: %s)"
                                     % (what, unknown, api, list(api_sig.parameters)))
            checks = [[(n, _checker(t, "%s: parameter %r" % (what, n))) for n, t in s.items()]
                      for s in sigs]
            entry, = _entries_for([original], what)
            for check in checks:
                _add(dispatcher, entry, _api_target(api_sig, check, dispatcher))
        return dispatcher
    return decorator


def _api_target(api_sig, checks, dispatcher):
    def target(args, kwargs):
        try:
            bound = api_sig.bind(*args, **kwargs).arguments
        except TypeError:
            return NotImplemented
        best = _PLAIN
        for name, check in checks:
            got = check(bound.get(name))
            if got == _NO:
                return NotImplemented
            best = max(best, got)
        if best != _DISPATCHABLE:
            return NotImplemented
        return dispatcher(*args, **kwargs)
    return target


# -- elementwise APIs -----------------------------------------------------------------------
def _parameter_names(api, n):
    try:
        params = list(inspect.signature(api).parameters)
    except (TypeError, ValueError):           # an op-table entry: x, y positionally
        return ("x", "y")[:n]
    return tuple(params[:n])


def _elementwise_target(api_entry, handler, checks):
    """A target calling ``handler(api_func, *operands)`` when the operands (the API's first
    ``len(checks)`` arguments) match, with ``api_func`` the API with its other arguments
    bound."""
    n = len(checks)
    names = _parameter_names(api_entry.original, n)
    public = api_entry.wrapper

    def target(args, kwargs):
        operands = list(args[:n])
        rest_kwargs = kwargs
        if len(operands) < n:
            rest_kwargs = dict(kwargs)
            for name in names[len(operands):]:
                if name not in rest_kwargs:
                    return NotImplemented
                operands.append(rest_kwargs.pop(name))
        best = _PLAIN
        for check, v in zip(checks, operands):
            got = check(v)
            if got == _NO:
                return NotImplemented
            best = max(best, got)
        if best != _DISPATCHABLE:
            return NotImplemented
        rest = args[n:]
        if rest or rest_kwargs:
            def api_func(*xs):
                return public(*xs, *rest, **rest_kwargs)
        else:
            api_func = public
        return handler(api_func, *operands)
    return target


def _register_elementwise(kind, types_, handler, registry, apis):
    what = "dispatch_for_%s_elementwise_apis" % kind
    key = types_[0] if len(types_) == 1 else types_
    if not callable(handler):
        raise TypeError("%s: expected a function to register, got %r" % (what, handler))
    checks = [_checker(t, "%s: %s" % (what, n)) for t, n in zip(types_, ("x_type", "y_type"))]
    with _lock:
        if key in registry:
            raise ValueError("A %s elementwise dispatch handler (%r) has already been "
                             "registered for %s." % (kind, registry[key],
                                                     key if len(types_) == 1 else
                                                     "(%s, %s)" % types_))
        originals = [_original(f) for f in apis()]
        for entry in _entries_for(originals, what):
            _add(handler, entry, _elementwise_target(entry, handler, checks))
        registry[key] = handler
    return handler


def dispatch_for_unary_elementwise_apis(x_type):
    """Decorator: ``handler(api_func, x)`` runs for every unary elementwise API (TensorFlow's
    list: ``fe.math.abs``, ``fe.math.negative``, ``fe.ones_like``, ``fe.nn.relu``, ...) called
    with ``x`` of type ``x_type``; ``api_func`` is the API with its other arguments bound.

    >>> @fe.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    ... def handler(api_func, x):
    ...     return MaskedTensor(api_func(x.values), x.mask)
    """
    return lambda handler: _register_elementwise("unary", (x_type,), handler, _unary_handlers,
                                                 unary_elementwise_apis)


def dispatch_for_binary_elementwise_apis(x_type, y_type):
    """Decorator: ``handler(api_func, x, y)`` runs for every binary elementwise API
    (TensorFlow's list: ``fe.math.add``, ``subtract``, ``multiply``, ``maximum``, ``equal``,
    ...) called with ``x`` of ``x_type`` and ``y`` of ``y_type``."""
    return lambda handler: _register_elementwise("binary", (x_type, y_type), handler,
                                                 _binary_handlers, binary_elementwise_apis)


def unregister_dispatch_for(dispatch_target):
    """Remove every registration ``dispatch_target`` made with a ``dispatch_for_*``
    decorator; an API left with none gets its own function back in every namespace."""
    with _lock:
        registered = _by_dispatcher.pop(dispatch_target, None)
        if registered is None:
            raise ValueError("Function %r was not registered using a `@dispatch_for_*` "
                             "decorator." % (dispatch_target,))
        for entry, target in registered:
            entry.targets = [t for t in entry.targets if t is not target]
            if not entry.targets:
                entry.restore()
                _entries.pop(id(entry.original), None)
        for registry in (_unary_handlers, _binary_handlers):
            for key in [k for k, h in registry.items() if h is dispatch_target]:
                del registry[key]
