"""Keras 3's context on errors raised inside a layer's ``call`` (``keras/src/utils/traceback_utils.py``,
``inject_argument_info_in_traceback``).

An exception raised while a layer's ``call`` runs is re-raised, once, by the innermost layer whose ``call``
it came through, as the same exception type with Keras 3's message::

    Exception encountered when calling Sequential.call().

    \\x1b[1m<the original message>\\x1b[0m

    Arguments received by Sequential.call():
      • inputs=tf.Tensor(shape=(32, 24, 19), dtype=float32)
      • training=None

Keras 3 does so while traceback filtering is on (the default; ``tf.keras.config.disable_traceback_filtering()``
turns it off, and the original exception then passes unchanged).
"""

import inspect
import threading

from ...framework import nest

_state = threading.local()
_filtering = [True]


def enable_traceback_filtering():
    """``keras.config.enable_traceback_filtering``: errors in a layer's call name the layer and its arguments."""
    _filtering[0] = True


def disable_traceback_filtering():
    """``keras.config.disable_traceback_filtering``: errors in a layer's call pass through unchanged."""
    _filtering[0] = False


def is_traceback_filtering_enabled():
    """``keras.config.is_traceback_filtering_enabled`` (True by default, as Keras 3)."""
    return _filtering[0]


class suspended:
    """No annotation inside (a layer run on placeholder zeros to infer its output shape: its arguments there
    are not the user's)."""

    def __enter__(self):
        _state.depth = getattr(_state, "depth", 0) + 1

    def __exit__(self, *exc):
        _state.depth -= 1


def _format_argument(value):
    """Keras 3's ``format_argument_value``: tensors by shape and dtype, anything else by repr."""
    if hasattr(value, "_array") or type(value).__name__ in ("Tensor", "EagerTensor", "SparseTensor",
                                                             "RaggedTensor"):
        shape = tuple(value.shape.as_list()) if value.shape.rank is not None else None
        return f"tf.Tensor(shape={shape}, dtype={value.dtype.name})"
    return repr(value)


def _annotatable(error):
    """Errors users see: Python's and their own exceptions and tf.errors; not tfcore's internal signals
    (a trace that must fall back, a capture that failed), which their catchers expect unchanged."""
    module = type(error).__module__ or ""
    return not module.startswith(("tfcore.", "distribute.")) or hasattr(error, "node_def")


def annotate(error, layer, args, kwargs):
    """The exception to raise for ``error`` raised in ``layer.call(*args, **kwargs)``: ``error`` itself when it
    already carries a layer's context (an inner layer's), when annotation is off, or when the arguments do not
    bind to ``call``'s signature; else a new exception of the same type with Keras 3's message."""
    if getattr(error, "_keras_call_info_injected", False) or not _filtering[0] or getattr(_state, "depth", 0) \
            or not _annotatable(error):
        return error
    try:
        signature = inspect.signature(layer.call)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return error
    lines = []
    for param in signature.parameters.values():
        if param.name in bound.arguments:
            value = nest.map_structure(_format_argument, bound.arguments[param.name])
        else:
            value = param.default
        lines.append(f"  \u2022 {param.name}={value}")
    if not lines:
        return error
    name = f"{type(layer).__name__}.call()"
    original = getattr(error, "message", None) if hasattr(error, "node_def") else None
    if original is None:
        original = error.args[0] if error.args else ""
    message = (f"Exception encountered when calling {name}.\n\n\x1b[1m{original}\x1b[0m\n\n"
               f"Arguments received by {name}:\n" + "\n".join(lines))
    try:
        if hasattr(error, "node_def"):  # tf.errors.OpError: TF's (node_def, op, message) signature
            new = type(error)(error.node_def, error.op, message)
        else:
            new = type(error)(message)
    except TypeError:
        new = RuntimeError(message)
    new._keras_call_info_injected = True
    return new
