"""Keras saving: ``.keras`` files in Keras 3's format (keras_format.py) and tfcore's ``.npz`` weight files."""

from .keras_format import (deserialize_layer as deserialize_keras_object, load_model, register_keras_serializable,
                           save_model, serialize_layer as serialize_keras_object)
from .weights_format import load_weights, save_weights
