"""Stateful metrics (``fe.keras.metrics``): state in non-trainable variables.

``update_state`` accumulates, ``result()`` gives a float32 scalar tensor, ``reset_state``
zeroes the state, and calling the metric updates it and returns the result:

>>> m = fe.keras.metrics.Mean("loss")
>>> m(0); m(5); float(m.result())
2.5
>>> m([8, 9]); float(m.result())
5.5
"""
import functools

import numpy as np

from .. import dtypes, errors
from .. import math as fe_math
from .._core import Tensor, convert_to_tensor
from .._src.state.variables import Variable
from .._src.tracing.tracer import current_tracer
from ..distribute import strategy as _distribute
from ..ops import array_ops
from ..ops.array_ops import constant, expand_dims, identity, ones_like, size, squeeze
from ..ops.elementwise_ops import cast, equal
from ..ops.reduction_ops import argmax, reduce_mean, reduce_sum
from . import _naming, _serialization, backend, initializers
from . import losses as _losses


def _np(x):
    if isinstance(x, (Tensor, Variable)):
        return np.asarray(x.numpy())
    return np.asarray(x)


# Metrics update in NumPy eagerly (fast for one call); inside fe.function they update
# with fasteager ops instead, so a training step that updates them stays a graph (NumPy
# would read the tensors' values and make the function run eagerly).
def _tracing():
    return current_tracer() is not None


def _weights_like_t(v, sample_weight):
    sw = cast(sample_weight, dtypes.float64)
    if sw.shape.rank == v.shape.rank + 1 and sw.shape[-1] == 1:
        sw = squeeze(sw, -1)
    while sw.shape.rank < v.shape.rank:
        sw = expand_dims(sw, -1)
    return sw * ones_like(v)


def _mean_state_t(values, sample_weight):
    """(total, count) of ``values`` as float64 tensors, by fasteager ops."""
    v = cast(values, dtypes.float64)
    if sample_weight is None:
        return reduce_sum(v), cast(size(v), dtypes.float64)
    w = _weights_like_t(v, sample_weight)
    return reduce_sum(v * w), reduce_sum(w)


def _result_over_workers(result):
    """Wrap a metric class's ``result``: a metric made under a multi-worker strategy and
    read outside any strategy scope reports what every worker's updates add up to, as
    TensorFlow's (ON_READ, SUM) metric variables do; inside a scope (``strategy.run``,
    ``fit``) it reports this worker's own updates."""
    @functools.wraps(result)
    def wrapped(self):
        strategy = _distribute.owner_of(self)
        if strategy is None or _distribute.current_strategy() is not None or \
                getattr(self, "_aggregating", False):
            return result(self)
        self._aggregating = True   # a result() calling super().result() sums only once
        try:
            return strategy._aggregated_result(self, result)
        finally:
            self._aggregating = False
    return wrapped


class Metric:
    """Base class: implement ``update_state``, ``result`` and (optionally) ``reset_state``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "result" in cls.__dict__:
            cls.result = _result_over_workers(cls.__dict__["result"])

    def __init__(self, name=None, dtype=None):
        self.name = name or backend.unique_name(type(self).__name__.lower())
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.float32
        self._variables = []
        self._metrics = []
        # made in strategy.scope(): state variables added later are created under it
        self._distribute_strategy = _distribute.current_strategy()

    def __setattr__(self, name, value):
        # Keras 3 tracks the variables and metrics set as attributes: their state is part of
        # this metric's variables (and reset_state zeroes it)
        tracked = self.__dict__.get("_variables"), self.__dict__.get("_metrics")
        if tracked[0] is not None:
            if isinstance(value, Variable) and not any(value is v for v in tracked[0]):
                tracked[0].append(value)
            elif isinstance(value, Metric) and not any(value is m for m in tracked[1]):
                tracked[1].append(value)
        object.__setattr__(self, name, value)

    @property
    def dtype(self):
        return self._dtype.name

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """A non-trainable state variable (Keras 3: ``dtype`` None is float32, floatx)."""
        if "_variables" not in self.__dict__:
            raise RuntimeError("You forgot to call `super().__init__()` in the `__init__()` "
                               "method. Go add it!")
        if aggregation not in ("none", "mean", "sum", "only_first_replica"):
            raise ValueError("%s.add_variable: invalid aggregation (expected one of 'none', "
                             "'mean', 'sum', 'only_first_replica'; got %r)"
                             % (type(self).__name__, aggregation))
        init = initializers.get(initializer)
        if init is None:
            raise ValueError("%s.add_variable: initializer is required (got None)"
                             % type(self).__name__)
        d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.as_dtype(backend.floatx())
        shape = tuple(shape) if isinstance(shape, (list, tuple)) else (
            () if shape is None else (int(shape),))
        name = name or "variable"
        with _distribute.owner_scope(self):
            v = _naming.KerasVariable(init(shape, dtype=d), trainable=False, name=name,
                                      dtype=d, path=_naming.path_for(self, self.name, name))
        self._variables.append(v)
        return v

    def add_weight(self, shape=(), initializer="zeros", dtype=None, name=None):
        """Keras 3's alias of ``add_variable``; a leading string is taken as the name, as
        Keras 2's ``add_weight(name, shape, ...)`` had it."""
        if isinstance(shape, str):
            name = shape if name is None else name
            shape, initializer = (initializer, "zeros") if isinstance(
                initializer, (tuple, list)) else ((), initializer)
        return self.add_variable(shape, "zeros" if initializer is None else initializer,
                                 dtype=dtype, name=name)

    @property
    def variables(self):
        out = list(self._variables)
        for m in self._metrics:
            out.extend(m.variables)
        return out

    @property
    def weights(self):
        return self.variables

    non_trainable_weights = weights

    @property
    def trainable_weights(self):
        return []

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def reset_state(self):
        # (Keras 3 has no reset_states alias: TensorFlow 2.21 raises AttributeError for it)
        for v in self.variables:
            v.assign(np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype))

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return "<%s name=%s>" % (type(self).__name__, getattr(self, "name", None))


def _weights_like(values, sample_weight):
    sw = _np(sample_weight).astype(np.float64)
    if sw.ndim == values.ndim + 1 and sw.shape[-1] == 1:
        sw = sw[..., 0]
    while sw.ndim < values.ndim:
        sw = sw[..., None]
    return np.broadcast_to(sw, values.shape)


# Keras 3's Mean counts samples, not elements: each sample's values are averaged first
# (reduce_to_samplewise_values), so batches whose rows differ in length weigh each row once,
# and a scalar sample_weight weighs the whole batch as one sample.
def _samplewise_np(values, sample_weight):
    """(total, count) of one update, as Keras 3's Mean adds them."""
    v = values.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if sample_weight is None:
            count = v.shape[0] if v.ndim else 1
            if v.ndim > 1:
                v = v.mean(axis=tuple(range(1, v.ndim)))
            return v.sum(), count
        v, w = _same_rank_np(v, _np(sample_weight).astype(np.float64))
        wn = w.ndim
        if v.ndim > wn:
            v = v.mean(axis=tuple(range(wn, v.ndim)))
        try:
            w = np.broadcast_to(w, v.shape)
        except ValueError:
            raise errors.InvalidArgumentError(
                "Mean.update_state: sample_weight of shape %s does not broadcast to the "
                "values' shape %s" % (np.shape(_np(sample_weight)), values.shape)) from None
        v = v * w
        if wn > 1:
            w = w.mean(axis=tuple(range(1, wn)))
        if v.ndim > 1:
            v = v.mean(axis=tuple(range(1, v.ndim)))
        return v.sum(), w.sum()


def _samplewise_t(values, sample_weight):
    """``_samplewise_np`` by fasteager ops (inside fe.function)."""
    v = cast(values, dtypes.float64)
    if sample_weight is None:
        count = cast(array_ops.shape(v)[0], dtypes.float64) if v.shape.rank else \
            constant(1.0, dtypes.float64)
        if v.shape.rank > 1:
            v = reduce_mean(v, axis=list(range(1, v.shape.rank)))
        return reduce_sum(v), count
    v, w = _losses.same_rank(v, cast(sample_weight, dtypes.float64))
    wn = w.shape.rank
    if v.shape.rank > wn:
        v = reduce_mean(v, axis=list(range(wn, v.shape.rank)))
    w = w * ones_like(v)
    v = v * w
    if wn > 1:
        w = reduce_mean(w, axis=list(range(1, wn)))
    if v.shape.rank > 1:
        v = reduce_mean(v, axis=list(range(1, v.shape.rank)))
    return reduce_sum(v), reduce_sum(w)


class Sum(Metric):
    """The (weighted) sum of the values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_variable((), "zeros", self._dtype, name="total")

    def update_state(self, values, sample_weight=None):
        if _tracing():
            total, _ = _mean_state_t(values, sample_weight)
            self.total.assign_add(cast(total, self._dtype))
            return
        v = _np(values).astype(np.float64)
        if sample_weight is not None:
            v = v * _weights_like(v, sample_weight)
        self.total.assign_add(np.asarray(v.sum(), self._dtype.as_numpy_dtype))

    def result(self):
        return identity(self.total.read_value())


class Mean(Metric):
    """The (weighted) mean of the values seen."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_variable((), "zeros", self._dtype, name="total")
        self.count = self.add_variable((), "zeros", self._dtype, name="count")

    def update_state(self, values, sample_weight=None):
        if sample_weight is not None and _losses._get_mask(values) is not None:
            # Keras 3 applies the values' own mask (sparse_categorical_crossentropy's
            # ignore_class) only together with sample weights; unweighted, the masked
            # entries count as zeros
            sample_weight = _losses.apply_mask(sample_weight, _losses._get_mask(values),
                                               dtypes.float32, "sum")
        if _tracing():
            total, count = _samplewise_t(values, sample_weight)
            self.total.assign_add(cast(total, self._dtype))
            self.count.assign_add(cast(count, self._dtype))
            return
        total, count = _samplewise_np(_np(values), sample_weight)
        d = self._dtype.as_numpy_dtype
        self.total.assign_add(np.asarray(total, d))
        self.count.assign_add(np.asarray(count, d))

    def result(self):
        if _tracing():
            return fe_math.divide_no_nan(self.total.read_value(), self.count.read_value())
        t = float(self.total.numpy())
        c = float(self.count.numpy())
        return constant(np.asarray(t / c if c else 0.0, self._dtype.as_numpy_dtype))


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred)`` over the examples seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name or fn.__name__, dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        fn = self._fn
        if _tracing():
            fn = getattr(fn, "traced", fn)    # the fasteager-ops form, where there is one
        mask = _losses._get_mask(y_pred)      # (a Keras mask on y_pred weighs its entries)
        values = fn(y_true, y_pred, **self._fn_kwargs)
        if mask is not None:
            sample_weight = _losses.apply_mask(sample_weight, mask, dtypes.float32, "sum")
        super().update_state(values, sample_weight)

    def get_config(self):
        config = super().get_config()
        config.update(self._fn_kwargs)
        return config


# ---- functions (per-example values, NumPy fast paths) ------------------------------------

def accuracy(y_true, y_pred):
    t, p = _np(y_true), _np(y_pred)
    if t.ndim == p.ndim + 1 and t.shape[-1] == 1:
        t = t[..., 0]
    return (t == p.astype(t.dtype) if t.dtype != p.dtype else t == p).astype(np.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    t, p = _np(y_true), _np(y_pred)
    if t.ndim == p.ndim and t.ndim > 0 and t.shape[-1] == 1:
        t = t[..., 0]
    return (np.argmax(p, axis=-1).astype(np.float64) == t.astype(np.float64)).astype(np.float32)


def _same_rank_np(x1, x2, expand_rank_1=True):
    """Keras's squeeze_or_expand_to_same_rank on arrays (``losses.same_rank`` on tensors)."""
    if x1.ndim == x2.ndim + 1 and x1.shape[-1] == 1:
        if x2.ndim == 1 and expand_rank_1:
            x2 = x2[..., None]
        else:
            x1 = x1[..., 0]
    elif x2.ndim == x1.ndim + 1 and x2.shape[-1] == 1:
        if x1.ndim == 1 and expand_rank_1:
            x1 = x1[..., None]
        else:
            x2 = x2[..., 0]
    return x1, x2


def categorical_accuracy(y_true, y_pred):
    t = np.argmax(_np(y_true), axis=-1)
    p = _np(y_pred)
    shape = t.shape
    squeezed = t.ndim == p.ndim      # (y_true had one more axis than y_pred)
    if squeezed:
        t = t[..., 0]
    hit = (np.argmax(p, axis=-1) == t).astype(np.float32)
    return hit.reshape(shape) if squeezed else hit


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``y_pred > threshold`` matches ``y_true``, per element (Keras 3 keeps the
    last axis; the Mean metric averages it)."""
    t, p = _same_rank_np(_np(y_true), _np(y_pred))
    return ((p > threshold).astype(np.float64) == t.astype(np.float64)).astype(np.float32)


def _in_top_k(targets, predictions, k):
    """TensorFlow's in_top_k: the target's score has fewer than k scores above it (so ties
    at the boundary all count); a non-finite score or a target out of range never does."""
    t = targets.astype(np.int64).reshape(-1)
    p = predictions
    if p.ndim != 2 or t.shape[0] != p.shape[0]:
        raise errors.InvalidArgumentError(
            "in_top_k: predictions must be (rows, classes) with one target per row (got "
            "targets of %d and predictions of shape %s)" % (t.shape[0], p.shape))
    ok = (t >= 0) & (t < p.shape[-1])
    score = p[np.arange(p.shape[0]), np.where(ok, t, 0)]
    above = (p > score[:, None]).sum(axis=-1)
    return ok & np.isfinite(score) & (above < k)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return sparse_top_k_categorical_accuracy(np.argmax(_np(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the label is among the k highest scores; the result has y_true's shape."""
    t, p = _np(y_true), _np(y_pred)
    shape = t.shape
    p2 = p.reshape(-1, p.shape[-1]) if p.ndim > 2 else p
    if from_sorted_ids:
        # y_pred holds class ids, best first
        hit = np.any(t.reshape(-1)[:, None].astype(p2.dtype) == p2[:, :k], axis=1)
    else:
        hit = _in_top_k(t, p2, k)
    return hit.astype(np.float32).reshape(shape)


# the accuracies by fasteager ops (``fn.traced``: used inside fe.function)
def _traced(numpy_fn):
    def attach(fn):
        numpy_fn.traced = fn
        return fn
    return attach


@_traced(accuracy)
def _accuracy_t(y_true, y_pred):
    t, p = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if t.shape.rank == p.shape.rank + 1 and t.shape[-1] == 1:
        t = squeeze(t, -1)
    if t.dtype != p.dtype:
        p = cast(p, t.dtype)
    return cast(equal(t, p), dtypes.float32)


@_traced(sparse_categorical_accuracy)
def _sparse_categorical_accuracy_t(y_true, y_pred):
    t, p = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if t.shape.rank == p.shape.rank and t.shape.rank > 0 and t.shape[-1] == 1:
        t = squeeze(t, -1)
    return cast(equal(cast(argmax(p, -1), dtypes.float64), cast(t, dtypes.float64)),
                   dtypes.float32)


@_traced(categorical_accuracy)
def _categorical_accuracy_t(y_true, y_pred):
    return cast(equal(argmax(y_true, -1), argmax(y_pred, -1)), dtypes.float32)


@_traced(binary_accuracy)
def _binary_accuracy_t(y_true, y_pred, threshold=0.5):
    t, p = _losses.same_rank(convert_to_tensor(y_true), convert_to_tensor(y_pred))
    hit = equal(cast(p > threshold, dtypes.float64), cast(t, dtypes.float64))
    return cast(hit, dtypes.float32)


# the losses as metric functions: Keras 3 exports the same functions from both modules
mean_squared_error = mse = MSE = _losses.mean_squared_error
mean_absolute_error = mae = MAE = _losses.mean_absolute_error
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
huber = _losses.huber
binary_focal_crossentropy = _losses.binary_focal_crossentropy
categorical_focal_crossentropy = _losses.categorical_focal_crossentropy
hinge = _losses.hinge
squared_hinge = _losses.squared_hinge
categorical_hinge = _losses.categorical_hinge
kl_divergence = _losses.kl_divergence
log_cosh = _losses.log_cosh
poisson = _losses.poisson
mean_absolute_percentage_error = _losses.mean_absolute_percentage_error
mean_squared_logarithmic_error = _losses.mean_squared_logarithmic_error


class Accuracy(MeanMetricWrapper):
    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name, dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name, dtype)


class CategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name, dtype)


class BinaryAccuracy(MeanMetricWrapper):
    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name, dtype, threshold=threshold)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name, dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None,
                 from_sorted_ids=False):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype, k=k,
                         from_sorted_ids=from_sorted_ids)


class MeanSquaredError(MeanMetricWrapper):
    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name, dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name, dtype)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name, dtype)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name, dtype)


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False,
                 ignore_class=None, axis=-1):
        super().__init__(sparse_categorical_crossentropy, name, dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)


class CategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0, axis=-1):
        super().__init__(categorical_crossentropy, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class BinaryCrossentropy(MeanMetricWrapper):
    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0):
        super().__init__(binary_crossentropy, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


# ---- Precision and Recall --------------------------------------------------------------------

_NEG_INF = -1e10       # Keras's threshold under top_k: every kept score is above it


def _parse_thresholds(thresholds, default):
    if thresholds is None:
        return [default]
    listed = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) else \
        [thresholds]
    bad = [t for t in listed if t is None or t < 0 or t > 1]
    if bad:
        raise ValueError("Threshold values must be in [0, 1]. Received: %s" % (bad,))
    return listed


def _evenly_spaced(thresholds):
    """Keras counts evenly spaced thresholds (3 or more, 0 to 1) by buckets."""
    n = len(thresholds)
    return n >= 3 and np.allclose(thresholds, np.arange(n, dtype=np.float32) / (n - 1),
                                  atol=backend.epsilon())


def _filter_top_k(x, k):
    """Keep the k highest scores of the last axis (ties: the lower index first, as top_k);
    the others become -1e10."""
    idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    keep = np.zeros(x.shape, np.float32)
    np.put_along_axis(keep, idx, 1.0, axis=-1)
    return (x * keep + np.float32(_NEG_INF) * (1 - keep)).astype(np.float32)


class _Confusion(Metric):
    """Counts of the confusion matrix at each threshold (Keras's
    update_confusion_matrix_variables): predictions above a threshold are positive; with
    ``top_k`` only the k highest of each row can be, with ``class_id`` only that column is
    counted. Several dimensions are flattened into one binary problem."""

    _counts = ()        # (attribute, variable name, label positive?, prediction positive?)

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name, dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        self.thresholds = _parse_thresholds(thresholds, 0.5 if top_k is None else _NEG_INF)
        self._evenly = _evenly_spaced(self.thresholds)
        for attr, var_name, _, _ in self._counts:
            setattr(self, attr, self.add_variable((len(self.thresholds),), "zeros",
                                                  name=var_name))

    def update_state(self, y_true, y_pred, sample_weight=None):
        f32 = np.float32
        p, t = _same_rank_np(_np(y_pred).astype(f32), _np(y_true).astype(f32))
        w = None
        if sample_weight is not None:
            _, w = _same_rank_np(t, _np(sample_weight).astype(f32)[..., None],
                                 expand_rank_1=False)
        if self.top_k is not None:
            p = _filter_top_k(p, self.top_k)
        if self.class_id is not None:
            if p.ndim == 1:
                raise ValueError("When class_id is provided, y_pred must be a 2D array with "
                                 "shape (num_samples, num_classes), found shape: %s"
                                 % (p.shape,))
            if not -p.shape[-1] <= self.class_id < p.shape[-1]:
                raise errors.InvalidArgumentError(
                    "%s: slice index %d of dimension %d out of bounds (class_id must be in "
                    "[0, %d))" % (type(self).__name__, self.class_id, p.ndim - 1,
                                  p.shape[-1]))
            t = t[..., self.class_id, None]
            p = p[..., self.class_id, None]
        if w is not None:
            try:
                w = np.broadcast_to(w, p.shape)
            except ValueError:
                raise ValueError("%s: sample_weight of shape %s does not broadcast to the "
                                 "predictions' shape %s" % (type(self).__name__,
                                                            _np(sample_weight).shape, p.shape))
            w = w.reshape(-1)
        p, label = p.reshape(-1), t.reshape(-1).astype(bool)
        n = len(self.thresholds)
        if self._evenly:
            # Keras's bucketed count: positive at threshold i where ceil(p * (n-1)) - 1 >= i
            bucket = np.ceil(np.clip(p, 0, 1) * f32(n - 1)) - 1
            pred = bucket[None, :] >= np.arange(n, dtype=f32)[:, None]
        else:
            pred = p[None, :] > np.asarray(self.thresholds, f32)[:, None]
        for attr, _, label_pos, pred_pos in self._counts:
            hit = (label if label_pos else ~label)[None, :] & (pred if pred_pos else ~pred)
            counts = hit.sum(axis=1, dtype=np.float64) if w is None else \
                np.where(hit, w[None, :].astype(np.float64), 0.0).sum(axis=1)
            var = getattr(self, attr)
            var.assign_add(counts.astype(var.dtype.as_numpy_dtype))

    def _ratio(self, num, other):
        a, b = num.numpy().astype(np.float64), other.numpy().astype(np.float64)
        r = np.divide(a, a + b, out=np.zeros_like(a), where=(a + b) != 0)
        r = r.astype(num.dtype.as_numpy_dtype)
        # one threshold: a scalar; a list of thresholds: one value per threshold
        return constant(r[0] if len(self.thresholds) == 1 else r)

    def get_config(self):
        config = super().get_config()
        config.update({"thresholds": self.init_thresholds, "top_k": self.top_k,
                       "class_id": self.class_id})
        return config


class Precision(_Confusion):
    """tp / (tp + fp), at each threshold."""

    _counts = (("true_positives", "true_positives", True, True),
               ("false_positives", "false_positives", False, True))

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="precision",
                 dtype=None):
        super().__init__(thresholds, top_k, class_id, name, dtype)

    def result(self):
        return self._ratio(self.true_positives, self.false_positives)


class Recall(_Confusion):
    """tp / (tp + fn), at each threshold."""

    _counts = (("true_positives", "true_positives", True, True),
               ("false_negatives", "false_negatives", True, False))

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="recall",
                 dtype=None):
        super().__init__(thresholds, top_k, class_id, name, dtype)

    def result(self):
        return self._ratio(self.true_positives, self.false_negatives)


class _ConfusionCount(_Confusion):
    """One count of the confusion matrix at each threshold (Keras's
    _ConfusionMatrixConditionCount): a scalar for one threshold, else one per threshold."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, None, None, name, dtype)

    def result(self):
        v = self.accumulator.read_value()
        return identity(v[0] if len(self.thresholds) == 1 else v)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "thresholds": self.init_thresholds}


class TruePositives(_ConfusionCount):
    _counts = (("accumulator", "accumulator", True, True),)

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name or backend.unique_name("true_positives"), dtype)


class FalsePositives(_ConfusionCount):
    _counts = (("accumulator", "accumulator", False, True),)

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name or backend.unique_name("false_positives"), dtype)


class TrueNegatives(_ConfusionCount):
    _counts = (("accumulator", "accumulator", False, False),)

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name or backend.unique_name("true_negatives"), dtype)


class FalseNegatives(_ConfusionCount):
    _counts = (("accumulator", "accumulator", True, False),)

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name or backend.unique_name("false_negatives"), dtype)


class _AtConstraint(_Confusion):
    """The best value of one rate over the thresholds where another rate is at least
    ``value`` (Keras's SensitivitySpecificityBase): ``num_thresholds`` evenly spaced
    thresholds from 0 to 1 (one threshold: 0.5)."""

    _counts = (("true_positives", "true_positives", True, True),
               ("false_positives", "false_positives", False, True),
               ("true_negatives", "true_negatives", False, False),
               ("false_negatives", "false_negatives", True, False))
    _value_arg = None          # the constructor argument holding ``value``
    _default_name = None

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        if value < 0 or value > 1:
            raise ValueError("Argument `%s` must be in the range [0, 1]. Received: %s=%s"
                             % (self._value_arg, self._value_arg, value))
        if num_thresholds <= 0:
            raise ValueError("Argument `num_thresholds` must be an integer > 0. Received: "
                             "num_thresholds=%s" % (num_thresholds,))
        thresholds = [0.5] if num_thresholds == 1 else \
            [0.0] + [(i + 1) * 1.0 / (num_thresholds - 1)
                     for i in range(num_thresholds - 2)] + [1.0]
        super().__init__(thresholds, None, class_id,
                         name or backend.unique_name(self._default_name), dtype)
        self.value = value
        self.num_thresholds = num_thresholds
        setattr(self, self._value_arg, value)

    def _rates(self):
        tp, fp, tn, fn = (getattr(self, a).numpy().astype(np.float32)
                          for a, _, _, _ in self._counts)

        def div(a, b):
            return np.divide(a, b, out=np.zeros_like(a), where=b != 0)

        return {"recall": div(tp, tp + fn), "precision": div(tp, tp + fp),
                "specificity": div(tn, tn + fp)}

    def _best(self, constrained, dependent):
        rates = self._rates()
        feasible = rates[constrained] >= np.float32(self.value)
        best = np.where(feasible, rates[dependent], np.float32(0)).max(initial=0)
        return constant(np.asarray(best, self._dtype.as_numpy_dtype))

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "class_id": self.class_id,
                "num_thresholds": self.num_thresholds, self._value_arg: self.value}


class SensitivityAtSpecificity(_AtConstraint):
    _value_arg, _default_name = "specificity", "sensitivity_at_specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("specificity", "recall")


class SpecificityAtSensitivity(_AtConstraint):
    _value_arg, _default_name = "sensitivity", "specificity_at_sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("recall", "specificity")


class PrecisionAtRecall(_AtConstraint):
    _value_arg, _default_name = "recall", "precision_at_recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("recall", "precision")


class RecallAtPrecision(_AtConstraint):
    _value_arg, _default_name = "precision", "recall_at_precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("precision", "recall")


# ---- AUC -------------------------------------------------------------------------------------

_CURVES = {"roc": "ROC", "pr": "PR"}
_SUMMATIONS = ("interpolation", "minoring", "majoring")


class AUC(Metric):
    """Area under the ROC or PR curve, from confusion counts at ``num_thresholds``
    thresholds (Keras 3's AUC: the end thresholds are -eps and 1 + eps so every prediction
    in [0, 1] falls inside; with ``multi_label`` each label has its own curve and the
    areas are averaged, weighted by ``label_weights``)."""

    _COUNTS = ("true_positives", "false_positives", "true_negatives", "false_negatives")

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        super().__init__(name, dtype)
        if not isinstance(curve, str) or curve.lower() not in _CURVES:
            raise ValueError('Invalid AUC curve value: "%s". Expected values are ["ROC", '
                             '"PR"]' % (curve,))
        if not isinstance(summation_method, str) or \
                summation_method.lower() not in _SUMMATIONS:
            raise ValueError('Invalid AUC summation method value: "%s". Expected values are '
                             '["interpolation", "majoring", "minoring"]' % (summation_method,))
        self.curve = _CURVES[curve.lower()]
        self.summation_method = summation_method.lower()
        eps = backend.epsilon()
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            self.num_thresholds = len(inner) + 2
            self._evenly = _evenly_spaced([0.0] + inner + [1.0])
        else:
            if num_thresholds <= 1:
                raise ValueError("Argument `num_thresholds` must be an integer > 1. "
                                 "Received: num_thresholds=%s" % (num_thresholds,))
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._evenly = True
        self.thresholds = [0.0 - eps] + inner + [1.0 + eps]
        self.multi_label = multi_label
        self.num_labels = num_labels
        self._from_logits = from_logits
        self.label_weights = None if label_weights is None else \
            np.asarray(_np(label_weights), np.float32)
        if self.label_weights is not None and np.any(self.label_weights < 0):
            raise errors.InvalidArgumentError(
                "AUC: all values of `label_weights` must be non-negative (got %s)"
                % (self.label_weights.tolist(),))
        self._built = False
        if not multi_label or num_labels is not None:
            self._build(num_labels if multi_label else None)

    def _build(self, num_labels):
        shape = (self.num_thresholds,) if num_labels is None else \
            (self.num_thresholds, num_labels)
        for attr in self._COUNTS:
            setattr(self, attr, self.add_variable(shape, "zeros", name=attr))
        self._built = True     # (num_labels stays as given: Keras's config keeps None)

    def update_state(self, y_true, y_pred, sample_weight=None):
        f32 = np.float32
        p, t = _same_rank_np(_np(y_pred).astype(f32), _np(y_true).astype(f32))
        if not self._built:
            if p.ndim < 2:
                raise ValueError("AUC with multi_label=True expects y_pred of rank >= 2 "
                                 "(samples, labels); got shape %s" % (p.shape,))
            self._build(p.shape[-1])
        if self._from_logits:
            p = (1.0 / (1.0 + np.exp(-p.astype(np.float64)))).astype(f32)
        if t.shape != p.shape:
            raise ValueError("AUC: y_true of shape %s does not match y_pred of shape %s"
                             % (t.shape, p.shape))
        w = np.ones(p.shape, np.float64)
        if sample_weight is not None:
            _, sw = _same_rank_np(t, _np(sample_weight).astype(f32)[..., None],
                                  expand_rank_1=False)
            try:
                w = w * np.broadcast_to(sw, p.shape)
            except ValueError:
                raise ValueError("AUC: sample_weight of shape %s does not broadcast to the "
                                 "predictions' shape %s" % (_np(sample_weight).shape, p.shape))
        if self.label_weights is not None and not self.multi_label:
            # (with multi_label the label weights average the per-label areas instead)
            w = w * np.broadcast_to(self.label_weights, p.shape)
        label = t.astype(bool)
        if self.multi_label:
            p, label, w = (a.reshape(-1, a.shape[-1]) for a in (p, label, w))
        else:
            p, label, w = p.reshape(-1, 1), label.reshape(-1, 1), w.reshape(-1, 1)
        n = self.num_thresholds
        if self._evenly:
            # Keras's bucketed count; the -eps first threshold takes every prediction
            bucket = np.maximum(np.ceil(np.clip(p, 0, 1) * f32(n - 1)) - 1, 0)
            pred = bucket[None] >= np.arange(n, dtype=f32)[:, None, None]
        else:
            pred = p[None] > np.asarray(self.thresholds, f32)[:, None, None]
        for attr, label_pos, pred_pos in (("true_positives", True, True),
                                          ("false_positives", False, True),
                                          ("true_negatives", False, False),
                                          ("false_negatives", True, False)):
            hit = (label if label_pos else ~label)[None] & (pred if pred_pos else ~pred)
            counts = np.where(hit, w[None], 0.0).sum(axis=1)     # (thresholds, labels)
            var = getattr(self, attr)
            if not self.multi_label:
                counts = counts[:, 0]
            var.assign_add(counts.astype(var.dtype.as_numpy_dtype))

    def _average(self, by_label):
        if not self.multi_label:
            return by_label
        if self.label_weights is None:
            return by_label.mean(dtype=np.float32)
        lw = self.label_weights
        total = lw.sum()
        return (by_label * lw).sum() / total if total else np.float32(0)

    def result(self):
        f32 = np.float32
        if not self._built:
            return constant(np.float32(0))
        tp, fp, tn, fn = (getattr(self, a).numpy().astype(f32) for a in self._COUNTS)

        def div(a, b):
            return np.divide(a, b, out=np.zeros_like(a), where=b != 0)

        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            # Davis & Goadrich's interpolation of precision between thresholds
            dtp = tp[:n - 1] - tp[1:]
            pos = tp + fp
            dp = pos[:n - 1] - pos[1:]
            slope = div(dtp, np.maximum(dp, 0))
            intercept = tp[1:] - slope * pos[1:]
            both = (pos[:n - 1] > 0) & (pos[1:] > 0)
            ratio = np.where(both, div(pos[:n - 1], np.maximum(pos[1:], 0)),
                             np.ones_like(pos[1:]))
            with np.errstate(divide="ignore", invalid="ignore"):
                inc = div(slope * (dtp + intercept * np.log(ratio)),
                          np.maximum(tp[1:] + fn[1:], 0))
            by_label = inc.sum(axis=0, dtype=f32)
        else:
            recall = div(tp, tp + fn)
            if self.curve == "ROC":
                x, y = div(fp, fp + tn), recall
            else:
                x, y = recall, div(tp, tp + fp)
            if self.summation_method == "interpolation":
                heights = (y[:n - 1] + y[1:]) / f32(2)
            elif self.summation_method == "minoring":
                heights = np.minimum(y[:n - 1], y[1:])
            else:
                heights = np.maximum(y[:n - 1], y[1:])
            by_label = ((x[:n - 1] - x[1:]) * heights).sum(axis=0, dtype=f32)
        return constant(np.asarray(self._average(by_label), self._dtype.as_numpy_dtype))

    def reset_state(self):
        if self._built:
            super().reset_state()

    def get_config(self):
        config = super().get_config()
        config.update({
            "num_thresholds": self.num_thresholds, "curve": self.curve,
            "summation_method": self.summation_method, "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": None if self.label_weights is None else
            self.label_weights.tolist(),
            "from_logits": self._from_logits})
        if self._init_from_thresholds:
            # the inner thresholds: a metric made from this config has the same ones
            config["thresholds"] = self.thresholds[1:-1]
        return config


# ---- regression and probabilistic means -----------------------------------------------------

class RootMeanSquaredError(Mean):
    """sqrt of the (weighted) mean squared error."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        t, p = _same_rank_np(_np(y_true).astype(np.float64), _np(y_pred).astype(np.float64))
        super().update_state(np.square(p - t).astype(np.float32), sample_weight)

    def result(self):
        t = float(self.total.numpy())
        c = float(self.count.numpy())
        return constant(np.asarray(np.sqrt(t / c) if c else 0.0,
                                      self._dtype.as_numpy_dtype))


def _cosine_similarity_metric(y_true, y_pred, axis=-1):
    # the metric is the similarity itself (the loss is its negative)
    return -_losses.cosine_similarity(y_true, y_pred, axis=axis)


class _NoKwargsConfig:
    """Keras 3 leaves these metrics' function arguments out of get_config."""

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class CosineSimilarity(_NoKwargsConfig, MeanMetricWrapper):
    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(_cosine_similarity_metric, name, dtype, axis=axis)


class KLDivergence(_NoKwargsConfig, MeanMetricWrapper):
    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name, dtype)


class Poisson(_NoKwargsConfig, MeanMetricWrapper):
    def __init__(self, name="poisson", dtype=None):
        super().__init__(poisson, name, dtype)


class LogCoshError(_NoKwargsConfig, MeanMetricWrapper):
    def __init__(self, name="logcosh", dtype=None):
        super().__init__(log_cosh, name, dtype)


class Hinge(_NoKwargsConfig, MeanMetricWrapper):
    def __init__(self, name="hinge", dtype=None):
        super().__init__(hinge, name, dtype)


class SquaredHinge(_NoKwargsConfig, MeanMetricWrapper):
    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name, dtype)


class CategoricalHinge(_NoKwargsConfig, MeanMetricWrapper):
    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name, dtype)


def _built_2d(metric, t, p):
    if p.ndim != 2 or t.ndim != 2:
        raise ValueError("%s expects 2D inputs with shape (batch_size, output_dim). "
                         "Received input shapes: y_pred.shape=%s and y_true.shape=%s."
                         % (type(metric).__name__, p.shape, t.shape))


class R2Score(Metric):
    """The coefficient of determination per output column, aggregated uniformly, by
    variance, or not at all (``class_aggregation=None``); ``num_regressors`` > 0 gives the
    adjusted score (``num_samples`` counts elements, as Keras 3 does)."""

    def __init__(self, class_aggregation="uniform_average", num_regressors=0,
                 name="r2_score", dtype=None):
        super().__init__(name, dtype)
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError("Invalid value for argument `class_aggregation`. Expected one "
                             "of %s. Received: class_aggregation=%s"
                             % (valid, class_aggregation))
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value "
                             ">= 0. Received: num_regressors=%s" % (num_regressors,))
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable((), "zeros", name="num_samples")
        self._built = False

    def update_state(self, y_true, y_pred, sample_weight=None):
        f32 = np.float32
        t, p = _same_rank_np(_np(y_true).astype(f32), _np(y_pred).astype(f32))
        if not self._built:
            _built_2d(self, t, p)
            k = p.shape[-1]
            self.squared_sum = self.add_variable((k,), "zeros", name="squared_sum")
            self.sum = self.add_variable((k,), "zeros", name="sum")
            self.total_mse = self.add_variable((k,), "zeros", name="residual")
            self.count = self.add_variable((k,), "zeros", name="count")
            self._built = True
        w = np.float32(1) if sample_weight is None else _np(sample_weight).astype(f32)
        if w.ndim == 1:
            w = w[:, None]
        try:
            w = np.broadcast_to(w, t.shape)
        except ValueError:
            raise ValueError("R2Score: sample_weight of shape %s does not broadcast to "
                             "y_true's shape %s" % (np.shape(w), t.shape)) from None
        wt = t * w
        self.sum.assign_add(wt.sum(axis=0, dtype=f32))
        self.squared_sum.assign_add((t * wt).sum(axis=0, dtype=f32))
        self.total_mse.assign_add(((t - p) ** 2 * w).sum(axis=0, dtype=f32))
        self.count.assign_add(w.sum(axis=0, dtype=f32))
        self.num_samples.assign_add(np.float32(t.size))

    def result(self):
        if not self._built:
            raise ValueError("R2Score.result: no update_state call yet (the number of "
                             "output columns is unknown)")
        with np.errstate(divide="ignore", invalid="ignore"):
            s, c = self.sum.numpy(), self.count.numpy()
            mean = s / c
            total = self.squared_sum.numpy() - s * mean
            raw = 1 - self.total_mse.numpy() / total
            raw = np.where(np.isinf(raw), np.float32(0), raw).astype(np.float32)
            if self.class_aggregation == "uniform_average":
                r2 = raw.mean(dtype=np.float32)
            elif self.class_aggregation == "variance_weighted_average":
                r2 = np.float32((total * raw).sum() / total.sum())
            else:
                r2 = raw
            n = float(self.num_samples.numpy())
            if self.num_regressors != 0:
                if self.num_regressors >= n - 1:
                    import warnings
                    warnings.warn("Adjusted R2 score needs more datapoints than "
                                  "num_regressors + 1. Falling back to standard R2 score.",
                                  stacklevel=2)
                else:
                    r2 = 1 - (1 - r2) * np.float32(n - 1) / \
                        np.float32(n - self.num_regressors - 1)
        return constant(np.asarray(r2, np.float32))

    def get_config(self):
        config = super().get_config()
        config.update({"class_aggregation": self.class_aggregation,
                       "num_regressors": self.num_regressors})
        return config


class FBetaScore(Metric):
    """F-beta per class (``average=None``) or averaged ('micro', 'macro', 'weighted');
    without ``threshold`` each row's highest score is its one predicted class."""

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score",
                 dtype=None):
        super().__init__(name, dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, "
                             "'micro', 'macro', 'weighted'}. Received: average=%s"
                             % (average,))
        if not isinstance(beta, float):
            raise ValueError("Invalid `beta` argument value. It should be a Python float. "
                             "Received: beta=%s of type '%s'" % (beta, type(beta)))
        if beta <= 0.0:
            raise ValueError("Invalid `beta` argument value. It should be > 0. "
                             "Received: beta=%s" % (beta,))
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError("Invalid `threshold` argument value. It should be a Python "
                                 "float. Received: threshold=%s of type '%s'"
                                 % (threshold, type(threshold)))
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError("Invalid `threshold` argument value. It should verify "
                                 "0 < threshold <= 1. Received: threshold=%s" % (threshold,))
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def update_state(self, y_true, y_pred, sample_weight=None):
        f32 = np.float32
        t, p = _np(y_true).astype(f32), _np(y_pred).astype(f32)
        if not self._built:
            _built_2d(self, t, p)
            shape = () if self.average == "micro" else (p.shape[-1],)
            for attr in ("true_positives", "false_positives", "false_negatives",
                         "intermediate_weights"):
                setattr(self, attr, self.add_variable(shape, "zeros", name=attr))
            self._built = True
        if self.threshold is None:
            pred = (p >= p.max(axis=-1, keepdims=True)) & (np.abs(p) > 1e-9)
        else:
            pred = p > self.threshold
        pred = pred.astype(f32)
        w = None if sample_weight is None else _np(sample_weight).astype(f32)[:, None]

        def wsum(v):
            return (v if w is None else v * w).sum(axis=self.axis, dtype=f32)

        self.true_positives.assign_add(wsum(pred * t))
        self.false_positives.assign_add(wsum(pred * (1 - t)))
        self.false_negatives.assign_add(wsum((1 - pred) * t))
        self.intermediate_weights.assign_add(wsum(t))

    def result(self):
        if not self._built:
            raise ValueError("%s.result: no update_state call yet (the number of classes "
                             "is unknown)" % type(self).__name__)
        eps = np.float32(backend.epsilon())
        tp, fp, fn = (v.numpy() for v in (self.true_positives, self.false_positives,
                                          self.false_negatives))
        precision = tp / (tp + fp + eps)
        recall = tp / (tp + fn + eps)
        b2 = np.float32(self.beta ** 2)
        f = precision * recall / (b2 * precision + recall + eps) * (1 + b2)
        if self.average == "weighted":
            iw = self.intermediate_weights.numpy()
            f = (f * (iw / (iw.sum() + eps))).sum(dtype=np.float32)
        elif self.average is not None:
            f = np.mean(f, dtype=np.float32)
        return constant(np.asarray(f, np.float32))

    def get_config(self):
        config = super().get_config()
        config.update({"average": self.average, "beta": self.beta,
                       "threshold": self.threshold})
        return config


class F1Score(FBetaScore):
    """FBetaScore with beta = 1."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average, 1.0, threshold, name, dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config


def pearson_correlation(y_true, y_pred, axis=-1):
    """The Pearson correlation of y_true and y_pred along ``axis`` (population std)."""
    t, p = _same_rank_np(_np(y_true).astype(np.float32), _np(y_pred).astype(np.float32))
    tn = t - t.mean(axis=axis, keepdims=True)
    pn = p - p.mean(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        tn = tn / tn.std(axis=axis, keepdims=True)
        pn = pn / pn.std(axis=axis, keepdims=True)
    return constant((tn * pn).mean(axis=axis).astype(np.float32))


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation along ``axis``, as Keras 3 computes it (its
    covariance term centres y_true on y_pred's mean)."""
    t, p = _same_rank_np(_np(y_true).astype(np.float32), _np(y_pred).astype(np.float32))
    tm = t.mean(axis=axis, keepdims=True)
    pm = p.mean(axis=axis, keepdims=True)
    norm = (t - tm).var(axis=axis, keepdims=True) + (p - pm).var(axis=axis, keepdims=True) \
        + np.square(tm - pm)
    covar = (t - pm) * (p - pm)
    return constant((2 * covar / (norm + np.float32(backend.epsilon())))
                       .mean(axis=axis).astype(np.float32))


class _AxisConfig:
    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "axis": self._fn_kwargs["axis"]}


class PearsonCorrelation(_AxisConfig, MeanMetricWrapper):
    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name, dtype, axis=axis)


class ConcordanceCorrelation(_AxisConfig, MeanMetricWrapper):
    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name, dtype, axis=axis)


# ---- IoU ---------------------------------------------------------------------------------------

class _IoUBase(Metric):
    """Accumulates a (num_classes, num_classes) confusion matrix (rows: labels, columns:
    predictions). As in Keras 3 its dtype defaults to int64, so float sample weights are
    truncated to integers; labels or predictions outside [0, num_classes), and labels equal
    to ``ignore_class``, are not counted."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(name, "int64" if dtype in (None, "int") else dtype)
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable((num_classes, num_classes), "zeros",
                                          dtype=self._dtype, name="total_confusion_matrix")

    def update_state(self, y_true, y_pred, sample_weight=None):
        d = self._dtype.as_numpy_dtype
        t, p = _np(y_true), _np(y_pred)
        if not self.sparse_y_true:
            t = np.argmax(t, axis=self.axis)
        if not self.sparse_y_pred:
            p = np.argmax(p, axis=self.axis)
        t, p = t.astype(d).reshape(-1), p.astype(d).reshape(-1)
        w = np.ones((), d) if sample_weight is None else _np(sample_weight).astype(d)
        if w.ndim > 1:
            w = w.reshape(-1)
        try:
            w = np.broadcast_to(w, t.shape)
        except ValueError:
            raise ValueError("%s: sample_weight of shape %s does not broadcast to the "
                             "labels' shape %s" % (type(self).__name__,
                                                   np.shape(_np(sample_weight)), t.shape))
        if p.shape != t.shape:
            raise ValueError("%s: y_true has %d values but y_pred has %d"
                             % (type(self).__name__, t.size, p.size))
        n = self.num_classes
        ok = (t >= 0) & (t < n) & (p >= 0) & (p < n)
        if self.ignore_class is not None:
            ok &= t != self.ignore_class
        cm = np.zeros((n, n), d)
        np.add.at(cm, (t[ok].astype(np.int64), p[ok].astype(np.int64)), w[ok])
        self.total_cm.assign_add(cm)


class IoU(_IoUBase):
    """The mean intersection-over-union of the classes in ``target_class_ids``."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None,
                 ignore_class=None, sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, name or backend.unique_name(self._default_name), dtype,
                         ignore_class, sparse_y_true, sparse_y_pred, axis)
        if max(target_class_ids) >= num_classes:
            raise ValueError("Target class id %s is out of range, which is [0, %s)."
                             % (max(target_class_ids), num_classes))
        self.target_class_ids = list(target_class_ids)

    _default_name = "io_u"

    def result(self):
        cm = self.total_cm.numpy()
        tp = np.diag(cm)
        denom = (cm.sum(axis=0) + cm.sum(axis=1) - tp)[self.target_class_ids]
        denom = denom.astype(np.float32)
        tp = tp[self.target_class_ids].astype(np.float32)
        eps = np.float32(backend.epsilon())
        valid = denom > 1e-9
        iou = np.where(valid, tp / (denom + eps), np.float32(0))
        return constant(np.float32(iou.sum(dtype=np.float32) /
                                      (np.float32(valid.sum()) + eps)))

    def get_config(self):
        config = super().get_config()
        config.update({"num_classes": self.num_classes,
                       "target_class_ids": self.target_class_ids,
                       "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                       "sparse_y_pred": self.sparse_y_pred, "axis": self.axis})
        return config


class BinaryIoU(IoU):
    """IoU of two classes: predictions at or above ``threshold`` are class 1."""

    _default_name = "binary_io_u"

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, target_class_ids, name, dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        pred = _np(y_pred).astype(np.float32) >= self.threshold
        super().update_state(y_true, pred, sample_weight)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self.dtype}


class MeanIoU(IoU):
    """IoU averaged over all ``num_classes`` classes."""

    _default_name = "mean_io_u"

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, list(range(num_classes)), name, dtype, ignore_class,
                         sparse_y_true, sparse_y_pred, axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class OneHotIoU(IoU):
    """IoU with one-hot labels (and, unless ``sparse_y_pred``, scores): argmax first."""

    _default_name = "one_hot_io_u"

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None,
                 ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, target_class_ids, name, dtype, ignore_class, False,
                         sparse_y_pred, axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "name": self.name, "dtype": self.dtype, "ignore_class": self.ignore_class,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class OneHotMeanIoU(MeanIoU):
    """MeanIoU with one-hot labels (and, unless ``sparse_y_pred``, scores)."""

    _default_name = "one_hot_mean_io_u"

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name, dtype, ignore_class, False, sparse_y_pred, axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


acc = ACC = accuracy

_CLASSES = {c.__name__: c for c in (
    Mean, Sum, Accuracy, SparseCategoricalAccuracy, CategoricalAccuracy, BinaryAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanSquaredError,
    MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
    SparseCategoricalCrossentropy, CategoricalCrossentropy, BinaryCrossentropy, Precision, Recall, TruePositives, FalsePositives, TrueNegatives,
    FalseNegatives, AUC, RootMeanSquaredError, CosineSimilarity, KLDivergence, Poisson,
    LogCoshError, Hinge, SquaredHinge, CategoricalHinge, R2Score, FBetaScore, F1Score,
    PearsonCorrelation, ConcordanceCorrelation, IoU, BinaryIoU, MeanIoU, OneHotIoU,
    OneHotMeanIoU, SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall,
    RecallAtPrecision)}
_FUNCTIONS = {
    "accuracy": Accuracy, "acc": Accuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "categorical_accuracy": CategoricalAccuracy, "binary_accuracy": BinaryAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError, "mean_absolute_error": MeanAbsoluteError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "precision": Precision, "recall": Recall,
    "true_positives": TruePositives, "false_positives": FalsePositives,
    "true_negatives": TrueNegatives, "false_negatives": FalseNegatives, "auc": AUC,
    "root_mean_squared_error": RootMeanSquaredError, "cosine_similarity": CosineSimilarity,
    "kl_divergence": KLDivergence, "poisson": Poisson, "hinge": Hinge,
    "squared_hinge": SquaredHinge, "categorical_hinge": CategoricalHinge,
    "r2_score": R2Score, "f1_score": F1Score,
    "pearson_correlation": PearsonCorrelation,
    "concordance_correlation": ConcordanceCorrelation,
}


def serialize(metric):
    """Keras 3's form: ``{"module": "keras.metrics", "class_name", "config",
    "registered_name"}`` for a built-in metric; other objects as saving stores them."""
    if isinstance(metric, Metric) and _CLASSES.get(type(metric).__name__) is type(metric):
        return {"module": "keras.metrics", "class_name": type(metric).__name__,
                "config": _serialization.serialize_keras_object(metric.get_config()),
                "registered_name": None}
    return _serialization.serialize_keras_object(metric)


def deserialize(config, custom_objects=None):
    """The metric a name (as ``get``) or a serialized ``{"class_name", "config"}`` dict
    names; ``custom_objects`` are looked up first."""
    custom = dict(custom_objects or {})
    if isinstance(config, str):
        obj = custom.get(config)
        if obj is None:
            return get(config)
        return obj() if isinstance(obj, type) else obj
    if isinstance(config, dict) and "class_name" in config:
        cls_name, cfg = config["class_name"], config.get("config", {})
        if cls_name == "function" and isinstance(cfg, str):
            return deserialize(cfg, custom_objects)
        cls = custom.get(cls_name) or _CLASSES.get(cls_name)
        if not (isinstance(cls, type) and issubclass(cls, Metric)) or not isinstance(cfg, dict):
            raise ValueError("metrics.deserialize: cannot build %r (expected a known metric "
                             "class with a config dict; known: %s)"
                             % (cls_name, ", ".join(sorted(_CLASSES))))
        return cls.from_config(cfg)
    raise ValueError("metrics.deserialize: cannot interpret %r (expected a name or a "
                     "{'class_name': ..., 'config': ...} dict)" % (config,))


def get(identifier):
    """A metric object from a name ('accuracy', 'mse', 'Precision'), a serialized dict, a
    Metric or a callable."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier](name=identifier)
        raise ValueError("metrics.get: unknown metric %r (known: %s)"
                         % (identifier, ", ".join(sorted(list(_FUNCTIONS) + list(_CLASSES)))))
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        # a Loss object has a ``name``, not a ``__name__`` (Keras 3 logs it by that name)
        name = getattr(identifier, "__name__", None) or getattr(identifier, "name", None)
        return MeanMetricWrapper(identifier, name if isinstance(name, str) else None)
    raise ValueError("metrics.get: cannot interpret %r as a metric" % (identifier,))

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("metrics", globals(), Metric)
