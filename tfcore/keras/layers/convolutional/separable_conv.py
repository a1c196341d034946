"""Separable convolutions (a depthwise then a pointwise convolution): SeparableConv1D (pointwise kernel
``(1, in * depth_multiplier, filters)``) and SeparableConv2D (``(1, 1, in * depth_multiplier, filters)``).
"""

from .... import nn
from ....ops import conv_ops
from ...engine.base_layer import InputSpec
from .._weights import add_bias, add_role_weight, initializers_config, set_weight_args
from .conv import Conv2D
from .depthwise_conv import DepthwiseConv1D


class SeparableConv1D(DepthwiseConv1D):
    """Depthwise 1-D convolution followed by a pointwise (kernel size 1) convolution to ``filters``."""

    _keras3_weight_attributes = {}

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


SeparableConvolution2D = SeparableConv2D
SeparableConvolution1D = SeparableConv1D
