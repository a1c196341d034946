"""``tf.keras.optimizers.schedules``: learning rates that depend on the optimizer's step.

A schedule is called with the step (``optimizer.iterations`` before the update)
and returns a scalar float32 tensor, as TF's schedules do. The formulas are TF's. As in Keras 3, a
schedule is elementwise: called with an array of steps (``lr_schedule(np.linspace(0, 100000))``, as the
overfit-and-underfit tutorial plots it) it returns the float32 tensor of their rates; only
``CosineDecay`` with a warmup takes one step at a time (Keras 3 branches on it with ``ops.cond``).
"""

import math

import numpy as np

from ...framework import dtypes
from ...ops import array_ops


def _step(step):
    """The step as a float64 NumPy array, 0-d for one step (tensors and variables are read)."""
    if hasattr(step, "numpy"):
        step = step.numpy()
    try:
        return np.asarray(step, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"A learning rate schedule's `step` must be a number, an array or a tensor of numbers. "
                        f"Received: step={step!r} of type {type(step).__name__}") from None


def _out(value):
    return array_ops.constant(np.asarray(value, dtype=np.float32), dtype=dtypes.float32)


class LearningRateSchedule:
    """Base class: subclasses implement ``__call__(step)`` and ``get_config()``."""

    def __call__(self, step):
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override `__call__(self, step)`.")

    def get_config(self):
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must override `get_config()` "
                                  "in order to be serializable.")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _RateDecay(LearningRateSchedule):
    """The arguments ExponentialDecay and InverseTimeDecay share: ``initial_learning_rate``, ``decay_steps``
    (> 0), ``decay_rate``, ``staircase`` (floor ``step / decay_steps``), ``name``."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _progress(self, step):
        p = _step(step) / float(self.decay_steps)
        return np.floor(p) if self.staircase else p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_RateDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (integer division if ``staircase``)."""

    def __call__(self, step):
        return _out(float(self.initial_learning_rate) * float(self.decay_rate) ** self._progress(step))


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` for ``step <= boundaries[0]``, ``values[i]`` for ``boundaries[i-1] < step <= boundaries[i]``."""

    def __init__(self, boundaries, values, name=None):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values. "
                             f"Received: boundaries={boundaries} of length {len(boundaries)}, and "
                             f"values={values} of length {len(values)}.")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        s = _step(step)
        out = np.full(s.shape, self.values[-1], dtype=np.float64)
        for b, v in reversed(list(zip(self.boundaries, self.values))):
            out = np.where(s <= b, v, out)  # the first boundary the step is under wins
        return _out(out)

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """Cosine decay from ``initial_learning_rate`` to ``alpha * initial`` over ``decay_steps``, with optional
    linear warmup to ``warmup_target`` over ``warmup_steps`` first (TF 2.13)."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None, warmup_target=None,
                 warmup_steps=0):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        s = _step(step)
        initial = float(self.initial_learning_rate)
        if self.warmup_target is None:
            return _out(self._decay(s, initial))
        target = float(self.warmup_target)
        if s.ndim:
            raise ValueError(f"CosineDecay with a warmup takes one step at a time (as Keras 3's, which branches "
                             f"on it). Received: step of shape {s.shape}")
        if s < self.warmup_steps:
            return _out(initial + (target - initial) * s / self.warmup_steps)
        return _out(self._decay(s - self.warmup_steps, target))

    def _decay(self, s, lr):
        s = np.minimum(s, self.decay_steps)
        cosine = 0.5 * (1.0 + np.cos(math.pi * s / self.decay_steps))
        return lr * ((1.0 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha, "name": self.name, "warmup_target": self.warmup_target,
                "warmup_steps": self.warmup_steps}


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``; the step is clipped to ``decay_steps``,
    or with ``cycle`` the decay restarts at each multiple of ``decay_steps`` (Keras 3's formula)."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                 name="PolynomialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        s, decay_steps = _step(step), float(self.decay_steps)
        if self.cycle:
            decay_steps = decay_steps * np.where(s == 0, 1.0, np.ceil(s / self.decay_steps))
        else:
            s = np.minimum(s, decay_steps)
        initial, end = float(self.initial_learning_rate), float(self.end_learning_rate)
        return _out((initial - end) * (1.0 - s / decay_steps) ** float(self.power) + end)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power, "cycle": self.cycle,
                "name": self.name}


class InverseTimeDecay(_RateDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (the ratio floored if ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="InverseTimeDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        return _out(float(self.initial_learning_rate) / (1.0 + float(self.decay_rate) * self._progress(step)))


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): period ``i`` lasts ``first_decay_steps * t_mul ** i`` steps and
    starts at ``initial_learning_rate * m_mul ** i``; each decays to ``alpha`` times its start (Keras 3)."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name="SGDRDecay"):
        if first_decay_steps <= 0:
            raise ValueError(f"Argument `first_decay_steps` must be > 0. Received: first_decay_steps="
                             f"{first_decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        fraction = _step(step) / float(self.first_decay_steps)
        t_mul, alpha = float(self._t_mul), float(self.alpha)
        if t_mul == 1.0:
            i_restart = np.floor(fraction)
            fraction = fraction - i_restart
        else:
            i_restart = np.floor(np.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
            sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
            fraction = (fraction - sum_r) / t_mul ** i_restart
        cosine = 0.5 * float(self._m_mul) ** i_restart * (1.0 + np.cos(math.pi * fraction))
        return _out(float(self.initial_learning_rate) * ((1.0 - alpha) * cosine + alpha))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "first_decay_steps": self.first_decay_steps,
                "t_mul": self._t_mul, "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


_SCHEDULES = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay, CosineDecay, PolynomialDecay,
                                      InverseTimeDecay, CosineDecayRestarts)}


def serialize(learning_rate_schedule):
    """``{'class_name': ..., 'config': ...}`` for a schedule."""
    return {"class_name": type(learning_rate_schedule).__name__, "config": learning_rate_schedule.get_config()}


def deserialize(config, custom_objects=None):
    """A schedule from :func:`serialize`'s output (``custom_objects`` maps names to classes)."""
    classes = dict(_SCHEDULES)
    classes.update(custom_objects or {})
    name = config["class_name"]
    if name not in classes:
        raise ValueError(f"Unknown learning rate schedule: '{name}'. Please ensure it is passed in custom_objects.")
    return classes[name].from_config(config["config"])
