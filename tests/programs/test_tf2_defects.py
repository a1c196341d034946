"""Defects real TF2 programs met (issue 29, item 2: Keras, optimizers and autodiff, tf.data, tf.function,
tensors): each test fails on the code before the fix and states what TF 2.21 / Keras 3 do."""

import numpy as np
import pytest

import tfcore as tf


# -- Keras -------------------------------------------------------------------------------------------------
def test_summary_of_an_unbuilt_model_prints_as_keras3(capsys):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2), tf.keras.layers.Dense(1)])
    model.summary()
    out = capsys.readouterr().out
    assert out.count("(Dense)") == 2 and "0 (unbuilt)" in out and "?" in out and "Total params: 0" in out


def test_one_dimensional_data_is_expanded_to_the_inputs_rank():
    """Keras 3 adds a trailing 1 to (B,) data for an Input((1,)) (``_adjust_input_rank``)."""
    model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile("sgd", "mse")
    model.fit(np.arange(8.0), np.arange(8.0), epochs=1, verbose=0)
    assert model.predict(np.arange(3.0), verbose=0).shape == (3, 1)
    inp = tf.keras.Input((1,))
    functional = tf.keras.Model(inp, tf.keras.layers.Dense(1, kernel_initializer="ones", use_bias=False)(inp))
    np.testing.assert_allclose(functional(np.array([2.0, 3.0])).numpy(), [[2.0], [3.0]])


def test_integer_data_is_cast_to_the_inputs_dtype():
    """Keras 3 converts each input to its Input's dtype: int64 features into a float32 model."""
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile("sgd", "mse")
    model.fit(np.ones((8, 2), np.int64), np.ones(8), epochs=1, verbose=0)
    out = model(np.full((1, 2), 2, np.int64))
    assert out.dtype == tf.float32


def test_saving_a_model_to_h5_writes_keras3s_legacy_file(tmp_path):
    # Keras 3 still writes Keras 2's whole-model HDF5 file for a .h5 path (tests/saving/test_legacy_h5.py)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.save(tmp_path / "m.h5")
    loaded = tf.keras.models.load_model(tmp_path / "m.h5")
    assert loaded.layers[-1].kernel.numpy().tolist() == model.layers[-1].kernel.numpy().tolist()


# -- optimizers and autodiff ------------------------------------------------------------------------------------
def test_adam_updates_a_scalar_variable_eagerly_and_traced():
    v = tf.Variable(1.0)
    opt = tf.keras.optimizers.Adam(0.1)

    def step():
        with tf.GradientTape() as tape:
            loss = v * v
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))

    step()
    assert float(v.numpy()) == pytest.approx(0.9, abs=1e-6)  # Adam's first step moves by lr
    tf.function(step)()
    assert float(v.numpy()) == pytest.approx(0.8, abs=1e-3)


def test_gradient_of_a_variable_with_respect_to_itself_is_one():
    """TF identifies targets and sources by the variable's handle: d v / d v = 1 (before: None)."""
    v = tf.Variable([3.0, 4.0])
    with tf.GradientTape() as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(v, v).numpy(), [1.0, 1.0])
    with tf.GradientTape() as tape:
        y = v * 2.0
    np.testing.assert_array_equal(tape.gradient([v, y], v).numpy(), [3.0, 3.0])  # not counted twice


@pytest.mark.parametrize("name, kwargs, steps, want", [
    ("InverseTimeDecay", dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5), (0, 10, 15),
     (0.1, 0.1 / 1.5, 0.1 / 1.75)),
    ("InverseTimeDecay", dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5, staircase=True), (15,),
     (0.1 / 1.5,)),
    ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=10, end_learning_rate=0.01, power=2.0),
     (0, 5, 10, 20), (0.1, 0.0325, 0.01, 0.01)),
    ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=10, cycle=True), (15,), (0.025075,)),
    ("CosineDecayRestarts", dict(initial_learning_rate=0.1, first_decay_steps=10), (0, 5, 10, 20, 30),
     (0.1, 0.05, 0.1, 0.05, 0.1)),
    ("CosineDecayRestarts", dict(initial_learning_rate=0.1, first_decay_steps=10, t_mul=1.0, m_mul=0.5),
     (10, 15), (0.05, 0.025)),
])
def test_learning_rate_schedules_follow_keras3_formulas(name, kwargs, steps, want):
    cls = getattr(tf.keras.optimizers.schedules, name)
    schedule = cls(**kwargs)
    got = [float(schedule(s)) for s in steps]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    again = tf.keras.optimizers.schedules.deserialize(tf.keras.optimizers.schedules.serialize(schedule))
    assert type(again) is cls and again.get_config() == schedule.get_config()


def test_optimizer_with_a_new_schedule_trains():
    v = tf.Variable(1.0)
    opt = tf.keras.optimizers.SGD(tf.keras.optimizers.schedules.InverseTimeDecay(0.5, 1, 1.0))
    for _ in range(2):
        opt.apply_gradients([(tf.constant(1.0), v)])
    assert float(v.numpy()) == pytest.approx(1.0 - 0.5 - 0.25)


# -- specs, tf.function ---------------------------------------------------------------------------------------------
def test_specs_have_value_type():
    assert tf.SparseTensorSpec([2], tf.float32).value_type is tf.SparseTensor
    assert tf.TensorSpec([2]).value_type is tf.Tensor


def test_concrete_function_has_function_type():
    f = tf.function(lambda x, y: x * 2)
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32))
    params = cf.function_type.parameters
    assert list(params) == ["x", "y"]
    assert params["x"].annotation == tf.TensorSpec([None], tf.float32)


def test_dtype_mismatch_while_tracing_is_a_type_error_as_in_tf_graphs():
    """TF: eagerly the kernel's InvalidArgumentError; in a traced graph the op builder's TypeError."""
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1.0) + tf.constant(1, tf.int32)
    with pytest.raises(TypeError, match="AddV2"):
        tf.function(lambda x: x + tf.constant(1, tf.int32))(tf.constant(1.0))
    with pytest.raises(TypeError, match="MatMul"):
        tf.function(lambda a: tf.matmul(a, tf.ones((2, 2), tf.float64)))(tf.ones((2, 2)))


# -- tensors ----------------------------------------------------------------------------------------------------------
def test_boolean_mask_indexing():
    x = tf.constant([[1, 2], [3, 4]])
    np.testing.assert_array_equal(x[x > 1].numpy(), [2, 3, 4])
    np.testing.assert_array_equal(x[np.array([True, False])].numpy(), [[1, 2]])
    v = tf.Variable([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v[v > 1.5].numpy(), [2.0, 3.0])
    f = tf.function(lambda t: t[t > 1])
    np.testing.assert_array_equal(f(tf.constant([1, 2, 3])).numpy(), [2, 3])


def test_wrong_shape_assign_raises_value_error_and_changes_nothing():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_tf_version_says_tf_2():
    assert tf.__version__.startswith("2.") and int(tf.__version__.split(".")[1]) >= 16


def test_tensorboard_logs_epoch_learning_rate(tmp_path):
    """Keras 3's TensorBoard callback writes ``epoch_learning_rate`` (a schedule at the optimizer's step)."""
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator",
                                            reason="the tensorboard extra reads event files")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    schedule = tf.keras.optimizers.schedules.InverseTimeDecay(0.1, 1, 1.0)
    model.compile(tf.keras.optimizers.SGD(schedule), "mse")
    model.fit(np.ones((8, 2)), np.ones(8), epochs=2, batch_size=4, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(str(tmp_path))])
    acc = event_accumulator.EventAccumulator(str(tmp_path / "train"))
    acc.Reload()
    got = [(e.step, float(tf.make_ndarray(e.tensor_proto))) for e in acc.Tensors("epoch_learning_rate")]
    assert [s for s, _ in got] == [0, 1]
    np.testing.assert_allclose([v for _, v in got], [0.1 / 3, 0.1 / 5], rtol=1e-6)  # after 2 and 4 steps


def test_adjust_contrast_has_no_gradient_as_in_tf():
    """TF registers no gradient for AdjustContrastv2: the autodiff guide shows tape.gradient raising LookupError."""
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError, match="AdjustContrastv2"):
        tape.gradient(new_image, [image, delta])
    x = np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3)
    mean = x.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(tf.image.adjust_contrast(x, 2.0).numpy(), (x - mean) * 2.0 + mean)


def test_profiler_sessions_run_without_a_profiler(tmp_path):
    """tf.profiler is accepted (the intro-to-modules guide starts it); sessions do not nest, as in TF."""
    with pytest.warns(UserWarning, match="no profiler"):
        tf.profiler.experimental.start(str(tmp_path))
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.profiler.experimental.start(str(tmp_path))
    tf.profiler.experimental.stop()
    with pytest.raises(tf.errors.UnavailableError):
        tf.profiler.experimental.stop()
    with tf.profiler.experimental.Profile(str(tmp_path)), tf.profiler.experimental.Trace("step", step_num=1):
        pass


def test_string_scalar_math_gives_a_string_tensor():
    """NumPy's add on 0-d object arrays returns bytes; the tensor must still be a scalar string tensor (the
    tf.function guide's ``double(tf.constant("a"))``)."""
    assert tf.constant("a") + tf.constant("b") == tf.constant("ab")
    assert tf.function(lambda a: a + a)(tf.constant("a")).numpy() == b"aa"


def test_a_function_with_an_unknown_rank_signature_saves_and_loads(tmp_path):
    class Clip(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(None)])
        def call(self, x):
            return tf.clip_by_value(x, -1.0, 1.0)

    tf.saved_model.save(Clip(), str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert float(loaded.call(tf.constant(3.0))) == 1.0


def test_checkpoint_restores_module_variables_created_after_restore(tmp_path):
    """TF's restore-on-create for a tf.Module whose variables appear on its first call (the modules guide)."""

    class FlexibleDense(tf.Module):
        def __init__(self, n, name=None):
            super().__init__(name=name)
            self.is_built = False
            self.n = n

        def __call__(self, x):
            if not self.is_built:
                self.w = tf.Variable(tf.random.normal([x.shape[-1], self.n]), name="w")
                self.b = tf.Variable(tf.zeros([self.n]), name="b")
                self.is_built = True
            return tf.matmul(x, self.w) + self.b

    class Sequential(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = FlexibleDense(3)
            self.dense_2 = FlexibleDense(2)

        def __call__(self, x):
            return self.dense_2(self.dense_1(x))

    x = tf.constant([[2.0, 2.0, 2.0]])
    model = Sequential()
    want = model(x).numpy()
    tf.train.Checkpoint(model=model).write(str(tmp_path / "ck"))
    fresh = Sequential()
    status = tf.train.Checkpoint(model=fresh).restore(str(tmp_path / "ck"))
    np.testing.assert_array_equal(fresh(x).numpy(), want)
    status.assert_consumed()


# -- tf.data CSV sources ------------------------------------------------------------------------------------
_CSV = "survived,sex,age,fare\n0,male,22.0,7.25\n1,female,38.0,71.2833\n1,female,26.0,7.925\n"


def test_csv_dataset_parses_typed_columns(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(_CSV)
    ds = tf.data.experimental.CsvDataset(str(path), [tf.int32, tf.string, tf.float32, 0.0], header=True)
    rows = [[t.numpy() for t in e] for e in ds]
    assert [r[0] for r in rows] == [0, 1, 1] and [r[1] for r in rows] == [b"male", b"female", b"female"]
    np.testing.assert_allclose([r[3] for r in rows], [7.25, 71.2833, 7.925], rtol=1e-6)
    picked = tf.data.experimental.CsvDataset(str(path), [tf.float32], header=True, select_cols=[2])
    assert [float(e[0]) for e in picked] == [22.0, 38.0, 26.0]


def test_make_csv_dataset_gives_feature_dicts_and_labels(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(_CSV)
    ds = tf.data.experimental.make_csv_dataset(str(path), batch_size=2, label_name="survived", num_epochs=1,
                                               shuffle=False)
    batches = list(ds)
    assert len(batches) == 2
    features, label = batches[0]
    assert sorted(features) == ["age", "fare", "sex"]
    assert features["age"].dtype == tf.float32 and features["sex"].dtype == tf.string
    assert label.dtype == tf.int32 and label.numpy().tolist() == [0, 1]
    assert ds.element_spec[1].shape.as_list() == [None]
    forever = tf.data.experimental.make_csv_dataset(str(path), batch_size=2, select_columns=["age"])
    assert list(next(iter(forever))) == ["age"] and next(iter(forever))["age"].shape == (2,)
