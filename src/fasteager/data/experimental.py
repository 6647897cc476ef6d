"""``fe.data.experimental``: the names TF 2.0-2.3 programs use from there."""
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY

INFINITE = INFINITE_CARDINALITY
UNKNOWN = UNKNOWN_CARDINALITY


def cardinality(dataset):
    """``dataset.cardinality()``."""
    return dataset.cardinality()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]
