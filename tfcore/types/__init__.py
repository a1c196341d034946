"""``tf.types``: TF's public type interfaces (``tf.types.experimental.TraceType``)."""

from . import experimental
