"""``tf.keras.applications.resnet_v2`` (He et al., 2016, pre-activation): ResNet50V2 25,613,800,
ResNet101V2 44,675,560 and ResNet152V2 60,380,648 parameters with the ImageNet top."""

from .. import layers
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)
from .resnet import _EPS, ResNet


def _block2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """A pre-activation bottleneck block; the stride sits on the 3x3 convolution of the stage's LAST block."""
    preact = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_preact_bn")(x)
    preact = layers.Activation("relu", name=name + "_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def _stack2(x, filters, blocks, stride1=2, name=None):
    x = _block2(x, filters, conv_shortcut=True, name=name + "_block1")
    for i in range(2, blocks):
        x = _block2(x, filters, name=f"{name}_block{i}")
    return _block2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _v2_stacks(depths):
    def stack_fn(x):
        x = _stack2(x, 64, depths[0], name="conv2")
        x = _stack2(x, 128, depths[1], name="conv3")
        x = _stack2(x, 256, depths[2], name="conv4")
        return _stack2(x, 512, depths[3], stride1=1, name="conv5")
    return stack_fn


def ResNet50V2(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
               classes=1000, classifier_activation="softmax"):
    """ResNet50 v2 (pre-activation); ``weights`` is None or a tfcore weights file."""
    return ResNet(_v2_stacks((3, 4, 6, 3)), True, True, "resnet50v2", include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation)


def ResNet101V2(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
                classes=1000, classifier_activation="softmax"):
    """ResNet101 v2 (stages of 3, 4, 23, 3 pre-activation blocks)."""
    return ResNet(_v2_stacks((3, 4, 23, 3)), True, True, "resnet101v2", include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation)


def ResNet152V2(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
                classes=1000, classifier_activation="softmax"):
    """ResNet152 v2 (stages of 3, 8, 36, 3 pre-activation blocks)."""
    return ResNet(_v2_stacks((3, 8, 36, 3)), True, True, "resnet152v2", include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
