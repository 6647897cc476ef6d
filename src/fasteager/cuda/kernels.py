"""Kernel loading: ``.cu`` sources read through importlib.resources, compiled with
PyCUDA's ``SourceModule`` on first use, memoised per (module, dtype, context), and each
function ``prepare()``d once so that launches are prepared calls.

Nothing is compiled at import. The modules: ``elementwise`` (generated per dtype from the
table in ``elementwise.py``), ``reduce``, ``matmul``, ``nn``, ``optimizer``, ``random``,
``array``.
"""
import threading

from . import context
from .elementwise import generate
from .sources import read_source

MODULES = ("elementwise", "reduce", "matmul", "nn", "optimizer", "random", "array")
THREADS = 256
_lock = threading.Lock()
_modules = {}       # (name, dtype or None, context handle) -> SourceModule
_functions = {}     # (name, dtype, symbol, context handle) -> prepared function


def source(module, dtype=None):
    """The full CUDA source compiled for ``module`` (and ``dtype`` for elementwise)."""
    if module == "elementwise":
        return generate(dtype)
    return read_source(module + ".cu")


def _context_key():
    return context.driver().Context.get_current().handle


def get_module(module, dtype=None):
    key = (module, str(dtype) if module == "elementwise" else None, _context_key())
    mod = _modules.get(key)
    if mod is None:
        with _lock:
            mod = _modules.get(key)
            if mod is None:
                from pycuda.compiler import SourceModule
                mod = SourceModule(source(module, dtype), no_extern_c=True,
                                   options=["-std=c++17", "-O3"])
                _modules[key] = mod
    return mod


def function(module, symbol, arg_types, dtype=None):
    """The prepared kernel ``symbol`` of ``module``; ``arg_types`` is PyCUDA's prepare
    format (``"P"`` pointer, ``"q"`` int64, ``"i"`` int32, ``"f"``/``"d"``, ``"I"``...)."""
    key = (module, str(dtype), symbol, _context_key())
    fn = _functions.get(key)
    if fn is None:
        fn = get_module(module, dtype).get_function(symbol)
        fn.prepare(arg_types)
        _functions[key] = fn
    return fn


def grid_for(n, threads=THREADS):
    """A 1-D grid for a grid-stride loop over ``n`` elements (capped; loops cover the rest)."""
    return (max(1, min((int(n) + threads - 1) // threads, 65535 * 4)), 1)


def launch(fn, n, *args, threads=THREADS):
    fn.prepared_call(grid_for(n, threads), (threads, 1, 1), *args)
