"""``tf.keras.applications.Xception`` (Chollet, 2017): 22,910,480 parameters with the top at 299x299."""

from .. import layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)


def _bn(name=None):
    return layers.BatchNormalization(axis=-1, name=name)


def _sep(x, filters, name):
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return _bn(name + "_bn")(x)


def _residual(x, filters):
    r = layers.Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    return _bn()(r)


def Xception(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
             classes=1000, classifier_activation="softmax"):
    """Xception: entry flow, eight middle-flow blocks of three separable convolutions, exit flow."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, 299, 71, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(x)
    x = _bn("block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = _bn("block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)

    residual = _residual(x, 128)
    x = _sep(x, 128, "block2_sepconv1")
    x = layers.Activation("relu", name="block2_sepconv2_act")(x)
    x = _sep(x, 128, "block2_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block2_pool")(x)
    x = layers.add([x, residual])

    for block, filters in ((3, 256), (4, 728)):
        residual = _residual(x, filters)
        x = layers.Activation("relu", name=f"block{block}_sepconv1_act")(x)
        x = _sep(x, filters, f"block{block}_sepconv1")
        x = layers.Activation("relu", name=f"block{block}_sepconv2_act")(x)
        x = _sep(x, filters, f"block{block}_sepconv2")
        x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
        x = layers.add([x, residual])

    for i in range(8):
        residual = x
        prefix = f"block{i + 5}"
        for j in (1, 2, 3):
            x = layers.Activation("relu", name=f"{prefix}_sepconv{j}_act")(x)
            x = _sep(x, 728, f"{prefix}_sepconv{j}")
        x = layers.add([x, residual])

    residual = _residual(x, 1024)
    x = layers.Activation("relu", name="block13_sepconv1_act")(x)
    x = _sep(x, 728, "block13_sepconv1")
    x = layers.Activation("relu", name="block13_sepconv2_act")(x)
    x = _sep(x, 1024, "block13_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block13_pool")(x)
    x = layers.add([x, residual])

    x = _sep(x, 1536, "block14_sepconv1")
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = _sep(x, 2048, "block14_sepconv2")
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)
    x = imagenet_utils.classifier_head(x, include_top, pooling, classes, classifier_activation)
    return imagenet_utils.finish(Model(inputs, x, name="xception"), weights)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
