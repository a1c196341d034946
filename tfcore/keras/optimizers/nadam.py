"""``tf.keras.optimizers.Nadam``: Adam with Nesterov momentum (Dozat, 2015), Keras' momentum schedule."""

from ...framework import deferred
from ...ops import math_ops
from .optimizer import Optimizer


class Nadam(Optimizer):
    """Keras 3's Nadam: momentum ``u_t = beta_1 * (1 - 0.5 * 0.96 ** t)`` and its running product::

        m = beta_1 * m + (1 - beta_1) * g;  v = beta_2 * v + (1 - beta_2) * g*g
        m_hat = u_{t+1} * m / (1 - prod_{t+1}) + (1 - u_t) * g / (1 - prod_t)
        w -= lr * m_hat / (sqrt(v / (1 - beta_2**t)) + epsilon)
    """

    _keras3_slot_lists = ((("m", "_momentums"), ("v", "_velocities")),)

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
        self._slot_names = ("m", "v")
        self._u_products = [1.0]  # prod_{s<=t} u_s for t = 0, 1, ...
        self._u_product = None  # Keras 3's variable holding prod_{s<=iterations} u_s, made by build

    def build(self, var_list):
        """The slots, then (once) Keras 3's ``_u_product`` variable, last in ``variables`` as in Keras 3.

        The update computes the product from the step (:meth:`_u_product_at`); the variable mirrors it
        after each step so that checkpoints carry it as TF 2.21 writes and reads it (``optimizer/_u_product``)."""
        super().build(var_list)
        if self._u_product is None:
            dtype = var_list[0].dtype if var_list else "float32"
            self._u_product = self.add_variable((), dtype=dtype, initializer="ones", name="u_product")
            deferred.created(self, "_u_product", self._u_product)  # a checkpoint restored before the build

    def _apply_gradients_eagerly(self, pairs):
        out = super()._apply_gradients_eagerly(pairs)
        self._u_product.assign(self._u_product_at(self._step()))
        return out

    def _u(self, t):
        return float(self.beta_1) * (1.0 - 0.5 * 0.96 ** t)  # Keras 3 (Keras 2 had 0.96 ** (0.004 t))

    def _u_product_at(self, t):
        while len(self._u_products) <= t:
            self._u_products.append(self._u_products[-1] * self._u(len(self._u_products)))
        return self._u_products[t]

    _sparse_terms = ("grad_sq",)  # an IndexedSlices gradient: Keras 3 takes these per slice

    def _compute_update(self, grad, value, slots, lr, step, grad_sq=None):
        m, v = slots
        b1, b2 = float(self.beta_1), float(self.beta_2)
        u_t, u_next = self._u(step), self._u(step + 1)
        prod_t = self._u_product_at(step)
        prod_next = prod_t * u_next
        m = math_ops.add(m, math_ops.multiply(math_ops.subtract(grad, m), 1.0 - b1))
        v = math_ops.add(v, math_ops.multiply(math_ops.subtract(
            math_ops.square(grad) if grad_sq is None else grad_sq, v), 1.0 - b2))
        m_hat = math_ops.add(math_ops.multiply(m, u_next / (1.0 - prod_next)),
                             math_ops.multiply(grad, (1.0 - u_t) / (1.0 - prod_t)))
        denom = math_ops.add(math_ops.sqrt(math_ops.multiply(v, 1.0 / (1.0 - b2 ** step))), float(self.epsilon))
        value = math_ops.subtract(value, math_ops.divide(math_ops.multiply(m_hat, lr), denom))
        return value, m, v

    def _hyper_config(self):
        return {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


