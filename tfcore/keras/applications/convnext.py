"""``tf.keras.applications.convnext`` (Liu et al., 2022): ConvNeXtTiny/Small/Base/Large/XLarge.

ConvNeXtTiny has 28,589,128 parameters with the ImageNet top. Preprocessing (a Normalization with ImageNet
statistics, no weights) is part of the model, so :func:`preprocess_input` is the identity, as in Keras.
"""

import numpy as np

from ... import nn
from .. import initializers, layers
from ..engine.base_layer import Layer
from ..engine.model import Model
from ..engine.sequential import Sequential
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)

MODEL_CONFIGS = {
    "tiny": {"depths": [3, 3, 9, 3], "projection_dims": [96, 192, 384, 768], "default_size": 224},
    "small": {"depths": [3, 3, 27, 3], "projection_dims": [96, 192, 384, 768], "default_size": 224},
    "base": {"depths": [3, 3, 27, 3], "projection_dims": [128, 256, 512, 1024], "default_size": 224},
    "large": {"depths": [3, 3, 27, 3], "projection_dims": [192, 384, 768, 1536], "default_size": 224},
    "xlarge": {"depths": [3, 3, 27, 3], "projection_dims": [256, 512, 1024, 2048], "default_size": 224},
}


class StochasticDepth(Layer):
    """Drop path (Huang et al., 2016): in training, zero a whole sample's residual branch with probability
    ``drop_path_rate`` and scale the kept ones by ``1 / (1 - rate)``; the identity at inference."""

    def __init__(self, drop_path_rate, **kwargs):
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x, training=None):
        if not training or not self.drop_path_rate:
            return x
        # dropout with one keep/drop draw per sample: kept samples are scaled by 1 / (1 - rate)
        return nn.dropout(x, rate=self.drop_path_rate, noise_shape=[x.shape[0]] + [1] * (x.shape.rank - 1))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"drop_path_rate": self.drop_path_rate})
        return config


class LayerScale(Layer):
    """Multiplies its input by a learned per-channel ``gamma`` initialised to ``init_values``."""

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, input_shape):
        self.gamma = self.add_weight(name="gamma", shape=(self.projection_dim,),
                                     initializer=initializers.Constant(self.init_values), trainable=True)
        self.built = True

    def call(self, x):
        return x * self.gamma

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"init_values": self.init_values, "projection_dim": self.projection_dim})
        return config


def _convnext_block(inputs, projection_dim, drop_path_rate=0.0, layer_scale_init_value=1e-6, name=None):
    # Keras writes this as Conv2D(groups=projection_dim), kernel (7, 7, 1, C); tfcore's Conv2D has no grouped
    # convolution, so the same per-channel 7x7 convolution (same parameters) is a DepthwiseConv2D, kernel (7, 7, C, 1).
    x = layers.DepthwiseConv2D(kernel_size=7, padding="same", use_bias=True, name=name + "_depthwise_conv")(inputs)
    x = layers.LayerNormalization(epsilon=1e-6, name=name + "_layernorm")(x)
    x = layers.Dense(4 * projection_dim, name=name + "_pointwise_conv_1")(x)
    x = layers.Activation("gelu", name=name + "_gelu")(x)
    x = layers.Dense(projection_dim, name=name + "_pointwise_conv_2")(x)
    if layer_scale_init_value is not None:
        x = LayerScale(layer_scale_init_value, projection_dim, name=name + "_layer_scale")(x)
    if drop_path_rate:
        x = StochasticDepth(drop_path_rate, name=name + "_stochastic_depth")(x)
    else:
        x = layers.Activation("linear", name=name + "_identity")(x)
    return layers.Add(name=name + "_add")([inputs, x])


def ConvNeXt(depths, projection_dims, drop_path_rate=0.0, layer_scale_init_value=1e-6,  # noqa: N802
             default_size=224, model_name="convnext", include_preprocessing=True, include_top=True, weights=None,
             input_tensor=None, input_shape=None, pooling=None, classes=1000, classifier_activation="softmax"):
    """Keras's ConvNeXt: patchify stem (4x4/4 conv + LayerNorm), four stages of ConvNeXt blocks separated by
    LayerNorm + 2x2/2 convolutions, and a GAP + LayerNorm + Dense head."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    if include_preprocessing:
        x = layers.Normalization(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                 variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2],
                                 axis=3, name=model_name + "_prestem_normalization")(x)
    stem = Sequential([layers.Conv2D(projection_dims[0], kernel_size=4, strides=4, name=model_name + "_stem_conv"),
                       layers.LayerNormalization(epsilon=1e-6, name=model_name + "_stem_layernorm")],
                      name=model_name + "_stem")
    downsample_layers = [stem]
    for i in range(3):
        downsample_layers.append(Sequential(
            [layers.LayerNormalization(epsilon=1e-6, name=f"{model_name}_downsampling_layernorm_{i}"),
             layers.Conv2D(projection_dims[i + 1], kernel_size=2, strides=2,
                           name=f"{model_name}_downsampling_conv_{i}")],
            name=f"{model_name}_downsampling_block_{i}"))
    depth_drop_rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i in range(4):
        x = downsample_layers[i](x)
        for j in range(depths[i]):
            x = _convnext_block(x, projection_dims[i], depth_drop_rates[cur + j], layer_scale_init_value,
                                name=f"{model_name}_stage_{i}_block_{j}")
        cur += depths[i]
    if include_top:
        x = layers.GlobalAveragePooling2D(name=model_name + "_head_gap")(x)
        x = layers.LayerNormalization(epsilon=1e-6, name=model_name + "_head_layernorm")(x)
        x = layers.Dense(classes, activation=classifier_activation, name=model_name + "_head_dense")(x)
    else:
        x = imagenet_utils.pool(x, pooling, model_name + "_gap", model_name + "_gmp")
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    return imagenet_utils.finish(Model(inputs, x, name=model_name), weights)


def _variant(size, public):
    cfg = MODEL_CONFIGS[size]

    def build(model_name="convnext_" + size, include_top=True, include_preprocessing=True, weights=None,
              input_tensor=None, input_shape=None, pooling=None, classes=1000, classifier_activation="softmax"):
        return ConvNeXt(cfg["depths"], cfg["projection_dims"], drop_path_rate=0.0, layer_scale_init_value=1e-6,
                        default_size=cfg["default_size"], model_name=model_name,
                        include_preprocessing=include_preprocessing, include_top=include_top, weights=weights,
                        input_tensor=input_tensor, input_shape=input_shape, pooling=pooling, classes=classes,
                        classifier_activation=classifier_activation)
    build.__name__ = build.__qualname__ = public
    build.__doc__ = f"{public}: stages of {cfg['depths']} blocks, widths {cfg['projection_dims']}."
    return build


ConvNeXtTiny = _variant("tiny", "ConvNeXtTiny")
ConvNeXtSmall = _variant("small", "ConvNeXtSmall")
ConvNeXtBase = _variant("base", "ConvNeXtBase")
ConvNeXtLarge = _variant("large", "ConvNeXtLarge")
ConvNeXtXLarge = _variant("xlarge", "ConvNeXtXLarge")


def preprocess_input(x, data_format=None):
    """The identity: ConvNeXt models normalise their inputs themselves (``include_preprocessing=True``)."""
    return x
