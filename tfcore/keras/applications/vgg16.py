"""``tf.keras.applications.VGG16`` (Simonyan & Zisserman, 2014): 138,357,544 parameters with the top."""

from .. import layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)

_BLOCKS = ((64, 2), (128, 2), (256, 3), (512, 3), (512, 3))


def VGG16(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
          classes=1000, classifier_activation="softmax"):
    """The VGG16 architecture; ``weights`` is None or a tfcore weights file (no ImageNet download)."""
    return build_vgg(_BLOCKS, "vgg16", include_top, weights, input_tensor, input_shape, pooling, classes,
                     classifier_activation)


def build_vgg(blocks, name, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation):
    """VGG with ``blocks`` = (filters, 3x3 convolutions) per stage, each stage ending in a 2x2 max pool."""
    imagenet_utils.validate_weights(weights, classes, include_top)
    shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top)
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    for b, (filters, convs) in enumerate(blocks, start=1):
        for c in range(1, convs + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same", name=f"block{b}_conv{c}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{b}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling, "global_average_pooling2d", "global_max_pooling2d")
    return imagenet_utils.finish(Model(inputs, x, name=name), weights)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="caffe")
