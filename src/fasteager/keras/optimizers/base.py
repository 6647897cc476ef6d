"""The Keras optimizer base class: gradient filtering and clipping, learning rate and
schedules, ``iterations``, slot variables; subclasses supply one fused update per
variable.

Updates write in place into ``var._mutable_array()``, the variable's copy-on-write
buffer: a value an earlier tape recorded keeps its old contents, so gradients computed
before an update never change after it. Each variable's step is one call of a fused
kernel from ``fasteager._kernels`` (one pass over the elements).

Checkpointing: ``optimizer.variables`` (also callable, as TF2's ``variables()``) lists
``iterations``, the learning-rate variable and every slot variable in creation order.
Slots belong to the variables in :attr:`Optimizer._tracked_variables` (the order the
optimizer first saw them); ``get_slot(var, name)`` finds one, ``_slots`` maps
``_var_key(var)`` to ``{slot name: slot variable}``, and ``_restore_slot(var, name,
value)`` sets a slot now or, when it does not exist yet, as soon as it is created.

Keras 3's options of the base class: ``use_ema`` keeps an ``average`` slot per variable,
``gradient_accumulation_steps`` a ``gradient_accumulator`` slot; both are created ahead of
the update's slots, as Keras 3 orders ``optimizer.variables``.
"""
import warnings

import numpy as np

from ... import _core
from ..._src.autodiff.tape import GradientTape
from ..._src.state import replicas
from ..._src.state.variables import Variable
from ...distribute import strategy as _distribute
from ...dtypes import int64
from .._naming import KerasVariable
from . import schedules as _schedules


class _CallableList(list):
    """A list that also answers ``obj()``: ``optimizer.variables`` (Keras 3) and
    ``optimizer.variables()`` (TF2's OptimizerV2) both work."""

    def __call__(self):
        return self


def _var_key(variable):
    return variable._var_id


def _array_of(value):
    if isinstance(value, _core.VariableBase):
        return value._tensor._value
    if isinstance(value, _core.Tensor):
        return value._value
    return np.asarray(value)


# Keras 3's words for the slots ('m' is Adam's "momentum", RMSprop's 'rms' its "velocity")
_KERAS_SLOT_WORDS = {"m": "momentum", "v": "velocity", "vhat": "velocity_hat",
                     "rms": "velocity", "mg": "average_gradient"}


def _slot_variable_name(variable, slot):
    """Keras 3's name of a slot: the variable's path with '_' for '/', then the slot's word
    ('sequential_dense_kernel_momentum')."""
    base = getattr(variable, "path", None) or getattr(variable, "name", "Variable:0")
    return "%s_%s" % (base.removesuffix(":0").replace("/", "_"),
                      _KERAS_SLOT_WORDS.get(slot, slot))


class Optimizer:
    """Base class of the Keras optimizers.

    >>> opt = fe.keras.optimizers.SGD(learning_rate=0.1)
    >>> w = fe.Variable(1.0)
    >>> opt.apply_gradients([(fe.constant(2.0), w)])
    <Variable path=sgd/iteration, shape=(), dtype=int64, value=1>
    >>> float(w.numpy())
    0.800000011920929

    Subclasses list their slot names in ``_slot_names``, may override
    ``_slot_initial_value`` and implement ``_update(var_array, grad, lr, slots, wd)``,
    where ``slots`` are the slot variables' writable arrays in ``_slot_names`` order
    (``None`` for slots the configuration does not use) and ``wd`` the weight-decay
    coefficient to apply (0.0 for none).
    """

    _slot_names = ()

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        cls = type(self).__name__
        if "lr" in kwargs:
            warnings.warn("%s: `lr` is deprecated, use `learning_rate`" % cls, stacklevel=3)
            learning_rate = kwargs.pop("lr")
        if kwargs.pop("decay", None) is not None:
            # Keras 3 (so TF 2.21's tf.keras) ignores TF 2.x's decay, with this warning
            warnings.warn("Argument `decay` is no longer supported and will be ignored.",
                          stacklevel=3)
        for legacy in ("jit_compile", "is_legacy_optimizer"):
            kwargs.pop(legacy, None)
        if kwargs:
            # (ValueError, as Keras 3)
            raise ValueError("%s: Argument(s) not recognized: %r (expected none more)"
                             % (cls, kwargs))
        if gradient_accumulation_steps and not (
                isinstance(gradient_accumulation_steps, int) and gradient_accumulation_steps >= 2):
            raise ValueError("%s: gradient_accumulation_steps must be an integer >= 2 (expected "
                             "an int >= 2 or None, got %r)" % (cls, gradient_accumulation_steps))
        if use_ema:
            if not 0 <= ema_momentum <= 1:
                raise ValueError("%s: ema_momentum must be in the range [0, 1] (got %r)"
                                 % (cls, ema_momentum))
            if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int)
                                            or ema_overwrite_frequency < 1):
                raise ValueError("%s: ema_overwrite_frequency must be an integer >= 1 or None "
                                 "(got %r)" % (cls, ema_overwrite_frequency))
        if loss_scale_factor is not None and not loss_scale_factor:
            raise ValueError("%s: loss_scale_factor must be a non-zero number or None (got %r)"
                             % (cls, loss_scale_factor))
        set_clips = [k for k, v in (("clipnorm", clipnorm), ("clipvalue", clipvalue),
                                    ("global_clipnorm", global_clipnorm)) if v is not None]
        if len(set_clips) > 1:
            raise ValueError("%s: only one of clipnorm, clipvalue and global_clipnorm can be "
                             "set (expected at most one, got %s)" % (cls, set_clips))
        for k, v in (("clipnorm", clipnorm), ("clipvalue", clipvalue),
                     ("global_clipnorm", global_clipnorm)):
            if v is not None and not v > 0:
                raise ValueError("%s: %s must be positive (expected > 0, got %r)" % (cls, k, v))
        if weight_decay is not None and weight_decay < 0:
            raise ValueError("%s: weight_decay must be non-negative (expected >= 0, got %r)"
                             % (cls, weight_decay))
        self.name = name or cls.lower()
        # made in strategy.scope(): gradients are all-reduced over its workers even when
        # apply_gradients runs outside the scope (a custom loop)
        self._distribute_strategy = _distribute.current_strategy()
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = bool(use_ema)
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.built = False
        self._iterations = KerasVariable(np.int64(0), trainable=False, name="iteration",
                                         dtype=int64, path=self.name + "/iteration")
        self._learning_rate = None
        self._variables = _CallableList([self._iterations])
        self._set_learning_rate(learning_rate)
        self._tracked_variables = []      # variables with slots, in the order first seen
        self._tracked_index = {}          # _var_key -> position in _tracked_variables
        self._slots = {}                  # _var_key -> {slot name: slot Variable}
        self._deferred_slot_values = {}   # (_var_key, slot name) -> value to restore
        self._excluded_names = ()
        self._excluded_ids = set()

    # -- learning rate --------------------------------------------------------------------
    def _set_learning_rate(self, value):
        if isinstance(value, _schedules.LearningRateSchedule) or (
                callable(value) and not isinstance(value, (_core.Tensor, _core.VariableBase))):
            self._learning_rate = value
            return
        v = float(_array_of(value))
        if isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(v)
        else:
            self._learning_rate = KerasVariable(np.float32(v), trainable=False,
                                                name="learning_rate",
                                                path=self.name + "/learning_rate")
            self._variables.insert(1, self._learning_rate)

    def _current_learning_rate(self):
        lr = self._learning_rate
        if isinstance(lr, Variable):
            return float(lr._tensor._value)
        if isinstance(lr, _schedules.LearningRateSchedule):
            return float(_array_of(lr(self._iterations._tensor._value[()])))
        return float(_array_of(lr()))

    @property
    def learning_rate(self):
        """The learning-rate variable, or a schedule's current value."""
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        return _core.wrap(np.asarray(self._current_learning_rate(), np.float32))

    @learning_rate.setter
    def learning_rate(self, value):
        # a float over a schedule would end the schedule silently: Keras 3 refuses it
        if isinstance(getattr(self, "_learning_rate", None), _schedules.LearningRateSchedule) \
                and not isinstance(value, _schedules.LearningRateSchedule):
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as its "
                "`learning_rate` constructor argument, hence its learning rate is not "
                "settable. If you need the learning rate to be settable, you should "
                "instantiate the optimizer with a float `learning_rate` argument.")
        self._set_learning_rate(value)

    lr = learning_rate

    @property
    def iterations(self):
        """Number of ``apply_gradients`` calls so far (an int64 non-trainable variable);
        with ``gradient_accumulation_steps``, the number of updates made (Keras 3: the calls
        divided by the steps, a tensor)."""
        if self.gradient_accumulation_steps:
            return _core.wrap(np.asarray(int(self._iterations._tensor._value)
                                         // self.gradient_accumulation_steps, np.int64))
        return self._iterations

    @iterations.setter
    def iterations(self, value):
        self._iterations.assign(np.int64(_array_of(value)))

    @property
    def variables(self):
        """``iterations``, the learning-rate variable and the slots (also callable)."""
        return self._variables

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Keras: skip weight decay for these variables, or names containing any of
        ``var_names``."""
        self._excluded_ids.update(_var_key(v) for v in (var_list or ()))
        self._excluded_names = tuple(self._excluded_names) + tuple(var_names or ())

    # -- slots ----------------------------------------------------------------------------
    def _slot_initial_value(self, slot_name, var_array):
        return np.zeros_like(var_array)

    def _slots_used(self):
        """The slot names this configuration needs (default: all of ``_slot_names``)."""
        return self._slot_names

    def _state_slot_names(self):
        """Keras 3's per-variable state of the base optimizer, ahead of the update's slots:
        the EMA of the weights and the gradient accumulator."""
        return (("average",) if self.use_ema else ()) + (
            ("gradient_accumulator",) if self.gradient_accumulation_steps else ())

    @staticmethod
    def _slot_variable_name(variable, slot):
        return _slot_variable_name(variable, slot)

    def _step_state(self):
        """Variables of the optimizer, besides ``iterations`` and the slots, that an update
        step writes (Nadam's momentum product); none by default."""
        return ()

    def _make_slot(self, variable, key, name, init):
        with _distribute.owner_scope(self):
            slot_name = self._slot_variable_name(variable, name)
            slot = KerasVariable(init, trainable=False, name=slot_name,
                                 path="%s/%s" % (self.name, slot_name))
        pending = self._deferred_slot_values.pop((key, name), None)
        if pending is not None:
            slot.assign(pending)
        self._variables.append(slot)
        return slot

    def _track_many(self, variables):
        """Create the slots of the variables not seen before, in Keras 3's order: every
        new variable's average, then every gradient accumulator, then each variable's
        update slots together."""
        new = []
        for variable in variables:
            key = _var_key(variable)
            if key not in self._slots:
                self._tracked_index[key] = len(self._tracked_variables)
                self._tracked_variables.append(variable)
                self._slots[key] = {}
                new.append((variable, key))
        if not new:
            return
        self.built = True
        for name in self._state_slot_names():
            for variable, key in new:
                arr = variable._tensor._value
                self._slots[key][name] = self._make_slot(
                    variable, key, name, np.zeros(arr.shape, arr.dtype))
        for variable, key in new:
            arr = variable._tensor._value
            for name in self._slots_used():
                # (a copy, in the dtype and shape the subclass gives: Adafactor's factored
                # slots differ from the variable's)
                init = np.array(self._slot_initial_value(name, arr), order="C")
                self._slots[key][name] = self._make_slot(variable, key, name, init)

    def _track(self, variable):
        slots = self._slots.get(_var_key(variable))
        if slots is None:
            self._track_many([variable])
            slots = self._slots[_var_key(variable)]
        return slots

    def build(self, var_list):
        """Create the slots of every variable now (normally done on first update)."""
        self._track_many(list(var_list))
        self.built = True

    def get_slot_names(self):
        return list(self._state_slot_names()) + list(self._slots_used())

    def get_slot(self, var, slot_name):
        """The slot variable ``slot_name`` of ``var``."""
        slots = self._slots.get(_var_key(var))
        if slots is None or slot_name not in slots:
            raise KeyError("%s.get_slot: no slot %r for variable %r (expected one of %s)"
                           % (type(self).__name__, slot_name, getattr(var, "name", var),
                              sorted(slots or ())))
        return slots[slot_name]

    def _restore_slot(self, var, slot_name, value):
        """Set a slot's value now, or when it is created (deferred restore)."""
        slots = self._slots.get(_var_key(var))
        if slots is not None and slot_name in slots:
            slots[slot_name].assign(value)
        else:
            self._deferred_slot_values[(_var_key(var), slot_name)] = np.asarray(value)

    # -- gradients ------------------------------------------------------------------------
    def _clip(self, grads):
        if self.clipvalue is not None:
            c = self.clipvalue
            return [np.clip(g, -c, c).astype(g.dtype, copy=False) for g in grads]
        if self.clipnorm is not None:
            c = self.clipnorm
            out = []
            for g in grads:
                norm = float(np.sqrt(np.sum(np.square(g, dtype=np.float64))))
                if norm > c or norm != norm:
                    # tf.clip_by_norm's g * c / max(norm, c): a NaN norm makes the whole
                    # gradient NaN, an infinite one its infinities NaN and the rest 0
                    with np.errstate(invalid="ignore", over="ignore"):
                        g = (g * g.dtype.type(c)) / g.dtype.type(norm)
                out.append(g)
            return out
        if self.global_clipnorm is not None:
            c = self.global_clipnorm
            norm = float(np.sqrt(sum(np.sum(np.square(g, dtype=np.float64)) for g in grads)))
            if norm > c or not np.isfinite(norm):
                # Keras 3: a non-finite global norm makes every gradient NaN
                scale = c / norm if np.isfinite(norm) else np.nan
                with np.errstate(invalid="ignore"):
                    return [g * g.dtype.type(scale) for g in grads]
        return grads

    def _grad_array(self, grad, var):
        arr = _array_of(grad)
        want = var._tensor._value
        if arr.shape != want.shape:
            raise ValueError("%s.apply_gradients: gradient shape does not match variable %r "
                             "(expected %s, got %s)" % (type(self).__name__, var.name,
                                                        list(want.shape), list(arr.shape)))
        if arr.dtype != want.dtype or not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr, dtype=want.dtype)
        return arr

    def _weight_decay_for(self, var):
        wd = self.weight_decay
        if not wd:
            return 0.0
        if _var_key(var) in self._excluded_ids:
            return 0.0
        if self._excluded_names and any(n in var.name for n in self._excluded_names):
            return 0.0
        return float(wd)

    def scale_loss(self, loss):
        """Keras 3: ``loss * loss_scale_factor`` (the loss as it is to be differentiated;
        the optimizer divides the gradients by the factor again), or ``loss`` without one.
        """
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    def apply(self, grads, trainable_variables=None):
        """Keras 3's form of :meth:`apply_gradients`: ``grads`` a list of gradients, one
        per variable of ``trainable_variables``, or, once the optimizer is built, one per
        variable it was built with (in that order). An empty ``grads`` does nothing.

        >>> opt = fe.keras.optimizers.SGD(0.1)
        >>> opt.apply([fe.constant(2.0)], [w])   # builds the optimizer on [w]
        >>> opt.apply([fe.constant(2.0)])        # the same variable
        """
        grads = list(grads)
        if not grads:
            return
        cls = type(self).__name__
        if trainable_variables is None:
            if not self.built:
                raise ValueError("%s.apply: gradients without variables need an optimizer "
                                 "built on a list of variables; call "
                                 "`optimizer.build(trainable_variables)` first (expected "
                                 "trainable_variables or a built optimizer, got neither)"
                                 % cls)
            if len(grads) != len(self._tracked_variables):
                raise ValueError("%s.apply: the gradients must match the optimizer's "
                                 "variables one to one (expected %d gradients, got %d)"
                                 % (cls, len(self._tracked_variables), len(grads)))
            trainable_variables = self._tracked_variables
        else:
            trainable_variables = list(trainable_variables)
            if len(grads) != len(trainable_variables):
                raise ValueError("%s.apply: one gradient per variable (expected %d "
                                 "gradients, got %d)" % (cls, len(trainable_variables),
                                                         len(grads)))
            if not self.built:
                self.build(trainable_variables)
        self.apply_gradients(zip(grads, list(trainable_variables)))

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False,
                        **kwargs):
        """Apply one update step; ``grads_and_vars`` is any iterable of
        ``(gradient, variable)`` pairs. None gradients are skipped with a warning.
        Returns ``iterations``."""
        cls = type(self).__name__
        grads, variables, missing = [], [], []
        for pair in grads_and_vars:
            try:
                g, v = pair
            except (TypeError, ValueError):
                raise TypeError("%s.apply_gradients: expected (gradient, variable) pairs "
                                "(got %r)" % (cls, type(pair).__name__)) from None
            if not isinstance(v, _core.VariableBase):
                raise TypeError("%s.apply_gradients: can only update fe.Variable objects "
                                "(expected Variable, got %s)" % (cls, type(v).__name__))
            if g is None:
                missing.append(v.name)
                continue
            grads.append(g)
            variables.append(v)
        if missing:
            warnings.warn("Gradients do not exist for variables %s when minimizing the loss. "
                          "If you're using `model.compile()`, did you forget to provide a "
                          "`loss` argument?" % missing, stacklevel=2)
        if not variables:
            raise ValueError("%s.apply_gradients: no gradients provided for any variable "
                             "(expected at least one non-None gradient, got %d None)"
                             % (cls, len(missing)))
        tracer = _core.get_tracer()
        if tracer is not None:   # inside fe.function: the update is a step of the graph
            tensors = [_core.convert_to_tensor(g) for g in grads]
            self._track_many(variables)
            # EMA and accumulation touch every variable the optimizer has seen
            touched = self._tracked_variables if self._state_slot_names() else variables
            mutated = [self._iterations] + list(touched)
            for v in touched:
                mutated.extend(self._slots[_var_key(v)].values())
            mutated.extend(self._step_state())
            # (a multi-worker step also averages the ON_READ variables: BatchNormalization's
            # moving statistics)
            mutated.extend(replicas.written_by_update(self))
            tracer.effect(lambda *arrays: self._apply_arrays(
                list(arrays), variables, skip_gradients_aggregation),
                tensors, mutated, "%s.apply_gradients" % cls)
            grads = [t._value for t in tensors]
            # this call's update, now: the effect step does it on later calls, so nothing it
            # writes (the ON_READ averages' assignments) may be recorded as well, or the
            # replay would write this call's values again
            with _core.no_tracer():
                return self._apply_arrays(grads, variables, skip_gradients_aggregation)
        return self._apply_arrays(grads, variables, skip_gradients_aggregation)

    def _apply_arrays(self, grads, variables, skip_gradients_aggregation=False):
        arrays = [self._grad_array(g, v) for g, v in zip(grads, variables)]
        # inside a strategy the replicas' gradients are combined first (summed over a
        # MirroredStrategy's replicas for one update, averaged over workers): the
        # distribution layer decides, through the one entry point it installs
        return replicas.aggregate_gradients(
            self, arrays, variables, lambda combined: self._apply_combined(combined, variables),
            skip_gradients_aggregation)

    def _apply_combined(self, arrays, variables):
        if self.loss_scale_factor is not None:   # Keras 3: gradients of a scaled loss
            arrays = [g / g.dtype.type(self.loss_scale_factor) for g in arrays]
        self._track_many(variables)
        calls = int(self._iterations._tensor._value)
        accumulate = self.gradient_accumulation_steps
        if not accumulate:
            self._update_variables(arrays, variables, calls + 1)
        else:
            # Keras 3: gradients add up over `accumulate` calls; the last of them updates
            # with their mean, a step counted as one (Adam's bias correction); the
            # learning-rate schedule still sees every call
            accs = [self._slots[_var_key(v)]["gradient_accumulator"]._mutable_array()
                    for v in variables]
            if (calls + 1) % accumulate == 0:
                n = accumulate
                self._update_variables([(g + a) / g.dtype.type(n) for g, a in zip(arrays, accs)],
                                       variables, calls // n + 1)
                for v in self._tracked_variables:
                    self._slots[_var_key(v)]["gradient_accumulator"]._mutable_array().fill(0)
            else:
                for g, a in zip(arrays, accs):
                    np.add(a, g, out=a)
        if self.use_ema:
            self._update_moving_averages(calls // accumulate if accumulate else calls)
        for v in variables:
            constraint = getattr(v, "constraint", None)
            if constraint is not None:
                # Keras 3: a constrained weight is projected after each of its updates
                target = v._mutable_array()
                target[...] = np.asarray(_array_of(constraint(v)),
                                         dtype=target.dtype).reshape(target.shape)
        it = self._iterations._mutable_array()
        it += 1   # in place on the 0-d buffer (copy-on-write like any assignment)
        return self._iterations

    def _update_variables(self, arrays, variables, step):
        """Clip, decay and one update step of each variable (``step`` counts from 1)."""
        arrays = self._clip(arrays)
        lr = self._current_learning_rate()
        names = self._slots_used()
        update, slots_of = self._update, self._slots
        decays = self.weight_decay and lr
        for g, v in zip(arrays, variables):
            slots = slots_of[_var_key(v)]
            slot_arrays = [slots[n]._mutable_array() for n in names] if names else []
            var = v._mutable_array()
            if var.ndim == 0:   # the kernels work on flat buffers
                var, g = var.reshape(1), g.reshape(1)
                slot_arrays = [a.reshape(1) for a in slot_arrays]
            update(var, g, lr, slot_arrays, step,
                   self._weight_decay_for(v) * lr if decays else 0.0)

    def _update_moving_averages(self, iterations):
        """Keras 3's EMA of every weight the optimizer updates: ``average = m * average +
        (1 - m) * weight``, with ``m = 0`` at the first step (the average starts as the
        weight); every ``ema_overwrite_frequency`` steps the weights take their averages."""
        averages = [self._slots[_var_key(v)]["average"]._mutable_array()
                    for v in self._tracked_variables]
        for v, avg in zip(self._tracked_variables, averages):
            dtype = avg.dtype.type
            m = dtype(self.ema_momentum) if iterations != 0 else dtype(0)
            avg[...] = m * avg + (dtype(1) - m) * v._tensor._value
        freq = self.ema_overwrite_frequency
        if freq and (iterations + 1) % freq == 0:
            self._overwrite_with_averages(self._tracked_variables)

    def _overwrite_with_averages(self, var_list, sources=None):
        for v, source in zip(var_list, sources or var_list):
            target = v._mutable_array()
            target[...] = self._slots[_var_key(source)]["average"]._tensor._value

    def finalize_variable_values(self, var_list):
        """End of training (``model.fit`` calls it): with ``use_ema`` the weights take
        their moving averages; otherwise nothing. Variables the optimizer updated take
        their own; another list, one variable per updated variable, takes them in the
        order the optimizer first saw its variables (as Keras 3)."""
        if not self.use_ema:
            return
        var_list = list(var_list)
        if all(_var_key(v) in self._slots for v in var_list):
            self._overwrite_with_averages(var_list)
        elif len(var_list) == len(self._tracked_variables):
            self._overwrite_with_averages(var_list, self._tracked_variables)
        else:
            raise ValueError("%s.finalize_variable_values: the variables do not match the "
                             "optimizer's moving averages (expected the optimizer's "
                             "variables or %d variables, got %d others); was the optimizer "
                             "called on this model?" % (type(self).__name__,
                                                        len(self._tracked_variables),
                                                        len(var_list)))

    def _update(self, var, grad, lr, slots, step, decay):
        raise NotImplementedError("%s._update: subclasses must define it"
                                  % type(self).__name__)

    @staticmethod
    def _decay_in_place(var, decay):
        """Keras's decoupled weight decay: ``var -= var * weight_decay * lr``."""
        if decay:
            np.subtract(var, var * var.dtype.type(decay), out=var)

    def minimize(self, loss, var_list=None, tape=None, grad_loss=None, name=None):
        """Compute gradients of ``loss`` and apply them.

        ``loss`` is a zero-argument callable (run under a fresh GradientTape) or, with
        ``tape``, a tensor that tape recorded. ``var_list`` (a list, or a callable giving
        one) defaults to every trainable variable the loss read.
        """
        if callable(var_list):
            var_list = var_list()
        if callable(loss):
            with GradientTape() as tape:
                if var_list is not None:
                    tape.watch(list(var_list))
                loss_value = loss()
        elif tape is None:
            raise ValueError("%s.minimize: a tensor loss needs the tape that recorded it "
                             "(expected a callable or tape=..., got %s without a tape)"
                             % (type(self).__name__, type(loss).__name__))
        else:
            loss_value = loss
        if var_list is None:
            var_list = [v for v in tape.watched_variables() if v.trainable]
        var_list = list(var_list)
        if not var_list:
            raise ValueError("%s.minimize: the loss reads no trainable variable (expected at "
                             "least one, got none)" % type(self).__name__)
        grads = tape.gradient(loss_value, var_list, output_gradients=grad_loss)
        return self.apply_gradients(zip(grads, var_list))

    # -- configuration --------------------------------------------------------------------
    def get_config(self):
        lr = self._learning_rate
        if isinstance(lr, _schedules.LearningRateSchedule):
            lr = _schedules.serialize(lr)
        elif isinstance(lr, Variable):
            lr = float(lr._tensor._value)
        return {"name": self.name, "learning_rate": lr, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                "clipvalue": self.clipvalue, "use_ema": self.use_ema,
                "ema_momentum": self.ema_momentum,
                "ema_overwrite_frequency": self.ema_overwrite_frequency,
                "loss_scale_factor": self.loss_scale_factor,
                "gradient_accumulation_steps": self.gradient_accumulation_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            config["learning_rate"] = _schedules.deserialize(lr, custom_objects)
        return cls(**config)

    def __repr__(self):
        return "<fe.keras.optimizers.%s name=%r>" % (type(self).__name__, self.name)
