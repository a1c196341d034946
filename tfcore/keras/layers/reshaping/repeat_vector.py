"""RepeatVector: ``(batch, features)`` to ``(batch, n, features)``."""

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import InputSpec, Layer


class RepeatVector(Layer):
    """``(batch, features)`` -> ``(batch, n, features)``."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, int):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return array_ops.repeat(array_ops.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0], self.n, dims[1]])

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["n"] = self.n
        return config
