"""``fe.keras.mixed_precision``: Keras 3's legacy names for dtype policies (``Policy`` is
``DTypePolicy``, ``global_policy``/``set_global_policy`` the global one) and
``LossScaleOptimizer``."""
from .dtype_policies import DTypePolicy, dtype_policy, set_dtype_policy  # noqa: F401
from .optimizers.loss_scale import LossScaleOptimizer  # noqa: F401

Policy = DTypePolicy
global_policy = dtype_policy
set_global_policy = set_dtype_policy
