"""``tf.keras.optimizers.serialize`` / ``deserialize`` for the built-in optimizers (class names matched
case-insensitively, as Keras 3's ``ALL_OBJECTS_DICT``); ``LossScaleOptimizer`` adds itself in the package's
``deserialize``, since it deserializes its inner optimizer with this module."""

from ..utils.object_registration import get_registered_name
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .nadam import Nadam
from .rmsprop import RMSprop
from .sgd import SGD

BUILTIN = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad,
           "adadelta": Adadelta, "adafactor": Adafactor, "adamax": Adamax, "ftrl": Ftrl, "lamb": Lamb,
           "lion": Lion, "nadam": Nadam}


def serialize(optimizer):
    """Keras 3's form: ``{'module': 'keras.optimizers', 'class_name': ..., 'config': ..., 'registered_name':
    None}`` (a custom class: its module and registered name), which TF 2.21's ``deserialize`` reads too."""
    cls = type(optimizer)
    builtin = cls.__module__.startswith(__name__.rpartition(".")[0] + ".")
    return {"module": "keras.optimizers" if builtin else cls.__module__, "class_name": cls.__name__,
            "config": optimizer.get_config(), "registered_name": None if builtin else get_registered_name(cls)}


def deserialize(config, custom_objects=None, **kwargs):
    """An optimizer from :func:`serialize`'s output (class names are case-insensitive, as TF)."""
    classes = {**BUILTIN, **{k.lower(): v for k, v in (custom_objects or {}).items()}}
    name = config["class_name"]
    cls = classes.get(name.lower())
    if cls is None:
        raise ValueError(f"Could not interpret optimizer identifier: {name}")
    return cls.from_config(config.get("config", {}), custom_objects=custom_objects)
