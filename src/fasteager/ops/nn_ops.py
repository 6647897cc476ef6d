"""Neural-network ops (``fe.nn``): activations, losses, convolution and pooling."""
import numpy as np

from .. import _core
from .math_ops import cast, greater
from .registry import FLOAT, NUMERIC, defop

convert_to_tensor = _core.convert_to_tensor


def _relu_fwd(x):
    return np.maximum(x, 0)


# relu: the gradient passes where x > 0 (the mask is a constant: the second derivative is 0)
relu = defop("relu", _relu_fwd, kinds=NUMERIC,
             grads=[lambda g, ans, x: g * cast(greater(x, 0), g._value.dtype)])
