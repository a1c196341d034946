"""``tf.keras.optimizers.Lamb``: Adam steps scaled per layer by a trust ratio (You et al., 2019)."""

from ...ops import array_ops, math_ops, reduce_ops
from .optimizer import Optimizer


class Lamb(Optimizer):
    """``r = m_hat / (sqrt(v_hat) + epsilon)``; ``w -= lr * (||w|| / ||r||) * r`` (ratio 1 when a norm is 0)."""

    _keras3_slot_lists = ((("momentum", "_momentums"), ("velocity", "_velocities")),)

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
        self._slot_names = ("momentum", "velocity")

    _sparse_terms = ("grad_sq",)  # an IndexedSlices gradient: Keras 3 takes these per slice

    def _compute_update(self, grad, value, slots, lr, step, grad_sq=None):
        m, v = slots
        b1, b2 = float(self.beta_1), float(self.beta_2)
        m = math_ops.add(m, math_ops.multiply(math_ops.subtract(grad, m), 1.0 - b1))
        v = math_ops.add(v, math_ops.multiply(math_ops.subtract(
            math_ops.square(grad) if grad_sq is None else grad_sq, v), 1.0 - b2))
        m_hat = math_ops.multiply(m, 1.0 / (1.0 - b1 ** step))
        v_hat = math_ops.multiply(v, 1.0 / (1.0 - b2 ** step))
        update = math_ops.divide(m_hat, math_ops.add(math_ops.sqrt(v_hat), float(self.epsilon)))
        w_norm = math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(value)))
        g_norm = math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(update)))
        both = math_ops.logical_and(math_ops.greater(w_norm, 0.0), math_ops.greater(g_norm, 0.0))
        ratio = math_ops.where(both, math_ops.divide_no_nan(w_norm, g_norm), array_ops.ones_like(w_norm))
        value = math_ops.subtract(value, math_ops.multiply(update, math_ops.multiply(ratio, lr)))
        return value, m, v

    def _hyper_config(self):
        return {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}
