"""``keras.saving.save_model`` / ``load_model`` (Keras 3's ``saving_api.py``): the file's extension picks
the format, a ``.keras`` zip (:mod:`keras_format`) or Keras 2's legacy whole-model HDF5 file
(:mod:`legacy_h5_format`, ``.h5``/``.hdf5``), which Keras 3 still reads and writes. The engine reaches
whole-model I/O through this module (``register_model_io``), so it re-exports what ``Model`` calls.
"""

import os

from . import keras_format, legacy_h5_format
from .keras_format import (  # noqa: F401 - the engine's model I/O (Model.to_json, *.weights.h5, configs)
    _compile_config,
    _compile_from_config,
    functional_config,
    functional_from_config,
    is_hdf5,
    load_weights_h5,
    save_weights_h5,
    to_json,
)

_LEGACY_H5 = (".h5", ".hdf5")


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """Write ``model`` to ``filepath``: a ``.keras`` zip, or a legacy HDF5 file for ``.h5``/``.hdf5``."""
    if os.fspath(filepath).endswith(_LEGACY_H5):
        return legacy_h5_format.save_model_to_hdf5(model, filepath, overwrite=overwrite,
                                                   include_optimizer=include_optimizer)
    return keras_format.save_model(model, filepath, overwrite=overwrite, include_optimizer=include_optimizer)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002 - Keras' argument name
    """A model from a ``.keras`` zip or a legacy ``.h5``/``.hdf5`` file (see the formats' modules)."""
    if os.fspath(filepath).endswith(_LEGACY_H5):
        return legacy_h5_format.load_model_from_hdf5(filepath, custom_objects=custom_objects, compile=compile)
    return keras_format.load_model(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)
