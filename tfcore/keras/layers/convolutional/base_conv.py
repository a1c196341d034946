"""The base of the convolution layers (``_Conv``: weights, ``call`` through the conv ops, config) and the
geometry helpers the convolution, pooling, reshaping and ConvLSTM layers share (``normalize_tuple``,
output lengths, ``channels_first`` <-> ``channels_last``).

Kernels follow TF's layouts: Conv2D ``(kh, kw, in, filters)``, Conv2DTranspose ``(kh, kw, filters, in)``,
depthwise ``(kh, kw, in, depth_multiplier)``, pointwise ``(1, 1, in * depth_multiplier, filters)``,
Conv3D ``(kd, kh, kw, in, filters)``. ``channels_first`` inputs are transposed to channels-last around the op.
"""

from .... import nn
from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ... import activations
from ...engine.base_layer import InputSpec, Layer
from .._weights import add_bias, add_role_weight, set_weight_args, weights_config


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

    # the attribute Keras 3 keeps a weight in, which names it in checkpoints (saving/graph.py)
    _keras3_weight_attributes = {"kernel": "_kernel"}

    rank = 2

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
