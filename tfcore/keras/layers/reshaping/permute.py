"""Permute: reorder the non-batch dimensions."""

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import InputSpec, Layer


class Permute(Layer):
    """Permute the non-batch dimensions: ``dims`` is a 1-indexed permutation, e.g. ``(2, 1)``."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` "
                             f"must be consecutive and start from 1. Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return array_ops.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0]] + [dims[d] for d in self.dims])

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["dims"] = self.dims
        return config
