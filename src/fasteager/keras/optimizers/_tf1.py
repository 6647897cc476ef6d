"""The TensorFlow 1 optimizers of the 2017 eager API (``fe.train.GradientDescentOptimizer``,
``AdamOptimizer``, ``MomentumOptimizer``, ``RMSPropOptimizer``), with TF1's defaults and
update rules.

They share the Keras base class's slots and fused kernels, so they live above it, here;
``fasteager.train`` (a layer below Keras) loads them on first use through its module
``__getattr__``, and they keep the public home users see, ``fasteager.train.legacy``.
What differs from Keras is the TF1 surface: ``apply_gradients(grads_and_vars,
global_step=None)`` increments ``global_step`` when given, ``minimize(loss,
global_step=None, var_list=None)`` takes a zero-argument callable, and ``None`` gradients
are skipped silently.

>>> optimizer = fe.train.GradientDescentOptimizer(learning_rate=0.001)
>>> optimizer.minimize(lambda: loss_function(model, x, y))
"""
import numpy as np

from ... import _kernels
from ..._src.autodiff.tape import GradientTape
from .base import Optimizer as _KerasOptimizer


class Optimizer(_KerasOptimizer):
    """Base of the TF1 optimizers."""

    def __init__(self, use_locking=False, name="Optimizer", learning_rate=0.001):
        super().__init__(learning_rate=learning_rate, name=name)
        self._use_locking = use_locking

    def get_name(self):
        return self.name

    def compute_gradients(self, loss, var_list=None, **kwargs):
        """``[(gradient, variable), ...]`` of a zero-argument callable ``loss``."""
        if not callable(loss):
            raise ValueError("%s.compute_gradients: in eager mode the loss must be a "
                             "callable (expected a function, got %s)"
                             % (type(self).__name__, type(loss).__name__))
        if callable(var_list):
            var_list = var_list()
        with GradientTape() as tape:
            if var_list is not None:
                tape.watch(list(var_list))
            value = loss()
        if var_list is None:
            var_list = [v for v in tape.watched_variables() if v.trainable]
        var_list = list(var_list)
        if not var_list:
            raise ValueError("%s.compute_gradients: no variables to optimize (expected the "
                             "loss to read a trainable variable, got none)"
                             % type(self).__name__)
        return list(zip(tape.gradient(value, var_list), var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Apply one step; skips None gradients; increments ``global_step`` if given."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("%s.apply_gradients: no gradients provided for any variable "
                             "(expected at least one non-None gradient)" % type(self).__name__)
        result = super().apply_gradients(pairs)
        if global_step is not None:
            global_step.assign_add(1)
        return result

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=1,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """``apply_gradients(compute_gradients(loss, var_list), global_step)``."""
        return self.apply_gradients(self.compute_gradients(loss, var_list),
                                    global_step=global_step)

    def get_config(self):
        return {"name": self.name, "learning_rate": float(self._learning_rate._tensor._value)}


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * gradient``."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name, learning_rate)

    def _update(self, var, grad, lr, slots, step, decay):
        _kernels.sgd_update(var, grad, lr)


class MomentumOptimizer(Optimizer):
    """TF1 momentum: ``accum = momentum * accum + g; var -= lr * accum`` (Nesterov:
    ``var -= lr * g + lr * momentum * accum``).

    The slot holds ``-lr * accum`` (the Keras form the fused kernel uses), the same
    trajectory for a constant learning rate.
    """

    _slot_names = ("momentum",)

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name, learning_rate)
        self.momentum = float(momentum)
        self.use_nesterov = bool(use_nesterov)

    def _update(self, var, grad, lr, slots, step, decay):
        _kernels.sgd_update(var, grad, lr, self.momentum, self.use_nesterov, slots[0])


class AdamOptimizer(Optimizer):
    """TF1 Adam: ``lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)``,
    ``var -= lr_t * m / (sqrt(v) + epsilon)`` with TF1's ``epsilon=1e-8``."""

    _slot_names = ("m", "v")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name, learning_rate)
        self.beta1, self.beta2, self.epsilon = float(beta1), float(beta2), float(epsilon)

    def _update(self, var, grad, lr, slots, step, decay):
        _kernels.adam_update(var, slots[0], slots[1], grad, lr, self.beta1, self.beta2,
                             self.epsilon, step)


class RMSPropOptimizer(Optimizer):
    """TF1 RMSProp: ``ms = decay * ms + (1 - decay) * g**2`` (ms starts at ones),
    ``mom = momentum * mom + lr * g / sqrt(ms + epsilon)``, ``var -= mom``."""

    _slot_names = ("rms", "momentum", "mg")

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name, learning_rate)
        self.decay, self.momentum = float(decay), float(momentum)
        self.epsilon, self.centered = float(epsilon), bool(centered)

    def _slots_used(self):
        return ("rms", "momentum", "mg") if self.centered else ("rms", "momentum")

    def _slot_initial_value(self, slot_name, var_array):
        return np.ones_like(var_array) if slot_name == "rms" else np.zeros_like(var_array)

    def _update(self, var, grad, lr, slots, step, decay):
        # With momentum 0 the kernel's "var -= increment" is TF1's mom update with mom=0.
        _kernels.rmsprop_update(var, slots[0], grad, lr, self.decay, self.momentum,
                                self.epsilon, self.centered,
                                slots[1] if self.momentum > 0 else None,
                                slots[2] if self.centered else None)


__all__ = ["AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer",
           "RMSPropOptimizer"]

for _cls in (AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer, Optimizer,
             RMSPropOptimizer):
    _cls.__module__ = "fasteager.train.legacy"   # where users find (and pickle) them
del _cls
