"""Keras saving: ``.keras`` files in Keras 3's format (keras_format.py) and tfcore's ``.npz`` weight files."""

from .keras_format import register_keras_serializable
from .saving_api import load_model, save_model
from .serialization_lib import deserialize_keras_object, serialize_keras_object
from .weights_format import load_weights, save_weights
