"""``tf.experimental``: the names of TF's experimental namespace that tfcore implements."""

from .ragged.dynamic_ragged_shape import DynamicRaggedShape, RowPartition

__all__ = ["DynamicRaggedShape", "RowPartition"]
