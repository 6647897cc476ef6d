"""The run-time half of AutoGraph: what converted code calls (as ``ag__.<name>``).

Each operator looks at its condition when it runs. A Python value, or a tensor that does
not depend on the traced function's inputs or variables, runs the plain Python statement.
A traced tensor stages the statement as graph control flow: ``if`` as ``fe.cond``,
``while`` (and ``for`` over a traced ``fe.range``) as ``fe.while_loop``, with the
statement's variables (the state the converter passes: every name the statement assigns)
going in and coming out. State values are checked as TensorFlow's AutoGraph checks them,
with its messages. Outside a trace every operator is the plain Python statement.
"""
import builtins
import sys
import types

import numpy as np

from .... import _core
from ... import nest
from ....dtypes import as_dtype
from ....errors import OpError
from ....ops import elementwise_ops
from ....ops.array_ops import range as fe_range
from ....ops.elementwise_ops import cast, logical_not
from .. import control_flow
from ..control_flow import _EAGER
from ..tracer import KIND_CONTROL, KIND_EFFECT, _Tracer
from .symbolic import graph_name

Tensor = _core.Tensor
VariableBase = _core.VariableBase

__all__ = [
    "Undefined",
    "UndefinedReturnValue",
    "and_",
    "converted_call",
    "for_iter",
    "for_stmt",
    "if_exp",
    "if_stmt",
    "ld",
    "not_",
    "or_",
    "print_",
    "retval",
    "state",
    "while_stmt",
]


# -- undefined values ---------------------------------------------------------------------
class Undefined:
    """The value of a variable not (or not on every path) assigned: reading it raises.

    ``message`` is what the read raises (a ValueError with TensorFlow's text, such as
    "'x' must also be initialized in the else branch"); without one the read is Python's
    ``UnboundLocalError``."""

    __slots__ = ("message", "symbol_name")

    def __init__(self, symbol_name, message=None):
        self.symbol_name = symbol_name
        self.message = message

    def __repr__(self):
        return "<Undefined %s>" % self.symbol_name


class UndefinedReturnValue:
    """The return value before a converted function's ``return`` ran (None at the end)."""

    __slots__ = ("like", "message")

    def __init__(self, message=None, like=None):
        self.message = message
        self.like = like     # the value a return on another path gave (a loop's template)

    def __repr__(self):
        return "<UndefinedReturnValue>"


def _undefined(x):
    return type(x) is Undefined or type(x) is UndefinedReturnValue


def state(scope, names):
    """The values of ``names`` in ``scope`` (``locals()``), Undefined where unbound."""
    return tuple([scope[n] if n in scope else Undefined(n) for n in names])


def ld(value):
    """A read of a variable the converter may have left undefined."""
    if type(value) is Undefined:
        if value.message:
            raise ValueError(value.message)
        raise UnboundLocalError("cannot access local variable '%s' where it is not "
                                "associated with a value" % value.symbol_name)
    return value


def retval(value):
    """The converted function's return value (None when no ``return`` ran)."""
    if type(value) is UndefinedReturnValue:
        if value.message:
            raise ValueError(value.message)
        return None
    return value


# -- conditions -----------------------------------------------------------------------------
def _traced(x):
    """Whether ``x`` is a tensor computed from the traced function's inputs (or a
    variable, which the graph reads on each call)."""
    tracer = _core.get_tracer()
    if tracer is None:
        return False
    if isinstance(x, VariableBase):
        return True
    if type(x) is not Tensor and not isinstance(x, Tensor):
        return False
    r = tracer.find(x)
    return r is not None and r in tracer.dep


def _as_condition(value, what):
    if isinstance(value, VariableBase):
        value = value._read()
    if value._value.size != 1:
        raise ValueError("%s: the condition must be a scalar tensor (expected shape (), "
                         "got %s)" % (what, tuple(value._value.shape)))
    if value._value.dtype != np.bool_:
        value = cast(value, "bool")
    return value


# -- if -------------------------------------------------------------------------------------
def if_stmt(cond, body, orelse, values, names):
    """``if cond: body else: orelse`` over the state ``values`` (of ``names``): the new
    state. ``body``/``orelse`` take the state and return it."""
    if _traced(cond):
        done = _tf_if(_as_condition(cond, "if statement"), body, orelse, values, names)
        if done is not _EAGER:
            return done
    return body(*values) if cond else orelse(*values)


def _tf_if(cond, body, orelse, values, names):
    tracer = _core.get_tracer()

    def merge(t_out, f_out):
        t_leaves, f_leaves, plan = [], [], []
        for name, a, b in zip(names, t_out, f_out):
            kept = _merge_branch_value(name, a, b)
            if kept is not None:
                plan.append(kept)
                continue
            ta, fb = _convertible(a), _convertible(b)
            _check_same_structure(name, ta, fb)
            t_flat, f_flat = _flat(ta), _flat(fb)
            for x, y in zip(t_flat, f_flat):
                if x.dtype != y.dtype:
                    raise TypeError("'%s' has dtype %s in the main branch, but dtype %s in "
                                    "the else branch" % (name, x.dtype.name, y.dtype.name))
            plan.append((ta, len(t_flat)))
            t_leaves += t_flat
            f_leaves += f_flat

        def pack(outs, pred_true):
            it = iter(outs)
            new = []
            for entry in plan:
                if type(entry) is tuple:
                    structure, n = entry
                    new.append(_pack(structure, [next(it) for _ in range(n)]))
                else:
                    new.append(entry.value)
            return tuple(new)
        return t_leaves, f_leaves, pack
    return control_flow._traced_cond(tracer, cond, lambda: body(*values),
                                     lambda: orelse(*values), merge)


class _Kept:
    """A state value that stays a Python value after a staged ``if``."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _merge_branch_value(name, a, b):
    """A ``_Kept`` when the two branches' values of ``name`` need no graph output (the
    same Python object, equal Python constants, or undefined on a path), else None."""
    if a is b:
        return _Kept(a)
    if _undefined(a) and _undefined(b):      # (keep a return value's type, if known)
        return _Kept(b if type(b) is UndefinedReturnValue and b.like is not None else a)
    for value, branch, other in ((a, "main", b), (b, "else", a)):
        if type(value) is UndefinedReturnValue:
            like = other.like if type(other) is UndefinedReturnValue else other
            return _Kept(UndefinedReturnValue(
                "the %s branch must also have a return statement." % branch,
                like if like is not None and _is_tensor_structure(like) else None))
        if type(value) is Undefined:
            # TensorFlow's error, raised where the variable is read after the ``if``
            return _Kept(Undefined(name, "'%s' must also be initialized in the %s branch"
                                   % (name, branch)))
    for value, branch in ((a, "main"), (b, "else")):
        if value is None:
            return _Kept(Undefined(name, "'%s' is None at the end of the %s branch."
                                   % (name, branch)))
    if type(a) is type(b) and type(a) in (bool, int, float, str) and a == b:
        return _Kept(a)
    if not _is_tensor_structure(a) or not _is_tensor_structure(b):
        raise TypeError("'%s' must be a tensor (or a structure of tensors) to be changed by "
                        "an if statement on a tensor (got %s in the main branch and %s in "
                        "the else branch)" % (name, type(a).__name__, type(b).__name__))
    return None


def _is_tensor_structure(x):
    return all(isinstance(v, (Tensor, VariableBase, bool, int, float, np.ndarray, np.generic))
               for v in _flat(x))


def _convertible(x):
    """``x`` with its leaves as tensors (Python numbers and arrays converted)."""
    def one(v):
        if isinstance(v, VariableBase):
            return v._read()
        if isinstance(v, Tensor):
            return v
        return _core.convert_to_tensor(v)
    if hasattr(x, "_to_components") and not isinstance(x, (Tensor, VariableBase)):
        # an extension value, ragged or sparse tensor: its components
        return x._from_components([_convertible(c) for c in x._to_components()])
    return nest.map_structure(_convertible, x) if nest.is_nested(x) else one(x)


def _flat(x):
    # (the components of extension values, ragged and sparse tensors are state too)
    return nest.flatten(x, expand_composites=True)


def _static_of(x):
    # what an extension value's type holds besides its components (strings, keys, ...)
    return x._static_key() if hasattr(x, "_static_key") else None


def _pack(structure, leaves):
    if nest.is_nested(structure) or hasattr(structure, "_to_components"):
        return nest.pack_sequence_as(structure, leaves, expand_composites=True)
    return leaves[0]


def _check_same_structure(name, a, b):
    why = _structure_difference(a, b)
    if why:
        raise TypeError("'%s' must have the same nested structure in the main and else "
                        "branches:\n\n%s" % (name, why))


def _structure_difference(a, b):
    """Why ``a`` and ``b`` are not the same nested structure (None when they are)."""
    if control_flow._same_structure(a, b) and len(_flat(a)) == len(_flat(b)) and \
            _static_of(a) == _static_of(b):
        return None
    return ("The two structures don't have the same nested structure.\n\nFirst structure: "
            "%s\n\nSecond structure: %s" % (control_flow._shape_of(a),
                                              control_flow._shape_of(b)))


def if_exp(cond, body, orelse):
    """``body() if cond else orelse()`` (a staged ``fe.cond`` on a traced tensor)."""
    if _traced(cond):
        return control_flow.cond(_as_condition(cond, "conditional expression"), body, orelse)
    return body() if cond else orelse()


# -- and / or / not ---------------------------------------------------------------------------
def and_(*operands):
    """``a and b and ...`` (operands as functions: Python's short circuit on Python values,
    ``fe.logical_and`` once a value is a traced tensor)."""
    value = operands[0]()
    for operand in operands[1:]:
        if _traced(value):
            value = _logical("logical_and", value, operand())
        elif not value:
            return value
        else:
            value = operand()
    return value


def or_(*operands):
    """``a or b or ...`` (see ``and_``)."""
    value = operands[0]()
    for operand in operands[1:]:
        if _traced(value):
            value = _logical("logical_or", value, operand())
        elif value:
            return value
        else:
            value = operand()
    return value


def _logical(op, a, b):
    return getattr(elementwise_ops, op)(_as_bool(a), _as_bool(b))


def _as_bool(x):
    if isinstance(x, VariableBase):
        x = x._read()
    if isinstance(x, Tensor):
        if x._value.dtype != np.bool_:
            return cast(x, "bool")
        return x
    return _core.convert_to_tensor(bool(x))


def not_(x):
    """``not x`` (``fe.logical_not`` on a traced tensor)."""
    if _traced(x):
        return logical_not(_as_bool(x))
    return not x


# -- while ----------------------------------------------------------------------------------
def while_stmt(test, body, values, names):
    """``while test: body`` over the state ``values``: the new state. The loop runs in
    Python while its condition is a Python value and is staged as ``fe.while_loop`` from
    the first iteration whose condition is a traced tensor."""
    while True:
        c = test(*values)
        if _traced(c):
            done = _tf_while(test, body, values, names)
            if done is not _EAGER:
                return done
            # the loop cannot be staged: it runs in Python (the trace runs eagerly)
            while test(*values):
                values = body(*values)
            return values
        if not c:
            return values
        values = body(*values)


class _Passed:
    """A state value the staged loop leaves as it is (unchanged by the body)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _tf_while(test, body, values, names):
    """Stage the loop: the loop-carried state entries become ``fe.while_loop`` variables.
    Entries None, or the return value, before the loop take their type from a first trial
    run of the body, as TensorFlow does (placeholder zeros); entries undefined before the
    loop are local to an iteration (read after the loop, they raise TensorFlow's error);
    entries the body leaves as they are pass through."""
    tracer = _core.get_tracer()
    values = list(values)
    missing = [i for i, v in enumerate(values) if type(v) is UndefinedReturnValue or v is None]
    if missing:
        trial = _trial_body(tracer, body, values)
        for i in missing:
            after = trial[i] if trial is not None else values[i]
            if type(after) is UndefinedReturnValue and after.like is not None:
                after = after.like       # returned on some path of the body: its type
            if not _undefined(after) and after is not None and _is_tensor_structure(after):
                after = _convertible(after)
                values[i] = _pack(after, [_zeros_like_value(t) for t in _flat(after)])
    plan = []          # per entry: (structure, count) for loop variables, else _Passed
    flat = []
    for v in values:
        if _undefined(v) or v is None or not _is_tensor_structure(v):
            plan.append(_Passed(v))
            continue
        tv = _convertible(v)
        leaves = _flat(tv)
        plan.append((tv, len(leaves)))
        flat += leaves
    dummy = not flat       # a loop for its effects alone: one unused loop variable
    if dummy:
        flat = [_core.convert_to_tensor(np.int32(0))]

    def unpack(tensors):
        it = iter(tensors)
        out = []
        for entry in plan:
            if type(entry) is _Passed:
                out.append(entry.value)
            else:
                structure, n = entry
                out.append(_pack(structure, [next(it) for _ in range(n)]))
        return out

    def cond_flat(*tensors):
        c = test(*unpack(tensors))
        if isinstance(c, (Tensor, VariableBase)):
            return _as_condition(c, "while statement")
        return _core.convert_to_tensor(bool(c))

    def body_flat(*tensors):
        entry = unpack(tensors)
        new = body(*entry)
        out = []
        for name, entry_v, new_v, p in zip(names, entry, new, plan):
            if type(p) is _Passed:
                if new_v is not p.value and not (_undefined(new_v) and _undefined(p.value)):
                    if _undefined(p.value):
                        continue     # assigned in the body only: local to an iteration
                    raise _NotStageable(name)
                continue
            _check_loop_value(name, entry_v, new_v)
            out += _flat(_convertible(new_v))
        return out + ([tensors[-1]] if dummy else [])
    try:
        done = control_flow._traced_while(tracer, cond_flat, body_flat, flat, flat, None,
                                          None)
    except _NotStageable:
        return _EAGER
    if done is _EAGER:
        return _EAGER
    result = unpack(done)
    for i, (name, p) in enumerate(zip(names, plan)):
        if type(p) is _Passed and type(p.value) is Undefined:
            result[i] = Undefined(name, "'%s' must be defined before the loop." % name)
    return tuple(result)


class _NotStageable(Exception):
    """A loop body changed a state value that cannot be a loop variable (not a tensor)."""


def _trial_body(tracer, body, values):
    """The state after one run of ``body`` traced aside (its graph is dropped), or None
    when that run fails (the staged loop then reports the error)."""
    sub = _Tracer(tracer.name + "/while_trial", allow_variables=False)
    sub.parent = tracer
    try:
        with _core.tracing_into(sub):
            return body(*values)
    except Exception:
        return None
    finally:
        for v, t in sub.snapshots.values():
            v._tensor = t


def _zeros_like_value(t):
    return _core.wrap(np.zeros(t._value.shape, t._value.dtype))


def _check_loop_value(name, before, after):
    """TensorFlow's checks of a loop variable after one iteration."""
    if after is None:
        raise ValueError("'%s' is None at the end of the iteration." % name)
    if _undefined(after):
        raise ValueError("'%s' must be defined before the loop." % name)
    if not _is_tensor_structure(after):
        raise TypeError("'%s' must be a tensor (or a structure of tensors) to be a loop "
                        "variable of a loop on a tensor (got %s after one iteration)"
                        % (name, type(after).__name__))
    b, a = _convertible(before), _convertible(after)
    why = _structure_difference(b, a)
    if why:
        raise TypeError("'%s' does not have the same nested structure after one "
                        "iteration.\n\n%s" % (name, why))
    for x, y in zip(_flat(b), _flat(a)):
        if x.dtype != y.dtype:
            raise TypeError("'%s' has dtype %s before the loop, but dtype %s after one "
                            "iteration" % (name, x.dtype.name, y.dtype.name))
        if tuple(x.shape) != tuple(y.shape):
            raise ValueError("'%s' has shape %s before the loop, but shape %s after one "
                             "iteration. Use tf.autograph.experimental.set_loop_options "
                             "to set shape invariants."
                             % (name, _shape_text(x.shape), _shape_text(y.shape)))


def _shape_text(shape):
    return "(%s)" % ", ".join(str(d) for d in shape) if len(shape) != 1 else \
        "(%s,)" % shape[0]


# -- for ------------------------------------------------------------------------------------
class _Range:
    """``fe.range``/``range`` with traced arguments in a ``for`` statement: staged as a
    ``fe.while_loop`` over the iterate (TensorFlow elides the range the same way)."""

    def __init__(self, start, limit, delta, dtype):
        self.dtype = dtype
        self.start, self.limit, self.delta = (
            cast(_core.convert_to_tensor(v), dtype) if isinstance(v, (Tensor, VariableBase))
            else _core.convert_to_tensor(np.array(v, dtype)) for v in (start, limit, delta))
        self.delta_value = None if _traced(delta) else float(np.asarray(
            self.delta._value))

    def materialized(self):
        return fe_range(self.start, self.limit, self.delta, dtype=self.dtype)


def for_iter(f, args, kwargs=None):
    """The iterable of a ``for`` statement written as a call: a traced ``fe.range`` (or
    ``range``) becomes a staged loop; other calls are ``converted_call``."""
    kwargs = kwargs or {}
    if (f is fe_range or f is builtins.range) and not set(kwargs) - {"dtype"} and \
            1 <= len(args) <= 3 and any(_traced(a) for a in args):
        bounds = list(args) if len(args) > 1 else [0] + list(args)
        start, limit, delta = (bounds + [1])[:3]
        return _Range(start, limit, delta, _range_dtype((start, limit, delta),
                                                        kwargs.get("dtype")))
    return converted_call(f, args, kwargs)


def _range_dtype(bounds, dtype):
    """``fe.range``'s dtype rule: the one asked for, else float32 when a bound is a Python
    float, else the first tensor bound's dtype (int32 for Python ints)."""
    if dtype is not None:
        return as_dtype(dtype).as_numpy_dtype
    tensors = [b for b in bounds if isinstance(b, (Tensor, VariableBase))]
    for b in tensors:
        if np.dtype(b.dtype.as_numpy_dtype).kind == "f":
            return b.dtype.as_numpy_dtype
    if any(isinstance(b, float) for b in bounds):
        return np.float32
    return tensors[0].dtype.as_numpy_dtype if tensors else np.int32


def for_stmt(iterable, extra_test, body, values, names, iterate_names=()):
    """``for target in iterable: body`` over the state ``values`` (``body(item, *state)``;
    ``extra_test(*state)``: the loop goes on while it holds, from ``break``/``return``).
    A traced ``fe.range`` is staged as a loop; Python iterables, datasets (each element
    taken through the trace's iterator machinery) and tensors (over their first axis,
    whose length the trace knows) run as Python loops, an iteration after a traced
    ``break`` condition running inside an ``if`` on it. ``iterate_names``: the names the
    loop assigns each item to."""
    if type(iterable) is _Range:
        if _core.get_tracer() is not None:
            done = _tf_range_for(iterable, extra_test, body, values, names, iterate_names)
            if done is not _EAGER:
                return done
        iterable = iterable.materialized()
    for item in iterable:
        if extra_test is not None:
            go = extra_test(*values)
            if _traced(go):
                values = if_stmt(go, lambda *s, item=item: body(item, *s),
                                 lambda *s: s, values, names)
                continue
            if not go:
                break
        values = body(item, *values)
    return values


def _tf_range_for(rng, extra_test, body, values, names, iterate_names):
    limit, delta = rng.limit, rng.delta
    # the loop's target, undefined before the loop, starts as the range's start (TF's rule)
    values = tuple(rng.start if n in iterate_names and type(v) is Undefined else v
                   for n, v in zip(names, values))

    def test(i, *st):
        if rng.delta_value is None:
            main = elementwise_ops.logical_or(
                elementwise_ops.logical_and(delta >= 0, i < limit),
                elementwise_ops.logical_and(delta < 0, i > limit))
        else:
            main = i < limit if rng.delta_value >= 0 else i > limit
        if extra_test is not None:
            main = elementwise_ops.logical_and(main, _as_bool(extra_test(*st)))
        return main

    def loop_body(i, *st):
        return (i + delta,) + tuple(body(i, *st))
    done = _tf_while(test, loop_body, (rng.start,) + tuple(values),
                     ("<internal iterate>",) + tuple(names))
    if done is _EAGER:
        return _EAGER
    return tuple(done[1:])


# -- calls ----------------------------------------------------------------------------------
# what converted code calls for a callable (``transformer.converted_callable``): the
# transformer installs it when it loads (it imports this module for the code it makes)
_converted_callable = None


def set_converter(converted_callable):
    global _converted_callable
    _converted_callable = converted_callable


def converted_call(f, args, kwargs=None):
    """``f(*args, **kwargs)`` with ``f`` converted first when it is user code. While
    tracing, an fasteager op that raises an op error is deferred (see ``_deferred``)."""
    if f is builtins.print:
        return print_(*args, **(kwargs or {}))
    target = _converted_callable(f)
    tracer = _core.get_tracer()
    if tracer is not None and target is f and _deferrable(f):
        return _deferred(tracer, f, args, kwargs)
    if kwargs:
        return target(*args, **kwargs)
    return target(*args)


# fasteager modules whose functions have effects or run user code: never deferred
# (fe.function's modules by their place in the engine; map_fn and the graph view are
# not among them, as they were not before they moved there)
_TRACING = __name__.rpartition(".autograph.")[0] + "."
_NOT_DEFERRED = ("fasteager.keras", "fasteager.autograph", "fasteager.data",
                 "fasteager.debugging", "fasteager.summary", "fasteager.saved_model",
                 "fasteager.train", "fasteager.distribute", "fasteager.variables",
                 "fasteager._src.state", "fasteager._src.debugging") + tuple(
    _TRACING + m for m in ("function", "concrete", "tracer", "printing", "autograph",
                           "control_flow", "py_function"))


def _deferrable(f):
    """Whether ``f`` is one of fasteager's op functions (not a method, a class, an
    assertion or a function with effects)."""
    if type(f) is _core.Op:               # fe.add, fe.square ...: a kernel
        return True
    if isinstance(f, type) or isinstance(f, types.MethodType):
        return False
    owner = getattr(f, "__self__", None)
    if owner is not None and not isinstance(owner, types.ModuleType):
        return False                       # a bound method of a fasteager object
    module = getattr(f, "__module__", None) or ""
    if not module.startswith("fasteager.") or module.startswith(_NOT_DEFERRED):
        return False
    return "assert" not in (getattr(f, "__name__", "") or "").lower()


def _deferred(tracer, f, args, kwargs):
    """Call op function ``f`` inside a trace; if it raises an op error
    (``fe.errors.OpError``) before any effect, return a tensor that raises that error
    when something uses it (an op input, a return value, ``numpy()``, ``bool()``,
    printing, a gradient) instead: TensorFlow's graphs prune an op nothing needs, so
    its run-time error never happens. Eager code raises at once."""
    steps, created, pulls = len(tracer.steps), len(tracer.created), len(tracer.pulls)
    try:
        return f(*args, **kwargs) if kwargs else f(*args)
    except OpError as e:
        if len(tracer.created) != created or len(tracer.pulls) != pulls or any(
                s.kind in (KIND_EFFECT, KIND_CONTROL) for s in tracer.steps[steps:]):
            raise
        user = sys._getframe(2)           # the converted code calling converted_call
        e._fe_raised_at = (user.f_code.co_filename, user.f_lineno)   # (for the note)
        return _core.wrap(_core.unusable_value((), None, error=e))


# -- print ----------------------------------------------------------------------------------
class _Symbolic:
    """How a traced tensor prints while tracing: TensorFlow's graph tensor text."""

    __slots__ = ("dtype", "name", "shape", "text")

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, shape, dtype
        self.text = 'Tensor("%s", shape=%s, dtype=%s)' % (name, shape, dtype)

    def __str__(self):
        return self.text

    def __repr__(self):
        return "<fe.Tensor '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype)

    def __format__(self, spec):
        return format(self.text, spec)


class _SymbolicVariable:
    """How a variable prints while tracing (TensorFlow's text: no value)."""

    __slots__ = ("text",)

    def __init__(self, name, shape, dtype):
        self.text = "<fe.Variable '%s' shape=%s dtype=%s>" % (name, shape, dtype)

    def __str__(self):
        return self.text

    __repr__ = __str__


def print_(*args, **kwargs):
    """Python's ``print`` in converted code: while tracing, tensors computed from the
    function's inputs print as the graph tensors they are (``Tensor("x:0", shape=(),
    dtype=float32)``, as TensorFlow prints them); otherwise unchanged."""
    tracer = _core.get_tracer()
    if tracer is not None:
        def sym(x):
            if isinstance(x, VariableBase):     # (its value is read when the graph runs)
                return _SymbolicVariable(x.name, _shape_text(x.shape), x.dtype.name)
            if not _traced(x):
                return x
            name, shape = graph_name(tracer, x)
            return _Symbolic(name, shape, x.dtype.name)
        args = [nest.map_structure(sym, a) if nest.is_nested(a) else sym(a) for a in args]
    builtins.print(*args, **kwargs)


# where these classes were defined before the engine had layers: printed types stay the same
for _cls in (Undefined, UndefinedReturnValue):
    _cls.__module__ = "fasteager.autograph.operators"
del _cls
