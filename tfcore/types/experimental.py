"""``tf.types.experimental``: the tracing protocol's types (custom ``__tf_tracing_type__``)."""

from ..function.trace_type import CastContext, PlaceholderContext, TraceType, TracingContext

__all__ = ["CastContext", "PlaceholderContext", "TraceType", "TracingContext"]
