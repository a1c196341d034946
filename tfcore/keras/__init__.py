"""``tf.keras``: layers, models, training and applications (TF2 Keras API)."""

from . import activations, backend, constraints, initializers, regularizers
from . import layers, models
from .engine.input_layer import Input
from .engine.model import Model
from .engine.sequential import Sequential
from . import applications
from . import callbacks, datasets, losses, metrics, optimizers, saving, utils
