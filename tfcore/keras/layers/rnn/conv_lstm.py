"""The convolutional LSTMs (ConvLSTM1D/2D/3D).

``ConvLSTMnD`` is an LSTM whose input and recurrent transforms are convolutions: kernel
``kernel_size + (in_channels, 4 * filters)``, recurrent kernel ``kernel_size + (filters, 4 * filters)``,
gates ``i, f, c, o`` as Keras; the recurrent convolution uses 'same' padding so the state keeps the
output's spatial shape.
"""

import numpy as np

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, conv_nd_ops, conv_ops, math_ops
from ... import activations
from ...engine.base_layer import Layer
from .._weights import add_bias, add_role_weight, set_weight_args, weights_config
from ..convolutional.base_conv import conv_output_length, normalize_padding, normalize_tuple
from .rnn import RNN


class _ConvLSTMCell(Layer):
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", unit_forget_bias=True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        n = self.rank
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, n, "kernel_size")
        self.strides = normalize_tuple(strides, n, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = data_format or "channels_last"
        self.dilation_rate = normalize_tuple(dilation_rate, n, "dilation_rate")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.unit_forget_bias = unit_forget_bias
        set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        set_weight_args(self, "recurrent", recurrent_initializer, recurrent_regularizer, recurrent_constraint)
        set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self._out_spatial = None

    @property
    def state_size(self):
        return [self.filters, self.filters]

    @property
    def output_size(self):
        return self.filters

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()  # (batch, *spatial, channels), channels last
        cin = dims[-1]
        self._out_spatial = [conv_output_length(d, k, self.padding, s, r) for d, k, s, r in
                             zip(dims[1:-1], self.kernel_size, self.strides, self.dilation_rate)]
        self.kernel = add_role_weight(self, "kernel", self.kernel_size + (cin, 4 * self.filters))
        self.recurrent_kernel = add_role_weight(self, "recurrent", self.kernel_size + (self.filters, 4 * self.filters),
                                                name="recurrent_kernel")
        init = None
        if self.use_bias and self.unit_forget_bias:
            base = self.bias_initializer
            f = self.filters

            def init(shape, dtype=None):
                b = np.asarray(base((f,), dtype=dtype).numpy() if hasattr(base((f,), dtype=dtype), "numpy")
                               else base((f,), dtype=dtype))
                return np.concatenate([b, np.ones(f, b.dtype), np.asarray(base((2 * f,), dtype=dtype))])
        self.bias = add_bias(self, (4 * self.filters,), initializer=init)
        self.built = True

    def _conv(self, x, w, padding, strides, dilations):
        if self.rank == 1:
            return conv_ops.conv1d(x, w, strides[0], padding.upper(), dilations=dilations[0])
        if self.rank == 2:
            return conv_ops.conv2d(x, w, list(strides), padding.upper(), dilations=list(dilations))
        return conv_nd_ops.conv3d(x, w, list(strides), padding.upper(), dilations=list(dilations))

    def call(self, inputs, states, training=None):
        h, c = states
        f = self.filters
        xz = self._conv(inputs, self.kernel, self.padding, self.strides, self.dilation_rate)
        if self.use_bias:
            xz = math_ops.add(xz, self.bias)
        hz = self._conv(h, self.recurrent_kernel, "same", (1,) * self.rank, (1,) * self.rank)
        z = math_ops.add(xz, hz)
        zi, zf, zc, zo = (z[..., k * f:(k + 1) * f] for k in range(4))
        i = self.recurrent_activation(zi)
        fg = self.recurrent_activation(zf)
        c_new = math_ops.add(math_ops.multiply(fg, c), math_ops.multiply(i, self.activation(zc)))
        o = self.recurrent_activation(zo)
        h_new = math_ops.multiply(o, self.activation(c_new))
        return h_new, [h_new, c_new]

    def get_config(self):
        config = super().get_config()
        config.update({
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format, "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation), "use_bias": self.use_bias,
            "unit_forget_bias": self.unit_forget_bias, **weights_config(self, ("kernel", "recurrent", "bias")),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
        })
        config.pop("activity_regularizer", None)
        for k in ("recurrent_initializer", "recurrent_regularizer", "recurrent_constraint"):
            config[k] = config.pop(k)
        return config


class _ConvLSTM(RNN):
    """An RNN over ``(batch, time, *spatial, channels)`` of a convolutional LSTM cell."""

    rank = 2
    _CELL_ARGS = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
                  "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                  "bias_initializer", "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",
                  "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
                  "recurrent_dropout")

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", unit_forget_bias=True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, dropout=0.0, recurrent_dropout=0.0,
                 seed=None, **kwargs):
        cell_cls = type(f"ConvLSTM{self.rank}DCell", (_ConvLSTMCell,), {"rank": self.rank})
        cell = cell_cls(filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                        recurrent_activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
                        unit_forget_bias, kernel_regularizer, recurrent_regularizer, bias_regularizer,
                        kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                        name="conv_lstm_cell", dtype=kwargs.get("dtype"))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, activity_regularizer=activity_regularizer,
                         **kwargs)

    def _channels_last(self, x):
        if self.cell.data_format == "channels_first":
            return array_ops.transpose(x, [0, 1] + list(range(3, self.rank + 3)) + [2])
        return x

    def _back(self, x, has_time):
        if self.cell.data_format != "channels_first":
            return x
        lead = [0, 1] if has_time else [0]
        k = len(lead)
        return array_ops.transpose(x, lead + [x.ndim - 1] + list(range(k, x.ndim - 1)))

    def build(self, input_shape):
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        dims = TensorShape(input_shape).as_list()
        if len(dims) != self.rank + 3:
            raise ValueError(f"Input 0 with name 'None' of layer '{self.name}' is incompatible with the layer: "
                             f"expected ndim={self.rank + 3}, found ndim={len(dims)}. Full shape received: "
                             f"{tuple(dims)}")
        if self.cell.data_format == "channels_first":
            dims = [dims[0], dims[1]] + dims[3:] + [dims[2]]
        self.cell._maybe_build(TensorShape([dims[0]] + dims[2:]))
        self.built = True

    def get_initial_state(self, inputs):
        x = self._channels_last(inputs)
        spatial = self.cell._out_spatial
        shape = [x.shape[0]] + list(spatial) + [self.cell.filters]
        return [array_ops.zeros(shape, dtype=x.dtype), array_ops.zeros(shape, dtype=x.dtype)]

    def call(self, inputs, mask=None, training=None, initial_state=None):
        out = super().call(self._channels_last(inputs), mask=mask, training=training, initial_state=initial_state)
        if self.return_state:
            return [self._back(out[0], self.return_sequences)] + [self._back(s, False) for s in out[1:]]
        return self._back(out, self.return_sequences)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        cell = self.cell
        cf = cell.data_format == "channels_first"
        spatial = dims[3:] if cf else dims[2:-1]
        out = [conv_output_length(d, k, cell.padding, s, r) for d, k, s, r in
               zip(spatial, cell.kernel_size, cell.strides, cell.dilation_rate)]
        step = [cell.filters] + out if cf else out + [cell.filters]
        result = TensorShape([dims[0], dims[1]] + step if self.return_sequences else [dims[0]] + step)
        if self.return_state:
            return [result, TensorShape([dims[0]] + step), TensorShape([dims[0]] + step)]
        return result

    def __getattr__(self, name):
        if name in _ConvLSTM._CELL_ARGS:
            return getattr(self.__dict__["cell"] if "cell" in self.__dict__ else super().__getattribute__("cell"),
                           name)
        raise AttributeError(name)

    def get_config(self):
        config = super().get_config()
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        config.update(cell_config)
        for key in ("unroll", "time_major"):
            config.pop(key, None)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("cell", None)
        return cls(**config)


class ConvLSTM1D(_ConvLSTM):
    """Convolutional LSTM over ``(batch, time, steps, channels)``."""

    rank = 1


class ConvLSTM2D(_ConvLSTM):
    """Convolutional LSTM over ``(batch, time, rows, cols, channels)``."""

    rank = 2


class ConvLSTM3D(_ConvLSTM):
    """Convolutional LSTM over ``(batch, time, d, h, w, channels)``."""

    rank = 3
