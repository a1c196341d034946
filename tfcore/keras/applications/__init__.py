"""``tf.keras.applications``: Keras's image-classification architectures with TF's arguments and exact
parameter counts (ResNet/ResNetV2, VGG, DenseNet, MobileNet v1-v3, Xception, Inception v3,
Inception-ResNet v2, EfficientNet B0-B7, EfficientNetV2, ConvNeXt).

Pretrained ImageNet weights are not downloaded: pass ``weights=None`` or a path to a
tfcore weights file (``model.save_weights`` format).
"""

from . import (
    convnext,
    densenet,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    resnet,
    resnet_v2,
    vgg16,
    vgg19,
    xception,
)
from .convnext import ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge
from .densenet import DenseNet121, DenseNet169, DenseNet201
from .efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from .efficientnet_v2 import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from .inception_resnet_v2 import InceptionResNetV2
from .inception_v3 import InceptionV3
from .mobilenet import MobileNet
from .mobilenet_v2 import MobileNetV2
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from .resnet import ResNet50, ResNet101, ResNet152
from .resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from .vgg16 import VGG16
from .vgg19 import VGG19
from .xception import Xception

resnet50 = resnet
