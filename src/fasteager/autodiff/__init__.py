"""``fe.autodiff``: TensorFlow's ``tf.autodiff`` namespace (``GradientTape``,
``ForwardAccumulator``) with fasteager's forward-mode functions (``jvp``, ``linearize``) and
the reverse-mode helpers. The implementation is in ``fasteager._src.autodiff``."""
from .._src.autodiff.forward import ForwardAccumulator, jvp, linearize, output_tangents
from .._src.autodiff.tape import (
    GradientTape,
    UnconnectedGradients,
    custom_gradient,
    gradients_function,
    implicit_gradients,
    implicit_value_and_gradients,
    value_and_gradients_function,
)

__all__ = ["ForwardAccumulator", "GradientTape", "UnconnectedGradients", "custom_gradient",
    "gradients_function", "implicit_gradients", "implicit_value_and_gradients", "jvp",
    "linearize", "output_tangents", "value_and_gradients_function"]
