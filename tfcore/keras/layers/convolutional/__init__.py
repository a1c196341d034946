"""Convolution layers (Keras 3's ``keras/layers/convolutional``)."""

from .conv import Conv1D, Conv2D, Conv3D, Convolution1D, Convolution2D, Convolution3D
from .conv_transpose import (
    Conv1DTranspose,
    Conv2DTranspose,
    Conv2DTransposed,
    Conv3DTranspose,
    Convolution1DTranspose,
    Convolution2DTranspose,
    Convolution3DTranspose,
)
from .depthwise_conv import DepthwiseConv1D, DepthwiseConv2D
from .separable_conv import SeparableConv1D, SeparableConv2D, SeparableConvolution1D, SeparableConvolution2D
