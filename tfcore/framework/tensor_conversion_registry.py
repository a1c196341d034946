"""``tf.register_tensor_conversion_function``: how values of other types become tensors.

TF's ``tensor_conversion_registry``: a conversion function ``fn(value, dtype=None, name=None,
as_ref=False)`` registered for a type (and its subclasses) turns such a value into a Tensor, or
returns ``NotImplemented`` to let the next one try. ``convert_to_tensor`` and the op entry point
consult it before converting Python and NumPy values; variables register theirs here, so no code
needs to probe objects for private methods. A registered type also counts as tensor-like for
:func:`tfcore.framework.tensor.is_tensor` (``tf.is_tensor``), as variables do in TF.
"""

import threading

_lock = threading.Lock()
_registry = {}       # base type -> [(priority, order, fn)], lowest priority first
_by_type = {}        # concrete type -> tuple of functions to try (memo of the MRO walk; None: none)
_order = [0]

_UNCONVERTIBLE = (int, float, complex, bool, str, bytes, list, tuple, type(None))


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Register ``conversion_func`` for ``base_type`` (a type or tuple of types) and its subclasses.

    Functions run in ascending ``priority``; TF's signature:
    ``conversion_func(value, dtype=None, name=None, as_ref=False)``.
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    for t in types:
        if not isinstance(t, type):
            raise TypeError(f"register_tensor_conversion_function: base_type must be a type, got {t!r}")
        if t in _UNCONVERTIBLE:
            raise TypeError(f"Cannot register conversions for Python numeric/sequence type {t.__name__}")
    if not callable(conversion_func):
        raise TypeError("register_tensor_conversion_function: conversion_func must be callable")
    with _lock:
        for t in types:
            _order[0] += 1
            _registry.setdefault(t, []).append((priority, _order[0], conversion_func))
            _registry[t].sort(key=lambda e: (e[0], e[1]))
        _by_type.clear()


def get(query_type):
    """The conversion functions for ``query_type`` (most specific registered base first), or ()."""
    fns = _by_type.get(query_type)
    if fns is None:
        found = []
        for base in query_type.__mro__:
            found.extend(e for e in _registry.get(base, ()))
        found.sort(key=lambda e: (e[0], e[1]))
        fns = _by_type[query_type] = tuple(e[2] for e in found)
    return fns


def is_convertible(value):
    """Whether a conversion function is registered for ``value``'s type."""
    return bool(get(type(value)))


def convert(value, dtype=None, name=None):
    """Run ``value``'s registered conversion functions; ``NotImplemented`` when none applies."""
    for fn in get(type(value)):
        out = fn(value, dtype=dtype, name=name, as_ref=False)
        if out is not NotImplemented:
            return out
    return NotImplemented
