"""The Layer base class: building, weights, naming, trainable, losses, training flag, configs."""

import numpy as np
import pytest

import tfcore as tf

L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_names():
    tf.keras.backend.clear_session()


class Linear(L.Layer):
    """The custom layer from the TF guide."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight("w", shape=(input_shape[-1], self.units), initializer="random_normal")
        self.b = self.add_weight("b", shape=(self.units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_build_on_first_call_and_weights():
    layer = Linear(4)
    assert not layer.built and layer.weights == []
    x = np.ones((2, 5), np.float32)
    y = layer(x)
    assert layer.built and y.shape == (2, 4)
    # Keras 3 (TF 2.21): the short name, the layer's path
    assert [w.name for w in layer.weights] == ["w", "b"]
    assert [w.path for w in layer.weights] == ["linear/w", "linear/b"]
    np.testing.assert_allclose(y.numpy(), x @ layer.w.numpy() + layer.b.numpy(), rtol=1e-6)
    assert layer.count_params() == 24
    assert layer.variables == layer.weights and layer.trainable_variables == layer.trainable_weights


def test_unique_names_per_class_like_keras():
    assert [L.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert L.Conv2D(1, 1).name == "conv2d"
    assert L.MaxPool2D().name == "max_pooling2d"
    assert L.BatchNormalization().name == "batch_normalization"
    assert L.ReLU().name == "re_lu"
    assert L.Dense(1, name="head").name == "head"
    assert L.Dense(1).name == "dense_3"
    assert tf.keras.Input((2,)).name == "input_1"


def test_dtype_and_autocast():
    layer = L.Dense(2)
    assert layer.dtype == "float32"
    y = layer(np.ones((1, 3)))  # float64 NumPy input is cast to the layer's float32
    assert y.dtype == tf.float32
    d64 = L.Dense(2, dtype="float64")
    assert d64(np.ones((1, 3), np.float32)).dtype == tf.float64
    assert d64.kernel.dtype == tf.float64


def test_nested_layers_tracked_and_freezing_is_recursive():
    class Block(L.Layer):
        def __init__(self):
            super().__init__()
            self.inner = [L.Dense(3), L.Dense(2)]
            # a Keras weight (a plain tf.Variable attribute is not one in Keras 3: test_keras3_variables.py)
            self.scale = self.add_weight(name="scale", shape=(), initializer=tf.keras.initializers.Constant(2.0))

        def call(self, x):
            return self.inner[1](self.inner[0](x)) * self.scale

    block = Block()
    block(np.ones((1, 4), np.float32))
    assert len(block.trainable_weights) == 5  # scale + 2 x (kernel, bias)
    assert block.trainable_weights[0] is block.scale
    block.trainable = False
    assert block.trainable_weights == [] and len(block.non_trainable_weights) == 5
    assert not block.inner[0].trainable
    block.inner[1].trainable = True
    assert len(block.trainable_weights) == 0  # a frozen parent hides its children's weights
    block.trainable = True
    assert len(block.trainable_variables) == 5


def test_gradients_flow_through_layers():
    layer = L.Dense(2, activation="tanh")
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    gk, gb = tape.gradient(y, layer.trainable_variables)
    t = np.tanh(x @ layer.kernel.numpy())
    np.testing.assert_allclose(gk.numpy(), x.T @ (1 - t ** 2), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), (1 - t ** 2).sum(0), rtol=1e-4, atol=1e-5)


def test_regularization_losses_and_add_loss():
    layer = L.Dense(2, kernel_regularizer=tf.keras.regularizers.l2(0.1), bias_regularizer="l1",
                    activity_regularizer=tf.keras.regularizers.L1(0.5), bias_initializer="ones")
    x = np.ones((4, 3), np.float32)
    y = layer(x)
    losses = [float(v) for v in layer.losses]
    k = layer.kernel.numpy()
    expected_activity = 0.5 * np.abs(y.numpy()).sum() / 4  # divided by the batch size, as Keras
    assert sorted(np.round(losses, 5)) == sorted(np.round(
        [expected_activity, 0.1 * (k ** 2).sum(), 0.01 * 2.0], 5))
    layer(x)
    assert len(layer.losses) == 3  # activity losses are replaced on each call, not accumulated

    class AddsLoss(L.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x

    outer = L.Layer()
    outer.inner = AddsLoss()
    outer.inner(np.ones((2,), np.float32))
    assert [float(v) for v in outer.losses] == [2.0]


def test_training_argument_is_propagated():
    seen = []

    class Probe(L.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Outer(L.Layer):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def call(self, x):
            return self.probe(x)

    outer = Outer()
    outer(np.ones(2), training=True)
    outer(np.ones(2))
    outer(np.ones(2), training=False)
    Probe()(np.ones(2), training=True)
    assert seen == [True, None, False, True]


def test_input_shape_keyword_and_config_round_trip():
    layer = L.Dense(3, input_shape=(5,), activation="relu", name="d")
    config = layer.get_config()
    assert config["batch_input_shape"] == (None, 5)
    assert config["units"] == 3 and config["activation"] == "relu"
    clone = L.Dense.from_config(config)
    assert clone.units == 3 and clone.name == "d"
    lin = Linear.from_config(Linear(7).get_config())
    assert lin.units == 7
    conv = L.deserialize(L.serialize(L.Conv2D(4, 3, strides=2, padding="same")))
    assert conv.strides == (2, 2) and conv.padding == "same" and conv.filters == 4


def test_set_weights_checks_shapes():
    layer = L.Dense(2)
    layer(np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match=r"weight shape \(3, 2\) is not compatible with provided weight shape "
                                         r"\(2, 2\)"):
        layer.set_weights([np.zeros((2, 2)), np.zeros(2)])
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer.set_weights([np.zeros((3, 2))])
    layer.set_weights([np.ones((3, 2)), np.full(2, 3.0)])
    np.testing.assert_array_equal(layer.kernel.numpy(), np.ones((3, 2)))


def test_count_params_requires_build():
    with pytest.raises(ValueError, match="isn't built"):
        L.Dense(2).count_params()


def test_custom_layer_without_compute_output_shape_in_functional_graph():
    inp = tf.keras.Input((5,))
    out = Linear(4)(inp)
    assert out.shape.as_list() == [None, 4]
    doubled = out * 2.0 + 1.0
    model = tf.keras.Model(inp, doubled)
    x = np.ones((2, 5), np.float32)
    lin = model.layers[1]
    np.testing.assert_allclose(model(x).numpy(), (x @ lin.w.numpy() + lin.b.numpy()) * 2 + 1, rtol=1e-6)


def test_keras_tensor_cannot_be_used_as_a_value():
    x = tf.keras.Input((3,))
    with pytest.raises(TypeError):
        np.asarray(x)
    with pytest.raises(TypeError):
        bool(x)


def test_training_without_default_gets_false():
    class NeedsTraining(L.Layer):
        def call(self, x, training):
            return x * (2.0 if training else 1.0)

    layer = NeedsTraining()
    np.testing.assert_allclose(layer(np.ones(2, np.float32)).numpy(), [1.0, 1.0])
    np.testing.assert_allclose(layer(np.ones(2, np.float32), training=True).numpy(), [2.0, 2.0])
