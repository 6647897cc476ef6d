"""How ``fit``/``evaluate``/``predict`` turn their inputs into batches.

Arrays (NumPy, tensors, lists of arrays for several inputs) are sliced into batches with
NumPy indexing (one gather per batch, shuffled by a permutation drawn from
``fe.random``, so ``fe.random.set_seed`` makes ``fit`` reproducible). Anything else that
iterates (an ``fe.data.Dataset``, a generator) yields batches itself: ``(x, y)``,
``(x, y, sample_weight)`` or ``x``.
"""
import itertools

import numpy as np

from .. import random as fe_random
from .._core import Tensor
from .._src.composite.leaves import LEAVES
from .._src.state.variables import Variable
from ..data.structure import to_array
from ..ops.array_ops import constant
from ..ragged import RaggedTensor
from ..sparse import SparseTensor
from ._dataset_utils import PyDataset, standardize_batch


def is_dataset(x):
    if isinstance(x, (np.ndarray, Tensor, Variable, list, tuple, dict, str, bytes)):
        return False
    return hasattr(x, "__iter__")


def _to_numpy(x):
    if x is None:
        return None
    if isinstance(x, (Tensor, Variable)):
        return np.asarray(x.numpy())
    if isinstance(x, (SparseTensor, RaggedTensor)):     # batched by rows, as arrays
        return to_array(x)
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], (np.ndarray, Tensor)):
        return type(x)(_to_numpy(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_numpy(v) for k, v in x.items()}
    return np.asarray(x)


def _length(x):
    if isinstance(x, (list, tuple)):
        return _length(x[0])
    if isinstance(x, dict):
        return _length(next(iter(x.values())))
    return x.shape[0] if x.ndim else 1


def _take(x, idx):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return type(x)(_take(v, idx) for v in x)
    if isinstance(x, dict):
        return {k: _take(v, idx) for k, v in x.items()}
    part = x[idx]
    return part.to_tensor() if isinstance(part, LEAVES) else constant(part)


def _slice(x, start, stop):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return type(x)(_slice(v, start, stop) for v in x)
    if isinstance(x, dict):
        return {k: _slice(v, start, stop) for k, v in x.items()}
    return x[start:stop]


def unpack(data):
    """(x, y, sample_weight) from one batch element, as Keras's unpack_x_y_sample_weight."""
    if isinstance(data, tuple):
        if len(data) == 1:
            return data[0], None, None
        if len(data) == 2:
            return data[0], data[1], None
        if len(data) == 3:
            return data
        raise ValueError("fit: a data element must be x, (x,), (x, y) or (x, y, sample_weight) "
                         "(got a tuple of %d)" % len(data))
    return data, None, None


class DataHandler:
    """Epoch-wise batch iteration over arrays or a dataset, with a known step count if any."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None,
                 shuffle=False, where="fit"):
        self.steps_per_epoch = steps_per_epoch
        self._iter = None
        self.py_dataset = x if isinstance(x, PyDataset) else None
        if self.py_dataset is not None:
            if y is not None:
                raise ValueError("%s: y must not be given when x is a PyDataset (its batches "
                                 "hold the targets)" % where)
            self.dataset = x
            self.arrays = None
            self.shuffle = shuffle
            n = x.num_batches
            self.steps = steps_per_epoch if steps_per_epoch is not None else n
        elif is_dataset(x):
            if y is not None:
                raise ValueError("%s: y must not be given when x is a dataset (the dataset "
                                 "yields (x, y) pairs)" % where)
            self.dataset = x
            self.arrays = None
            n = None
            try:
                card = x.cardinality() if hasattr(x, "cardinality") else len(x)
                n = int(card.numpy() if hasattr(card, "numpy") else card)
                n = n if n >= 0 else None
            except (TypeError, ValueError, AttributeError):
                n = None
            self.steps = steps_per_epoch if steps_per_epoch is not None else n
        else:
            if x is None:
                raise ValueError("%s: x must be given" % where)
            self.dataset = None
            x, y, sample_weight = _to_numpy(x), _to_numpy(y), _to_numpy(sample_weight)
            n = _length(x)
            for name, v in (("y", y), ("sample_weight", sample_weight)):
                if v is not None and _length(v) != n:
                    raise ValueError("%s: x and %s have different numbers of examples (%d and "
                                     "%d)" % (where, name, n, _length(v)))
            self.arrays = (x, y, sample_weight)
            self.n = n
            self.batch_size = int(batch_size or 32)
            if self.batch_size <= 0:
                raise ValueError("%s: batch_size must be positive (got %r)"
                                 % (where, batch_size))
            full = -(-n // self.batch_size)
            self.steps = full if steps_per_epoch is None else min(steps_per_epoch, full)
            self.shuffle = shuffle

    def epoch(self):
        """Yield the batches ``(x, y, sample_weight)`` of one epoch."""
        if self.py_dataset is not None:
            yield from self._py_dataset_epoch()
            return
        if self.dataset is not None:
            if self.steps_per_epoch is None:
                for data in self.dataset:
                    yield unpack(data)
                return
            for _ in range(self.steps_per_epoch):
                if self._iter is None:
                    self._iter = iter(self.dataset)
                try:
                    data = next(self._iter)
                except StopIteration:
                    self._iter = iter(self.dataset)
                    try:
                        data = next(self._iter)
                    except StopIteration:
                        return
                yield unpack(data)
            return
        x, y, sw = self.arrays
        if self.shuffle:
            order = np.asarray(fe_random.shuffle(np.arange(self.n)).numpy())
            for i in range(self.steps):
                idx = order[i * self.batch_size:(i + 1) * self.batch_size]
                yield _take(x, idx), _take(y, idx), _take(sw, idx)
        else:
            for i in range(self.steps):
                s = slice(i * self.batch_size, (i + 1) * self.batch_size)
                yield _take(x, s), _take(y, s), _take(sw, s)

    def _py_dataset_epoch(self):
        # Keras's PyDatasetAdapter: a shuffled batch order when fit shuffles a finite one;
        # an endless one is read in order for steps_per_epoch batches
        data = self.py_dataset
        data.on_epoch_begin()
        count = data.num_batches
        if count is None:
            order = itertools.count() if self.steps_per_epoch is None else \
                range(self.steps_per_epoch)
        elif self.shuffle:
            order = np.asarray(fe_random.shuffle(np.arange(count)).numpy())
        else:
            order = range(count)
        if count is not None and self.steps_per_epoch is not None:
            order = order[:self.steps_per_epoch]
        for i in order:
            yield unpack(standardize_batch(data[int(i)]))
        data.on_epoch_end()


def split_validation(x, y, sample_weight, validation_split):
    """Hold out the last ``validation_split`` fraction of the arrays (before shuffling)."""
    if not 0 < validation_split < 1:
        raise ValueError("fit: validation_split must be in (0, 1) (got %r)" % validation_split)
    if is_dataset(x):
        raise ValueError("fit: validation_split is only supported for array inputs, not "
                         "datasets; pass validation_data instead")
    x, y, sample_weight = _to_numpy(x), _to_numpy(y), _to_numpy(sample_weight)
    n = _length(x)
    cut = int(n * (1.0 - validation_split))
    if cut == 0 or cut == n:
        raise ValueError("fit: validation_split=%r leaves no training or validation examples "
                         "out of %d" % (validation_split, n))
    train = (_slice(x, 0, cut), _slice(y, 0, cut), _slice(sample_weight, 0, cut))
    val = (_slice(x, cut, n), _slice(y, cut, n), _slice(sample_weight, cut, n))
    return train, val
