"""``tf.keras.applications.MobileNet`` (Howard et al., 2017): 4,253,864 parameters at alpha=1.0, 224x224."""

from .. import layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)

# (pointwise filters, stride) of the 13 depthwise-separable blocks
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1), (512, 1), (512, 1),
           (512, 1), (1024, 2), (1024, 1))


def _conv_block(inputs, filters, alpha, kernel=(3, 3), strides=(1, 1)):
    filters = int(filters * alpha)
    x = layers.Conv2D(filters, kernel, padding="same", use_bias=False, strides=strides, name="conv1")(inputs)
    x = layers.BatchNormalization(axis=-1, name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs, pointwise_conv_filters, alpha, depth_multiplier=1, strides=(1, 1), block_id=1):
    pointwise_conv_filters = int(pointwise_conv_filters * alpha)
    if strides == (1, 1):
        x = inputs
    else:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(inputs)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid",
                               depth_multiplier=depth_multiplier, strides=strides, use_bias=False,
                               name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(pointwise_conv_filters, (1, 1), padding="same", use_bias=False, strides=(1, 1),
                      name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True,  # noqa: N802
              weights=None, input_tensor=None, pooling=None, classes=1000, classifier_activation="softmax",
              **kwargs):
    """MobileNet v1 with width multiplier ``alpha`` and depthwise ``depth_multiplier``."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    if depth_multiplier < 1 or int(depth_multiplier) != depth_multiplier:
        raise ValueError(f"`depth_multiplier` must be a positive integer. Received: {depth_multiplier}")
    shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    x = _conv_block(x, 32, alpha, strides=(2, 2))
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, strides=(stride, stride), block_id=block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling, "global_average_pooling2d", "global_max_pooling2d")
    name = f"mobilenet_{alpha:0.2f}_{shape[0]}"
    return imagenet_utils.finish(Model(inputs, x, name=name), weights)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
