"""Activation functions (``fe.keras.activations``) under Keras's names.

>>> fe.keras.activations.get("relu")(fe.constant([-1., 2.]))
"""
from .. import math as fe_math
from .. import nn
from .._core import convert_to_tensor
from ..ops import array_ops, elementwise_ops, reduction_ops
from ..ops.array_ops import broadcast_to, ones_like, reshape, shape, split, zeros_like
from ..ops.elementwise_ops import cast, clip_by_value, exp, maximum, minimum, sqrt, square
from ..ops.reduction_ops import reduce_sum
from ..ops.sort_ops import sort
from . import _ops, _serialization


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras 3's relu: ``x`` above ``threshold`` (else 0), clipped to ``max_value``, minus
    ``negative_slope * relu(threshold - x)``.

    Composed as Keras 3 composes it, so the gradient at the kinks is Keras's too (0 at
    ``x == 0`` and at ``x == 6`` through relu6, 1 at a ``max_value`` bound through clip).

    >>> relu(fe.constant([-10., 0., 10.]), negative_slope=0.5, max_value=5.)
    """
    x = convert_to_tensor(x)
    negative_part = None
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return _ops.leaky_relu(x, negative_slope)
        negative_part = nn.relu(threshold - x if threshold != 0 else -x)
    clip_max = max_value is not None
    if threshold != 0:
        x = elementwise_ops.where(x > cast(threshold, x.dtype), x, zeros_like(x))
    elif max_value == 6:
        x = _ops.relu6(x)
        clip_max = False
    else:
        x = nn.relu(x)
    if clip_max:
        x = clip_by_value(x, cast(0.0, x.dtype), cast(max_value, x.dtype))
    if negative_part is not None:
        x = x - negative_slope * negative_part
    return x


def sigmoid(x):
    return elementwise_ops.sigmoid(x)


def tanh(x):
    return elementwise_ops.tanh(x)


def softmax(x, axis=-1):
    return _ops.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return _ops.log_softmax(x, axis=axis)


def linear(x):
    return convert_to_tensor(x)


def elu(x, alpha=1.0):
    return _ops.elu(x, alpha)


def selu(x):
    return _ops.selu(x)


def gelu(x, approximate=False):
    return _ops.gelu(x, approximate)


def silu(x):
    return _ops.silu(x)


swish = silu    # Keras 3's alias: its __name__ (and so its saved name) is "silu"


def softplus(x):
    return _ops.softplus(x)


def softsign(x):
    x = convert_to_tensor(x)
    return x / (1.0 + elementwise_ops.abs(x))


def leaky_relu(x, negative_slope=0.2):
    return _ops.leaky_relu(x, negative_slope)


def relu6(x):
    return _ops.relu6(x)


def hard_sigmoid(x):
    # Keras 3's piecewise-linear sigmoid, relu6(x + 3) / 6 (TF 2's was 0.2 x + 0.5, clipped)
    x = convert_to_tensor(x)
    return _ops.relu6(x + cast(3.0, x.dtype)) / cast(6.0, x.dtype)


def exponential(x):
    return exp(x)


def _const(value, like):
    return cast(value, like.dtype)


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``, as Keras 3 composes it (so the
    gradient at 0 is Keras's: both max and min pass it)."""
    x = convert_to_tensor(x)
    zero = _const(0.0, x)
    return maximum(x, zero) + _const(alpha, x) * fe_math.expm1(
        minimum(x, zero) / _const(alpha, x))


def glu(x, axis=-1):
    """Gated linear unit: the first half of ``axis`` times the sigmoid of the second."""
    x = convert_to_tensor(x)
    size = x.shape[axis]
    if size is not None and size % 2 != 0:
        raise ValueError("glu: axis size must be divisible by 2. Received: x.shape=%s with "
                         "axis=%s" % (tuple(x.shape), axis))
    x1, x2 = split(x, 2, axis=axis)
    return x1 * elementwise_ops.sigmoid(x2)


def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    x = convert_to_tensor(x)
    return elementwise_ops.where(elementwise_ops.abs(x) > _const(threshold, x), x, zeros_like(x))


def hard_silu(x):
    """``x * hard_sigmoid(x)``."""
    x = convert_to_tensor(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def hard_tanh(x):
    """``x`` clipped to [-1, 1] (gradient 1 at the bounds, as clip_by_value's)."""
    x = convert_to_tensor(x)
    return clip_by_value(x, _const(-1.0, x), _const(1.0, x))


def log_sigmoid(x):
    """``log(sigmoid(x))`` without overflow for large ``|x|``."""
    return fe_math.log_sigmoid(convert_to_tensor(x))


def mish(x):
    """``x * tanh(softplus(x))``."""
    x = convert_to_tensor(x)
    return x * elementwise_ops.tanh(_ops.softplus(x))


def soft_shrink(x, threshold=0.5):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0."""
    x = convert_to_tensor(x)
    t = _const(threshold, x)
    return elementwise_ops.where(x > t, x - t, elementwise_ops.where(x < -t, x + t, zeros_like(x)))


def sparse_plus(x):
    """0 for ``x <= -1``, ``(x + 1)**2 / 4`` on (-1, 1), ``x`` from 1 on."""
    x = convert_to_tensor(x)
    one = _const(1.0, x)
    return elementwise_ops.where(x <= -one, zeros_like(x),
                    elementwise_ops.where(x < one, _const(0.25, x) * square(x + one), x))


def sparse_sigmoid(x):
    """0 for ``x <= -1``, 1 for ``x >= 1``, ``(x + 1) / 2`` between."""
    x = convert_to_tensor(x)
    one = _const(1.0, x)
    return elementwise_ops.where(x <= -one, zeros_like(x),
                    elementwise_ops.where(x >= one, ones_like(x), _const(0.5, x) * (x + one)))


def sparsemax(x, axis=-1):
    """Keras 3.15.1's sparsemax along ``axis``: ``max(x - tau, 0)`` with ``tau`` from the
    sorted values, computed exactly as Keras computes it, gradient through the sort as
    TensorFlow's. Keras's ``tau`` sums the running sums over the support rather than
    taking the last one, so where the support has more than one element its rows are not
    the simplex projection of Martins & Astudillo (2016) and may be all zero; the project
    promises Keras's values, so this keeps them (see docs)."""
    x = convert_to_tensor(x)
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError("sparsemax: axis %d is out of bounds for an input of rank %d"
                         % (axis, rank))
    axis %= rank
    x_sorted = sort(x, axis=axis, direction="DESCENDING")
    cumsum = reduction_ops.cumsum(x_sorted, axis=axis)
    r_shape = [1] * rank
    r_shape[axis] = -1
    r = reshape(array_ops.range(1, shape(x)[axis] + 1, dtype=x.dtype), r_shape)
    one = _const(1.0, x)
    support = x_sorted - (cumsum - one) / r > _const(0.0, x)
    cumsum_safe = elementwise_ops.where(support, cumsum, zeros_like(cumsum))
    k = reduce_sum(cast(support, x.dtype), axis=axis, keepdims=True)
    tau = (reduce_sum(cumsum_safe, axis=axis, keepdims=True) - one) / k
    return maximum(x - tau, _const(0.0, x))


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    x = convert_to_tensor(x)
    return (x + sqrt(square(x) + _const(b, x))) / _const(2.0, x)


def tanh_shrink(x):
    """``x - tanh(x)``."""
    x = convert_to_tensor(x)
    return x - elementwise_ops.tanh(x)


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = convert_to_tensor(x)
    default = broadcast_to(_const(default_value, x), shape(x))
    return elementwise_ops.where(x > _const(threshold, x), x, default)


_BY_NAME = {f.__name__: f for f in (relu, sigmoid, tanh, softmax, log_softmax, linear, elu,
                                     selu, gelu, silu, softplus, softsign, leaky_relu, relu6,
                                     hard_sigmoid, exponential, celu, glu, hard_shrink,
                                     hard_silu, hard_tanh, log_sigmoid, mish, soft_shrink,
                                     sparse_plus, sparse_sigmoid, sparsemax, squareplus,
                                     tanh_shrink, threshold)}
# Keras 3's aliases (serialize gives the function's own name, as Keras: "silu", "hard_silu")
_BY_NAME["swish"] = silu
_BY_NAME["hard_swish"] = hard_silu



def serialize(activation):
    """The name a built-in activation is saved under (its own name: ``serialize(swish)`` is
    ``"silu"``, as Keras 3); a registered or custom function's registered name."""
    for name, f in _BY_NAME.items():
        if f is activation:
            return name
    return getattr(activation, "__name__", repr(activation))


def deserialize(config, custom_objects=None):
    """The activation a name (``"mish"``) or a serialized dict names; custom objects
    (``custom_objects``, registered or in a custom-object scope) come first."""
    if isinstance(config, str):
        f = _serialization.get_registered_object(config, custom_objects, _BY_NAME)
        if f is None:
            raise ValueError("activations.deserialize: unknown activation %r (known: %s)"
                             % (config, ", ".join(sorted(_BY_NAME))))
        return f
    if isinstance(config, dict):
        if config.get("class_name") == "function" and isinstance(config.get("config"), str):
            # Keras 3's form of a plain function: {"class_name": "function", "config": name}
            return deserialize(config["config"], custom_objects)
        f = _serialization.deserialize_keras_object(config, custom_objects,
                                                    where="activations.deserialize")
        if not callable(f):
            raise ValueError("activations.deserialize: config %r does not name an activation"
                             % (config,))
        return f
    raise TypeError("activations.deserialize: expected a name or a config dict, got %r"
                    % (config,))


def get(identifier):
    """A callable from a name ('relu'), a serialized dict, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        f = _BY_NAME.get(identifier)
        if f is None:
            raise ValueError("activations.get: unknown activation %r (known: %s)"
                             % (identifier, ", ".join(sorted(_BY_NAME))))
        return f
    if callable(identifier):
        return identifier
    raise ValueError("activations.get: cannot interpret %r as an activation" % (identifier,))

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_functions("activations", _BY_NAME)
