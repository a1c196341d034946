"""``tf.keras.optimizers.Lion``: sign momentum (Chen et al., 2023)."""

from ...ops import math_ops
from .optimizer import Optimizer


class Lion(Optimizer):
    """``w -= lr * sign(beta_1 * m + (1 - beta_1) * g)``, then ``m = beta_2 * m + (1 - beta_2) * g``."""

    _keras3_slot_lists = ((("momentum", "_momentums"),),)

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, jit_compile=True, name=None, **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError("Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates "
                             f"to SignSGD. Received: beta_1={beta_1}.")
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self._slot_names = ("momentum",)

    def _compute_update(self, grad, value, slots, lr, step):
        (m,) = slots
        b1, b2 = float(self.beta_1), float(self.beta_2)
        direction = math_ops.sign(math_ops.add(math_ops.multiply(m, b1), math_ops.multiply(grad, 1.0 - b1)))
        value = math_ops.subtract(value, math_ops.multiply(direction, lr))
        m = math_ops.add(math_ops.multiply(m, b2), math_ops.multiply(grad, 1.0 - b2))
        return value, m

    def _hyper_config(self):
        return {"beta_1": self.beta_1, "beta_2": self.beta_2}
