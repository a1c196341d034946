"""Activation layers: ReLU, Softmax, LeakyReLU, ELU, PReLU-free variants with Keras's arguments."""

from ... import nn
from ...ops import math_ops
from .. import activations
from ..engine.base_layer import Layer


class ShapePreservingLayer(Layer):
    """A layer whose output has its input's shape; ``get_config`` adds the attributes in ``_config_keys``."""

    _config_keys = ()

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({k: getattr(self, k) for k in self._config_keys})
        return config


class ReLU(ShapePreservingLayer):
    """``min(max_value, x)`` for x >= threshold, ``negative_slope * (x - threshold)`` below."""

    _config_keys = ("max_value", "negative_slope", "threshold")

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. Received: {negative_slope}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold
        self._build_at_init()

    def call(self, inputs):
        return activations.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)


class Softmax(ShapePreservingLayer):
    """Softmax along ``axis`` (default -1); an optional boolean ``mask`` excludes entries."""

    _config_keys = ("axis",)

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self._build_at_init()

    def call(self, inputs, mask=None):
        if mask is not None:
            inputs = inputs + (1.0 - math_ops.cast(mask, inputs.dtype)) * -1e9
        return nn.softmax(inputs, axis=self.axis)


class LeakyReLU(ShapePreservingLayer):
    _config_keys = ("alpha",)

    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self._build_at_init()

    def call(self, inputs):
        return nn.leaky_relu(inputs, alpha=self.alpha)


class ELU(ShapePreservingLayer):
    _config_keys = ("alpha",)

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self._build_at_init()

    def call(self, inputs):
        return activations.elu(inputs, self.alpha)
