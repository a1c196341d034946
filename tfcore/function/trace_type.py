"""``tf.types.experimental.TraceType``: custom tracing types (guide/function, "Use the tracing protocol").

An object whose class defines ``__tf_tracing_type__(context)`` is keyed in a tf.function's trace cache
by the ``TraceType`` that method returns (its ``__eq__``/``__hash__``), instead of by the object itself:
two objects with equal trace types reuse one concrete function. Mirrors TF's
``tensorflow/python/types/trace.py`` (the abstract methods a subclass must define are the same).
"""

import abc


class TracingContext:
    """What ``__tf_tracing_type__(context)`` receives (TF passes its tracing context; unused here)."""


class PlaceholderContext:
    """What ``TraceType.placeholder_value(placeholder_context)`` receives."""


class CastContext:
    """What ``TraceType.cast(value, cast_context)`` receives."""


class TraceType(metaclass=abc.ABCMeta):
    """The type of a tf.function argument, as TF's ``tf.types.experimental.TraceType``."""

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """Whether this type is a subtype of ``other`` (a trace for ``other`` can serve it)."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that ``self`` and every type of ``others`` are subtypes of, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context):
        """The value that stands for an argument of this type while tracing."""

    def to_tensors(self, value):
        """The tensors of ``value`` that are inputs of the graph (none by default)."""
        return []

    def from_tensors(self, tensors):
        return self.placeholder_value(PlaceholderContext())

    def flatten(self):
        return []

    def cast(self, value, cast_context):
        return value

    @abc.abstractmethod
    def __eq__(self, other):
        """Equal trace types share a concrete function."""

    @abc.abstractmethod
    def __hash__(self):
        """Trace types key the trace cache."""


def tracing_type_of(value):
    """``value.__tf_tracing_type__(context)`` when its class defines the protocol, else None."""
    protocol = getattr(type(value), "__tf_tracing_type__", None)
    if protocol is None:
        return None
    tt = protocol(value, TracingContext())
    if not isinstance(tt, TraceType):
        raise TypeError(f"{type(value).__name__}.__tf_tracing_type__ must return a tf.types.experimental.TraceType, "
                        f"got {type(tt).__name__}")
    return tt
