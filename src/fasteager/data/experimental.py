"""``fe.data.experimental``: the names TF 2.0-2.3 programs use from there."""
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY

INFINITE = INFINITE_CARDINALITY
UNKNOWN = UNKNOWN_CARDINALITY


def cardinality(dataset):
    """``dataset.cardinality()``."""
    return dataset.cardinality()


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype="int64"):
    """A transformation for ``dataset.apply``: ``dataset.ragged_batch(...)``."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality",
           "dense_to_ragged_batch"]
