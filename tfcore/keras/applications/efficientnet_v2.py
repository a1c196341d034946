"""``tf.keras.applications.efficientnet_v2`` (Tan & Le, 2021): EfficientNetV2B0..B3, S, M and L.

Fused-MBConv blocks in the early stages, MBConv with squeeze-and-excitation later. Preprocessing is part of
the model (``include_preprocessing=True``), so :func:`preprocess_input` is the identity, as in Keras.
"""

import copy
import math

from .. import initializers, layers
from ..engine.model import Model
from . import imagenet_utils
from .efficientnet import _squeeze_excite, conv_kernel_initializer, dense_kernel_initializer
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)


def _args(rows):
    keys = ("kernel_size", "num_repeat", "input_filters", "output_filters", "expand_ratio", "se_ratio", "strides",
            "conv_type")
    return [dict(zip(keys, row, strict=True)) for row in rows]


_B = _args([(3, 1, 32, 16, 1, 0, 1, 1), (3, 2, 16, 32, 4, 0, 2, 1), (3, 2, 32, 48, 4, 0, 2, 1),
            (3, 3, 48, 96, 4, 0.25, 2, 0), (3, 5, 96, 112, 6, 0.25, 1, 0), (3, 8, 112, 192, 6, 0.25, 2, 0)])
DEFAULT_BLOCKS_ARGS = {
    "efficientnetv2-s": _args([(3, 2, 24, 24, 1, 0.0, 1, 1), (3, 4, 24, 48, 4, 0.0, 2, 1),
                               (3, 4, 48, 64, 4, 0, 2, 1), (3, 6, 64, 128, 4, 0.25, 2, 0),
                               (3, 9, 128, 160, 6, 0.25, 1, 0), (3, 15, 160, 256, 6, 0.25, 2, 0)]),
    "efficientnetv2-m": _args([(3, 3, 24, 24, 1, 0, 1, 1), (3, 5, 24, 48, 4, 0, 2, 1), (3, 5, 48, 80, 4, 0, 2, 1),
                               (3, 7, 80, 160, 4, 0.25, 2, 0), (3, 14, 160, 176, 6, 0.25, 1, 0),
                               (3, 18, 176, 304, 6, 0.25, 2, 0), (3, 5, 304, 512, 6, 0.25, 1, 0)]),
    "efficientnetv2-l": _args([(3, 4, 32, 32, 1, 0, 1, 1), (3, 7, 32, 64, 4, 0, 2, 1), (3, 7, 64, 96, 4, 0, 2, 1),
                               (3, 10, 96, 192, 4, 0.25, 2, 0), (3, 19, 192, 224, 6, 0.25, 1, 0),
                               (3, 25, 224, 384, 6, 0.25, 2, 0), (3, 7, 384, 640, 6, 0.25, 1, 0)]),
    "efficientnetv2-b0": _B, "efficientnetv2-b1": _B, "efficientnetv2-b2": _B, "efficientnetv2-b3": _B,
}


def round_filters(filters, width_coefficient, min_depth, depth_divisor):
    filters *= width_coefficient
    minimum_depth = min_depth or depth_divisor
    return int(max(minimum_depth, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))


def round_repeats(repeats, depth_coefficient):
    return int(math.ceil(depth_coefficient * repeats))


def _residual(x, inputs, strides, input_filters, output_filters, survival_probability, name):
    if strides == 1 and input_filters == output_filters:
        if survival_probability:
            x = layers.Dropout(survival_probability, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.add([x, inputs], name=name + "add")
    return x


def _mbconv(inputs, input_filters, output_filters, expand_ratio=1, kernel_size=3, strides=1, se_ratio=0.0,
            bn_momentum=0.9, activation="swish", survival_probability=0.8, name=""):
    filters = input_filters * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, strides=1, kernel_initializer=conv_kernel_initializer(), padding="same",
                          use_bias=False, name=name + "expand_conv")(inputs)
        x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=name + "expand_bn")(x)
        x = layers.Activation(activation, name=name + "expand_activation")(x)
    else:
        x = inputs
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, depthwise_initializer=conv_kernel_initializer(),
                               padding="same", use_bias=False, name=name + "dwconv2")(x)
    x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=name + "bn")(x)
    x = layers.Activation(activation, name=name + "activation")(x)
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, input_filters, filters, se_ratio, activation, name)
    x = layers.Conv2D(output_filters, 1, strides=1, kernel_initializer=conv_kernel_initializer(), padding="same",
                      use_bias=False, name=name + "project_conv")(x)
    x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=name + "project_bn")(x)
    return _residual(x, inputs, strides, input_filters, output_filters, survival_probability, name)


def _fused_mbconv(inputs, input_filters, output_filters, expand_ratio=1, kernel_size=3, strides=1, se_ratio=0.0,
                  bn_momentum=0.9, activation="swish", survival_probability=0.8, name=""):
    filters = input_filters * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(filters, kernel_size, strides=strides, kernel_initializer=conv_kernel_initializer(),
                          padding="same", use_bias=False, name=name + "expand_conv")(inputs)
        x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=name + "expand_bn")(x)
        x = layers.Activation(activation, name=name + "expand_activation")(x)
    else:
        x = inputs
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, input_filters, filters, se_ratio, activation, name)
    x = layers.Conv2D(output_filters, 1 if expand_ratio != 1 else kernel_size,
                      strides=1 if expand_ratio != 1 else strides, kernel_initializer=conv_kernel_initializer(),
                      padding="same", use_bias=False, name=name + "project_conv")(x)
    x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name=name + "project_bn")(x)
    if expand_ratio == 1:
        x = layers.Activation(activation, name=name + "project_activation")(x)
    return _residual(x, inputs, strides, input_filters, output_filters, survival_probability, name)


def EfficientNetV2(width_coefficient, depth_coefficient, default_size, dropout_rate=0.2,  # noqa: N802
                   drop_connect_rate=0.2, depth_divisor=8, min_depth=8, bn_momentum=0.9, activation="swish",
                   blocks_args="default", model_name="efficientnetv2", include_top=True, weights=None,
                   input_tensor=None, input_shape=None, pooling=None, classes=1000,
                   classifier_activation="softmax", include_preprocessing=True):
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS[model_name]
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    if include_preprocessing:
        if model_name.split("-")[-1].startswith("b") and shape[-1] == 3:
            x = layers.Rescaling(scale=1.0 / 255)(x)
            x = layers.Normalization(mean=[0.485, 0.456, 0.406], variance=[0.229**2, 0.224**2, 0.225**2],
                                     axis=3)(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)
    stem_filters = round_filters(blocks_args[0]["input_filters"], width_coefficient, min_depth, depth_divisor)
    x = layers.Conv2D(stem_filters, 3, strides=2, kernel_initializer=conv_kernel_initializer(), padding="same",
                      use_bias=False, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(args["num_repeat"] for args in blocks_args))
    for i, args in enumerate(blocks_args):
        args["input_filters"] = round_filters(args["input_filters"], width_coefficient, min_depth, depth_divisor)
        args["output_filters"] = round_filters(args["output_filters"], width_coefficient, min_depth, depth_divisor)
        block = (_mbconv, _fused_mbconv)[args.pop("conv_type")]
        for j in range(round_repeats(args.pop("num_repeat"), depth_coefficient)):
            if j > 0:
                args["strides"] = 1
                args["input_filters"] = args["output_filters"]
            x = block(x, activation=activation, bn_momentum=bn_momentum,
                      survival_probability=drop_connect_rate * b / blocks, name=f"block{i + 1}{chr(j + 97)}_", **args)
            b += 1

    top_filters = round_filters(1280, width_coefficient, min_depth, depth_divisor)
    x = layers.Conv2D(top_filters, 1, strides=1, kernel_initializer=conv_kernel_initializer(), padding="same",
                      use_bias=False, name="top_conv")(x)
    x = layers.BatchNormalization(axis=3, momentum=bn_momentum, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        x = layers.Dense(classes, activation=classifier_activation, kernel_initializer=dense_kernel_initializer(),
                         bias_initializer=initializers.Constant(0.0), name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    return imagenet_utils.finish(Model(inputs, x, name=model_name), weights)


def _variant(width, depth, size, dropout, name, public):
    def build(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None, classes=1000,
              classifier_activation="softmax", include_preprocessing=True, **kwargs):
        return EfficientNetV2(width, depth, size, dropout, model_name=name, include_top=include_top,
                              weights=weights, input_tensor=input_tensor, input_shape=input_shape,
                              pooling=pooling, classes=classes, classifier_activation=classifier_activation,
                              include_preprocessing=include_preprocessing)
    build.__name__ = build.__qualname__ = public
    build.__doc__ = f"{public}: width x{width}, depth x{depth}, default input {size}x{size}."
    return build


EfficientNetV2B0 = _variant(1.0, 1.0, 224, 0.2, "efficientnetv2-b0", "EfficientNetV2B0")
EfficientNetV2B1 = _variant(1.0, 1.1, 240, 0.2, "efficientnetv2-b1", "EfficientNetV2B1")
EfficientNetV2B2 = _variant(1.1, 1.2, 260, 0.3, "efficientnetv2-b2", "EfficientNetV2B2")
EfficientNetV2B3 = _variant(1.2, 1.4, 300, 0.3, "efficientnetv2-b3", "EfficientNetV2B3")
EfficientNetV2S = _variant(1.0, 1.0, 384, 0.2, "efficientnetv2-s", "EfficientNetV2S")
EfficientNetV2M = _variant(1.0, 1.0, 480, 0.2, "efficientnetv2-m", "EfficientNetV2M")
EfficientNetV2L = _variant(1.0, 1.0, 480, 0.2, "efficientnetv2-l", "EfficientNetV2L")


def preprocess_input(x, data_format=None):
    """The identity: EfficientNetV2 models rescale their inputs themselves (``include_preprocessing=True``)."""
    return x
