"""Recurrent layers: cells (SimpleRNNCell, LSTMCell, GRUCell), the ``RNN`` loop and SimpleRNN/LSTM/GRU.

Weights and gate orders follow TF2 Keras so weights transfer: LSTM gates ``i, f, c, o``
(kernel ``(d, 4u)``, recurrent ``(u, 4u)``, bias ``(4u,)`` with the forget chunk set to 1
by ``unit_forget_bias``); GRU gates ``z, r, h`` with ``reset_after=True`` by default (bias
``(2, 3u)``: input bias and recurrent bias). Inputs are ``(batch, time, features)``.
"""

from .... import nn
from ....framework import dtypes
from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, math_ops
from ... import activations
from ...engine.base_layer import Layer, to_snake_case
from .._weights import add_bias, add_role_weight, initializers_config, set_weight_args


class _CellBase(Layer):
    """Argument handling shared by the three cells."""

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        if units <= 0:
            raise ValueError(f"Received an invalid value for argument `units`, expected a positive integer, got "
                             f"{units}.")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        set_weight_args(self, "recurrent", recurrent_initializer, recurrent_regularizer, recurrent_constraint)
        set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self._masks = (None, None)

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def _kernels(self, input_dim, gates, bias_shape, bias_initializer=None):
        self.kernel = add_role_weight(self, "kernel", (input_dim, gates * self.units))
        self.recurrent_kernel = add_role_weight(self, "recurrent", (self.units, gates * self.units),
                                                name="recurrent_kernel")
        self.bias = add_bias(self, bias_shape, initializer=bias_initializer)

    def reset_dropout_masks(self, step_input, training):
        """Draw the per-sequence dropout masks (the same mask at every step, as Keras)."""
        batch = step_input.shape[0]
        inp = rec = None
        if training and self.dropout > 0:
            inp = nn.dropout(array_ops.ones_like(step_input), rate=self.dropout)
        if training and self.recurrent_dropout > 0:
            rec = nn.dropout(array_ops.ones((batch, self.units), dtype=step_input.dtype), rate=self.recurrent_dropout)
        self._masks = (inp, rec)

    def _drop(self, x, h):
        inp, rec = self._masks
        return (x * inp if inp is not None else x), (h * rec if rec is not None else h)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        sizes = self.state_size if isinstance(self.state_size, list | tuple) else [self.state_size]
        return [array_ops.zeros((batch_size, s), dtype=dtype or self._dtype) for s in sizes]

    def get_config(self):
        config = super().get_config()
        config.update({
            "units": self.units, "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
            **initializers_config(self, ("kernel", "recurrent", "bias")),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
        })
        return config


class _GatedCell(_CellBase):
    """LSTM and GRU cells: ``recurrent_activation`` for the gates, and one boolean option
    (``_option``: LSTM's ``unit_forget_bias``, GRU's ``reset_after``) in the config."""

    _option = None

    def __init__(self, units, activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
                 bias_initializer, option, **kwargs):
        kwargs.pop("implementation", None)
        super().__init__(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        setattr(self, self._option, option)

    def get_config(self):
        config = super().get_config()
        config.update({"recurrent_activation": activations.serialize(self.recurrent_activation),
                       self._option: getattr(self, self._option)})
        return config


class SimpleRNNCell(_CellBase):
    """``h = activation(x W + h_prev U + b)``."""

    def build(self, input_shape):
        self._kernels(TensorShape(input_shape)[-1], 1, (self.units,))
        self.built = True

    def call(self, inputs, states, training=None):
        h_prev = states[0] if isinstance(states, list | tuple) else states
        x, h_in = self._drop(inputs, h_prev)
        z = math_ops.matmul(x, self.kernel)
        if self.bias is not None:
            z = z + self.bias
        h = self.activation(z + math_ops.matmul(h_in, self.recurrent_kernel))
        return h, [h]


class LSTMCell(_GatedCell):
    """Long short-term memory cell; state ``[h, c]``; gates i, f, c, o."""

    _option = "unit_forget_bias"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, **kwargs):
        super().__init__(units, activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
                         bias_initializer, unit_forget_bias, **kwargs)

    @property
    def state_size(self):
        return [self.units, self.units]

    def build(self, input_shape):
        bias_init = None
        if self.unit_forget_bias:
            base, u = self.bias_initializer, self.units

            def bias_init(shape, dtype=None):
                return array_ops.concat([base((u,), dtype=dtype), array_ops.ones((u,), dtype=dtype or dtypes.float32),
                                  base((2 * u,), dtype=dtype)], axis=0)
        self._kernels(TensorShape(input_shape)[-1], 4, (4 * self.units,), bias_init)
        self.built = True

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states[0], states[1]
        x, h_in = self._drop(inputs, h_prev)
        z = math_ops.matmul(x, self.kernel) + math_ops.matmul(h_in, self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        zi, zf, zc, zo = array_ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        c = f * c_prev + i * self.activation(zc)
        o = self.recurrent_activation(zo)
        h = o * self.activation(c)
        return h, [h, c]


class GRUCell(_GatedCell):
    """Gated recurrent unit; gates z, r, h; ``reset_after=True`` (TF2 / cuDNN convention) by default."""

    _option = "reset_after"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 reset_after=True, **kwargs):
        super().__init__(units, activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
                         bias_initializer, reset_after, **kwargs)

    def build(self, input_shape):
        bias_shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._kernels(TensorShape(input_shape)[-1], 3, bias_shape)
        self.built = True

    def call(self, inputs, states, training=None):
        h_prev = states[0] if isinstance(states, list | tuple) else states
        x, h_in = self._drop(inputs, h_prev)
        if self.bias is not None:
            if self.reset_after:
                b_in, b_rec = array_ops.unstack(self.bias, axis=0)
            else:
                b_in, b_rec = self.bias, None
        else:
            b_in = b_rec = None
        mx = math_ops.matmul(x, self.kernel)
        if b_in is not None:
            mx = mx + b_in
        xz, xr, xh = array_ops.split(mx, 3, axis=-1)
        u = self.units
        if self.reset_after:
            mi = math_ops.matmul(h_in, self.recurrent_kernel)
            if b_rec is not None:
                mi = mi + b_rec
            rz, rr, rh = array_ops.split(mi, 3, axis=-1)
            z = self.recurrent_activation(xz + rz)
            r = self.recurrent_activation(xr + rr)
            hh = self.activation(xh + r * rh)
        else:
            rk = self.recurrent_kernel
            rz_r = math_ops.matmul(h_in, rk[:, :2 * u])
            rz, rr = array_ops.split(rz_r, 2, axis=-1)
            z = self.recurrent_activation(xz + rz)
            r = self.recurrent_activation(xr + rr)
            hh = self.activation(xh + math_ops.matmul(r * h_in, rk[:, 2 * u:]))
        h = z * h_prev + (1.0 - z) * hh
        return h, [h]


class RNN(Layer):
    """Run ``cell`` over the time axis of (batch, time, features) inputs.

    ``return_sequences`` returns every step's output (batch, time, units) instead of the
    last; ``return_state`` appends the final states; ``go_backwards`` reads the sequence
    reversed (and returns outputs in processing order, as Keras).
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, time_major=False, **kwargs):
        if stateful:
            raise NotImplementedError("Stateful RNNs are not supported by tfcore")
        if isinstance(cell, list | tuple):
            raise NotImplementedError("Stacked cells (a list of cells) are not supported; stack RNN layers instead")
        if not hasattr(cell, "state_size") or not hasattr(cell, "call"):
            raise ValueError(f"Argument `cell` should have a `call` method and a `state_size` attribute. "
                             f"Received: cell={cell}")
        super().__init__(**kwargs)
        self.supports_masking = True
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.time_major = time_major

    def _state_sizes(self):
        s = self.cell.state_size
        return list(s) if isinstance(s, list | tuple) else [s]

    def build(self, input_shape):
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        shape = TensorShape(input_shape)
        if shape.rank != 3:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected ndim=3, "
                             f"found ndim={shape.rank}. Full shape received: {tuple(shape.as_list())}")
        step_shape = TensorShape([shape[1] if self.time_major else shape[0], shape[-1]])
        if isinstance(self.cell, Layer):
            self.cell._maybe_build(step_shape)
        self.built = True

    def get_initial_state(self, inputs):
        batch = inputs.shape[1] if self.time_major else inputs.shape[0]
        return [array_ops.zeros((batch, s), dtype=inputs.dtype) for s in self._state_sizes()]

    def call(self, inputs, mask=None, training=None, initial_state=None):
        steps = array_ops.unstack(inputs, axis=0 if self.time_major else 1)
        step_masks = [None] * len(steps)
        if mask is not None:  # (batch, time): a masked step keeps the previous output and states (Keras)
            step_masks = array_ops.unstack(array_ops.expand_dims(math_ops.cast(mask, dtypes.bool), -1), axis=1)
        if self.go_backwards:
            steps = steps[::-1]
            step_masks = step_masks[::-1]
        if initial_state is None:
            states = self.get_initial_state(inputs)
        else:
            states = list(initial_state) if isinstance(initial_state, list | tuple) else [initial_state]
            if len(states) != len(self._state_sizes()):
                raise ValueError(f"An `initial_state` was passed that is not compatible with `cell.state_size`. "
                                 f"Received `state_spec`={[tuple(s.shape) for s in states]}; however "
                                 f"`cell.state_size` is {self.cell.state_size}")
        if hasattr(self.cell, "reset_dropout_masks") and steps:
            self.cell.reset_dropout_masks(steps[0], training)
        outputs = []
        out = None
        for x, m in zip(steps, step_masks):
            prev_out, prev_states = out, states
            out, states = self.cell.call(x, states, training=training) if _takes_training(self.cell) \
                else self.cell.call(x, states)
            states = list(states) if isinstance(states, list | tuple) else [states]
            if m is not None:
                if prev_out is None:
                    prev_out = array_ops.zeros_like(out)
                out = math_ops.where(m, out, prev_out)
                states = [math_ops.where(m, s, p) for s, p in zip(states, prev_states)]
            if self.return_sequences:
                outputs.append(out)
        if self.return_sequences:
            result = array_ops.stack(outputs, axis=0 if self.time_major else 1)
        else:
            result = out
        if self.return_state:
            return [result] + states
        return result

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, list):
            mask = mask[0]
        out = mask if self.return_sequences else None
        return [out] + [None] * len(self._state_sizes()) if self.return_state else out

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        dims = TensorShape(input_shape).as_list()
        batch, time = (dims[1], dims[0]) if self.time_major else (dims[0], dims[1])
        units = self.cell.output_size if hasattr(self.cell, "output_size") else self._state_sizes()[0]
        if self.return_sequences:
            out = TensorShape([time, batch, units] if self.time_major else [batch, time, units])
        else:
            out = TensorShape([batch, units])
        if self.return_state:
            return [out] + [TensorShape([batch, s]) for s in self._state_sizes()]
        return out

    def get_config(self):
        config = super().get_config()
        config.update({"return_sequences": self.return_sequences, "return_state": self.return_state,
                       "go_backwards": self.go_backwards, "stateful": self.stateful, "unroll": self.unroll,
                       "time_major": self.time_major})
        return config


def _takes_training(cell):
    import inspect

    try:
        return "training" in inspect.signature(cell.call).parameters
    except (TypeError, ValueError):
        return False


class _RNNLayer(RNN):
    """SimpleRNN/LSTM/GRU: an RNN whose cell is built from the layer's own arguments."""

    _cell_class = None
    _cell_args = ()

    def __init__(self, units, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, time_major=False, **kwargs):
        cell_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in self._cell_args}
        activity_regularizer = kwargs.pop("activity_regularizer", None)
        cell = self._cell_class(units, name=self._cell_name(), dtype=kwargs.get("dtype"),
                                trainable=kwargs.get("trainable", True), **cell_kwargs)
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll, time_major=time_major,
                         activity_regularizer=activity_regularizer, **kwargs)

    @classmethod
    def _cell_name(cls):
        return to_snake_case(cls._cell_class.__name__)

    def __getattr__(self, name):
        # units, activation, dropout, ... are the cell's (as Keras exposes them on the layer)
        cell = self.__dict__.get("cell")
        if name.startswith("_") or cell is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(cell, name)

    def get_config(self):
        config = super().get_config()
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        config.update(cell_config)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)


_COMMON_CELL_ARGS = ("activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
                     "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
                     "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout", "implementation")


class SimpleRNN(_RNNLayer):
    """Fully connected RNN: ``h_t = tanh(x_t W + h_{t-1} U + b)``."""

    _cell_class = SimpleRNNCell
    _cell_args = _COMMON_CELL_ARGS


class LSTM(_RNNLayer):
    """Long short-term memory layer (TF2 defaults: tanh, sigmoid recurrent activation, unit_forget_bias)."""

    _cell_class = LSTMCell
    _cell_args = _COMMON_CELL_ARGS + ("recurrent_activation", "unit_forget_bias")


class GRU(_RNNLayer):
    """Gated recurrent unit layer (TF2 default ``reset_after=True``)."""

    _cell_class = GRUCell
    _cell_args = _COMMON_CELL_ARGS + ("recurrent_activation", "reset_after")
