"""``tf.keras.applications.MobileNetV2`` (Sandler et al., 2018): 3,538,984 parameters at alpha=1.0, 224x224."""

from .. import layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)

# (filters, stride, expansion) of the 17 inverted residual blocks
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6), (64, 1, 6),
           (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6),
           (320, 1, 6))


def _make_divisible(v, divisor, min_value=None):
    """Round channel counts to a multiple of ``divisor`` without dropping below 90% of ``v``."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _bn(name):
    return layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=name)


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    in_channels = inputs.shape[-1]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False,
                          name=prefix + "expand")(x)
        x = _bn(prefix + "expand_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x.shape.as_list(), 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, use_bias=False,
                               padding="same" if stride == 1 else "valid", name=prefix + "depthwise")(x)
    x = _bn(prefix + "depthwise_BN")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = _bn(prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights=None, input_tensor=None,  # noqa: N802
                pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """MobileNetV2 with width multiplier ``alpha``; ``weights`` is None or a tfcore weights file."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    first_filters = _make_divisible(32 * alpha, 8)
    x = layers.Conv2D(first_filters, kernel_size=3, strides=(2, 2), padding="same", use_bias=False, name="Conv1")(x)
    x = _bn("bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride, expansion=expansion,
                                block_id=block_id)
    last_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = _bn("Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    rows = shape[0]
    name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    return imagenet_utils.finish(Model(inputs, x, name=name), weights)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
