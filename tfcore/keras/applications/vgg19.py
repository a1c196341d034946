"""``tf.keras.applications.VGG19`` (Simonyan & Zisserman, 2014): 143,667,240 parameters with the top."""

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)
from .vgg16 import build_vgg

_BLOCKS = ((64, 2), (128, 2), (256, 4), (512, 4), (512, 4))


def VGG19(include_top=True, weights=None, input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
          classes=1000, classifier_activation="softmax"):
    """The VGG19 architecture; ``weights`` is None or a tfcore weights file (no ImageNet download)."""
    return build_vgg(_BLOCKS, "vgg19", include_top, weights, input_tensor, input_shape, pooling, classes,
                     classifier_activation)


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="caffe")
