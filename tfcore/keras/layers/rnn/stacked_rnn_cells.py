"""StackedRNNCells: its cells run one after the other at each step; its state is the concatenation of the
cells' states (Keras' order).
"""

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import Layer
from ..serialization import deserialize, serialize
from .rnn import _takes_training


def _as_list(x):
    return list(x) if isinstance(x, list | tuple) else [x]


class StackedRNNCells(Layer):
    """A stack of RNN cells used as one cell: ``RNN(StackedRNNCells([LSTMCell(8), LSTMCell(4)]))``."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
                raise ValueError(f"All cells must have a `call` method and a `state_size` attribute. "
                                 f"Received cells={cells}")
        self.cells = list(cells)

    @property
    def state_size(self):
        return [s for cell in self.cells for s in _as_list(cell.state_size)]

    @property
    def output_size(self):
        last = self.cells[-1]
        return getattr(last, "output_size", _as_list(last.state_size)[0])

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return [s for cell in self.cells for s in cell.get_initial_state(inputs, batch_size, dtype)]

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        for cell in self.cells:
            if isinstance(cell, Layer):
                cell._maybe_build(TensorShape(shape))
            out = getattr(cell, "output_size", _as_list(cell.state_size)[0])
            shape = [shape[0], out]
        self.built = True

    def reset_dropout_masks(self, step_input, training):
        x = step_input
        for cell in self.cells:
            if hasattr(cell, "reset_dropout_masks"):
                cell.reset_dropout_masks(x, training)
            out = getattr(cell, "output_size", _as_list(cell.state_size)[0])
            x = array_ops.zeros([x.shape[0], out], dtype=x.dtype)

    def call(self, inputs, states, training=None):
        states = list(states)
        new_states = []
        x = inputs
        for cell in self.cells:
            n = len(_as_list(cell.state_size))
            mine, states = states[:n], states[n:]
            x, out_states = cell.call(x, mine, training=training) if _takes_training(cell) else cell.call(x, mine)
            new_states.extend(_as_list(out_states))
        return x, new_states

    def get_config(self):
        config = super().get_config()
        config["cells"] = [serialize(c) for c in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [deserialize(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)
