"""``Masking``: mark the time steps whose features all equal ``mask_value`` as padding for later layers."""

from ...ops import math_ops, reduce_ops
from ..engine.base_layer import Layer


class Masking(Layer):
    """Outputs the inputs with masked steps zeroed, and the mask ``any(inputs != mask_value, axis=-1)``
    (batch, time) that RNNs, attention, pooling and losses downstream honour."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self._build_at_init()

    def compute_mask(self, inputs, mask=None):
        return reduce_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = reduce_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * math_ops.cast(keep, inputs.dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["mask_value"] = self.mask_value
        return config
