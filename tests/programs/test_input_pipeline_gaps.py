"""Gaps the tensorflow/docs input-pipeline tutorials met (tutorials/load_data/*, guide/data; issue 29 item 2).

Each test fails on the code before the fix and states what TF 2.21 / Keras 3 does (checked under TF).
"""

import numpy as np
import pytest

import tfcore as tf

pd = pytest.importorskip("pandas", reason="pandas inputs need pandas (the test extra installs it)")


def _heart_like(n=64, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(29, 78, n)
    df = pd.DataFrame({"age": age, "oldpeak": rng.uniform(0, 6, n).round(1),
                       "thal": pd.Series(rng.choice(["fixed", "normal"], n), dtype=object)})
    target = pd.Series((age > 54).astype(np.int64))
    return df, target


# -- pandas values as tensors (load_data/pandas_dataframe) ------------------------------------------------
def test_convert_to_tensor_of_a_dataframe_takes_numpys_common_dtype():
    """TF: tf.convert_to_tensor(df) is np.asarray(df): int and float columns give float64."""
    df = pd.DataFrame({"a": [1, 2], "b": [1.5, 2.5]})
    t = tf.convert_to_tensor(df)
    assert t.dtype == tf.float64 and t.shape == (2, 2)
    np.testing.assert_array_equal(t.numpy(), [[1.0, 1.5], [2.0, 2.5]])
    assert tf.convert_to_tensor(pd.DataFrame({"a": [1, 2], "b": [3, 4]})).dtype == tf.int64


def test_convert_to_tensor_of_a_pandas_string_series_is_a_string_tensor():
    """pandas 3 reads text columns as its own StringDtype; TF gives a tf.string tensor."""
    t = tf.convert_to_tensor(pd.Series(["x", "y"], dtype="str"))
    assert t.dtype == tf.string and t.numpy().tolist() == [b"x", b"y"]


def test_from_tensor_slices_of_a_dataframe_dict_slices_each_column():
    df, target = _heart_like(4)
    ds = tf.data.Dataset.from_tensor_slices((dict(df), target))
    features, label = next(iter(ds))
    assert features["age"].dtype == tf.int64 and features["thal"].dtype == tf.string
    assert int(label) == int(target[0])


def test_a_layer_called_on_a_dataframe_reads_its_values():
    """TF: normalizer(df.iloc[:3]) runs on the frame's values (cast to the layer's float32)."""
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4, 5, 6]})
    norm = tf.keras.layers.Normalization(axis=-1)
    norm.adapt(np.array(df))
    out = norm(df.iloc[:3])
    assert out.dtype == tf.float32 and out.shape == (3, 2)
    np.testing.assert_allclose(out.numpy().mean(axis=0), [0, 0], atol=1e-5)


# -- pandas inputs to fit/evaluate/predict (Keras 3's pandas adapter) ----------------------------------------
def test_fit_evaluate_predict_take_a_dataframe_and_a_series():
    df, target = _heart_like()
    numeric = df[["age", "oldpeak"]]
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
    history = model.fit(numeric, target, epochs=2, batch_size=16, verbose=0)
    assert len(history.history["loss"]) == 2
    assert np.isfinite(model.evaluate(numeric, target, verbose=0))
    assert model.predict(numeric, verbose=0).shape == (64, 1)


def test_a_dict_of_series_feeds_shape_1_inputs_as_columns():
    """Keras 3: a Series in fit is a (n, 1) column, so dict(df) feeds keras.Input(shape=(1,)) inputs."""
    df, target = _heart_like()
    numeric = df[["age", "oldpeak"]]
    inputs = {name: tf.keras.Input(shape=(1,), name=name, dtype=tf.float32) for name in numeric}
    x = tf.keras.layers.Concatenate(axis=1)(list(inputs.values()))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(x))
    model.compile(optimizer="adam", loss="mse")
    model.fit(dict(numeric), target, epochs=1, batch_size=16, verbose=0)
    assert model.predict(dict(numeric.iloc[:3]), verbose=0).shape == (3, 1)


# -- Concatenate of mixed dtypes (a dict of int and float columns) -----------------------------------------
def test_concatenate_promotes_mixed_int_and_float_inputs_as_keras_does():
    """Keras 3 (ops.concatenate): int64 and float32 inputs give float32; int32 and int64 give int64."""
    out = tf.keras.layers.Concatenate(axis=1)([tf.ones((2, 1), tf.int64), tf.ones((2, 1), tf.float32)])
    assert out.dtype == tf.float32 and out.shape == (2, 2)
    ints = tf.keras.layers.Concatenate(axis=1)([tf.ones((2, 1), tf.int32), tf.ones((2, 1), tf.int64)])
    assert ints.dtype == tf.int64


def test_concatenate_of_strings_and_numbers_still_names_the_dtypes():
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype"):
        tf.keras.layers.Concatenate(axis=1)([tf.constant([["a"]]), tf.ones((1, 1))])


# -- lookup layers inside a traced train step -----------------------------------------------------------------
def test_string_lookup_in_a_model_trains_on_many_batches_without_specialising_the_step():
    """A StringLookup inside fit's traced step is one graph op: each batch's tokens are looked up, and
    the step is not re-traced per batch (before: the trace read the tokens in Python, a guard per value,
    and fit failed after 64 batches)."""
    rng = np.random.default_rng(0)
    tf.keras.utils.set_random_seed(0)
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    tokens = rng.choice(letters, size=(400, 1)).astype(object)  # ~200 batches of distinct token pairs
    y = (tokens[:, 0] == "a").astype(np.float32)
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    x = tf.keras.layers.StringLookup(vocabulary=letters, output_mode="one_hot")(inp)
    model = tf.keras.Model(inp, tf.keras.layers.Dense(1)(x))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.2), loss="mse")
    history = model.fit(tokens, y, epochs=3, batch_size=2, verbose=0)
    assert history.history["loss"][-1] < 0.1, history.history
    np.testing.assert_allclose(model.predict(np.array([["a"], ["b"]], dtype=object), verbose=0)[:, 0], [1, 0],
                               atol=0.2)


def test_lookup_inside_a_tf_function_follows_each_calls_tokens():
    lookup = tf.keras.layers.IntegerLookup(vocabulary=[1, 4, 7])
    f = tf.function(lambda x: lookup(x))
    np.testing.assert_array_equal(f(tf.constant([1, 4], tf.int64)).numpy(), [1, 2])
    np.testing.assert_array_equal(f(tf.constant([7, 9], tf.int64)).numpy(), [3, 0])
    assert f.experimental_get_tracing_count() == 1


# -- CSV files (load_data/csv) --------------------------------------------------------------------------------
def _write_gzip_csv(path):
    import gzip

    with gzip.open(path, "wt") as f:
        f.write("temp,weather,traffic_volume\n")
        for i in range(10):
            f.write(f"{280 + i}.5,{'Rain' if i % 2 else 'Clear'},{100 * i}\n")


def test_make_csv_dataset_reads_the_header_and_types_of_a_gzip_file(tmp_path):
    """TF: compression_type='GZIP' applies to the header and type inference too (before: the header was
    read from the compressed bytes, a UnicodeDecodeError)."""
    path = str(tmp_path / "traffic.csv.gz")
    _write_gzip_csv(path)
    ds = tf.data.experimental.make_csv_dataset(path, batch_size=4, label_name="traffic_volume", num_epochs=1,
                                               shuffle=False, compression_type="GZIP")
    features, label = next(iter(ds))
    assert list(features) == ["temp", "weather"]
    assert features["temp"].dtype == tf.float32 and features["weather"].dtype == tf.string
    assert label.dtype == tf.int32 and label.numpy().tolist() == [0, 100, 200, 300]


def test_snapshot_persists_the_first_pass_and_later_passes_read_it(tmp_path):
    """TF: Dataset.snapshot(path) writes the elements under the directory `path` on the first full pass;
    a later pipeline with the same snapshot reads them without running the input again."""
    calls = []

    def gen():
        calls.append(1)
        yield from range(5)

    make = lambda: tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64)).snapshot(
        str(tmp_path / "snap"))
    assert [int(x) for x in make()] == [0, 1, 2, 3, 4]
    assert (tmp_path / "snap").is_dir() and any((tmp_path / "snap").iterdir())
    assert [int(x) for x in make().map(lambda x: x * 2)] == [0, 2, 4, 6, 8]
    assert len(calls) == 1


def test_snapshot_refuses_an_unknown_compression_and_custom_functions(tmp_path):
    ds = tf.data.Dataset.range(3)
    with pytest.raises(ValueError, match="compression"):
        ds.snapshot(str(tmp_path / "s"), compression="LZ4")
    with pytest.raises(NotImplementedError, match="reader_func"):
        ds.snapshot(str(tmp_path / "s"), reader_func=lambda datasets: datasets)


# -- rejection_resample (guide/data) ------------------------------------------------------------------------
def _imbalanced(n0=900, n1=100):
    return tf.data.Dataset.from_tensor_slices(np.array([0] * n0 + [1] * n1, np.int64)).shuffle(1000, seed=0)


@pytest.mark.parametrize("initial_dist", [None, [0.9, 0.1]])
def test_rejection_resample_balances_the_classes_as_tf_does(initial_dist):
    """TF 2.21 on these 900/100 examples to [0.5, 0.5]: ~240-270 (class, element) pairs, class mean ~0.47
    (it stops when a pass ends); before: no Dataset.rejection_resample."""
    out = _imbalanced().rejection_resample(lambda x: x, target_dist=[0.5, 0.5], initial_dist=initial_dist, seed=1)
    pairs = [(int(c), int(x)) for c, x in out]
    assert all(c == x for c, x in pairs)  # (class, element)
    classes = np.array([c for c, _ in pairs])
    assert 150 < len(classes) < 350 and 0.35 < classes.mean() < 0.65, (len(classes), classes.mean())


def test_experimental_rejection_resample_applies_and_keeps_the_element_structure():
    ds = tf.data.Dataset.from_tensor_slices(({"x": np.arange(20.0)}, np.arange(20) % 2))
    out = ds.apply(tf.data.experimental.rejection_resample(lambda f, y: y, target_dist=[0.5, 0.5], seed=0))
    cls_spec, (features_spec, label_spec) = out.element_spec
    assert cls_spec.dtype == label_spec.dtype and features_spec["x"].dtype == tf.float64
    for cls, (_features, label) in out.take(3):
        assert int(cls) == int(label)


def test_rejection_resample_rejects_a_target_that_is_not_a_distribution():
    with pytest.raises(ValueError, match="target_dist"):
        _imbalanced().rejection_resample(lambda x: x, target_dist=[0.7, 0.7])
    with pytest.raises(ValueError, match="initial_dist"):
        _imbalanced().rejection_resample(lambda x: x, target_dist=[0.5, 0.5], initial_dist=[1.0])
