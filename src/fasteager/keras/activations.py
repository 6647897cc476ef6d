"""Activation functions (``fe.keras.activations``) under Keras's names.

>>> fe.keras.activations.get("relu")(fe.constant([-1., 2.]))
"""
import fasteager as fe

from . import _ops


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras 3's relu: ``x`` above ``threshold`` (else 0), clipped to ``max_value``, minus
    ``negative_slope * relu(threshold - x)``.

    Composed as Keras 3 composes it, so the gradient at the kinks is Keras's too (0 at
    ``x == 0`` and at ``x == 6`` through relu6, 1 at a ``max_value`` bound through clip).

    >>> relu(fe.constant([-10., 0., 10.]), negative_slope=0.5, max_value=5.)
    """
    x = fe.convert_to_tensor(x)
    negative_part = None
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return _ops.leaky_relu(x, negative_slope)
        negative_part = fe.nn.relu(threshold - x if threshold != 0 else -x)
    clip_max = max_value is not None
    if threshold != 0:
        x = fe.where(x > fe.cast(threshold, x.dtype), x, fe.zeros_like(x))
    elif max_value == 6:
        x = _ops.relu6(x)
        clip_max = False
    else:
        x = fe.nn.relu(x)
    if clip_max:
        x = fe.clip_by_value(x, fe.cast(0.0, x.dtype), fe.cast(max_value, x.dtype))
    if negative_part is not None:
        x = x - negative_slope * negative_part
    return x


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


def leaky_relu(x, negative_slope=0.2):
    return _ops.leaky_relu(x, negative_slope)


def relu6(x):
    return _ops.relu6(x)


def hard_sigmoid(x):
    # Keras 3's piecewise-linear sigmoid, relu6(x + 3) / 6 (TF 2's was 0.2 x + 0.5, clipped)
    x = fe.convert_to_tensor(x)
    return _ops.relu6(x + fe.cast(3.0, x.dtype)) / fe.cast(6.0, x.dtype)


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
