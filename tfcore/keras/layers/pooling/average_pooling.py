"""AveragePooling1D, AveragePooling2D and AveragePooling3D."""

from ....ops import pool_nd_ops
from ..convolutional.base_conv import from_channels_last
from .base_pooling import _Pooling
from .max_pooling import MaxPooling3D


class AveragePooling1D(_Pooling):
    rank = 1

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)

    _pool_op = "avg_pool1d"


class AveragePooling2D(_Pooling):
    """Mean over ``pool_size`` windows ('same' padding averages only the valid entries, as TF)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)

    _pool_op = "avg_pool2d"


class AveragePooling3D(MaxPooling3D):
    """Mean over ``pool_size`` windows ('same' averages only the non-padding elements)."""

    def call(self, inputs):
        out = pool_nd_ops.avg_pool3d(self._cl(inputs), list(self.pool_size), list(self.strides),
                                      self.padding.upper())
        return from_channels_last(out, self.data_format, 3)


AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
AvgPool3D = AveragePooling3D
