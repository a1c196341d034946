"""``tf.keras.optimizers.RMSprop`` (optionally centered, with momentum)."""

from ...ops import math_ops, training_ops
from .optimizer import Optimizer


class RMSprop(Optimizer):
    """TF's RMSprop::

        ms = rho * ms + (1 - rho) * g*g            (centered: mg = rho * mg + (1 - rho) * g)
        inc = lr * g / sqrt(ms + epsilon)          (centered: sqrt(ms - mg*mg + epsilon))
        mom = momentum * mom + inc; w -= mom       (momentum == 0: w -= inc)
    """

    _keras3_slot_lists = ((("velocity", "_velocities"),), (("momentum", "_momentums"),),
                          (("average_gradient", "_average_gradients"),))

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-07, centered=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=100, jit_compile=True, name=None, **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered
        self._slot_names = (("average_gradient",) if centered else ()) + ("velocity",) + (
            ("momentum",) if momentum > 0 else ())

    _sparse_terms = ("grad_sq",)

    def _compute_update(self, grad, value, slots, lr, step, grad_sq=None):
        if grad_sq is not None:
            return self._sparse_rmsprop(grad, grad_sq, value, slots, lr)
        op = training_ops.CENTERED_RMSPROP if self.centered else training_ops.RMSPROP
        has_momentum = self.momentum > 0
        # without a momentum slot the velocity stands in for it (unused when momentum == 0) and is dropped
        inputs = (value, *slots, grad) if has_momentum else (value, *slots, slots[-1], grad)
        out = training_ops.apply(op, inputs, lr=lr, rho=float(self.rho), momentum=float(self.momentum),
                                 epsilon=float(self.epsilon))
        return out if has_momentum else out[:-1]

    def _hyper_config(self):
        return {"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon, "centered": self.centered}

    def _sparse_rmsprop(self, grad, grad_sq, value, slots, lr):
        """Keras 3's update for an IndexedSlices gradient: the velocity takes its slices' squares."""
        rho, eps = float(self.rho), float(self.epsilon)
        slots = list(slots)
        avg = slots.pop(0) if self.centered else None
        velocity = slots.pop(0)
        mom = slots.pop(0) if self.momentum > 0 else None
        velocity = math_ops.add(math_ops.multiply(velocity, rho), math_ops.multiply(grad_sq, 1.0 - rho))
        new = [velocity]
        if self.centered:
            avg = math_ops.add(math_ops.multiply(avg, rho), math_ops.multiply(grad, 1.0 - rho))
            denom = math_ops.add(math_ops.subtract(velocity, math_ops.square(avg)), eps)
            new.insert(0, avg)
        else:
            denom = math_ops.add(velocity, eps)
        increment = math_ops.divide(math_ops.multiply(grad, lr), math_ops.sqrt(denom))
        if mom is not None:
            mom = math_ops.add(math_ops.multiply(mom, float(self.momentum)), increment)
            new.append(mom)
            increment = mom
        return (math_ops.subtract(value, increment), *new)
