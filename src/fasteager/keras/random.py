"""``fe.keras.random``: Keras 3's random functions on fasteager's stateless random ops.

As in Keras 3 (TensorFlow backend): an integer ``seed`` gives the same values on every
call (the stateless ops' seed ``[seed, 0]``), a ``SeedGenerator`` a new seed per call
(its state ``[seed, n]`` counts up), and ``seed=None`` draws from one process-wide
generator. fasteager's stateless ops give TensorFlow's values, so a seeded draw equals
Keras's; ``gamma`` and ``beta`` (TensorFlow's gamma sampler is not among fasteager's ops)
draw by Marsaglia and Tsang's method from the stateless normal and uniform ops: seeded and
reproducible, with the right distribution, but not Keras's values.
"""
import random as _python_random
import threading

import numpy as np

from .. import dtypes
from .. import random as fe_random
from .._core import convert_to_tensor
from ..ops.array_ops import constant, zeros_like
from ..ops.elementwise_ops import cast
from ..ops.indexing_ops import gather
from ..ops.sort_ops import argsort
from . import _naming, backend

_INT32_MAX = np.iinfo(np.int32).max
_global = []                  # the SeedGenerator seed=None draws from (made on first use)
_global_lock = threading.Lock()


class SeedGenerator:
    """A seed state that advances on each draw: ``keras.random.SeedGenerator(seed=42)``."""

    def __init__(self, seed=None, name=None, **kwargs):
        kwargs.pop("backend", None)
        if kwargs:
            raise ValueError("Unrecognized keyword arguments: %s" % (kwargs,))
        self.name = name if name is not None else backend.unique_name("seed_generator")
        self._initial_seed = seed
        if seed is None:
            seed = _python_random.randint(1, int(1e9))
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError("Argument `seed` must be an integer. Received: seed=%s" % (seed,))
        self._lock = threading.Lock()
        with _naming.name_scope(self.name, caller=self):
            self.state = _naming.KerasVariable(np.array([seed, 0], np.int64), trainable=False,
                                               name="seed_generator_state")

    def next(self, ordered=True):
        """The current seed state; then advance it ([s, n] -> [s, n + 1], or Keras's
        unordered scramble)."""
        with self._lock:
            value = self.state.numpy().copy()
            if ordered:
                self.state.assign(value + np.array([0, 1], np.int64))
            else:
                self.state.assign((value + 1) * 5387 % 933199)
        return value

    def get_config(self):
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _draw_seed(seed):
    """The stateless ops' int32 seed pair, as Keras's draw_seed then _cast_seed."""
    if isinstance(seed, SeedGenerator):
        value = seed.next()
    elif isinstance(seed, int) and not isinstance(seed, bool):
        value = np.array([seed, 0], np.int64)
    elif seed is None:
        with _global_lock:
            if not _global:
                _global.append(SeedGenerator())
        value = _global[0].next(ordered=False)
    else:
        raise ValueError("Argument `seed` must be either an integer or an instance of "
                         "`SeedGenerator`. Received: seed=%s (of type %s)" % (seed, type(seed)))
    return np.mod(value, _INT32_MAX - 1).astype(np.int32)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return fe_random.stateless_normal(shape, _draw_seed(seed), mean=mean, stddev=stddev,
                                      dtype=dtype or backend.floatx())


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    dtype = dtype or backend.floatx()
    return fe_random.stateless_uniform(shape, _draw_seed(seed), minval=cast(minval, dtype),
                                       maxval=cast(maxval, dtype), dtype=dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return fe_random.stateless_truncated_normal(shape, _draw_seed(seed), mean=mean,
                                                stddev=stddev, dtype=dtype or backend.floatx())


def randint(shape, minval, maxval, dtype="int32", seed=None):
    inter = dtype if dtypes.as_dtype(dtype).name in ("int32", "int64") else "int64"
    out = fe_random.stateless_uniform(shape, _draw_seed(seed), minval=minval, maxval=maxval,
                                      dtype=inter)
    return cast(out, dtype)


def categorical(logits, num_samples, dtype="int32", seed=None):
    out = fe_random.stateless_categorical(logits, num_samples, _draw_seed(seed))
    return cast(out, dtype)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Zero each entry with probability ``rate`` and scale the kept ones by 1/(1-rate)."""
    inputs = convert_to_tensor(inputs)
    if rate == 1.0:
        return zeros_like(inputs)
    if rate == 0.0:
        return inputs
    shape = tuple(inputs.shape)
    if noise_shape is not None:
        noise_shape = tuple(shape[i] if d is None else d for i, d in enumerate(noise_shape))
    else:
        noise_shape = shape
    noise = fe_random.stateless_uniform(noise_shape, _draw_seed(seed), dtype=inputs.dtype)
    keep = cast(noise >= rate, inputs.dtype)
    return inputs * constant(1.0 / (1.0 - rate), inputs.dtype) * keep


def shuffle(x, axis=0, seed=None):
    """``x`` with its entries along ``axis`` in a random order."""
    x = convert_to_tensor(x)
    order = argsort(fe_random.stateless_uniform([x.shape[axis]], _draw_seed(seed)))
    return gather(x, order, axis=axis)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    dtype = dtype or backend.floatx()
    return fe_random.stateless_binomial(shape, _draw_seed(seed), counts, probabilities,
                                        output_dtype=dtype)


def _gamma_from_seed(shape, alpha, seed, dtype):
    """Gamma(alpha, 1) samples (Marsaglia-Tsang; alpha < 1 boosted by U**(1/alpha)), each
    rejection round on draws from its own folded-in seed: reproducible for one seed."""
    shape = tuple(int(d) for d in shape)
    alpha = np.broadcast_to(np.asarray(alpha, np.float64), shape)
    invalid = ~(alpha > 0)              # NaN there, as TensorFlow's sampler gives
    alpha = np.where(invalid, 1.0, alpha)
    boost = alpha < 1
    a = np.where(boost, alpha + 1.0, alpha)
    d = a - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.zeros(shape, np.float64)
    pending = np.ones(shape, bool)
    for rnd in range(1000):            # each round accepts > 95% of what is pending
        if not pending.any():
            break
        rseed = fe_random.stateless_fold_in(seed, rnd).numpy()
        z = fe_random.stateless_normal(shape, rseed, dtype=dtypes.float64).numpy()
        u = fe_random.stateless_uniform(shape, fe_random.stateless_fold_in(rseed, 1).numpy(),
                                        dtype=dtypes.float64).numpy()
        v = (1.0 + c * z) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(np.maximum(u, 1e-300))
                            < 0.5 * z * z + d - d * v + d * np.log(np.where(v > 0, v, 1.0)))
        take = pending & ok
        out[take] = (d * v)[take]
        pending &= ~take
    if boost.any():
        u = fe_random.stateless_uniform(shape, fe_random.stateless_fold_in(seed, -1).numpy(),
                                        dtype=dtypes.float64).numpy()
        out = np.where(boost, out * u ** (1.0 / alpha), out)
    out[invalid] = np.nan
    return constant(out.astype(dtypes.as_dtype(dtype).as_numpy_dtype))


def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma(alpha, scale 1) samples of ``shape`` (``alpha`` broadcast to it)."""
    return _gamma_from_seed(shape, alpha, _draw_seed(seed), dtype or backend.floatx())


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta(alpha, beta) samples: X / (X + Y) of two gamma draws (the second seed the first
    plus 12, as Keras 3 derives it)."""
    dtype = dtype or backend.floatx()
    seed1 = _draw_seed(seed)
    x = _gamma_from_seed(shape, alpha, seed1, "float64").numpy()
    y = _gamma_from_seed(shape, beta, seed1 + 12, "float64").numpy()
    return constant((x / (x + y)).astype(dtypes.as_dtype(dtype).as_numpy_dtype))


def set_random_seed(seed):
    """Seed Python's ``random``, NumPy's global generator and fasteager's global seed
    (``fe.random.set_seed``), and start Keras's global SeedGenerator (what unseeded
    ``keras.random`` ops draw from) afresh from them: ``keras.utils.set_random_seed``."""
    if not isinstance(seed, int):
        raise ValueError("Expected `seed` argument to be an integer. Received: seed=%s (of "
                         "type %s)" % (seed, type(seed)))
    _python_random.seed(seed)
    np.random.seed(seed)
    fe_random.set_seed(seed)
    with _global_lock:
        _global.clear()     # remade from the seeded Python generator on next use
