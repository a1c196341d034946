"""Global max and average pooling over the steps (1-D), the image (2-D) or the volume (3-D)."""

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, math_ops, reduce_ops
from ...engine.base_layer import InputSpec, Layer
from .base_pooling import _GlobalPooling


class GlobalAveragePooling1D(_GlobalPooling):
    """Mean over the steps: (N, T, C) -> (N, C); with a mask (N, T), the mean of the unmasked steps."""

    rank = 1
    _reduce_op = "reduce_mean"

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        steps = 2 if self.data_format == "channels_first" else 1
        m = array_ops.expand_dims(math_ops.cast(mask, inputs.dtype), 3 - steps)
        total = reduce_ops.reduce_sum(inputs * m, axis=steps, keepdims=self.keepdims)
        count = reduce_ops.reduce_sum(m, axis=steps, keepdims=self.keepdims)
        return math_ops.divide_no_nan(total, count)

    def compute_mask(self, inputs, mask=None):
        return None


class GlobalMaxPooling1D(_GlobalPooling):
    rank = 1
    _reduce_op = "reduce_max"


class GlobalAveragePooling2D(_GlobalPooling):
    """Mean over the spatial axes: (N, H, W, C) -> (N, C)."""

    _reduce_op = "reduce_mean"


class GlobalMaxPooling2D(_GlobalPooling):
    """Maximum over the spatial axes: (N, H, W, C) -> (N, C)."""

    _reduce_op = "reduce_max"


class _GlobalPooling3D(Layer):
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs):
        axes = [2, 3, 4] if self.data_format == "channels_first" else [1, 2, 3]
        return type(self)._reduce(inputs, axis=axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if self.keepdims:
            return TensorShape([dims[0], dims[1], 1, 1, 1] if self.data_format == "channels_first"
                               else [dims[0], 1, 1, 1, dims[-1]])
        return TensorShape([dims[0], dims[1] if self.data_format == "channels_first" else dims[-1]])

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


class GlobalMaxPooling3D(_GlobalPooling3D):
    """Maximum over the three spatial dimensions."""

    _reduce = staticmethod(reduce_ops.reduce_max)


class GlobalAveragePooling3D(_GlobalPooling3D):
    """Mean over the three spatial dimensions."""

    _reduce = staticmethod(reduce_ops.reduce_mean)


GlobalAvgPool1D = GlobalAveragePooling1D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D
GlobalAvgPool3D = GlobalAveragePooling3D
