"""Datasets that mix or resample others: ``sample_from_datasets`` (random draws by
weight), ``choose_from_datasets`` (draws given by a dataset of indices) and
``rejection_resample`` (elements kept at random so that classes follow a target
distribution)."""
import numpy as np

from ..errors import InvalidArgumentError
from . import structure as S
from .dataset import INFINITE, UNKNOWN, Dataset, RandomDataset, register
from .transforms import _call


def _check_datasets(datasets, opname):
    datasets = list(datasets) if isinstance(datasets, (list, tuple)) else datasets
    if not isinstance(datasets, list) or not datasets or \
            not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError("%s: datasets must be a non-empty list of datasets (got %r)"
                        % (opname, datasets))
    return datasets


def _check_structures(datasets, opname):
    """The datasets' element structures must agree (in kinds and dtypes)."""
    try:
        specs = [d._element_spec() for d in datasets]
    except InvalidArgumentError:    # an empty dataset has no structure to compare
        return
    first = S.flatten(specs[0])
    for k, spec in enumerate(specs[1:], 1):
        flat = S.flatten(spec)
        if len(flat) != len(first) or any(type(a) is not type(b) or a.dtype != b.dtype
                                           for a, b in zip(first, flat)):
            raise TypeError("%s: incompatible dataset elements (expected %r like dataset 0, "
                            "got %r in dataset %d)" % (opname, specs[0], spec, k))


def _interleave_cardinality(datasets):
    """As tf.data's directed interleave: infinite if an input is, else unknown."""
    cs = [d._cardinality() for d in datasets]
    return INFINITE if INFINITE in cs else UNKNOWN


def _weights_vector(value, n, opname):
    w = np.asarray(S.to_array(value), np.float64)
    if w.shape != (n,):
        raise ValueError("%s: weights must be a vector with one weight per dataset (expected "
                         "shape (%d,), got %s)" % (opname, n, list(w.shape)))
    if (w < 0).any() or not np.isfinite(w).all():
        raise InvalidArgumentError("%s: weights must be finite and non-negative (got %s)"
                                   % (opname, w.tolist()))
    return w


@register
class SampleFromDatasets(RandomDataset):
    def __init__(self, datasets, weights, seed, stop_on_empty_dataset,
                 rerandomize_each_iteration):
        self._datasets = _check_datasets(datasets, "sample_from_datasets")
        _check_structures(self._datasets, "sample_from_datasets")
        n = len(self._datasets)
        if weights is None:
            self._weights, self._weight_ds = np.full(n, 1.0 / n), None
        elif isinstance(weights, Dataset):
            self._weights, self._weight_ds = None, weights
        else:
            self._weights = _weights_vector(weights, n, "sample_from_datasets")
            self._weight_ds = None
        self._stop = bool(stop_on_empty_dataset)
        # as tf.data, the same draws in every iteration unless asked otherwise
        self._init_random(seed, rerandomize_each_iteration)

    def _weight_stream(self):
        if self._weight_ds is None:
            while True:
                yield self._weights
        for w in self._weight_ds._iter():
            yield _weights_vector(w, len(self._datasets), "sample_from_datasets")

    def _iter(self):
        rng = self._rng()
        inputs = [d._iter() for d in self._datasets]
        active = np.ones(len(inputs), bool)
        for weights in self._weight_stream():
            w = np.where(active, weights, 0.0)
            total = w.sum()
            if total <= 0:
                return
            i = int(rng.choice(len(inputs), p=w / total))
            try:
                yield next(inputs[i])
            except StopIteration:
                if self._stop:
                    return
                active[i] = False

    def _cardinality(self):
        return _interleave_cardinality(self._datasets)

    def _element_spec(self):
        return self._datasets[0]._element_spec()


@register
class ChooseFromDatasets(Dataset):
    def __init__(self, datasets, choice_dataset, stop_on_empty_dataset):
        self._datasets = _check_datasets(datasets, "choose_from_datasets")
        _check_structures(self._datasets, "choose_from_datasets")
        if not isinstance(choice_dataset, Dataset):
            raise TypeError("choose_from_datasets: choice_dataset must be a dataset (got %s)"
                            % type(choice_dataset).__name__)
        spec = choice_dataset._element_spec()
        if not isinstance(spec, S.TensorSpec) or spec.dtype.name != "int64" or \
                spec.shape is None or spec.shape.rank != 0:
            raise TypeError("choose_from_datasets: the elements of choice_dataset must be "
                            "int64 scalars (got %r)" % (spec,))
        self._choice, self._stop = choice_dataset, bool(stop_on_empty_dataset)

    def _iter(self):
        inputs = [d._iter() for d in self._datasets]
        ended = [False] * len(inputs)
        for choice in self._choice._iter():
            i = int(choice)
            if not 0 <= i < len(inputs):
                raise InvalidArgumentError("choose_from_datasets: selector index out of range "
                                           "(expected 0 <= index < %d, got %d)"
                                           % (len(inputs), i))
            if ended[i]:
                continue
            try:
                yield next(inputs[i])
            except StopIteration:
                if self._stop:
                    return
                ended[i] = True
                if all(ended):
                    return

    def _cardinality(self):
        return _interleave_cardinality(self._datasets + [self._choice])

    def _element_spec(self):
        return self._datasets[0]._element_spec()


def _distribution(value, opname, argname):
    p = np.asarray(S.to_array(value), np.float64)
    if p.ndim != 1 or not p.size or (p < 0).any() or not np.isclose(p.sum(), 1.0):
        raise InvalidArgumentError("%s: %s must be a vector of probabilities summing to 1 "
                                   "(got %s)" % (opname, argname, p.tolist()))
    return p


@register
class RejectionResample(RandomDataset):
    """Each element of class ``i`` is kept with probability ``r_i / max(r)``, where
    ``r = target_dist / initial_dist``, so the classes of the kept elements follow
    ``target_dist``. Without ``initial_dist`` the class frequencies seen so far estimate
    it. (TensorFlow mixes this with a second pass over the input to keep more elements;
    the distribution of the classes is the same.)"""

    def __init__(self, input, class_func, target_dist, initial_dist, seed):
        if not callable(class_func):
            raise TypeError("rejection_resample: class_func must be callable (got %s)"
                            % type(class_func).__name__)
        self._input, self._class_func = input, class_func
        self._target = _distribution(target_dist, "rejection_resample", "target_dist")
        self._initial = None if initial_dist is None else _distribution(
            initial_dist, "rejection_resample", "initial_dist")
        if self._initial is not None and self._initial.shape != self._target.shape:
            raise ValueError("rejection_resample: initial_dist and target_dist must have one "
                             "probability per class (got %d and %d)"
                             % (self._initial.size, self._target.size))
        self._init_random(seed, True)

    def _class_of(self, element):
        value = np.asarray(S.to_array(_call(self._class_func, element)))
        if value.shape != () or value.dtype.kind not in "iu":
            raise InvalidArgumentError("rejection_resample: class_func must return an integer "
                                       "scalar (got shape %s %s)"
                                       % (list(value.shape), value.dtype))
        c = int(value)
        if not 0 <= c < self._target.size:
            raise InvalidArgumentError("rejection_resample: class %d is out of range (expected "
                                       "0 <= class < %d, the length of target_dist)"
                                       % (c, self._target.size))
        return value, c

    def _iter(self):
        rng = self._rng()
        counts = np.zeros(self._target.size)
        for element in self._input._iter():
            value, c = self._class_of(element)
            if self._initial is None:
                counts[c] += 1
                initial = counts / counts.sum()
            else:
                initial = self._initial
            seen = initial > 0
            ratio = np.where(seen, self._target / np.where(seen, initial, 1.0), 0.0)
            if rng.random() < ratio[c] / ratio.max():
                yield (value, element)

    def _cardinality(self):
        return INFINITE if self._input._cardinality() == INFINITE else UNKNOWN
