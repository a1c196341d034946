"""``tf.keras.applications.efficientnet`` (Tan & Le, 2019): EfficientNetB0..B7.

EfficientNetB0 has 5,330,571 parameters with the ImageNet top (the input ``Normalization`` layer's mean,
variance and count included, as TF reports it). Preprocessing (Rescaling + Normalization) is part of the
model, so :func:`preprocess_input` is the identity, as in Keras.
"""

import copy
import math

from .. import initializers, layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)

DEFAULT_BLOCKS_ARGS = [
    {"kernel_size": 3, "repeats": 1, "filters_in": 32, "filters_out": 16, "expand_ratio": 1, "id_skip": True,
     "strides": 1, "se_ratio": 0.25},
    {"kernel_size": 3, "repeats": 2, "filters_in": 16, "filters_out": 24, "expand_ratio": 6, "id_skip": True,
     "strides": 2, "se_ratio": 0.25},
    {"kernel_size": 5, "repeats": 2, "filters_in": 24, "filters_out": 40, "expand_ratio": 6, "id_skip": True,
     "strides": 2, "se_ratio": 0.25},
    {"kernel_size": 3, "repeats": 3, "filters_in": 40, "filters_out": 80, "expand_ratio": 6, "id_skip": True,
     "strides": 2, "se_ratio": 0.25},
    {"kernel_size": 5, "repeats": 3, "filters_in": 80, "filters_out": 112, "expand_ratio": 6, "id_skip": True,
     "strides": 1, "se_ratio": 0.25},
    {"kernel_size": 5, "repeats": 4, "filters_in": 112, "filters_out": 192, "expand_ratio": 6, "id_skip": True,
     "strides": 2, "se_ratio": 0.25},
    {"kernel_size": 3, "repeats": 1, "filters_in": 192, "filters_out": 320, "expand_ratio": 6, "id_skip": True,
     "strides": 1, "se_ratio": 0.25},
]


def conv_kernel_initializer():
    return initializers.VarianceScaling(scale=2.0, mode="fan_out", distribution="truncated_normal")


def dense_kernel_initializer():
    return initializers.VarianceScaling(scale=1.0 / 3.0, mode="fan_out", distribution="uniform")


def _squeeze_excite(x, input_filters, filters, se_ratio, activation, name):
    """Keras's squeeze-and-excitation block of EfficientNet (V1 and V2 share it; the layer names are Keras's)."""
    filters_se = max(1, int(input_filters * se_ratio))
    se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=name + "se_reshape")(se)
    se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                       kernel_initializer=conv_kernel_initializer(), name=name + "se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                       kernel_initializer=conv_kernel_initializer(), name=name + "se_expand")(se)
    return layers.multiply([x, se], name=name + "se_excite")


def _block(inputs, activation="swish", drop_rate=0.0, name="", filters_in=32, filters_out=16, kernel_size=3,
           strides=1, expand_ratio=1, se_ratio=0.0, id_skip=True):
    """An inverted residual (MBConv) block with squeeze-and-excitation."""
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False, kernel_initializer=conv_kernel_initializer(),
                          name=name + "expand_conv")(inputs)
        x = layers.BatchNormalization(axis=3, name=name + "expand_bn")(x)
        x = layers.Activation(activation, name=name + "expand_activation")(x)
    else:
        x = inputs
    if strides == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size), name=name + "dwconv_pad")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding=conv_pad, use_bias=False,
                               depthwise_initializer=conv_kernel_initializer(), name=name + "dwconv")(x)
    x = layers.BatchNormalization(axis=3, name=name + "bn")(x)
    x = layers.Activation(activation, name=name + "activation")(x)
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, filters_in, filters, se_ratio, activation, name)
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False, kernel_initializer=conv_kernel_initializer(),
                      name=name + "project_conv")(x)
    x = layers.BatchNormalization(axis=3, name=name + "project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.add([x, inputs], name=name + "add")
    return x


def EfficientNet(width_coefficient, depth_coefficient, default_size, dropout_rate=0.2,  # noqa: N802
                 drop_connect_rate=0.2, depth_divisor=8, activation="swish", blocks_args="default",
                 model_name="efficientnet", include_top=True, weights=None, input_tensor=None, input_shape=None,
                 pooling=None, classes=1000, classifier_activation="softmax"):
    """Keras's compound-scaled EfficientNet: widths scaled by ``width_coefficient`` (rounded to
    ``depth_divisor``), block repeats by ``depth_coefficient`` (rounded up)."""
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)

    def round_filters(filters, divisor=depth_divisor):
        filters *= width_coefficient
        new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
        if new_filters < 0.9 * filters:
            new_filters += divisor
        return int(new_filters)

    def round_repeats(repeats):
        return int(math.ceil(depth_coefficient * repeats))

    x = layers.Rescaling(1.0 / 255.0)(x)
    x = layers.Normalization(axis=3)(x)
    x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=conv_kernel_initializer(), name="stem_conv")(x)
    x = layers.BatchNormalization(axis=3, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    for i, args in enumerate(blocks_args):
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(round_repeats(args.pop("repeats"))):
            if j > 0:
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = _block(x, activation, drop_connect_rate * b / blocks, name=f"block{i + 1}{chr(j + 97)}_", **args)
            b += 1

    x = layers.Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
                      kernel_initializer=conv_kernel_initializer(), name="top_conv")(x)
    x = layers.BatchNormalization(axis=3, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        x = layers.Dense(classes, activation=classifier_activation, kernel_initializer=dense_kernel_initializer(),
                         name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    return imagenet_utils.finish(Model(inputs, x, name=model_name), weights)


def _variant(width, depth, size, dropout, name):
    def build(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None, classes=1000,
              classifier_activation="softmax", **kwargs):
        return EfficientNet(width, depth, size, dropout, model_name=name, include_top=include_top,
                            weights=weights, input_tensor=input_tensor, input_shape=input_shape, pooling=pooling,
                            classes=classes, classifier_activation=classifier_activation)
    build.__name__ = build.__qualname__ = "EfficientNet" + name[-2:].upper()
    build.__doc__ = (f"EfficientNet-{name[-2:].upper()}: width x{width}, depth x{depth}, default input "
                     f"{size}x{size}, top dropout {dropout}.")
    return build


EfficientNetB0 = _variant(1.0, 1.0, 224, 0.2, "efficientnetb0")
EfficientNetB1 = _variant(1.0, 1.1, 240, 0.2, "efficientnetb1")
EfficientNetB2 = _variant(1.1, 1.2, 260, 0.3, "efficientnetb2")
EfficientNetB3 = _variant(1.2, 1.4, 300, 0.3, "efficientnetb3")
EfficientNetB4 = _variant(1.4, 1.8, 380, 0.4, "efficientnetb4")
EfficientNetB5 = _variant(1.6, 2.2, 456, 0.4, "efficientnetb5")
EfficientNetB6 = _variant(1.8, 2.6, 528, 0.5, "efficientnetb6")
EfficientNetB7 = _variant(2.0, 3.1, 600, 0.5, "efficientnetb7")


def preprocess_input(x, data_format=None):
    """The identity: EfficientNet models rescale and normalise their inputs themselves."""
    return x
