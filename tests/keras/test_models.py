"""Sequential, functional and subclassed models: structure, calls, summary, weights and weight files."""

import os

import numpy as np
import pytest

import tfcore as tf

L = tf.keras.layers
RNG = np.random.default_rng(1)


@pytest.fixture(autouse=True)
def _fresh_names():
    tf.keras.backend.clear_session()


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.fixture(autouse=True)
def _eighty_column_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # summary() sizes its table to the terminal, as Keras 3


def summary_text(model, **kwargs):
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    return "\n".join(lines)


# -- Sequential -------------------------------------------------------------------------------------------
def test_sequential_from_list_with_input_shape_is_built():
    model = tf.keras.Sequential([L.Dense(4, input_shape=(10,)), L.Dense(1)])
    assert model.built and model.count_params() == 49
    assert [lay.name for lay in model.layers] == ["dense", "dense_1"]
    assert model.output_shape == (None, 1) and model.input_shape == (None, 10)
    x = rand(3, 10)
    k1, b1, k2, b2 = model.get_weights()
    np.testing.assert_allclose(model(x).numpy(), (x @ k1 + b1) @ k2 + b2, rtol=1e-5)


def test_sequential_summary_matches_tf_format():
    """Keras 3's table (TF 2.21 prints exactly this in an 80-column terminal)."""
    model = tf.keras.Sequential([L.Dense(4, input_shape=(10,)), L.Dense(1)])
    expected = """Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ (None, 4)              │            44 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense_1 (Dense)                 │ (None, 1)              │             5 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 49 (196.00 B)
 Trainable params: 49 (196.00 B)
 Non-trainable params: 0 (0.00 B)"""
    assert summary_text(model) == expected


def test_summary_counts_non_trainable_and_uses_thousands_separators(capsys):
    model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), L.Conv2D(32, 3), L.BatchNormalization(),
                                 L.Flatten(), L.Dense(10)])
    model.summary()
    out = capsys.readouterr().out
    assert "│ conv2d (Conv2D)                 │ (None, 26, 26, 32)     │           320 │" in out
    # a cell too narrow for "name (Class)" wraps at the space, exactly as TF 2.21 (rich) prints it
    assert ("│ batch_normalization             │ (None, 26, 26, 32)     │           128 │\n"
            "│ (BatchNormalization)            │                        │               │") in out
    assert " Total params: 216,778 (846.79 KB)" in out
    assert " Trainable params: 216,714 (846.54 KB)" in out
    assert " Non-trainable params: 64 (256.00 B)" in out


def test_sequential_add_and_deferred_build():
    model = tf.keras.Sequential()
    model.add(L.Dense(8, activation="relu"))
    model.add(L.Dense(2))
    assert not model.built
    model.summary()  # Keras 3 prints an unbuilt model ("?" shapes, "0 (unbuilt)" params) instead of raising
    y = model(rand(5, 3))
    assert y.shape == (5, 2) and model.built
    assert model.count_params() == 3 * 8 + 8 + 8 * 2 + 2
    assert "(5, 8)" in summary_text(model)  # Keras 3 builds from the first call's whole shape, batch size included
    model2 = tf.keras.Sequential([L.Dense(3)])
    model2.build((None, 4))
    assert model2.count_params() == 15


def test_sequential_with_input_and_layer_names_must_be_unique():
    model = tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(2, name="a")])
    assert model.layers[0].name == "a" and len(model.layers) == 1
    with pytest.raises(ValueError, match="unique names"):
        model.add(L.Dense(2, name="a"))
    with pytest.raises(TypeError, match="instance of class Layer"):
        model.add("dense")
    model.pop()
    assert model.layers == []


def test_sequential_inputs_feed_a_functional_feature_extractor():
    base = tf.keras.Sequential([tf.keras.Input((6,)), L.Dense(4, activation="relu"), L.Dense(3)])
    extractor = tf.keras.Model(inputs=base.inputs, outputs=[layer.output for layer in base.layers])
    feats = extractor(rand(2, 6))
    assert [f.shape for f in feats] == [(2, 4), (2, 3)]


def test_sequential_config_round_trip():
    model = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(4, activation="relu"), L.Dropout(0.2), L.Dense(1)])
    clone = tf.keras.Sequential.from_config(model.get_config())
    assert [type(lay).__name__ for lay in clone.layers] == ["Dense", "Dropout", "Dense"]
    assert clone.count_params() == model.count_params()


# -- functional ---------------------------------------------------------------------------------------------
def test_functional_multi_input_multi_output():
    a = tf.keras.Input((4,), name="a")
    b = tf.keras.Input((3,), name="b")
    h = L.Concatenate()([L.Dense(5, name="da")(a), L.Dense(5, name="db")(b)])
    out1 = L.Dense(2, name="out1")(h)
    out2 = L.Dense(1, name="out2")(h)
    model = tf.keras.Model(inputs=[a, b], outputs=[out1, out2])
    assert isinstance(model, tf.keras.Model)
    assert [lay.name for lay in model.layers][:2] == ["a", "b"]
    assert model.input_names == ["a", "b"] and model.output_names == ["out1", "out2"]
    xa, xb = rand(2, 4), rand(2, 3)
    y1, y2 = model([xa, xb])
    da, db, o1 = model.get_layer("da"), model.get_layer("db"), model.get_layer("out1")
    hh = np.concatenate([xa @ da.kernel.numpy() + da.bias.numpy(), xb @ db.kernel.numpy() + db.bias.numpy()], -1)
    np.testing.assert_allclose(y1.numpy(), hh @ o1.kernel.numpy() + o1.bias.numpy(), rtol=1e-5)
    assert y2.shape == (2, 1)
    y1d, _ = model({"a": xa, "b": xb})
    np.testing.assert_allclose(y1d.numpy(), y1.numpy())
    text = summary_text(model)
    assert "Connected to" in text and "│ da[0][0],         │" in text and "│ db[0][0]          │" in text
    with pytest.raises(ValueError, match="expects 2 input"):
        model(xa)
    with pytest.raises(ValueError, match="incompatible with the layer"):
        model([rand(2, 5), xb])


def test_functional_dict_outputs_and_operators():
    inp = tf.keras.Input((3,))
    d = L.Dense(2)
    model = tf.keras.Model(inp, {"y": d(inp), "z": d(inp) * 2.0})
    out = model(rand(1, 3))
    np.testing.assert_allclose(out["z"].numpy(), 2 * out["y"].numpy(), rtol=1e-6)


def test_shared_layers_reuse_weights():
    shared = L.Dense(3, name="shared")
    a, b = tf.keras.Input((4,)), tf.keras.Input((4,))
    model = tf.keras.Model([a, b], L.Add()([shared(a), shared(b)]))
    assert len(model.trainable_weights) == 2 and model.count_params() == 15
    xa, xb = rand(2, 4), rand(2, 4)
    k, bias = shared.get_weights()
    np.testing.assert_allclose(model([xa, xb]).numpy(), xa @ k + xb @ k + 2 * bias, rtol=1e-5)
    assert len(shared.inbound_nodes) == 2


def test_nested_models_and_training_flag_inside_graph():
    inner_in = tf.keras.Input((4,))
    inner = tf.keras.Model(inner_in, L.BatchNormalization()(L.Dense(4)(inner_in)), name="inner")
    outer_in = tf.keras.Input((4,))
    frozen_out = inner(outer_in, training=False)  # the transfer-learning guide's pattern
    model = tf.keras.Model(outer_in, L.Dense(1)(frozen_out))
    assert model.layers[1] is inner
    assert model.count_params() == inner.count_params() + 5
    bn = inner.layers[-1]
    model(rand(8, 4), training=True)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), np.zeros(4))  # training=False was baked in
    seq = tf.keras.Sequential([inner, L.Dense(2)])
    seq(rand(3, 4), training=True)
    assert np.abs(bn.moving_mean.numpy()).sum() > 0  # the outer training=True reached the nested BN


def test_graph_disconnected_and_non_input_errors():
    a, b = tf.keras.Input((2,)), tf.keras.Input((2,))
    out = L.Add()([a, b])
    with pytest.raises(ValueError, match="Graph disconnected"):
        tf.keras.Model(a, out)
    with pytest.raises(ValueError, match="keras.Input"):
        tf.keras.Model(L.Dense(2)(a), out)


def test_get_layer():
    model = tf.keras.Sequential([L.Dense(2, input_shape=(3,), name="x"), L.Dense(1, name="y")])
    assert model.get_layer("y") is model.layers[1]
    assert model.get_layer(index=0).name == "x"
    with pytest.raises(ValueError, match="No such layer: z"):
        model.get_layer("z")


# -- subclassed -----------------------------------------------------------------------------------------------
class MLP(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = L.Dense(8, activation="relu")
        self.bn = L.BatchNormalization()
        self.out = L.Dense(3)

    def call(self, x, training=None):
        return self.out(self.bn(self.hidden(x), training=training))


def test_subclassed_model_tracks_attributes_and_freezing():
    model = MLP()
    assert model.name == "mlp"
    model(rand(4, 5))
    assert model.built
    assert [lay.name for lay in model.layers] == ["dense", "batch_normalization", "dense_1"]
    assert len(model.trainable_variables) == 6 and len(model.non_trainable_variables) == 2
    assert model.count_params() == 5 * 8 + 8 + 4 * 8 + 8 * 3 + 3
    text = summary_text(model)  # Keras 3: each eagerly called layer's output shape for its build shape
    assert "multiple" not in text and "(4, 8)" in text and "(4, 3)" in text
    model.hidden.trainable = False
    assert len(model.trainable_variables) == 4
    model.trainable = False
    assert model.trainable_variables == [] and len(model.non_trainable_variables) == 8


def test_subclassed_model_build_and_custom_model_functional_init():
    model = MLP()
    model.build((None, 6))
    assert model.hidden.kernel.shape == (6, 8)

    class Custom(tf.keras.Model):
        def train_step(self, data):
            return {}

    inp = tf.keras.Input((3,))
    custom = Custom(inp, L.Dense(2)(inp))
    assert isinstance(custom, Custom) and custom.name == "custom"
    assert custom(rand(1, 3)).shape == (1, 2)


def test_unimplemented_call_raises():
    with pytest.raises(NotImplementedError, match="Unimplemented"):
        tf.keras.Model()(rand(1, 2))


# -- weights ------------------------------------------------------------------------------------------------------
def test_get_set_weights_shape_errors():
    model = tf.keras.Sequential([L.Dense(2, input_shape=(3,))])
    with pytest.raises(ValueError, match=r"\(3, 2\).*\(4, 2\)"):
        model.set_weights([np.zeros((4, 2)), np.zeros(2)])


def _models_equal(a, b):
    for va, vb in zip(a.variables, b.variables):
        np.testing.assert_array_equal(va.numpy(), vb.numpy())


def test_save_load_weights_round_trip_sequential(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((5,)), L.Dense(4), L.BatchNormalization(), L.Dense(2)])
    model(rand(8, 5), training=True)  # moving statistics differ from their initial values
    path = tmp_path / "ckpt" / "model.weights.npz"  # (*.weights.h5 is Keras 3's HDF5 layout: tests/saving)
    model.save_weights(str(path))
    other = tf.keras.Sequential([tf.keras.Input((5,)), L.Dense(4), L.BatchNormalization(), L.Dense(2)])
    x = rand(3, 5)
    assert not np.allclose(other(x).numpy(), model(x).numpy())
    other.load_weights(str(path))
    _models_equal(model, other)
    np.testing.assert_array_equal(other(x).numpy(), model(x).numpy())
    with np.load(path, allow_pickle=False) as data:  # the documented, pickle-free layout
        assert str(data["__format__"]) == "tfcore-keras-weights"
        assert list(data["__names__"])[:2] == ["dense/kernel", "dense/bias"]


def test_save_load_weights_subclassed_and_frozen_order_independent(tmp_path):
    a = MLP()
    a(rand(2, 5))
    a.bn.trainable = False  # changes model.weights order, not the file's
    path = os.fspath(tmp_path / "w")
    a.save_weights(path)
    b = MLP()
    b(rand(2, 5))
    b.load_weights(path)
    for la, lb in zip(a.layers, b.layers):
        for va, vb in zip(la.weights, lb.weights):
            np.testing.assert_array_equal(va.numpy(), vb.numpy())


def test_load_weights_errors_leave_model_unchanged(tmp_path):
    small = tf.keras.Sequential([L.Dense(2, input_shape=(3,))])
    path = os.fspath(tmp_path / "small.npz")
    small.save_weights(path)
    big = tf.keras.Sequential([L.Dense(2, input_shape=(4,))])
    before = big.get_weights()
    with pytest.raises(ValueError, match=r"expects \(4, 2\), the file holds \(3, 2\)"):
        big.load_weights(path)
    for x, y in zip(before, big.get_weights()):
        np.testing.assert_array_equal(x, y)
    deeper = tf.keras.Sequential([L.Dense(2, input_shape=(3,)), L.Dense(1)])
    with pytest.raises(ValueError, match="holds 2 weights"):
        deeper.load_weights(path)
    junk = tmp_path / "junk.h5"
    junk.write_bytes(b"\x89HDF\r\n\x1a\n not ours")
    with pytest.raises(ValueError, match="not a tfcore Keras weights file"):
        small.load_weights(os.fspath(junk))
    unbuilt = MLP()
    with pytest.raises(ValueError, match="not created its weights"):
        unbuilt.load_weights(path)


def test_load_weights_by_name(tmp_path):
    src = tf.keras.Sequential([L.Dense(2, input_shape=(3,), name="first"), L.Dense(1, name="second")])
    path = os.fspath(tmp_path / "w.npz")
    src.save_weights(path)
    dst = tf.keras.Sequential([L.Dense(2, input_shape=(3,), name="first"), L.Dense(5, name="other")])
    dst.load_weights(path, by_name=True)
    np.testing.assert_array_equal(dst.get_layer("first").kernel.numpy(), src.get_layer("first").kernel.numpy())


def test_subclassed_build_accepts_a_list_shape():
    """``model.build([None, 28, 28, 1])``: a flat list of dims is one input shape, as in TF (seed 002)."""

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.conv = L.Conv2D(2, 3)
            self.dense = L.Dense(3)

        def call(self, x):
            return self.dense(tf.reshape(self.conv(x), (-1, 2 * 2 * 2)))

    model = Net()
    model.build(input_shape=[None, 4, 4, 1])
    assert model.built and model.count_params() == (9 * 2 + 2) + (8 * 3 + 3)
