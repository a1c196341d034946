"""``tf.keras.optimizers.Adadelta`` (Zeiler, 2012)."""

from ...ops import math_ops
from .optimizer import Optimizer


class Adadelta(Optimizer):
    """Keras' Adadelta::

        acc_g = rho * acc_g + (1 - rho) * g*g
        delta = -sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta*delta;  w += lr * delta
    """

    _keras3_slot_lists = ((("accumulated_grad", "_accumulated_grads"),
                           ("accumulated_delta_var", "_accumulated_delta_vars")),)

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-07, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, jit_compile=True, name=None, **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        self.rho = rho
        self.epsilon = epsilon
        self._slot_names = ("accumulated_grad", "accumulated_delta_var")

    _sparse_terms = ("grad_sq",)  # an IndexedSlices gradient: Keras 3 takes these per slice

    def _compute_update(self, grad, value, slots, lr, step, grad_sq=None):
        acc_g, acc_d = slots
        rho, eps = float(self.rho), float(self.epsilon)
        g2 = math_ops.square(grad) if grad_sq is None else grad_sq
        acc_g = math_ops.add(math_ops.multiply(acc_g, rho), math_ops.multiply(g2, 1.0 - rho))
        ratio = math_ops.divide(math_ops.sqrt(math_ops.add(acc_d, eps)), math_ops.sqrt(math_ops.add(acc_g, eps)))
        delta = math_ops.negative(math_ops.multiply(ratio, grad))
        # delta^2; sparse: per slice, (ratio * g_i)^2 summed per row
        delta_sq = math_ops.square(delta) if grad_sq is None else math_ops.multiply(math_ops.square(ratio), grad_sq)
        acc_d = math_ops.add(math_ops.multiply(acc_d, rho), math_ops.multiply(delta_sq, 1.0 - rho))
        return math_ops.add(value, math_ops.multiply(delta, lr)), acc_g, acc_d

    def _hyper_config(self):
        return {"rho": self.rho, "epsilon": self.epsilon}
