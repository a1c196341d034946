"""Keras 3 ``.keras`` files: Keras-3-written files load and predict the same, round trips keep predictions
and optimizer state, configs/JSON for Sequential, functional and subclassed models, ModelCheckpoint,
errors; Keras 3 loads our files when TensorFlow is installed."""

import json
import os
import zipfile

import h5py
import numpy as np
import pytest

import tfcore as tf

DATA = os.path.join(os.path.dirname(__file__), "data")
REFS = np.load(os.path.join(DATA, "keras3_refs.npz"))


def test_loads_keras3_sequential_cnn_with_optimizer_state():
    model = tf.keras.models.load_model(os.path.join(DATA, "keras3_cnn.keras"))
    assert [type(lay).__name__ for lay in model.layers] == ["Conv2D", "BatchNormalization", "Flatten", "Dropout",
                                                            "Dense"]
    np.testing.assert_allclose(model.predict(REFS["x"], verbose=0), REFS["cnn"], rtol=1e-5, atol=1e-6)
    opt = model.optimizer
    assert type(opt).__name__ == "Adam" and abs(float(opt.learning_rate.numpy()) - 0.01) < 1e-7
    assert int(opt.iterations.numpy()) == int(REFS["iterations"])
    np.testing.assert_array_equal(opt.get_slot(model.layers[0].kernel, "m").numpy(), REFS["kernel_momentum"])
    # moving statistics came back too (inference uses them)
    assert not np.allclose(model.layers[1].moving_variance.numpy(), 1.0)


@pytest.mark.parametrize("name", ["rmsprop_momentum_centered", "adam_amsgrad_ema", "loss_scale_adam"])
def test_keras3_optimizer_variables_load_by_keras3s_order(name, tmp_path):
    """A .keras file stores the optimizer's variables by index in Keras 3's ``optimizer.variables`` order
    (RMSprop: velocities, momentums, average gradients; Adam: EMA averages first, velocity hats last; a
    LossScaleOptimizer's own four then its inner optimizer's). TF 2.21's files load into the same variables,
    and our own file keeps that order."""
    with open(os.path.join(DATA, "tf_optimizers", "variables.json")) as f:
        expected = json.load(f)[name]
    model = tf.keras.models.load_model(os.path.join(DATA, "tf_optimizers", f"{name}.keras"))
    got = [[v.path, np.asarray(v.numpy()).tolist()] for v in model.optimizer.variables]
    assert [p for p, _ in got] == [p for p, _ in expected]
    for (path, value), (_, ref) in zip(got, expected):
        np.testing.assert_allclose(value, ref, rtol=1e-6, err_msg=path)
    model.save(tmp_path / "again.keras")
    with zipfile.ZipFile(tmp_path / "again.keras") as z:
        z.extract("model.weights.h5", tmp_path)
    with h5py.File(tmp_path / "model.weights.h5") as f:
        stored = [f["optimizer/vars"][str(i)][()] for i in range(len(f["optimizer/vars"]))]
    assert len(stored) == len(expected)
    for a, (path, ref) in zip(stored, expected):
        np.testing.assert_allclose(a, ref, rtol=1e-6, err_msg=path)


def test_loads_keras3_functional_model():
    model = tf.keras.models.load_model(os.path.join(DATA, "keras3_functional.keras"))
    np.testing.assert_allclose(model.predict(REFS["xf"], verbose=0), REFS["func"], rtol=1e-5, atol=1e-6)
    assert [lay.name for lay in model.layers if lay.weights] == ["h", "o"]


def test_loads_keras3_lstm_with_its_cell_weights(tmp_path):
    model = tf.keras.models.load_model(os.path.join(DATA, "keras3_lstm.keras"))
    assert type(model.layers[1]).__name__ == "Bidirectional"
    np.testing.assert_allclose(model.predict(REFS["xr"], verbose=0), REFS["lstm"], rtol=1e-5, atol=1e-6)
    model.save(str(tmp_path / "lstm.keras"))  # the cell's weights go back under layers/lstm/cell
    again = tf.keras.models.load_model(str(tmp_path / "lstm.keras"))
    np.testing.assert_array_equal(again.predict(REFS["xr"], verbose=0), model.predict(REFS["xr"], verbose=0))


def _cnn():
    return tf.keras.Sequential([tf.keras.Input((6, 6, 1)), tf.keras.layers.Conv2D(2, 3, activation="relu"),
                                tf.keras.layers.BatchNormalization(), tf.keras.layers.Flatten(),
                                tf.keras.layers.Dense(3, activation="softmax")])


def test_sequential_round_trip_keeps_predictions_and_training_state(tmp_path):
    x, y = REFS["x"], np.arange(8) % 3
    model = _cnn()
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        config = json.loads(z.read("config.json"))
    assert config["class_name"] == "Sequential"
    assert config["compile_config"]["loss"] == "sparse_categorical_crossentropy"
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    model.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    loaded.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert int(loaded.optimizer.iterations.numpy()) == 6
    uncompiled = tf.keras.models.load_model(path, compile=False)
    assert uncompiled.optimizer is None


def _functional():
    inp = tf.keras.Input((4,), name="features")
    h = tf.keras.layers.Dense(3, activation="tanh", name="h")(inp)
    both = tf.keras.layers.concatenate([h, inp])
    return tf.keras.Model(inp, tf.keras.layers.Dense(2, name="o")(both), name="net")


def test_functional_config_json_and_file_round_trip(tmp_path):
    model = _functional()
    x = REFS["xf"]
    config = model.get_config()
    assert config["input_layers"] == ["features", 0, 0] and config["output_layers"] == ["o", 0, 0]
    clone = tf.keras.Model.from_config(config)
    assert [lay.name for lay in clone.layers] == [lay.name for lay in model.layers]
    again = tf.keras.models.model_from_json(model.to_json())
    again.set_weights(model.get_weights())
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))
    path = str(tmp_path / "f.keras")
    tf.keras.models.save_model(model, path)
    np.testing.assert_array_equal(tf.keras.models.load_model(path).predict(x, verbose=0), model.predict(x, verbose=0))


@tf.keras.saving.register_keras_serializable(package="tests")
class Scaled(tf.keras.Model):
    def __init__(self, units=2, factor=1.0, **kwargs):
        super().__init__(**kwargs)
        self.units, self.factor = units, factor
        self.dense = tf.keras.layers.Dense(units)

    def call(self, x):
        return self.dense(x) * self.factor

    def get_config(self):
        return {"units": self.units, "factor": self.factor, "name": self.name}


def test_subclassed_model_with_get_config(tmp_path):
    model = Scaled(units=3, factor=2.0)
    x = np.ones((2, 4), np.float32)
    model(x)
    path = str(tmp_path / "s.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert isinstance(loaded, Scaled) and loaded.factor == 2.0
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())

    class NoConfig(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.d(x)

    bare = NoConfig()
    bare(x)
    # Keras 3 gives a model without get_config an automatic one (here empty: __init__ takes no arguments),
    # so the save works; loading cannot pass `trainable`/`dtype` back to this __init__ (TF raises too)
    bare.save(str(tmp_path / "n.keras"))
    with pytest.raises((TypeError, ValueError)):
        tf.keras.models.load_model(str(tmp_path / "n.keras"), custom_objects={"NoConfig": NoConfig})


def test_model_checkpoint_saves_whole_models(tmp_path):
    x, y = REFS["x"], np.arange(8) % 3
    model = _cnn()
    model.compile("adam", "sparse_categorical_crossentropy")
    cb = tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}.keras"), save_weights_only=False)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[cb])
    assert sorted(os.listdir(tmp_path)) == ["e1.keras", "e2.keras"]
    last = tf.keras.models.load_model(str(tmp_path / "e2.keras"))
    np.testing.assert_array_equal(last.predict(x, verbose=0), model.predict(x, verbose=0))


def test_weights_h5_round_trip_and_keras3_layout(tmp_path):
    keras3 = tf.keras.models.load_model(os.path.join(DATA, "keras3_cnn.keras"))
    path = str(tmp_path / "cnn.weights.h5")
    keras3.save_weights(path)
    fresh = tf.keras.Sequential([tf.keras.Input((6, 6, 1)), tf.keras.layers.Conv2D(2, 3, activation="relu"),
                                 tf.keras.layers.BatchNormalization(), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dropout(0.1), tf.keras.layers.Dense(3, activation="softmax")])
    fresh.load_weights(path)
    np.testing.assert_allclose(fresh.predict(REFS["x"], verbose=0), REFS["cnn"], rtol=1e-5, atol=1e-6)
    with h5py.File(path, "r") as f:
        assert f["layers/conv2d/vars/0"].shape == (3, 3, 1, 2)
        assert f["layers/batch_normalization/vars"].attrs["name"] == "batch_normalization"
    from tfcore.keras.saving import weights_format

    legacy = str(tmp_path / "old.weights.h5")  # an .npz that older tfcore wrote under this name still loads
    weights_format.save_weights(keras3, legacy)
    fresh.load_weights(legacy)
    np.testing.assert_allclose(fresh.predict(REFS["x"], verbose=0), REFS["cnn"], rtol=1e-5, atol=1e-6)
    wrong = tf.keras.Sequential([tf.keras.Input((6, 6, 1)), tf.keras.layers.Conv2D(3, 3)])
    with pytest.raises(ValueError, match=r"\(3, 3, 1, 3\).*\(3, 3, 1, 2\)"):
        wrong.load_weights(path)


def test_errors_name_the_file(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="missing.keras"):
        tf.keras.models.load_model(str(tmp_path / "missing.keras"))
    model = _functional()
    path = str(tmp_path / "m.keras")
    model.save(path)
    with open(path, "rb") as f:
        raw = f.read()
    with open(path, "wb") as f:
        f.write(raw[: len(raw) // 2])
    with pytest.raises(tf.errors.DataLossError, match="m.keras"):
        tf.keras.models.load_model(path)
    with pytest.raises(ValueError, match="extension"):
        model.save(str(tmp_path / "m.h5x"))


def test_keras3_loads_our_files(tmp_path):
    pytest.importorskip("tensorflow")
    import keras

    x, y = REFS["x"], np.arange(8) % 3
    model = _cnn()
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    model.save(str(tmp_path / "cnn.keras"))
    theirs = keras.models.load_model(str(tmp_path / "cnn.keras"))
    np.testing.assert_allclose(theirs.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)
    assert int(theirs.optimizer.iterations.numpy()) == 2
    np.testing.assert_array_equal(theirs.optimizer.variables[2].numpy(),
                                  model.optimizer.get_slot(model.layers[0].kernel, "m").numpy())
    func = _functional()
    func.save(str(tmp_path / "f.keras"))
    theirs = keras.models.load_model(str(tmp_path / "f.keras"))
    np.testing.assert_allclose(theirs.predict(REFS["xf"], verbose=0), func.predict(REFS["xf"], verbose=0),
                               rtol=1e-5, atol=1e-6)
