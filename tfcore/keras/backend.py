"""``tf.keras.backend``: global Keras settings, name counters and small tensor helpers."""

import collections

import numpy as np

from .engine.keras_tensor import KerasTensor

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_NAME_UIDS = collections.defaultdict(int)


def floatx():
    """The default float type of layers and weights (``'float32'``)."""
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    if value not in {"float16", "bfloat16", "float32", "float64"}:
        raise ValueError(f"Unknown floatx type: {value}")
    _FLOATX = str(value)


def epsilon():
    """The fuzz factor used in numeric expressions (1e-7)."""
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = float(value)


def image_data_format():
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    if data_format not in {"channels_last", "channels_first"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    _IMAGE_DATA_FORMAT = data_format


def get_uid(prefix=""):
    """A per-prefix counter starting at 1 (Keras uses it to name layers uniquely)."""
    _NAME_UIDS[prefix] += 1
    return _NAME_UIDS[prefix]


def unique_object_name(prefix, zero_based=True):
    """``prefix``, ``prefix_1``, ... (zero_based) or ``prefix_1``, ``prefix_2``, ..."""
    uid = get_uid(prefix)
    if zero_based:
        uid -= 1
        return prefix if uid == 0 else f"{prefix}_{uid}"
    return f"{prefix}_{uid}"


def reset_uids():
    _NAME_UIDS.clear()


def clear_session(free_memory=True):
    """Reset the layer-name counters (Keras also drops its graph; tfcore has none) and, with
    ``free_memory``, collect the garbage of models dropped since."""
    reset_uids()
    if free_memory:
        import gc
        gc.collect()


def count_params(x):
    return int(np.prod(x.shape.as_list()))


def int_shape(x):
    return tuple(x.shape.as_list()) if hasattr(x.shape, "as_list") else tuple(x.shape)


def get_value(x):
    return x.numpy()


def batch_get_value(tensors):
    return [x.numpy() for x in tensors]


def set_value(x, value):
    x.assign(np.asarray(value, dtype=x.dtype.as_numpy_dtype))


def batch_set_value(tuples):
    for x, value in tuples:
        set_value(x, value)


def is_keras_tensor(x):
    return isinstance(x, KerasTensor)
