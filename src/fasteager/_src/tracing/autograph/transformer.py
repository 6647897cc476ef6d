"""AutoGraph's source-to-source half: a Python function's ``ast`` rewritten so that its
control flow calls the operators of ``operators.py`` (imported in the code as ``ag__``).

The passes, on the function's syntax tree (``inspect.getsource`` of its code):

1. ``super()`` becomes ``super(__class__, self)`` (the statement may move into a helper).
2. ``return`` inside control flow becomes ``do_return = True; retval_ = value``; the
   statements after one that may return are guarded by ``if not do_return``, except that
   an ``if`` whose body (or else branch) always returns takes the rest as its other
   branch (TensorFlow's rule: fewer undefined return values).
3. ``break``/``continue`` become flags the same way; a loop with a ``break`` also tests
   ``not break_``, and a loop's ``else`` runs after it, guarded by the flag.
4. Expressions: calls go through ``ag__.converted_call`` (which converts user functions
   and routes ``print``), ``a if c else b`` through ``if_exp``, ``and``/``or``/``not``
   through ``and_``/``or_``/``not_``; reads of the variables control flow assigns through
   ``ld`` (a read of a variable left undefined raises).
5. ``if``/``while``/``for`` become helper functions that take the statement's state (every
   name it assigns) and return it, and one operator call: ``x, y = ag__.if_stmt(test,
   if_body, else_body, ag__.state(locals(), ('x', 'y')), ('x', 'y'))``.

The converted code is compiled with the original file name and line numbers, inside a
factory function whose free variables are the original's, and the new function is built
with the original's globals and closure cells, so names resolve as they did. Conversion
is cached per code object (and the function per function object). A function whose
source is unavailable, a generator, or code that does not parse is left unconverted.
"""
import ast
import functools
import inspect
import logging
import os
import sys
import textwrap
import threading
import types
import weakref

from . import operators

__all__ = ["convert", "converted_callable", "do_not_convert", "set_verbosity", "source_of"]

_log = logging.getLogger("fasteager.autograph")
# TensorFlow's AUTOGRAPH_VERBOSITY: 1 logs functions left unconverted (and why), 3 also
# the converted source of each function
_verbosity = [int(os.environ.get("AUTOGRAPH_VERBOSITY", "0") or 0), False]


def set_verbosity(level, alsologtostdout=False):
    """How much AutoGraph logs (to the ``fasteager.autograph`` logger; also to stdout with
    ``alsologtostdout``), as ``tf.autograph.set_verbosity``: 0 nothing, 1 the functions
    left unconverted and why, 3 also the converted source of each function."""
    _verbosity[:] = [int(level), bool(alsologtostdout)]


def _report(level, message, *args):
    if _verbosity[0] >= level:
        _log.warning(message, *args)
        if _verbosity[1]:
            print(message % args)

_converted_codes = set()     # code objects conversion made: called as they are
_by_function = weakref.WeakKeyDictionary()   # function -> converted function or None
_by_code = {}                # code -> (converted code, source text) or the reason it is not
_lock = threading.RLock()

# modules whose functions are never converted (TensorFlow's rule: the library itself, the
# standard library and the numerical stack)
_LIBRARIES = {"fasteager", "numpy", "scipy", "builtins", "pytest", "_pytest", "pluggy",
              "torch", "tensorflow", "keras", "h5py", "safetensors", "six"}
_NO_CONVERT_FLAG = "__fe_do_not_convert__"
_CO_NOT_CONVERTIBLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | \
    inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE
# calls left as they are: they read or need the calling frame
_FRAME_CALLS = {"locals", "globals", "vars", "super", "eval", "exec", "dir", "__import__"}


def do_not_convert(func=None):
    """Mark ``func`` so that AutoGraph calls it unconverted (``tf.autograph.experimental.
    do_not_convert``); usable as a decorator, with or without parentheses."""
    if func is None:
        return do_not_convert
    try:
        setattr(func, _NO_CONVERT_FLAG, True)
        return func
    except (AttributeError, TypeError):

        @functools.wraps(func)
        def unconverted(*args, **kwargs):
            return func(*args, **kwargs)
        setattr(unconverted, _NO_CONVERT_FLAG, True)
        return unconverted


def _marked(f):
    return getattr(f, _NO_CONVERT_FLAG, False) is True


def convert(fn):
    """``fn`` converted (a function, or a method bound to the same object), or ``fn``
    itself when it cannot be (no source, a generator, marked ``do_not_convert``)."""
    if isinstance(fn, types.MethodType):
        converted = convert(fn.__func__)
        return fn if converted is fn.__func__ else types.MethodType(converted, fn.__self__)
    if not isinstance(fn, types.FunctionType) or _marked(fn) or fn.__code__ in _converted_codes:
        return fn
    with _lock:
        converted = _by_function.get(fn, False)
    if converted is False:
        converted = _new_function(fn)     # (two threads may both make one: either is right)
        with _lock:
            _by_function[fn] = converted
    return fn if converted is None else converted


def converted_callable(f):
    """What converted code calls for ``f``: the converted form of user functions and
    methods, anything else (fasteager, the standard library, builtins, classes, callable
    objects, ``fe.function`` objects) as it is."""
    if isinstance(f, types.FunctionType):
        return convert(f) if _is_user_code(f) else f
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        return convert(f) if _is_user_code(f.__func__) else f
    return f


def _is_user_code(func):
    if func.__code__ in _converted_codes or _marked(func):
        return False
    module = getattr(func, "__module__", None) or ""
    top = module.partition(".")[0]
    return top not in _LIBRARIES and top not in sys.stdlib_module_names


def source_of(fn):
    """The converted source of ``fn`` (``fe.autograph.to_code``); ValueError naming the
    reason when it cannot be converted."""
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        raise ValueError("to_code: %r is not a Python function (got %s)"
                         % (fn, type(fn).__name__))
    entry = _compiled(fn)
    if isinstance(entry, str):
        raise ValueError("to_code: cannot convert %s: %s" % (fn.__qualname__, entry))
    return entry[1]


def _new_function(fn):
    entry = _compiled(fn)
    if isinstance(entry, str):
        _report(1, "AutoGraph could not convert %s, so it runs as written: %s",
                fn.__qualname__, entry)
        return None
    _report(3, "Converted %s:\n%s", fn.__qualname__, entry[1])
    code = entry[0]
    original = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(original[name] if name in original else types.CellType(operators)
                    for name in code.co_freevars)
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new.__dict__.update(fn.__dict__)
    return new


def _compiled(fn):
    code = fn.__code__
    with _lock:
        entry = _by_code.get(code)
        if entry is None:
            entry = _by_code[code] = _compile(fn)
    return entry


def _compile(fn):
    """(converted code object, converted source) for ``fn``'s code, or why not (a str)."""
    code = fn.__code__
    if code.co_flags & _CO_NOT_CONVERTIBLE:
        return "a generator or coroutine"
    try:
        lines = inspect.getsource(code)
        source = textwrap.dedent(lines)
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError) as e:
        return "no source (%s)" % e
    ast.increment_lineno(tree, code.co_firstlineno - 1)
    if code.co_name == "<lambda>":
        node = _lambda_definition(code, tree, len(lines) - len(lines.lstrip(" \t")) -
                                  (len(source) - len(source.lstrip(" \t"))))
        if isinstance(node, str):
            return node
    else:
        node = tree.body[0] if tree.body else None
        if not isinstance(node, ast.FunctionDef) or node.name != code.co_name:
            return "its source is not a function definition"
    # defaults and annotations were evaluated where the function was defined: the new
    # function takes the original's defaults, and the factory evaluates neither
    node.decorator_list = []
    node.returns = None
    node.args.defaults = [ast.Constant(None) for _ in node.args.defaults]
    node.args.kw_defaults = [None if d is None else ast.Constant(None)
                             for d in node.args.kw_defaults]
    for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs + [
            node.args.vararg, node.args.kwarg]:
        if a is not None:
            a.annotation = None
    _Scope(node, "__class__" in code.co_freevars).convert()
    # defined in the factory under another name: the function's own name inside it (a
    # recursive call) must stay the global or free variable it was
    node.name = "__fe_autograph_converted"
    factory = ast.FunctionDef(
        name="__fe_autograph_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg("ag__")], kwonlyargs=[],
                           kw_defaults=[], defaults=[]),
        body=[ast.Assign(targets=[_name(v, ast.Store())], value=ast.Constant(None))
              for v in code.co_freevars] + [node, ast.Return(_name(node.name))],
        decorator_list=[], returns=None)
    ast.copy_location(factory, node)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    node.name = code.co_name
    source = ast.unparse(node)
    node.name = "__fe_autograph_converted"
    namespace = {}
    exec(compile(module, code.co_filename, "exec"), namespace)
    made = namespace["__fe_autograph_factory"](operators)
    converted = made.__code__.replace(co_name=code.co_name, co_qualname=code.co_qualname)
    _remember(converted)
    return converted, source


def _lambda_definition(code, tree, removed):
    """The lambda of ``code`` in ``tree`` (the source lines that hold it, dedented by
    ``removed`` columns) as ``def <lambda>(...): return body``, or why not (a str).
    Among lambdas on its line with its parameters, it is the one whose body spans the
    source positions of its instructions."""
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount +
                              bool(code.co_flags & inspect.CO_VARARGS) +
                              bool(code.co_flags & inspect.CO_VARKEYWORDS)]
    positions = [(line, col, end_line, end_col)
                 for line, end_line, col, end_col in code.co_positions()
                 if line is not None and col is not None and (col, end_col) != (0, 0)]

    def spans(lam):
        b = lam.body
        start, end = (b.lineno, b.col_offset + removed), (b.end_lineno,
                                                         b.end_col_offset + removed)
        return all(start <= (line, col) and (end_line, end_col) <= end
                   for line, col, end_line, end_col in positions)
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and
             n.lineno == code.co_firstlineno and
             tuple(a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs +
                   [x for x in (n.args.vararg, n.args.kwarg) if x]) == params and spans(n)]
    if len(found) != 1:
        return "a lambda whose source cannot be told apart"
    lam = found[0]
    node = ast.FunctionDef(name="<lambda>", args=lam.args,
                           body=[ast.copy_location(ast.Return(lam.body), lam.body)],
                           decorator_list=[], returns=None)
    return ast.copy_location(node, lam)


def _remember(code):
    _converted_codes.add(code)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _remember(c)


# -- syntax helpers ---------------------------------------------------------------------------
def _name(id_, ctx=None):
    return ast.Name(id=id_, ctx=ctx or ast.Load())


def _ag(attr):
    return ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load())


def _call(func, *args):
    return ast.Call(func=func, args=list(args), keywords=[])


def _assign(id_, value):
    return ast.Assign(targets=[_name(id_, ast.Store())], value=value)


def _names_tuple(names, ctx=None):
    return ast.Tuple(elts=[_name(n, ctx) for n in names], ctx=ctx or ast.Load())


def _strings(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _function(name, params, body):
    return ast.FunctionDef(
        name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params],
                                      kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=body or [ast.Pass()], decorator_list=[], returns=None)


def _lambda(body):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                         kw_defaults=[], defaults=[]), body=body)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def _walk(node, into_loops=True):
    """The nodes of ``node``'s scope (not inside nested functions, classes or lambdas;
    with ``into_loops=False`` not inside the bodies of nested loops either)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if isinstance(child, _SCOPES):
                continue
            if not into_loops and isinstance(child, _LOOPS):
                stack.append(child.iter if isinstance(child, ast.For) else child.test)
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _contains(stmts, kind):
    into = kind is ast.Return
    return any(isinstance(n, kind) for s in stmts for n in _walk(s, into_loops=into))


def _definitely(stmts, kind):
    """Whether ``stmts`` always ends in a ``kind`` statement."""
    for s in stmts:
        if isinstance(s, kind):
            return True
        if isinstance(s, ast.If) and _definitely(s.body, kind) and _definitely(s.orelse, kind):
            return True
        if isinstance(s, (ast.With, ast.AsyncWith)) and _definitely(s.body, kind):
            return True
    return False


def _assigned(stmts, exclude):
    """The names ``stmts`` bind in their scope, in order of first binding."""
    seen = {}
    for s in stmts:
        for n in _walk_binding(s):
            for name in _bound_names(n):
                if name not in exclude:
                    seen.setdefault(name, None)
    return list(seen)


def _walk_binding(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _SCOPES):
            continue                 # (its name is bound here; its body is another scope)
        for child in ast.iter_child_nodes(n):
            if isinstance(child, _COMPREHENSIONS):
                stack.extend(x for x in ast.walk(child) if isinstance(x, ast.NamedExpr))
                continue
            stack.append(child)


def _bound_names(n):
    if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
        return [n.id]
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [n.name]
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).partition(".")[0] for a in n.names if a.name != "*"]
    if isinstance(n, ast.ExceptHandler) and n.name:
        return [n.name]
    return []


def _has_jump(stmt):
    """Whether ``stmt`` holds a ``return`` or a ``break``/``continue`` leaving it (such a
    statement stays a Python statement)."""
    if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global,
                          ast.Nonlocal)) for n in _walk(stmt)):
        return True
    if isinstance(stmt, _LOOPS):
        return _contains(stmt.body + stmt.orelse, ast.Break) or \
            _contains(stmt.body + stmt.orelse, ast.Continue)
    return _contains([stmt], ast.Break) or _contains([stmt], ast.Continue)


# -- one function scope ------------------------------------------------------------------------
class _Scope:
    """The conversion of one function definition (nested definitions get their own)."""

    def __init__(self, node, has_class_cell=False):
        self.node = node
        self.has_class_cell = has_class_cell
        self.counter = 0
        self.declared = {n for s in _walk(node) if isinstance(s, (ast.Global, ast.Nonlocal))
                         for n in s.names}
        self.globals = {n for s in _walk(node) if isinstance(s, ast.Global) for n in s.names}
        self.helpers = set()

    def _fresh(self, base):
        self.counter += 1
        name = "%s_%d" % (base, self.counter)
        self.helpers.add(name)
        return name

    def convert(self):
        node = self.node
        if self.has_class_cell and node.args.args:
            self._rewrite_super(node.args.args[0].arg)
        if any(isinstance(n, ast.Return) for s in node.body
               if not isinstance(s, (ast.Return,) + _SCOPES) for n in _walk(s)):
            node.body = ([_assign("do_return", ast.Constant(False)),
                          _assign("retval_", _call(_ag("UndefinedReturnValue")))] +
                         self._lower(node.body, ast.Return, "do_return") +
                         [ast.Return(_call(_ag("retval"), _name("retval_")))])
        node.body = self._lower_loops(node.body)
        state_names = set()
        for s in _walk(node):
            if isinstance(s, (ast.If, ast.For, ast.While)) and s is not node:
                state_names.update(_assigned(s.body + s.orelse, self.declared))
                if isinstance(s, ast.For):
                    state_names.update(_assigned([ast.Assign(targets=[s.target],
                                                             value=ast.Constant(0))],
                                                 self.declared))
        _Expressions(self, state_names).visit_body(node)
        node.body = self._convert_block(node.body)

    # -- pass 1 ------------------------------------------------------------------------------
    def _rewrite_super(self, first):
        for n in _walk(self.node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                    n.func.id == "super" and not n.args and not n.keywords:
                n.args = [_name("__class__"), _name(first)]

    # -- passes 2 and 3: jumps into flags ----------------------------------------------------
    def _lower(self, stmts, kind, flag):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, kind):
                out.append(ast.copy_location(_assign(flag, ast.Constant(True)), s))
                if kind is ast.Return:
                    out.append(ast.copy_location(
                        _assign("retval_", s.value or ast.Constant(None)), s))
                return out
            if not _contains([s], kind):
                out.append(s)
                continue
            body_ends = isinstance(s, ast.If) and _definitely(s.body, kind)
            else_ends = isinstance(s, ast.If) and _definitely(s.orelse, kind)
            self._lower_inside(s, kind, flag)
            out.append(s)
            rest = stmts[i + 1:]
            if rest:
                lowered = self._lower(rest, kind, flag)
                if body_ends:
                    s.orelse = s.orelse + lowered
                elif else_ends:
                    s.body = s.body + lowered
                else:
                    guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(flag)),
                                   body=lowered, orelse=[])
                    out.append(ast.copy_location(guard, rest[0]))
            return out
        return out

    def _lower_inside(self, s, kind, flag):
        if isinstance(s, ast.If):
            s.body = self._lower(s.body, kind, flag)
            s.orelse = self._lower(s.orelse, kind, flag)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            s.body = self._lower(s.body, kind, flag)
        elif isinstance(s, ast.Try):
            s.body = self._lower(s.body, kind, flag)
            for h in s.handlers:
                h.body = self._lower(h.body, kind, flag)
            s.orelse = self._lower(s.orelse, kind, flag)
            s.finalbody = self._lower(s.finalbody, kind, flag)
        elif isinstance(s, (ast.For, ast.While)):
            if kind is ast.Return:
                s.body = self._lower(s.body, kind, flag)
                self._add_loop_test(s, flag)
            s.orelse = self._lower(s.orelse, kind, flag)

    def _add_loop_test(self, loop, flag):
        if isinstance(loop, ast.While):
            loop.test = ast.BoolOp(op=ast.And(), values=[
                ast.UnaryOp(op=ast.Not(), operand=_name(flag)), loop.test])
        else:
            loop._fe_extra = getattr(loop, "_fe_extra", []) + [flag]

    def _lower_loops(self, stmts):
        """``break``/``continue`` of every loop in ``stmts`` (innermost first) as flags."""
        out = []
        for s in stmts:
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list) and not isinstance(s, _SCOPES):
                    setattr(s, field, self._lower_loops(getattr(s, field)))
            if isinstance(s, ast.Try):
                for h in s.handlers:
                    h.body = self._lower_loops(h.body)
            if not isinstance(s, (ast.For, ast.While)):
                out.append(s)
                continue
            before, after = [], []
            if _contains(s.body, ast.Continue):
                flag = self._fresh("continue")
                self.helpers.discard(flag)
                s.body = [ast.copy_location(_assign(flag, ast.Constant(False)), s)] + \
                    self._lower(s.body, ast.Continue, flag)
            if _contains(s.body, ast.Break):
                flag = self._fresh("break")
                self.helpers.discard(flag)
                s.body = self._lower(s.body, ast.Break, flag)
                before.append(ast.copy_location(_assign(flag, ast.Constant(False)), s))
                self._add_loop_test(s, flag)
                if s.orelse:
                    after.append(ast.copy_location(ast.If(
                        test=ast.UnaryOp(op=ast.Not(), operand=_name(flag)),
                        body=s.orelse, orelse=[]), s.orelse[0]))
            elif s.orelse:
                after = s.orelse
            s.orelse = []
            out += before + [s] + after
        return out

    # -- pass 5: control flow into operator calls ---------------------------------------------
    def _convert_block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, ast.If) and not _has_jump(s):
                out += self._if(s)
            elif isinstance(s, ast.While) and not _has_jump(s) and not s.orelse:
                out += self._while(s)
            elif isinstance(s, ast.For) and not _has_jump(s) and not s.orelse:
                out += self._for(s)
            else:
                if not isinstance(s, _SCOPES):
                    for field in ("body", "orelse", "finalbody"):
                        if isinstance(getattr(s, field, None), list):
                            setattr(s, field, self._convert_block(getattr(s, field)))
                    if isinstance(s, ast.Try):
                        for h in s.handlers:
                            h.body = self._convert_block(h.body)
                out.append(s)
        return out

    def _exclude(self):
        return self.declared | self.helpers | {"ag__"}

    def _helper(self, name, params, body, names):
        """A helper function: ``body`` converted, returning the state ``names``."""
        declared = [n for n in _assigned(body, set()) if n in self.declared]
        head = []
        if declared:
            g = [n for n in declared if n in self.globals]
            nl = [n for n in declared if n not in self.globals]
            head += [ast.Global(names=g)] if g else []
            head += [ast.Nonlocal(names=nl)] if nl else []
        # (read through locals(): a name the block deleted, such as an ``except ... as e``
        # name, is undefined, not an error)
        tail = [ast.Return(self._state(names))]
        return _function(name, params, head + self._convert_block(body) + tail)

    def _state_call(self, op, args, names, node):
        call = _call(_ag(op), *args)
        if names:
            stmt = ast.Assign(targets=[_names_tuple(names, ast.Store())], value=call)
        else:
            stmt = ast.Expr(call)
        return ast.copy_location(stmt, node)

    def _state(self, names):
        return _call(_ag("state"), _call(_name("locals")), _strings(names))

    def _if(self, s):
        names = _assigned(s.body + s.orelse, self._exclude())
        body, orelse = self._fresh("if_body"), self._fresh("else_body")
        defs = [self._helper(body, names, s.body, names),
                self._helper(orelse, names, s.orelse, names)]
        for d in defs:
            ast.copy_location(d, s)
        return defs + [self._state_call("if_stmt", [s.test, _name(body), _name(orelse),
                                                    self._state(names), _strings(names)],
                                        names, s)]

    def _while(self, s):
        names = _assigned(s.body, self._exclude())
        test, body = self._fresh("loop_test"), self._fresh("loop_body")
        defs = [_function(test, names, [ast.Return(s.test)]),
                self._helper(body, names, s.body, names)]
        for d in defs:
            ast.copy_location(d, s)
        return defs + [self._state_call("while_stmt", [_name(test), _name(body),
                                                       self._state(names), _strings(names)],
                                        names, s)]

    def _for(self, s):
        target = ast.Assign(targets=[s.target], value=_name("ag__itr"))
        ast.copy_location(target, s)
        iterate_names = [s.target.id] if isinstance(s.target, ast.Name) else []
        names = _assigned([target] + s.body, self._exclude())
        body = self._fresh("loop_body")
        defs = [self._helper(body, ["ag__itr"] + names, [target] + s.body, names)]
        extra = ast.Constant(None)
        flags = getattr(s, "_fe_extra", [])
        if flags:
            test = self._fresh("extra_test")
            checks = [_call(_ag("not_"), _name(f)) for f in flags]
            expr = checks[0] if len(checks) == 1 else _call(
                _ag("and_"), *[_lambda(c) for c in checks])
            defs.append(_function(test, names, [ast.Return(expr)]))
            extra = _name(test)
        for d in defs:
            ast.copy_location(d, s)
        iterable = s.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and \
                isinstance(iterable.func.value, ast.Name) and iterable.func.value.id == "ag__" \
                and iterable.func.attr == "converted_call":
            iterable = ast.copy_location(ast.Call(func=_ag("for_iter"), args=iterable.args,
                                                  keywords=[]), iterable)
        return defs + [self._state_call("for_stmt", [iterable, extra, _name(body),
                                                     self._state(names), _strings(names),
                                                     _strings(iterate_names)], names, s)]


class _Expressions(ast.NodeTransformer):
    """Pass 4: calls, conditional expressions, boolean operators and reads of state names
    (nested function definitions are converted as functions of their own)."""

    def __init__(self, scope, state_names):
        self.scope = scope
        self.state_names = state_names

    def visit_body(self, node):
        for field in ("body",):
            setattr(node, field, [self.visit(s) for s in getattr(node, field)])
        # (decorators, defaults and annotations of the converted function are not its code)

    def visit_FunctionDef(self, node):
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [d if d is None else self.visit(d)
                                 for d in node.args.kw_defaults]
        _Scope(node).convert()
        return node

    def visit_AsyncFunctionDef(self, node):
        return node

    def visit_ClassDef(self, node):
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.state_names:
            return ast.copy_location(_call(_ag("ld"), node), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in _FRAME_CALLS:
            return node
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute) and \
                isinstance(func.func.value, ast.Name) and func.func.value.id == "ag__" and \
                func.func.attr == "ld" and func.args and isinstance(func.args[0], ast.Name) \
                and func.args[0].id in _FRAME_CALLS:
            return node
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == "ag__":
            return node
        args = ast.Tuple(elts=node.args, ctx=ast.Load())
        kwargs = ast.Dict(keys=[None if k.arg is None else ast.Constant(k.arg)
                                for k in node.keywords],
                          values=[k.value for k in node.keywords])
        call_args = [func, args] + ([kwargs] if node.keywords else [])
        return ast.copy_location(_call(_ag("converted_call"), *call_args), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(_call(_ag("if_exp"), node.test, _lambda(node.body),
                                       _lambda(node.orelse)), node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        return ast.copy_location(_call(_ag(op), *[_lambda(v) for v in node.values]), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call(_ag("not_"), node.operand), node)
        return node


operators.set_converter(converted_callable)
