"""``tf.keras.layers``."""

from ..engine.base_layer import InputSpec, Layer
from ..engine.input_layer import Input, InputLayer
from .activation import ELU, LeakyReLU, ReLU, Softmax
from .convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Convolution1D,
    Convolution2D,
    Convolution2DTranspose,
    DepthwiseConv2D,
    SeparableConv2D,
    SeparableConvolution2D,
    ZeroPadding2D,
)
from .core import Activation, Dense, Dropout, Flatten, Lambda, Rescaling, Reshape
from .embeddings import Embedding
from .merging import (
    Add,
    Average,
    Concatenate,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    maximum,
    minimum,
    multiply,
    subtract,
)
from .normalization import BatchNormalization, LayerNormalization
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AvgPool1D,
    AvgPool2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPool1D,
    MaxPool2D,
    MaxPooling1D,
    MaxPooling2D,
)
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell
from .convolutional_extra import (
    AveragePooling3D,
    AvgPool3D,
    Conv1DTranspose,
    Conv3D,
    Conv3DTranspose,
    Convolution1DTranspose,
    Convolution3D,
    Convolution3DTranspose,
    Cropping1D,
    Cropping2D,
    Cropping3D,
    DepthwiseConv1D,
    GlobalAveragePooling3D,
    GlobalAvgPool3D,
    GlobalMaxPool3D,
    GlobalMaxPooling3D,
    MaxPool3D,
    MaxPooling3D,
    SeparableConv1D,
    SeparableConvolution1D,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding3D,
)
from .misc_extra import (
    ActivityRegularization,
    AlphaDropout,
    Dot,
    GaussianDropout,
    GaussianNoise,
    Identity,
    Permute,
    PReLU,
    RepeatVector,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
    UnitNormalization,
    dot,
)
from .pooling_extra import (
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
    SpectralNormalization,
    ThresholdedReLU,
    Wrapper,
)
from .recurrent_extra import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D, StackedRNNCells
from .wrappers import Bidirectional, TimeDistributed


def serialize(layer):
    """``{'class_name': ..., 'config': layer.get_config()}``."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def deserialize(config, custom_objects=None):
    """Recreate a layer from :func:`serialize`'s output (custom classes through ``custom_objects``)."""
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or globals().get(name)
    if cls is None:
        from .. import models
        cls = getattr(models, name, None)
    if cls is None or not isinstance(cls, type):
        raise ValueError(f"Unknown layer: '{name}'. Please ensure you are using a `keras.utils.custom_object_scope` "
                         "and that this object is included in the scope.")
    return cls.from_config(dict(config["config"]))
