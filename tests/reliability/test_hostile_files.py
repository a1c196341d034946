"""Hostile files: a file is data, never code, and never a path outside the place the user named.

Each case asserts the exception type, that its message names the file, and that nothing changed
(no code ran, no file outside the directory was read or deleted).
"""

import json
import os
import pickle
import re
import zipfile

import numpy as np
import pytest

import tfcore as tf

D = tf.data.Dataset


class _Payload:
    """Pickling this makes the unpickler call ``os.mkdir(marker)``: code from the file runs."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _as_list(ds):
    return [int(x) for x in ds.as_numpy_iterator()]


@pytest.mark.parametrize("index", [b"tfcore-cache-v1\n", None], ids=["old-index", "forged-new-index"])
def test_cache_file_with_pickle_payload_runs_nothing(tmp_path, index):
    prefix = str(tmp_path / "cache")
    marker = str(tmp_path / "PWNED")
    assert _as_list(D.range(3).cache(prefix)) == [0, 1, 2]  # a real cache, then replaced by the payload
    if index is not None:
        with open(prefix + ".index", "wb") as f:
            f.write(index)
    payload = pickle.dumps(_Payload(marker), protocol=4)
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(payload)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(tf.errors.DataLossError, match="cache"):
        _as_list(D.range(3).cache(prefix))
    assert not os.path.exists(marker)
    assert sorted(os.listdir(tmp_path)) == before


def _write_state(directory, paths):
    with open(os.path.join(directory, "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "{paths[-1]}"\n')
        for p in paths:
            f.write(f'all_model_checkpoint_paths: "{p}"\n')


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_checkpoint_state_file_cannot_reach_outside_its_directory(tmp_path, kind):
    outside = tmp_path / "victim"
    outside.mkdir()
    v = tf.Variable(7.0)
    tf.train.Checkpoint(v=v).write(str(outside / "precious"))  # a checkpoint the manager must never touch
    victim_files = sorted(os.listdir(outside))
    ckpt_dir = tmp_path / "ckpts"
    ckpt_dir.mkdir()
    target = "../victim/precious" if kind == "relative" else str(outside / "precious")
    _write_state(str(ckpt_dir), [target])
    v.assign(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(ckpt_dir), max_to_keep=1)
    assert manager.latest_checkpoint is None
    assert manager.checkpoints == []
    assert manager.restore_or_initialize() is None
    assert v.numpy() == 1.0  # nothing was read from outside
    for _ in range(3):  # max_to_keep=1: every save sweeps
        manager.save()
    assert sorted(os.listdir(outside)) == victim_files  # nothing deleted outside
    assert tf.train.latest_checkpoint(str(ckpt_dir)).startswith(str(ckpt_dir))


def test_latest_checkpoint_ignores_paths_outside_the_directory(tmp_path):
    outside = tmp_path / "victim"
    outside.mkdir()
    tf.train.Checkpoint(v=tf.Variable(7.0)).write(str(outside / "precious"))
    ckpt_dir = tmp_path / "ckpts"
    ckpt_dir.mkdir()
    _write_state(str(ckpt_dir), ["../victim/precious"])
    assert tf.train.latest_checkpoint(str(ckpt_dir)) is None


# -- .keras files: Keras 3's safe_mode ------------------------------------------------------------------------
def _keras_file(tmp_path, edit, name="m"):
    """A real .keras file whose config.json was changed by ``edit(config)``; returns its path."""
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, activation="relu")])
    good = str(tmp_path / "good.keras")
    model.save(good)
    with zipfile.ZipFile(good) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    config = json.loads(parts["config.json"])
    edit(config)
    path = str(tmp_path / f"{name}.keras")
    with zipfile.ZipFile(path, "w") as z:
        for n, data in parts.items():
            z.writestr(n, json.dumps(config) if n == "config.json" else data)
    return path


def _dense(config):
    return config["config"]["layers"][-1]["config"]


def _lambda_payload(marker):
    """Keras 3's ``__lambda__`` form of ``lambda x: os.mkdir(marker) or x`` (marshalled bytecode)."""
    from tfcore.keras.saving import safe_mode

    fn = eval(f"lambda x: __import__('os').mkdir({marker!r}) or x")  # noqa: S307 - building the hostile file
    return list(safe_mode.func_dump(fn))


def test_keras_lambda_activation_is_refused_in_safe_mode(tmp_path):
    marker = str(tmp_path / "PWNED")
    path = _keras_file(tmp_path, lambda c: _dense(c).update(
        activation={"class_name": "__lambda__", "config": {"value": _lambda_payload(marker)}}))
    with pytest.raises(ValueError, match=r"Requested the deserialization of a Python lambda.*safe_mode=False"):
        tf.keras.models.load_model(path)
    assert not os.path.exists(marker)
    model = tf.keras.models.load_model(path, safe_mode=False)  # the user trusts the file: Keras 3 loads it
    model(np.ones((1, 3), np.float32))
    assert os.path.exists(marker)


def test_keras_lambda_layer_is_refused_in_safe_mode_and_round_trips_unsafe(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Lambda(lambda x: x * 2.0)])
    path = str(tmp_path / "lam.keras")
    model.save(path)
    with pytest.raises(ValueError, match=r"Requested the deserialization of a `Lambda` layer whose `function` is a "
                                         r"Python lambda.*safe_mode=False"):
        tf.keras.models.load_model(path)
    again = tf.keras.models.load_model(path, safe_mode=False)
    np.testing.assert_array_equal(again(np.ones((1, 3), np.float32)).numpy(), np.full((1, 3), 2.0))


@pytest.mark.parametrize("activation,message", [
    ({"module": "evil", "class_name": "Evil", "config": {}, "registered_name": "Evil"},
     "Could not locate class 'Evil'"),
    ({"module": "keras.activations", "class_name": "function", "config": "nope", "registered_name": None},
     "Could not locate function 'nope'"),
])
def test_unknown_activation_object_is_an_error_not_linear(tmp_path, activation, message):
    path = _keras_file(tmp_path, lambda c: _dense(c).update(activation=activation))
    with pytest.raises(TypeError, match=message):
        tf.keras.models.load_model(path)
    with pytest.raises(TypeError, match=message):
        tf.keras.layers.Dense(2, activation=activation)


def test_registered_and_custom_activation_objects_load(tmp_path):
    @tf.keras.utils.register_keras_serializable(package="Reliability")
    def doubled(x):
        return x * 2.0

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, activation=doubled)])
    path = str(tmp_path / "reg.keras")
    model.save(path)
    x = np.ones((1, 3), np.float32)
    np.testing.assert_array_equal(tf.keras.models.load_model(path)(x).numpy(), model(x).numpy())

    def tripled(x):
        return x * 3.0

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, activation=tripled)])
    path = str(tmp_path / "custom.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path, custom_objects={"tripled": tripled})
    assert loaded.layers[-1].activation is tripled


@pytest.mark.parametrize("edit,field", [
    (lambda c: c["config"].update(layers=5), "config.json.config.layers"),
    (lambda c: c["config"]["layers"].append("Dense"), "config.json.config.layers[2]"),
    (lambda c: c.update(config=[1]), "config.json.config"),
    (lambda c: c.pop("class_name"), "config.json.class_name"),
    (lambda c: c["config"]["layers"][1].update(config="units=2"), "config.json.config.layers[1].config"),
])
def test_malformed_keras_config_is_a_value_error_naming_file_and_field(tmp_path, edit, field):
    path = _keras_file(tmp_path, edit, name="bad")
    with pytest.raises(ValueError, match=rf"bad\.keras: field `{re.escape(field)}`") as info:
        tf.keras.models.load_model(path)
    assert not isinstance(info.value, TypeError | AttributeError)


def test_deserialize_keras_object_lambda_follows_safe_mode(tmp_path):
    from tfcore.keras.saving import safe_mode

    config = {"class_name": "__lambda__", "config": {"value": list(safe_mode.func_dump(lambda x: x + 1))}}
    with pytest.raises(ValueError, match="Requested the deserialization of a Python lambda"):
        tf.keras.utils.deserialize_keras_object(config)
    assert tf.keras.utils.deserialize_keras_object(config, safe_mode=False)(41) == 42
    with safe_mode.SafeModeScope(False):  # what enable_unsafe_deserialization() does, but scoped to this test
        assert tf.keras.activations.get(config)(1) == 2
    with pytest.raises(ValueError, match="Requested the deserialization"):
        tf.keras.activations.get(config)
    assert callable(tf.keras.config.enable_unsafe_deserialization)


def test_malformed_functional_config_names_the_file(tmp_path):
    inputs = tf.keras.Input((3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, name="d")(inputs))
    good = str(tmp_path / "f.keras")
    model.save(good)
    with zipfile.ZipFile(good) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    for edit, message in [(lambda c: c["config"]["layers"][1].update(inbound_nodes="x"),
                           "field `config.json.config.layers[1].inbound_nodes` must be a list"),
                          (lambda c: c["config"].update(output_layers=[["nope", 0, 0]]), "not a Keras model config")]:
        config = json.loads(parts["config.json"])
        edit(config)
        bad = str(tmp_path / "bad_f.keras")
        with zipfile.ZipFile(bad, "w") as z:
            for n, data in parts.items():
                z.writestr(n, json.dumps(config) if n == "config.json" else data)
        with pytest.raises(ValueError, match=rf"Invalid \.keras file .*bad_f\.keras: .*{re.escape(message)}"):
            tf.keras.models.load_model(bad)
