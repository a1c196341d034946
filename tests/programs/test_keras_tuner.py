"""keras-tuner on tfcore through the ``tensorflow`` / ``keras`` alias (issue 29, item 4).

Each search runs an unchanged ``import tensorflow as tf`` + ``import keras_tuner`` script with
``python -m tfcore run`` in a fresh process (the alias changes ``sys.modules`` for the whole process):
RandomSearch, Hyperband and BayesianOptimization over ``hp.Int/Float/Choice/Boolean`` on the bundled digits,
2-3 trials of 1-2 epochs, with keras-tuner's per-trial checkpoints and TensorBoard logging (its hparams
plugin included). The pieces tfcore needed (``keras.utils.legacy``, ``StrategyExtended`` of a
single-worker strategy, ``tf.compat.v2`` / ``tf.compat.v1.Summary``) are checked directly too.
"""

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

import tfcore as tf

_needs_keras_tuner = pytest.mark.skipif(importlib.util.find_spec("keras_tuner") is None,
                                        reason="keras-tuner is not installed (pip install 'tfcore[test]')")

SEARCH_SCRIPT = textwrap.dedent('''
    import json
    import os
    import sys

    import tensorflow as tf
    import keras_tuner as kt

    algorithm, out = sys.argv[1], sys.argv[2]
    (x, y), (x_val, y_val) = tf.keras.datasets.digits.load_data()
    x, x_val = x.astype("float32") / 16.0, x_val.astype("float32") / 16.0


    def build_model(hp):
        model = tf.keras.Sequential([
            tf.keras.layers.Input((8, 8)),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(hp.Int("units", 16, 64, step=16), activation=hp.Choice("act", ["relu", "tanh"])),
        ])
        if hp.Boolean("dropout"):
            model.add(tf.keras.layers.Dropout(0.2))
        model.add(tf.keras.layers.Dense(10, activation="softmax"))
        model.compile(optimizer=tf.keras.optimizers.Adam(hp.Float("lr", 1e-3, 1e-2, sampling="log")),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        return model


    common = dict(objective="val_accuracy", directory=out, project_name=algorithm, seed=1)
    if algorithm == "random":
        tuner = kt.RandomSearch(build_model, max_trials=2, **common)
    elif algorithm == "hyperband":
        tuner = kt.Hyperband(build_model, max_epochs=2, factor=2, hyperband_iterations=1, **common)
    else:
        tuner = kt.BayesianOptimization(build_model, max_trials=3, num_initial_points=2, **common)
    tuner.search(x, y, epochs=1, validation_data=(x_val, y_val),
                 callbacks=[tf.keras.callbacks.TensorBoard(os.path.join(out, "logs"))], verbose=0)
    best_hp = tuner.get_best_hyperparameters(1)[0]
    best_model = tuner.get_best_models(1)[0]
    loss, accuracy = best_model.evaluate(x_val, y_val, verbose=0)
    print(json.dumps({
        "best": best_hp.values, "accuracy": float(accuracy),
        "best_score": tuner.oracle.get_best_trials(1)[0].score,
        "statuses": [t.status for t in tuner.oracle.trials.values()],
        "tensorflow_is_tfcore": sys.modules["tensorflow"].__name__ == "tfcore",
        "keras_is_tfcore": sys.modules["keras"].__name__ == "tfcore.keras",
        "tuner_keras": kt.src.backend.config.keras.__name__,
        "real_keras_loaded": sorted(n for n, m in list(sys.modules.items())
                                    if "site-packages/keras/" in str(getattr(m, "__file__", "")))[:5],
    }))
''')


def _search(tmp_path, algorithm):
    script = tmp_path / "tune.py"
    script.write_text(SEARCH_SCRIPT)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "tfcore", "run", str(script), algorithm, str(out)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "Traceback" not in r.stderr, r.stderr[-4000:]  # keras-tuner logs a failed trial and goes on
    return json.loads(r.stdout.strip().splitlines()[-1]), out


def _check_search(result, out, algorithm, trials):
    assert result["tensorflow_is_tfcore"] and result["keras_is_tfcore"] and result["tuner_keras"] == "tfcore.keras"
    assert result["real_keras_loaded"] == []  # the alias wins over the real keras package keras-tuner pulls in
    assert len(result["statuses"]) == trials and set(result["statuses"]) == {"COMPLETED"}, result["statuses"]
    assert set(result["best"]) >= {"units", "act", "dropout", "lr"}
    assert result["best"]["units"] in (16, 32, 48, 64) and result["best"]["act"] in ("relu", "tanh")
    assert isinstance(result["best"]["dropout"], bool) and 1e-3 <= result["best"]["lr"] <= 1e-2
    # the reloaded best model (from its trial checkpoint) scores what the search recorded for it
    assert result["accuracy"] == pytest.approx(result["best_score"], abs=1e-6)
    project = out / algorithm
    checkpoints = sorted(project.glob("trial_*/checkpoint"))
    assert len(checkpoints) == trials, sorted(p.name for p in project.iterdir())
    trial_json = json.loads(sorted(project.glob("trial_*/trial.json"))[0].read_text())
    assert [h["class_name"] for h in trial_json["hyperparameters"]["space"]][:4] == ["Int", "Choice", "Boolean",
                                                                                     "Float"]
    # TensorBoard: per-trial train/validation scalars and the hparams plugin's session summaries
    events = sorted(str(p.relative_to(out)) for p in (out / "logs").rglob("events.out.tfevents.*"))
    trial_dirs = {p.split("/")[1] for p in events}
    assert len(trial_dirs) == trials, events
    assert any("/train/" in p for p in events) and any("/validation/" in p for p in events)
    hparams_files = [p for p in (out / "logs").rglob("events.out.tfevents.*") if p.parent.name.startswith("execution")]
    assert len(hparams_files) == trials and all(b"hparams" in p.read_bytes() for p in hparams_files)


@_needs_keras_tuner
def test_a_keras_tuner_random_search_on_digits_through_tfcore_run(tmp_path):
    result, out = _search(tmp_path, "random")
    _check_search(result, out, "random", trials=2)


@_needs_keras_tuner
def test_keras_tuner_hyperband_through_tfcore_run(tmp_path):
    result, out = _search(tmp_path, "hyperband")
    # max_epochs=2, factor=2: two 1-epoch trials, then the best one continued for 2 epochs
    assert result["best"]["tuner/epochs"] in (1, 2)
    _check_search(result, out, "hyperband", trials=len(result["statuses"]))
    assert len(result["statuses"]) >= 2


@_needs_keras_tuner
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                    reason="BayesianOptimization needs scikit-learn (pip install 'keras-tuner[bayesian]')")
def test_keras_tuner_bayesian_optimization_through_tfcore_run(tmp_path):
    result, out = _search(tmp_path, "bayesian")
    _check_search(result, out, "bayesian", trials=3)


# --- the tfcore pieces keras-tuner needed, checked without it ---

class _Point:
    """A Keras-2-style serializable object with a nested serializable config value."""

    def __init__(self, x, inner=None, name=None):
        self.x, self.inner, self.name = x, inner, name

    def get_config(self):
        return {"x": self.x, "inner": self.inner, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def test_legacy_serialization_round_trips_with_module_objects():
    legacy = tf.keras.utils.legacy
    obj = _Point(3, inner=_Point(4), name="p")
    config = legacy.serialize_keras_object(obj)
    assert config == {"class_name": "_Point", "config": {
        "x": 3, "name": "p",
        "inner": {"class_name": "_Point", "config": {"x": 4, "inner": None, "name": None},
                  "__passive_serialization__": True}}}
    json.dumps(config)
    # keras-tuner's call: (config, custom_objects, module_objects) positionally, i.e. TF 2.13's
    # (identifier, module_objects, custom_objects) with the two dicts swapped; either order finds the class
    for args in (({"_Point": _Point}, None), (None, {"_Point": _Point})):
        back = legacy.deserialize_keras_object(json.loads(json.dumps(config)), *args)
        assert isinstance(back, _Point) and back.x == 3 and back.name == "p"
        assert isinstance(back.inner, _Point) and back.inner.x == 4
    assert legacy.serialize_keras_object(tf.nn.relu) == "relu"
    assert legacy.deserialize_keras_object("relu", module_objects={"relu": tf.nn.relu}) is tf.nn.relu
    origin = type("Origin", (_Point,), {"__init__": lambda self: _Point.__init__(self, 0)})
    assert legacy.deserialize_keras_object("Origin", custom_objects={"Origin": origin}).x == 0  # a class: called


def test_legacy_deserialization_errors_name_the_object():
    legacy = tf.keras.utils.legacy
    with pytest.raises(ValueError, match="Unknown hyperparameter: 'Int'"):
        legacy.deserialize_keras_object({"class_name": "Int", "config": {}}, {}, None, "hyperparameter")
    with pytest.raises(ValueError, match="Improper config format"):
        legacy.deserialize_keras_object({"config": {}})
    with pytest.raises(ValueError, match="Cannot serialize"):
        legacy.serialize_keras_object(object())


def test_single_worker_strategies_answer_keras_tuner_chief_checks():
    for strategy in (tf.distribute.get_strategy(), tf.distribute.OneDeviceStrategy("/cpu:0"),
                     tf.distribute.MirroredStrategy(["/cpu:0"])):
        extended = strategy.extended
        assert extended._in_multi_worker_mode() is False
        assert extended.should_checkpoint is True and extended.should_save_summary is True
        assert extended.experimental_should_init is True


def test_compat_v2_is_the_tf2_api_and_compat_v1_has_the_summary_proto():
    assert tf.compat.v2 is tf
    pytest.importorskip("tensorboard", reason="tf.compat.v1's protos come from the tensorboard package")
    summary = tf.compat.v1.Summary()
    summary.value.add(tag="a", simple_value=1.5)
    # TensorBoard's copy of TF's summary.proto (package "tensorboard", same fields, so the same bytes)
    assert type(summary).DESCRIPTOR.full_name == "tensorboard.Summary"
    assert tf.compat.v1.Summary.FromString(summary.SerializeToString()).value[0].simple_value == 1.5
    with pytest.raises(AttributeError, match="TF2 API only"):
        tf.compat.v1.Session  # noqa: B018


def test_the_alias_resolves_tensorflow_compat_v2(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import tensorflow.compat.v2 as tf\nimport tfcore\nassert tf is tfcore\nprint('ok')\n")
    r = subprocess.run([sys.executable, "-m", "tfcore", "run", str(script)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr

