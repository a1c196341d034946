"""Differences from TF 2.21 / Keras 3 that the tutorial comparison (``tests/tutorials/compare_with_tf.py``)
found in tutorials that ran on tfcore but printed something else (issue 29, item 2). Each test states what
TF 2.21 / Keras 3.15 print or do (checked under real TF) and fails on the code before its fix."""

import numpy as np
import pytest

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


# -- optimizer variables and the .h5 file (tutorials/keras/save_and_load) ----------------------------------------
def test_optimizer_variables_are_iteration_learning_rate_then_slots():
    """Keras 3: ``optimizer.variables`` is ``[iteration, learning_rate, *slots]`` (the learning rate of a float
    is a variable; a schedule's is not), and ``summary()`` counts them: an SGD after ``fit`` adds
    "Optimizer params: 2 (12.00 B)" (an int64 and a float32)."""
    v = tf.Variable([1.0, 2.0])
    adam = tf.keras.optimizers.Adam(0.01)
    adam.build([v])
    assert len(adam.variables) == 4
    assert adam.variables[0] is adam.iterations and adam.variables[1] is adam.learning_rate
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)
    scheduled = tf.keras.optimizers.Adam(schedule)
    scheduled.build([v])
    assert len(scheduled.variables) == 3 and scheduled.variables[0] is scheduled.iterations

    model = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(2)])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(np.zeros((8, 3), "float32"), np.zeros((8, 2), "float32"), verbose=0)
    text = _summary(model)
    assert " Optimizer params: 2 (12.00 B)" in text and " Total params: 10 (44.00 B)" in text


def test_h5_file_keeps_the_optimizer_weights_and_loads_them_as_keras_3(tmp_path):
    """Keras 3 writes ``optimizer_weights`` into a ``.h5`` model; loading builds the optimizer for the model's
    own variables (none in a Sequential) and restores iteration and learning rate: ``summary()`` then shows
    "Optimizer params: 2 (12.00 B)". tfcore's optimizer still trains the model afterwards."""
    h5py = pytest.importorskip("h5py", reason="the .h5 format needs h5py")
    x = np.random.default_rng(1).normal(size=(16, 3)).astype("float32")
    y = x[:, :2] * 2.0
    model = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(2)])
    model.compile(tf.keras.optimizers.Adam(0.05), tf.keras.losses.MeanSquaredError())
    model.fit(x, y, epochs=3, verbose=0)
    path = str(tmp_path / "m.h5")
    model.save(path)
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["optimizer_weights"].attrs["weight_names"]]
        assert len(names) == 6 and names[0].endswith("iteration") and names[1].endswith("learning_rate")
        assert int(np.asarray(f["optimizer_weights"][names[0]])) == 3

    loaded = tf.keras.models.load_model(path)
    opt = loaded.optimizer
    assert opt.built and len(opt.variables) == 2
    assert int(opt.iterations.numpy()) == 3 and np.isclose(float(opt.learning_rate.numpy()), 0.05)
    assert " Optimizer params: 2 (12.00 B)" in _summary(loaded)
    before = loaded.evaluate(x, y, verbose=0)
    loaded.fit(x, y, epochs=5, verbose=0)
    assert loaded.evaluate(x, y, verbose=0) < before and int(opt.iterations.numpy()) == 8


# -- printing (guide/random_numbers) -------------------------------------------------------------------------------
def test_per_replica_str_shows_its_tensors_str_and_repr_their_repr():
    """TF's ``DistributedValues``: ``print(strategy.run(...))`` gives ``PerReplica:{\\n  0: tf.Tensor(1.0, ...)``
    (the components' str), ``repr`` the components' repr."""
    from tfcore.distribute.values import PerReplica

    value = PerReplica([tf.constant(1.0), tf.constant(2.0)])
    assert str(value) == ("PerReplica:{\n  0: tf.Tensor(1.0, shape=(), dtype=float32),\n"
                          "  1: tf.Tensor(2.0, shape=(), dtype=float32)\n}")
    assert repr(value).startswith("PerReplica:{\n  0: <tf.Tensor: shape=(), dtype=float32, numpy=1.0>,")
