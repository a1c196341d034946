"""Reshaping layers (Keras 3's ``keras/layers/reshaping``): flatten, reshape, cropping, padding,
up-sampling, permutation, repetition."""

from .flatten import Flatten
from .reshape import Reshape
from .cropping import Cropping1D, Cropping2D, Cropping3D
from .zero_padding import ZeroPadding1D, ZeroPadding2D, ZeroPadding3D
from .up_sampling import UpSampling1D, UpSampling2D, UpSampling3D
from .permute import Permute
from .repeat_vector import RepeatVector
