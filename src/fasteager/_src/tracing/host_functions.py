"""Python code that runs on every call of a traced function: ``tf.numpy_function`` and
``tf.timestamp`` (both go through ``py_function`` when traced)."""
import builtins
import functools
import time as _time

import numpy as np

from ... import _core
from ...dtypes import as_dtype
from ...ops.array_ops import stop_gradient
from .. import nest
from .py_function import py_function

VariableBase = _core.VariableBase


def timestamp(name=None):
    """The current time in seconds since the epoch, a float64 scalar; inside ``fe.function``
    it is read again on every call."""
    if _core.get_tracer() is None:
        return _core.wrap(np.asarray(_time.time(), np.float64))
    return py_function(lambda: np.asarray(_time.time(), np.float64), [], np.float64)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Call ``func`` on the NumPy values of ``inp`` and return its results as tensors of
    ``Tout`` (a dtype, a list of dtypes, or None), also inside ``fe.function``, where it
    runs on every call. Not differentiable: gradients through it are None. A NumPy array
    returned keeps its dtype (TensorFlow's eager behaviour); Python values take ``Tout``'s.
    Without ``func`` it is a decorator.

    >>> fe.numpy_function(lambda a: a * 2, [fe.constant([1., 2.])], fe.float32).numpy()
    array([2., 4.], dtype=float32)
    """

    if func is None:
        return lambda f: numpy_function(f, inp, Tout, stateful, name)
    if inp is None:
        @functools.wraps(func)
        def decorated(*args):
            return numpy_function(func, list(args), Tout, stateful, name)
        return decorated
    leaves = inp if isinstance(inp, (list, builtins.tuple)) else [inp]
    flat = [stop_gradient(x._read() if isinstance(x, VariableBase)
                          else _core.convert_to_tensor(x)) for x in nest.flatten(list(leaves))]
    dtypes = Tout if isinstance(Tout, (list, builtins.tuple)) else [Tout]

    def on_arrays(*tensors):
        args = nest.pack_sequence_as(list(leaves), [t.numpy() for t in tensors])
        result = func(*args)
        if Tout is None:
            return result
        results = list(result) if isinstance(Tout, (list, builtins.tuple)) else [result]
        if len(results) != len(dtypes):
            raise ValueError("numpy_function %s: func returned %d values (expected %d, one per "
                             "Tout entry)" % (name or getattr(func, "__name__", "func"),
                                              len(results), len(dtypes)))
        out = [_core.convert_to_tensor(r) if isinstance(r, np.ndarray)
               else _core.convert_to_tensor(r, as_dtype(d)) for r, d in zip(results, dtypes)]
        return out if isinstance(Tout, (list, builtins.tuple)) else out[0]

    if Tout is None:
        py_function(on_arrays, flat, None, name)
        return None
    if _core.get_tracer() is None:
        return on_arrays(*flat)
    # a trace's step has Tout's dtypes: py_function checks them
    return py_function(on_arrays, flat, Tout, name or getattr(func, "__name__", "func"))
