"""Conv1D, Conv2D and Conv3D."""

from .... import nn
from ....framework.tensor import Tensor
from ....ops import array_ops, conv_nd_ops, conv_ops, fused_ops
from ... import activations
from ...engine.base_layer import InputSpec
from ...mixed_precision.autocast_variable import read_dtype
from .base_conv import _Conv


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


Convolution2D = Conv2D
Convolution1D = Conv1D
Convolution3D = Conv3D
