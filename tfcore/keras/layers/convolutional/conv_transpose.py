"""Transposed convolutions: Conv1DTranspose, Conv2DTranspose, Conv3DTranspose.

Kernels keep TF's layouts: Conv1DTranspose ``(kw, filters, in)``, Conv2DTranspose ``(kh, kw, filters, in)``,
Conv3DTranspose ``(kd, kh, kw, filters, in)``.
"""

from .... import nn
from ....ops import conv_nd_ops
from ...engine.base_layer import InputSpec
from .base_conv import _Conv, deconv_output_length, normalize_tuple
from .conv import Conv2D


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


class _ConvTranspose(_Conv):
    _keras3_weight_attributes = {}

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


Convolution2DTranspose = Conv2DTranspose
Conv2DTransposed = Conv2DTranspose
Convolution1DTranspose = Conv1DTranspose
Convolution3DTranspose = Conv3DTranspose
