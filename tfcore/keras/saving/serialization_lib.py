"""``keras.saving`` / ``keras.utils`` ``serialize_keras_object`` and ``deserialize_keras_object`` (Keras 3).

Any Keras object becomes a JSON-able structure and back: layers and models (Keras 3's layer format, see
keras_format.py), losses, metrics, optimizers, initializers, regularizers, constraints (``{"module",
"class_name", "config", "registered_name"}``), functions (``class_name: "function"``), plain Python values,
lists, dicts, tuples (``__tuple__``), bytes (``__bytes__``), NumPy arrays (``__numpy__``) and tensors
(``__tensor__``). Deserializing never imports or executes code named in the config: classes and functions are
looked up in ``custom_objects``, the registered custom objects and Keras's own tables. A Python lambda
(``__lambda__``, marshalled bytecode) is the one exception, and only with ``safe_mode=False`` (safe_mode.py).
"""

import types

import numpy as np

from ...framework import tensor as tensor_mod
from ...framework.tensor_conversion import convert_to_tensor
from .. import activations, losses, metrics
from ..engine.base_layer import Layer
from ..utils.object_registration import get_registered_name, lookup_custom_object
from . import keras_format
from .safe_mode import SafeModeScope, load_lambda

PLAIN_TYPES = (str, int, float, bool)

# (module name in the config, the keras module that serializes/deserializes those objects)
_FAMILIES = (
    ("keras.losses", "losses", "Loss"),
    ("keras.metrics", "metrics", "Metric"),
    ("keras.optimizers", "optimizers", "Optimizer"),
    ("keras.initializers", "initializers", "Initializer"),
    ("keras.regularizers", "regularizers", "Regularizer"),
    ("keras.constraints", "constraints", "Constraint"),
)


def _family_module(attr):
    import importlib

    return importlib.import_module(f"..{attr}", __package__.rpartition(".")[0] + ".saving")


def _family_of(obj):
    for module_name, attr, base_name in _FAMILIES:
        base = getattr(_family_module(attr), base_name, None)
        if isinstance(base, type) and isinstance(obj, base):
            return module_name, attr
    return None


def _is_layer(obj):
    return isinstance(obj, Layer)


def serialize_keras_object(obj):
    """The JSON-able description of ``obj`` that :func:`deserialize_keras_object` turns back into it."""
    if obj is None:
        return None
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, PLAIN_TYPES):
        return obj
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, tuple):
        return {"class_name": "__tuple__", "config": {"value": [serialize_keras_object(x) for x in obj]}}
    if isinstance(obj, list):
        return [serialize_keras_object(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): serialize_keras_object(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return {"class_name": "__numpy__", "config": {"value": obj.tolist(), "dtype": str(obj.dtype)}}
    if tensor_mod.is_tensor(obj) and hasattr(obj, "numpy"):
        return {"class_name": "__tensor__", "config": {"value": obj.numpy().tolist(), "dtype": obj.dtype.name}}
    if _is_layer(obj) and _family_of(obj) is None:  # (tfcore's metrics are layers: keep them in their family)
        return keras_format.serialize_layer(obj)
    if isinstance(obj, types.FunctionType | types.BuiltinFunctionType):
        module = obj.__module__ or ""
        if module.startswith("tfcore.keras."):  # built-in functions: Keras's public module name
            module = "keras." + module.split(".")[2].lstrip("_")
        return {"module": module, "class_name": "function", "config": obj.__name__,
                "registered_name": get_registered_name(obj)}
    if hasattr(obj, "get_config"):
        family = _family_of(obj)
        builtin = type(obj).__module__.startswith("tfcore.keras.")
        module = family[0] if family and builtin else type(obj).__module__
        return {"module": module, "class_name": type(obj).__name__,
                "config": serialize_keras_object(obj.get_config()),
                "registered_name": None if builtin else get_registered_name(type(obj))}
    if isinstance(obj, type):
        raise TypeError(f"Cannot serialize the class {obj!r}: serialize an instance (with get_config()).")
    raise TypeError(f"Cannot serialize object {obj!r} of type {type(obj)}: it is not a Keras object, a plain "
                    "Python value, a NumPy array or a tensor. To be serializable, a class must implement "
                    "`get_config()`.")


def _custom_lookup(name, custom_objects):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    return lookup_custom_object(name)


def _function(config, custom_objects):
    name = config["config"]
    registered = config.get("registered_name") or name
    fn = _custom_lookup(registered, custom_objects) or _custom_lookup(name, custom_objects)
    if fn is not None:
        return fn

    module = config.get("module") or ""
    order = [losses, metrics, activations] if "loss" in module or "metric" in module else [activations, losses,
                                                                                            metrics]
    for family in order:
        try:
            found = family.get(name)
        except (ValueError, TypeError):
            continue
        if callable(found) and not isinstance(found, type):
            return found
    raise TypeError(f"Could not locate function '{name}'. Make sure custom functions are passed in "
                    "`custom_objects` or registered with `keras.saving.register_keras_serializable()`.")


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """Rebuild the object :func:`serialize_keras_object` described (``custom_objects`` maps names to classes
    or functions). A Python lambda is refused with Keras 3's message unless ``safe_mode=False``."""
    if config is None:
        return None
    if isinstance(config, PLAIN_TYPES):
        if isinstance(config, str) and custom_objects and config in custom_objects:
            return custom_objects[config]
        return config
    if isinstance(config, list | tuple):
        return [deserialize_keras_object(x, custom_objects, safe_mode) for x in config]
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config!r}")
    if "class_name" not in config or "config" not in config:
        return {k: deserialize_keras_object(v, custom_objects, safe_mode) for k, v in config.items()}
    class_name, inner = config["class_name"], config["config"]
    if class_name == "__tuple__":
        return tuple(deserialize_keras_object(x, custom_objects, safe_mode) for x in inner["value"])
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=inner["dtype"])
    if class_name == "__tensor__":
        return convert_to_tensor(np.array(inner["value"], dtype=inner["dtype"]))
    if class_name == "__lambda__":
        with SafeModeScope(safe_mode):
            return load_lambda(config)
    if class_name == "function":
        return _function(config, custom_objects)
    module = config.get("module") or ""
    registered = config.get("registered_name")
    cls = (_custom_lookup(registered, custom_objects) if registered else None) or _custom_lookup(class_name,
                                                                                              custom_objects)
    for module_name, attr, _ in _FAMILIES:
        if cls is None and module.startswith(module_name):
            family = _family_module(attr)
            plain = {"class_name": class_name, "config": _plain(inner)}
            return family.deserialize(plain, custom_objects=custom_objects)
    if cls is not None and not _is_layer_class(cls):
        return cls.from_config(_plain(inner)) if hasattr(cls, "from_config") else cls(**_plain(inner))
    return keras_format.deserialize_layer(config, custom_objects)


def _is_layer_class(cls):
    return isinstance(cls, type) and issubclass(cls, Layer)


def _plain(value):
    """Undo serialize_keras_object's wrapping of nested tuples / arrays inside a config."""
    if isinstance(value, dict):
        if value.get("class_name") in ("__tuple__", "__numpy__", "__bytes__", "__tensor__") and "config" in value:
            return deserialize_keras_object(value)
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
