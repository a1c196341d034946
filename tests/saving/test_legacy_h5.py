"""Keras 2's whole-model HDF5 file (``model.save("m.h5")``), as Keras 3 (TF 2.21) writes and reads it.

``data/keras3_legacy_sequential.h5`` was written by TF 2.21 / Keras 3.15.1: a compiled, trained
``Sequential([Dense(8, relu, input_shape=(6,)), Dropout(0.2), Dense(3)])`` (Adam, sparse categorical
crossentropy from logits); ``_TF_PREDICTION`` is its ``predict(np.ones((2, 6)))``. A tfcore-written file was
checked to load and evaluate in TF 2.21 (tf.keras.models.load_model) when this test was written.
"""

import json
import pathlib

import h5py
import numpy as np
import pytest

import tfcore as tf

DATA = pathlib.Path(__file__).parent / "data"
_TF_PREDICTION = [-0.796565055847168, -0.39984825253486633, -1.047791600227356]


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(6,)),
                                 tf.keras.layers.Dropout(0.2), tf.keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[tf.keras.metrics.SparseCategoricalAccuracy()])
    model.fit(np.random.rand(16, 6).astype("float32"), np.random.randint(0, 3, 16), epochs=1, verbose=0)
    return model


def test_loads_a_file_written_by_keras3():
    model = tf.keras.models.load_model(str(DATA / "keras3_legacy_sequential.h5"))
    with h5py.File(DATA / "keras3_legacy_sequential.h5") as f:
        want = [np.asarray(f["model_weights/dense_1/sequential/dense_1/bias"])]
    np.testing.assert_allclose(model.layers[-1].bias.numpy(), want[0])
    assert model.optimizer is not None and model.optimizer.name == "adam"  # compiled from training_config
    out = model.predict(np.ones((2, 6), "float32"), verbose=0)
    np.testing.assert_allclose(out, [_TF_PREDICTION] * 2, rtol=1e-5)
    model.evaluate(np.random.rand(4, 6).astype("float32"), np.random.randint(0, 3, 4), verbose=0)


def test_round_trip_and_file_layout(tmp_path):
    model = _model()
    path = tmp_path / "my_model.h5"
    model.save(str(path))
    x = np.ones((2, 6), "float32")
    loaded = tf.keras.models.load_model(str(path))
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
    with h5py.File(path) as f:
        config = json.loads(f.attrs["model_config"])
        assert config["class_name"] == "Sequential"
        assert [lay["class_name"] for lay in config["config"]["layers"]][-1] == "Dense"
        assert "module" not in config["config"]["layers"][-1]  # Keras 2's layer entries
        training = json.loads(f.attrs["training_config"])
        assert training["optimizer_config"]["class_name"] == "Adam"
        assert training["loss"]["config"]["reduction"] == "sum_over_batch_size"  # what Keras 3 accepts
        layer_names = [n.decode() if isinstance(n, bytes) else n for n in f["model_weights"].attrs["layer_names"]]
        assert layer_names == [lay.name for lay in model.layers]
        dense = model.layers[0].name
        names = [n.decode() if isinstance(n, bytes) else n for n in f["model_weights"][dense].attrs["weight_names"]]
        assert names == [f"{model.name}/{dense}/kernel", f"{model.name}/{dense}/bias"]


def test_shape_mismatch_is_refused_before_any_assignment(tmp_path):
    model = _model()
    path = tmp_path / "m.h5"
    model.save(str(path))
    with h5py.File(path, "r+") as f:
        cfg = json.loads(f.attrs["model_config"])
        cfg["config"]["layers"][-1]["config"]["units"] = 4
        f.attrs["model_config"] = json.dumps(cfg)
    with pytest.raises(ValueError, match="Shape mismatch"):
        tf.keras.models.load_model(str(path))
