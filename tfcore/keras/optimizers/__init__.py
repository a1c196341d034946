"""``tf.keras.optimizers``: Optimizer, SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adafactor, Adamax, Ftrl,
Lamb, Lion, Nadam, LossScaleOptimizer, schedules, get/serialize."""

from . import schedules, serialization
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .loss_scale_optimizer import LossScaleOptimizer
from .nadam import Nadam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .serialization import serialize
from .sgd import SGD


def deserialize(config, custom_objects=None, **kwargs):
    """An optimizer from :func:`serialize`'s output (class names are case-insensitive, as TF), the
    built-in ones, ``LossScaleOptimizer`` and ``custom_objects``."""
    return serialization.deserialize(config, {"LossScaleOptimizer": LossScaleOptimizer, **(custom_objects or {})})


def get(identifier, **kwargs):
    """An optimizer from an instance, a name ('adam', 'sgd', 'rmsprop', 'adagrad', 'adamw') or a config dict."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = serialization.BUILTIN.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
