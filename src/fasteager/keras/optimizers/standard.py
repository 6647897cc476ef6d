"""SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl, Lion, Lamb and
Adafactor with Keras 3's update rules and defaults.

The first five's ``_update`` is one call of the matching fused kernel in
``fasteager._kernels`` (the formulas are in those kernels' docstrings); the others are
written with NumPy below.
"""
import numpy as np

from ... import _kernels
from ..._src.state.variables import Variable
from .. import _serialization
from .._naming import KerasVariable
from .base import Optimizer, _slot_variable_name


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


# Adadelta, Adamax, Nadam, Ftrl, Lion and Lamb: Keras 3's update_step formulas, written
# with NumPy in the variable's dtype (no fused kernel yet), in place on the buffers.

def _f(var, x):
    """``x`` as a scalar of ``var``'s dtype (keeps float32 arithmetic float32)."""
    return var.dtype.type(x)


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012): ``acc_g = rho * acc_g + (1 - rho) * g**2``;
    ``delta = -sqrt(acc_d + eps) * g / sqrt(acc_g + eps)``;
    ``acc_d = rho * acc_d + (1 - rho) * delta**2``; ``var += lr * delta``.

    >>> opt = fe.keras.optimizers.Adadelta()   # learning_rate=0.001, rho=0.95
    """

    _slot_names = ("accumulated_grad", "accumulated_delta_var")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps,
                         name=name, **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        acc_g, acc_d = slots
        rho, eps = _f(var, self.rho), _f(var, self.epsilon)
        acc_g[...] = rho * acc_g + (_f(var, 1) - rho) * np.square(grad)
        delta = -(np.sqrt(acc_d + eps) * grad / np.sqrt(acc_g + eps))
        acc_d[...] = rho * acc_d + (_f(var, 1) - rho) * np.square(delta)
        var += _f(var, lr) * delta

    def get_config(self):
        c = super().get_config()
        c.update(rho=self.rho, epsilon=self.epsilon)
        return c


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, 2015, section 7.1): ``m += (g - m) * (1 - beta_1)``;
    ``u = max(beta_2 * u, |g|)``; ``var -= lr * m / ((1 - beta_1**t) * (u + epsilon))``.
    """

    _slot_names = ("momentum", "norm")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps,
                         name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        m, u = slots
        b1 = _f(var, self.beta_1)
        m += (grad - m) * (_f(var, 1) - b1)
        np.maximum(_f(var, self.beta_2) * u, np.abs(grad), out=u)
        var -= _f(var, lr) * m / ((_f(var, 1) - b1 ** _f(var, step))
                                 * (u + _f(var, self.epsilon)))

    def get_config(self):
        c = super().get_config()
        c.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        return c


class Nadam(Optimizer):
    """Adam with Nesterov momentum (Dozat, 2016), with Keras's momentum schedule
    ``u_t = beta_1 * (1 - 0.5 * 0.96**t)`` and its running product (one variable of the
    optimizer, created after the slots as Keras 3 does).
    """

    _slot_names = ("momentum", "velocity")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps,
                         name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        # made now so that a checkpoint restored before the first step reaches it; listed
        # in `variables` when Keras 3 builds it: after the first variables' slots
        self._u_product = KerasVariable(np.float32(1.0), trainable=False, name="variable",
                                        path=self.name + "/variable")

    def _track_many(self, variables):
        super()._track_many(variables)
        if self._tracked_variables and not any(v is self._u_product for v in self._variables):
            dtype = self._tracked_variables[0]._tensor._value.dtype
            if dtype != self._u_product._tensor._value.dtype:   # Keras: the first's dtype
                self._u_product = KerasVariable(
                    np.asarray(self._u_product._tensor._value, dtype), trainable=False,
                    name="variable", path=self.name + "/variable")
            self._variables.append(self._u_product)

    def _step_state(self):
        return (self._u_product,)

    def _update_variables(self, arrays, variables, step):
        # once per update, before the variables' steps (Keras's _backend_update_step)
        u = self._u_product._mutable_array()
        u[...] = u * u.dtype.type(self.beta_1) * (1.0 - 0.5 * u.dtype.type(0.96) ** step)
        super()._update_variables(arrays, variables, step)

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        m, v = slots
        one, b1, b2 = _f(var, 1), _f(var, self.beta_1), _f(var, self.beta_2)
        d = _f(var, 0.96)
        u_t = b1 * (one - _f(var, 0.5) * d ** _f(var, step))
        u_t_1 = b1 * (one - _f(var, 0.5) * d ** _f(var, step + 1))
        u_prod = _f(var, self._u_product._tensor._value)
        u_prod_1 = u_prod * u_t_1
        m += (grad - m) * (one - b1)
        v += (np.square(grad) - v) * (one - b2)
        m_hat = u_t_1 * m / (one - u_prod_1) + (one - u_t) * grad / (one - u_prod)
        v_hat = v / (one - b2 ** _f(var, step))
        var -= m_hat * _f(var, lr) / (np.sqrt(v_hat) + _f(var, self.epsilon))

    def get_config(self):
        c = super().get_config()
        c.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        return c


class Ftrl(Optimizer):
    """Follow The Regularized Leader (McMahan et al., 2013), with Keras's L1, L2,
    L2-shrinkage and ``beta`` terms; slots ``accumulator`` (starting at
    ``initial_accumulator_value``) and ``linear``."""

    _slot_names = ("accumulator", "linear")

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
                 beta=0.0, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps,
                         name=name, **kwargs)
        for arg, value, sign in (("initial_accumulator_value", initial_accumulator_value, 1),
                                 ("learning_rate_power", learning_rate_power, -1),
                                 ("l1_regularization_strength", l1_regularization_strength, 1),
                                 ("l2_regularization_strength", l2_regularization_strength, 1),
                                 ("l2_shrinkage_regularization_strength",
                                  l2_shrinkage_regularization_strength, 1)):
            if value * sign < 0.0:
                raise ValueError("Ftrl: `%s` needs to be %s or zero (got %r)"
                                 % (arg, "positive" if sign > 0 else "negative", value))
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def _slot_initial_value(self, slot_name, var_array):
        if slot_name == "accumulator":
            return np.full_like(var_array, self.initial_accumulator_value)
        return np.zeros_like(var_array)

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        accum, linear = slots
        lr_t = _f(var, lr)
        p = _f(var, -self.learning_rate_power)
        # a zero learning rate (a schedule's end) makes the weights NaN, as in Keras
        with np.errstate(divide="ignore", invalid="ignore"):
            l2 = _f(var, self.l2_regularization_strength) + _f(var, self.beta) / (
                _f(var, 2) * lr_t)
            grad_to_use = grad + _f(var, 2 * self.l2_shrinkage_regularization_strength) * var
            new_accum = accum + np.square(grad)
            linear += grad_to_use - (np.power(new_accum, p) - np.power(accum, p)) / lr_t * var
            quadratic = np.power(new_accum, p) / lr_t + _f(var, 2) * l2
            l1 = _f(var, self.l1_regularization_strength)
            var[...] = (np.clip(linear, -l1, l1) - linear) / quadratic
        accum[...] = new_accum

    def get_config(self):
        c = super().get_config()
        c.update(learning_rate_power=self.learning_rate_power,
                 initial_accumulator_value=self.initial_accumulator_value,
                 l1_regularization_strength=self.l1_regularization_strength,
                 l2_regularization_strength=self.l2_regularization_strength,
                 l2_shrinkage_regularization_strength=(
                     self.l2_shrinkage_regularization_strength),
                 beta=self.beta)
        return c


class Lion(Optimizer):
    """Lion (Chen et al., 2023): ``var -= lr * sign(beta_1 * m + (1 - beta_1) * g)``;
    ``m = beta_2 * m + (1 - beta_2) * g``."""

    _slot_names = ("momentum",)

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps,
                         name=name, **kwargs)
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError("Lion: Argument `beta_1` must be in the [0, 1] range. Otherwise, "
                             "the optimizer degenerates to SignSGD. Received: beta_1=%s."
                             % (beta_1,))
        self.beta_1 = beta_1
        self.beta_2 = beta_2

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        (m,) = slots
        one, b1, b2 = _f(var, 1), _f(var, self.beta_1), _f(var, self.beta_2)
        var -= _f(var, lr) * np.sign(m * b1 + grad * (one - b1))
        m[...] = m * b2 + grad * (one - b2)

    def get_config(self):
        c = super().get_config()
        c.update(beta_1=self.beta_1, beta_2=self.beta_2)
        return c


class Lamb(Optimizer):
    """LAMB (You et al., 2020): Adam's bias-corrected step scaled per variable by the
    trust ratio ``||var|| / ||step||`` (1 where either norm is 0)."""

    _slot_names = ("momentum", "velocity")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps,
                         name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        m, v = slots
        one, b1, b2 = _f(var, 1), _f(var, self.beta_1), _f(var, self.beta_2)
        t = _f(var, step)
        m += (grad - m) * (one - b1)
        v += (np.square(grad) - v) * (one - b2)
        update = (m / (one - b1 ** t)) / (np.sqrt(v / (one - b2 ** t))
                                          + _f(var, self.epsilon))
        w_norm = np.sqrt(np.sum(np.square(var)))
        g_norm = np.sqrt(np.sum(np.square(update)))
        ratio = w_norm / g_norm if w_norm > 0 and g_norm > 0 else one
        var -= _f(var, ratio) * _f(var, lr) * update

    def get_config(self):
        c = super().get_config()
        c.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        return c


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern, 2018) as Keras 3 writes it: a variable of rank >= 2
    keeps factored second moments (``r`` over its last axis, ``c`` over the one before)
    from which its ``velocity`` is rebuilt; a smaller one keeps ``velocity`` itself (its
    ``r`` and ``c`` are unused int32 scalars, as in Keras). With ``relative_step`` (and a
    fixed learning rate) the rate is capped at ``1 / sqrt(step)``; the step is scaled by
    ``max(epsilon_2, rms(var))`` and clipped to an RMS of ``clip_threshold``.
    """

    _slot_names = ("r", "c", "velocity")

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30,
                 epsilon_2=1e-3, clip_threshold=1.0, relative_step=True, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps,
                         name=name, **kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    @staticmethod
    def _slot_variable_name(variable, slot):
        if slot not in ("r", "c"):
            return _slot_variable_name(variable, slot)
        # Keras names the factored moments after the variable alone
        base = getattr(variable, "name", None) or "Variable:0"
        return base.removesuffix(":0").rsplit("/", 1)[-1]

    def _slot_initial_value(self, slot_name, var_array):
        if slot_name not in ("r", "c"):
            return np.zeros_like(var_array)
        if var_array.ndim < 2:
            return np.zeros((), np.int32)
        shape = var_array.shape
        return np.zeros(shape[:-1] if slot_name == "r" else shape[:-2] + shape[-1:],
                        var_array.dtype)

    def _update(self, var, grad, lr, slots, step, decay):
        self._decay_in_place(var, decay)
        r, c, v = slots
        one, t = _f(var, 1), _f(var, step)
        lr = _f(var, lr)
        cap = one / np.sqrt(t)
        if self.relative_step and isinstance(self._learning_rate, Variable):
            lr = min(lr, cap)
        alpha = max(_f(var, self.epsilon_2), np.sqrt(np.mean(np.square(var)))) * min(lr, cap)
        reg = np.square(grad) + _f(var, self.epsilon_1)
        beta = one - t ** _f(var, self.beta_2_decay)
        if var.ndim >= 2:
            r[...] = beta * r + (one - beta) * np.mean(reg, axis=-1)
            c[...] = beta * c + (one - beta) * np.mean(reg, axis=-2)
            v[...] = (r / np.mean(r, axis=-1, keepdims=True))[..., None] * c[..., None, :]
        else:
            v[...] = beta * v + (one - beta) * reg
        u = grad / np.sqrt(v)
        u /= max(one, np.sqrt(np.mean(np.square(u))) / _f(var, self.clip_threshold))
        var -= alpha * u

    def get_config(self):
        c = super().get_config()
        c.update(beta_2_decay=self.beta_2_decay, epsilon_1=self.epsilon_1,
                 epsilon_2=self.epsilon_2, clip_threshold=self.clip_threshold,
                 relative_step=self.relative_step)
        return c

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("optimizers", globals(), Optimizer)
