"""The one initializer family: the ``Initializer`` base every initializer object derives
from, and TensorFlow 2's own initializer objects (``tf.zeros_initializer``,
``tf.ones_initializer``, ``tf.constant_initializer``, ``tf.random_normal_initializer``,
``tf.random_uniform_initializer``). Keras's initializers (``fe.keras.initializers``)
subclass these with Keras's names, arguments and seeding.

An initializer is a callable ``init(shape, dtype)`` that returns a new tensor, with
``get_config()`` / ``from_config(config)`` to round-trip its arguments.
"""
import numpy as np

from ..dtypes import as_dtype
from ..ops import random_ops
from ..ops.array_ops import constant, ones, zeros
from ..ops.registry import as_shape


class Initializer:
    """Base of TensorFlow 2's initializer objects: ``init(shape, dtype=fe.float32)`` returns
    a new tensor; ``get_config()`` / ``from_config(config)`` round-trip the arguments."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError("%s must define __call__" % type(self).__name__)

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


def _shape(shape, what):
    return as_shape(what, shape)


class zeros_initializer(Initializer):
    """Tensors of zeros (``tf.zeros_initializer``)."""

    __module__ = "fasteager"   # its public name (tf.zeros_initializer)

    def __call__(self, shape, dtype=np.float32, **kwargs):
        return zeros(_shape(shape, "zeros_initializer"), dtype=as_dtype(dtype))


class ones_initializer(Initializer):
    """Tensors of ones (``tf.ones_initializer``)."""

    __module__ = "fasteager"   # its public name (tf.ones_initializer)

    def __call__(self, shape, dtype=np.float32, **kwargs):
        return ones(_shape(shape, "ones_initializer"), dtype=as_dtype(dtype))


class constant_initializer(Initializer):
    """Tensors filled with ``value``: a scalar (broadcast), or a list/array with as many
    entries as the shape asks (reshaped), as ``tf.constant_initializer``."""

    __module__ = "fasteager"   # its public name (tf.constant_initializer)

    def __init__(self, value=0):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError("constant_initializer: invalid type for initial value: %s "
                            "(expected a Python scalar, list or tuple of values, or "
                            "numpy.ndarray)" % type(value).__name__)
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        dims = _shape(shape, "constant_initializer")
        arr = np.asarray(self.value)
        if arr.ndim and arr.size != int(np.prod(dims)):
            raise TypeError("constant_initializer: the value has %d elements, but the shape %s "
                            "has %d" % (arr.size, dims, int(np.prod(dims))))
        return constant(self.value, dtype=None if dtype is None else as_dtype(dtype),
                        shape=dims)

    def get_config(self):
        return {"value": self.value}


def _float_dtype(dtype, what):
    d = as_dtype(dtype)
    if not d.is_floating:
        raise ValueError("%s: argument `dtype` is expected to be floating point (got %s)"
                         % (what, d.name))
    return d


class random_normal_initializer(Initializer):
    """Normally distributed tensors (``tf.random_normal_initializer``); with a ``seed``
    every call gives the same values (a stateless draw from ``[seed, 0]``)."""

    __module__ = "fasteager"   # its public name (tf.random_normal_initializer)

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=np.float32, **kwargs):
        d = _float_dtype(dtype, "random_normal_initializer")
        dims = _shape(shape, "random_normal_initializer")
        if self.seed is None:
            return random_ops.normal(dims, self.mean, self.stddev, dtype=d)
        return random_ops.stateless_normal(dims, [self.seed, 0], self.mean, self.stddev, dtype=d)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class random_uniform_initializer(Initializer):
    """Uniformly distributed tensors in ``[minval, maxval)``
    (``tf.random_uniform_initializer``); a ``seed`` makes every call give the same values."""

    __module__ = "fasteager"   # its public name (tf.random_uniform_initializer)

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=np.float32, **kwargs):
        d = as_dtype(dtype)
        if not (d.is_floating or d.is_integer):
            raise ValueError("random_uniform_initializer: invalid dtype %s" % d.name)
        dims = _shape(shape, "random_uniform_initializer")
        if self.seed is None:
            return random_ops.uniform(dims, self.minval, self.maxval, dtype=d)
        return random_ops.stateless_uniform(dims, [self.seed, 0], self.minval, self.maxval, dtype=d)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}

