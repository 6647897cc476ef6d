"""Activation functions (``fe.keras.activations``) under Keras's names.

>>> fe.keras.activations.get("relu")(fe.constant([-1., 2.]))
"""
import fasteager as fe

from . import _ops


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    x = fe.convert_to_tensor(x)
    if alpha == 0.0 and max_value is None and threshold == 0.0:
        return fe.nn.relu(x)
    neg = x * alpha if alpha else None
    y = fe.where(x > threshold, x, fe.zeros_like(x) if neg is None else neg - alpha * threshold)
    if max_value is not None:
        y = fe.minimum(y, float(max_value))
    return y


def sigmoid(x):
    return fe.sigmoid(x)


def tanh(x):
    return fe.tanh(x)


def softmax(x, axis=-1):
    return _ops.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return _ops.log_softmax(x, axis=axis)


def linear(x):
    return fe.convert_to_tensor(x)


def elu(x, alpha=1.0):
    return _ops.elu(x, alpha)


def selu(x):
    return _ops.selu(x)


def gelu(x, approximate=False):
    return _ops.gelu(x, approximate)


def swish(x):
    return _ops.silu(x)


silu = swish


def softplus(x):
    return _ops.softplus(x)


def softsign(x):
    x = fe.convert_to_tensor(x)
    return x / (1.0 + fe.abs(x))


def leaky_relu(x, alpha=0.2):
    return _ops.leaky_relu(x, alpha)


def relu6(x):
    return _ops.relu6(x)


def hard_sigmoid(x):
    return fe.clip_by_value(0.2 * fe.convert_to_tensor(x) + 0.5, 0., 1.)


def exponential(x):
    return fe.exp(x)


_BY_NAME = {f.__name__: f for f in (relu, sigmoid, tanh, softmax, log_softmax, linear, elu,
                                     selu, gelu, swish, softplus, softsign, leaky_relu, relu6,
                                     hard_sigmoid, exponential)}
_BY_NAME["silu"] = swish


def serialize(activation):
    for name, f in _BY_NAME.items():
        if f is activation:
            return name
    return getattr(activation, "__name__", repr(activation))


def get(identifier):
    """A callable from a name ('relu'), a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        f = _BY_NAME.get(identifier)
        if f is None:
            raise ValueError("activations.get: unknown activation %r (known: %s)"
                             % (identifier, ", ".join(sorted(_BY_NAME))))
        return f
    if callable(identifier):
        return identifier
    raise ValueError("activations.get: cannot interpret %r as an activation" % (identifier,))
