"""Keras's data utilities: ``PyDataset`` (alias ``Sequence``), ``pad_sequences``,
``timeseries_dataset_from_array``, ``pack_x_y_sample_weight`` /
``unpack_x_y_sample_weight`` and ``normalize``, exported from ``fe.keras.utils`` (and
``fe.keras.preprocessing``) as Keras 3 has them.

``fit``/``evaluate``/``predict`` take a ``PyDataset`` (``_data.DataHandler``): one epoch
is ``num_batches`` calls of ``__getitem__`` (in a shuffled order when ``fit`` shuffles),
between ``on_epoch_begin`` and ``on_epoch_end``. ``workers``, ``use_multiprocessing`` and
``max_queue_size`` are accepted and kept; batches are read in the calling thread (the
values are the same, only the prefetching differs).
"""
import itertools
import random as _python_random
import warnings

import numpy as np

from .. import data as fe_data
from .._core import Tensor
from ..data.transforms import Batch as _BatchDataset
from .ops import nn as keras_nn


class PyDataset:
    """Base class for a dataset read batch by batch: define ``__getitem__(index)`` (a batch
    ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``) and ``__len__`` or
    ``num_batches`` (``None``: an endless dataset)."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    def _warn_if_super_not_called(self):
        missing = False
        for name, default in (("_workers", 1), ("_use_multiprocessing", False),
                              ("_max_queue_size", 10)):
            if not hasattr(self, name):
                setattr(self, name, default)
                missing = True
        if missing:
            warnings.warn("Your `PyDataset` class should call `super().__init__(**kwargs)` in "
                          "its constructor. `**kwargs` can include `workers`, "
                          "`use_multiprocessing`, `max_queue_size`. Do not pass these "
                          "arguments to `fit()`, as they will be ignored.", stacklevel=2)

    @property
    def workers(self):
        self._warn_if_super_not_called()
        return self._workers

    @workers.setter
    def workers(self, value):
        self._workers = value

    @property
    def use_multiprocessing(self):
        self._warn_if_super_not_called()
        return self._use_multiprocessing

    @use_multiprocessing.setter
    def use_multiprocessing(self, value):
        self._use_multiprocessing = value

    @property
    def max_queue_size(self):
        self._warn_if_super_not_called()
        return self._max_queue_size

    @max_queue_size.setter
    def max_queue_size(self, value):
        self._max_queue_size = value

    def __getitem__(self, index):
        raise NotImplementedError("%s.__getitem__ is not implemented: a PyDataset must "
                                  "return the batch at position index"
                                  % type(self).__name__)

    def __iter__(self):
        try:
            count = self.num_batches
        except NotImplementedError:
            count = None
        for index in (itertools.count() if count is None else range(count)):
            yield self[index]

    @property
    def num_batches(self):
        """The number of batches (``len(self)``), or ``None`` for an endless dataset."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError("You need to implement the `num_batches` property:\n\n"
                                  "@property\ndef num_batches(self):\n  return ...")

    def on_epoch_begin(self):
        """Called at the beginning of every epoch."""

    def on_epoch_end(self):
        """Called at the end of every epoch."""


Sequence = PyDataset


def standardize_batch(batch):
    """A PyDataset batch as a tuple ``(x,)``, ``(x, y)`` or ``(x, y, sw)`` (a dict stays)."""
    if isinstance(batch, dict):
        return batch
    if isinstance(batch, (np.ndarray, Tensor)):
        batch = (batch,)
    if isinstance(batch, list):
        batch = tuple(batch)
    if not isinstance(batch, tuple) or len(batch) not in (1, 2, 3):
        raise ValueError("PyDataset.__getitem__() must return a tuple or a dict. If a tuple, "
                         "it must be ordered either (input,) or (inputs, targets) or "
                         "(inputs, targets, sample_weights). Received: %s... of type %s"
                         % (str(batch)[:100], type(batch)))
    return batch


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``: the shortest tuple that holds them."""
    if y is None:
        # a lone list/tuple x would be read back as several elements: wrap it
        return x if not isinstance(x, (tuple, list)) else (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sw)``."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     "`(x, y, sample_weight)`, found: %s" % (data,))


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (a zero norm divides by 1); a
    NumPy array gives a NumPy array, a tensor a tensor."""
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, axis or -1)
    return keras_nn.normalize(x, axis=axis, order=order)


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """A ``(len(sequences), maxlen, ...)`` array of the sequences, padded with ``value``
    and cut to ``maxlen`` at the start (``"pre"``) or the end (``"post"``)."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths = []
    sample_shape = ()
    found = False
    for s in sequences:
        try:
            lengths.append(len(s))
        except TypeError as e:
            raise ValueError("`sequences` must be a list of iterables. Found non-iterable: "
                             + str(s)) from e
        if not found and len(s):
            sample_shape = np.asarray(s).shape[1:]
            found = True
    if maxlen is None:
        maxlen = int(np.max(lengths)) if lengths else 0
    is_str = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype is not object and not is_str:
        raise ValueError("`dtype` %s is not compatible with `value`'s type: %s\nYou should "
                         "set `dtype=object` for variable length strings."
                         % (dtype, type(value)))
    out = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating == "pre":
            kept = s[-maxlen:]
        elif truncating == "post":
            kept = s[:maxlen]
        else:
            raise ValueError('Truncating type "%s" not understood' % truncating)
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError("Shape of sample %s of sequence at position %s is different from "
                             "expected shape %s" % (kept.shape[1:], i, sample_shape))
        if padding == "post":
            out[i, :len(kept)] = kept
        elif padding == "pre":
            out[i, -len(kept):] = kept
        else:
            raise ValueError('Padding type "%s" not understood' % padding)
    return out


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None, format="tf"):
    """An ``fe.data.Dataset`` of sliding windows over ``data`` (and the target at each
    window's start), batched, as Keras's function.

    With ``shuffle=True`` the window order is the permutation Keras draws
    (``np.random.RandomState(seed)``); Keras then also shuffles within a buffer with
    TensorFlow's random stream, which is not reproduced here.
    """
    n = len(data)
    if start_index:
        if start_index < 0:
            raise ValueError("`start_index` must be 0 or greater. Received: start_index=%s"
                             % start_index)
        if start_index >= n:
            raise ValueError("`start_index` must be lower than the length of the data. "
                             "Received: start_index=%s, for data of length %d"
                             % (start_index, n))
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError("`end_index` must be higher than `start_index`. Received: "
                             "start_index=%s, and end_index=%s " % (start_index, end_index))
        if end_index >= n:
            raise ValueError("`end_index` must be lower than the length of the data. "
                             "Received: end_index=%s, for data of length %d" % (end_index, n))
        if end_index <= 0:
            raise ValueError("`end_index` must be higher than 0. Received: end_index=%s"
                             % end_index)
    for name, v in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if v <= 0:
            raise ValueError("`%s` must be higher than 0. Received: %s=%s" % (name, name, v))
        if v >= n:
            raise ValueError("`%s` must be lower than the length of the data. Received: "
                             "%s=%s, for data of length %d" % (name, name, v, n))
    if format not in ("tf", "grain"):
        raise ValueError('`format` should be either "tf" or "grain". Received: format=%s'
                         % format)
    start_index = start_index or 0
    end_index = n if end_index is None else end_index
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    starts = np.arange(0, max(num_seqs, 0), sequence_stride, dtype=np.int64)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(starts)
    window = np.arange(sequence_length, dtype=np.int64) * sampling_rate
    values = np.asarray(data)[start_index:end_index]
    windows = values[starts[:, None] + window[None, :]] if len(starts) else \
        np.zeros((0, sequence_length) + values.shape[1:], values.dtype)
    if targets is not None:
        target_values = np.asarray(targets)[start_index:end_index][starts]
        dataset = fe_data.Dataset.from_tensor_slices((windows, target_values))
    else:
        dataset = fe_data.Dataset.from_tensor_slices(windows)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    return dataset


def _split_sizes(left_size, right_size, total):
    """Keras's _rescale_dataset_split_sizes: int counts or float fractions -> counts."""
    lt, rt = type(left_size), type(right_size)
    if left_size is not None and lt not in (int, float) and \
            right_size is not None and rt not in (int, float):
        raise TypeError("Invalid `left_size` and `right_size` Types. Expected: integer or "
                        "float or None, Received: type(left_size)=%s and type(right_size)=%s"
                        % (lt, rt))
    if left_size is not None and lt not in (int, float):
        raise TypeError("Invalid `left_size` Type. Expected: int or float or None, Received: "
                        "type(left_size)=%s.  " % lt)
    if right_size is not None and rt not in (int, float):
        raise TypeError("Invalid `right_size` Type. Expected: int or float or None,Received: "
                        "type(right_size)=%s." % rt)
    if left_size == 0 and right_size == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the "
                         "split sizes must be non-zero.")
    if (lt is int and (left_size <= 0 or left_size >= total)) or \
            (lt is float and (left_size <= 0 or left_size >= 1)):
        raise ValueError("`left_size` should be either a positive integer smaller than %d, or "
                         "a float within the range `[0, 1]`. Received: left_size=%s"
                         % (total, left_size))
    if (rt is int and (right_size <= 0 or right_size >= total)) or \
            (rt is float and (right_size <= 0 or right_size >= 1)):
        raise ValueError("`right_size` should be either a positive integer and smaller than %d "
                         "or a float within the range `[0, 1]`. Received: right_size=%s"
                         % (total, right_size))
    if lt is float and rt is float and left_size + right_size > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must "
                         "be less than or equal to 1.")
    left = round(left_size * total) if lt is float else (
        float(left_size) if lt is int else None)
    right = round(right_size * total) if rt is float else (
        float(right_size) if rt is int else None)
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left + right > total:
        raise ValueError("The sum of `left_size` and `right_size` should be smaller than the "
                         "%d. Received: left_size + right_size = %sand total_length = %d"
                         % (total, left + right, total))
    for size, side in ((left, "left"), (right, "right")):
        if size == 0:
            raise ValueError("With `dataset` of length=%d, `left_size`=%s and `right_size`=%s."
                             "Resulting %s side dataset split will be empty. Adjust any of the "
                             "aforementioned parameters" % (total, left, right, side))
    return int(left), int(right)


def _as_numpy(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None,
                  preferred_backend=None):
    """Two ``fe.data.Dataset``s of the first ``left_size`` and the last ``right_size``
    samples (counts or fractions) of an array, a tuple/list of arrays or a dataset (a
    batched one is split by samples and re-batched); ``shuffle`` permutes the samples first
    with Python's ``random`` seeded by ``seed``, as Keras."""
    if isinstance(dataset, fe_data.Dataset):
        batch_size = dataset._n if isinstance(dataset, _BatchDataset) else None
        source = dataset.unbatch() if batch_size is not None else dataset
        samples = [element for element in source]
        kind = "dataset"
    elif isinstance(dataset, (np.ndarray, Tensor)):
        samples = list(_as_numpy(dataset))
        batch_size, kind = None, "array"
    elif isinstance(dataset, (list, tuple)) and dataset:
        columns = [_as_numpy(v) for v in dataset]
        if len({len(c) for c in columns}) != 1:
            raise ValueError("split_dataset: the arrays of `dataset` must have the same length "
                             "(got %s)" % [len(c) for c in columns])
        samples = list(zip(*columns))
        batch_size, kind = None, type(dataset)
    else:
        raise TypeError("The `dataset` argument must be either a `tf.data.Dataset` object, or "
                        "a list/tuple of arrays. Received: dataset=%s of type %s"
                        % (dataset, type(dataset)))
    if right_size is None and left_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. "
                         "Received: left_size=None and right_size=None")
    if shuffle:
        if seed is None:
            seed = _python_random.randint(0, int(1e6))
        _python_random.seed(seed)
        _python_random.shuffle(samples)
    left, right = _split_sizes(left_size, right_size, len(samples))

    def restore(part):
        if kind == "array":
            return np.stack(part)
        if kind == "dataset":
            first = part[0]
            if isinstance(first, tuple):
                return tuple(np.stack([_as_numpy(s[i]) for s in part])
                             for i in range(len(first)))
            if isinstance(first, dict):
                return {k: np.stack([_as_numpy(s[k]) for s in part]) for k in first}
            return np.stack([_as_numpy(s) for s in part])
        return kind(np.stack(col) for col in zip(*part))

    out = []
    for part in (samples[:left], samples[-right:]):
        ds = fe_data.Dataset.from_tensor_slices(restore(part))
        out.append(ds.batch(batch_size) if batch_size is not None else ds)
    return tuple(out)
