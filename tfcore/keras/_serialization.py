"""Shared ``get``/``serialize``/``deserialize`` helpers for Keras's string-or-object registries."""

import re

from .utils.object_registration import lookup_custom_object


def snake(name):
    s = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", s).lower()


def lookup(identifier, table, kind):
    """Resolve ``identifier`` (object, callable, string, or {'class_name', 'config'} dict) in ``table``."""
    if isinstance(identifier, dict):
        cls = table.get(identifier.get("class_name")) or table.get(snake(identifier.get("class_name", "")))
        if cls is None:
            cls = lookup_custom_object(identifier.get("class_name", ""))
        if cls is None:
            raise ValueError(f"Unknown {kind}: {identifier.get('class_name')!r}")
        return cls(**identifier.get("config", {}))
    if isinstance(identifier, str):
        obj = table.get(identifier)
        if obj is None:
            obj = table.get(snake(identifier))
        if obj is None:
            obj = lookup_custom_object(identifier)
        if obj is None:
            raise ValueError(f"Unknown {kind}: {identifier!r}. Please ensure you are using a "
                             f"`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return obj() if isinstance(obj, type) else obj
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret {kind} identifier: {identifier!r}")


def serialize(obj):
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    return getattr(obj, "__name__", None)
