"""More convolution and shape layers: Conv1DTranspose, Conv3D, Conv3DTranspose, SeparableConv1D,
DepthwiseConv1D, 3-D pooling (local and global), Cropping1D/2D/3D, ZeroPadding1D/3D, UpSampling1D/2D/3D.

Kernels keep TF's layouts: Conv3D ``(kd, kh, kw, in, filters)``, Conv1DTranspose ``(kw, filters, in)``,
Conv3DTranspose ``(kd, kh, kw, filters, in)``, depthwise 1-D ``(kw, in, depth_multiplier)``, separable
1-D pointwise ``(1, in * depth_multiplier, filters)``.
"""

from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, conv_nd_ops, conv_ops, pool_nd_ops, reduce_ops
from ..engine.base_layer import InputSpec, Layer
from ._weights import add_bias, add_role_weight, initializers_config, set_weight_args
from .convolutional import (
    Conv1D,
    _Conv,
    deconv_output_length,
    from_channels_last,
    normalize_tuple,
    pack_shape,
    spatial_dims,
)
from .pooling import _Pooling


class Conv3D(_Conv):
    """3-D convolution over ``(batch, d, h, w, channels)``: kernel ``kernel_size + (in_channels, filters)``."""

    rank = 3

    def build(self, input_shape):
        cin = self._in_channels(input_shape)
        if self.groups != 1:
            raise ValueError("Conv3D: groups > 1 is not supported by tfcore")
        self._add_kernel_and_bias(self.kernel_size + (cin, self.filters), self.filters)
        self.input_spec = InputSpec(min_ndim=5, axes={self._channel_axis: cin})
        self.built = True

    def call(self, inputs):
        if self.padding not in ("valid", "same"):
            raise ValueError(f"Conv3D supports padding 'valid' or 'same', got {self.padding!r}")
        x = self._to_nhwc(inputs)
        out = conv_nd_ops.conv3d(x, self.kernel, list(self.strides), self.padding.upper(),
                                  dilations=list(self.dilation_rate))
        return self._from_nhwc(self._bias_act(out))


class _ConvTranspose(_Conv):
    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, **kwargs)
        self.output_padding = None if output_padding is None else normalize_tuple(output_padding, self.rank,
                                                                                   "output_padding")
        if self.output_padding is not None:
            for p, s in zip(self.output_padding, self.strides):
                if p >= s:
                    raise ValueError(f"Strides {self.strides} must be greater than output padding "
                                     f"{self.output_padding}.")

    def build(self, input_shape):
        cin = self._in_channels(input_shape)
        self._add_kernel_and_bias(self.kernel_size + (self.filters, cin), self.filters)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: cin})
        self.built = True

    def _out_spatial(self, spatial):
        op = self.output_padding or (None,) * self.rank
        return [deconv_output_length(d, k, self.padding, p, s, r) for d, k, p, s, r in
                zip(spatial, self.kernel_size, op, self.strides, self.dilation_rate)]

    def call(self, inputs):
        x = self._to_nhwc(inputs)
        dims = x.shape.as_list()
        out_shape = [dims[0]] + self._out_spatial(dims[1:-1]) + [self.filters]
        out = conv_nd_ops.conv_transpose(x, self.kernel, out_shape, list(self.strides), self.padding.upper(),
                                          dilations=list(self.dilation_rate))
        return self._from_nhwc(self._bias_act(out))

    def get_config(self):
        config = super().get_config()
        config["output_padding"] = self.output_padding
        return config


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution; kernel ``kernel_size + (filters, in_channels)``."""

    rank = 1


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution; kernel ``kernel_size + (filters, in_channels)``."""

    rank = 3


class DepthwiseConv1D(Conv1D):
    """Per-channel 1-D convolution: ``depth_multiplier`` outputs per input channel."""

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(None, kernel_size, strides=strides, padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        set_weight_args(self, "depthwise", depthwise_initializer, depthwise_regularizer, depthwise_constraint)

    def build(self, input_shape):
        cin = self._in_channels(input_shape)
        self.depthwise_kernel = add_role_weight(self, "depthwise", self.kernel_size + (cin, self.depth_multiplier),
                                                name="depthwise_kernel")
        self.bias = add_bias(self, (cin * self.depth_multiplier,))
        self.built = True

    def _depthwise(self, x):
        """``(N, W, C)`` -> ``(N, W', C * depth_multiplier)`` through a 2-D depthwise convolution of height 1."""
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = array_ops.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        out = conv_ops.depthwise_conv2d(array_ops.expand_dims(x, 1), array_ops.expand_dims(self.depthwise_kernel, 0),
                                        strides=[1, 1, self.strides[0], 1], padding=padding.upper(),
                                        dilations=[1, self.dilation_rate[0]])
        return array_ops.squeeze(out, [1])

    def call(self, inputs):
        return self._from_nhwc(self._bias_act(self._depthwise(self._to_nhwc(inputs))))

    def _out_channels(self, input_shape):
        return self._in_channels(input_shape) * self.depth_multiplier

    def get_config(self):
        config = super().get_config()
        for key in ("filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key, None)
        config.update({"depth_multiplier": self.depth_multiplier, **initializers_config(self, ("depthwise",))})
        return config


class SeparableConv1D(DepthwiseConv1D):
    """Depthwise 1-D convolution followed by a pointwise (kernel size 1) convolution to ``filters``."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(kernel_size, strides=strides, padding=padding, depth_multiplier=depth_multiplier,
                         data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer, depthwise_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint, bias_constraint=bias_constraint, **kwargs)
        self.filters = int(filters)
        set_weight_args(self, "pointwise", pointwise_initializer, pointwise_regularizer, pointwise_constraint)

    def build(self, input_shape):
        cin = self._in_channels(input_shape)
        self.depthwise_kernel = add_role_weight(self, "depthwise", self.kernel_size + (cin, self.depth_multiplier),
                                                name="depthwise_kernel")
        self.pointwise_kernel = add_role_weight(self, "pointwise", (1, cin * self.depth_multiplier, self.filters),
                                                name="pointwise_kernel")
        self.bias = add_bias(self, (self.filters,))
        self.built = True

    def call(self, inputs):
        x = self._depthwise(self._to_nhwc(inputs))
        out = conv_ops.conv1d(x, self.pointwise_kernel, 1, "VALID")
        return self._from_nhwc(self._bias_act(out))

    def _out_channels(self, input_shape):
        return self.filters

    def get_config(self):
        config = super().get_config()
        config["filters"] = self.filters
        config.update(initializers_config(self, ("pointwise",)))
        return config


# -- 3-D pooling ---------------------------------------------------------------------------------------------

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
        from .convolutional import to_channels_last

        return to_channels_last(inputs, self.data_format, 3)


class AveragePooling3D(MaxPooling3D):
    """Mean over ``pool_size`` windows ('same' averages only the non-padding elements)."""

    def call(self, inputs):
        out = pool_nd_ops.avg_pool3d(self._cl(inputs), list(self.pool_size), list(self.strides),
                                      self.padding.upper())
        return from_channels_last(out, self.data_format, 3)


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


# -- cropping, padding, upsampling ----------------------------------------------------------------------------------

def _pairs(value, n, name):
    if isinstance(value, int):
        return ((value, value),) * n
    value = tuple(value)
    if len(value) == n and all(isinstance(v, int) for v in value):
        return tuple((v, v) for v in value)
    if len(value) == 2 and n == 1 and all(isinstance(v, int) for v in value):
        return (tuple(value),)
    if len(value) == n and all(len(v) == 2 for v in value):
        return tuple(tuple(int(x) for x in v) for v in value)
    raise ValueError(f"`{name}` should be an int, a tuple of {n} ints, or a tuple of {n} tuples of 2 ints. "
                     f"Received: {name}={value}")


class _Cropping(Layer):
    rank = 1

    def __init__(self, cropping, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, self.rank, "cropping")
        self.data_format = "channels_last" if self.rank == 1 else (data_format or "channels_last")
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _spatial_axes(self):
        return list(range(2, self.rank + 2)) if self.data_format == "channels_first" else list(range(1, self.rank + 1))

    def call(self, inputs):
        sl = [slice(None)] * inputs.ndim
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            n = inputs.shape[axis]
            if a + b >= n:
                raise ValueError(f"Cropping {self.cropping} leaves nothing of an input of shape "
                                 f"{inputs.shape.as_list()}")
            sl[axis] = slice(a, n - b)
        return inputs[tuple(sl)]

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            if dims[axis] is not None:
                dims[axis] -= a + b
        return TensorShape(dims)

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["cropping"] = self.cropping if self.rank > 1 else self.cropping[0]
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class Cropping1D(_Cropping):
    """Crop ``cropping`` steps (int or (start, end)) off the time axis of ``(batch, steps, features)``."""

    rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, **kwargs)


class Cropping2D(_Cropping):
    """Crop rows and columns: int, (h, w), or ((top, bottom), (left, right))."""

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crop the three spatial dimensions: int, 3 ints, or 3 (start, end) pairs."""

    rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class _ZeroPadding(_Cropping):
    def call(self, inputs):
        pads = [[0, 0]] * inputs.ndim
        for axis, pair in zip(self._spatial_axes(), self.cropping):
            pads[axis] = list(pair)
        return array_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            if dims[axis] is not None:
                dims[axis] += a + b
        return TensorShape(dims)

    def get_config(self):
        config = super().get_config()
        config["padding"] = config.pop("cropping")
        return config


class ZeroPadding1D(_ZeroPadding):
    """Pad the time axis with zeros: int or (start, end)."""

    rank = 1

    def __init__(self, padding=1, **kwargs):
        super().__init__(padding, **kwargs)


class ZeroPadding3D(_ZeroPadding):
    """Pad the three spatial dimensions with zeros."""

    rank = 3

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


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
        from ...ops import image_ops
        from .convolutional import to_channels_last

        x = to_channels_last(inputs, self.data_format, 2)
        h, w = x.shape[1], x.shape[2]
        out = image_ops.resize(x, [h * self.size[0], w * self.size[1]], method=self.interpolation)
        if out.dtype != inputs.dtype:
            from ...ops import math_ops

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


Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D
GlobalAvgPool3D = GlobalAveragePooling3D
