"""``Embedding``: integer ids -> rows of a trainable (input_dim, output_dim) matrix."""

from ...framework import dtypes
from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, math_ops
from .. import initializers
from ..engine.base_layer import Layer
from ._weights import add_role_weight, set_weight_args


class Embedding(Layer):
    """Look up ``embeddings[ids]``; output shape ``ids.shape + (output_dim,)``."""

    # the attribute Keras 3 keeps a weight in, which names it in checkpoints (saving/graph.py)
    _keras3_weight_attributes = {"embeddings": "_embeddings"}

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 activity_regularizer=None, embeddings_constraint=None, mask_zero=False, input_length=None,
                 **kwargs):
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,)
        kwargs.setdefault("autocast", False)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if input_dim <= 0 or output_dim <= 0:
            raise ValueError("Both `input_dim` and `output_dim` should be positive, "
                             f"Received input_dim = {input_dim} and output_dim = {output_dim}")
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        set_weight_args(self, "embeddings", embeddings_initializer, embeddings_regularizer, embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.input_length = input_length

    def build(self, input_shape=None):
        # not autocast: under a mixed policy the gathered rows are cast, not the whole table (as Keras)
        self.embeddings = add_role_weight(self, "embeddings", (self.input_dim, self.output_dim),
                                          experimental_autocast=False)
        self.built = True

    def call(self, inputs):
        if not inputs.dtype.is_integer:
            inputs = math_ops.cast(inputs, dtypes.int32)
        out = array_ops.gather(self.embeddings, inputs)
        return math_ops.cast(out, self._dtype) if out.dtype is not self._dtype else out

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape).concatenate([self.output_dim])

    def get_config(self):
        config = super().get_config()
        config.update({"input_dim": self.input_dim, "output_dim": self.output_dim,
                       "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
                       "mask_zero": self.mask_zero, "input_length": self.input_length})
        return config
