"""``tf.keras.optimizers.Adafactor`` (Shazeer & Stern, 2018): factored second moments for matrices."""

import numpy as np

from ...ops import array_ops, math_ops, reduce_ops
from .optimizer import Optimizer


def _rms(x):
    return math_ops.sqrt(reduce_ops.reduce_mean(math_ops.square(x)))


def _ema(old, new, beta):
    return math_ops.add(math_ops.multiply(old, beta), math_ops.multiply(new, 1.0 - beta))


class Adafactor(Optimizer):
    """Keras' Adafactor: for rank >= 2 variables the second moment is the outer product of row (``r``) and
    column (``c``) means; ``beta_2_t = 1 - t ** beta_2_decay``; step ``max(epsilon_2, rms(w)) * rho_t`` with
    ``rho_t = min(lr, 1 / sqrt(t))`` (``relative_step``) and the update clipped to rms ``clip_threshold``."""

    _keras3_slot_lists = ((("r", "_r"), ("c", "_c"), ("v", "_v")),)

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3, clip_threshold=1.0,
                 relative_step=True, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, jit_compile=True, name=None,
                 **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step
        self._slot_names = ("r", "c", "v")

    def _slot_initial_value(self, slot_name, var):
        shape = tuple(var.shape.as_list())
        dt = var.dtype.as_numpy_dtype
        if len(shape) < 2:
            return np.zeros(shape if slot_name == "v" else (), dt)
        if slot_name == "r":
            return np.zeros(shape[:-1], dt)
        if slot_name == "c":
            return np.zeros(shape[:-2] + shape[-1:], dt)
        return np.zeros(shape, dt)

    _sparse_terms = ("grad_sq",)  # an IndexedSlices gradient: Keras 3 takes these per slice

    def _compute_update(self, grad, value, slots, lr, step, grad_sq=None):
        r, c, v = slots
        rho_t = min(lr, 1.0 / np.sqrt(step)) if self.relative_step else lr
        alpha = math_ops.multiply(math_ops.maximum(_rms(value), float(self.epsilon_2)), float(rho_t))
        g2 = math_ops.add(math_ops.square(grad) if grad_sq is None else grad_sq, float(self.epsilon_1))
        beta = 1.0 - float(step) ** float(self.beta_2_decay)
        if value.ndim >= 2:
            r = _ema(r, reduce_ops.reduce_mean(g2, axis=-1), beta)
            c = _ema(c, reduce_ops.reduce_mean(g2, axis=-2), beta)
            row = array_ops.expand_dims(math_ops.divide(r, reduce_ops.reduce_mean(r, axis=-1, keepdims=True)), -1)
            v = math_ops.multiply(row, array_ops.expand_dims(c, -2))
        else:
            v = _ema(v, g2, beta)
        u = math_ops.divide(grad, math_ops.sqrt(v))
        # rms(u); sparse: of the slices g_i / sqrt(v[row]) over the dense size, i.e. mean(sum g_i^2 / v)
        rms_u = _rms(u) if grad_sq is None else math_ops.sqrt(reduce_ops.reduce_mean(math_ops.divide(grad_sq, v)))
        u = math_ops.divide(u, math_ops.maximum(math_ops.divide(rms_u, float(self.clip_threshold)), 1.0))
        return math_ops.subtract(value, math_ops.multiply(alpha, u)), r, c, v

    def _hyper_config(self):
        return {"beta_2_decay": self.beta_2_decay, "epsilon_1": self.epsilon_1, "epsilon_2": self.epsilon_2,
                "clip_threshold": self.clip_threshold, "relative_step": self.relative_step}
