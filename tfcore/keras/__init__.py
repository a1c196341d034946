"""``tf.keras``: layers, models, training and applications (TF2 Keras API)."""

from . import activations, backend, constraints, initializers, regularizers
from . import layers, models
from .engine.input_layer import Input
from .engine.model import Model
from .engine.sequential import Sequential
from . import applications
from . import callbacks, datasets, losses, metrics, optimizers, saving, utils
from . import config  # noqa: F401 - tf.keras.config (Keras 3)
from . import mixed_precision

from .engine import model as _model_engine

_model_engine.register_model_io(saving.saving_api)  # Model.save / to_json / *.weights.h5 (keras/saving)
