"""tf.saved_model.save/load: TF's directory layout, loading in a fresh process without the class (seed 003),
signatures, Keras models, shape specialisations, `tfcore saved_model show`, refusals and corrupt files."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfcore as tf
from tfcore.cli import main as cli_main


class DemoModule(tf.Module):
    """Seed 003's module."""

    def __init__(self, init_value=0.0, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.x = tf.Variable(init_value, dtype=tf.float32, trainable=True)

    @tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.float32)])
    def addprint(self, a):
        with self.name_scope:
            self.x.assign_add(a)
            tf.print(self.x)
            return self.x


def test_seed003_loads_in_a_fresh_process_without_the_class(tmp_path):
    demo = DemoModule(init_value=tf.constant(1.0))
    demo.addprint(tf.constant(5.0))
    export = str(tmp_path / "demo" / "1")
    tf.saved_model.save(demo, export, signatures={"serving_default": demo.addprint})
    assert sorted(os.listdir(export)) == ["assets", "saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(export, "variables"))) == ["variables.data-00000-of-00001",
                                                                     "variables.index"]
    script = textwrap.dedent(f"""
        import tfcore as tf
        demo2 = tf.saved_model.load({export!r})
        out = demo2.addprint(tf.constant(5.0))
        print("returned", float(out.numpy()), flush=True)
        sig = demo2.signatures["serving_default"](a=tf.constant(1.0))
        print("signature", sorted(sig), float(sig["output_0"].numpy()), float(demo2.x.numpy()), flush=True)
        print("class", type(demo2).__name__, len(demo2.variables), flush=True)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "returned 11.0" in run.stdout
    assert "signature ['output_0'] 12.0 12.0" in run.stdout
    assert "DemoModule" not in run.stdout and "class _UserObject 1" in run.stdout
    assert run.stderr.split() == ["11", "12"]  # tf.print ran inside the loaded graph
    # the variables directory is a TF checkpoint of the same object graph
    assert dict(tf.train.list_variables(os.path.join(export, "variables", "variables")))[
        "x/.ATTRIBUTES/VARIABLE_VALUE"] == []


def test_cli_show_all(tmp_path, capsys):
    demo = DemoModule(init_value=tf.constant(1.0))
    export = str(tmp_path / "m")
    tf.saved_model.save(demo, export, signatures={"serving_default": demo.addprint})
    assert cli_main(["saved_model", "show", "--dir", export, "--all"]) == 0
    out = capsys.readouterr().out
    for line in ["MetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:",
                 "signature_def['serving_default']:", "    inputs['a'] tensor_info:", "        dtype: DT_FLOAT",
                 "        shape: ()", "    outputs['output_0'] tensor_info:",
                 "  Method name is: tensorflow/serving/predict", "  Function Name: 'addprint'",
                 "          a: TensorSpec(shape=(), dtype=tf.float32, name='a')"]:
        assert line in out.splitlines(), line


def test_keras_model_serving_signature_any_batch(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((6, 6, 1)), tf.keras.layers.Conv2D(2, 3, activation="relu"),
                                 tf.keras.layers.BatchNormalization(), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(3, activation="softmax")])
    x = np.random.RandomState(0).rand(4, 6, 6, 1).astype("float32")
    model.compile("adam", "sparse_categorical_crossentropy")
    model.fit(x, np.arange(4) % 3, verbose=0)
    tf.saved_model.save(model, str(tmp_path / "cnn"))
    loaded = tf.saved_model.load(str(tmp_path / "cnn"))
    serve = loaded.signatures["serving_default"]
    (key,) = serve.argument_keywords
    for batch in (4, 1):
        out = serve(**{key: tf.constant(x[:batch])})["output_0"].numpy()
        np.testing.assert_allclose(out, model.predict(x[:batch], verbose=0), rtol=1e-6, atol=1e-7)


class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([2.0, 3.0, 4.0])

    @tf.function
    def head(self, x):
        return tf.reduce_sum(x) * self.w[0] + tf.cast(tf.size(x) + tf.shape(x)[0], tf.float32)

    @tf.function
    def total(self, x):
        return {"sum": tf.reduce_sum(x * self.w), "max": tf.reduce_max(x)}


def test_traced_shapes_dict_outputs_and_gradients(tmp_path):
    m = Scale()
    m.head(tf.constant([1.0, 1.0]))
    m.head(tf.constant([1.0, 1.0, 1.0]))
    m.total(tf.constant([1.0, 2.0, 3.0]))
    tf.saved_model.save(m, str(tmp_path / "s"))
    loaded = tf.saved_model.load(str(tmp_path / "s"))
    assert loaded.signatures == {}  # no input_signature anywhere: no default signature (as TF)
    assert float(loaded.head(tf.constant([1.0, 2.0])).numpy()) == 3.0 * 2.0 + 4.0
    assert float(loaded.head(tf.constant([1.0, 1.0, 1.0])).numpy()) == 3.0 * 2.0 + 6.0
    out = loaded.total(tf.constant([1.0, 0.0, 2.0]))
    assert sorted(out) == ["max", "sum"] and float(out["sum"].numpy()) == 10.0
    with pytest.raises(ValueError, match="matching concrete function"):
        loaded.head(tf.constant([1, 2]))  # int32: no saved graph takes it
    with tf.GradientTape() as tape:
        y = loaded.total(tf.constant([1.0, 0.0, 2.0]))["sum"]
    np.testing.assert_array_equal(tape.gradient(y, loaded.w).numpy(), [1.0, 0.0, 2.0])


def test_python_code_in_graphs_is_refused(tmp_path):
    class Branchy(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return tf.cond(x > 0, lambda: x * self.v, lambda: -x)

    b = Branchy()
    with pytest.raises(ValueError, match="'f'.*runs Python code"):
        tf.saved_model.save(b, str(tmp_path / "b"))
    assert not os.path.exists(tmp_path / "b")

    class Orphan(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return x + GLOBAL

    with pytest.raises(ValueError, match="not reachable from the saved object"):
        tf.saved_model.save(Orphan(), str(tmp_path / "o"))


GLOBAL = tf.Variable(1.0)


def test_loading_never_runs_unknown_code_and_reports_bad_files(tmp_path):
    demo = DemoModule(init_value=tf.constant(1.0))
    export = str(tmp_path / "m")
    tf.saved_model.save(demo, export, signatures={"serving_default": demo.addprint})
    pb = os.path.join(export, "saved_model.pb")
    with open(pb, "rb") as f:
        raw = f.read()
    with open(pb, "wb") as f:
        f.write(raw.replace(b"AddV2", b"Sys_Z"))  # an op name nobody registered
    with pytest.raises(ValueError, match="'Sys_Z'"):
        tf.saved_model.load(export)
    with open(pb, "wb") as f:
        f.write(raw[: len(raw) // 2])
    with pytest.raises(OSError, match="Cannot parse file .*saved_model.pb"):  # TF's error for a damaged .pb
        tf.saved_model.load(export)
    with pytest.raises(OSError, match="SavedModel file does not exist at: .*nowhere"):  # TF's error
        tf.saved_model.load(str(tmp_path / "nowhere"))
    assert tf.saved_model.contains_saved_model(export) and not tf.saved_model.contains_saved_model(str(tmp_path))


def test_tensorflow_loads_our_savedmodels(tmp_path):
    tf_real = pytest.importorskip("tensorflow")
    demo = DemoModule(init_value=1.0)
    tf.saved_model.save(demo, str(tmp_path / "demo"), signatures={"serving_default": demo.addprint})
    theirs = tf_real.saved_model.load(str(tmp_path / "demo"))
    assert float(theirs.addprint(tf_real.constant(5.0)).numpy()) == 6.0  # the saved value was 1.0
    assert float(theirs.signatures["serving_default"](a=tf_real.constant(1.0))["output_0"].numpy()) == 7.0

    model = tf.keras.Sequential([tf.keras.Input((6, 6, 1)), tf.keras.layers.Conv2D(2, 3, activation="relu"),
                                 tf.keras.layers.BatchNormalization(), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(3, activation="softmax")])
    x = np.random.RandomState(2).rand(5, 6, 6, 1).astype("float32")
    tf.saved_model.save(model, str(tmp_path / "cnn"))
    serve = tf_real.saved_model.load(str(tmp_path / "cnn")).signatures["serving_default"]
    (key,) = serve.structured_input_signature[1]
    np.testing.assert_allclose(serve(**{key: tf_real.constant(x)})["output_0"].numpy(), model.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_each_op_names_its_output_as_tfs_opdef_does():
    """A SavedModel's graph edges are ``node:<output arg>:<i>``; TF resolves them by its OpDef's output
    names, so each op carries TF's name (``Op.output_arg``). The table was read from TF 2.21's OpDefs."""
    import json
    import pathlib

    from tfcore.ops.registry import REGISTRY

    table = json.loads((pathlib.Path(__file__).with_name("tf_op_output_args.json")).read_text())["output_arg"]
    assert len(table) >= 200
    wrong = {n: (REGISTRY[n].output_arg, want) for n, want in table.items()
             if n in REGISTRY and REGISTRY[n].output_arg != want}
    assert not wrong, f"ops whose output name differs from TF's OpDef (ours, TF's): {wrong}"
