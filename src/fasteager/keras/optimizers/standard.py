"""SGD, Adam, AdamW, RMSprop and Adagrad with Keras 3's update rules and defaults.

Each ``_update`` is one call of the matching fused kernel in ``fasteager._kernels``; the
formulas are in those kernels' docstrings.
"""
from ... import _kernels
from .base import Optimizer


class SGD(Optimizer):
    """Gradient descent, with optional (Nesterov) momentum.

    ``velocity = momentum * velocity - lr * g``; ``var += velocity`` (Nesterov:
    ``var += momentum * velocity - lr * g``); without momentum ``var -= lr * g``.

    >>> opt = fe.keras.optimizers.SGD(learning_rate=0.01, momentum=0.9)
    """

    _slot_names = ("momentum",)

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name="sgd", **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name, **kwargs)
        if not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError("SGD: momentum must be a float in [0, 1] (got %r)" % (momentum,))
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)

    def _slots_used(self):
        return self._slot_names if self.momentum else ()

    def _update(self, var, grad, lr, slots, step, decay):
        if decay:
            self._decay_in_place(var, decay)
        _kernels.sgd_update(var, grad, lr, self.momentum, self.nesterov,
                            slots[0] if slots else None)

    def get_config(self):
        c = super().get_config()
        c.update(momentum=self.momentum, nesterov=self.nesterov)
        return c


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015, section 2's efficient form, with epsilon-hat), optional
    AMSGrad (Reddi et al., 2018).

    >>> opt = fe.keras.optimizers.Adam()   # learning_rate=0.001, epsilon=1e-7
    """

    _slot_names = ("m", "v", "vhat")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adam", **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name, **kwargs)
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)
        self.amsgrad = bool(amsgrad)

    def _slots_used(self):
        return self._slot_names if self.amsgrad else self._slot_names[:2]

    def _update(self, var, grad, lr, slots, step, decay):
        # The kernel applies the decoupled decay itself (as weight_decay * lr).
        _kernels.adam_update(var, slots[0], slots[1], grad, lr, self.beta_1, self.beta_2,
                             self.epsilon, step, decay / lr if lr else 0.0,
                             slots[2] if self.amsgrad else None)

    def get_config(self):
        c = super().get_config()
        c.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon,
                 amsgrad=self.amsgrad)
        return c


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019); Keras's default
    ``weight_decay=0.004``."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adam_w", **kwargs):
        if weight_decay is None:
            raise ValueError("AdamW: weight_decay must be a float (expected a number, got "
                             "None)")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name, **kwargs)


class RMSprop(Optimizer):
    """RMSprop (Hinton, Coursera lecture 6e), optional momentum and centering.

    ``rms = rho * rms + (1 - rho) * g**2``; ``var -= lr * g / sqrt(rms + epsilon)``
    (centered: ``rms - mg**2 + epsilon`` with ``mg`` the moving mean gradient).
    """

    _slot_names = ("rms", "momentum", "mg")

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="rm_sprop", **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name, **kwargs)
        self.rho = float(rho)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.centered = bool(centered)

    def _slots_used(self):
        names = ["rms"]
        if self.momentum > 0:
            names.append("momentum")
        if self.centered:
            names.append("mg")
        return tuple(names)

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        it = iter(slots[1:])
        mom = next(it) if self.momentum > 0 else None
        mg = next(it) if self.centered else None
        _kernels.rmsprop_update(var, slots[0], grad, lr, self.rho, self.momentum,
                                self.epsilon, self.centered, mom, mg)

    def get_config(self):
        c = super().get_config()
        c.update(rho=self.rho, momentum=self.momentum, epsilon=self.epsilon,
                 centered=self.centered)
        return c


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011): ``acc += g**2; var -= lr * g / sqrt(acc + epsilon)``."""

    _slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name="adagrad", **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name, **kwargs)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = float(epsilon)

    def _slot_initial_value(self, slot_name, var_array):
        out = var_array.copy()
        out.fill(self.initial_accumulator_value)
        return out

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        _kernels.adagrad_update(var, slots[0], grad, lr, self.epsilon)

    def get_config(self):
        c = super().get_config()
        c.update(initial_accumulator_value=self.initial_accumulator_value,
                 epsilon=self.epsilon)
        return c
