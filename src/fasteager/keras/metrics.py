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

import fasteager as fe

from . import _naming, backend, losses as _losses
from ..distribute import strategy as _distribute


def _np(x):
    if isinstance(x, (fe.Tensor, fe.Variable)):
        return np.asarray(x.numpy())
    return np.asarray(x)


# Metrics update in NumPy eagerly (fast for one call); inside fe.function they update
# with fasteager ops instead, so a training step that updates them stays a graph (NumPy
# would read the tensors' values and make the function run eagerly).
def _tracing():
    from ..function import current_tracer
    return current_tracer() is not None


def _weights_like_t(v, sample_weight):
    sw = fe.cast(sample_weight, fe.float64)
    if sw.shape.rank == v.shape.rank + 1 and sw.shape[-1] == 1:
        sw = fe.squeeze(sw, -1)
    while sw.shape.rank < v.shape.rank:
        sw = fe.expand_dims(sw, -1)
    return sw * fe.ones_like(v)


def _mean_state_t(values, sample_weight):
    """(total, count) of ``values`` as float64 tensors, by fasteager ops."""
    v = fe.cast(values, fe.float64)
    if sample_weight is None:
        return fe.reduce_sum(v), fe.cast(fe.size(v), fe.float64)
    w = _weights_like_t(v, sample_weight)
    return fe.reduce_sum(v * w), fe.reduce_sum(w)


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
        self._dtype = fe.as_dtype(dtype) if dtype is not None else fe.float32
        self._variables = []
        # made in strategy.scope(): state variables added later are created under it
        self._distribute_strategy = _distribute.current_strategy()

    @property
    def dtype(self):
        return self._dtype.name

    def add_weight(self, name, shape=(), initializer="zeros", dtype=None):
        from . import initializers
        d = fe.as_dtype(dtype) if dtype is not None else self._dtype
        with _distribute.owner_scope(self):
            v = _naming.KerasVariable(initializers.get(initializer)(shape, dtype=d),
                                      trainable=False, name=name, dtype=d,
                                      path=_naming.path_for(self, self.name, name))
        self._variables.append(v)
        return v

    @property
    def variables(self):
        return list(self._variables)

    weights = variables
    non_trainable_weights = variables

    @property
    def trainable_weights(self):
        return []

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def reset_state(self):
        # (Keras 3 has no reset_states alias: TensorFlow 2.21 raises AttributeError for it)
        for v in self._variables:
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
        return "<%s name=%s>" % (type(self).__name__, self.name)


def _weights_like(values, sample_weight):
    sw = _np(sample_weight).astype(np.float64)
    if sw.ndim == values.ndim + 1 and sw.shape[-1] == 1:
        sw = sw[..., 0]
    while sw.ndim < values.ndim:
        sw = sw[..., None]
    return np.broadcast_to(sw, values.shape)


class Sum(Metric):
    """The (weighted) sum of the values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_weight("total")

    def update_state(self, values, sample_weight=None):
        if _tracing():
            total, _ = _mean_state_t(values, sample_weight)
            self.total.assign_add(fe.cast(total, self._dtype))
            return
        v = _np(values).astype(np.float64)
        if sample_weight is not None:
            v = v * _weights_like(v, sample_weight)
        self.total.assign_add(np.asarray(v.sum(), self._dtype.as_numpy_dtype))

    def result(self):
        return fe.identity(self.total.read_value())


class Mean(Metric):
    """The (weighted) mean of the values seen."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_weight("total")
        self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        if _tracing():
            total, count = _mean_state_t(values, sample_weight)
            self.total.assign_add(fe.cast(total, self._dtype))
            self.count.assign_add(fe.cast(count, self._dtype))
            return
        v = _np(values).astype(np.float64)
        if sample_weight is None:
            total, count = v.sum(), v.size
        else:
            w = _weights_like(v, sample_weight)
            total, count = (v * w).sum(), w.sum()
        d = self._dtype.as_numpy_dtype
        self.total.assign_add(np.asarray(total, d))
        self.count.assign_add(np.asarray(count, d))

    def result(self):
        if _tracing():
            return fe.math.divide_no_nan(self.total.read_value(), self.count.read_value())
        t = float(self.total.numpy())
        c = float(self.count.numpy())
        return fe.constant(np.asarray(t / c if c else 0.0, self._dtype.as_numpy_dtype))


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
        values = fn(y_true, y_pred, **self._fn_kwargs)
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


def categorical_accuracy(y_true, y_pred):
    t, p = _np(y_true), _np(y_pred)
    return (np.argmax(t, axis=-1) == np.argmax(p, axis=-1)).astype(np.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    t, p = _np(y_true), _np(y_pred)
    if t.ndim == p.ndim - 1 and p.shape[-1] == 1:
        t = t[..., None]
    return np.mean((p > threshold).astype(np.float64) == t.astype(np.float64),
                   axis=-1).astype(np.float32)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return sparse_top_k_categorical_accuracy(np.argmax(_np(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    t, p = _np(y_true).astype(np.int64), _np(y_pred)
    if t.ndim == p.ndim and t.shape[-1] == 1:
        t = t[..., 0]
    top = np.argsort(-p, axis=-1, kind="stable")[..., :k]
    return np.any(top == t[..., None], axis=-1).astype(np.float32)


def _np_loss(fn):
    def metric_fn(y_true, y_pred, **kw):
        return _np(fn(y_true, y_pred, **kw))
    metric_fn.__name__ = fn.__name__
    metric_fn.traced = fn
    return metric_fn


# the accuracies by fasteager ops (``fn.traced``: used inside fe.function)
def _traced(numpy_fn):
    def attach(fn):
        numpy_fn.traced = fn
        return fn
    return attach


@_traced(accuracy)
def _accuracy_t(y_true, y_pred):
    t, p = fe.convert_to_tensor(y_true), fe.convert_to_tensor(y_pred)
    if t.shape.rank == p.shape.rank + 1 and t.shape[-1] == 1:
        t = fe.squeeze(t, -1)
    if t.dtype != p.dtype:
        p = fe.cast(p, t.dtype)
    return fe.cast(fe.equal(t, p), fe.float32)


@_traced(sparse_categorical_accuracy)
def _sparse_categorical_accuracy_t(y_true, y_pred):
    t, p = fe.convert_to_tensor(y_true), fe.convert_to_tensor(y_pred)
    if t.shape.rank == p.shape.rank and t.shape.rank > 0 and t.shape[-1] == 1:
        t = fe.squeeze(t, -1)
    return fe.cast(fe.equal(fe.cast(fe.argmax(p, -1), fe.float64), fe.cast(t, fe.float64)),
                   fe.float32)


@_traced(categorical_accuracy)
def _categorical_accuracy_t(y_true, y_pred):
    return fe.cast(fe.equal(fe.argmax(y_true, -1), fe.argmax(y_pred, -1)), fe.float32)


@_traced(binary_accuracy)
def _binary_accuracy_t(y_true, y_pred, threshold=0.5):
    t, p = fe.convert_to_tensor(y_true), fe.convert_to_tensor(y_pred)
    if t.shape.rank == p.shape.rank - 1 and p.shape[-1] == 1:
        t = fe.expand_dims(t, -1)
    hit = fe.equal(fe.cast(p > threshold, fe.float64), fe.cast(t, fe.float64))
    return fe.cast(fe.reduce_mean(fe.cast(hit, fe.float64), axis=-1), fe.float32)


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
    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype, k=k)


class MeanSquaredError(MeanMetricWrapper):
    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(_np_loss(_losses.mean_squared_error), name, dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(_np_loss(_losses.mean_absolute_error), name, dtype)


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False):
        super().__init__(_np_loss(_losses.sparse_categorical_crossentropy), name, dtype,
                         from_logits=from_logits)


class CategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False):
        super().__init__(_np_loss(_losses.categorical_crossentropy), name, dtype,
                         from_logits=from_logits)


class BinaryCrossentropy(MeanMetricWrapper):
    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False):
        super().__init__(_np_loss(_losses.binary_crossentropy), name, dtype,
                         from_logits=from_logits)


class _Confusion(Metric):
    """True/false positives and negatives at a threshold (binary problems)."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name, dtype)
        self.threshold = 0.5 if thresholds is None else float(thresholds)
        self.tp = self.add_weight("true_positives")
        self.fp = self.add_weight("false_positives")
        self.fn = self.add_weight("false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        t = _np(y_true).astype(bool).reshape(-1)
        p = (_np(y_pred) > self.threshold).reshape(-1)
        w = np.ones_like(t, np.float64) if sample_weight is None else \
            np.broadcast_to(_np(sample_weight).astype(np.float64).reshape(-1), t.shape)
        d = self._dtype.as_numpy_dtype
        self.tp.assign_add(np.asarray(w[t & p].sum(), d))
        self.fp.assign_add(np.asarray(w[~t & p].sum(), d))
        self.fn.assign_add(np.asarray(w[t & ~p].sum(), d))


class Precision(_Confusion):
    def __init__(self, thresholds=None, name="precision", dtype=None):
        super().__init__(thresholds, name, dtype)

    def result(self):
        tp, fp = float(self.tp.numpy()), float(self.fp.numpy())
        return fe.constant(np.float32(tp / (tp + fp) if tp + fp else 0.0))


class Recall(_Confusion):
    def __init__(self, thresholds=None, name="recall", dtype=None):
        super().__init__(thresholds, name, dtype)

    def result(self):
        tp, fn = float(self.tp.numpy()), float(self.fn.numpy())
        return fe.constant(np.float32(tp / (tp + fn) if tp + fn else 0.0))


acc = ACC = accuracy
mse = MSE = _np_loss(_losses.mean_squared_error)
mae = MAE = _np_loss(_losses.mean_absolute_error)

_CLASSES = {c.__name__: c for c in (
    Mean, Sum, Accuracy, SparseCategoricalAccuracy, CategoricalAccuracy, BinaryAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanSquaredError,
    MeanAbsoluteError, SparseCategoricalCrossentropy, CategoricalCrossentropy,
    BinaryCrossentropy, Precision, Recall)}
_FUNCTIONS = {
    "accuracy": Accuracy, "acc": Accuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "categorical_accuracy": CategoricalAccuracy, "binary_accuracy": BinaryAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError, "mean_absolute_error": MeanAbsoluteError,
    "precision": Precision, "recall": Recall,
}


def get(identifier):
    """A metric object from a name ('accuracy', 'mse', 'Precision'), a Metric or a callable."""
    if isinstance(identifier, Metric):
        return identifier
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
        return MeanMetricWrapper(identifier, getattr(identifier, "__name__", None))
    raise ValueError("metrics.get: cannot interpret %r as a metric" % (identifier,))
