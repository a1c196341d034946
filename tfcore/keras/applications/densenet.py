"""``tf.keras.applications.densenet`` (Huang et al., 2017): DenseNet121 8,062,504, DenseNet169 14,307,880 and
DenseNet201 20,242,984 parameters with the ImageNet top (growth rate 32, compression 0.5)."""

from .. import layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)

_EPS = 1.001e-5


def _bn_relu(x, name):
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_bn")(x)
    return layers.Activation("relu", name=name + "_relu")(x)


def _conv_block(x, growth_rate, name):
    """BN-ReLU-1x1 (4k) -> BN-ReLU-3x3 (k), concatenated onto the block's input."""
    x1 = _bn_relu(x, name + "_0")
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=name + "_1_conv")(x1)
    x1 = _bn_relu(x1, name + "_1")
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=name + "_2_conv")(x1)
    return layers.Concatenate(axis=3, name=name + "_concat")([x, x1])


def _dense_block(x, blocks, name):
    for i in range(blocks):
        x = _conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def _transition_block(x, reduction, name):
    x = _bn_relu(x, name)
    x = layers.Conv2D(int(x.shape[3] * reduction), 1, use_bias=False, name=name + "_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def DenseNet(blocks, include_top=True, weights=None, input_tensor=None, input_shape=None,  # noqa: N802
             pooling=None, classes=1000, classifier_activation="softmax", name=None):
    """A DenseNet with ``blocks`` conv blocks in each of its four dense blocks."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(x)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = _bn_relu(x, "conv1")
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for i, n in enumerate(blocks):
        x = _dense_block(x, n, name=f"conv{i + 2}")
        if i < len(blocks) - 1:
            x = _transition_block(x, 0.5, name=f"pool{i + 2}")
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    x = imagenet_utils.classifier_head(x, include_top, pooling, classes, classifier_activation)
    if name is None:
        name = {(6, 12, 24, 16): "densenet121", (6, 12, 32, 32): "densenet169",
                (6, 12, 48, 32): "densenet201"}.get(tuple(blocks), "densenet")
    return imagenet_utils.finish(Model(inputs, x, name=name), weights)


def DenseNet121(include_top=True, weights=None, input_tensor=None, input_shape=None,  # noqa: N802
                pooling=None, classes=1000, classifier_activation="softmax"):
    """DenseNet-121 (dense blocks of 6, 12, 24, 16)."""
    return DenseNet([6, 12, 24, 16], include_top, weights, input_tensor, input_shape, pooling, classes,
                    classifier_activation)


def DenseNet169(include_top=True, weights=None, input_tensor=None, input_shape=None,  # noqa: N802
                pooling=None, classes=1000, classifier_activation="softmax"):
    """DenseNet-169 (dense blocks of 6, 12, 32, 32)."""
    return DenseNet([6, 12, 32, 32], include_top, weights, input_tensor, input_shape, pooling, classes,
                    classifier_activation)


def DenseNet201(include_top=True, weights=None, input_tensor=None, input_shape=None,  # noqa: N802
                pooling=None, classes=1000, classifier_activation="softmax"):
    """DenseNet-201 (dense blocks of 6, 12, 48, 32)."""
    return DenseNet([6, 12, 48, 32], include_top, weights, input_tensor, input_shape, pooling, classes,
                    classifier_activation)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="torch")
