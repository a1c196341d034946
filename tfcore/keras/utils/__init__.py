"""``tf.keras.utils``: to_categorical, normalize, Progbar, get_file, set_random_seed, datasets from arrays and
folders (images, timeseries, text), pad_sequences, split_dataset, PyDataset/Sequence, custom-object registration,
image array helpers,
Keras object (de)serialization (and Keras 2's, under ``legacy``), interactive-logging switches,
Config and plot_model."""

from ..backend import clear_session, is_keras_tensor
from .config import Config
from .data_utils import get_file
from .dataset_split import split_dataset
from .image_dataset import image_dataset_from_directory
from .image_utils import array_to_img, img_to_array, load_img, save_img
from .io_utils import disable_interactive_logging, enable_interactive_logging, is_interactive_logging_enabled
from . import legacy
from .layer_utils import get_source_inputs, model_to_dot, plot_model, standardize_dtype
from .np_utils import normalize, to_categorical
from .object_registration import (
    CustomObjectScope,
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from .progbar import Progbar
from .py_dataset import PyDataset, Sequence
from .sequence_utils import pad_sequences
from .text_dataset import text_dataset_from_directory
from .tf_utils import set_random_seed
from .timeseries_dataset import timeseries_dataset_from_array


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """``x``, ``(x, y)`` or ``(x, y, sample_weight)``: the tuple ``fit`` expects from a dataset."""
    from ..engine import data_adapter  # imported here: keras.engine imports keras.utils
    return data_adapter.pack_x_y_sample_weight(x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from a batch (missing parts None)."""
    from ..engine import data_adapter
    return data_adapter.unpack_x_y_sample_weight(data)


def serialize_keras_object(obj):
    """Keras 3's JSON-able description of a Keras object (see ``keras.saving.serialize_keras_object``)."""
    from ..saving import serialization_lib  # imported here: keras.saving imports keras.engine -> keras.utils
    return serialization_lib.serialize_keras_object(obj)


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object :func:`serialize_keras_object` described (see ``keras.saving.deserialize_keras_object``)."""
    from ..saving import serialization_lib
    return serialization_lib.deserialize_keras_object(config, custom_objects=custom_objects, safe_mode=safe_mode,
                                                      **kwargs)
