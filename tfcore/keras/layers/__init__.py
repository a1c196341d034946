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
from .attention import AdditiveAttention, Attention, MultiHeadAttention
from .core import Activation, Dense, Dropout, Flatten, Lambda, Rescaling, Reshape
from .einsum_dense import EinsumDense
from .embeddings import Embedding
from .group_normalization import GroupNormalization, RMSNormalization
from .image_augmentation import (
    RandomBrightness,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomRotation,
    RandomTranslation,
    RandomZoom,
)
from .image_preprocessing import CenterCrop, Resizing
from .lookup import IntegerLookup, StringLookup
from .masking import Masking
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
from .preprocessing import CategoryEncoding, Discretization, Hashing, Normalization
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell
from .text_vectorization import TextVectorization
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

from .serialization import deserialize, register, serialize

register(*(v for v in list(globals().values()) if isinstance(v, type) and issubclass(v, Layer)))
