"""``tf.keras.utils.legacy``: the Keras 2 (TF ≤ 2.15) ``serialize_keras_object`` / ``deserialize_keras_object``.

Keras 3 keeps these under ``keras.utils.legacy`` for libraries written against Keras 2 (keras-tuner stores its
hyper-parameters with them). Unlike the Keras 3 format of :mod:`tfcore.keras.saving.serialization_lib`, a
config is just ``{"class_name": name, "config": get_config()}`` and names are looked up in dicts the caller
passes (``module_objects`` from the library, ``custom_objects`` from the user), the active
``custom_object_scope`` and the registry — never imported by module path. Signatures follow Keras 3's
``keras.src.legacy.saving.serialization`` (shared-object scopes are not supported).
"""

import inspect

from .object_registration import CustomObjectScope, get_custom_objects, get_registered_name, get_registered_object


def serialize_keras_object(instance):
    """``{"class_name", "config"}`` of an object with ``get_config()``; the registered name of a function
    or class. Config values that are themselves Keras objects are serialized too (marked
    ``__passive_serialization__`` so :func:`deserialize_keras_object` rebuilds them).

    Raises ValueError for an object with neither ``get_config`` nor ``__name__``.
    """
    instance = inspect.unwrap(instance) if callable(instance) else instance
    if instance is None:
        return None
    if hasattr(instance, "get_config") and not isinstance(instance, type):
        config = {}
        for key, item in instance.get_config().items():
            if isinstance(item, str):
                config[key] = item
                continue
            try:
                serialized = serialize_keras_object(item)
            except ValueError:
                config[key] = item
                continue
            if isinstance(serialized, dict) and not isinstance(item, dict):
                serialized["__passive_serialization__"] = True
            config[key] = serialized
        return {"class_name": get_registered_name(type(instance)), "config": config}
    if hasattr(instance, "__name__"):
        return get_registered_name(instance)
    raise ValueError(f"Cannot serialize {instance!r} because it doesn't implement `get_config()`.")


def _unknown(printable_module_name, name):
    return ValueError(f"Unknown {printable_module_name}: '{name}'. Please ensure you are using a "
                      "`keras.utils.custom_object_scope` and that this object is included in the scope, or "
                      "pass it in `custom_objects` / `module_objects`.")


def _class_and_config(config, module_objects, custom_objects, printable_module_name):
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(f"Improper config format for {config!r}. Expecting python dict contains "
                         "`class_name` and `config` as keys")
    class_name = config["class_name"]
    cls = get_registered_object(class_name, custom_objects, module_objects)
    if cls is None:
        raise _unknown(printable_module_name, class_name)
    cls_config = config["config"]
    if isinstance(cls_config, list):  # Keras 2.0's Sequential: a list of layer configs
        return cls, cls_config
    cls_config = dict(cls_config)
    for key, item in cls_config.items():
        if key == "name":
            continue
        if isinstance(item, dict) and "__passive_serialization__" in item:
            item = {k: v for k, v in item.items() if k != "__passive_serialization__"}
            cls_config[key] = deserialize_keras_object(item, module_objects, custom_objects, "config_item")
        elif isinstance(item, str) and inspect.isfunction(get_registered_object(item, custom_objects,
                                                                                 module_objects)):
            cls_config[key] = get_registered_object(item, custom_objects, module_objects)
    return cls, cls_config


def deserialize_keras_object(identifier, module_objects=None, custom_objects=None, printable_module_name="object"):
    """The object a :func:`serialize_keras_object` result describes.

    ``identifier`` is a ``{"class_name", "config"}`` dict (the class's ``from_config`` builds it; a class
    without one is called with the config as keyword arguments), a name (a class is instantiated with no
    arguments, a function returned) or an already deserialized function. Names resolve through
    ``custom_objects``, the active ``custom_object_scope``, the registry and ``module_objects``.
    Raises ValueError naming ``printable_module_name`` for an unknown name or a malformed config.
    """
    if identifier is None:
        return None
    custom_objects = custom_objects or {}
    if isinstance(identifier, dict):
        cls, cls_config = _class_and_config(identifier, module_objects, custom_objects, printable_module_name)
        if hasattr(cls, "from_config"):
            if "custom_objects" in inspect.signature(cls.from_config).parameters:
                return cls.from_config(cls_config, custom_objects={**get_custom_objects(), **custom_objects})
            with CustomObjectScope(custom_objects):
                return cls.from_config(cls_config)
        with CustomObjectScope(custom_objects):
            return cls(**cls_config)
    if isinstance(identifier, str):
        obj = custom_objects.get(identifier)
        if obj is None:
            obj = get_registered_object(identifier, None, module_objects)
        if obj is None:
            raise _unknown(printable_module_name, identifier)
        return obj() if inspect.isclass(obj) else obj
    if inspect.isfunction(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier!r}")
