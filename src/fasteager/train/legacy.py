"""``fe.train``'s TF1 pieces: the global step, and the TensorFlow 1 optimizers of the
2017 eager API (``GradientDescentOptimizer``, ``AdamOptimizer``, ``MomentumOptimizer``,
``RMSPropOptimizer`` and their base ``Optimizer``).

The optimizers are built on the Keras optimizer base, which sits above this package, so
they live in ``fasteager.keras.optimizers._tf1`` and load on first use through this
module's ``__getattr__`` (``import fasteager.train`` loads no Keras); their
``__module__`` is this module's name.
"""
import importlib

import numpy as np

from .._src.state.variables import Variable
from ..dtypes import int64

OPTIMIZERS = ("AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer",
              "RMSPropOptimizer")


def __getattr__(name):
    if name in OPTIMIZERS:   # Keras is a heavy subsystem above this one: load it lazily
        return getattr(importlib.import_module("fasteager.keras.optimizers._tf1"), name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


_global_step = None


def get_or_create_global_step(graph=None):
    """The process-wide int64 global-step variable (created at 0 on first use)."""
    global _global_step
    if _global_step is None:
        _global_step = Variable(np.int64(0), trainable=False, name="global_step", dtype=int64)
    return _global_step


def get_global_step(graph=None):
    """The global-step variable, or None before :func:`get_or_create_global_step`."""
    return _global_step


def create_global_step(graph=None):
    global _global_step
    _global_step = Variable(np.int64(0), trainable=False, name="global_step", dtype=int64)
    return _global_step


__all__ = list(OPTIMIZERS) + ["create_global_step", "get_global_step",
                              "get_or_create_global_step"]
