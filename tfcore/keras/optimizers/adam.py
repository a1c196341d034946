"""``tf.keras.optimizers.Adam`` and ``AdamW`` (decoupled weight decay)."""

import math

from ...ops import math_ops, training_ops
from .optimizer import Optimizer


class Adam(Optimizer):
    """Adam (Kingma & Ba) with TF's formulation::

        m += (g - m) * (1 - beta_1);  v += (g*g - v) * (1 - beta_2)
        alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
        w -= alpha * m / (sqrt(v) + epsilon)        # v -> max(v_hat, v) with amsgrad
    """

    _keras3_slot_lists = ((("m", "_momentums"), ("v", "_velocities")), (("vhat", "_velocity_hats"),))

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-07, amsgrad=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, jit_compile=True, name=None, **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad
        self._slot_names = ("m", "v", "vhat") if amsgrad else ("m", "v")

    _sparse_terms = ("grad_sq",)

    def _compute_update(self, grad, value, slots, lr, step, grad_sq=None):
        b1, b2 = float(self.beta_1), float(self.beta_2)
        alpha = lr * math.sqrt(1.0 - b2 ** step) / (1.0 - b1 ** step)
        if grad_sq is not None:  # an IndexedSlices gradient: Keras 3's v uses its slices' squares
            m, v = slots[0], slots[1]
            m = math_ops.add(m, math_ops.multiply(math_ops.subtract(grad, m), 1.0 - b1))
            v = math_ops.add(v, math_ops.multiply(math_ops.subtract(grad_sq, v), 1.0 - b2))
            new_slots = [m, v]
            if self.amsgrad:
                v = math_ops.maximum(slots[2], v)
                new_slots.append(v)
            value = math_ops.subtract(value, math_ops.divide(math_ops.multiply(m, alpha),
                                                             math_ops.add(math_ops.sqrt(v), float(self.epsilon))))
            return (value, *new_slots)
        op = training_ops.ADAM_AMSGRAD if self.amsgrad else training_ops.ADAM
        return training_ops.apply(op, (value, *slots, grad), alpha=alpha, beta_1=b1, beta_2=b2,
                                  epsilon=float(self.epsilon))

    def _hyper_config(self):
        return {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon, "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with decoupled weight decay: ``w -= w * weight_decay * lr`` before each Adam update."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-07,
                 amsgrad=False, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, jit_compile=True, name=None, **kwargs):
        if weight_decay is None:
            raise ValueError("Missing value of `weight_decay` which is required and must be a float value.")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, name=name,
                         **kwargs)
