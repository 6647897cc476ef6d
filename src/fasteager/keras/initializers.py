"""Weight initializers (``fe.keras.initializers``), as Keras defines them.

Random initializers draw from ``fe.random``, so ``fe.random.set_seed`` makes a model's
initial weights reproducible. Each is a callable ``init(shape, dtype=None)`` returning a
tensor; ``get('glorot_uniform')`` resolves names, classes, instances and callables.

>>> init = fe.keras.initializers.get("he_normal")
>>> w = init([784, 128])
"""
import math

import numpy as np

from .. import dtypes
from .. import random as fe_random
from .._src import initializers as _family
from ..ops import array_ops
from . import _serialization


def _fans(shape, input_axes=None, output_axes=None):
    """(fan_in, fan_out) as Keras computes them: a conv kernel's receptive field counts;
    with both ``input_axes`` and ``output_axes`` (Keras 3.15's EinsumDense kernels), the
    product of the sizes along each."""
    shape = [int(d) for d in shape]
    if input_axes is not None and output_axes is not None:
        try:
            return (int(np.prod([shape[a] for a in input_axes])),
                    int(np.prod([shape[a] for a in output_axes])))
        except IndexError:
            raise ValueError("VarianceScaling: input_axes %s and output_axes %s must be axes "
                             "of the shape %s" % (list(input_axes), list(output_axes), shape)
                             ) from None
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


def _dtype(dtype):
    return dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)


class Initializer(_family.Initializer):
    """Base class: subclasses implement ``__call__(shape, dtype=None)``. Keras's initializers
    are the engine's one initializer family (``fe.zeros_initializer`` ...) with Keras's
    names, float32 by default, and Keras's ``from_config`` (every key an argument)."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(_family.zeros_initializer, Initializer):
    def __call__(self, shape, dtype=None):
        return super().__call__(shape, _dtype(dtype))


class Ones(_family.ones_initializer, Initializer):
    def __call__(self, shape, dtype=None):
        return super().__call__(shape, _dtype(dtype))


class Constant(Initializer):
    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None):
        d = _dtype(dtype)
        return array_ops.constant(np.full([int(s) for s in shape], self.value, d.as_numpy_dtype))

    def get_config(self):
        return {"value": self.value}


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return fe_random.normal(shape, self.mean, self.stddev, dtype=_dtype(dtype),
                                seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None):
        return fe_random.uniform(shape, self.minval, self.maxval, dtype=_dtype(dtype),
                                 seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return fe_random.truncated_normal(shape, self.mean, self.stddev, dtype=_dtype(dtype),
                                          seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, n from ``mode`` (Keras's general initializer)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        for name, axes in (("input_axes", input_axes), ("output_axes", output_axes)):
            if axes is not None and (isinstance(axes, (str, bytes)) or not all(
                    isinstance(a, int) and not isinstance(a, bool) for a in axes)):
                raise ValueError("VarianceScaling: %s must be a list of integer axes or None "
                                 "(got %r)" % (name, axes))
        self.input_axes = None if input_axes is None else list(input_axes)
        self.output_axes = None if output_axes is None else list(output_axes)
        if scale <= 0:
            raise ValueError("VarianceScaling: scale must be positive (got %r)" % (scale,))
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("VarianceScaling: mode must be fan_in, fan_out or fan_avg "
                             "(got %r)" % (mode,))
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError("VarianceScaling: unknown distribution %r" % (distribution,))
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = _fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        d = _dtype(dtype)
        if self.distribution == "truncated_normal":
            # 0.879...: the stddev of a unit normal truncated to [-2, 2] (Keras's constant)
            std = math.sqrt(scale) / 0.87962566103423978
            return fe_random.truncated_normal(shape, 0.0, std, dtype=d, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return fe_random.normal(shape, 0.0, math.sqrt(scale), dtype=d, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return fe_random.uniform(shape, -limit, limit, dtype=d, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_avg", "uniform", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class HeNormal(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class HeUniform(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(2.0, "fan_in", "uniform", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class LecunNormal(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class LecunUniform(VarianceScaling):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(1.0, "fan_in", "uniform", seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal sample."""

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None):
        shape = [int(s) for s in shape]
        if len(shape) < 2:
            raise ValueError("Orthogonal: the shape must have rank >= 2 (got %s)" % shape)
        rows = int(np.prod(shape[:-1]))
        cols = shape[-1]
        a = fe_random.normal([max(rows, cols), min(rows, cols)], dtype=dtypes.float64,
                             seed=self.seed).numpy()
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))      # make the decomposition unique (Mezzadri 2007)
        if rows < cols:
            q = q.T
        d = _dtype(dtype)
        return array_ops.constant((self.gain * q.reshape(shape)).astype(d.as_numpy_dtype))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


zeros = Zeros
ones = Ones
constant = Constant
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
he_normal = HeNormal
he_uniform = HeUniform
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
orthogonal = Orthogonal
variance_scaling = VarianceScaling

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal, "he_normal": HeNormal,
    "he_uniform": HeUniform, "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform,
    "orthogonal": Orthogonal,
    "variance_scaling": VarianceScaling,
}


def serialize(initializer):
    for name, cls in _BY_NAME.items():
        if type(initializer) is cls:
            return {"class_name": cls.__name__, "config": initializer.get_config()}
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def get(identifier):
    """An initializer from a name ('he_normal'), a config dict, a class or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier
        if key not in _BY_NAME:
            # Keras also accepts the class names: 'GlorotUniform'
            for name, cls in _BY_NAME.items():
                if cls.__name__ == identifier:
                    key = name
        if key not in _BY_NAME:
            raise ValueError("initializers.get: unknown initializer %r (known: %s)"
                             % (identifier, ", ".join(sorted(_BY_NAME))))
        return _BY_NAME[key]()
    if isinstance(identifier, dict):
        cls = get(identifier["class_name"]).__class__
        return cls(**identifier.get("config", {}))
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError("initializers.get: cannot interpret %r as an initializer" % (identifier,))

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("initializers", globals(), Initializer)
