"""Noise layers: GaussianNoise, GaussianDropout and AlphaDropout (and their base, shared with the spatial
dropouts).

They act only when ``training`` is true (as Keras) and draw from ``tf.random`` with the layer's ``seed``.
"""

import numpy as np

from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, random_ops
from ...engine.base_layer import Layer


class _Noise(Layer):
    def __init__(self, rate=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if rate is not None and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.seed = seed
        self.supports_masking = True

    def _output_dtype(self, input_dtype):
        return input_dtype

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class GaussianNoise(_Noise):
    """Add zero-mean Gaussian noise of standard deviation ``stddev`` (training only)."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(None, seed, **kwargs)
        if not 0 <= stddev <= 1:
            raise ValueError(f"Invalid value received for argument `stddev`. Expected a float value between 0 and "
                             f"1. Received: stddev={stddev}")
        self.stddev = stddev

    def call(self, inputs, training=False):
        if not training or self.stddev == 0:
            return inputs
        noise = random_ops.normal(inputs.shape.as_list(), stddev=self.stddev, dtype=inputs.dtype, seed=self.seed)
        return math_ops.add(inputs, noise)

    def get_config(self):
        config = super().get_config()
        config.update({"stddev": self.stddev, "seed": self.seed})
        return config


class GaussianDropout(_Noise):
    """Multiply by Gaussian noise of mean 1 and variance ``rate / (1 - rate)`` (training only)."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(rate, seed, **kwargs)
        self.rate = rate

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        stddev = float(np.sqrt(self.rate / (1.0 - self.rate)))
        noise = random_ops.normal(inputs.shape.as_list(), mean=1.0, stddev=stddev, dtype=inputs.dtype, seed=self.seed)
        return math_ops.multiply(inputs, noise)

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class AlphaDropout(_Noise):
    """Dropout that keeps the mean and variance of SELU activations: dropped units are set to
    ``-scale * alpha`` and the result is affinely corrected (training only)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(rate, seed, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape

    def call(self, inputs, training=False):
        if not training or self.rate <= 0:
            return inputs
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        shape = inputs.shape.as_list() if self.noise_shape is None else \
            [inputs.shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        keep = math_ops.cast(math_ops.greater_equal(random_ops.uniform(shape, seed=self.seed), self.rate),
                             inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = math_ops.add(math_ops.multiply(inputs, keep), math_ops.multiply(math_ops.subtract(1.0, keep), alpha_p))
        return math_ops.add(math_ops.multiply(x, a), b)

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed})
        return config
