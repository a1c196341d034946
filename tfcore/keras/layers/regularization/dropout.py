"""Dropout: zero inputs with probability ``rate`` while training, scaling the rest by ``1 / (1 - rate)``."""


from .... import nn
from ..activation import ShapePreservingLayer


class Dropout(ShapePreservingLayer):
    """Zero a fraction ``rate`` of inputs (scaling the rest by 1/(1-rate)) only when training."""

    _config_keys = ("rate", "noise_shape", "seed")

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        noise_shape = None
        if self.noise_shape is not None:
            noise_shape = [inputs.shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        return nn.dropout(inputs, rate=self.rate, noise_shape=noise_shape, seed=self.seed)
