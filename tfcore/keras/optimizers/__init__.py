"""``tf.keras.optimizers``: Optimizer, SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adafactor, Adamax, Ftrl,
Lamb, Lion, Nadam, schedules, get/serialize."""

from . import schedules
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .nadam import Nadam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta, "adafactor": Adafactor, "adamax": Adamax, "ftrl": Ftrl, "lamb": Lamb,
            "lion": Lion, "nadam": Nadam}


def serialize(optimizer):
    """``{'class_name': ..., 'config': ...}``."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None, **kwargs):
    """An optimizer from :func:`serialize`'s output (class names are case-insensitive, as TF)."""
    classes = {**_BY_NAME, **{k.lower(): v for k, v in (custom_objects or {}).items()}}
    name = config["class_name"]
    cls = classes.get(name.lower())
    if cls is None:
        raise ValueError(f"Could not interpret optimizer identifier: {name}")
    return cls.from_config(config.get("config", {}), custom_objects=custom_objects)


def get(identifier, **kwargs):
    """An optimizer from an instance, a name ('adam', 'sgd', 'rmsprop', 'adagrad', 'adamw') or a config dict."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")

