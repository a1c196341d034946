"""``tf.keras.losses``: loss classes, their function forms, reductions, and lookup by name (``get``).

Laid out as Keras 3's ``keras/src/losses``: ``loss.py`` holds the base (``Loss``, ``LossFunctionWrapper``,
weighting and reduction), ``losses.py`` every loss function and class; this module publishes them and
resolves names, dicts and callables.
"""

from .loss import (  # noqa: F401 - the public names, and the helpers metrics and the compiled loss use
    EPSILON,
    Loss,
    LossFunctionWrapper,
    Reduction,
    compute_weighted_loss,
    reduce_weighted_loss,
    squeeze_or_expand_dimensions,
)
from .losses import *  # noqa: F403
from .losses import CLASSES as _LOSS_CLASSES
from .losses import FUNCTIONS as _LOSS_FUNCTIONS
from .losses import CategoricalCrossentropy, categorical_crossentropy
from ..utils.object_registration import with_custom_objects

_CLASSES = {c.__name__: c for c in (Loss, LossFunctionWrapper, *_LOSS_CLASSES)}
_FUNCTIONS = dict(_LOSS_FUNCTIONS)


def serialize(loss):
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    return loss.__name__


def deserialize(name, custom_objects=None):
    """A loss function (for a name) or a Loss object (for a ``{'class_name', 'config'}`` dict)."""
    custom_objects = with_custom_objects(name, custom_objects)
    if isinstance(name, dict):
        classes = {**_CLASSES, **(custom_objects or {})}
        cls = classes.get(name["class_name"])
        if cls is None:
            raise ValueError(f"Unknown loss function: '{name['class_name']}'. Please ensure you are using a "
                             "`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return cls.from_config(name["config"])
    table = {**_FUNCTIONS, **_CLASSES, **(custom_objects or {})}
    if name not in table:
        raise ValueError(f"Unknown loss function: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in the scope.")
    obj = table[name]
    return obj() if isinstance(obj, type) else obj


def get(identifier):
    """A loss from a name ('mse', 'sparse_categorical_crossentropy', class names), a dict, a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str | dict):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")


def is_categorical_crossentropy(loss):
    """True for the categorical (one-hot) cross-entropy in any of its forms (Keras uses it for 'accuracy')."""
    return isinstance(loss, CategoricalCrossentropy) or (
        isinstance(loss, LossFunctionWrapper) and loss.fn is categorical_crossentropy) or (
        loss is categorical_crossentropy or loss == "categorical_crossentropy")
