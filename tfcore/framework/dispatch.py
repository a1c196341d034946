"""Type-based API dispatch (TF's ``tensorflow/python/util/dispatch.py``, ``dispatch_for_api``).

A public op wrapped by :func:`add_dispatch_support` first looks at its arguments: when one of them
(or an element of a list/tuple argument) is an instance of a type registered with
:func:`register_dispatch_type` (``tf.RaggedTensor``, ...), the call goes to the handler registered for
that op with :func:`dispatch_for_api`; otherwise the op runs as written. The composite types register
their handlers in their own package (``tfcore/ragged/ragged_dispatch.py``), so the ops know nothing about
them and the common (dense) path costs one tuple check.
"""

import functools
import inspect

__all__ = ["add_dispatch_support", "dispatch_for_api", "register_dispatch_type",
           "is_dispatch_supported"]

_DISPATCH_TYPES = ()
_SEQUENCES = (list, tuple)
_HANDLERS = {}  # wrapper -> [(types, handler)]


def register_dispatch_type(cls):
    """Make instances of ``cls`` send calls of dispatch-enabled ops to their registered handlers."""
    global _DISPATCH_TYPES
    if cls not in _DISPATCH_TYPES:
        _DISPATCH_TYPES = _DISPATCH_TYPES + (cls,)
    return cls


def add_dispatch_support(fn):
    """``fn`` wrapped so that calls with a registered composite argument go to that type's handler."""
    if getattr(fn, "_tf_dispatch_target", None) is not None:
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        handlers = _HANDLERS.get(wrapper)
        if handlers:  # the scan inlined: every public op call pays it
            types = _DISPATCH_TYPES
            for v in (*args, *kwargs.values()) if kwargs else args:
                if isinstance(v, types) or (type(v) in _SEQUENCES and any(isinstance(e, types) for e in v)):
                    for handled, handler in handlers:
                        if any(_has_type(a, handled) for a in (*args, *kwargs.values())):
                            return handler(*args, **kwargs)
                    break
        return fn(*args, **kwargs)

    wrapper._tf_dispatch_target = fn
    # AutoGraph leaves library ops as they are (TF's allowlist of its own modules); converting the wrapper
    # would recompile ``fn``'s source with the wrapper's (absent) defaults. Name: autograph/api.py _DO_NOT_CONVERT.
    wrapper.__tfc_do_not_convert__ = True
    wrapper.__signature__ = inspect.signature(fn)
    return wrapper


def _has_type(value, types):
    if isinstance(value, types):
        return True
    return type(value) in (list, tuple) and any(isinstance(v, types) for v in value)


def is_dispatch_supported(api):
    return getattr(api, "_tf_dispatch_target", None) is not None


def dispatch_for_api(api, types, handler):
    """Calls of ``api`` with an argument of one of ``types`` run ``handler(*args, **kwargs)`` instead."""
    if not is_dispatch_supported(api):
        raise ValueError(f"dispatch_for_api: {getattr(api, '__name__', api)!r} does not support dispatch "
                         "(wrap it with add_dispatch_support)")
    types = tuple(types) if isinstance(types, (list, tuple)) else (types,)
    for t in types:
        register_dispatch_type(t)
    _HANDLERS.setdefault(api, []).append((types, handler))
    return handler


def unwrap(api):
    """The undecorated op behind a dispatch-enabled ``api``."""
    return getattr(api, "_tf_dispatch_target", api)
