"""``keras.Input`` / ``keras.layers.InputLayer``: the entry points of a functional graph."""

from ...framework import dtypes
from .. import backend
from .base_layer import Layer
from .keras_tensor import KerasTensor
from .node import Node


class InputLayer(Layer):
    """A layer with no inputs whose single output is a symbolic placeholder of a given shape."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None, sparse=None,
                 name=None, ragged=None, type_spec=None, **kwargs):
        batch_input_shape = kwargs.pop("batch_input_shape", None) or kwargs.pop("batch_shape", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
        if ragged:
            raise NotImplementedError("tfcore does not support ragged Keras inputs (Keras 3 has none either)")
        if sparse and input_tensor is not None:
            raise ValueError("InputLayer: pass either sparse=True or an input_tensor, not both")
        self._sparse = bool(sparse)
        if name is None:
            name = backend.unique_object_name("input", zero_based=False)
        if input_tensor is not None and dtype is None:
            dtype = input_tensor.dtype
        super().__init__(name=name, dtype=dtype or backend.floatx())
        if batch_input_shape is None:
            if input_tensor is not None:
                batch_input_shape = tuple(input_tensor.shape.as_list())
            elif input_shape is None:
                raise ValueError("Please provide `input_shape` or `batch_input_shape` to InputLayer.")
            else:
                input_shape = (input_shape,) if isinstance(input_shape, int) else tuple(input_shape)
                batch_input_shape = (batch_size,) + input_shape
        self._batch_input_shape = tuple(batch_input_shape)
        self.built = True
        self.is_placeholder = True
        if input_tensor is None:
            input_tensor = KerasTensor(self._batch_input_shape, self._dtype, name=name, sparse=self._sparse)
        Node(self, (), {}, input_tensor)

    @property
    def input(self):
        return self._inbound_nodes[0].outputs

    @property
    def input_shape(self):
        return [self._batch_input_shape]

    @property
    def output_shape(self):
        return [self._batch_input_shape]

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype, "sparse": self._sparse,
                "ragged": False, "name": self.name}


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=None, tensor=None,  # noqa: N802
          ragged=None, type_spec=None, batch_shape=None, **kwargs):
    """A symbolic tensor of ``(batch_size,) + shape`` to start a functional model (``tf.keras.Input``)."""
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` argument. "
                         "Note that `shape` does not include the batch dimension.")
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    layer = InputLayer(input_shape=shape, batch_size=batch_size, name=name, dtype=dtype, sparse=sparse,
                       input_tensor=tensor, ragged=ragged, batch_input_shape=batch_shape, **kwargs)
    return layer._inbound_nodes[0].outputs
