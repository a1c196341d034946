"""``tf.keras.Sequential``: a plain stack of single-input, single-output layers.

With a known input shape (an ``Input``/``InputLayer`` first, or ``input_shape=`` on the
first layer, or ``build(shape)``), each added layer is called on the running symbolic
output, so it is built at once and ``summary()`` shows output shapes. Otherwise the
model is built on its first call, from the data's shape (batch size included, as Keras 3), or in
``fit``/``evaluate`` from the first batch with the batch size unknown.
"""

from ...framework import nest
from ...framework.tensor_shape import TensorShape
from ...framework.tensor_spec import TensorSpec
from ..layers.serialization import deserialize, serialize
from .base_layer import Layer, bump_structure_version
from .functional import conform_input
from .input_layer import InputLayer
from .keras_tensor import KerasTensor
from .model import Model
from .variable_paths import path_scope


class Sequential(Model):
    """``Sequential(layers=None, name=None)``; layers may also be appended with :meth:`add`."""

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._autocast = False  # as Keras's Sequential (a Functional model): its layers cast their inputs
        self._seq_layers = []
        self._input_layer = None
        self._output_tensor = None
        if layers:
            if not isinstance(layers, list | tuple):
                layers = [layers]
            for layer in layers:
                self.add(layer)

    def _sublayers(self):
        return list(self._seq_layers)

    @property
    def layers(self):
        return list(self._seq_layers)

    def add(self, layer):
        """Append a layer (or set the input with an ``Input`` tensor / ``InputLayer``)."""
        if isinstance(layer, KerasTensor):
            layer = layer._keras_history.layer
        if isinstance(layer, InputLayer):
            if self._seq_layers or self._input_layer is not None:
                raise ValueError("An InputLayer can only be the first layer of a Sequential model.")
            self._set_input(layer)
            return
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. "
                            f"Received: layer={layer} of type {type(layer)}.")
        if any(lay.name == layer.name for lay in self._seq_layers):
            raise ValueError(f'All layers added to a Sequential model should have unique names. Name "{layer.name}" '
                             "is already the name of a layer in this model. Update the `name` argument to pass a "
                             "unique name.")
        self._seq_layers.append(layer)
        bump_structure_version()
        if self._input_layer is None and len(self._seq_layers) == 1 and hasattr(layer, "_batch_input_shape"):
            self._set_input(InputLayer(batch_input_shape=layer._batch_input_shape, dtype=layer.dtype,
                                       name=layer.name + "_input"))
        elif self._output_tensor is not None:
            self._extend_graph(layer)

    def _set_input(self, input_layer):
        self._input_layer = input_layer
        self._output_tensor = input_layer._inbound_nodes[0].outputs
        for layer in self._seq_layers:
            self._extend_graph(layer)
        self.built = bool(self._seq_layers)

    def _extend_graph(self, layer):
        with path_scope(self.name, self):  # Keras 3 builds the layers inside the model: sequential/dense/kernel
            out = layer(self._output_tensor)
        if len(nest.flatten(out)) != 1:
            raise ValueError("All layers in a Sequential model should have a single output tensor. For multi-output "
                             "layers, use the functional API.")
        self._output_tensor = out
        self.built = True

    def pop(self):
        """Remove the last layer."""
        if not self._seq_layers:
            raise TypeError("There are no layers in the model.")
        self._seq_layers.pop()
        bump_structure_version()
        if self._input_layer is not None:
            input_layer = self._input_layer
            self._input_layer = None
            self._set_input(input_layer)

    @property
    def inputs(self):
        return [self._input_layer._inbound_nodes[0].outputs] if self._input_layer is not None else None

    @property
    def outputs(self):
        return [self._output_tensor] if self._input_layer is not None and self._seq_layers else None

    @property
    def input(self):
        return self.inputs[0] if self.inputs else Layer.input.fget(self)

    @property
    def output(self):
        return self._output_tensor if self.outputs else Layer.output.fget(self)

    @property
    def input_shape(self):
        if self._input_layer is None:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined input shape.")
        return tuple(self._input_layer._batch_input_shape)

    @property
    def output_shape(self):
        if self._output_tensor is None:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined output "
                                 "shape.")
        return tuple(self._output_tensor.shape.as_list())

    def build(self, input_shape=None):
        """Build from ``input_shape`` (batch dimension included, usually None)."""
        if self._input_layer is None:
            if input_shape is None:
                raise ValueError("You must provide an `input_shape` argument.")
            self._set_input(InputLayer(batch_input_shape=tuple(input_shape), dtype=self.dtype))
        self.built = True

    def _convert_inputs(self, inputs):
        inputs = super()._convert_inputs(inputs)
        if not self.built:
            self._first_input_dtype = getattr(inputs, "dtype", None)
        return inputs

    def _maybe_build(self, input_shapes):
        """Deferred build from the first input, with its whole shape, batch size included, as Keras 3's
        ``Sequential.build`` (a model first called on 10 rows, or predicting them, summarises as ``(10, 9)``).
        ``fit`` and ``evaluate`` build from their data's spec instead (:meth:`_build_from_batches`)."""
        if self.built:
            return
        if self._input_layer is None:
            if not isinstance(input_shapes, TensorShape):
                raise ValueError("A Sequential model takes a single input tensor; use the functional API for "
                                 "several inputs.")
            dtype = getattr(self, "_first_input_dtype", None) or self._variable_dtype
            self._set_input(InputLayer(batch_input_shape=tuple(input_shapes.as_list()), dtype=dtype))
        self.built = True

    def _build_from_batches(self, x):
        """``fit``/``evaluate`` on an unbuilt model: build from the first batch ``x`` with the batch size
        unknown, as Keras 3's train and test functions are traced on the dataset's spec (``(None, 9)``)."""
        if self.built or self._input_layer is not None or not hasattr(x, "shape") or isinstance(x, dict):
            return
        x = self._convert_inputs(x)
        shape = TensorShape(x.shape)
        if shape.rank:
            self._maybe_build(TensorShape([None] + shape.as_list()[1:]))

    def call(self, inputs, training=None, mask=None, **kwargs):
        """Run the layers in order (Keras 3's signature: extra keyword arguments are accepted and unused)."""
        x = inputs
        if self._input_layer is not None:  # Keras 3: the Input's dtype, and its rank by a trailing 1
            x = conform_input(x, self.inputs[0])
        for layer in self._seq_layers:
            x = layer(x)
        return x

    def _has_static_output_shape(self):
        return True

    def compute_output_signature(self, input_signature):
        sig = input_signature
        for layer in self._seq_layers:
            sig = layer._signature_call((sig,))
        return sig

    def compute_output_shape(self, input_shape):
        sig = TensorSpec(input_shape, self._dtype)
        return self.compute_output_signature(sig).shape

    def get_config(self):
        layers = [serialize(lay) for lay in self._seq_layers]
        if self._input_layer is not None:
            layers.insert(0, serialize(self._input_layer))
        return {"name": self.name, "layers": layers}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        model = cls(name=config.get("name"))
        for layer_config in config["layers"]:
            model.add(deserialize(layer_config, custom_objects=custom_objects))
        return model
