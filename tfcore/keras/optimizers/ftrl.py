"""``tf.keras.optimizers.Ftrl``: Follow The Regularized Leader (McMahan et al., 2013)."""

import numpy as np

from ...ops import math_ops
from .optimizer import Optimizer


class Ftrl(Optimizer):
    """Keras' FTRL-proximal with L1/L2 and L2-shrinkage regularisation::

        g2 = g + 2 * l2_shrinkage * w;  n' = n + g*g
        z += g2 - (n'**-p - n**-p) / lr * w          (p = learning_rate_power)
        w = (clip(z, -l1, l1) - z) / (n'**-p / lr + 2 * (l2 + beta / (2 * lr)));  n = n'
    """

    _keras3_slot_lists = ((("accumulator", "_accumulators"), ("linear", "_linears")),)

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, jit_compile=True, name=None, **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        checks = {"initial_accumulator_value": initial_accumulator_value, "l1_regularization_strength":
                  l1_regularization_strength, "l2_regularization_strength": l2_regularization_strength,
                  "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength}
        for arg, val in checks.items():
            if val < 0.0:
                raise ValueError(f"`{arg}` needs to be positive or zero. Received: {arg}={val}.")
        if learning_rate_power > 0.0:
            raise ValueError("`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta
        self._slot_names = ("accumulator", "linear")

    def _slot_initial_value(self, slot_name, var):
        if slot_name == "accumulator":
            return np.full(tuple(var.shape.as_list()), self.initial_accumulator_value, var.dtype.as_numpy_dtype)
        return None

    _sparse_terms = ("grad_sq",)  # an IndexedSlices gradient: Keras 3 takes these per slice

    def _compute_update(self, grad, value, slots, lr, step, grad_sq=None):
        accum, linear = slots
        p = float(self.learning_rate_power)
        l1 = float(self.l1_regularization_strength)
        l2 = float(self.l2_regularization_strength) + float(self.beta) / (2.0 * lr)
        g2 = math_ops.add(grad, math_ops.multiply(value, 2.0 * float(self.l2_shrinkage_regularization_strength)))
        new_accum = math_ops.add(accum, math_ops.square(grad) if grad_sq is None else grad_sq)
        new_pow, old_pow = math_ops.pow(new_accum, -p), math_ops.pow(accum, -p)
        linear = math_ops.add(linear, math_ops.subtract(
            g2, math_ops.multiply(math_ops.divide(math_ops.subtract(new_pow, old_pow), lr), value)))
        quadratic = math_ops.add(math_ops.divide(new_pow, lr), 2.0 * l2)
        clipped = math_ops.clip_by_value(linear, -l1, l1)
        value = math_ops.divide(math_ops.subtract(clipped, linear), quadratic)
        return value, new_accum, linear

    def _hyper_config(self):
        return {"learning_rate_power": self.learning_rate_power,
                "initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength,
                "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength, "beta": self.beta}
