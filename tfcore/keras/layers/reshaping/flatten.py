"""Flatten: every non-batch dimension into one (``channels_first`` inputs transposed first, as Keras)."""

import math

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import InputSpec, Layer


class Flatten(Layer):
    """Collapse all but the batch axis: (batch, d1, d2, ...) -> (batch, d1*d2*...)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.shape.rank > 2:
            perm = [0] + list(range(2, inputs.shape.rank)) + [1]
            inputs = array_ops.transpose(inputs, perm)
        if inputs.shape.rank == 1:
            return array_ops.expand_dims(inputs, 1)
        rest = inputs.shape.as_list()[1:]
        if all(d is not None for d in rest) and math.prod(rest) > 0:
            return array_ops.reshape(inputs, (-1, math.prod(rest)))  # batch-size independent (traced graphs too)
        return array_ops.reshape(inputs, (inputs.shape[0], -1))

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if len(dims) == 1:
            return TensorShape([dims[0], 1])
        rest = dims[1:]
        flat = None if any(d is None for d in rest) else math.prod(rest)
        return TensorShape([dims[0], flat])

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config
