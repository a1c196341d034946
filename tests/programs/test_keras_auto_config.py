"""Keras 3 behaviours guide/intro_to_modules.ipynb meets, as TF 2.21 / Keras 3.15 do them.

* A Layer refuses a Python number or string passed positionally (``simple_layer([[2.0, 2.0, 2.0]])``
  raises Keras 3's ValueError under TF 2.21); arrays are converted, preprocessing layers take Python data.
* A subclassed layer or model without ``get_config`` gets Keras 3's automatic config (its simple
  constructor arguments; for a Model, its ``__init__`` defaults, as ``keras.Model.__new__`` records
  them), so it goes into a ``.keras`` file and comes back.
"""

import numpy as np
import pytest

import tfcore as tf

ONLY_TENSORS = "Only input tensors may be passed as positional arguments. The following argument value should be"


class MyDense(tf.keras.layers.Layer):
    def __init__(self, in_features, out_features, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def call(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class FlexibleDense(tf.keras.layers.Layer):
    def __init__(self, out_features, **kwargs):
        super().__init__(**kwargs)
        self.out_features = out_features

    def build(self, input_shape):
        self.w = tf.Variable(tf.random.normal([input_shape[-1], self.out_features]), name="w")
        self.b = tf.Variable(tf.zeros([self.out_features]), name="b")

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class MySequentialModel(tf.keras.Model):
    def __init__(self, name=None, **kwargs):
        super().__init__(**kwargs)
        self.dense_1 = FlexibleDense(out_features=3)
        self.dense_2 = FlexibleDense(out_features=2)

    def call(self, x):
        return self.dense_2(self.dense_1(x))


def test_python_list_as_positional_layer_input_is_refused():
    simple_layer = MyDense(name="simple", in_features=3, out_features=3)
    with pytest.raises(ValueError, match=ONLY_TENSORS) as e:
        simple_layer([[2.0, 2.0, 2.0]])
    assert str(e.value).endswith("keyword argument: 2.0 (of type <class 'float'>)")
    assert simple_layer(tf.constant([[2.0, 2.0, 2.0]])).shape == (1, 3)
    assert simple_layer(np.ones((1, 3), np.float32)).shape == (1, 3)  # arrays are converted


def test_python_value_positional_anywhere_is_refused():
    with pytest.raises(ValueError, match=r"keyword argument: True \(of type <class 'bool'>\)"):
        tf.keras.layers.Dropout(0.5)(tf.ones((1, 3)), True)
    with pytest.raises(ValueError, match=ONLY_TENSORS):
        tf.keras.layers.Add()([tf.ones((1, 3)), [[1.0, 2.0, 3.0]]])
    assert tf.keras.layers.Add()([tf.ones((1, 3)), tf.ones((1, 3))]).shape == (1, 3)
    assert tf.keras.layers.Dropout(0.5)(tf.ones((1, 3)), training=False).shape == (1, 3)


def test_preprocessing_layers_take_python_data():
    lookup = tf.keras.layers.StringLookup(vocabulary=["a", "b"])
    assert lookup(["a", "b", "c"]).numpy().tolist() == [1, 2, 0]


def test_layer_auto_config_records_simple_arguments():
    layer = FlexibleDense(4, name="fd")
    assert layer.get_config() == {"name": "fd", "out_features": 4, "trainable": True, "dtype": "float32"}
    again = FlexibleDense.from_config(layer.get_config())
    assert again.out_features == 4 and again.name == "fd"


def test_auto_config_refuses_what_keras_refuses():
    class Wraps(tf.keras.layers.Layer):
        def __init__(self, layer, **kwargs):
            super().__init__(**kwargs)
            self.layer = layer

    class Variadic(tf.keras.layers.Layer):
        def __init__(self, *args, **kwargs):
            super().__init__(**kwargs)

    with pytest.raises(NotImplementedError, match="non-serializable argument values"):
        Wraps(tf.keras.layers.Dense(2)).get_config()
    with pytest.raises(NotImplementedError, match="positional only or variadic positional arguments"):
        Variadic(1, 2).get_config()
    assert set(Variadic().get_config()) == {"name", "trainable", "dtype"}


def test_subclassed_model_records_its_init_defaults_as_keras_model_new():
    class WithDefault(tf.keras.Model):
        def __init__(self, units=4, **kwargs):
            super().__init__(**kwargs)
            self.units = units

    class Required(tf.keras.Model):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)

    assert WithDefault(units=8).get_config()["units"] == 4  # Keras 3: keras.Model.__new__ binds no arguments
    with pytest.raises(NotImplementedError):
        Required(3).get_config()


def test_subclassed_model_without_get_config_saves_and_loads(tmp_path):
    model = MySequentialModel(name="the_model")
    x = tf.constant([[2.0, 2.0, 2.0]])
    expected = model(x).numpy()
    path = str(tmp_path / "exname_of_file.keras")
    model.save(path)
    restored = tf.keras.models.load_model(
        path, custom_objects={"MySequentialModel": MySequentialModel, "FlexibleDense": FlexibleDense})
    assert type(restored) is MySequentialModel
    # as TF 2.21 (Keras 3): FlexibleDense's plain tf.Variables are not Keras weights, so the file holds no
    # weights and the reloaded model computes with freshly drawn ones (TF printed [[6.63 5.26]] before and
    # [[2.42 -4.86]] after); layers that should keep their values create them with add_weight
    assert model.weights == [] and restored.weights == []
    got = restored(x).numpy()
    assert got.shape == expected.shape and not np.allclose(got, expected)


def test_tf_module_prints_as_a_plain_python_object():
    """tf.Module has no __repr__ in TF: guide/intro_to_modules prints ``<__main__.Dense object at 0x...>``."""
    class Dense(tf.Module):
        pass

    module = Dense(name="dense")
    assert repr(module) == object.__repr__(module) and str(module) == object.__repr__(module)
