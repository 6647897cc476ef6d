"""Random numbers (``fe.random``): reproducible given seeds, as TensorFlow's rules.

* ``fe.random.set_seed(s)`` fixes the global seed: the sequence of random ops after it
  is reproducible.
* An op-level ``seed`` with a global seed gives a stream per (global, op) seed pair:
  calling the same op again continues that stream (as TensorFlow does).
* ``fe.random.Generator.from_seed(s)`` is an explicit, independent stream.
NumPy's PCG64 generates the bits.
"""
import threading

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .registry import as_shape

_DEFAULT_GLOBAL_SEED = 87654321
_lock = threading.Lock()
_global_seed = None
_global_rng = np.random.default_rng()
_op_streams = {}
_op_counter = 0


def set_seed(seed):
    """Set the global seed: random ops after this call are reproducible."""
    global _global_seed, _global_rng, _op_counter
    with _lock:
        _global_seed = None if seed is None else int(seed)
        _global_rng = np.random.default_rng(_global_seed)
        _op_streams.clear()
        _op_counter = 0


def get_global_seed():
    return _global_seed


def _rng_for(seed):
    """The generator an op with op-level ``seed`` draws from."""
    global _op_counter
    tracer = _core.get_tracer()
    if tracer is not None:   # fe.function cannot replay a fresh draw: it runs eagerly
        tracer.random_draw()
    if seed is None:
        return _global_rng
    with _lock:
        g = _DEFAULT_GLOBAL_SEED if _global_seed is None else _global_seed
        key = (g, int(seed))
        rng = _op_streams.get(key)
        if rng is None:
            rng = _op_streams[key] = np.random.default_rng([g & 0xFFFFFFFF, int(seed) & 0xFFFFFFFF])
        return rng


def _float_dtype(opname, dtype):
    from ..dtypes import as_dtype
    d = as_dtype(np.float32 if dtype is None else dtype)._np
    if d.kind != "f":
        raise InvalidArgumentError("%s: dtype must be floating (got %s)" % (opname, d))
    return d


def _scalar(v):
    return np.asarray(v).astype(np.float64) if isinstance(v, (_core.Tensor, np.ndarray)) else v


class Generator:
    """An explicit random stream: ``g = fe.random.Generator.from_seed(1); g.normal([2])``."""

    def __init__(self, rng):
        self._rng = rng

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(np.random.default_rng(int(seed)))

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(np.random.default_rng())

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=None, name=None):
        return _normal(self._rng, shape, mean, stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=None, name=None):
        return _uniform(self._rng, shape, minval, maxval, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=None, name=None):
        return _truncated_normal(self._rng, shape, mean, stddev, dtype)

    def split(self, count=1):
        return [Generator(np.random.default_rng(s))
                for s in self._rng.bit_generator.seed_seq.spawn(count)] \
            if hasattr(self._rng.bit_generator, "seed_seq") else \
            [Generator(np.random.default_rng(self._rng.integers(2**63))) for _ in range(count)]


def _normal(rng, shape, mean, stddev, dtype):
    d = _float_dtype("random.normal", dtype)
    out = rng.standard_normal(as_shape("random.normal", shape), dtype=np.float64)
    out = out * _scalar(stddev) + _scalar(mean)
    return _core.wrap(out.astype(d, copy=False))


def _uniform(rng, shape, minval, maxval, dtype):
    from ..dtypes import as_dtype
    d = as_dtype(np.float32 if dtype is None else dtype)._np
    dims = as_shape("random.uniform", shape)
    if d.kind in "iu":
        if maxval is None:
            raise InvalidArgumentError("random.uniform: maxval is required for integer dtypes")
        return _core.wrap(rng.integers(int(minval), int(maxval), size=dims, dtype=d))
    if d.kind != "f":
        raise InvalidArgumentError("random.uniform: dtype must be float or int (got %s)" % d)
    hi = 1.0 if maxval is None else _scalar(maxval)
    lo = _scalar(minval)
    out = rng.random(dims, dtype=np.float64) * (np.asarray(hi) - lo) + lo
    return _core.wrap(out.astype(d, copy=False))


def _truncated_normal(rng, shape, mean, stddev, dtype):
    # redraw values beyond two standard deviations, as TensorFlow does
    d = _float_dtype("random.truncated_normal", dtype)
    dims = as_shape("random.truncated_normal", shape)
    out = rng.standard_normal(dims)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2
    out = out * _scalar(stddev) + _scalar(mean)
    return _core.wrap(np.asarray(out).astype(d, copy=False))


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None):
    """Samples from N(mean, stddev^2) (float32 by default)."""
    return _normal(_rng_for(seed), shape, mean, stddev, dtype)


def uniform(shape, minval=0, maxval=None, dtype=None, seed=None, name=None):
    """Samples from U[minval, maxval) (maxval defaults to 1 for floats)."""
    return _uniform(_rng_for(seed), shape, minval, maxval, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None):
    """Normal samples, redrawn when more than two standard deviations from the mean."""
    return _truncated_normal(_rng_for(seed), shape, mean, stddev, dtype)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Draw class indices from unnormalised log-probabilities ``logits`` of shape (batch, K)."""
    lg = np.asarray(_core.convert_to_tensor(logits)._value, dtype=np.float64)
    if lg.ndim != 2:
        raise InvalidArgumentError("random.categorical: logits must be 2-D (got shape %s)"
                                   % list(lg.shape))
    rng = _rng_for(seed)
    # Gumbel-max: argmax(logits + Gumbel noise) is a sample from softmax(logits)
    gumbel = -np.log(-np.log(rng.random((lg.shape[0], int(num_samples), lg.shape[1]))))
    out = np.argmax(lg[:, None, :] + gumbel, axis=-1)
    from ..dtypes import as_dtype
    return _core.wrap(out.astype(as_dtype(np.int64 if dtype is None else dtype)._np))


def shuffle(value, seed=None, name=None):
    """A random permutation along the first axis."""
    x = _core.convert_to_tensor(value)
    if x._value.ndim == 0:
        raise InvalidArgumentError("random.shuffle: value must have rank >= 1")
    perm = _rng_for(seed).permutation(x._value.shape[0])
    return _core.wrap(x._value[perm])
