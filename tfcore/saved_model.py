"""``tf.saved_model``: save and load SavedModel directories (see tfcore/saving/saved_model.py)."""

from .saving.saved_model import (
                                 ASSETS_DIRECTORY,
                                 DEFAULT_SIGNATURE,
                                 PREDICT_METHOD,
                                 SAVED_MODEL_FILENAME_PB,
                                 SERVING,
                                 VARIABLES_DIRECTORY,
                                 VARIABLES_FILENAME,
                                 LoadOptions,
                                 SaveOptions,
                                 contains_saved_model,
                                 load,
                                 save,
)

DEFAULT_SERVING_SIGNATURE_DEF_KEY = DEFAULT_SIGNATURE
PREDICT_METHOD_NAME = PREDICT_METHOD

__all__ = ["save", "load", "SaveOptions", "LoadOptions", "contains_saved_model", "SERVING", "ASSETS_DIRECTORY",
           "SAVED_MODEL_FILENAME_PB", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME", "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
           "PREDICT_METHOD_NAME"]
