"""Layer wrappers: Bidirectional (an RNN run both ways), TimeDistributed (a layer applied per step) and the
``Wrapper`` base class (SpectralNormalization's)."""

import copy

from ...framework.tensor_shape import TensorShape
from ...ops import array_ops
from ..engine.base_layer import Layer
from .rnn import RNN
from .serialization import deserialize, serialize


class Bidirectional(Layer):
    """Run ``layer`` forward and a copy of it backward over time and merge the two outputs.

    ``merge_mode`` is 'concat' (default), 'sum', 'mul', 'ave' or None (a list of both).
    The backward copy has the same configuration with ``go_backwards`` flipped; with
    ``return_sequences`` its output is reversed back so step t lines up with step t.
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, RNN):
            raise ValueError(f"Please initialize `Bidirectional` layer with a `tf.keras.layers.RNN` instance. "
                             f"Received: {layer}")
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                             '{"sum", "mul", "ave", "concat", None}')
        super().__init__(**kwargs)
        self.forward_layer = layer
        if backward_layer is None:
            config = layer.get_config()
            config["go_backwards"] = not config.get("go_backwards", False)
            config["name"] = "backward_" + layer.name
            backward_layer = type(layer).from_config(config) if type(layer) is not RNN else \
                RNN(copy.deepcopy(layer.cell), **{k: v for k, v in config.items() if k != "batch_input_shape"})
        self.backward_layer = backward_layer
        self.forward_layer._name = "forward_" + layer.name
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        if weights is not None:
            self._initial_weights = weights

    def build(self, input_shape):
        self.forward_layer._maybe_build(input_shape)
        self.backward_layer._maybe_build(input_shape)
        self.built = True

    def _merge(self, y, y_rev):
        if self.return_sequences:
            y_rev = array_ops.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            return array_ops.concat([y, y_rev], axis=-1)
        if self.merge_mode == "sum":
            return y + y_rev
        if self.merge_mode == "ave":
            return (y + y_rev) / 2.0
        if self.merge_mode == "mul":
            return y * y_rev
        return [y, y_rev]

    def call(self, inputs, training=None, mask=None, initial_state=None):
        fw_state = bw_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            fw_state, bw_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(inputs, training=training, initial_state=fw_state, mask=mask)
        y_rev = self.backward_layer(inputs, training=training, initial_state=bw_state, mask=mask)
        if self.return_state:
            states = y[1:] + y_rev[1:]
            y, y_rev = y[0], y_rev[0]
        out = self._merge(y, y_rev)
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + states
        return out

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, list):
            mask = mask[0]
        out = mask if self.return_sequences else None
        if self.return_state:
            n = len(self.forward_layer._state_sizes()) * 2
            return ([out] if self.merge_mode is not None else [out, out]) + [None] * n
        return out if self.merge_mode is not None else [out, out]

    def compute_output_shape(self, input_shape):
        shape = self.forward_layer.compute_output_shape(input_shape)
        states = []
        if self.return_state:
            shape, states = shape[0], shape[1:]
        dims = TensorShape(shape).as_list()
        if self.merge_mode == "concat":
            dims[-1] = None if dims[-1] is None else dims[-1] * 2
        out = [TensorShape(dims)] * 2 if self.merge_mode is None else TensorShape(dims)
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + list(states) * 2
        return out

    def get_config(self):
        config = super().get_config()
        config.update({"layer": serialize(self.forward_layer), "merge_mode": self.merge_mode})
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["layer"] = deserialize(config["layer"])
        return cls(**config)


class TimeDistributed(Layer):
    """Apply ``layer`` to every time step: (batch, time, ...) -> (batch, time, layer output ...)."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `TimeDistributed` layer with a `tf.keras.layers.Layer` instance. "
                             f"Received: {layer}")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if len(dims) < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, "
                             f"received: {dims}")
        self.layer._maybe_build(TensorShape([None] + dims[2:]))
        self.built = True

    def call(self, inputs, training=None):
        dims = inputs.shape.as_list()
        flat = array_ops.reshape(inputs, [dims[0] * dims[1]] + dims[2:])
        y = self.layer(flat, training=training)
        return array_ops.reshape(y, dims[:2] + y.shape.as_list()[1:])

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        inner = TensorShape(self.layer.compute_output_shape(TensorShape([None] + dims[2:]))).as_list()
        return TensorShape(dims[:2] + inner[1:])


class Wrapper(Layer):
    """Base class of layers that wrap another ``layer`` (``TimeDistributed``, ``SpectralNormalization`` ...)."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer type. Please ensure "
                             "wrapped layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer._maybe_build(input_shape)
        self.built = True

    def call(self, inputs, *args, **kwargs):
        return self.layer(inputs, *args, **kwargs)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        config = super().get_config()
        config["layer"] = serialize(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = deserialize(config.pop("layer"), custom_objects)
        return cls(layer, **config)
