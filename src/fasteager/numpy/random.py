"""``fasteager.numpy.random``: NumPy's legacy random API, ``RandomState`` and
``default_rng``, returning tensors.

The module-level functions draw from NumPy's own global stream (``numpy.random``'s hidden
``RandomState``), as ``autograd.numpy.random`` does: ``numpy.random.seed(s)`` and
``fasteager.numpy.random.seed(s)`` are the same call, and a program seeding either draws
the numbers NumPy would. ``RandomState(seed)`` and ``default_rng(seed)`` are private
streams with NumPy's numbers. Samples are constants: float64 and int64 as in NumPy.
Importing this module changes no NumPy state; only ``seed``/``set_state`` do, as in NumPy.
"""
import numpy as np

from .. import _core
from ..errors import UnimplementedError
from ._promotion import tensor


def _w(x):
    # samples are NumPy-rules tensors (as everything this namespace makes from non-tensors)
    t = _core.wrap(np.asarray(x))
    t._np_rules = True
    return t


def _np_args(args):
    # tensor arguments (loc, scale, p ...) as their values: samples are constants
    return [np.asarray(a) if isinstance(a, _core.Tensor) else a for a in args]


# NumPy's legacy RandomState methods that return samples (wrapped as tensors); shuffle
# mutates in place and is refused; the rest are below by hand
_SAMPLERS = ("beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma",
             "geometric", "gumbel", "hypergeometric", "laplace", "logistic", "lognormal",
             "logseries", "multinomial", "multivariate_normal", "negative_binomial",
             "noncentral_chisquare", "noncentral_f", "normal", "pareto", "poisson", "power",
             "rand", "randn", "random_integers", "random_sample", "rayleigh", "standard_cauchy",
             "standard_exponential", "standard_gamma", "standard_normal", "standard_t",
             "triangular", "uniform", "vonmises", "wald", "weibull", "zipf", "bytes")


def _sampler(name):
    def sample(self, *args, **kwargs):
        out = getattr(self._rs, name)(*_np_args(args), **kwargs)
        return out if name == "bytes" else _w(out)
    sample.__name__ = sample.__qualname__ = name
    sample.__doc__ = "NumPy's ``RandomState.%s``, as a tensor." % name
    return sample


class RandomState:
    """NumPy's legacy ``RandomState`` (the same numbers for the same seed), returning
    tensors. ``RandomState()`` with no argument seeds from the OS, as NumPy."""

    def __init__(self, seed=None):
        self._rs = seed._rs if isinstance(seed, RandomState) else np.random.RandomState(seed)

    def seed(self, seed=None):
        self._rs.seed(seed)

    def get_state(self, legacy=True):
        return self._rs.get_state(legacy=legacy)

    def set_state(self, state):
        self._rs.set_state(state)

    def random(self, size=None):
        return _w(self._rs.random_sample(size))

    def randint(self, low, high=None, size=None, dtype=int):
        return _w(self._rs.randint(low, high, size, dtype))

    def choice(self, a, size=None, replace=True, p=None):
        """NumPy's ``choice``: from ``range(a)`` for an int, else a gather from ``a``'s rows
        (differentiable in ``a``)."""
        pr = None if p is None else np.asarray(p)
        if isinstance(a, (int, np.integer)):
            return _w(self._rs.choice(a, size, replace, pr))
        x = tensor(a)
        return x[self._rs.choice(x._value.shape[0], size, replace, pr)]

    def permutation(self, x):
        """NumPy's ``permutation``: of ``range(x)`` for an int, else of ``x``'s rows (a
        gather, differentiable in ``x``)."""
        if isinstance(x, (int, np.integer)):
            return _w(self._rs.permutation(x))
        t = tensor(x)
        return t[self._rs.permutation(t._value.shape[0])]

    def shuffle(self, x):
        raise UnimplementedError("fasteager.numpy.random.shuffle is not implemented (it "
                                 "shuffles in place and tensors are immutable: use "
                                 "permutation)")

    def __repr__(self):
        return "RandomState(MT19937)"


for _name in _SAMPLERS:
    setattr(RandomState, _name, _sampler(_name))


class _GlobalState(RandomState):
    """NumPy's global stream itself (looked up at each call, so ``numpy.random.seed`` and
    NumPy's own reseeding are followed)."""

    def __init__(self):
        pass

    @property
    def _rs(self):
        return np.random.mtrand._rand


_global = _GlobalState()


def seed(seed=None):
    """Reseed NumPy's global stream (this is ``numpy.random.seed``)."""
    np.random.seed(seed)


def get_state(legacy=True):
    """The state of NumPy's global stream (``numpy.random.get_state``)."""
    return np.random.get_state(legacy=legacy)


def set_state(state):
    """Set NumPy's global stream (``numpy.random.set_state``)."""
    np.random.set_state(state)


def _module_function(name):
    method = getattr(_global, name)

    def f(*args, **kwargs):
        return method(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "NumPy's ``numpy.random.%s`` (the global stream), as a tensor." % name
    return f


for _name in _SAMPLERS + ("random", "randint", "choice", "permutation", "shuffle"):
    globals()[_name] = _module_function(_name)
ranf = sample = random_sample = globals()["random_sample"]


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
