"""``tf.keras.applications.InceptionResNetV2`` (Szegedy et al., 2016): 55,873,736 parameters with the top."""

from .. import layers
from ..engine.base_layer import Layer
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)


class CustomScaleLayer(Layer):
    """``inputs[0] + inputs[1] * scale``: the scaled residual of an Inception-ResNet block."""

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale

    def compute_output_shape(self, input_shape):
        return input_shape[0]

    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale})
        return config


def _conv2d_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu", use_bias=False, name=None):
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=3, scale=False, name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


def _inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    if block_type == "block35":
        branches = [_conv2d_bn(x, 32, 1),
                    _conv2d_bn(_conv2d_bn(x, 32, 1), 32, 3),
                    _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 32, 1), 48, 3), 64, 3)]
    elif block_type == "block17":
        branches = [_conv2d_bn(x, 192, 1),
                    _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 128, 1), 160, [1, 7]), 192, [7, 1])]
    elif block_type == "block8":
        branches = [_conv2d_bn(x, 192, 1),
                    _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 192, 1), 224, [1, 3]), 256, [3, 1])]
    else:
        raise ValueError("Unknown Inception-ResNet block type. Expects 'block35', 'block17' or 'block8', "
                         f"but got: {block_type}")
    block_name = f"{block_type}_{block_idx}"
    mixed = layers.Concatenate(axis=3, name=block_name + "_mixed")(branches)
    up = _conv2d_bn(mixed, x.shape[3], 1, activation=None, use_bias=True, name=block_name + "_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=block_name + "_ac")(x)
    return x


def InceptionResNetV2(include_top=True, weights=None, input_tensor=None, input_shape=None,  # noqa: N802
                      pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Inception-ResNet v2: stem, 10 x block35, reduction, 20 x block17, reduction, 10 x block8, conv_7b."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, 299, 75, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    x = _conv2d_bn(x, 32, 3, strides=2, padding="valid")
    x = _conv2d_bn(x, 32, 3, padding="valid")
    x = _conv2d_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = _conv2d_bn(x, 80, 1, padding="valid")
    x = _conv2d_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)

    branches = [_conv2d_bn(x, 96, 1),
                _conv2d_bn(_conv2d_bn(x, 48, 1), 64, 5),
                _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 64, 1), 96, 3), 96, 3),
                _conv2d_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)]
    x = layers.Concatenate(axis=3, name="mixed_5b")(branches)
    for block_idx in range(1, 11):
        x = _inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)

    branches = [_conv2d_bn(x, 384, 3, strides=2, padding="valid"),
                _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 256, 1), 256, 3), 384, 3, strides=2, padding="valid"),
                layers.MaxPooling2D(3, strides=2, padding="valid")(x)]
    x = layers.Concatenate(axis=3, name="mixed_6a")(branches)
    for block_idx in range(1, 21):
        x = _inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)

    branches = [_conv2d_bn(_conv2d_bn(x, 256, 1), 384, 3, strides=2, padding="valid"),
                _conv2d_bn(_conv2d_bn(x, 256, 1), 288, 3, strides=2, padding="valid"),
                _conv2d_bn(_conv2d_bn(_conv2d_bn(x, 256, 1), 288, 3), 320, 3, strides=2, padding="valid"),
                layers.MaxPooling2D(3, strides=2, padding="valid")(x)]
    x = layers.Concatenate(axis=3, name="mixed_7a")(branches)
    for block_idx in range(1, 10):
        x = _inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = _inception_resnet_block(x, scale=1.0, activation=None, block_type="block8", block_idx=10)
    x = _conv2d_bn(x, 1536, 1, name="conv_7b")
    x = imagenet_utils.classifier_head(x, include_top, pooling, classes, classifier_activation)
    return imagenet_utils.finish(Model(inputs, x, name="inception_resnet_v2"), weights)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
