"""keras.utils: datasets from folders and arrays, pad_sequences, split_dataset, PyDataset/Sequence in fit,
custom-object registration and clear_session."""

import numpy as np
import pytest

import tfcore as tf

U = tf.keras.utils


@pytest.fixture(autouse=True)
def _cpu():
    with tf.device("/CPU:0"):
        yield


def test_pad_sequences_matches_keras_rules():
    seqs = [[1, 2, 3], [4], [5, 6, 7, 8, 9]]
    np.testing.assert_array_equal(U.pad_sequences(seqs), [[0, 0, 1, 2, 3], [0, 0, 0, 0, 4], [5, 6, 7, 8, 9]])
    np.testing.assert_array_equal(U.pad_sequences(seqs, maxlen=3, padding="post", truncating="post", value=-1),
                                  [[1, 2, 3], [4, -1, -1], [5, 6, 7]])
    np.testing.assert_array_equal(U.pad_sequences(seqs, maxlen=2), [[2, 3], [0, 4], [8, 9]])
    assert U.pad_sequences([[0.5, 1.5]], maxlen=3, dtype="float32").tolist() == [[0.0, 0.5, 1.5]]
    assert U.pad_sequences([["a", "b"], ["c"]], dtype=object, value="<pad>").tolist() == [["a", "b"], ["<pad>", "c"]]
    assert U.pad_sequences([]).shape == (0, 0)
    with pytest.raises(ValueError, match="Padding type"):
        U.pad_sequences(seqs, padding="middle")
    with pytest.raises(ValueError, match="non-iterable"):
        U.pad_sequences([1, 2])


def test_timeseries_dataset_from_array_windows_targets_and_shuffle():
    data = np.arange(20)
    ds = U.timeseries_dataset_from_array(data, data[3:] * 10, sequence_length=3, sequence_stride=2, sampling_rate=2,
                                         batch_size=3, start_index=1, end_index=16)
    batches = [(x.numpy(), y.numpy()) for x, y in ds]
    xs = np.concatenate([b[0] for b in batches])
    ys = np.concatenate([b[1] for b in batches])
    # windows start at 1, 3, 5, 7, 9 (the last must end before 16); sampling every 2 steps
    np.testing.assert_array_equal(xs, [[1, 3, 5], [3, 5, 7], [5, 7, 9], [7, 9, 11], [9, 11, 13], [11, 13, 15]])
    np.testing.assert_array_equal(ys, (data[3:] * 10)[1:16][[0, 2, 4, 6, 8, 10]])
    assert [len(b[0]) for b in batches] == [3, 3]
    a = [x.numpy().tolist() for x in U.timeseries_dataset_from_array(data, None, 4, shuffle=True, seed=5,
                                                                     batch_size=None)]
    b = [x.numpy().tolist() for x in U.timeseries_dataset_from_array(data, None, 4, shuffle=True, seed=5,
                                                                     batch_size=None)]
    assert a == b and sorted(a) == [list(range(i, i + 4)) for i in range(17)] and a != sorted(a)
    with pytest.raises(ValueError, match="sequence_length"):
        U.timeseries_dataset_from_array(data, None, 0)


def test_split_dataset_arrays_and_datasets():
    x, y = np.arange(10), np.arange(10) * 2
    left, right = U.split_dataset((x, y), left_size=0.8)
    lx = [int(a) for a, _ in left]
    assert lx == list(range(8)) and [int(b) for _, b in right] == [16, 18]
    left, right = U.split_dataset(tf.data.Dataset.from_tensor_slices(x), right_size=3, shuffle=True, seed=1)
    got = [int(v) for v in left] + [int(v) for v in right]
    assert sorted(got) == list(range(10)) and len(list(right)) == 3 and got != list(range(10))
    with pytest.raises(ValueError, match="left_size"):
        U.split_dataset(x, left_size=1.5)


def test_text_dataset_from_directory(tmp_path, capsys):
    texts = {"neg": ["bad movie", "awful", "boring plot"], "pos": ["great film", "loved it"]}
    for label, items in texts.items():
        (tmp_path / label).mkdir()
        for i, t in enumerate(items):
            (tmp_path / label / f"{i}.txt").write_text(t)
    (tmp_path / "pos" / "notes.md").write_text("ignored")
    ds = U.text_dataset_from_directory(str(tmp_path), batch_size=2, shuffle=False)
    assert "Found 5 files belonging to 2 classes." in capsys.readouterr().out
    assert ds.class_names == ["neg", "pos"]
    pairs = [(t.decode(), int(lab)) for xb, yb in ds for t, lab in zip(xb.numpy(), yb.numpy())]
    assert pairs == [("bad movie", 0), ("awful", 0), ("boring plot", 0), ("great film", 1), ("loved it", 1)]
    train, val = U.text_dataset_from_directory(str(tmp_path), batch_size=None, validation_split=0.4,
                                               subset="both", seed=3, label_mode="categorical", max_length=4)
    tr = [(t.numpy(), tuple(lab.numpy())) for t, lab in train]
    va = [(t.numpy(), tuple(lab.numpy())) for t, lab in val]
    assert len(tr) == 3 and len(va) == 2 and all(len(t) <= 4 for t, _ in tr + va)
    assert sorted(t for t, _ in tr + va) == sorted(s.encode()[:4] for v in texts.values() for s in v)
    with pytest.raises(ValueError, match="seed"):
        U.text_dataset_from_directory(str(tmp_path), validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="label_mode"):
        U.text_dataset_from_directory(str(tmp_path), label_mode="sparse")


class _Batches(U.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size
        self.epochs_ended = 0
        self.seen = []

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, idx):
        self.seen.append(idx)
        s = slice(idx * self.batch_size, (idx + 1) * self.batch_size)
        return self.x[s], self.y[s]

    def on_epoch_end(self):
        self.epochs_ended += 1


@pytest.mark.parametrize("workers", [1, 3])
def test_py_dataset_and_sequence_in_fit_evaluate_predict(workers):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32))[:, None]
    data = _Batches(x, y, 16, workers=workers)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    hist = model.fit(data, epochs=4, verbose=0, shuffle=False)
    assert data.epochs_ended == 4 and data.seen[:4] == [0, 1, 2, 3]
    assert hist.history["loss"][-1] < 0.1 * hist.history["loss"][0]
    assert model.evaluate(data, verbose=0) < 0.5
    assert model.predict(data, verbose=0).shape == (64, 1)
    assert U.Sequence is U.PyDataset


def test_register_keras_serializable_custom_object_scope_and_clear_session():
    @U.register_keras_serializable(package="kerasA_tests")
    class Doubler(tf.keras.layers.Layer):
        def call(self, x):
            return 2.0 * x

    assert U.get_registered_name(Doubler) == "kerasA_tests>Doubler"
    assert U.get_custom_objects()["kerasA_tests>Doubler"] is Doubler
    assert U.get_registered_object("kerasA_tests>Doubler") is Doubler
    config = tf.keras.layers.serialize(Doubler())
    assert config["class_name"] == "kerasA_tests>Doubler"
    assert isinstance(tf.keras.layers.deserialize(config), Doubler)

    class Tripler(tf.keras.layers.Layer):
        def call(self, x):
            return 3.0 * x

    cfg = {"class_name": "Tripler", "config": {"name": "t"}}
    with pytest.raises(ValueError, match="Unknown layer"):
        tf.keras.layers.deserialize(cfg)
    with U.custom_object_scope({"Tripler": Tripler}):
        assert isinstance(tf.keras.layers.deserialize(cfg), Tripler)
        with U.CustomObjectScope({"my_act": tf.nn.relu}):
            assert tf.keras.activations.get("my_act") is tf.nn.relu
    with pytest.raises(ValueError):
        tf.keras.activations.get("my_act")

    tf.keras.layers.Dense(1)
    U.clear_session()
    assert tf.keras.layers.Dense(1).name == "dense"


def test_pack_unpack_and_is_keras_tensor():
    x, y = np.zeros((2, 1)), np.ones(2)
    assert U.unpack_x_y_sample_weight((x, y)) == (x, y, None)
    assert U.unpack_x_y_sample_weight(U.pack_x_y_sample_weight(x, y, y))[2] is y
    assert U.is_keras_tensor(tf.keras.Input((3,))) and not U.is_keras_tensor(tf.constant(1.0))


def test_registered_and_scoped_losses_and_metrics_resolve_by_name():
    @U.register_keras_serializable(package="kerasA_tests")
    def half_mae(y_true, y_pred):
        return 0.5 * tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)

    assert tf.keras.losses.get("kerasA_tests>half_mae") is half_mae
    assert tf.keras.losses.get("half_mae") is half_mae
    with U.custom_object_scope({"my_metric": half_mae}):
        assert tf.keras.metrics.get("my_metric") is half_mae
    with pytest.raises(ValueError, match="Unknown metric"):
        tf.keras.metrics.get("my_metric")
