"""Reshape: the non-batch dimensions to ``target_shape`` (one ``-1`` inferred)."""

import math

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import Layer


class Reshape(Layer):
    """Reshape each example to ``target_shape`` (one entry may be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def _resolve(self, input_shape):
        dims = TensorShape(input_shape).as_list()[1:]
        target = list(self.target_shape)
        if -1 in target:
            if any(d is None for d in dims):
                return [None if t == -1 else t for t in target]
            known = math.prod(t for t in target if t != -1)
            total = math.prod(dims)
            if known == 0 or total % known:
                raise ValueError(f"Total size of new array must be unchanged, input_shape = {dims}, "
                                 f"output_shape = {list(self.target_shape)}")
            target[target.index(-1)] = total // known
        elif all(d is not None for d in dims) and math.prod(dims) != math.prod(target):
            raise ValueError(f"Total size of new array must be unchanged, input_shape = {dims}, "
                             f"output_shape = {list(self.target_shape)}")
        return target

    def call(self, inputs):
        return array_ops.reshape(inputs, (inputs.shape[0],) + self.target_shape)

    def compute_output_shape(self, input_shape):
        return TensorShape([TensorShape(input_shape)[0]] + self._resolve(input_shape))

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = self.target_shape
        return config
