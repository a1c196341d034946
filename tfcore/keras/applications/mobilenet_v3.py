"""``tf.keras.applications`` MobileNetV3Small / MobileNetV3Large (Howard et al., 2019): 2,554,968 and
5,507,432 parameters at alpha=1.0 with the ImageNet top. Preprocessing (a Rescaling to [-1, 1]) is part of
the model, so :func:`preprocess_input` is the identity, as in Keras."""

from .. import layers
from ..engine.model import Model
from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (public name of this module)
from .mobilenet_v2 import _make_divisible


def _depth(v, divisor=8, min_value=None):
    return _make_divisible(v, divisor, min_value)


def _bn(name):
    return layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=name)


def _relu(x):
    return layers.ReLU()(x)


def _hard_sigmoid(x):
    return layers.Activation("hard_sigmoid")(x)


def _hard_swish(x):
    return layers.Activation("hard_swish")(x)


def _se_block(inputs, filters, se_ratio, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=prefix + "squeeze_excite_avg_pool")(inputs)
    x = layers.Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same",
                      name=prefix + "squeeze_excite_conv")(x)
    x = layers.ReLU(name=prefix + "squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", name=prefix + "squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=prefix + "squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation, block_id):
    shortcut = x
    prefix = "expanded_conv_"
    infilters = x.shape[-1]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(_depth(infilters * expansion), kernel_size=1, padding="same", use_bias=False,
                          name=prefix + "expand")(x)
        x = _bn(prefix + "expand_bn")(x)
        x = activation(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size), name=prefix + "depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride, padding="same" if stride == 1 else "valid",
                               use_bias=False, name=prefix + "depthwise")(x)
    x = _bn(prefix + "depthwise_bn")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = _bn(prefix + "project_bn")(x)
    if stride == 1 and infilters == filters:
        x = layers.Add(name=prefix + "add")([shortcut, x])
    return x


def MobileNetV3(stack_fn, last_point_ch, input_shape=None, alpha=1.0, model_type="large",  # noqa: N802
                minimalistic=False, include_top=True, weights=None, input_tensor=None, classes=1000,
                pooling=None, dropout_rate=0.2, classifier_activation="softmax", include_preprocessing=True,
                name=None):
    imagenet_utils.validate_weights(weights, classes, include_top)
    if input_shape is None and input_tensor is None:
        shape = (None, None, 3)
    else:
        shape = tuple(input_shape) if input_shape is not None else tuple(input_tensor.shape[1:])
        if len(shape) != 3:
            raise ValueError(f"`input_shape` must be a tuple of three integers. Received: input_shape={shape}")
        rows, cols = shape[0], shape[1]
        if rows and cols and (rows < 32 or cols < 32):
            raise ValueError(f"Input size must be at least 32x32; Received `input_shape={shape}`")
    inputs, x = imagenet_utils.make_input(input_tensor, shape)
    if minimalistic:
        kernel, activation, se_ratio = 3, _relu, None
    else:
        kernel, activation, se_ratio = 5, _hard_swish, 0.25
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False, name="conv")(x)
    x = _bn("conv_bn")(x)
    x = activation(x)
    x = stack_fn(x, kernel, activation, se_ratio)
    last_conv_ch = _depth(x.shape[-1] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False, name="conv_1")(x)
    x = _bn("conv_1_bn")(x)
    x = activation(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True, name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling, "global_average_pooling2d", "global_max_pooling2d")
    return imagenet_utils.finish(Model(inputs, x, name=name or "MobilenetV3" + model_type), weights)


def MobileNetV3Small(input_shape=None, alpha=1.0, minimalistic=False, include_top=True, weights=None,  # noqa: N802
                     input_tensor=None, classes=1000, pooling=None, dropout_rate=0.2,
                     classifier_activation="softmax", include_preprocessing=True, name="MobileNetV3Small"):
    """MobileNetV3-Small: 11 inverted residual blocks, 1024-channel head."""
    def stack_fn(x, kernel, activation, se_ratio):
        def depth(d):
            return _depth(d * alpha)
        x = _inverted_res_block(x, 1, depth(16), 3, 2, se_ratio, _relu, 0)
        x = _inverted_res_block(x, 72.0 / 16, depth(24), 3, 2, None, _relu, 1)
        x = _inverted_res_block(x, 88.0 / 24, depth(24), 3, 1, None, _relu, 2)
        x = _inverted_res_block(x, 4, depth(40), kernel, 2, se_ratio, activation, 3)
        x = _inverted_res_block(x, 6, depth(40), kernel, 1, se_ratio, activation, 4)
        x = _inverted_res_block(x, 6, depth(40), kernel, 1, se_ratio, activation, 5)
        x = _inverted_res_block(x, 3, depth(48), kernel, 1, se_ratio, activation, 6)
        x = _inverted_res_block(x, 3, depth(48), kernel, 1, se_ratio, activation, 7)
        x = _inverted_res_block(x, 6, depth(96), kernel, 2, se_ratio, activation, 8)
        x = _inverted_res_block(x, 6, depth(96), kernel, 1, se_ratio, activation, 9)
        return _inverted_res_block(x, 6, depth(96), kernel, 1, se_ratio, activation, 10)
    return MobileNetV3(stack_fn, 1024, input_shape, alpha, "small", minimalistic, include_top, weights,
                       input_tensor, classes, pooling, dropout_rate, classifier_activation, include_preprocessing,
                       name)


def MobileNetV3Large(input_shape=None, alpha=1.0, minimalistic=False, include_top=True, weights=None,  # noqa: N802
                     input_tensor=None, classes=1000, pooling=None, dropout_rate=0.2,
                     classifier_activation="softmax", include_preprocessing=True, name="MobileNetV3Large"):
    """MobileNetV3-Large: 15 inverted residual blocks, 1280-channel head."""
    def stack_fn(x, kernel, activation, se_ratio):
        def depth(d):
            return _depth(d * alpha)
        x = _inverted_res_block(x, 1, depth(16), 3, 1, None, _relu, 0)
        x = _inverted_res_block(x, 4, depth(24), 3, 2, None, _relu, 1)
        x = _inverted_res_block(x, 3, depth(24), 3, 1, None, _relu, 2)
        x = _inverted_res_block(x, 3, depth(40), kernel, 2, se_ratio, _relu, 3)
        x = _inverted_res_block(x, 3, depth(40), kernel, 1, se_ratio, _relu, 4)
        x = _inverted_res_block(x, 3, depth(40), kernel, 1, se_ratio, _relu, 5)
        x = _inverted_res_block(x, 6, depth(80), 3, 2, None, activation, 6)
        x = _inverted_res_block(x, 2.5, depth(80), 3, 1, None, activation, 7)
        x = _inverted_res_block(x, 2.3, depth(80), 3, 1, None, activation, 8)
        x = _inverted_res_block(x, 2.3, depth(80), 3, 1, None, activation, 9)
        x = _inverted_res_block(x, 6, depth(112), 3, 1, se_ratio, activation, 10)
        x = _inverted_res_block(x, 6, depth(112), 3, 1, se_ratio, activation, 11)
        x = _inverted_res_block(x, 6, depth(160), kernel, 2, se_ratio, activation, 12)
        x = _inverted_res_block(x, 6, depth(160), kernel, 1, se_ratio, activation, 13)
        return _inverted_res_block(x, 6, depth(160), kernel, 1, se_ratio, activation, 14)
    return MobileNetV3(stack_fn, 1280, input_shape, alpha, "large", minimalistic, include_top, weights,
                       input_tensor, classes, pooling, dropout_rate, classifier_activation, include_preprocessing,
                       name)


def preprocess_input(x, data_format=None):
    """The identity: MobileNetV3 models rescale their inputs themselves (``include_preprocessing=True``)."""
    return x
