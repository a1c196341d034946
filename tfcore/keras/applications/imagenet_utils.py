"""Helpers shared by the applications: input-shape checks, weight loading, preprocessing."""

import os

import numpy as np

from ...framework import dtypes, tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...ops import array_ops, math_ops
from .. import layers
from ..engine.input_layer import Input
from ..engine.keras_tensor import KerasTensor
from ..layers.core import TFOpLambda
from ..utils.data_utils import cache_root


def validate_weights(weights, classes, include_top):
    """Only ``None`` or a path to a tfcore weights file are accepted (no downloads)."""
    if weights == "imagenet":
        raise ValueError(
            "tfcore cannot download pretrained weights: `weights='imagenet'` is not available. Pass `weights=None` "
            "for random initialisation, or `weights='/path/to/file'`: a weights file in tfcore's .npz format "
            "(written by `model.save_weights(path)`; see README, 'Keras weight files') for this exact "
            "architecture.")
    if not (weights is None or isinstance(weights, str | os.PathLike)):
        raise ValueError("The `weights` argument should be either `None` (random initialization) or the path to "
                         f"the weights file to be loaded. Received: weights={weights!r}")
    if weights is not None and not os.path.exists(weights):
        raise ValueError(f"The `weights` argument should be None or the path to an existing weights file; "
                         f"{weights!r} does not exist.")


def obtain_input_shape(input_shape, default_size, min_size, require_flatten):
    """The (rows, cols, 3) input shape an application builds on (Keras's rules, channels_last)."""
    if input_shape is None:
        return (default_size, default_size, 3) if require_flatten else (None, None, 3)
    input_shape = tuple(input_shape)
    if len(input_shape) != 3:
        raise ValueError(f"`input_shape` must be a tuple of three integers. Received: input_shape={input_shape}")
    rows, cols = input_shape[0], input_shape[1]
    if (rows is not None and rows < min_size) or (cols is not None and cols < min_size):
        raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: input_shape={input_shape}")
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. "
                         f"Received: input_shape={input_shape}")
    return input_shape


def make_input(input_tensor, shape):
    """(model inputs, first tensor): a fresh Input, or ``input_tensor`` and the Inputs it comes from."""
    if input_tensor is None:
        x = Input(shape=shape)
        return x, x
    if not isinstance(input_tensor, KerasTensor):
        x = Input(tensor=input_tensor, shape=shape)
        return x, x
    return get_source_inputs(input_tensor), input_tensor


def get_source_inputs(tensor):
    """The Input tensors upstream of ``tensor`` (Keras's layer_utils.get_source_inputs)."""
    node = tensor.node
    if node is None or node.is_input:
        return tensor
    out = []
    stack = [node]
    seen = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.is_input:
            for t in n.flat_outputs:
                if all(t is not o for o in out):
                    out.append(t)
        else:
            stack.extend(n.parent_nodes)
    return out[0] if len(out) == 1 else out


def finish(model, weights):
    if weights is not None:
        model.load_weights(weights)
    return model


def classifier_head(x, include_top, pooling, classes, classifier_activation, avg_name="avg_pool",
                    max_name="max_pool", **dense_kwargs):
    """Keras's application head: global average pooling and a ``predictions`` Dense layer with the top,
    else the optional ``pooling`` ('avg' or 'max'; ``None`` keeps the 4-D feature map)."""

    if include_top:
        x = layers.GlobalAveragePooling2D(name=avg_name)(x)
        return layers.Dense(classes, activation=classifier_activation, name="predictions", **dense_kwargs)(x)
    return pool(x, pooling, avg_name, max_name)


def pool(x, pooling, avg_name="avg_pool", max_name="max_pool"):
    if pooling is None:
        return x
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    raise ValueError(f"`pooling` must be None, 'avg' or 'max'. Received: pooling={pooling!r}")


def correct_pad(shape, kernel_size):
    """Zero padding for a stride-2 'valid' convolution that matches TF's 'same' geometry."""
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    if isinstance(shape, KerasTensor) or tensor.is_tensor(shape):
        shape = shape.shape.as_list()
    rows, cols = shape[1], shape[2]
    adjust = (1, 1) if rows is None else (1 - rows % 2, 1 - cols % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


_CAFFE_MEAN_BGR = (103.939, 116.779, 123.68)
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)


def preprocess_input(x, data_format=None, mode="caffe"):
    """Keras's ImageNet preprocessing: 'caffe' (RGB->BGR, mean-subtracted), 'tf' ([-1, 1]) or 'torch'.

    NumPy in, NumPy out (a float32 copy); a tensor in, a tensor out (tfcore ops, so gradients flow);
    a symbolic Keras input (``keras.Input``) in, a symbolic output: the preprocessing becomes a layer
    of the functional model, the standard transfer-learning pattern.
    """
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError(f"Unknown preprocessing mode {mode!r}: expected 'caffe', 'tf' or 'torch'")
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"`data_format` should be 'channels_last' or 'channels_first', got {data_format!r}")
    if isinstance(x, KerasTensor):
        return TFOpLambda(lambda t: _preprocess_tensor(t, data_format, mode),
                          name="tf.keras.applications.imagenet_utils.preprocess_input")(x)
    if tensor.is_tensor(x):
        return _preprocess_tensor(x, data_format, mode)
    return _preprocess_numpy(np.array(x, dtype=np.float32, copy=True), data_format, mode)


def _channel_axis(ndim, data_format):
    return ndim - 1 if data_format == "channels_last" else (1 if ndim == 4 else 0)


def _channel_shape(ndim, data_format):
    """Shape broadcasting a per-channel constant over images in ``data_format``."""
    return (3,) + (1,) * (ndim - 1 - _channel_axis(ndim, data_format))


def _preprocess_numpy(arr, data_format, mode):
    shape = _channel_shape(arr.ndim, data_format)
    if mode == "tf":
        return arr / 127.5 - 1.0
    if mode == "torch":
        mean = np.array(_TORCH_MEAN, np.float32).reshape(shape)
        return (arr / 255.0 - mean) / np.array(_TORCH_STD, np.float32).reshape(shape)
    arr = np.flip(arr, axis=_channel_axis(arr.ndim, data_format))
    return arr - np.array(_CAFFE_MEAN_BGR, np.float32).reshape(shape)


def _preprocess_tensor(t, data_format, mode):
    t = convert_to_tensor(t)
    if t.dtype is not dtypes.float32:
        t = math_ops.cast(t, dtypes.float32)
    ndim = t.shape.rank
    shape = _channel_shape(ndim, data_format)

    def const(values):
        return convert_to_tensor(np.array(values, np.float32).reshape(shape))

    if mode == "tf":
        return t / 127.5 - 1.0
    if mode == "torch":
        return (t / 255.0 - const(_TORCH_MEAN)) / const(_TORCH_STD)
    t = array_ops.reverse(t, [_channel_axis(ndim, data_format)])
    return t - const(_CAFFE_MEAN_BGR)


CLASS_INDEX_FILE = "imagenet_class_index.json"


def _class_index_path():
    candidates = [os.path.join(cache_root(), "models", CLASS_INDEX_FILE)]
    keras_home = os.environ.get("KERAS_HOME", os.path.join(os.path.expanduser("~"), ".keras"))
    candidates.append(os.path.join(keras_home, "models", CLASS_INDEX_FILE))
    for path in candidates:
        if os.path.exists(path):
            return path
    raise FileNotFoundError(
        "decode_predictions needs the ImageNet class index, and tfcore does not download it. Place Keras's "
        f"'{CLASS_INDEX_FILE}' (a JSON object mapping '0'..'999' to [wordnet_id, name]) at one of: "
        + ", ".join(repr(c) for c in candidates))


def decode_predictions(preds, top=5):
    """Keras's ``decode_predictions``: for each row of ``(samples, 1000)`` scores, the ``top`` classes as
    ``(class_name, class_description, score)`` tuples, best first.

    The class index JSON is read from ``$TFCORE_HOME/models`` or ``$KERAS_HOME/models`` (default
    ``~/.keras/models``, where Keras caches it); it is never downloaded.
    """
    import json

    preds = preds.numpy() if hasattr(preds, "numpy") else np.asarray(preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
                         f"(samples, 1000)). Received array with shape: {preds.shape}")
    with open(_class_index_path()) as f:
        class_index = json.load(f)
    results = []
    for row in preds:
        best = np.argsort(row, kind="stable")[-top:][::-1]
        results.append([tuple(class_index[str(i)]) + (row[i],) for i in best])
    return results
