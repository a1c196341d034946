"""``tf.keras.applications.InceptionV3`` (Szegedy et al., 2015): 23,851,784 parameters with the top at 299x299."""

from .. import layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)


def _conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Conv (no bias) -> BatchNorm without scale -> ReLU, as Keras's ``conv2d_bn``."""
    bn_name = None if name is None else name + "_bn"
    conv_name = None if name is None else name + "_conv"
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding, use_bias=False,
                      name=conv_name)(x)
    x = layers.BatchNormalization(axis=3, scale=False, name=bn_name)(x)
    return layers.Activation("relu", name=name)(x)


def _avg_pool_branch(x, filters):
    b = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return _conv2d_bn(b, filters, 1, 1)


def InceptionV3(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
                classes=1000, classifier_activation="softmax"):
    """Inception v3: stem, three 35x35, five 17x17 and two 8x8 Inception modules (mixed0..mixed10)."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, 299, 75, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    x = _conv2d_bn(x, 32, 3, 3, strides=(2, 2), padding="valid")
    x = _conv2d_bn(x, 32, 3, 3, padding="valid")
    x = _conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _conv2d_bn(x, 80, 1, 1, padding="valid")
    x = _conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)

    for i, pool_filters in enumerate((32, 64, 64)):  # mixed 0-2: 35 x 35
        b1 = _conv2d_bn(x, 64, 1, 1)
        b5 = _conv2d_bn(_conv2d_bn(x, 48, 1, 1), 64, 5, 5)
        b3 = _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
        bp = _avg_pool_branch(x, pool_filters)
        x = layers.concatenate([b1, b5, b3, bp], axis=3, name=f"mixed{i}")

    b3 = _conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")  # mixed 3: 17 x 17
    bd = _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, strides=(2, 2), padding="valid")
    bp = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([b3, bd, bp], axis=3, name="mixed3")

    for i, f in enumerate((128, 160, 160, 192)):  # mixed 4-7: 17 x 17
        b1 = _conv2d_bn(x, 192, 1, 1)
        b7 = _conv2d_bn(_conv2d_bn(_conv2d_bn(x, f, 1, 1), f, 1, 7), 192, 7, 1)
        bd = _conv2d_bn(x, f, 1, 1)
        bd = _conv2d_bn(bd, f, 7, 1)
        bd = _conv2d_bn(bd, f, 1, 7)
        bd = _conv2d_bn(bd, f, 7, 1)
        bd = _conv2d_bn(bd, 192, 1, 7)
        bp = _avg_pool_branch(x, 192)
        x = layers.concatenate([b1, b7, bd, bp], axis=3, name=f"mixed{4 + i}")

    b3 = _conv2d_bn(_conv2d_bn(x, 192, 1, 1), 320, 3, 3, strides=(2, 2), padding="valid")  # mixed 8: 8 x 8
    b7 = _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 192, 1, 1), 192, 1, 7), 192, 7, 1)
    b7 = _conv2d_bn(b7, 192, 3, 3, strides=(2, 2), padding="valid")
    bp = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([b3, b7, bp], axis=3, name="mixed8")

    for i in range(2):  # mixed 9-10: 8 x 8
        b1 = _conv2d_bn(x, 320, 1, 1)
        b3 = _conv2d_bn(x, 384, 1, 1)
        b3 = layers.concatenate([_conv2d_bn(b3, 384, 1, 3), _conv2d_bn(b3, 384, 3, 1)], axis=3,
                                name=f"mixed9_{i}")
        bd = _conv2d_bn(_conv2d_bn(x, 448, 1, 1), 384, 3, 3)
        bd = layers.concatenate([_conv2d_bn(bd, 384, 1, 3), _conv2d_bn(bd, 384, 3, 1)], axis=3)
        bp = _avg_pool_branch(x, 192)
        x = layers.concatenate([b1, b3, bd, bp], axis=3, name=f"mixed{9 + i}")
    x = imagenet_utils.classifier_head(x, include_top, pooling, classes, classifier_activation)
    return imagenet_utils.finish(Model(inputs, x, name="inception_v3"), weights)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
