"""keras.utils: image array helpers, Keras object (de)serialization, interactive logging, Config,
get_source_inputs, standardize_dtype, plot_model / model_to_dot."""

import io
import logging
import sys
import types

import numpy as np
import pytest

import tfcore as tf

utils = tf.keras.utils


# -- images ------------------------------------------------------------------------------------------------
def test_array_to_img_and_back_rgb_scaled():
    x = np.linspace(0, 1, 4 * 5 * 3, dtype=np.float32).reshape(4, 5, 3)
    img = utils.array_to_img(x)
    assert img.mode == "RGB" and img.size == (5, 4)
    back = utils.img_to_array(img)
    assert back.dtype == np.float32 and back.shape == (4, 5, 3)
    np.testing.assert_allclose(back, np.floor(x / x.max() * 255), atol=1)  # min -> 0, max -> 255
    assert utils.img_to_array(img, data_format="channels_first").shape == (3, 4, 5)
    assert utils.img_to_array(img, dtype="uint8").dtype == np.uint8


def test_array_to_img_modes_and_errors():
    gray = utils.array_to_img(np.arange(6, dtype=np.float32).reshape(2, 3, 1) * 40, scale=False)
    assert gray.mode == "L"
    np.testing.assert_array_equal(utils.img_to_array(gray)[..., 0], np.arange(6).reshape(2, 3) * 40)
    assert utils.img_to_array(gray, data_format="channels_first").shape == (1, 2, 3)
    big = utils.array_to_img(np.full((2, 2, 1), 1000.0), scale=False)
    assert big.mode == "I"
    rgba = utils.array_to_img(np.zeros((4, 2, 2)), data_format="channels_first")
    assert rgba.mode == "RGBA" and rgba.size == (2, 2)
    assert utils.array_to_img(tf.ones((2, 2, 3))).mode == "RGB"  # tensors accepted
    with pytest.raises(ValueError, match="rank 3"):
        utils.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="channel number"):
        utils.array_to_img(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="Unsupported image shape"):
        utils.img_to_array(np.zeros((1, 2, 2, 3)))
    with pytest.raises(ValueError, match="data_format"):
        utils.img_to_array(np.zeros((2, 2, 3)), data_format="NHWC")


def test_save_img_and_load_img_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (6, 8, 3)).astype(np.float32)
    path = tmp_path / "img.png"
    utils.save_img(path, x, scale=False)
    img = utils.load_img(path)
    assert img.mode == "RGB" and img.size == (8, 6)
    np.testing.assert_array_equal(utils.img_to_array(img), x)  # PNG is lossless
    gray = utils.img_to_array(utils.load_img(str(path), color_mode="grayscale"))
    assert gray.shape == (6, 8, 1)
    want = np.floor(x @ np.array([299, 587, 114]) / 1000 + 0.5)  # PIL's ITU-R 601-2 luma
    np.testing.assert_allclose(gray[..., 0], want, atol=1)
    assert utils.load_img(path, color_mode="rgba").mode == "RGBA"
    small = utils.load_img(path, target_size=(3, 4))
    np.testing.assert_array_equal(utils.img_to_array(small), x[1::2, 1::2])  # nearest: PIL samples pixel centres
    cropped = utils.load_img(path, target_size=(6, 6), keep_aspect_ratio=True)
    np.testing.assert_array_equal(utils.img_to_array(cropped), x[:, 1:7])  # centre crop, no resize needed
    with open(path, "rb") as f:
        assert utils.load_img(io.BytesIO(f.read())).size == (8, 6)
    with pytest.raises(ValueError, match="color_mode"):
        utils.load_img(path, color_mode="cmyk")
    with pytest.raises(ValueError, match="interpolation"):
        utils.load_img(path, target_size=(2, 2), interpolation="cubic-ish")
    with pytest.warns(UserWarning, match="RGBA"):
        utils.save_img(tmp_path / "a.jpg", np.zeros((2, 2, 4)))
    assert utils.load_img(tmp_path / "a.jpg").size == (2, 2)


def test_image_helpers_need_pillow(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="Pillow"):
        utils.array_to_img(np.zeros((2, 2, 3)))


# -- serialization -----------------------------------------------------------------------------------------
def test_serialize_keras_objects_round_trip():
    ser, de = utils.serialize_keras_object, utils.deserialize_keras_object
    huber = ser(tf.keras.losses.Huber(delta=2.5))
    assert huber["module"] == "keras.losses" and huber["class_name"] == "Huber"
    assert de(huber).get_config()["delta"] == 2.5
    adam = de(ser(tf.keras.optimizers.Adam(learning_rate=0.25)))
    assert isinstance(adam, tf.keras.optimizers.Adam)
    np.testing.assert_allclose(float(adam.learning_rate), 0.25)
    init = de(ser(tf.keras.initializers.TruncatedNormal(stddev=0.3, seed=4)))
    assert init.get_config()["stddev"] == 0.3
    assert de(ser(tf.keras.regularizers.L1L2(l1=0.1, l2=0.2))).get_config() == pytest.approx({"l1": 0.1, "l2": 0.2})
    auc = de(ser(tf.keras.metrics.AUC(num_thresholds=17)))
    assert isinstance(auc, tf.keras.metrics.AUC) and auc.num_thresholds == 17
    relu = ser(tf.keras.activations.relu)
    assert relu == {"module": "keras.activations", "class_name": "function", "config": "relu",
                    "registered_name": "relu"}
    assert de(relu) is tf.keras.activations.relu
    assert de(ser(tf.keras.losses.mean_squared_error)) is tf.keras.losses.mean_squared_error
    value = {"a": (1, [2.5, "x"]), "b": None, "c": b"raw", "d": np.arange(3, dtype=np.int16)}
    back = de(ser(value))
    assert back["a"] == (1, [2.5, "x"]) and back["b"] is None and back["c"] == b"raw"
    assert back["d"].dtype == np.int16 and back["d"].tolist() == [0, 1, 2]
    t = de(ser(tf.constant([1.5, 2.0])))
    assert tf.is_tensor(t) and t.numpy().tolist() == [1.5, 2.0]


def test_serialize_layers_models_and_custom_objects():
    ser, de = utils.serialize_keras_object, utils.deserialize_keras_object
    dense = de(ser(tf.keras.layers.Dense(3, activation="tanh", name="d")))
    assert isinstance(dense, tf.keras.layers.Dense) and dense.units == 3 and dense.name == "d"
    inputs = tf.keras.Input((4,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    again = de(ser(model))
    assert [type(layer).__name__ for layer in again.layers] == ["InputLayer", "Dense"]
    assert again.count_params() == model.count_params()

    class Scale(tf.keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    config = ser(Scale(3.0))
    with pytest.raises(ValueError, match="Unknown layer"):
        de(config)
    layer = de(config, custom_objects={"Scale": Scale})
    assert layer.factor == 3.0

    def my_fn(x):
        return x

    with pytest.raises(TypeError, match="Could not locate function"):
        de(ser(my_fn))
    assert de(ser(my_fn), custom_objects={"my_fn": my_fn}) is my_fn
    with pytest.raises(TypeError, match="Cannot serialize"):
        ser(object())
    assert tf.keras.saving.serialize_keras_object is not None
    assert tf.keras.saving.deserialize_keras_object(ser(tf.keras.losses.MeanSquaredError())).name


# -- interactive logging ----------------------------------------------------------------------------------
def test_interactive_logging_switch_routes_progbar_to_logging(capsys, caplog):
    assert utils.is_interactive_logging_enabled()
    bar = utils.Progbar(3, verbose=1, interval=0)
    bar.update(3, [("loss", 0.5)])
    assert "3/3" in capsys.readouterr().out
    utils.disable_interactive_logging()
    try:
        assert not utils.is_interactive_logging_enabled()
        with caplog.at_level(logging.INFO, logger="tfcore.keras"):
            bar = utils.Progbar(2, verbose=1, interval=0)
            bar.update(1, [("loss", 1.0)])
            bar.update(2, [("loss", 3.0)])
            utils.Progbar(2, verbose=2).update(2, [("acc", 0.25)])
        assert capsys.readouterr().out == ""
        messages = [r.getMessage() for r in caplog.records]
        assert any(m.startswith("1/2 [") for m in messages)
        assert any(m.startswith("2/2 [") and "loss: 2.0000" in m for m in messages)
        assert any(m.startswith("2/2 - ") and "acc: 0.2500" in m for m in messages)
        assert all("\b" not in m and "\r" not in m for m in messages)
    finally:
        utils.enable_interactive_logging()
    assert utils.is_interactive_logging_enabled()


def test_fit_output_goes_to_logging_when_not_interactive(capsys, caplog):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    utils.disable_interactive_logging()
    try:
        with caplog.at_level(logging.INFO, logger="tfcore.keras"):
            model.fit(x, y, epochs=2, verbose=1)
    finally:
        utils.enable_interactive_logging()
    assert capsys.readouterr().out == ""
    assert any(r.getMessage() == "Epoch 1/2" for r in caplog.records)


# -- Config, get_source_inputs, standardize_dtype -----------------------------------------------------------
def test_config():
    config = utils.Config(learning_rate=0.1, momentum=0.9)
    config.layers = 3
    config["units"] = 8
    assert config.learning_rate == 0.1 and config["layers"] == 3 and config.get("missing", 5) == 5
    assert "units" in config and len(config) == 4 and set(config.keys()) == {"learning_rate", "momentum", "layers",
                                                                               "units"}
    assert config.as_dict()["units"] == 8
    assert config.to_json() == '{"learning_rate": 0.1, "momentum": 0.9, "layers": 3, "units": 8}'
    with pytest.raises(AttributeError, match="Unknown attribute: 'nope'"):
        _ = config.nope
    config.freeze()
    assert config.frozen
    for mutate in (lambda: setattr(config, "a", 1), lambda: config.__setitem__("a", 1),
                   lambda: config.pop("units"), lambda: config.update(a=1), lambda: config.__delitem__("units")):
        with pytest.raises(ValueError, match="frozen"):
            mutate()
    config.unfreeze()
    assert config.pop("units") == 8
    assert repr(config).startswith("<Config {")


def test_get_source_inputs():
    a, b = tf.keras.Input((3,), name="a"), tf.keras.Input((3,), name="b")
    h = tf.keras.layers.Dense(4)(a)
    out = tf.keras.layers.Add()([h, tf.keras.layers.Dense(4)(b)])
    sources = utils.get_source_inputs(out)
    assert len(sources) == 2 and sources[0] is a and sources[1] is b
    assert utils.get_source_inputs(a) == [a]
    plain = np.zeros(3)
    assert utils.get_source_inputs(plain) is plain


def test_standardize_dtype():
    sd = utils.standardize_dtype
    assert sd(None) == "float32"
    assert sd(float) == "float32" and sd(int) == "int64" and sd(bool) == "bool" and sd(str) == "string"
    assert sd("int") == "int64"
    assert sd(np.float16) == "float16" and sd(np.dtype("uint8")) == "uint8"
    assert sd(tf.bfloat16) == "bfloat16" and sd(tf.int32) == "int32"
    with pytest.raises(ValueError, match="Invalid dtype: float128x"):
        sd("float128x")


# -- plot_model / model_to_dot ------------------------------------------------------------------------------
def test_plot_model_needs_pydot(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pydot", None)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    with pytest.raises(ImportError, match="pydot"):
        utils.plot_model(model, to_file=str(tmp_path / "m.png"))
    with pytest.raises(ImportError, match="pydot"):
        utils.model_to_dot(model)


def _fake_pydot():
    """A stand-in for pydot recording the graph (pydot and graphviz are not installed here)."""
    mod = types.ModuleType("pydot")

    class Dot:
        def __init__(self):
            self.nodes, self.edges, self.attrs, self.written = [], [], {}, []

        def create(self):
            return b""

        def set(self, k, v):
            self.attrs[k] = v

        def set_node_defaults(self, **kw):
            self.attrs["node"] = kw

        def add_node(self, n):
            self.nodes.append(n)

        def add_edge(self, e):
            self.edges.append(e)

        def write(self, path, format):
            self.written.append((path, format))

    class Node:
        def __init__(self, name, label):
            self.name, self.label = name, label

    class Edge:
        def __init__(self, src, dst):
            self.src, self.dst = src, dst

    mod.Dot, mod.Node, mod.Edge = Dot, Node, Edge
    return mod


def test_model_to_dot_graph_structure(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydot", _fake_pydot())
    a = tf.keras.Input((3,), name="inp")
    d1 = tf.keras.layers.Dense(4, activation="relu", name="d1")(a)
    d2 = tf.keras.layers.Dense(4, name="d2")(a)
    out = tf.keras.layers.Add(name="add")([d1, d2])
    model = tf.keras.Model(a, out)
    dot = utils.model_to_dot(model, show_shapes=True, show_layer_activations=True, rankdir="LR")
    labels = {n.name: n.label for n in dot.nodes}
    by_name = {layer.name: str(id(layer)) for layer in model.layers}
    assert labels[by_name["d1"]].startswith("d1 (Dense)") and "activation: relu" in labels[by_name["d1"]]
    assert "output: (None, 4)" in labels[by_name["add"]]
    edges = {(e.src, e.dst) for e in dot.edges}
    assert edges == {(by_name["inp"], by_name["d1"]), (by_name["inp"], by_name["d2"]),
                     (by_name["d1"], by_name["add"]), (by_name["d2"], by_name["add"])}
    assert dot.attrs["rankdir"] == "LR"
    seq = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, name="s1"),
                               tf.keras.layers.Dense(1, name="s2")])
    sdot = utils.model_to_dot(seq)
    ids = {layer.name: str(id(layer)) for layer in seq.layers}
    assert (ids["s1"], ids["s2"]) in {(e.src, e.dst) for e in sdot.edges}
    captured = []
    monkeypatch.setattr(sys.modules["pydot"].Dot, "write", lambda self, path, format: captured.append((path, format)))
    assert utils.plot_model(model, to_file="graph.svg") is None
    assert captured == [("graph.svg", "svg")]


def test_get_file_from_a_local_origin_with_hash_check(tmp_path):
    import hashlib

    src = tmp_path / "src.txt"
    src.write_bytes(b"tfcore data")
    digest = hashlib.sha256(b"tfcore data").hexdigest()
    path = utils.get_file("copy.txt", origin=src.as_uri(), file_hash=digest, cache_dir=str(tmp_path / "cache"))
    assert path == str(tmp_path / "cache" / "datasets" / "copy.txt")
    with open(path, "rb") as f:
        assert f.read() == b"tfcore data"
    with pytest.raises(ValueError, match="corrupted"):
        utils.get_file("bad.txt", origin=src.as_uri(), file_hash="0" * 64, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="origin"):
        utils.get_file("x.txt")
