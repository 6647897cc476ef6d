"""Learning-rate schedules (``fe.keras.optimizers.schedules``), with Keras's formulas.

A schedule is a callable ``schedule(step) -> learning rate``; an optimizer given one calls
it with its ``iterations`` count before every update.

>>> lr = ExponentialDecay(0.1, decay_steps=100, decay_rate=0.5, staircase=True)
>>> float(lr(150))
0.05
"""
import math

import numpy as np

from ... import _core
from .. import _serialization


def _step_value(step):
    if isinstance(step, _core.VariableBase):
        step = step._tensor
    if isinstance(step, _core.Tensor):
        step = step._value
    return float(np.asarray(step))


def _as_tensor(value):
    return _core.wrap(np.asarray(value, dtype=np.float32))


class LearningRateSchedule:
    """Base class: subclasses define ``__call__(step)`` and ``get_config()``."""

    def __call__(self, step):
        raise NotImplementedError("LearningRateSchedule.__call__: subclasses must define it")

    def get_config(self):
        raise NotImplementedError("LearningRateSchedule.get_config: subclasses must define it")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _StepDecay(LearningRateSchedule):
    """Shared by the decays of ``step / decay_steps`` (floored when ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase, name):
        if decay_steps <= 0:
            raise ValueError("%s: decay_steps must be positive (expected > 0, got %r)"
                             % (type(self).__name__, decay_steps))
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _progress(self, step):
        p = _step_value(step) / self.decay_steps
        return math.floor(p) if self.staircase else p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_StepDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent
    floored when ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        return _as_tensor(float(self.initial_learning_rate)
                          * float(self.decay_rate) ** self._progress(step))


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < step <= boundaries[i]``, ``values[-1]`` after the last boundary."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseConstantDecay: values needs one more entry than "
                             "boundaries (expected %d, got %d)"
                             % (len(boundaries) + 1, len(values)))
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        s = _step_value(step)
        for b, v in zip(self.boundaries, self.values):
            if s <= b:
                return _as_tensor(v)
        return _as_tensor(self.values[-1])

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class InverseTimeDecay(_StepDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (the ratio
    floored when ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        return _as_tensor(float(self.initial_learning_rate)
                          / (1.0 + float(self.decay_rate) * self._progress(step)))


class CosineDecay(LearningRateSchedule):
    """Cosine decay from ``initial_learning_rate`` (or, after a linear warm-up of
    ``warmup_steps``, from ``warmup_target``) down to ``alpha`` times it over
    ``decay_steps`` (Loshchilov & Hutter, SGDR, 2017; Keras's formula)."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        if decay_steps <= 0:
            raise ValueError("CosineDecay: decay_steps must be positive "
                             "(expected > 0, got %r)" % (decay_steps,))
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        s = _step_value(step)
        init = float(self.initial_learning_rate)
        target = init if self.warmup_target is None else float(self.warmup_target)
        if self.warmup_target is not None and s < self.warmup_steps:
            return _as_tensor(init + (target - init) * s / self.warmup_steps)
        s = min(s - (self.warmup_steps if self.warmup_target is not None else 0),
                self.decay_steps)
        cosine = 0.5 * (1.0 + math.cos(math.pi * s / self.decay_steps))
        return _as_tensor(target * ((1.0 - self.alpha) * cosine + self.alpha))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, the step held at
    ``decay_steps``; with ``cycle`` the horizon grows to the next multiple of
    ``decay_steps`` instead (Keras's formula)."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001,
                 power=1.0, cycle=False, name="PolynomialDecay"):
        if decay_steps <= 0:
            raise ValueError("PolynomialDecay: decay_steps must be positive "
                             "(expected > 0, got %r)" % (decay_steps,))
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        s = _step_value(step)
        horizon = float(self.decay_steps)
        if self.cycle:
            horizon *= 1.0 if s == 0 else math.ceil(s / self.decay_steps)
        else:
            s = min(s, horizon)
        end = float(self.end_learning_rate)
        return _as_tensor((float(self.initial_learning_rate) - end)
                          * (1.0 - s / horizon) ** float(self.power) + end)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter, 2017): period ``i``
    lasts ``first_decay_steps * t_mul**i`` steps and starts at ``m_mul**i`` times the
    initial rate, decaying to ``alpha`` times that (Keras's formula)."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        if first_decay_steps <= 0:
            raise ValueError("CosineDecayRestarts: first_decay_steps must be positive "
                             "(expected > 0, got %r)" % (first_decay_steps,))
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        done = _step_value(step) / float(self.first_decay_steps)
        t_mul = float(self._t_mul)
        if t_mul == 1.0:
            restart = math.floor(done)
            done -= restart
        else:
            # the periods' lengths are a geometric series: which one holds `done`
            restart = math.floor(math.log(1.0 - done * (1.0 - t_mul)) / math.log(t_mul))
            done = (done - (1.0 - t_mul ** restart) / (1.0 - t_mul)) / t_mul ** restart
        cosine = 0.5 * float(self._m_mul) ** restart * (1.0 + math.cos(math.pi * done))
        alpha = float(self.alpha)
        return _as_tensor(float(self.initial_learning_rate) * ((1.0 - alpha) * cosine + alpha))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


_SCHEDULES = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay,
                                      InverseTimeDecay, CosineDecay, PolynomialDecay,
                                      CosineDecayRestarts)}


def serialize(schedule):
    """``{"class_name": ..., "config": ...}`` for a built-in schedule."""
    return {"class_name": type(schedule).__name__, "config": schedule.get_config()}


def deserialize(config, custom_objects=None):
    """Rebuild a schedule from :func:`serialize`'s dictionary."""
    classes = dict(_SCHEDULES)
    classes.update(custom_objects or {})
    name = config.get("class_name")
    if name not in classes:
        raise ValueError("schedules.deserialize: unknown schedule (expected one of %s, got %r)"
                         % (sorted(classes), name))
    return classes[name].from_config(config["config"])


__all__ = ["CosineDecay", "CosineDecayRestarts", "ExponentialDecay", "InverseTimeDecay",
           "LearningRateSchedule", "PiecewiseConstantDecay", "PolynomialDecay", "deserialize",
           "serialize"]

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("schedules", globals(), LearningRateSchedule)
