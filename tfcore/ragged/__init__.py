"""``tf.ragged``: ragged tensors (``tf.RaggedTensor``) and their helpers."""

from .ragged_tensor import (
    RaggedTensor,
    RaggedTensorSpec,
    boolean_mask,
    constant,
    map_flat_values,
    range,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
    stack,
)
from . import ragged_dispatch  # noqa: F401,E402 - tf.add, tf.reduce_mean, tf.concat ... take RaggedTensors
