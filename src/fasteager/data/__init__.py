"""``fe.data``: input pipelines (``fe.data.Dataset``), as ``tf.data``.

>>> ds = fe.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)
>>> for images, labels in ds:
...     train_step(images, labels)
"""
import importlib as _importlib
import warnings as _warnings

from . import experimental
# the dataset kinds register with Dataset's methods (dataset.register) as they load
from . import sampling as _sampling  # noqa: F401
from . import sources as _sources  # noqa: F401
from . import transforms as _transforms  # noqa: F401
from . import windowing as _windowing  # noqa: F401
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, OwnedIterator
from .sources import TextLineDataset, TFRecordDataset
from .structure import DatasetSpec, TensorSpec

Iterator = OwnedIterator

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "DatasetSpec",
           "Iterator", "TensorSpec", "TextLineDataset", "TFRecordDataset", "experimental"]

# Module paths that moved (old attribute -> new module): the old name still works for one
# release and warns (DeprecationWarning).
_DEPRECATED = {"composite": "fasteager._src.composite.leaves"}


def __getattr__(name):
    target = _DEPRECATED.get(name)
    if target is None:
        raise AttributeError("module 'fasteager.data' has no attribute %r" % (name,))
    _warnings.warn("fasteager.data.%s is deprecated and will be removed in the next release: "
                   "it moved to %s, which is private; use the names fasteager.data exports"
                   % (name, target), DeprecationWarning, stacklevel=2)
    return _importlib.import_module(target)
