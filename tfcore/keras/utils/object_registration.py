"""Custom-object registration: ``register_keras_serializable``, ``get_custom_objects``,
``custom_object_scope``/``CustomObjectScope``, ``get_registered_name``, ``get_registered_object``.

Deserialization (``layers.deserialize``, ``Sequential.from_config``, and string identifiers of activations,
losses, metrics, ...) resolves names through :func:`lookup_custom_object`: the active scopes first, then the
global registry."""

import threading

_GLOBAL_CUSTOM_OBJECTS = {}
_GLOBAL_CUSTOM_NAMES = {}


class _Scopes(threading.local):
    def __init__(self):
        self.stack = []


_scopes = _Scopes()


def get_custom_objects():
    """The global ``{name: object}`` registry (mutable: ``get_custom_objects()["MyLayer"] = MyLayer``)."""
    return _GLOBAL_CUSTOM_OBJECTS


class CustomObjectScope:
    """``with CustomObjectScope({"MyLayer": MyLayer}):`` makes the objects visible to deserialization
    inside the block (scopes nest; the innermost wins)."""

    def __init__(self, *args):
        objects = {}
        for arg in args:
            if arg is None:
                continue
            if not isinstance(arg, dict):
                raise TypeError(f"Arguments to `CustomObjectScope` must be dicts. Received: {arg!r}")
            objects.update(arg)
        self.custom_objects = objects

    def __enter__(self):
        _scopes.stack.append(self.custom_objects)
        return self

    def __exit__(self, *exc):
        _scopes.stack.pop()


custom_object_scope = CustomObjectScope


def register_keras_serializable(package="Custom", name=None):
    """Class/function decorator: register the object as ``"package>name"`` (name defaults to its
    ``__name__``) so models using it can be deserialized without ``custom_objects``."""
    if not isinstance(package, str) or ">" in package:
        raise ValueError(f"Invalid `package` {package!r}: it must be a string without '>'")

    def decorator(obj):
        serialized = name if name is not None else obj.__name__
        key = f"{package}>{serialized}"
        if isinstance(obj, type) and not hasattr(obj, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[key] = obj
        _GLOBAL_CUSTOM_NAMES[obj] = key
        return obj

    return decorator


def get_registered_name(obj):
    """``"package>name"`` of a registered object, else its ``__name__``."""
    if obj in _GLOBAL_CUSTOM_NAMES:
        return _GLOBAL_CUSTOM_NAMES[obj]
    return getattr(obj, "__name__", type(obj).__name__)


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered (in a scope, the global registry, ``custom_objects`` or ``module_objects``)
    under ``name``, else None."""
    for scope in reversed(_scopes.stack):
        if name in scope:
            return scope[name]
    if name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


def lookup_custom_object(name):
    """A class/function by serialized name: scopes, then the registry by full key, then by the part after
    ``>`` (so ``"MyLayer"`` finds ``"Custom>MyLayer"``)."""
    obj = get_registered_object(name)
    if obj is not None:
        return obj
    for key, value in _GLOBAL_CUSTOM_OBJECTS.items():
        if key.split(">")[-1] == name:
            return value
    return None


def with_custom_objects(identifier, custom_objects=None):
    """``custom_objects`` plus the scoped/registered object named by ``identifier`` (a name or a
    ``{'class_name': ...}`` dict), for deserializers that look names up in a table."""
    name = identifier.get("class_name") if isinstance(identifier, dict) else identifier
    obj = lookup_custom_object(name) if isinstance(name, str) else None
    if obj is None:
        return custom_objects
    return {**(custom_objects or {}), name: obj}
