"""MaxPooling1D, MaxPooling2D and MaxPooling3D."""

from ....ops import pool_nd_ops
from ..convolutional.base_conv import from_channels_last, to_channels_last
from .base_pooling import _Pooling


class MaxPooling1D(_Pooling):
    rank = 1

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)

    _pool_op = "max_pool1d"


class MaxPooling2D(_Pooling):
    """Maximum over ``pool_size`` windows (default 2x2, strides = pool_size, 'valid')."""

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)

    _pool_op = "max_pool2d"


class MaxPooling3D(_Pooling):
    """Maximum over ``pool_size`` windows of ``(batch, d, h, w, channels)`` inputs."""

    rank = 3
    _pool_op = None

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)

    def call(self, inputs):
        x = self._cl(inputs)
        out = pool_nd_ops.max_pool3d(x, list(self.pool_size), list(self.strides), self.padding.upper())
        return from_channels_last(out, self.data_format, 3)

    def _cl(self, inputs):
        return to_channels_last(inputs, self.data_format, 3)


MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
MaxPool3D = MaxPooling3D
