"""The opt-in ``tensorflow`` / ``keras`` alias (issue 29, item 3) and ``tf.__version__``.

The alias changes ``sys.modules`` for the whole process, so each check runs in a fresh interpreter.
"""

import subprocess
import sys
import textwrap

import pytest

import tfcore as tf


def _python(code, *args, cwd=None):
    return subprocess.run([sys.executable, *args] if not code else [sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def test_import_tfcore_alone_aliases_nothing():
    r = _python("""
        import sys, tfcore
        assert "tensorflow" not in sys.modules and "keras" not in sys.modules
        assert not tfcore.compat.is_installed()
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_alias_gives_the_same_module_objects():
    r = _python("""
        import sys
        import tfcore
        tfcore.compat.install_as_tensorflow()
        tfcore.compat.install_as_tensorflow()  # idempotent
        import tensorflow as tf
        import tensorflow.keras.layers
        from tensorflow.keras import layers
        from tensorflow.keras.layers import Dense
        from tensorflow import nn, data
        import keras
        import keras.layers as kl
        from keras.optimizers import Adam
        assert tf is tfcore and tf.keras is tfcore.keras and keras is tfcore.keras
        assert layers is tfcore.keras.layers and kl is tfcore.keras.layers and Dense is tfcore.keras.layers.Dense
        assert sys.modules["tensorflow.keras.layers"] is tfcore.keras.layers
        assert nn is tfcore.nn and data is tfcore.data and Adam is tfcore.keras.optimizers.Adam
        # no second copy: every module object under an alias name is also registered under its tfcore name
        for name, mod in list(sys.modules.items()):
            if name.split(".")[0] in ("tensorflow", "keras"):
                assert sys.modules[mod.__name__] is mod, name
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_a_submodule_tfcore_lacks_raises_import_error_naming_it():
    r = _python("""
        import tfcore
        tfcore.compat.install_as_tensorflow()
        for name in ("tensorflow.python.framework.ops", "keras.src.backend"):
            try:
                __import__(name)
            except ImportError as e:
                assert name.split(".")[1] in str(e) and isinstance(e, ModuleNotFoundError), e
                print(e)
            else:
                raise AssertionError(name)
    """)
    assert r.returncode == 0, r.stderr
    assert "tensorflow.python" in r.stdout and "keras.src" in r.stdout


def test_refuses_when_real_tensorflow_is_already_imported():
    r = _python("""
        import sys, types
        real = types.ModuleType("tensorflow")
        real.__file__ = "/site-packages/tensorflow/__init__.py"
        sys.modules["tensorflow"] = real
        import tfcore
        try:
            tfcore.compat.install_as_tensorflow()
        except ImportError as e:
            assert "already imported" in str(e)
        else:
            raise AssertionError("no error")
        assert sys.modules["tensorflow"] is real and not tfcore.compat.is_installed()
        assert "keras" not in sys.modules
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_tfcore_run_executes_an_unchanged_tensorflow_script(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        import tensorflow as tf
        from tensorflow import keras

        if not tf.__version__.startswith("2."):
            sys.exit("needs TensorFlow 2")
        x = np.random.default_rng(0).random((64, 4), dtype=np.float32)
        y = (x.sum(axis=1) > 2).astype(np.float32)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                                  keras.layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="adam", loss=keras.losses.BinaryCrossentropy(), metrics=["accuracy"])
        model.fit(x, y, epochs=2, batch_size=16, verbose=0)
        print(__name__, sys.argv[1:], type(tf).__name__, tf.__name__)
        raise SystemExit(int(sys.argv[1]))
    """))
    r = _python(None, "-m", "tfcore", "run", str(script), "3", "--flag", cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert r.stdout.strip() == "__main__ ['3', '--flag'] module tfcore"


def test_tfcore_run_of_a_failing_script_prints_its_traceback(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("import tensorflow as tf\nraise ValueError('boom from the script')\n")
    r = _python(None, "-m", "tfcore", "run", str(script))
    assert r.returncode == 1
    assert "Traceback" in r.stderr and "ValueError: boom from the script" in r.stderr and "bad.py" in r.stderr


def test_version_reports_the_tf_api_level_with_tfcore_as_local_label():
    packaging_version = pytest.importorskip("packaging.version", reason="packaging parses PEP 440 versions")
    v = packaging_version.Version(tf.__version__)
    assert v.release[:2] == (2, 21) and v.local == f"tfcore.{tf.version.TFCORE_VERSION}"
    assert tf.__version__ == tf.version.VERSION and tf.__version__.startswith("2.")
    assert v >= packaging_version.Version("2.16")
