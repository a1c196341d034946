"""The bases of the pooling layers: local windows (``_Pooling``) and global reductions (``_GlobalPooling``)."""

from .... import nn
from ....framework.tensor_shape import TensorShape
from ....ops import reduce_ops
from ...engine.base_layer import InputSpec, Layer
from ..convolutional.base_conv import (
    conv_output_length,
    from_channels_last,
    normalize_padding,
    normalize_tuple,
    pack_shape,
    spatial_dims,
    to_channels_last,
)


class _Pooling(Layer):
    rank = 2
    _pool_op = None  # the tf.nn function's name, e.g. "max_pool2d"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        n = self.rank
        self.pool_size = normalize_tuple(pool_size, n, "pool_size")
        self.strides = normalize_tuple(strides if strides is not None else self.pool_size, n, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(ndim=n + 2)
        self._build_at_init()

    def call(self, inputs):
        pool = getattr(nn, self._pool_op)
        out = pool(to_channels_last(inputs, self.data_format, self.rank), ksize=list(self.pool_size),
                   strides=list(self.strides), padding=self.padding.upper())
        return from_channels_last(out, self.data_format, self.rank)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        out = [conv_output_length(d, k, self.padding, s) for d, k, s in
               zip(spatial_dims(input_shape, self.data_format), self.pool_size, self.strides)]
        channels = dims[1] if self.data_format == "channels_first" else dims[-1]
        return pack_shape(dims[0], out, channels, self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update({"pool_size": self.pool_size, "strides": self.strides, "padding": self.padding,
                       "data_format": self.data_format})
        return config


class _GlobalPooling(Layer):
    rank = 2

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self._build_at_init()

    def _axes(self):
        return list(range(2, self.rank + 2)) if self.data_format == "channels_first" else list(range(1, self.rank + 1))

    _reduce_op = None  # the tf reduction's name, e.g. "reduce_mean"

    def call(self, inputs):
        return getattr(reduce_ops, self._reduce_op)(inputs, axis=self._axes(), keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        axes = self._axes()
        if self.keepdims:
            return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
        return TensorShape([d for i, d in enumerate(dims) if i not in axes])

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config
