"""Type-based dispatch of fasteager's API functions, as ``tf.experimental.dispatch_for_*``.

``dispatch_for_api(fe.stack)`` registers a function that runs instead of ``fe.stack``
when the call's arguments match its type annotations (or the signatures given), and
``dispatch_for_unary_elementwise_apis(T)`` / ``dispatch_for_binary_elementwise_apis(T, U)``
register a handler for every elementwise API of TensorFlow's lists that fasteager has.

One table, ``_entries`` (API -> its dispatch targets), holds every registration, and the
APIs consult it themselves; no module attribute is ever replaced, so ``fe.abs``,
``fe.math.abs`` and a reference taken before the registration behave alike, whatever the
import order. Nothing is paid when nothing is registered:

* an op (``fe.abs``, ``fe.add``, ...) with targets is registered with the core
  (``_core.set_op_dispatch``), whose ``Op.__call__`` hands a call to them, as the user
  made it (``name`` and operands by keyword included, as TensorFlow does), when an
  argument's type is dispatchable: a subclass (``issubclass``, so also one made after the
  registration) of a class a target's signature names. The core asks that of
  ``_is_dispatchable`` once per type and memoises the answer until the registrations
  change: a tensor or Python number is never asked about, and no call walks an MRO;
* a Python-level API function (``fe.stack``, ``fe.matmul``, ``fe.strings.length``, ...)
  runs its targets first while it has any: its code is swapped for a short trampoline
  (the function object, its identity and every reference to it stay the same) and put
  back when its last dispatcher is unregistered.

The composite types' own handlers (``register_type``: RaggedTensor, SparseTensor, ...)
are installed through this module too, so that both kinds of dispatch meet in one place:
an op's dispatch targets come first, then (if none takes the call) the core's type hook
runs the composite type's op handler. Registrations are process-wide, as in TensorFlow.

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

_lock = threading.RLock()
_entries = {}          # id(API) -> _Entry, while it has dispatchers
_by_dispatcher = {}    # dispatcher function -> [(entry, target, classes named)] it registered
_unary_handlers = {}   # x_type -> handler
_binary_handlers = {}  # (x_type, y_type) -> handler
_named = collections.Counter()   # class -> how many targets of ops name it
_named_classes = ()    # the classes of _named, for issubclass


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


def _is_dispatchable(cls):
    """Whether an op call with a ``cls`` argument goes to the op's dispatch targets (the
    core asks once per type, see the module doc)."""
    return bool(_named_classes) and issubclass(cls, _named_classes)


def _count_named(classes, delta):
    """Add ``delta`` to the count of each of ``classes``; the core forgets its answers."""
    global _named_classes
    for cls in classes:
        _named[cls] += delta
        if _named[cls] <= 0:
            del _named[cls]
    _named_classes = tuple(_named)
    _core.set_dispatchable_test(_is_dispatchable)


_core.set_dispatchable_test(_is_dispatchable)


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


# -- the APIs that may be dispatched -------------------------------------------------------
def _is_api(api):
    """An op of the table, or a fasteager function (a public API is one of these)."""
    if isinstance(api, _core.Op):
        return True
    return isinstance(api, _types.FunctionType) and \
        (getattr(api, "__module__", None) or "").startswith("fasteager.")


class _Entry:
    """One dispatched API and its dispatch targets, tried in registration order. A
    Python function runs a trampoline in place of its own code while it has targets."""

    def __init__(self, api):
        self.api = api
        self.targets = []
        self.original = api
        if isinstance(api, _types.FunctionType):
            self.original, self._saved = _install_trampoline(api, self)
        else:
            _core.set_op_dispatch(api, self.call_targets)

    def call_targets(self, args, kwargs):
        for target in self.targets:
            result = target(args, kwargs)
            if result is not NotImplemented:
                return result
        return NotImplemented

    def __call__(self, args, kwargs):       # the trampoline's call
        result = self.call_targets(args, kwargs)
        if result is NotImplemented:
            return self.original(*args, **kwargs)
        return result

    def restore(self):
        if self.original is not self.api:
            _remove_trampoline(self.api, self._saved)
        else:
            _core.set_op_dispatch(self.api, None)


# The trampoline takes any arguments and hands them to its entry (a keyword-only default,
# so it needs no global name). A function with a closure gets one reading the same free
# variables (a code object runs only with a closure of its own free variables).
_TRAMPOLINE = """
def _make({free}):
    def _fe_trampoline(*args, _fe_dispatch_entry_=None, **kwargs):
        if _fe_dispatch_entry_ is None:
            return ({free_tuple})
        return _fe_dispatch_entry_(args, kwargs)
    return _fe_trampoline
"""


_NONE = object()


def _install_trampoline(f, entry):
    code = f.__code__
    free = code.co_freevars
    if set(free) & {"args", "kwargs", "_fe_dispatch_entry_"}:
        raise ValueError("dispatch: %r cannot take a dispatcher (a free variable shadows the "
                         "trampoline's arguments)" % (f,))
    namespace = {}
    exec(_TRAMPOLINE.format(free=", ".join(free),
                            free_tuple="".join(n + ", " for n in free)), namespace)
    trampoline = namespace["_make"](*[None] * len(free)).__code__
    if trampoline.co_freevars != free:
        raise ValueError("dispatch: %r cannot take a dispatcher (its free variables %s)"
                         % (f, free))
    # the function as it was, to run when no target takes the call
    original = _types.FunctionType(code, f.__globals__, f.__name__, f.__defaults__,
                                   f.__closure__)
    original.__kwdefaults__ = f.__kwdefaults__
    original.__qualname__ = f.__qualname__
    original.__module__ = f.__module__
    original.__doc__ = f.__doc__
    saved = (code, f.__defaults__, f.__kwdefaults__, f.__dict__.get("__wrapped__", _NONE))
    f.__code__ = trampoline.replace(co_name=code.co_name, co_qualname=code.co_qualname)
    f.__defaults__ = None
    f.__kwdefaults__ = {"_fe_dispatch_entry_": entry}
    if saved[3] is _NONE:               # inspect.signature(f) shows f's own parameters
        f.__wrapped__ = original
    return original, saved


def _remove_trampoline(f, saved):
    f.__code__, f.__defaults__, f.__kwdefaults__, wrapped = saved
    if wrapped is _NONE:
        f.__dict__.pop("__wrapped__", None)
    else:
        f.__wrapped__ = wrapped


def _entries_for(apis, what):
    """The _Entry of each API (made, with its trampoline installed, where new)."""
    for f in apis:
        if not _is_api(f):
            raise ValueError("%s: %r does not support dispatch (expected a fasteager API "
                             "function)" % (what, f))
    out = []
    for f in apis:
        entry = _entries.get(id(f))
        if entry is None:
            entry = _entries[id(f)] = _Entry(f)
        out.append(entry)
    return out


def _add(dispatcher, entry, target, classes):
    """Add ``target`` (of ``dispatcher``, naming ``classes``) to ``entry``'s targets."""
    classes = tuple(classes) if isinstance(entry.api, _core.Op) else ()
    entry.targets = entry.targets + [target]      # (a call in progress keeps its list)
    _by_dispatcher.setdefault(dispatcher, []).append((entry, target, classes))
    if classes:
        _count_named(classes, 1)


# -- type annotations as checks -------------------------------------------------------------
_NO, _PLAIN, _DISPATCHABLE = 0, 1, 2
_CORE_TYPES = (_core.Tensor, _core.VariableBase, np.ndarray, np.generic, int, float, bool,
               complex)


def _checker(annotation, where, named=None):
    """``check(value)``: _NO when ``value`` does not match ``annotation``, _DISPATCHABLE
    when it matches through a type other than the core ones, else _PLAIN. The classes
    other than the core ones that ``annotation`` names are added to the set ``named``."""
    if named is None:
        named = set()
    if annotation is typing.Any:
        return lambda v: _PLAIN
    if annotation is None or annotation is type(None):
        return lambda v: _PLAIN if v is None else _NO
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or origin is _types.UnionType:
        options = [_checker(a, where, named) for a in args]

        def union(v):
            return max(check(v) for check in options)
        return union
    if origin in (list, tuple, collections.abc.Sequence, collections.abc.Iterable):
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            items = [_checker(a, where, named) for a in args]

            def fixed(v):
                if not isinstance(v, (list, tuple)) or len(v) != len(items):
                    return _NO
                got = [check(x) for check, x in zip(items, v)]
                return _NO if _NO in got else max(got, default=_PLAIN)
            return fixed
        item = _checker(args[0], where, named) if args else (lambda v: _PLAIN)

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
        if not core:
            named.add(annotation)

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
    original = api
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
            named = set()
            checks = [[(n, _checker(t, "%s: parameter %r" % (what, n), named))
                       for n, t in s.items()] for s in sigs]
            entry, = _entries_for([original], what)
            name_at = _name_position(original, api_sig, dispatcher)
            for check in checks:
                _add(dispatcher, entry, _api_target(api_sig, check, dispatcher, name_at),
                     named)
        return dispatcher
    return decorator


def _name_position(api, api_sig, dispatcher):
    """Where a call of ``api`` passes ``name`` when ``dispatcher`` leaves that parameter
    out (TensorFlow then drops it from the dispatcher's call): its index among the API's
    parameters, -1 where only by keyword (an op), None when the dispatcher takes it (or
    the API has none)."""
    mine = inspect.signature(dispatcher).parameters
    if "name" in mine or any(p.kind == p.VAR_KEYWORD for p in mine.values()):
        return None
    if isinstance(api, _core.Op):
        return -1
    params = list(api_sig.parameters.values())
    for i, p in enumerate(params):
        if p.name == "name":
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and all(
                    q.kind != q.VAR_POSITIONAL for q in params[:i]):
                return i
            return -1
    return None


def _api_target(api_sig, checks, dispatcher, name_at=None):
    # the call binds to the API's parameters (an op's: the dispatcher's, less ``name``)
    strip_first = "name" not in api_sig.parameters

    def target(args, kwargs):
        call_args, call_kwargs = args, kwargs
        if name_at is not None:
            if "name" in kwargs:
                call_kwargs = {k: v for k, v in kwargs.items() if k != "name"}
            elif 0 <= name_at < len(args):
                call_args = args[:name_at] + args[name_at + 1:]
            if strip_first:
                args, kwargs = call_args, call_kwargs
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
        return dispatcher(*call_args, **call_kwargs)
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
    public = api_entry.api

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
    named = set()
    checks = [_checker(t, "%s: %s" % (what, n), named)
              for t, n in zip(types_, ("x_type", "y_type"))]
    with _lock:
        if key in registry:
            raise ValueError("A %s elementwise dispatch handler (%r) has already been "
                             "registered for %s." % (kind, registry[key],
                                                     key if len(types_) == 1 else
                                                     "(%s, %s)" % types_))
        for entry in _entries_for(apis(), what):
            _add(handler, entry, _elementwise_target(entry, handler, checks), named)
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
    decorator; an API left with none runs as if never dispatched (a function's own code
    is put back)."""
    with _lock:
        registered = _by_dispatcher.pop(dispatch_target, None)
        if registered is None:
            raise ValueError("Function %r was not registered using a `@dispatch_for_*` "
                             "decorator." % (dispatch_target,))
        for entry, target, classes in registered:
            entry.targets = [t for t in entry.targets if t is not target]
            if not entry.targets:
                entry.restore()
                _entries.pop(id(entry.api), None)
            if classes:
                _count_named(classes, -1)
        for registry in (_unary_handlers, _binary_handlers):
            for key in [k for k, h in registry.items() if h is dispatch_target]:
                del registry[key]
