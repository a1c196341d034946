"""SavedModel of a tf.function traced with Python values (guide/intro_to_modules: ``my_model([[2.0, 2.0, 2.0]])``).

TF 2.21 saves each concrete function's input signature with the Python values as literals (its
nested_structure_coder) and the loaded function serves a call with the same Python value; another
value finds no concrete function (ValueError). The save failed on the code before the change.
"""

import numpy as np
import pytest

import tfcore as tf

pytest.importorskip("tensorboard", reason="SavedModel uses tensorboard's compiled TF protos")


class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(3.0)

    @tf.function
    def __call__(self, x):
        return tf.reduce_sum(tf.convert_to_tensor(x)) * self.w


def test_a_function_traced_with_a_python_list_saves_and_the_loaded_one_serves_that_list(tmp_path):
    m = Scale()
    assert float(m([[2.0, 2.0, 2.0]])) == 18.0
    assert float(m(tf.constant([1.0, 1.0]))) == 6.0
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert float(loaded([[2.0, 2.0, 2.0]])) == 18.0
    assert float(loaded(tf.constant([4.0, 1.0]))) == 15.0  # the tensor trace still serves tensors
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded([[1.0, 2.0, 3.0]])  # another Python value was never traced (TF: the same error)


def test_literals_mixed_with_tensors_keep_their_values_and_feed_only_the_tensors(tmp_path):
    class Mixed(tf.Module):
        @tf.function
        def f(self, x, scale, opts):
            return x * scale if opts["double"] else x

    m = Mixed()
    x = tf.constant([1.0, 2.0])
    m.f(x, 2.0, {"double": True})
    m.f(x, 2.0, {"double": False})
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded.f(x, 2.0, {"double": True}).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(loaded.f(x, 2.0, {"double": False}).numpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.f(x, 3.0, {"double": True})


def test_an_unserializable_python_argument_is_refused_naming_it(tmp_path):
    class Odd(tf.Module):
        @tf.function
        def f(self, x, obj):
            return x

    m = Odd()
    m.f(tf.constant(1.0), object())
    with pytest.raises(ValueError, match=r"f\(obj=\.\.\.\) was traced with the Python value <object"):
        tf.saved_model.save(m, str(tmp_path / "m"))
    assert not (tmp_path / "m" / "saved_model.pb").exists()
