"""Function wrappers that change how gradients flow through a call:
``recompute_grad`` (recompute the forward pass in the backward pass instead of keeping
it) and ``grad_pass_through`` (an identity gradient around any function)."""
import functools

from ... import _core
from .. import nest
from .tape import GradientTape, custom_gradient

VariableBase = _core.VariableBase


def recompute_grad(f):
    """``f`` with the same values and gradients, whose backward pass runs ``f`` again under
    a tape instead of keeping what its forward pass recorded (TensorFlow's memory saving:
    only ``f``'s inputs are kept). ``f`` may read trainable variables.

    >>> g = fe.recompute_grad(lambda x: fe.sin(x) * x)
    """


    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        @custom_gradient
        def inner(*xs):
            result = f(*xs, **kwargs)

            def grad_fn(*dys, variables=None):
                sources = list(xs) + list(variables or [])
                with GradientTape(watch_accessed_variables=True) as tape:
                    tape.watch(list(xs))
                    again = f(*xs, **kwargs)
                grads = tape.gradient(nest.flatten(again), sources,
                                      output_gradients=list(dys))
                n = len(xs)
                if variables is None:
                    return grads[:n] if n != 1 else grads[0]
                return grads[:n], grads[n:]
            return result, grad_fn
        return inner(*args)
    return wrapper


def grad_pass_through(f):
    """``f`` whose gradient is the identity: the incoming gradient goes to its inputs
    unchanged (``fe.grad_pass_through(fe.round)(x)`` rounds, with gradient 1 in ``x``;
    ``fe.grad_pass_through(v.assign)(y)`` assigns and passes the gradient to ``y``)."""


    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        @custom_gradient
        def inner(*xs):
            def grad_fn(*dys, variables=None):
                grads = dys[0] if len(dys) == 1 else list(dys)
                if variables is not None:
                    return grads, [None] * len(variables)
                return grads
            result = f(*xs, **kwargs)
            if isinstance(result, VariableBase):
                result = result._read()
            return result, grad_fn
        return inner(*args)
    return wrapper
