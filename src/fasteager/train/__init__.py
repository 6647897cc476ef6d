"""``fe.train``: the TF1 optimizers of the 2017 eager API and the global step.

Checkpoints (``fe.train.Checkpoint`` and friends) live beside these in this package.
"""
from .legacy import (AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer,  # noqa: F401
                     Optimizer, RMSPropOptimizer, create_global_step, get_global_step,
                     get_or_create_global_step)
from .checkpoint import (Checkpoint, CheckpointLoadStatus, CheckpointManager,  # noqa: F401,E402
                         latest_checkpoint)
from .reader import (CheckpointReader, list_variables, load_checkpoint,  # noqa: F401,E402
                     load_variable)
from .example import BytesList, Example, Feature, Features, FloatList, Int64List  # noqa: F401,E402
