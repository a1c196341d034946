"""SpatialDropout1D/2D/3D: drop whole feature maps (channels) with probability ``rate`` while training."""

from ....ops import nn_ops
from ...engine.base_layer import InputSpec
from .noise import _Noise


class SpatialDropout1D(_Noise):
    """Drop whole feature maps (channels) of ``(batch, steps, channels)`` inputs with probability ``rate``."""

    def __init__(self, rate, seed=None, name=None, dtype=None, **kwargs):
        super().__init__(rate, seed, name=name, dtype=dtype, **kwargs)
        self.rate = rate
        self.input_spec = InputSpec(ndim=3)

    def _noise_shape(self, inputs):
        s = inputs.shape.as_list()
        return [s[0], 1, s[2]]

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        return nn_ops.dropout(inputs, rate=self.rate, noise_shape=self._noise_shape(inputs), seed=self.seed)

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


class SpatialDropout2D(SpatialDropout1D):
    """Drop whole channels of 4-D inputs (``data_format`` picks the channel axis)."""

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None, **kwargs):
        super().__init__(rate, seed, name=name, dtype=dtype, **kwargs)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(ndim=4)

    def _noise_shape(self, inputs):
        s = inputs.shape.as_list()
        if self.data_format == "channels_first":
            return [s[0], s[1]] + [1] * (len(s) - 2)
        return [s[0]] + [1] * (len(s) - 2) + [s[-1]]

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


class SpatialDropout3D(SpatialDropout2D):
    """Drop whole channels of 5-D inputs."""

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None, **kwargs):
        super().__init__(rate, data_format, seed, name=name, dtype=dtype, **kwargs)
        self.input_spec = InputSpec(ndim=5)
