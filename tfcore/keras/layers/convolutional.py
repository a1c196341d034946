"""Convolution layers: Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D, SeparableConv2D, ZeroPadding2D.

Kernels follow TF's layouts: Conv2D ``(kh, kw, in, filters)``, Conv2DTranspose
``(kh, kw, filters, in)``, depthwise ``(kh, kw, in, depth_multiplier)``, pointwise
``(1, 1, in * depth_multiplier, filters)``. ``channels_first`` inputs are transposed to
NHWC around the op.
"""

from ... import nn
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, conv_ops, fused_ops
from .. import activations
from ..engine.base_layer import InputSpec, Layer
from ..mixed_precision.autocast_variable import read_dtype
from ._weights import add_bias, add_role_weight, initializers_config, set_weight_args, weights_config


def normalize_tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received: {value}")
    return value


def normalize_padding(padding):
    p = padding.lower() if isinstance(padding, str) else padding
    if p not in {"valid", "same", "causal", "full"}:
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: {padding}")
    return p


def conv_output_length(length, filter_size, padding, stride, dilation=1):
    """Keras's conv_utils.conv_output_length."""
    if length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        out = length
    elif padding == "valid":
        out = length - dilated + 1
    else:
        out = length + dilated - 1
    return (out + stride - 1) // stride


def deconv_output_length(length, filter_size, padding, output_padding=None, stride=0, dilation=1):
    """Keras's conv_utils.deconv_output_length."""
    if length is None:
        return None
    filter_size = filter_size + (filter_size - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(filter_size - stride, 0)
        if padding == "full":
            return length * stride - (stride + filter_size - 2)
        return length * stride
    pad = {"same": filter_size // 2, "valid": 0, "full": filter_size - 1}[padding]
    return (length - 1) * stride + filter_size - 2 * pad + output_padding


def to_channels_last(x, data_format, rank):
    """``channels_first`` (N, C, *spatial) -> (N, *spatial, C); ``channels_last`` unchanged."""
    if data_format == "channels_first":
        return array_ops.transpose(x, [0] + list(range(2, rank + 2)) + [1])
    return x


def from_channels_last(x, data_format, rank):
    """The inverse of :func:`to_channels_last`."""
    if data_format == "channels_first":
        return array_ops.transpose(x, [0, rank + 1] + list(range(1, rank + 1)))
    return x


def spatial_dims(input_shape, data_format):
    """The spatial dimensions (a list, None where unknown) of an input shape."""
    dims = TensorShape(input_shape).as_list()
    return dims[2:] if data_format == "channels_first" else dims[1:-1]


def pack_shape(batch, spatial, channels, data_format):
    """The TensorShape of ``batch``, ``spatial`` dimensions and ``channels`` in ``data_format``."""
    if data_format == "channels_first":
        return TensorShape([batch, channels] + list(spatial))
    return TensorShape([batch] + list(spatial) + [channels])


class _Conv(Layer):
    """Shared argument handling of the convolution layers (rank 1 or 2)."""

    rank = 2

    # the attribute Keras 3 keeps a weight in, which names it in checkpoints (saving/graph.py)
    _keras3_weight_attributes = {"kernel": "_kernel"}

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        n = self.rank
        self.filters = int(filters) if filters is not None else None
        if self.filters is not None and self.filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. "
                             f"Received filters={filters}.")
        self.kernel_size = normalize_tuple(kernel_size, n, "kernel_size")
        self.strides = normalize_tuple(strides, n, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = data_format or "channels_last"
        self.dilation_rate = normalize_tuple(dilation_rate, n, "dilation_rate")
        self.groups = groups
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.input_spec = InputSpec(min_ndim=n + 2)

    @property
    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def _in_channels(self, input_shape):
        c = TensorShape(input_shape)[self._channel_axis]
        if c is None:
            raise ValueError("The channel dimension of the inputs should be defined. The input_shape received is "
                             f"{input_shape}, where axis {self._channel_axis} (0-based) is the channel dimension, "
                             "which found to be `None`.")
        return c

    def _to_nhwc(self, x):
        return to_channels_last(x, self.data_format, self.rank)

    def _from_nhwc(self, x):
        return from_channels_last(x, self.data_format, self.rank)

    def _bias_act(self, out):
        if self.use_bias:
            out = nn.bias_add(out, self.bias)
        return self.activation(out) if self.activation is not activations.linear else out

    def _out_spatial(self, spatial):
        return [conv_output_length(d, k, self.padding, s, r) for d, k, s, r in
                zip(spatial, self.kernel_size, self.strides, self.dilation_rate)]

    def _out_channels(self, input_shape):
        return self.filters

    def compute_output_shape(self, input_shape):
        spatial = self._out_spatial(spatial_dims(input_shape, self.data_format))
        return pack_shape(TensorShape(input_shape)[0], spatial, self._out_channels(input_shape), self.data_format)

    def _add_kernel_and_bias(self, kernel_shape, bias_size):
        self.kernel = add_role_weight(self, "kernel", kernel_shape)
        self.bias = add_bias(self, (bias_size,))

    def _add_depthwise_kernel(self, cin):
        """DepthwiseConv2D's and SeparableConv2D's ``(kh, kw, in, depth_multiplier)`` kernel."""
        self.depthwise_kernel = add_role_weight(self, "depthwise", self.kernel_size + (cin, self.depth_multiplier),
                                                name="depthwise_kernel")

    def get_config(self):
        config = super().get_config()
        config.update({
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format, "dilation_rate": self.dilation_rate,
            "groups": self.groups, "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
        })
        config.update(weights_config(self, ("kernel", "bias")))
        return config


class Conv2D(_Conv):
    """2-D convolution over NHWC inputs: kernel ``kernel_size + (in_channels // groups, filters)``."""

    def build(self, input_shape):
        cin = self._in_channels(input_shape)
        if cin % self.groups or self.filters % self.groups:
            raise ValueError(f"The number of input channels ({cin}) and filters ({self.filters}) must be divisible "
                             f"by the number of groups ({self.groups}).")
        if self.groups != 1:
            raise NotImplementedError("Grouped convolution (groups > 1) is not supported by tfcore yet")
        self._add_kernel_and_bias(self.kernel_size + (cin, self.filters), self.filters)
        self.input_spec = InputSpec(min_ndim=4, axes={self._channel_axis: cin})
        self.built = True

    def call(self, inputs):
        if self.padding not in ("valid", "same"):
            raise ValueError(f"Conv2D supports padding 'valid' or 'same', got {self.padding!r}")
        x = self._to_nhwc(inputs)
        act = self.activation
        if self.use_bias and type(x) is Tensor and x._dtype is read_dtype(self.kernel) is read_dtype(self.bias):
            # convolution, bias and relu as ONE op (TF's grappler fuses them the same way)
            _, attrs = conv_ops._conv_call("Conv2D", list(self.strides), self.padding.upper(), "NHWC",
                                           list(self.dilation_rate))
            out = fused_ops.fused_conv2d(x, self.kernel, self.bias, attrs, relu=act is activations.relu)
            if act is not activations.relu and act is not activations.linear:
                out = act(out)
            return self._from_nhwc(out)
        out = nn.conv2d(x, self.kernel, strides=list(self.strides), padding=self.padding.upper(),
                           dilations=list(self.dilation_rate))
        return self._from_nhwc(self._bias_act(out))


class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels); 'causal' pads on the left."""

    rank = 1

    def build(self, input_shape):
        cin = self._in_channels(input_shape)
        self._add_kernel_and_bias(self.kernel_size + (cin, self.filters), self.filters)
        self.built = True

    def call(self, inputs):
        x = self._to_nhwc(inputs)
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = array_ops.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        out = nn.conv1d(x, self.kernel, stride=self.strides[0], padding=padding.upper(),
                           dilations=self.dilation_rate[0])
        return self._from_nhwc(self._bias_act(out))


class Conv2DTranspose(Conv2D):
    """Transposed ("de"-)convolution; kernel ``kernel_size + (filters, in_channels)``."""

    _keras3_weight_attributes = {}

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None,
                 data_format=None, dilation_rate=(1, 1), **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, **kwargs)
        self.output_padding = None if output_padding is None else normalize_tuple(output_padding, 2,
                                                                                   "output_padding")
        if self.output_padding is not None:
            for p, s in zip(self.output_padding, self.strides):
                if p >= s:
                    raise ValueError(f"Strides {self.strides} must be greater than output padding "
                                     f"{self.output_padding}.")

    def build(self, input_shape):
        cin = self._in_channels(input_shape)
        self._add_kernel_and_bias(self.kernel_size + (self.filters, cin), self.filters)
        self.input_spec = InputSpec(ndim=4, axes={self._channel_axis: cin})
        self.built = True

    def _out_spatial(self, spatial):
        op = self.output_padding or (None, None)
        return [deconv_output_length(d, k, self.padding, p, s, r) for d, k, p, s, r in
                zip(spatial, self.kernel_size, op, self.strides, self.dilation_rate)]

    def call(self, inputs):
        x = self._to_nhwc(inputs)
        n, h, w = x.shape[0], x.shape[1], x.shape[2]
        oh, ow = self._out_spatial([h, w])
        out = nn.conv2d_transpose(x, self.kernel, output_shape=[n, oh, ow, self.filters],
                                     strides=list(self.strides), padding=self.padding.upper(),
                                     dilations=list(self.dilation_rate))
        return self._from_nhwc(self._bias_act(out))

    def get_config(self):
        config = super().get_config()
        config["output_padding"] = self.output_padding
        return config


class DepthwiseConv2D(Conv2D):
    """Per-channel convolution: ``depth_multiplier`` output channels per input channel."""

    _keras3_weight_attributes = {"depthwise_kernel": "kernel"}

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
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
        self._add_depthwise_kernel(cin)
        self.bias = add_bias(self, (cin * self.depth_multiplier,))
        self.input_spec = InputSpec(min_ndim=4, axes={self._channel_axis: cin})
        self.built = True

    def call(self, inputs):
        x = self._to_nhwc(inputs)
        out = nn.depthwise_conv2d(x, self.depthwise_kernel, strides=[1, *self.strides, 1],
                                     padding=self.padding.upper(), dilations=list(self.dilation_rate))
        return self._from_nhwc(self._bias_act(out))

    def _out_channels(self, input_shape):
        return self._in_channels(input_shape) * self.depth_multiplier

    def get_config(self):
        config = super().get_config()
        for key in ("filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key, None)
        config.update({"depth_multiplier": self.depth_multiplier, **initializers_config(self, ("depthwise",))})
        return config


class SeparableConv2D(Conv2D):
    """Depthwise convolution followed by a 1x1 pointwise convolution to ``filters`` channels."""

    _keras3_weight_attributes = {}

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        set_weight_args(self, "depthwise", depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        set_weight_args(self, "pointwise", pointwise_initializer, pointwise_regularizer, pointwise_constraint)

    def build(self, input_shape):
        cin = self._in_channels(input_shape)
        self._add_depthwise_kernel(cin)
        self.pointwise_kernel = add_role_weight(self, "pointwise", (1, 1, cin * self.depth_multiplier, self.filters),
                                                name="pointwise_kernel")
        self.bias = add_bias(self, (self.filters,))
        self.input_spec = InputSpec(ndim=4, axes={self._channel_axis: cin})
        self.built = True

    def call(self, inputs):
        x = self._to_nhwc(inputs)
        out = nn.separable_conv2d(x, self.depthwise_kernel, self.pointwise_kernel,
                                     strides=[1, *self.strides, 1], padding=self.padding.upper(),
                                     dilations=list(self.dilation_rate))
        return self._from_nhwc(self._bias_act(out))

    def get_config(self):
        config = super().get_config()
        for key in ("kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key, None)
        config.update({"depth_multiplier": self.depth_multiplier,
                       **initializers_config(self, ("depthwise", "pointwise"))})
        return config


class ZeroPadding2D(Layer):
    """Pad rows and columns with zeros: int, (h, w), or ((top, bottom), (left, right))."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        if isinstance(padding, int):
            self.padding = ((padding, padding), (padding, padding))
        elif len(padding) == 2 and all(isinstance(p, int) for p in padding):
            self.padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        elif len(padding) == 2:
            self.padding = tuple(tuple(int(v) for v in p) for p in padding)
            if any(len(p) != 2 for p in self.padding):
                raise ValueError(f"`padding` should have two elements. Received: padding={padding}")
        else:
            raise ValueError(f"`padding` should be either an int, a tuple of 2 ints (symmetric_height_pad, "
                             f"symmetric_width_pad), or a tuple of 2 tuples of 2 ints. Received: padding={padding}.")
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        (t, b), (lft, r) = self.padding
        if self.data_format == "channels_first":
            pads = [[0, 0], [0, 0], [t, b], [lft, r]]
        else:
            pads = [[0, 0], [t, b], [lft, r], [0, 0]]
        return array_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        (t, b), (lft, r) = self.padding
        hi, wi = (2, 3) if self.data_format == "channels_first" else (1, 2)
        if dims[hi] is not None:
            dims[hi] += t + b
        if dims[wi] is not None:
            dims[wi] += lft + r
        return TensorShape(dims)

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config


Convolution2D = Conv2D
Convolution2DTranspose = Conv2DTranspose
Conv2DTransposed = Conv2DTranspose
SeparableConvolution2D = SeparableConv2D
Convolution1D = Conv1D
