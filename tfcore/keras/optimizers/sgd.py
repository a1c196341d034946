"""``tf.keras.optimizers.SGD``: gradient descent with optional (Nesterov) momentum."""

from ...ops import training_ops
from .optimizer import Optimizer


class SGD(Optimizer):
    """``velocity = momentum * velocity - lr * g``; ``w += velocity`` (Nesterov: ``w += momentum * velocity
    - lr * g``); plain ``w -= lr * g`` when ``momentum == 0`` (TF's formulas)."""

    _keras3_slot_lists = ((("m", "momentums"),),)

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, jit_compile=True, name=None, **kwargs):
        super().__init__(name=name, weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, jit_compile=jit_compile, **kwargs)
        self._learning_rate = self._build_learning_rate(kwargs.get("lr", learning_rate))
        if isinstance(momentum, int | float) and not 0 <= momentum <= 1:
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum} "
                             f"(of type {type(momentum)}).")
        self.momentum = momentum
        self.nesterov = nesterov
        self._slot_names = ("m",) if momentum > 0 else ()

    def _compute_update(self, grad, value, slots, lr, step):
        if not slots:
            return training_ops.apply(training_ops.GRADIENT_DESCENT, (value, grad), lr=lr)
        return training_ops.apply(training_ops.KERAS_MOMENTUM, (value, slots[0], grad), lr=lr,
                                  momentum=float(self.momentum), use_nesterov=bool(self.nesterov))

    def _hyper_config(self):
        return {"momentum": self.momentum, "nesterov": self.nesterov}
