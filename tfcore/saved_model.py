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

# TF's tag, signature and file-name constants (tensorflow/python/saved_model/{tag,signature}_constants.py)
ASSETS_KEY = "saved_model_assets"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
GPU = "gpu"
TPU = "tpu"
TRAINING = "train"
PREDICT_INPUTS = "inputs"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
PREDICT_METHOD_NAME = PREDICT_METHOD

__all__ = ["save", "load", "SaveOptions", "LoadOptions", "contains_saved_model", "SERVING", "ASSETS_DIRECTORY",
           "SAVED_MODEL_FILENAME_PB", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME", "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
           "PREDICT_METHOD_NAME"]
