"""``fe.nn``: activations, losses, convolution and pooling (NHWC)."""
from .ops.math_ops import sigmoid, tanh  # noqa: F401
from .ops.nn_ops import relu  # noqa: F401
