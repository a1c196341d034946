"""``tf.keras.applications`` ResNet50/101/152 (He et al., 2015, v1 with biased convolutions) and the ResNet
skeleton ResNetV2 shares: 25,636,712 / 44,707,176 / 60,419,944 parameters with the ImageNet top."""

from .. import layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)

_EPS = 1.001e-5


def ResNet(stack_fn, preact, use_bias, model_name="resnet", include_top=True, weights=None,  # noqa: N802
           input_tensor=None, input_shape=None, pooling=None, classes=1000, classifier_activation="softmax"):
    """Keras's shared ResNet body: 7x7/2 stem, 3x3/2 max pool, ``stack_fn``, (post-activation for v2), head."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(x)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    x = imagenet_utils.classifier_head(x, include_top, pooling, classes, classifier_activation)
    return imagenet_utils.finish(Model(inputs, x, name=model_name), weights)


def _block1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """A bottleneck residual block (1x1 -> kxk -> 1x1 with 4x expansion)."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=name + "_2_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_3_bn")(x)
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def _stack1(x, filters, blocks, stride1=2, name=None):
    x = _block1(x, filters, stride=stride1, name=name + "_block1")
    for i in range(2, blocks + 1):
        x = _block1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def _v1_stacks(depths):
    def stack_fn(x):
        x = _stack1(x, 64, depths[0], stride1=1, name="conv2")
        x = _stack1(x, 128, depths[1], name="conv3")
        x = _stack1(x, 256, depths[2], name="conv4")
        return _stack1(x, 512, depths[3], name="conv5")
    return stack_fn


def ResNet50(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
             classes=1000, classifier_activation="softmax", **kwargs):
    """ResNet50 v1; ``weights`` is None or a tfcore weights file (no ImageNet download)."""
    return ResNet(_v1_stacks((3, 4, 6, 3)), False, True, "resnet50", include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation)


def ResNet101(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
              classes=1000, classifier_activation="softmax", **kwargs):
    """ResNet101 v1 (stages of 3, 4, 23, 3 bottleneck blocks)."""
    return ResNet(_v1_stacks((3, 4, 23, 3)), False, True, "resnet101", include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation)


def ResNet152(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
              classes=1000, classifier_activation="softmax", **kwargs):
    """ResNet152 v1 (stages of 3, 8, 36, 3 bottleneck blocks)."""
    return ResNet(_v1_stacks((3, 8, 36, 3)), False, True, "resnet152", include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="caffe")
