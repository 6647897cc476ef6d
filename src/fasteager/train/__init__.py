"""``fe.train``: the TF1 optimizers of the 2017 eager API and the global step.

Checkpoints (``fe.train.Checkpoint`` and friends) live beside these in this package.
"""
from .legacy import (  # noqa: F401
                     AdamOptimizer,
                     GradientDescentOptimizer,
                     MomentumOptimizer,
                     Optimizer,
                     RMSPropOptimizer,
                     create_global_step,
                     get_global_step,
                     get_or_create_global_step,
)
