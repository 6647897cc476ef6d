"""``fe.data``: input pipelines (``fe.data.Dataset``), as ``tf.data``.

>>> ds = fe.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)
>>> for images, labels in ds:
...     train_step(images, labels)
"""
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
