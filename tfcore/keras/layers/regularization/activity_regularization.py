"""ActivityRegularization: an identity that adds an L1/L2 activity loss."""

from ....framework.tensor_shape import TensorShape
from ... import regularizers
from ...engine.base_layer import Layer


class ActivityRegularization(Layer):
    """Identity whose activity adds ``l1 * sum(|x|) + l2 * sum(x^2)`` to the model's losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1 = l1
        self.l2 = l2
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update({"l1": self.l1, "l2": self.l2})
        return config
