"""Keras 3's automatic ``get_config`` for layers and models that do not write their own.

Keras 3 (``keras/src/ops/operation.py``, ``Operation.__new__``) records the arguments a layer was
constructed with, when they are all simple values (str, int, float, bool, None, nested in lists,
tuples and dicts), and ``get_config()`` of a class that does not override it returns them, so a
subclass like ``MyDense(units=3)`` is saved to and loaded from a ``.keras`` file without writing a
``get_config``. A class built with other values (a layer, a tensor), or with ``*args``/positional-only
arguments, gets Keras' NotImplementedError asking for a ``get_config``.

``keras.Model.__new__`` calls ``Operation.__new__`` without the constructor's arguments, so a subclassed
model records only its ``__init__`` defaults (and none when an argument has no default): this module
follows that too (``record(..., args=(), kwargs={})`` from :class:`~tfcore.keras.engine.model.Model`).
"""

import inspect
import textwrap

_SUPPORTED = (str, int, float, bool, type(None))

_EXAMPLE = """
class CustomLayer(keras.layers.Layer):
    def __init__(self, arg1, arg2, **kwargs):
        super().__init__(**kwargs)
        self.arg1 = arg1
        self.arg2 = arg2

    def get_config(self):
        config = super().get_config()
        config.update({
            "arg1": self.arg1,
            "arg2": self.arg2,
        })
        return config
"""


def _simple(value):
    if isinstance(value, _SUPPORTED):
        return True
    if isinstance(value, list | tuple):
        return all(_simple(v) for v in value)
    if isinstance(value, dict):
        return all(_simple(v) for v in value.values())
    return False


def record(instance, cls, args, kwargs):
    """Store on ``instance`` the config Keras 3 derives from ``cls(*args, **kwargs)`` (or None)."""
    d = instance.__dict__
    d["_auto_config"] = None
    try:
        signature = inspect.signature(cls.__init__)
        argspec = inspect.getfullargspec(cls.__init__)
    except (TypeError, ValueError):
        return
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:  # the arguments do not fit the signature: no config (Keras does the same)
        return
    first = argspec.args[0] if argspec.args else None
    if any(p.kind is inspect.Parameter.POSITIONAL_ONLY for name, p in signature.parameters.items() if name != first):
        d["_auto_config_error_args"] = True
        return
    bound.apply_defaults()
    config = dict(bound.arguments)
    if argspec.varkw is not None:
        config.update(config.pop(argspec.varkw, {}))
    if first is not None:
        config.pop(first, None)
    config.pop("name", None)  # get_config gives the layer's own name
    if argspec.varargs is not None and config.pop(argspec.varargs, ()):
        d["_auto_config_error_args"] = True
        return
    if all(_simple(v) for v in config.values()):
        d["_auto_config"] = config


def uses_default(layer, base_get_config):
    """True when ``layer``'s class does not override ``get_config`` (``base_get_config`` is the default)."""
    return getattr(type(layer).get_config, "__func__", type(layer).get_config) is base_get_config


def config(layer):
    """The recorded constructor arguments of ``layer`` for ``get_config`` (``name`` first, as Keras), or Keras'
    NotImplementedError when the layer was built with arguments that have no automatic config."""
    recorded = layer.__dict__.get("_auto_config")
    if recorded is None:
        name = type(layer).__name__
        if layer.__dict__.get("_auto_config_error_args"):
            raise NotImplementedError(textwrap.dedent(f"""
            Object {name} was created by passing
            positional only or variadic positional arguments (e.g.,
            `*args`) to `__init__()`, which is not supported by the
            automatic config generation. Please remove all positional
            only and variadic arguments from `__init__()`
            or override `get_config()` and `from_config()` to make
            the object serializatble.

            Example:
            """) + _EXAMPLE)
        raise NotImplementedError(textwrap.dedent(f"""
            Object {name} was created by passing
            non-serializable argument values in `__init__()`,
            and therefore the object must override `get_config()` in
            order to be serializable. Please implement `get_config()`.

            Example:
            """) + _EXAMPLE)
    out = {"name": layer.name}
    out.update(recorded)
    params = inspect.signature(type(layer).__init__).parameters
    has_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if "name" not in params and not has_kwargs:
        out.pop("name")  # __init__ could not take it back
    return out
