"""Depthwise convolutions: DepthwiseConv1D (kernel ``(kw, in, depth_multiplier)``) and DepthwiseConv2D
(kernel ``(kh, kw, in, depth_multiplier)``).
"""

from .... import nn
from ....ops import array_ops, conv_ops
from ...engine.base_layer import InputSpec
from .._weights import add_bias, add_role_weight, initializers_config, set_weight_args
from .conv import Conv1D, Conv2D


class DepthwiseConv1D(Conv1D):
    """Per-channel 1-D convolution: ``depth_multiplier`` outputs per input channel."""

    _keras3_weight_attributes = {"depthwise_kernel": "kernel"}

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
