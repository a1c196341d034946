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
