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
        if len(cells) >= 3 and cells[0] and cells[1]:  # (a long name wraps onto lines with no shape)
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


# -- errors inside a layer's call (structured_data/time_series) ------------------------------------------------
def test_error_inside_a_call_names_the_innermost_layer_and_its_arguments_as_keras_3():
    """A Sequential built for (32, 3, 19) called on (32, 24, 19): TF 2.21 prints Keras 3's InputSpec message
    wrapped by the Sequential's call (the innermost layer whose ``call`` was running), bold, with its
    arguments, and the same exception type."""
    model = tf.keras.Sequential([L.Flatten(), L.Dense(4)])
    model(np.zeros((2, 3, 5), "float32"))
    dense = model.layers[1].name
    with pytest.raises(ValueError) as info:
        model(np.zeros((2, 4, 5), "float32"))
    assert str(info.value) == (
        "Exception encountered when calling Sequential.call().\n\n"
        f"\x1b[1mInput 0 with name 'None' of layer '{dense}' is incompatible with the layer: expected axis -1 of "
        "input shape to have value 15, but received input with shape (2, 20)\x1b[0m\n\n"
        "Arguments received by Sequential.call():\n"
        "  \u2022 inputs=tf.Tensor(shape=(2, 4, 5), dtype=float32)\n"
        "  \u2022 training=None\n"
        "  \u2022 mask=None\n"
        "  \u2022 kwargs=<class 'inspect._empty'>")


def test_input_spec_error_of_a_layer_called_directly_is_not_wrapped():
    """The check runs before the layer's own call: Keras 3 raises the bare InputSpec message."""
    dense = L.Dense(3)
    with pytest.raises(ValueError) as info:
        dense(np.zeros((3,), "float32"))
    assert str(info.value) == (f"Input 0 with name 'None' of layer '{dense.name}' is incompatible with the layer: "
                               "expected min_ndim=2, found ndim=1. Full shape received: (3,)")


class _Fails(tf.keras.layers.Layer):
    def call(self, x, scale=2.0):
        raise KeyError("boom")


class _Outer(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.inner = _Fails()

    def call(self, x):
        return self.inner(x)


def test_custom_layer_error_keeps_its_type_and_filtering_can_be_turned_off():
    """Any exception type is re-raised as itself with the context (``KeyError`` too), once; with
    ``keras.config.disable_traceback_filtering()`` the original passes unchanged."""
    outer = _Outer()
    layer = outer.inner
    with pytest.raises(KeyError) as info:
        outer(tf.constant([[1.0, 2.0]]))
    text = info.value.args[0]
    assert text.startswith("Exception encountered when calling _Fails.call().\n\n\x1b[1mboom\x1b[0m")
    assert text.endswith("  \u2022 x=tf.Tensor(shape=(1, 2), dtype=float32)\n  \u2022 scale=2.0")
    assert text.count("Exception encountered") == 1  # the innermost layer only
    tf.keras.config.disable_traceback_filtering()
    try:
        assert not tf.keras.config.is_traceback_filtering_enabled()
        with pytest.raises(KeyError) as info:
            layer(tf.constant([1.0]), scale=3)
        assert info.value.args == ("boom",)
    finally:
        tf.keras.config.enable_traceback_filtering()


# -- dict elements and f-strings of tensors (tutorials/load_data/csv) ---------------------------------------------
def test_dataset_dict_elements_keep_the_dicts_key_order():
    """TF's nest packs a dict in its own key order (values flattened by sorted key): the element, the spec,
    batches and ``map`` results of ``from_tensor_slices({"b": .., "a": .., "c": ..})`` list b, a, c."""
    ds = tf.data.Dataset.from_tensor_slices({"b": [1, 2], "a": [3, 4], "c": [5.0, 6.0]})
    assert list(ds.element_spec) == ["b", "a", "c"]
    element = next(iter(ds))
    assert list(element) == ["b", "a", "c"] and int(element["a"]) == 3
    batch = next(iter(ds.batch(2)))
    assert list(batch) == ["b", "a", "c"] and batch["c"].numpy().tolist() == [5.0, 6.0]
    assert list(next(iter(ds.map(lambda d: d)))) == ["b", "a", "c"]


def test_make_csv_dataset_batches_list_columns_in_file_order(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("survived,sex,age,class\n1,female,22.0,First\n0,male,30.0,Third\n")
    ds = tf.data.experimental.make_csv_dataset(str(path), batch_size=2, label_name="survived", num_epochs=1,
                                               shuffle=False)
    features, label = next(iter(ds))
    assert list(features) == ["sex", "age", "class"]
    assert label.numpy().tolist() == [1, 0]


def test_f_string_of_a_tensor_is_its_numpy_value_as_tf():
    """TF's ``EagerTensor.__format__`` formats the NumPy value: ``f"{key:20s}: {value}"`` (the csv tutorial)
    prints ``[b'male' b'female']``; a spec on a non-scalar raises NumPy's TypeError; ``str()`` is unchanged."""
    strings = tf.constant([b"male", b"female"])
    assert f"{strings}" == "[b'male' b'female']"
    assert f"{tf.constant([1.5, 2.0])}" == "[1.5 2. ]"
    assert f"{tf.constant([[1, 2], [3, 4]])}" == "[[1 2]\n [3 4]]"
    assert f"{tf.constant(2.5):8.3f}" == "   2.500" and f"{tf.constant(b'xy')}" == "b'xy'"
    with pytest.raises(TypeError):
        f"{tf.constant([1.0, 2.0]):10}"
    assert str(tf.constant([1.5, 2.0])) == "tf.Tensor([1.5 2. ], shape=(2,), dtype=float32)"


# -- model.metrics (Keras 3's containers) --------------------------------------------------------------------------
def _compiled(**compile_kwargs):
    model = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(2)])
    model.compile("sgd", "mse", **compile_kwargs)
    return model


def test_model_metrics_are_the_loss_tracker_and_a_compile_metrics_container():
    """Keras 3: right after ``compile`` and after ``fit``, ``model.metrics`` is ``[Mean 'loss',
    CompileMetrics 'compile_metrics']`` and ``metrics_names`` ``['loss', 'compile_metrics']``; the container
    holds the compiled metrics; without compiled metrics only the loss tracker is listed."""
    from tfcore.keras.engine.compile_utils import CompileMetrics

    model = _compiled(metrics=["mae", tf.keras.metrics.RootMeanSquaredError()])
    assert model.metrics_names == ["loss", "compile_metrics"]
    assert isinstance(model.metrics[1], CompileMetrics) and model.metrics[1].metrics == []
    x, y = np.ones((4, 3), "float32"), np.zeros((4, 2), "float32")
    model.fit(x, y, verbose=0)
    assert model.metrics_names == ["loss", "compile_metrics"]
    container = model.metrics[1]
    assert [m.name for m in container.metrics] == ["mae", "root_mean_squared_error"]
    assert set(container.result()) == {"mae", "root_mean_squared_error"}
    assert len(container.variables) == 4 and len(model.metrics_variables) == 6
    assert _compiled().fit(x, y, verbose=0).model.metrics_names == ["loss"]


def test_evaluate_and_test_on_batch_return_the_flat_values_in_keras_order():
    """The container does not change what ``evaluate`` returns: ``[loss, mae, rmse]`` (or the dict)."""
    model = _compiled(metrics=["mae", tf.keras.metrics.RootMeanSquaredError()])
    x = np.ones((4, 3), "float32")
    y = np.asarray(model.predict(x, verbose=0)) + 2.0  # every error is exactly 2
    loss, mae, rmse = model.evaluate(x, y, verbose=0)
    np.testing.assert_allclose([loss, mae, rmse], [4.0, 2.0, 2.0], rtol=1e-5)
    assert list(model.evaluate(x, y, verbose=0, return_dict=True)) == ["loss", "mae", "root_mean_squared_error"]
    np.testing.assert_allclose(model.test_on_batch(x, y), [4.0, 2.0, 2.0], rtol=1e-5)
    model.reset_metrics()
    assert all(float(v.numpy()) == 0.0 for v in model.metrics_variables)
