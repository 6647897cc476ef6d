"""``fe.keras.Model``: a Layer with a training loop (compile, fit, evaluate, predict).

Subclass it and implement ``call``; variables and layers assigned as attributes are
tracked. ``train_step``/``test_step``/``predict_step`` are the per-batch hooks, and may
be overridden as in Keras.

>>> class Linear(fe.keras.Model):
...     def __init__(self):
...         super().__init__()
...         self.W = fe.Variable(5., name='weight')
...         self.B = fe.Variable(10., name='bias')
...     def call(self, inputs):
...         return inputs * self.W + self.B
>>> [v.name for v in Linear().trainable_variables]
['weight:0', 'bias:0']
"""
import os
import warnings

import numpy as np

from .. import errors, nest
from .._core import Tensor, convert_to_tensor, get_tracer
from .._src.autodiff.tape import GradientTape
from .._src.state.variables import Variable
from .._src.tracing.function import function
from ..distribute import strategy as _distribute
from ..ops.array_ops import zeros
from ..tensor_shape import TensorShape
from ..train import weights
from . import _data, _naming, _serialization, backend, config, optimizers, saving
from . import callbacks as callbacks_module
from . import metrics as metrics_module
from ._compile import StructuredLoss, _CompiledLoss, _resolve_metric
from ._serialization import deserialize_keras_object, serialize_keras_object
from ._summary import print_summary
from .layers.base import InputLayer, KerasTensor, Layer
from .layers.base import user_build as _user_build


def _float(v):
    """A log value as a Python float; a metric with several values (Precision with a list
    of thresholds) stays an array, as Keras 3's logs keep what float() refuses."""
    if isinstance(v, (Tensor, Variable)):
        v = np.asarray(v.numpy())
    if np.ndim(v) and np.size(v) != 1:
        return np.asarray(v)
    return float(np.asarray(v).reshape(()))


def _check_count(where, arg, value, minimum=1):
    """``value`` as an int, or None; an InvalidArgumentError for 0, negatives and non-ints
    (``int(batch_size or 32)`` once turned batch_size=0 into 32 silently)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < minimum:
        raise errors.InvalidArgumentError(
            "%s: %s must be an integer >= %d (expected an int >= %d, got %r)"
            % (where, arg, minimum, minimum, value))
    return int(value)


def _no_data(where):
    # Keras 2 raised "Unexpected result of `evaluate_function` (Empty logs)"; say what it means
    return ValueError("%s: Unexpected result of `%s`: there is no data (expected at least one "
                      "batch, got 0): x is empty or the dataset yielded nothing. Check the "
                      "input pipeline (a dataset that is exhausted needs .repeat())"
                      % (where, where))


# Model(inputs, outputs) is a Functional; functional.py defines that subclass on top of
# this module and registers it here when it is imported (the keras package imports it)
_functional_class = [None]


def set_functional_class(cls):
    _functional_class[0] = cls


class Model(Layer):
    """A layer with ``compile``/``fit``/``evaluate``/``predict`` (subclass and define ``call``)."""

    # training state, not part of the model's variables or its weights files
    _NOT_TRACKED = Layer._NOT_TRACKED | {"optimizer", "compiled_loss", "_loss_tracker",
                                         "_metric_objects", "history", "_compiled_metric_ids",
                                         "_weighted_metric_ids", "_metric_log_names",
                                         "_input_spec", "_compile_args"}
    # a model hands sparse and ragged inputs to its layers, which take or refuse them
    _accepts_sparse = _accepts_ragged = True

    def __new__(cls, *args, **kwargs):
        # Model(inputs, outputs) makes a functional model, as in Keras
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            return object.__new__(_functional_class[0])
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        functional = (len(args) == 2 or (len(args) == 1 and "outputs" in kwargs)
                      or ("inputs" in kwargs and "outputs" in kwargs))
        if args and not functional:
            # Keras 3 hands other positional arguments to Layer.__init__, which refuses them
            raise TypeError("%s: Layer.__init__() takes 1 positional argument but %d were "
                            "given" % (type(self).__name__, len(args) + 1))
        if functional:
            raise errors.UnimplementedError(
                "%s(inputs, outputs): a subclassed Model built from inputs and outputs is not "
                "supported; call fe.keras.Model(inputs, outputs) or define call()"
                % type(self).__name__)
        super().__init__(**kwargs)
        self.optimizer = None
        self.compiled_loss = None
        self.stop_training = False
        self.history = None
        self._compiled_metric_ids = []
        self._weighted_metric_ids = []
        self._metric_objects = None
        self._metric_log_names = None
        self._loss_tracker = metrics_module.Mean("loss")
        self._is_compiled = False

    @classmethod
    def from_config(cls, config, custom_objects=None):
        # Model.from_config(functional_model.get_config()) rebuilds the functional model
        if cls is Model and isinstance(config, dict) and "input_layers" in config:
            return _functional_class[0].from_config(config, custom_objects=custom_objects)
        return super().from_config(config)

    def call(self, inputs, training=None):
        raise NotImplementedError("%s: a subclassed Model must implement call(inputs)"
                                  % type(self).__name__)

    @property
    def layers(self):
        return self._direct_layers()

    def get_layer(self, name=None, index=None):
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError("get_layer: index %d is out of range (%d layers)"
                                 % (index, len(layers)))
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError("get_layer: no layer named %r (layers: %s)"
                         % (name, ", ".join(lay.name for lay in layers)))

    def build(self, input_shape):
        """Create the weights by calling the model on zeros of ``input_shape``."""
        if self.__dict__.get("_in_user_build"):
            # super().build() from a user's build(): Keras 3's default build only marks
            # the model built (calling the model here would build it again, forever)
            self.built = True
            return
        self._build_by_call(input_shape)

    def _build_by_call(self, input_shape):
        if self.__dict__.get("_in_user_build"):
            self.built = True        # a user's build() in progress must not run again
        if isinstance(input_shape, (list, tuple)) and input_shape and \
                isinstance(input_shape[0], (list, tuple, TensorShape)):
            raise errors.UnimplementedError("Model.build: several inputs are not supported")
        shape = [1 if d is None else int(d) for d in TensorShape(input_shape)]
        self(zeros(shape), training=False)
        self.built = True

    def _maybe_build(self, inputs):
        # a model's weights are created by its layers during call, or by a user's own
        # build(), which Keras 3 calls with the first input's shape as for any layer
        if self.built:
            return
        if _user_build(type(self)):
            Layer._maybe_build(self, inputs)
        if getattr(self, "_saved_input_shape", None) is None:
            shape = getattr(inputs, "shape", None)
            if shape is not None and not isinstance(shape, list):
                dims = list(TensorShape(shape).as_list())
                if dims:
                    object.__setattr__(self, "_saved_input_shape", tuple([None] + dims[1:]))
        self.built = True

    # ---- summary --------------------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Print Keras 3's table of the layers, their output shapes and parameter counts
        (and what each reads, for a functional model that is not a plain chain), then the
        parameter totals; ``print_fn`` receives the whole text as one string."""
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                      expand_nested=expand_nested, show_trainable=show_trainable,
                      layer_range=layer_range)

    # ---- compile --------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=None, steps_per_execution=None,
                jit_compile=None, **kwargs):
        """Configure training: an optimizer, a loss, and metrics (names or objects).

        As in Keras 3, ``metrics`` ignore ``sample_weight`` (and class weights) and
        ``weighted_metrics`` take them; a weighted metric whose name an unweighted one
        already has is logged as ``weighted_<name>``."""
        # what get_compile_config serializes (Keras 3 stores the arguments as given)
        compile_args = {"loss": loss, "loss_weights": loss_weights, "metrics": metrics,
                        "weighted_metrics": weighted_metrics, "run_eagerly": bool(run_eagerly),
                        "steps_per_execution": steps_per_execution or 1,
                        "jit_compile": bool(jit_compile)}
        if isinstance(optimizer, (str, dict)):
            optimizer = optimizers.get(optimizer)
        if optimizer is None or not hasattr(optimizer, "apply_gradients"):
            raise ValueError("compile: optimizer must be a name like 'adam' or an optimizer "
                             "object with apply_gradients (got %r)" % (optimizer,))
        structured = isinstance(loss, (list, dict)) or isinstance(metrics, dict) or \
            loss_weights is not None or len(getattr(self, "output_names", ())) > 1
        if kwargs.pop("auto_scale_loss", True) and \
                self.dtype_policy.name == "mixed_float16" and \
                not isinstance(optimizer, optimizers.LossScaleOptimizer):
            # Keras 3: a mixed_float16 model trains with dynamic loss scaling
            optimizer = optimizers.LossScaleOptimizer(optimizer, name="loss_scale_optimizer")
        self.optimizer = optimizer
        if structured:
            # a loss (and metrics) per output of a functional model
            self.compiled_loss = StructuredLoss(self, loss, loss_weights, metrics)
            metrics = []
        else:
            self.compiled_loss = _CompiledLoss(loss)
        if metrics is None:
            metrics = []
        elif isinstance(metrics, (str, metrics_module.Metric)) or callable(metrics):
            metrics = [metrics]
        if weighted_metrics is None:
            weighted_metrics = []
        elif not isinstance(weighted_metrics, (list, tuple, dict)):
            raise ValueError("Expected `weighted_metrics` argument to be a list, tuple, or "
                             "dict. Received instead: weighted_metrics=%s of type %s"
                             % (weighted_metrics, type(weighted_metrics)))
        if (structured or isinstance(weighted_metrics, dict)) and weighted_metrics:
            raise errors.UnimplementedError(
                "compile: weighted_metrics with a loss or metrics per output is not "
                "supported (expected weighted_metrics=None, got %r)" % (weighted_metrics,))
        self._compiled_metric_ids = list(metrics)
        self._weighted_metric_ids = list(weighted_metrics)
        self._metric_objects = None
        self._metric_log_names = None
        self._loss_tracker = metrics_module.Mean("loss")
        # fit/evaluate/predict run their steps as fe.function graphs unless run_eagerly
        self.run_eagerly = bool(run_eagerly)
        self._traced_steps = {}
        self._compile_args = dict(compile_args, optimizer=optimizer)
        self._is_compiled = True

    def get_compile_config(self):
        """Keras 3's: the compile() arguments, serialized (the optimizer as its config);
        None before compile. ``Model.save`` stores it beside the architecture."""
        if not self._is_compiled or getattr(self, "_compile_args", None) is None:
            return None
        args = self._compile_args
        out = {"optimizer": serialize_keras_object(args["optimizer"])}
        out.update((k, serialize_keras_object(args[k])) for k in (
            "loss", "loss_weights", "metrics", "weighted_metrics", "run_eagerly",
            "steps_per_execution", "jit_compile"))
        return out

    def compile_from_config(self, config):
        """Keras 3's: compile with what ``get_compile_config`` returned, then build the
        optimizer's state for the model's variables (when the model is built) so saved
        optimizer values can be restored into it. Names in ``config`` are resolved only
        through the saving allow-list (fasteager's own and registered objects)."""
        saving._compile_from_config(self, config)

    @property
    def metrics(self):
        """The metric objects (the loss tracker first) once the model has seen data."""
        out = [self._loss_tracker] if self._is_compiled else []
        return out + list(self._metric_objects or [])

    @property
    def metrics_names(self):
        """Keras 3's: ``'loss'``, then ``'compile_metrics'`` (standing for every compiled
        metric) when compile had metrics, then each output's loss once the model has seen
        data; ``get_metrics_result()`` and the logs name the metrics one by one."""
        if not self._is_compiled:
            return []
        names = [self._loss_tracker.name]
        if getattr(self.compiled_loss, "structured", False):
            if any(self.compiled_loss.metric_ids):
                names.append("compile_metrics")
        elif self._compiled_metric_ids or self._weighted_metric_ids:
            names.append("compile_metrics")
        return names + [t.name for t in self._output_loss_trackers()]

    def _output_loss_trackers(self):
        trackers = getattr(self.compiled_loss, "_trackers", None) or []
        return [t for _, t in trackers]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def _check_compiled(self, what):
        # Keras 3's error and words (its ValueError names no method)
        if not self._is_compiled:
            raise ValueError("You must call `compile()` before using the model.")

    # ---- per-batch hooks ------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        """The compiled loss plus the model's regularization losses."""
        return self.compiled_loss(y, y_pred, sample_weight, self.losses)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics and return every metric's result in a dict."""
        if getattr(self.compiled_loss, "structured", False):
            return self.compiled_loss.update_metrics(y, y_pred, sample_weight)
        if self._metric_objects is None:
            loss = self.compiled_loss.loss
            plain = [_resolve_metric(m, y, y_pred, loss) for m in self._compiled_metric_ids]
            weighted = [_resolve_metric(m, y, y_pred, loss) for m in self._weighted_metric_ids]
            self._metric_objects = plain + weighted
            self._metric_log_names = _metric_log_names(plain, weighted)
        if y is not None:
            n_plain = len(self._compiled_metric_ids)
            for i, m in enumerate(self._metric_objects):
                # Keras 3: only weighted_metrics see the sample weights
                m.update_state(y, y_pred, sample_weight if i >= n_plain else None)
        return self.get_metrics_result()

    def get_metrics_result(self):
        return {name: m.result() for name, m in self._named_metrics()}

    def _named_metrics(self):
        """(log key, metric) for each metric: its name, or the key Keras 3 gives a
        compiled metric whose name repeats (``mae_1``, ``weighted_mae``)."""
        metrics = self.metrics
        names = [m.name for m in metrics]
        log_names = self.__dict__.get("_metric_log_names")
        if log_names is not None and len(log_names) == len(metrics) - 1:
            names = names[:1] + log_names
        return list(zip(names, metrics))

    def _flatten_logs(self, logs):
        """``logs`` as Keras 3's list: by the metrics' own names (the loss, the compiled
        metrics, each output's loss; a name that comes twice gives its value twice), then
        the other keys sorted; one value alone as a float."""
        trackers = self._output_loss_trackers()
        if getattr(self.compiled_loss, "structured", False):
            # a per-output metric's own name lacks the output's prefix of its log key
            out_names = self.compiled_loss.names
            compiled = [m.name[len(out_names[i]) + 1:]
                        if len(out_names) > 1 and m.name.startswith(out_names[i] + "_")
                        else m.name for i, m in getattr(self.compiled_loss, "_metrics", [])]
        else:
            compiled = [m.name for m in self._metric_objects or []]
        names = [self._loss_tracker.name] + compiled + [t.name for t in trackers]
        values = [logs[n] for n in names if n in logs]
        values += [logs[k] for k in sorted(logs) if k not in names]
        return values[0] if len(values) == 1 else values

    def train_step(self, data):
        """One optimisation step on a batch; returns the metrics' values."""
        x, y, sample_weight = _data.unpack(data)
        loss, y_pred = self._step("train", self._train_core)(x, y, sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(y_pred))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def _train_core(self, x, y, sample_weight):
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
            # Keras 3 differentiates the scaled loss (the optimizer unscales the gradients)
            # and logs the loss itself
            scaled = self.optimizer.scale_loss(loss) \
                if hasattr(self.optimizer, "scale_loss") else loss
        variables = self.trainable_variables
        grads = tape.gradient(scaled, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        return loss, y_pred

    def _test_core(self, x, y, sample_weight):
        y_pred = self(x, training=False)
        return self.compute_loss(x, y, y_pred, sample_weight), y_pred

    def _step(self, kind, core):
        """``core`` as an fe.function (metrics stay eager: they compute in NumPy), or
        ``core`` itself with ``compile(run_eagerly=True)``."""
        if getattr(self, "run_eagerly", True) or get_tracer() is not None:
            return core
        steps = self.__dict__.setdefault("_traced_steps", {})
        fn = steps.get(kind)
        if fn is None:
            # a step that cannot be traced runs eagerly, and fe.function warns once: the
            # user learns the graph speed-up is lost (compile(run_eagerly=True) says so)
            fn = steps[kind] = function(core, name="%s.%s_step" % (self.name, kind))
        return fn

    def test_step(self, data):
        x, y, sample_weight = _data.unpack(data)
        loss, y_pred = self._step("test", self._test_core)(x, y, sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(y_pred))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def _predict_core(self, x):
        return self(x, training=False)

    def predict_step(self, data):
        x, _, _ = _data.unpack(data)
        return self._step("predict", self._predict_core)(x)

    # ---- loops ----------------------------------------------------------------------------
    @_distribute.distributed
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1, **kwargs):
        """Train for ``epochs`` epochs; returns a ``History`` (``history.history['loss']``)."""
        self._check_compiled("fit")
        batch_size = _check_count("fit", "batch_size", batch_size)
        validation_batch_size = _check_count("fit", "validation_batch_size",
                                             validation_batch_size)
        epochs = _check_count("fit", "epochs", epochs, minimum=0)
        initial_epoch = _check_count("fit", "initial_epoch", initial_epoch, minimum=0)
        steps_per_epoch = _check_count("fit", "steps_per_epoch", steps_per_epoch)
        validation_steps = _check_count("fit", "validation_steps", validation_steps)
        validation_freq = _check_count("fit", "validation_freq", validation_freq)
        # keras.config's caps on every fit (Keras 3 warns and lowers them)
        if config.max_epochs() and config.max_epochs() < epochs:
            warnings.warn("Limiting epochs to %d" % config.max_epochs())
            epochs = config.max_epochs()
        steps_per_epoch = _capped_steps(steps_per_epoch)
        if class_weight is not None:
            _check_class_weight(class_weight, y, sample_weight)
        verbose = 1 if verbose == "auto" else int(verbose)
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = _data.split_validation(
                x, y, sample_weight, validation_split)
        strategy = _distribute._active_strategy()   # None outside a multi-worker scope
        if strategy is not None:
            x, y, sample_weight, batch_size = strategy._local_data(
                x, y, sample_weight, batch_size, _data)
        handler = _data.DataHandler(x, y, sample_weight, batch_size, steps_per_epoch, shuffle)
        if handler.steps == 0:
            raise _no_data("fit")
        history = callbacks_module.History()
        cbs = _with_progbar(callbacks, verbose)
        cbs.append(history)
        cb = callbacks_module.CallbackList(cbs, model=self, epochs=epochs, steps=handler.steps,
                                           verbose=verbose)
        self.stop_training = False
        cb.on_train_begin()
        # BackupAndRestore resumes an interrupted fit at the first epoch it did not finish
        initial_epoch = self.__dict__.pop("_initial_epoch", None) or initial_epoch
        logs = {}
        training_logs = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cb.on_epoch_begin(epoch)
            step = -1
            batches = handler.epoch()
            if class_weight is not None:
                batches = _class_weighted(batches, class_weight)
            for step, data in enumerate(batches):
                cb.on_train_batch_begin(step)
                logs = _sorted_logs(self.train_step(data))
                if strategy is not None:
                    logs = strategy._reduce_logs(self, logs)
                cb.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            if step < 0 and not self.stop_training:
                raise _no_data("fit")
            if handler.steps is None:
                handler.steps = step + 1
            epoch_logs = dict(logs)
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                vx, vy, vsw = _data.unpack(tuple(validation_data)
                                           if isinstance(validation_data, list)
                                           else validation_data)
                # fit's callbacks see the validation run's on_test_* hooks, as in Keras 3
                val = self.evaluate(vx, vy, sample_weight=vsw,
                                    batch_size=validation_batch_size or batch_size,
                                    steps=validation_steps, verbose=0, return_dict=True,
                                    callbacks=cb)
                epoch_logs.update({"val_" + k: v for k, v in _sorted_logs(val).items()})
            cb.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
            if self.stop_training:
                break
        # with use_ema the weights take their moving averages when training ends (Keras 3)
        if epochs > 0 and hasattr(self.optimizer, "finalize_variable_values"):
            self.optimizer.finalize_variable_values(self.trainable_weights)
        cb.on_train_end(training_logs)
        return history

    @_distribute.distributed
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False, **kwargs):
        """The loss and metrics over ``x``/``y`` (a list, or a dict with ``return_dict``)."""
        self._check_compiled("evaluate")
        batch_size = _check_count("evaluate", "batch_size", batch_size)
        steps = _capped_steps(_check_count("evaluate", "steps", steps))
        verbose = 1 if verbose == "auto" else int(verbose)
        strategy = _distribute._active_strategy()   # None outside a multi-worker scope
        if strategy is not None:
            x, y, sample_weight, batch_size = strategy._local_data(
                x, y, sample_weight, batch_size, _data)
        handler = _data.DataHandler(x, y, sample_weight, batch_size, steps, False, "evaluate")
        if handler.steps == 0:
            raise _no_data("evaluate")
        if isinstance(callbacks, callbacks_module.CallbackList):
            cb = callbacks          # fit's own, for its validation run
        else:
            cb = callbacks_module.CallbackList(_with_progbar(callbacks, verbose), model=self,
                                               steps=handler.steps, verbose=verbose)
        self.reset_metrics()
        cb.on_test_begin()
        logs = {}
        step = -1
        for step, data in enumerate(handler.epoch()):
            cb.on_test_batch_begin(step)
            logs = _sorted_logs(self.test_step(data))
            if strategy is not None:
                logs = strategy._reduce_logs(self, logs)
            cb.on_test_batch_end(step, logs)
        if step < 0:
            raise _no_data("evaluate")
        cb.on_test_end(logs)
        if return_dict:
            return logs
        return self._flatten_logs(logs)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None, **kwargs):
        """The model's outputs over ``x`` in batches, as a NumPy array."""
        batch_size = _check_count("predict", "batch_size", batch_size)
        steps = _capped_steps(_check_count("predict", "steps", steps))
        verbose = 1 if verbose == "auto" else int(verbose)
        handler = _data.DataHandler(x, None, None, batch_size, steps, False, "predict")
        if handler.steps == 0:
            raise _no_data("predict")
        cb = callbacks_module.CallbackList(_with_progbar(callbacks, verbose), model=self,
                                           steps=handler.steps, verbose=verbose)
        outs = []
        cb.on_predict_begin()
        for step, data in enumerate(handler.epoch()):
            cb.on_predict_batch_begin(step)
            out = self.predict_step(data)
            outs.append(out)
            cb.on_predict_batch_end(step, {"outputs": out})
        if not outs:
            raise _no_data("predict")
        cb.on_predict_end()
        if isinstance(outs[0], dict):
            return {k: np.concatenate([np.asarray(o[k].numpy()) for o in outs])
                    for k in outs[0]}
        if isinstance(outs[0], (list, tuple)):
            return [np.concatenate([np.asarray(o[i].numpy()) for o in outs])
                    for i in range(len(outs[0]))]
        return np.concatenate([np.asarray(o.numpy()) for o in outs])

    def predict_on_batch(self, x):
        """The model's outputs on one batch, as NumPy arrays (Keras 3's predict_step)."""
        out = self.predict_step((x,))
        return nest.map_structure(lambda t: np.asarray(t.numpy()), out)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        """One optimisation step on one batch; the loss (a float) alone, or the loss and
        metrics as a list in Keras 3's order (or a dict with ``return_dict``)."""
        self._check_compiled("train_on_batch")
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError("Arguments `sample_weight` and `class_weight` cannot be "
                                 "specified at the same time. Received: sample_weight=%s, "
                                 "class_weight=%s" % (sample_weight, class_weight))
            _check_class_weight(class_weight, y, None)
            sample_weight = _class_weight_to_sample_weight(y, class_weight)
        self.reset_metrics()
        logs = _sorted_logs(self.train_step(
            (convert_to_tensor(x), None if y is None else convert_to_tensor(y),
             sample_weight)))
        return logs if return_dict else self._flatten_logs(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss (and metrics) on one batch, as ``train_on_batch`` returns them."""
        self._check_compiled("test_on_batch")
        self.reset_metrics()
        logs = _sorted_logs(self.test_step((x, y, sample_weight)))
        return logs if return_dict else self._flatten_logs(logs)

    # ---- weights files (the formats live in fe.train.weights) ---------------------------
    def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
        """Save every weight to ``filepath``: ``.safetensors``, ``.npz`` or ``.h5``."""
        if not self.built:
            # Keras 3's error (a file of an unbuilt model would hold no weights)
            raise ValueError("You are saving a model that has not yet been built. Try "
                             "building the model first by calling it on some data or by "
                             "using `build()`.")
        return weights.save_weights(self, filepath, overwrite=overwrite)

    def save(self, filepath, overwrite=True, save_format=None, **kwargs):
        """Save architecture (``get_config``) and weights: a ``.keras`` zip or a directory."""
        return saving.save_model(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False, by_name=False, options=None):
        """Load weights saved by ``save_weights``. Returns None for Keras 3's HDF5 files
        (``.weights.h5``), as Keras 3 does; a load status for fasteager's own formats
        (``.safetensors``, ``.npz``), whose ``assert_consumed()`` checks the match."""
        status = weights.load_weights(self, filepath, skip_mismatch=skip_mismatch,
                                      by_name=by_name)
        keras_h5 = os.fspath(filepath).endswith((".h5", ".hdf5"))
        return None if keras_h5 else status


def _capped_steps(steps):
    """``steps`` lowered to ``keras.config.max_steps_per_epoch()`` when that is set and
    smaller (or ``steps`` is None), with Keras 3's warning: fit, evaluate and predict."""
    cap = config.max_steps_per_epoch()
    if cap and (steps is None or cap < steps):
        warnings.warn("Limiting steps_per_epoch to %d" % cap)
        return cap
    return steps


def _with_progbar(callbacks, verbose):
    """The callbacks with Keras's ProgbarLogger first when ``verbose`` asks for a bar and
    the user passed none of their own."""
    cbs = list(callbacks or [])
    if verbose and not any(isinstance(c, callbacks_module.ProgbarLogger) for c in cbs):
        cbs.insert(0, callbacks_module.ProgbarLogger())
    return cbs


def _metric_log_names(plain, weighted):
    """The log keys of the compiled metrics, as Keras 3's CompileMetrics names them: a
    repeated name takes ``_1``, ``_2``, ..., and a weighted metric whose name is taken
    becomes ``weighted_<name>``."""
    seen, names = {}, []

    def numbered(name):         # the first use keeps the name, later ones count up
        seen[name] = seen.get(name, 0) + 1
        return name if seen[name] == 1 else "%s_%d" % (name, seen[name] - 1)

    for m in plain:
        names.append(numbered(m.name))
    for m in weighted:
        names.append(numbered("weighted_" + m.name if m.name in seen else m.name))
    return names


def _check_class_weight(class_weight, y, sample_weight):
    """Keras 3's refusals of ``class_weight``: with sample weights, or several outputs."""
    if not isinstance(class_weight, dict):
        raise TypeError("fit: class_weight must be a dict of class index to weight "
                        "(expected a dict, got %s)" % type(class_weight).__name__)
    if sample_weight is not None:
        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
    if isinstance(y, (list, tuple, dict)):
        raise ValueError("`class_weight` is only supported for Models with a single output.")


def _class_weight_to_sample_weight(y, class_weight):
    """Each example's weight, ``class_weight[its class]`` (1 for a class not listed): the
    class is the argmax of a one-hot row, else the rounded label, as in Keras 3."""
    y = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, axis=-1)
    classes = np.round(y).astype(np.int32)
    return np.array([class_weight.get(int(c), 1.0) for c in classes.reshape(-1)],
                    dtype=backend.floatx()).reshape(classes.shape)


def _class_weighted(batches, class_weight):
    """fit's batches with the class weights as their sample weights (a dataset's batches
    are checked as they come, as Keras 3 maps its dataset)."""
    for x, y, sample_weight in batches:
        _check_class_weight(class_weight, y, sample_weight)
        yield x, y, _class_weight_to_sample_weight(y, class_weight)


def _sorted_logs(logs):
    """A step's logs as floats, by name: Keras 3's step function hands them out of a traced
    function, which orders a dict's keys, so its bar and History list them sorted."""
    return {k: _float(logs[k]) for k in sorted(logs)}


def _batch_size(y_pred):
    y_pred = nest.flatten(y_pred)[0] if isinstance(y_pred, (list, tuple, dict)) else y_pred
    shape = y_pred.shape.as_list() if hasattr(y_pred, "shape") else []
    return shape[0] if shape else 1


def _takes_mask(layer):
    import inspect
    return "mask" in inspect.signature(layer.call).parameters


def _next_mask(layer, inputs, mask):
    """The mask a layer hands on, as Keras: its compute_mask, else the incoming mask
    through a layer that supports masking (None through any other)."""
    compute = getattr(layer, "compute_mask", None)
    if compute is not None:
        return compute(inputs, mask)
    return mask if layer.supports_masking else None


class Sequential(Model):
    """A linear stack of layers: ``Sequential([Conv2D(16, 3), Flatten(), Dense(10)])``."""

    _layer_stack = True     # _summary prints it as a stack

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._layers = []
        self._input_spec = None
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return [lay for lay in self._layers if type(lay).__name__ != "InputLayer"]

    def add(self, layer):
        """Append a layer (or an ``Input``, which sets the input shape and builds)."""
        if isinstance(layer, KerasTensor):
            if self._layers or self._input_spec is not None:
                raise ValueError("Sequential.add: an Input must come first")
            self._input_spec = layer
            return
        if not isinstance(layer, Layer):
            raise TypeError("Sequential.add: expected a Layer (got %r)" % (layer,))
        if isinstance(layer, InputLayer):
            if self._layers or self._input_spec is not None:
                raise ValueError("Sequential.add: an InputLayer must come first")
            self._input_spec = KerasTensor(layer._batch_input_shape, layer.dtype)
            self._layers.append(layer)
            return
        # (a layer may come twice: Keras 3 shares its weights between the two places)
        if not self.layers and self._input_spec is None and layer._batch_input_shape:
            self._input_spec = KerasTensor(layer._batch_input_shape)
        self._layers.append(layer)
        if self._input_spec is not None:
            spec = self._input_spec
            scoped = _naming.enter(self, self.name)   # Keras 3: 'sequential/dense/kernel'
            try:
                for lay in self.layers:
                    spec = lay(spec) if not lay.built or lay is layer else \
                        KerasTensor([spec.shape[0]] + list(lay.output_shape[1:]))
            finally:
                if scoped:
                    _naming.leave()
            self.built = True

    def pop(self):
        if not self.layers:
            raise TypeError("Sequential.pop: there are no layers to remove")
        self._layers.pop()

    def call(self, inputs, training=None, mask=None):
        x = inputs
        for layer in self.layers:
            if mask is not None and _takes_mask(layer):
                y = layer(x, training=training, mask=mask)
            else:
                y = layer(x, training=training)
            mask = _next_mask(layer, x, mask)
            x = y
        return x

    def build(self, input_shape=None):
        if input_shape is None:
            if self._input_spec is None:
                raise ValueError("Sequential.build: give input_shape (the model has no Input)")
            input_shape = self._input_spec.shape
        self._build_by_call(input_shape)

    def get_config(self):
        return {"name": self.name,
                "layers": [serialize_keras_object(lay) for lay in self._layers]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        # a layer that comes twice is saved twice under one name: rebuild it once, shared
        # (two copies would each take half of the weights: Keras 3 refuses to load such
        # a file, fasteager loads it as it was saved)
        config = dict(config)
        seen = {}
        layers = []
        for lay in config.get("layers") or []:
            if isinstance(lay, dict):      # Sequential.from_config(model.get_config())
                lay = deserialize_keras_object(lay, custom_objects, where="from_config")
            layers.append(seen.setdefault(lay.name, lay) if isinstance(lay, Layer) else lay)
        config["layers"] = layers
        # Keras 3's Sequential configs also carry trainable, dtype and build_input_shape,
        # which its from_config does not pass to the constructor; trainable=False is kept
        trainable = config.pop("trainable", True)
        config.pop("dtype", None)
        config.pop("build_input_shape", None)
        model = cls(**config)
        if trainable is False:
            model.trainable = False
        return model

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("training", globals(), Layer)
