"""The loss and metrics ``Model.compile`` sets up: one compiled loss (the user's loss,
reduced, plus the model's regularization losses), Keras's rules that turn 'accuracy' and
'crossentropy' into the metric class that fits the data, and the per-output losses and
metrics of a model with several named outputs (``StructuredLoss``).
"""
from .. import errors, nest
from .._core import convert_to_tensor
from ..ops.elementwise_ops import add_n, cast
from . import losses as losses_module
from . import metrics as metrics_module


class _CompiledLoss:
    """The compiled loss: the user's loss (wrapped to reduce) plus the model's losses."""

    def __init__(self, loss):
        fn = losses_module.get(loss)
        if fn is None:
            self.loss = None
        elif isinstance(fn, losses_module.Loss):
            self.loss = fn
        else:
            self.loss = losses_module.LossFunctionWrapper(fn)
        self.name = getattr(self.loss, "name", None)

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        total = None
        if self.loss is not None:
            if y_true is None:
                raise ValueError("Model: the compiled loss needs targets y, but the data had "
                                 "none (pass y, or a dataset yielding (x, y))")
            total = self.loss(y_true, y_pred, sample_weight)
        if regularization_losses:
            reg = add_n([cast(r, y_pred.dtype) if r.dtype != y_pred.dtype else r
                            for r in regularization_losses])
            total = reg if total is None else total + reg
        if total is None:
            raise ValueError("Model: no loss to optimize; pass loss=... to compile()")
        return total


def _is_sparse_loss(loss):
    fn = getattr(loss, "fn", loss)
    return fn is losses_module.sparse_categorical_crossentropy


def _resolve_metric(identifier, y_true, y_pred, loss):
    """Keras's rules for 'accuracy'/'crossentropy': pick the variant that fits the shapes."""
    if identifier not in ("accuracy", "acc", "crossentropy", "ce"):
        return metrics_module.get(identifier)
    yt = convert_to_tensor(y_true) if y_true is not None else None
    p_shape = y_pred.shape.as_list()
    is_binary = bool(p_shape) and p_shape[-1] == 1
    t_rank = yt.shape.rank if yt is not None else len(p_shape)
    t_last = yt.shape.as_list()[-1] if yt is not None and t_rank else None
    is_sparse = (t_rank < len(p_shape)) or (t_last == 1 and p_shape and p_shape[-1] > 1) \
        or (_is_sparse_loss(loss) and not is_binary)
    if identifier in ("accuracy", "acc"):
        cls = metrics_module.BinaryAccuracy if is_binary else (
            metrics_module.SparseCategoricalAccuracy if is_sparse
            else metrics_module.CategoricalAccuracy)
    else:
        cls = metrics_module.BinaryCrossentropy if is_binary else (
            metrics_module.SparseCategoricalCrossentropy if is_sparse
            else metrics_module.CategoricalCrossentropy)
    return cls(name=identifier)


def _per_output(what, value, names, where):
    """``value`` (one for all, a list in output order, or a dict by output name) as a list
    with one entry per output name."""
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError("%s: %s names unknown outputs %s (expected keys among the output "
                             "names %s)" % (where, what, unknown, names))
        return [value.get(n) for n in names]
    if isinstance(value, (list, tuple)):
        if len(value) != len(names):
            raise ValueError("%s: for a model with %d outputs, %s as a list must have %d "
                             "entries (got %d)" % (where, len(names), what, len(names),
                                                   len(value)))
        return list(value)
    return [value] * len(names)


class StructuredLoss:
    """The compiled loss and metrics of a model with one or several named outputs."""

    structured = True

    def __init__(self, model, loss, loss_weights, metrics):
        names = list(getattr(model, "output_names", ()))
        if not names:
            raise errors.UnimplementedError(
                "compile: a loss or metrics per output (a list or dict) needs a functional "
                "model (fe.keras.Model(inputs, outputs)); %s has no named outputs"
                % type(model).__name__)
        self.model = model
        self.names = names
        self.losses = [_CompiledLoss(v).loss for v in _per_output("loss", loss, names,
                                                                 "compile")]
        weights = _per_output("loss_weights", 1.0 if loss_weights is None else loss_weights,
                              names, "compile")
        self.weights = [1.0 if w is None else float(w) for w in weights]
        if isinstance(metrics, (list, tuple)) and len(names) > 1 and metrics and \
                not all(m is None or isinstance(m, (list, tuple)) for m in metrics):
            raise ValueError("compile: for a model with %d outputs, metrics as a list must have "
                             "one entry (a list of metrics) per output (got %r); or pass a "
                             "dict by output name" % (len(names), metrics))
        if metrics is None:
            metrics = [None] * len(names)
        elif not isinstance(metrics, (list, tuple, dict)):
            metrics = [metrics] * len(names)
        elif len(names) == 1 and isinstance(metrics, (list, tuple)) and \
                not any(isinstance(m, (list, tuple)) for m in metrics):
            metrics = [list(metrics)]
        per = _per_output("metrics", metrics, names, "compile")
        self.metric_ids = [[] if m is None else list(m) if isinstance(m, (list, tuple))
                           else [m] for m in per]
        self.name = None
        self.loss = None
        self._trackers = None

    def _align(self, what, value):
        if value is None:
            return [None] * len(self.names)
        if isinstance(value, dict):
            missing = [n for n in self.names if n not in value]
            if missing:
                raise ValueError("%s: %s has no entries for outputs %s (expected keys %s)"
                                 % (self.model.name, what, missing, self.names))
            return [value[n] for n in self.names]
        if isinstance(value, (list, tuple)) and len(self.names) > 1:
            if len(value) != len(self.names):
                raise ValueError("%s: %s must have one entry per output (expected %d, got %d)"
                                 % (self.model.name, what, len(self.names), len(value)))
            return list(value)
        return [value]

    def per_output(self, y_true, y_pred, sample_weight=None):
        """[(output name, loss value or None)] for each output."""
        ys, ps = self._align("y", y_true), self._align("the model's outputs", y_pred)
        sws = self._align("sample_weight", sample_weight) \
            if isinstance(sample_weight, (list, tuple, dict)) else [sample_weight] * len(ys)
        out = []
        for name, fn, y, p, sw in zip(self.names, self.losses, ys, ps, sws):
            if fn is None:
                out.append((name, None))
                continue
            if y is None:
                raise ValueError("%s: output %r has a loss but the data has no targets for it"
                                 % (self.model.name, name))
            out.append((name, fn(y, p, sw)))
        return out

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        terms = [v * w if w != 1.0 else v for (_, v), w in
                 zip(self.per_output(y_true, y_pred, sample_weight), self.weights)
                 if v is not None]
        terms += list(regularization_losses or [])
        if not terms:
            raise ValueError("Model: no loss to optimize; pass loss=... to compile()")
        dtype = terms[0].dtype
        return add_n([cast(t, dtype) if t.dtype != dtype else t for t in terms])

    def update_metrics(self, y_true, y_pred, sample_weight=None):
        """Update the per-output loss trackers and metrics; every metric's result."""
        model = self.model
        ys, ps = self._align("y", y_true), self._align("the model's outputs", y_pred)
        if model._metric_objects is None:
            objects, self._trackers = [], []
            for i, name in enumerate(self.names):
                if len(self.names) > 1 and self.losses[i] is not None:
                    tracker = metrics_module.Mean(name + "_loss")
                    self._trackers.append((i, tracker))
                    objects.append(tracker)
                for ident in self.metric_ids[i]:
                    m = _resolve_metric(ident, ys[i], ps[i], self.losses[i])
                    if isinstance(ident, str) and len(self.names) > 1:
                        m.name = "%s_%s" % (name, m.name)
                    objects.append((i, m))
            model._metric_objects = [o if isinstance(o, metrics_module.Metric) else o[1]
                                     for o in objects]
            self._metrics = [o for o in objects if isinstance(o, tuple)]
        if self._trackers:
            values = dict(self.per_output(y_true, y_pred, sample_weight))
            # Keras 3 weighs each batch's per-output loss by the batch size, which its traced
            # step does not know (None: each batch counts once); run_eagerly knows it
            n = nest.flatten(y_pred)[0].shape.as_list()[0] \
                if getattr(model, "run_eagerly", False) else None
            for i, tracker in self._trackers:
                tracker.update_state(values[self.names[i]], sample_weight=n)
        if y_true is not None:
            for i, m in self._metrics:
                if ys[i] is not None:
                    m.update_state(ys[i], ps[i])   # Keras 3: compiled metrics are unweighted
        return model.get_metrics_result()
