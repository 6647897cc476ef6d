"""``fe.data.experimental``: the names TF programs use from there (CSV readers, sampling,
counters, and the transformation functions for ``dataset.apply``)."""
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .readers import CsvDataset, make_csv_dataset

INFINITE = INFINITE_CARDINALITY
UNKNOWN = UNKNOWN_CARDINALITY


def cardinality(dataset):
    """``dataset.cardinality()``."""
    return dataset.cardinality()


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype="int64"):
    """A transformation for ``dataset.apply``: ``dataset.ragged_batch(...)``."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def Counter(start=0, step=1, dtype="int64", name=None):
    """``Dataset.counter(start, step, dtype)``: ``start, start + step, ...`` forever."""
    return Dataset.counter(start, step, dtype)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """``Dataset.sample_from_datasets``."""
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """``Dataset.choose_from_datasets`` (here, as in TensorFlow, an exhausted dataset does
    not end the result by default)."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation for ``dataset.apply``: ``dataset.rejection_resample(...)``."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist,
                                                      seed)


__all__ = ["AUTOTUNE", "INFINITE", "INFINITE_CARDINALITY", "UNKNOWN", "UNKNOWN_CARDINALITY",
           "Counter", "CsvDataset", "cardinality", "choose_from_datasets",
           "dense_to_ragged_batch", "make_csv_dataset", "rejection_resample",
           "sample_from_datasets"]
