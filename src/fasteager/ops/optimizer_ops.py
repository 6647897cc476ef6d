"""Fused in-place optimizer updates on variables (what optimizers call once per variable).

Each ``apply_*`` validates everything first (nothing is modified on an error), takes the
writable buffers of the variable and its slots with ``Variable._mutable_array()`` (copy
on write: a value a tape saved before the update keeps its old contents), converts the
gradient to a C-contiguous array of the variable's dtype, and makes one call to the
matching ``fasteager._kernels`` update. The formulas are Keras 3's (see the kernels).

These updates are not differentiable: they are not ops, record nothing on tapes, and
return None. Hyperparameters may be Python numbers, NumPy scalars, tensors or variables.

>>> v, g = fe.Variable([1., 2.]), fe.constant([.5, .5])
>>> apply_sgd(v, g, lr=0.1)
>>> v.numpy()
array([0.95, 1.95], dtype=float32)
"""
import numpy as np

from .. import _core, _kernels
from ..errors import InvalidArgumentError

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _err(opname, what):
    return InvalidArgumentError("%s: %s" % (opname, what))


def _value(v):
    # the current value without a "read" (no tape watches an optimizer update)
    return v._tensor._value


def _check_var(opname, var):
    if not isinstance(var, _core.VariableBase):
        raise _err(opname, "var must be a fe.Variable (expected Variable, got %s)"
                   % type(var).__name__)
    arr = _value(var)
    if arr.dtype not in _FLOATS:
        raise _err(opname, "var must be float32 or float64 (expected a float variable, got "
                   "%s)" % arr.dtype)
    # dtype and shape only: holding the array itself would make _mutable_array copy it
    return _Like(arr.dtype, arr.shape)


class _Like:
    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, shape


def _check_slot(opname, name, slot, var_arr, seen):
    if not isinstance(slot, _core.VariableBase):
        raise _err(opname, "%s must be a fe.Variable (expected Variable, got %s)"
                   % (name, type(slot).__name__))
    arr = _value(slot)
    if arr.dtype != var_arr.dtype or arr.shape != var_arr.shape:
        raise _err(opname, "%s must match var (expected %s%s, got %s%s)"
                   % (name, var_arr.dtype, list(var_arr.shape), arr.dtype, list(arr.shape)))
    if any(slot is s for s in seen):
        raise _err(opname, "%s is the same variable as another argument (expected distinct "
                   "variables for var and each slot)" % name)
    seen.append(slot)


def _grad(opname, grad, var_arr):
    if isinstance(grad, _core.Tensor):
        g = grad._value
    elif isinstance(grad, _core.VariableBase):
        g = _value(grad)
    else:
        try:
            g = np.asarray(grad)
        except (TypeError, ValueError):
            raise _err(opname, "grad must be a tensor or array (got %s)"
                       % type(grad).__name__) from None
    if g.dtype.kind not in "fiu":
        raise _err(opname, "grad must be numeric (expected %s, got %s)" % (var_arr.dtype, g.dtype))
    if g.shape != var_arr.shape:
        raise _err(opname, "grad must have var's shape (expected %s, got %s)"
                   % (list(var_arr.shape), list(g.shape)))
    return np.ascontiguousarray(g, dtype=var_arr.dtype)


def _scalar(opname, name, v):
    try:
        return float(np.asarray(v._tensor._value if isinstance(v, _core.VariableBase) else v))
    except (TypeError, ValueError):
        raise _err(opname, "%s must be a number (got %r)" % (name, v)) from None


def _run(opname, kernel, *args, **kwargs):
    # the kernels take flat buffers: 0-d and n-d C-contiguous arrays as 1-d views
    args = [a.reshape(-1) if isinstance(a, np.ndarray) and a.ndim != 1 else a for a in args]
    try:
        kernel(*args, **kwargs)
    except ValueError as e:   # arguments were checked above: this is an internal mismatch
        raise _err(opname, str(e).split(": ", 1)[-1]) from None


def apply_sgd(var, grad, lr, momentum=0.0, nesterov=False, velocity_var=None):
    """SGD in place: ``var -= lr * grad``; with momentum, ``velocity = momentum * velocity -
    lr * grad`` and ``var += velocity`` (nesterov: ``var += momentum * velocity - lr * grad``).
    """
    k = "apply_sgd"
    arr = _check_var(k, var)
    lr, momentum = _scalar(k, "lr", lr), _scalar(k, "momentum", momentum)
    seen = [var]
    if momentum != 0.0:
        if velocity_var is None:
            raise _err(k, "momentum needs velocity_var (expected a Variable like var, got None)")
        _check_slot(k, "velocity_var", velocity_var, arr, seen)
    g = _grad(k, grad, arr)
    vel = velocity_var._mutable_array() if momentum != 0.0 else None
    _run(k, _kernels.sgd_update, var._mutable_array(), g, lr, momentum, bool(nesterov), vel)


def apply_adam(var, m_var, v_var, grad, lr, beta_1, beta_2, epsilon, step, weight_decay=0.0,
               vhat_var=None):
    """Adam in place (AdamW with ``weight_decay``, AMSGrad with ``vhat_var``).

    ``step`` counts from 1. ``m = m + (g - m)(1 - beta_1)``, ``v = v + (g^2 - v)(1 - beta_2)``,
    ``var -= lr sqrt(1 - beta_2^step) / (1 - beta_1^step) * m / (sqrt(v) + epsilon)``.
    """
    k = "apply_adam"
    arr = _check_var(k, var)
    seen = [var]
    _check_slot(k, "m_var", m_var, arr, seen)
    _check_slot(k, "v_var", v_var, arr, seen)
    if vhat_var is not None:
        _check_slot(k, "vhat_var", vhat_var, arr, seen)
    scal = [_scalar(k, n, v) for n, v in (("lr", lr), ("beta_1", beta_1), ("beta_2", beta_2),
                                          ("epsilon", epsilon), ("step", step),
                                          ("weight_decay", weight_decay))]
    if not scal[4] >= 1:
        raise _err(k, "step counts from 1 (expected step >= 1, got %r)" % scal[4])
    g = _grad(k, grad, arr)
    vhat = None if vhat_var is None else vhat_var._mutable_array()
    _run(k, _kernels.adam_update, var._mutable_array(), m_var._mutable_array(),
         v_var._mutable_array(), g, scal[0], scal[1], scal[2], scal[3], scal[4], scal[5], vhat)


def apply_rmsprop(var, rms_var, grad, lr, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False,
                  mom_var=None, mg_var=None):
    """RMSprop in place: ``rms = rho rms + (1 - rho) g^2``; ``var -= lr g / sqrt(rms + eps)``
    (centered subtracts ``mg^2``, momentum accumulates the increment in ``mom_var``)."""
    k = "apply_rmsprop"
    arr = _check_var(k, var)
    seen = [var]
    _check_slot(k, "rms_var", rms_var, arr, seen)
    lr, rho = _scalar(k, "lr", lr), _scalar(k, "rho", rho)
    momentum, epsilon = _scalar(k, "momentum", momentum), _scalar(k, "epsilon", epsilon)
    if momentum > 0.0:
        if mom_var is None:
            raise _err(k, "momentum > 0 needs mom_var (expected a Variable like var, got None)")
        _check_slot(k, "mom_var", mom_var, arr, seen)
    if centered:
        if mg_var is None:
            raise _err(k, "centered needs mg_var (expected a Variable like var, got None)")
        _check_slot(k, "mg_var", mg_var, arr, seen)
    g = _grad(k, grad, arr)
    mom = mom_var._mutable_array() if momentum > 0.0 else None
    mg = mg_var._mutable_array() if centered else None
    _run(k, _kernels.rmsprop_update, var._mutable_array(), rms_var._mutable_array(), g, lr,
         rho, momentum, epsilon, bool(centered), mom, mg)


def apply_adagrad(var, accum_var, grad, lr, epsilon=1e-7):
    """Adagrad in place: ``accum += g^2``; ``var -= lr g / sqrt(accum + epsilon)``."""
    k = "apply_adagrad"
    arr = _check_var(k, var)
    _check_slot(k, "accum_var", accum_var, arr, [var])
    lr, epsilon = _scalar(k, "lr", lr), _scalar(k, "epsilon", epsilon)
    g = _grad(k, grad, arr)
    _run(k, _kernels.adagrad_update, var._mutable_array(), accum_var._mutable_array(), g, lr,
         epsilon)
