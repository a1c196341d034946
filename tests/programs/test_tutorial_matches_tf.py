"""Differences from TF 2.21 / Keras 3 that the tutorial comparison (``tests/tutorials/compare_with_tf.py``)
found in tutorials that ran on tfcore but printed something else (issue 29, item 2). Each test states what
TF 2.21 / Keras 3.15 print or do (checked under real TF) and fails on the code before its fix."""

import numpy as np

import tfcore as tf

L = tf.keras.layers


def _summary(model):
    lines = []
    model.summary(print_fn=lambda text, **_: lines.append(text))
    return "\n".join(lines)


def _shape_column(model):
    """{layer name: its Output Shape cell} of ``model.summary()``."""
    out = {}
    for line in _summary(model).splitlines():
        cells = [c.strip() for c in line.split("\u2502")[1:-1]]
        if len(cells) >= 3 and cells[0]:
            out[cells[0].split(" ")[0]] = cells[1]
    return out


# -- summary() output shapes (tutorials/keras/regression) ------------------------------------------------------
def test_sequential_built_by_a_call_keeps_the_batch_size_of_that_call():
    """Keras 3's ``Sequential.build`` takes the first input's whole shape: after ``predict`` on 10 rows the
    summary of a model without an Input shows ``(10, 9)`` (the regression tutorial's ``dnn_model``), after a
    direct call on 4 rows ``(4, 3)``; ``input_shape`` says the same."""
    norm = L.Normalization(axis=-1)
    norm.adapt(np.random.default_rng(0).normal(size=(20, 9)).astype("float32"))
    linear = tf.keras.Sequential([norm, L.Dense(1)])
    linear.predict(np.zeros((10, 9), "float32"), verbose=0)
    assert linear.input_shape == (10, 9) and linear.output_shape == (10, 1)
    dnn = tf.keras.Sequential([norm, L.Dense(64), L.Dense(1)])  # unbuilt: the normalizer's last node counts
    assert list(_shape_column(dnn).values()) == ["(10, 9)", "?", "?"]

    called = tf.keras.Sequential([L.Dense(3), L.Dense(2)])
    called(np.zeros((4, 5), "float32"))
    assert list(_shape_column(called).values()) == ["(4, 3)", "(4, 2)"]


def test_fit_and_evaluate_build_a_sequential_with_an_unknown_batch_size():
    """Keras 3 traces ``fit``'s and ``evaluate``'s steps on the dataset's spec: ``(None, 5)``, whatever the
    first batch's size."""
    for run in ("fit", "evaluate"):
        model = tf.keras.Sequential([L.Dense(3), L.Dense(2)])
        model.compile("sgd", "mse")
        getattr(model, run)(np.zeros((70, 5), "float32"), np.zeros((70, 2), "float32"), batch_size=32, verbose=0)
        assert model.input_shape == (None, 5), run
        assert list(_shape_column(model).values()) == ["(None, 3)", "(None, 2)"], run


def test_summary_of_layers_built_without_a_symbolic_call_shows_their_build_shape():
    """Keras 3 prints no "multiple": a layer without inbound nodes shows ``compute_output_shape`` of the
    shape it was built with (by ``adapt``, or called on data inside a subclassed model)."""
    norm = L.Normalization(axis=-1)
    norm.adapt(np.ones((20, 9), "float32"))
    dense = L.Dense(4)
    dense(np.zeros((3, 2), "float32"))
    assert _shape_column(tf.keras.Sequential([norm, L.Dense(1)]))[norm.name] == "(20, 9)"
    assert _shape_column(tf.keras.Sequential([dense, L.Dense(2)]))[dense.name] == "(3, 4)"


def test_summary_shows_the_last_inbound_node_of_a_shared_layer():
    """A layer used by two models: Keras 3 prints the output of its last inbound node in both summaries."""
    dense = L.Dense(2)
    first = tf.keras.Sequential([tf.keras.Input((3,)), dense])
    tf.keras.Sequential([tf.keras.Input((4, 3)), dense])
    assert _shape_column(first)[dense.name] == "(None, 4, 2)"
