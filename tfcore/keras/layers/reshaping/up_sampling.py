"""UpSampling1D, UpSampling2D and UpSampling3D: repeat steps, pixels or voxels."""

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, image_ops, math_ops
from ...engine.base_layer import InputSpec, Layer
from ..convolutional.base_conv import from_channels_last, normalize_tuple, pack_shape, spatial_dims, to_channels_last


class _UpSampling(Layer):
    rank = 1

    def __init__(self, size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = normalize_tuple(size, self.rank, "size")
        self.data_format = "channels_last" if self.rank == 1 else (data_format or "channels_last")
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs):
        x = inputs
        axes = list(range(2, self.rank + 2)) if self.data_format == "channels_first" else \
            list(range(1, self.rank + 1))
        for axis, s in zip(axes, self.size):
            x = array_ops.repeat(x, s, axis=axis)
        return x

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        spatial = [None if d is None else d * s for d, s in zip(spatial_dims(input_shape, self.data_format),
                                                                 self.size)]
        channels = dims[1] if self.data_format == "channels_first" else dims[-1]
        return pack_shape(dims[0], spatial, channels, self.data_format)

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["size"] = self.size[0] if self.rank == 1 else self.size
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class UpSampling1D(_UpSampling):
    """Repeat each time step ``size`` times."""

    rank = 1

    def __init__(self, size=2, **kwargs):
        super().__init__(size, **kwargs)


class UpSampling2D(_UpSampling):
    """Repeat rows and columns (``interpolation='nearest'``; 'bilinear' resizes)."""

    rank = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(size, data_format, **kwargs)
        if interpolation not in ("nearest", "bilinear", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                                 "mitchellcubic"):
            raise ValueError(f"`interpolation` argument should be one of: 'nearest', 'bilinear', ... "
                             f"Received: interpolation={interpolation}")
        self.interpolation = interpolation

    def call(self, inputs):
        if self.interpolation == "nearest":
            return super().call(inputs)

        x = to_channels_last(inputs, self.data_format, 2)
        h, w = x.shape[1], x.shape[2]
        out = image_ops.resize(x, [h * self.size[0], w * self.size[1]], method=self.interpolation)
        if out.dtype != inputs.dtype:
            out = math_ops.cast(out, inputs.dtype)
        return from_channels_last(out, self.data_format, 2)

    def get_config(self):
        config = super().get_config()
        config["interpolation"] = self.interpolation
        return config


class UpSampling3D(_UpSampling):
    """Repeat the three spatial dimensions."""

    rank = 3

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(size, data_format, **kwargs)
