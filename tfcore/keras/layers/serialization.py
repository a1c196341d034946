"""``tf.keras.layers.serialize`` / ``deserialize`` over a table of built-in layer classes.

The layer package and ``keras.models`` register their classes here when they are imported, so that
deserializing a wrapper's inner layer or a Sequential model's layers needs no import back up into
those packages (no import cycle).
"""
from ..utils.object_registration import get_registered_name, lookup_custom_object

_BUILTIN = {}


def register(*classes):
    """Make ``classes`` known to :func:`deserialize` under their class names."""
    for cls in classes:
        _BUILTIN.setdefault(cls.__name__, cls)


def builtin_class(name):
    """The layer or model class registered under ``name`` (None if there is none)."""
    return _BUILTIN.get(name)


def serialize(layer):
    """``{'class_name': ..., 'config': layer.get_config()}`` (registered classes: ``"package>name"``)."""

    return {"class_name": get_registered_name(type(layer)), "config": layer.get_config()}


def deserialize(config, custom_objects=None):
    """Recreate a layer from :func:`serialize`'s output (custom classes through ``custom_objects``)."""
    name = config["class_name"]

    cls = (custom_objects or {}).get(name) or lookup_custom_object(name) or _BUILTIN.get(name)
    if cls is None or not isinstance(cls, type):
        raise ValueError(f"Unknown layer: '{name}'. Please ensure you are using a `keras.utils.custom_object_scope` "
                         "and that this object is included in the scope.")
    return cls.from_config(dict(config["config"]))
