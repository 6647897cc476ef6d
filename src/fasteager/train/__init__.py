"""``fe.train``: checkpoints (``fe.train.Checkpoint`` and friends), ``tf.train.Example``,
the global step and the TF1 optimizers of the 2017 eager API.

The TF1 optimizers are built on the Keras optimizer base (a layer above): they load on
first use (``fe.train.AdamOptimizer``), so ``import fasteager.train`` loads no Keras.
"""
from . import legacy as _legacy
from .legacy import create_global_step, get_global_step, get_or_create_global_step  # noqa: F401
from .checkpoint import (Checkpoint, CheckpointLoadStatus, CheckpointManager,  # noqa: F401,E402
                         latest_checkpoint)
from .reader import (CheckpointReader, list_variables, load_checkpoint,  # noqa: F401,E402
                     load_variable)
from .example import BytesList, Example, Feature, Features, FloatList, Int64List  # noqa: F401,E402


def __getattr__(name):
    if name in _legacy.OPTIMIZERS:   # loads Keras on first use (see train/legacy.py)
        return getattr(_legacy, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def __dir__():
    return sorted(set(globals()) | set(_legacy.OPTIMIZERS))
