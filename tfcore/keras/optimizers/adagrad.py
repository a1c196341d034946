"""``tf.keras.optimizers.Adagrad``."""

import numpy as np

from ...ops import math_ops, training_ops
from .optimizer import Optimizer


class Adagrad(Optimizer):
    """``acc += g*g; w -= lr * g / sqrt(acc + epsilon)``, accumulators start at ``initial_accumulator_value``."""

    _keras3_slot_lists = ((("accumulator", "_accumulators"),),)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-07, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, jit_compile=True, name=None, **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon
        self._slot_names = ("accumulator",)

    def _slot_initial_value(self, slot_name, var):
        return np.full(tuple(var.shape.as_list()), self.initial_accumulator_value, var.dtype.as_numpy_dtype)

    _sparse_terms = ("grad_sq",)

    def _compute_update(self, grad, value, slots, lr, step, grad_sq=None):
        if grad_sq is not None:  # an IndexedSlices gradient: Keras 3 accumulates its slices' squares
            accum = math_ops.add(slots[0], grad_sq)
            denom = math_ops.sqrt(math_ops.add(accum, float(self.epsilon)))
            return math_ops.subtract(value, math_ops.divide(math_ops.multiply(grad, lr), denom)), accum
        return training_ops.apply(training_ops.ADAGRAD, (value, slots[0], grad), lr=lr,
                                  epsilon=float(self.epsilon))

    def _hyper_config(self):
        return {"initial_accumulator_value": self.initial_accumulator_value, "epsilon": self.epsilon}
