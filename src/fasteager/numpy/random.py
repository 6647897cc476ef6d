"""``fasteager.numpy.random``: NumPy's legacy random API (and ``default_rng``), as tensors.

Seeded with ``seed(s)`` it draws exactly the numbers ``numpy.random`` draws after
``numpy.random.seed(s)`` (its own ``RandomState``, so NumPy's global stream and
``fe.random``'s are untouched). Samples are constants: float64 and int64 as in NumPy.
"""
import numpy as np

from .. import _core
from ..errors import UnimplementedError
from ._promotion import tensor

_state = np.random.RandomState()


def _w(x):
    return _core.wrap(np.asarray(x))


def seed(seed=None):
    """Reseed the stream (as ``numpy.random.seed``)."""
    global _state
    _state = np.random.RandomState(seed)


def get_state():
    return _state.get_state()


def set_state(state):
    _state.set_state(state)


def randn(*shape):
    return _w(_state.randn(*shape))


def rand(*shape):
    return _w(_state.rand(*shape))


def standard_normal(size=None):
    return _w(_state.standard_normal(size))


def random(size=None):
    return _w(_state.random_sample(size))


random_sample = random


def normal(loc=0.0, scale=1.0, size=None):
    return _w(_state.normal(np.asarray(loc), np.asarray(scale), size))


def uniform(low=0.0, high=1.0, size=None):
    return _w(_state.uniform(np.asarray(low), np.asarray(high), size))


def randint(low, high=None, size=None, dtype=int):
    return _w(_state.randint(low, high, size, dtype))


def choice(a, size=None, replace=True, p=None):
    """NumPy's ``choice``: from ``range(a)`` for an int, else a gather from ``a`` (rows)."""
    pr = None if p is None else np.asarray(p)
    if isinstance(a, (int, np.integer)):
        return _w(_state.choice(a, size, replace, pr))
    x = tensor(a)
    idx = _state.choice(x._value.shape[0], size, replace, pr)
    return x[idx]


def permutation(x):
    """NumPy's ``permutation``: of ``range(x)`` for an int, else of ``x``'s rows (a gather)."""
    if isinstance(x, (int, np.integer)):
        return _w(_state.permutation(x))
    t = tensor(x)
    return t[_state.permutation(t._value.shape[0])]


def shuffle(x):
    raise UnimplementedError("fasteager.numpy.random.shuffle is not implemented (it shuffles "
                             "in place and tensors are immutable: use permutation)")


class Generator:
    """NumPy's ``Generator`` (from ``default_rng``), returning tensors."""

    def __init__(self, rng):
        self._rng = rng

    def standard_normal(self, size=None, dtype=np.float64):
        return _w(self._rng.standard_normal(size, dtype))

    def normal(self, loc=0.0, scale=1.0, size=None):
        return _w(self._rng.normal(np.asarray(loc), np.asarray(scale), size))

    def uniform(self, low=0.0, high=1.0, size=None):
        return _w(self._rng.uniform(np.asarray(low), np.asarray(high), size))

    def random(self, size=None, dtype=np.float64):
        return _w(self._rng.random(size, dtype))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        return _w(self._rng.integers(low, high, size, dtype, endpoint))

    def permutation(self, x):
        if isinstance(x, (int, np.integer)):
            return _w(self._rng.permutation(x))
        t = tensor(x)
        return t[self._rng.permutation(t._value.shape[0])]

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        pr = None if p is None else np.asarray(p)
        if isinstance(a, (int, np.integer)):
            return _w(self._rng.choice(a, size, replace, pr))
        t = tensor(a)
        return t[self._rng.choice(t._value.shape[0], size, replace, pr, shuffle=shuffle)]


def default_rng(seed=None):
    """NumPy's ``default_rng``: the same numbers as ``numpy.random.default_rng(seed)``."""
    return Generator(np.random.default_rng(seed))


def __getattr__(name):
    if hasattr(np.random, name):
        raise UnimplementedError("fasteager.numpy.random.%s is not implemented (covered "
                                 "functions: see docs/numpy.md)" % name)
    raise AttributeError("module 'fasteager.numpy.random' has no attribute %r" % name)
