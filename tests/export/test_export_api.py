"""``tfcore.export.export`` / ``Model.export`` / ``tfcore export``: arguments, errors, atomic writes, float16."""

import json
import os

import numpy as np
import onnx
import pytest
from export_helpers import assert_close, export_and_run, reference

from tfcore import keras
from tfcore.cli import main
from tfcore.export import UnsupportedLayerError, export
from tfcore.export.runtimes import run_onnx, run_tfjs, run_tflite, tfjs_node_modules
from tfcore.keras import layers
from tfcore.keras.train_command import build_model

pytestmark = pytest.mark.usefixtures("cpu")


def _cnn():
    keras.utils.set_random_seed(0)
    return build_model("cnn")


def _x(n=3):
    return np.random.default_rng(0).standard_normal((n, 8, 8, 1)).astype("float32")


def test_onnx_model_is_checked_opset_20_and_keeps_nhwc(tmp_path):
    path = str(tmp_path / "m.onnx")
    _cnn().export(path, format="onnx", verbose=False)
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    assert m.opset_import[0].version == 20 and m.ir_version == 9 and m.producer_name == "tfcore"
    dims = [d.dim_param or d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["batch", 8, 8, 1]  # channels-last in and out, as the Keras model
    assert {"Conv", "MaxPool", "Transpose"} <= {n.op_type for n in m.graph.node}


def test_unsupported_layer_names_layer_and_class_and_writes_nothing(tmp_path):
    inp = keras.Input((4,))
    out = layers.Lambda(lambda t: t * 2, name="doubler")(layers.Dense(3)(inp))
    model = keras.Model(inp, out)
    for fmt, name in (("onnx", "m.onnx"), ("tflite", "m.tflite"), ("tfjs", "js")):
        with pytest.raises(UnsupportedLayerError, match=r"'doubler' \(Lambda\)"):
            export(model, str(tmp_path / name), format=fmt)
    assert os.listdir(tmp_path) == []  # no file, no temporary left behind


def test_tfjs_refuses_what_tfjs_computes_differently(tmp_path):
    """TF.js's hard_sigmoid is 0.2x + 0.5, Keras 3's x/6 + 0.5: refused rather than exported wrong."""
    model = keras.Sequential([layers.Input((3,)), layers.Dense(2, activation="hard_sigmoid", name="gate")])
    with pytest.raises(UnsupportedLayerError, match=r"'gate' \(Dense\) to TF.js"):
        export(model, str(tmp_path / "js"), format="tfjs")
    assert os.listdir(tmp_path) == []


def test_failed_export_keeps_the_previous_file(tmp_path):
    path = tmp_path / "m.onnx"
    _cnn().export(str(path), format="onnx", verbose=False)
    before = path.read_bytes()
    bad = keras.Sequential([layers.Input((4,)), layers.Lambda(lambda t: t)])
    with pytest.raises(UnsupportedLayerError):
        export(bad, str(path), format="onnx")
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["m.onnx"]


def test_tfjs_export_into_an_existing_folder_keeps_other_files(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "group1-shard9of9.bin").write_bytes(b"stale")
    export(_cnn(), str(tmp_path), format="tfjs")
    names = sorted(os.listdir(tmp_path))
    assert names == ["group1-shard1of1.bin", "model.json", "notes.txt"]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"format": "coreml"}, ValueError, "format='coreml'"),
    ({"format": "onnx", "float16": "yes"}, TypeError, "float16"),
])
def test_bad_arguments(tmp_path, kwargs, error, match):
    with pytest.raises(error, match=match):
        export(_cnn(), str(tmp_path / "m"), **kwargs)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        export(_cnn(), str(tmp_path / "missing" / "m.onnx"), format="onnx")
    assert os.listdir(tmp_path) == []


def test_model_export_formats_as_keras3(tmp_path):
    model = _cnn()
    with pytest.raises(ValueError, match="Unrecognized format='jax'"):
        model.export(str(tmp_path / "m"), format="jax")
    model.export(str(tmp_path / "m.tflite"), format="litert", verbose=False)  # Keras 3's name for TFLite
    assert_close(run_tflite(tmp_path / "m.tflite", _x()), reference(model, _x()))


def _fp16_rounded_copy(model):
    clone = _cnn()
    clone.set_weights([w.astype(np.float16).astype(np.float32) for w in model.get_weights()])
    return clone


@pytest.mark.parametrize("fmt, name", [("onnx", "m.onnx"), ("tflite", "m.tflite"), ("tfjs", "js")])
def test_float16_weights(tmp_path, fmt, name):
    """float16 files are about half the size and compute exactly what the float16-rounded weights give."""
    model = _cnn()
    x = _x()
    got = export_and_run(model, x, fmt, tmp_path, float16=True)
    assert_close(got, reference(_fp16_rounded_copy(model), x), rtol=1e-5)
    (tmp_path / "f32").mkdir()
    export(model, str(tmp_path / "f32" / name), format=fmt)

    def size(p):
        return sum(f.stat().st_size for f in p.iterdir()) if p.is_dir() else p.stat().st_size

    full = [p for p in (tmp_path / "f32").iterdir()][0]
    half = [p for p in tmp_path.iterdir() if p.name != "f32"][0]
    assert size(half) < 0.6 * size(full)


@pytest.mark.parametrize("fmt", ["onnx", "tflite", "tfjs"])
def test_cli_exports_a_saved_model(tmp_path, capsys, fmt):
    if fmt == "tfjs" and tfjs_node_modules() is None:
        pytest.skip("TF.js check needs Node and `npm install @tensorflow/tfjs` (.ci/run does it)")
    model = _cnn()
    model.save(str(tmp_path / "digits.keras"))
    out = tmp_path / "out"
    assert main(["export", "--model", str(tmp_path / "digits.keras"), "--format", fmt, "--out", str(out)]) == 0
    assert "Exported digits_cnn" in capsys.readouterr().out
    got = {"onnx": lambda: run_onnx(out / "digits.onnx", _x()),
           "tflite": lambda: run_tflite(out / "digits.tflite", _x()),
           "tfjs": lambda: run_tfjs(out, _x())}[fmt]()
    assert_close(got, reference(model, _x()))
    if fmt == "tfjs":
        topology = json.loads((out / "model.json").read_text())["modelTopology"]
        assert topology["config"]["layers"][0]["config"]["batch_input_shape"] == [None, 8, 8, 1]


def test_cli_errors_without_traceback(tmp_path):
    with pytest.raises(SystemExit, match="--model .*nope.keras: no such file"):
        main(["export", "--model", str(tmp_path / "nope.keras"), "--format", "onnx", "--out", str(tmp_path)])
    _cnn().save(str(tmp_path / "digits.keras"))
    (tmp_path / "a_file").write_text("")
    with pytest.raises(SystemExit, match="--out .*a_file"):
        main(["export", "--model", str(tmp_path / "digits.keras"), "--format", "onnx",
              "--out", str(tmp_path / "a_file")])
    (tmp_path / "bad.keras").write_bytes(b"not a zip")
    with pytest.raises(SystemExit, match="cannot load a Keras model"):
        main(["export", "--model", str(tmp_path / "bad.keras"), "--format", "onnx", "--out", str(tmp_path)])


def test_model_export_default_is_a_saved_model(tmp_path, capsys):
    """Keras 3's default format: a SavedModel directory whose serving signature computes the model."""
    import tfcore as tf

    model = _cnn()
    model.export(str(tmp_path / "sm"))
    assert "Saved artifact at" in capsys.readouterr().out
    loaded = tf.saved_model.load(str(tmp_path / "sm"))
    out = loaded.signatures["serving_default"](inputs=tf.constant(_x()))
    assert_close(np.asarray(out["output_0"].numpy()), reference(model, _x()), rtol=1e-6)


def test_model_argument_must_be_a_model(tmp_path):
    with pytest.raises(TypeError, match="model must be a Keras model, got str"):
        export("digits.keras", str(tmp_path / "m.onnx"))


@pytest.mark.parametrize("fmt", ["onnx", "tflite", "tfjs"])
def test_variable_length_sequences(tmp_path, fmt):
    """A Dense over (batch, steps, features) with unknown steps: each runtime takes any length."""
    keras.utils.set_random_seed(13)
    model = keras.Sequential([layers.Input((None, 4)), layers.Dense(3, activation="tanh"), layers.Dense(2)])
    for steps in (1, 6):
        x = np.random.default_rng(steps).standard_normal((2, steps, 4)).astype("float32")
        (tmp_path / str(steps)).mkdir()
        assert_close(export_and_run(model, x, fmt, tmp_path / str(steps)), reference(model, x))


def test_tflite_serving_signature(tmp_path):
    """The flatbuffer carries a 'serving_default' signature (input names, output_0...), runnable by name."""
    from ai_edge_litert.interpreter import Interpreter

    model = _cnn()
    path = str(tmp_path / "m.tflite")
    export(model, path, format="tflite")
    it = Interpreter(model_path=path)
    name = model.inputs[0]._keras_history.layer.name  # the Input layer's name, e.g. "conv2d_input"
    assert it.get_signature_list() == {"serving_default": {"inputs": [name], "outputs": ["output_0"]}}
    out = it.get_signature_runner("serving_default")(**{name: _x(4)})
    assert_close(out["output_0"], reference(model, _x(4)))
