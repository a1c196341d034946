"""``tf.keras.optimizers.Adamax``: Adam with the infinity norm."""

from ...ops import math_ops
from .optimizer import Optimizer


class Adamax(Optimizer):
    """Keras' Adamax::

        m = beta_1 * m + (1 - beta_1) * g;  u = maximum(beta_2 * u, |g|)
        w -= lr / (1 - beta_1**t) * m / (u + epsilon)
    """

    _keras3_slot_lists = ((("m", "_m"), ("u", "_u")),)

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-07, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, jit_compile=True, name=None, **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self._slot_names = ("m", "u")

    _sparse_terms = ("grad_abs",)  # an IndexedSlices gradient: Keras 3 takes these per slice

    def _compute_update(self, grad, value, slots, lr, step, grad_abs=None):
        m, u = slots
        b1, b2 = float(self.beta_1), float(self.beta_2)
        m = math_ops.add(m, math_ops.multiply(math_ops.subtract(grad, m), 1.0 - b1))
        u = math_ops.maximum(math_ops.multiply(u, b2), math_ops.abs(grad) if grad_abs is None else grad_abs)
        step_size = lr / (1.0 - b1 ** step)
        value = math_ops.subtract(value, math_ops.divide(math_ops.multiply(m, step_size),
                                                         math_ops.add(u, float(self.epsilon))))
        return value, m, u

    def _hyper_config(self):
        return {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}
