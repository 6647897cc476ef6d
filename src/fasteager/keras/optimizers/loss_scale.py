"""``LossScaleOptimizer``: Keras 3's dynamic loss scaling for mixed-precision training.

The loss is multiplied by ``dynamic_scale`` (``scale_loss``) before differentiation, so
small float16 gradients do not flush to zero; each update divides the gradients by the
scale again and hands them to the inner optimizer. Gradients with an inf or NaN skip the
update and halve the scale; after ``dynamic_growth_steps`` finite updates in a row the
scale doubles. The update runs on the gradients' arrays (``_apply_combined``), so inside
fit's traced step it is the same effect step as any optimizer's.
"""
import numpy as np

from .. import _serialization
from .._naming import KerasVariable
from .base import Optimizer, _var_key


class LossScaleOptimizer(Optimizer):
    """Wraps ``inner_optimizer`` with dynamic loss scaling (``initial_scale`` 2**15, doubled
    after ``dynamic_growth_steps`` finite steps, halved on a non-finite gradient)."""

    def __init__(self, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000,
                 name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, "
                             "simply set `loss_scale_factor` directly on the "
                             "`inner_optimizer`.")
        defaults = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                    "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                    "ema_overwrite_frequency": None, "loss_scale_factor": None,
                    "gradient_accumulation_steps": None}
        for arg, default in defaults.items():
            if arg in kwargs and kwargs.pop(arg) != default:
                raise ValueError("LossScaleOptimizer does not support `%s`. Instead, set `%s` "
                                 "on the `inner_optimizer`." % (arg, arg))
        if kwargs:
            raise ValueError("LossScaleOptimizer does not support arguments: `%s`."
                             % "`, `".join(kwargs))
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError("LossScaleOptimizer: inner_optimizer must be a Keras optimizer "
                            "(got %r)" % (inner_optimizer,))
        super().__init__(learning_rate=0.0, name=name or "loss_scale_optimizer")
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        self.inner_optimizer.loss_scale_factor = None
        # made now (Keras makes them at build): fit's traced step reads the scale from
        # its first trace on, which runs before the first update builds anything
        self.step_counter = None
        self.dynamic_scale = None
        self._build_scale()

    # -- state ------------------------------------------------------------------------------
    def _build_scale(self):
        if self.dynamic_scale is not None:
            return
        self.step_counter = KerasVariable(np.int64(0), trainable=False, name="step_counter",
                                          path=self.name + "/step_counter")
        self.dynamic_scale = KerasVariable(np.float32(self.initial_scale), trainable=False,
                                           name="dynamic_scale",
                                           path=self.name + "/dynamic_scale")
        self._variables.extend([self.step_counter, self.dynamic_scale])

    def build(self, var_list):
        self._build_scale()
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    def _track_many(self, variables):
        self._build_scale()
        self.inner_optimizer._track_many(variables)
        super()._track_many(variables)

    def _step_state(self):
        # what an update writes besides this optimizer's own iterations: the scale, and
        # the inner optimizer's step count, slots and state
        inner = self.inner_optimizer
        state = [self.step_counter, self.dynamic_scale, inner._iterations]
        for v in inner._tracked_variables:
            state.extend(inner._slots[_var_key(v)].values())
        state.extend(inner._step_state())
        return state

    def _checkpoint_dependencies(self):
        # saved (checkpoints, model.save): the scale, this optimizer's own variables and
        # the inner optimizer with its slots
        own = [(k, v) for k, v in self.__dict__.items() if isinstance(v, KerasVariable)]
        return own + [("inner_optimizer", self.inner_optimizer)]

    @property
    def variables(self):
        return list(self._variables) + list(self.inner_optimizer.variables)

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    @iterations.setter
    def iterations(self, value):
        self.inner_optimizer.iterations = value

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if getattr(self, "inner_optimizer", None) is None:   # Optimizer.__init__'s 0.0
            self._set_learning_rate(value)
        else:
            self.inner_optimizer.learning_rate = value

    lr = learning_rate

    # -- the update -------------------------------------------------------------------------
    def scale_loss(self, loss):
        """``loss * dynamic_scale`` (``initial_scale`` until an update changes it)."""
        return loss * self.dynamic_scale

    def _apply_combined(self, arrays, variables):
        self._track_many(variables)
        counter = self.step_counter._mutable_array()
        scale = self.dynamic_scale._mutable_array()
        if all(np.isfinite(g).all() for g in arrays):
            unscaled = [g / g.dtype.type(scale[()]) for g in arrays]
            self.inner_optimizer._apply_combined(unscaled, variables)
            if counter[()] == self.dynamic_growth_steps - 1:
                counter[()] = 0
                scale *= 2
            else:
                counter += 1
        else:   # skip the update, lower the scale
            counter[()] = 0
            scale *= 0.5
        return self.inner_optimizer.iterations     # (its own iterations stay 0, as Keras)

    def finalize_variable_values(self, var_list):
        self.inner_optimizer.finalize_variable_values(var_list)

    # -- configuration ----------------------------------------------------------------------
    def get_config(self):
        inner = self.inner_optimizer
        return {"name": self.name,
                "inner_optimizer": {"module": "keras.optimizers",
                                    "class_name": type(inner).__name__,
                                    "config": inner.get_config(), "registered_name": None},
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):
            inner = _deserialize(inner, custom_objects)
        return cls(inner, **config)

    def __repr__(self):
        return "<fe.keras.optimizers.LossScaleOptimizer name=%r inner=%r>" % (
            self.name, self.inner_optimizer)


def _deserialize(config, custom_objects):
    """The inner optimizer of a serialized config: its class by name among the optimizer
    classes (the built-in ones and any user subclass) or ``custom_objects``."""
    classes, todo = {}, [Optimizer]
    while todo:
        cls = todo.pop()
        classes.setdefault(cls.__name__, cls)
        todo.extend(cls.__subclasses__())
    classes.update(custom_objects or {})
    name = config.get("class_name")
    cls = classes.get(name)
    if cls is None or not isinstance(cls, type) or not issubclass(cls, Optimizer):
        raise ValueError("LossScaleOptimizer.from_config: unknown inner optimizer %r "
                         "(expected an optimizer class name)" % (name,))
    return cls.from_config(config.get("config") or {}, custom_objects)


_serialization.register_builtins("loss_scale", globals(), Optimizer)
