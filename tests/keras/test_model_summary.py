"""``model.summary()`` prints Keras 3's table (TF 2.21), character for character.

The expected texts were printed by TF 2.21 / Keras 3.15 for the same models (80-column terminal)."""

import pytest

import tfcore as tf

SEQUENTIAL = """Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ conv2d (Conv2D)                 │ (None, 26, 26, 8)      │            80 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ flatten (Flatten)               │ (None, 5408)           │             0 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 80 (320.00 B)
 Trainable params: 80 (320.00 B)
 Non-trainable params: 0 (0.00 B)"""

FUNCTIONAL_TABLE = """┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ a (InputLayer)      │ (None, 4)         │          0 │ -                 │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ b (InputLayer)      │ (None, 3)         │          0 │ -                 │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ concatenate         │ (None, 7)         │          0 │ a[0][0], b[0][0]  │
│ (Concatenate)       │                   │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ a_very_long_dense_… │ (None, 1000)      │      8,000 │ concatenate[0][0] │
│ (Dense)             │                   │            │                   │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 8,000 (31.25 KB)
 Trainable params: 8,000 (31.25 KB)
 Non-trainable params: 0 (0.00 B)"""


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    tf.keras.backend.clear_session()


def test_sequential_summary_is_keras_3s_table():
    model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), tf.keras.layers.Conv2D(8, 3),
                                 tf.keras.layers.Flatten()])
    out = []
    model.summary(print_fn=out.append)
    assert out == [SEQUENTIAL]  # one call with the whole text, as Keras 3


def test_functional_summary_wraps_cells_and_lists_connections(capsys):
    a, b = tf.keras.Input((4,), name="a"), tf.keras.Input((3,), name="b")
    c = tf.keras.layers.Concatenate()([a, b])
    d = tf.keras.layers.Dense(1000, name="a_very_long_dense_layer_name_for_wrapping")(c)
    tf.keras.Model([a, b], d).summary()
    text = capsys.readouterr().out
    assert text.split("\n", 1)[1].rstrip("\n") == FUNCTIONAL_TABLE


def test_compiled_summary_counts_the_optimizer_once_built():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    model.compile("adam", "mse")
    model.fit(tf.zeros((2, 4)), tf.zeros((2, 3)), verbose=0)
    out = []
    model.summary(print_fn=out.append)
    assert " Optimizer params: " in out[0] and " Trainable params: 15 (60.00 B)" in out[0]


class _Denoise(tf.keras.Model):
    """The autoencoder tutorial's model: Sequentials nested in a subclassed model, one with an Input."""

    def __init__(self):
        super().__init__()
        L = tf.keras.layers
        self.encoder = tf.keras.Sequential([L.Input(shape=(8, 8, 1)), L.Conv2D(4, 3, padding="same", strides=2)])
        self.decoder = tf.keras.Sequential([L.Conv2DTranspose(4, 3, strides=2, padding="same"),
                                            L.Conv2D(1, 3, padding="same")])
        self.head = tf.keras.layers.Dense(2)  # never called: unbuilt

    def call(self, x):
        return self.decoder(self.encoder(x))


def _rows(model):
    lines = []
    model.summary(print_fn=lines.append)
    return [line for line in "\n".join(lines).splitlines() if line.startswith("│")]


def test_layers_a_subclassed_model_builds_in_fit_show_an_unknown_batch_as_keras_3():
    # TF 2.21 traces fit's step on the dataset's spec, so the nested layers are built with batch None
    # (the first batch here has 32 rows); printed by TF 2.21 for the same program
    import numpy as np
    model = _Denoise()
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).random((40, 8, 8, 1)).astype("float32")
    model.fit(x, x, batch_size=32, epochs=1, verbose=0)
    decoder = _rows(model.decoder)
    assert "(None, 8, 8, 4)" in decoder[0] and "(None, 8, 8, 1)" in decoder[2]
    outer = _rows(model)
    assert "(None, 4, 4, 4)" in outer[0]  # the encoder: its output shape, not "?"
    assert "(None, 8, 8, 1)" in outer[1]
    assert "?" in outer[2] and "0 (unbuilt)" in outer[2]


def test_a_layer_first_called_eagerly_keeps_its_batch_size():
    import numpy as np
    model = _Denoise()
    model(np.zeros((3, 8, 8, 1), "float32"))
    assert "(3, 8, 8, 1)" in _rows(model.decoder)[2]
