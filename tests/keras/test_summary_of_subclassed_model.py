"""``summary()`` of a subclassed model whose layers ran eagerly: Keras 3's output shapes.

Keras 3 (TF 2.21) prints, for a layer with no recorded symbolic call, ``compute_output_shape`` of the
shape it was built with (``(2, 4)`` below), and ``?`` for a layer never built; Keras 2 printed
"multiple". The expected table is TF 2.21's output for the same program.
"""

import tfcore as tf

EXPECTED = """\
Model: "m"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                      ┃ Output Shape             ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ d (Dense)                         │ (2, 4)                   │            16 │
├───────────────────────────────────┼──────────────────────────┼───────────────┤
│ unused (Dense)                    │ ?                        │   0 (unbuilt) │
└───────────────────────────────────┴──────────────────────────┴───────────────┘
 Total params: 16 (64.00 B)
 Trainable params: 16 (64.00 B)
 Non-trainable params: 0 (0.00 B)
"""


class _M(tf.keras.Model):
    def __init__(self):
        super().__init__(name="m")
        self.d = tf.keras.layers.Dense(4, name="d")
        self.unused = tf.keras.layers.Dense(5, name="unused")

    def call(self, x):
        return self.d(x)


def test_eagerly_called_layers_show_their_built_output_shape(capsys):
    m = _M()
    m(tf.ones((2, 3)))
    m.summary(line_length=80)
    assert capsys.readouterr().out == EXPECTED
