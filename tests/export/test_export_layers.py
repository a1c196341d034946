"""Every layer converter, in each format, run by the real runtime against the tfcore model (<= 1e-4)."""

import numpy as np
import pytest
from export_helpers import FORMATS, assert_close, export_and_run, reference

import tfcore as tf
from tfcore import keras
from tfcore.export import UnsupportedLayerError, export
from tfcore.keras import layers
from tfcore.keras.train_command import build_model

pytestmark = pytest.mark.usefixtures("cpu")


def _randomize_bn(model, seed=1):
    """Give every BatchNormalization non-trivial statistics (fresh ones fold to the identity)."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            n = layer.moving_mean.shape[0]
            layer.moving_mean.assign(rng.normal(0, 0.5, n).astype("float32"))
            layer.moving_variance.assign(rng.uniform(0.5, 2.0, n).astype("float32"))
            layer.gamma.assign(rng.uniform(0.5, 1.5, n).astype("float32"))
            layer.beta.assign(rng.normal(0, 0.5, n).astype("float32"))
    return model


def _images(shape, n=3, seed=0):
    return np.random.default_rng(seed).standard_normal((n,) + shape).astype("float32")


def digits_cnn():
    keras.utils.set_random_seed(0)
    return build_model("cnn"), (8, 8, 1)


def conv_stack():
    """Conv2D (strided SAME, dilated, VALID, no bias), DepthwiseConv2D, both poolings, BN, ZeroPadding2D."""
    keras.utils.set_random_seed(1)
    inp = keras.Input((13, 11, 3))
    x = layers.Rescaling(1 / 2.0, offset=0.25)(inp)
    x = layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
    x = layers.ZeroPadding2D(((1, 0), (2, 1)))(x)
    x = layers.Conv2D(8, 3, dilation_rate=2, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU(max_value=6.0)(x)
    x = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same", activation="tanh")(x)
    x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
    x = layers.Conv2D(6, 2, padding="valid", activation="sigmoid")(x)
    x = layers.AveragePooling2D(2, strides=1, padding="same")(x)  # SAME averages exclude the padding (TF)
    x = layers.GlobalAveragePooling2D()(x)
    out = layers.Dense(5, activation="softmax")(x)
    return _randomize_bn(keras.Model(inp, out)), (13, 11, 3)


def merge_graph():
    """Add, Multiply, Concatenate, Flatten, Dropout, Reshape, GlobalMaxPooling2D, a two-branch graph."""
    keras.utils.set_random_seed(2)
    inp = keras.Input((6, 6, 4))
    a = layers.Conv2D(4, 1, activation="elu")(inp)
    b = layers.Conv2D(4, 3, padding="same", activation="swish")(inp)
    s = layers.Add()([a, b])
    m = layers.Multiply()([s, layers.Activation("sigmoid")(b)])
    c = layers.Concatenate()([s, m, inp])
    pooled = layers.GlobalMaxPooling2D()(c)
    flat = layers.Dropout(0.5)(layers.Flatten()(c))
    r = layers.Reshape((12, 6))(layers.Dense(72, activation="gelu")(flat))
    r = layers.LayerNormalization()(r)
    r = layers.Dense(3)(r)  # a Dense on a rank-3 tensor
    out = layers.Concatenate()([layers.Flatten()(r), pooled, layers.LeakyReLU(0.3)(pooled)])
    return keras.Model(inp, out), (6, 6, 4)


def dense_mlp():
    keras.utils.set_random_seed(3)
    return keras.Sequential([layers.Input((10,)), layers.Dense(16, activation="relu6"),
                             layers.Dense(16, activation="tanh"), layers.BatchNormalization(),
                             layers.Dense(4)]), (10,)


def separable_and_scale():
    """SeparableConv2D (Xception) and Inception-ResNet's CustomScaleLayer."""
    from tfcore.keras.applications.inception_resnet_v2 import CustomScaleLayer

    keras.utils.set_random_seed(7)
    inp = keras.Input((9, 9, 3))
    a = layers.SeparableConv2D(6, 3, strides=2, padding="same", depth_multiplier=2, activation="relu")(inp)
    b = layers.SeparableConv2D(6, 3, strides=2, padding="same", dilation_rate=1, use_bias=False)(inp)
    out = CustomScaleLayer(0.17)([a, b])
    return keras.Model(inp, out), (9, 9, 3)


MODELS = {"digits_cnn": digits_cnn, "conv_stack": conv_stack, "merge_graph": merge_graph, "dense_mlp": dense_mlp,
          "separable_and_scale": separable_and_scale}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_matches_tfcore_in_runtime(name, fmt, tmp_path):
    model, shape = MODELS[name]()
    if fmt == "tfjs" and name == "separable_and_scale":
        with pytest.raises(UnsupportedLayerError, match=r"\(CustomScaleLayer\) to TF.js"):
            export(model, str(tmp_path / "js"), format="tfjs")
        return
    if name == "dense_mlp":
        _randomize_bn(model)
    x = _images(shape)
    assert_close(export_and_run(model, x, fmt, tmp_path), reference(model, x))


@pytest.mark.parametrize("fmt", ("onnx", "tflite"))
def test_onnx_and_tflite_only_activations(fmt, tmp_path):
    """hard_sigmoid (Keras 3's x/6 + 1/2, which TF.js computes differently) and hard_silu."""
    keras.utils.set_random_seed(4)
    model = keras.Sequential([layers.Input((7,)), layers.Dense(9, activation="hard_sigmoid"),
                              layers.Dense(9, activation="hard_silu"), layers.Dense(2)])
    x = _images((7,), n=4) * 4
    assert_close(export_and_run(model, x, fmt, tmp_path), reference(model, x))


@pytest.mark.parametrize("fmt", FORMATS)
def test_embedding(fmt, tmp_path):
    keras.utils.set_random_seed(5)
    model = keras.Sequential([layers.Input((5,), dtype="int32"), layers.Embedding(20, 4), layers.Flatten(),
                              layers.Dense(3)])
    x = np.random.default_rng(0).integers(0, 20, (4, 5)).astype("int32")
    assert_close(export_and_run(model, x, fmt, tmp_path), reference(model, x))


@pytest.mark.parametrize("fmt", FORMATS)
def test_nested_sequential_is_inlined(fmt, tmp_path):
    keras.utils.set_random_seed(6)
    inner = keras.Sequential([layers.Input((4, 4, 2)), layers.Conv2D(3, 2, activation="relu"),
                              layers.Flatten()], name="stem")
    inp = keras.Input((4, 4, 2))
    out = layers.Dense(2)(inner(inp))
    model = keras.Model(inp, out)
    x = _images((4, 4, 2))
    assert_close(export_and_run(model, x, fmt, tmp_path), reference(model, x))


@pytest.mark.parametrize("fmt", FORMATS)
def test_dynamic_batch(fmt, tmp_path):
    """One export serves any batch size (ONNX 'batch' dim, TFLite shape_signature -1, TF.js null)."""
    model, shape = digits_cnn()
    for n in (1, 7):
        x = _images(shape, n=n, seed=n)
        (tmp_path / str(n)).mkdir()
        assert_close(export_and_run(model, x, fmt, tmp_path / str(n)), reference(model, x))


def _sequence_model(make_layer, seed):
    keras.utils.set_random_seed(seed)
    inp = keras.Input((5, 6))
    model = keras.Model(inp, make_layer(inp))
    rng = np.random.default_rng(seed)
    for w in model.weights:  # non-zero biases, so every bias path is exercised
        if "bias" in w.name:
            w.assign(rng.standard_normal(w.shape).astype("float32"))
    return model


SEQUENCE_MODELS = {
    "lstm": lambda x: layers.LSTM(4)(x),
    "lstm_sequences_backwards": lambda x: layers.LSTM(4, return_sequences=True, go_backwards=True)(x),
    "gru_reset_after": lambda x: layers.GRU(4, return_sequences=True)(x),
    "gru_reset_before": lambda x: layers.GRU(4, reset_after=False)(x),
    "simple_rnn": lambda x: layers.SimpleRNN(3, return_sequences=True)(x),
    "mha_self": lambda x: layers.MultiHeadAttention(2, 3)(x, x),
    "mha_causal": lambda x: layers.MultiHeadAttention(2, 3, value_dim=4, output_shape=5)(x, x, use_causal_mask=True),
    "mha_cross_key": lambda x: layers.MultiHeadAttention(3, 2)(x, layers.Dense(6)(x), key=layers.Dense(6)(x)),
    "mha_keywords": lambda x: layers.MultiHeadAttention(2, 2)(value=layers.Dense(6)(x), query=x),
}
NOT_IN_TFJS = {"gru_reset_after": "reset_after=True",
               **{name: "no MultiHeadAttention" for name in SEQUENCE_MODELS if name.startswith("mha")}}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(SEQUENCE_MODELS))
def test_recurrent_and_attention(name, fmt, tmp_path):
    model = _sequence_model(SEQUENCE_MODELS[name], seed=len(name))
    x = np.random.default_rng(0).standard_normal((3, 5, 6)).astype("float32")
    if fmt == "tfjs" and name in NOT_IN_TFJS:
        with pytest.raises(UnsupportedLayerError, match=NOT_IN_TFJS[name]):
            export(model, str(tmp_path / "js"), format="tfjs")
        return
    assert_close(export_and_run(model, x, fmt, tmp_path), reference(model, x))


def test_separable_conv_in_tfjs(tmp_path):
    keras.utils.set_random_seed(8)
    model = keras.Sequential([layers.Input((9, 9, 3)), layers.SeparableConv2D(
        6, 3, strides=2, padding="same", depth_multiplier=2, activation="relu")])
    x = _images((9, 9, 3))
    assert_close(export_and_run(model, x, "tfjs", tmp_path), reference(model, x))


class _Subclassed(keras.Model):
    """A subclassed model whose call is made of layer calls (traced once on symbolic inputs)."""

    def __init__(self):
        super().__init__()
        self.conv = layers.Conv2D(4, 3, activation="relu")
        self.pool = layers.GlobalAveragePooling2D()
        self.head = layers.Dense(3)
        self.skip = layers.Dense(3)

    def call(self, x):
        return layers.add([self.head(self.pool(self.conv(x))), self.skip(self.pool(x))])


@pytest.mark.parametrize("fmt", FORMATS)
def test_subclassed_model_with_traced_call(fmt, tmp_path):
    keras.utils.set_random_seed(9)
    model = _Subclassed()
    x = _images((6, 6, 2))
    want = reference(model, x)  # the first call builds it and records its input shape
    assert_close(export_and_run(model, x, fmt, tmp_path), want)


def test_subclassed_model_needs_a_known_input_shape(tmp_path):
    with pytest.raises(UnsupportedLayerError, match="input shape is unknown"):
        export(_Subclassed(), str(tmp_path / "m.onnx"), format="onnx")
    assert not (tmp_path / "m.onnx").exists()


def test_subclassed_model_with_raw_ops_is_refused_by_name(tmp_path):
    class Raw(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = layers.Dense(3)

        def call(self, x):
            return tf.nn.relu(self.dense(x)) * 2.0

    model = Raw(name="raw")
    model(np.ones((2, 4), "float32"))
    with pytest.raises(UnsupportedLayerError, match=r"'raw' \(Raw\)"):
        export(model, str(tmp_path / "m.tflite"), format="tflite")
    assert list(tmp_path.iterdir()) == []


def sequence_1d(tfjs=False):
    """Conv1D (same, strided, causal), 1-D poolings, Cropping1D, ZeroPadding1D, UpSampling1D, Permute, RepeatVector
    (``tfjs=True`` leaves out what TF.js lacks: causal padding and three layers)."""
    keras.utils.set_random_seed(10)
    inp = keras.Input((12, 3))
    x = layers.Conv1D(5, 3, padding="same", activation="relu")(inp)
    x = layers.Conv1D(5, 3, strides=2, padding="valid")(x)
    x = layers.Conv1D(4, 2, dilation_rate=2, padding="same" if tfjs else "causal", activation="tanh")(x)
    if not tfjs:
        x = layers.ZeroPadding1D((1, 2))(x)
    x = layers.MaxPooling1D(2, padding="same")(x)
    if not tfjs:
        x = layers.UpSampling1D(3)(x)
        x = layers.Cropping1D((1, 2))(x)
    x = layers.AveragePooling1D(2)(x)
    pooled = layers.GlobalMaxPooling1D()(x)
    rep = layers.Flatten()(layers.Permute((2, 1))(layers.RepeatVector(3)(pooled)))
    out = layers.Concatenate()([layers.Flatten()(x), rep])
    return keras.Model(inp, out), (12, 3)


def upsample_crop_2d():
    keras.utils.set_random_seed(11)
    inp = keras.Input((5, 6, 2))
    x = layers.UpSampling2D((2, 3))(inp)
    x = layers.Cropping2D(((1, 2), (3, 1)))(x)
    x = layers.Conv2D(3, 3, activation="relu")(x)
    out = layers.Permute((3, 1, 2))(x)
    return keras.Model(inp, out), (5, 6, 2)


MORE_MODELS = {"sequence_1d": sequence_1d, "upsample_crop_2d": upsample_crop_2d}
NOT_IN_TFJS_1D = ("padding='causal'", "ZeroPadding1D", "UpSampling1D", "Cropping1D")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(MORE_MODELS))
def test_1d_and_resampling_layers(name, fmt, tmp_path):
    model, shape = MORE_MODELS[name]()
    x = _images(shape)
    if fmt == "tfjs" and name == "sequence_1d":
        with pytest.raises(UnsupportedLayerError, match="|".join(NOT_IN_TFJS_1D)):
            export(model, str(tmp_path / "refused"), format="tfjs")
        model, _ = sequence_1d(tfjs=True)
    assert_close(export_and_run(model, x, fmt, tmp_path), reference(model, x))


@pytest.mark.parametrize("fmt", FORMATS)
def test_merging_layers(fmt, tmp_path):
    """Subtract, Average, Maximum, Minimum of three branches (TF.js has no Subtract layer)."""
    keras.utils.set_random_seed(12)
    inp = keras.Input((5,))
    a, b, c = (layers.Dense(4, activation=act)(inp) for act in ("tanh", "relu", "sigmoid"))
    outs = [layers.Average()([a, b, c]), layers.Maximum()([a, b, c]), layers.Minimum()([a, b, c])]
    if fmt != "tfjs":
        outs.append(layers.Subtract()([a, b]))
    model = keras.Model(inp, layers.Concatenate()(outs))
    x = _images((5,))
    assert_close(export_and_run(model, x, fmt, tmp_path), reference(model, x))
    if fmt == "tfjs":
        refused = keras.Model(inp, layers.Subtract(name="diff")([a, b]))
        with pytest.raises(UnsupportedLayerError, match=r"'diff' \(Subtract\).*no Subtract"):
            export(refused, str(tmp_path / "refused"), format="tfjs")


@pytest.mark.parametrize("fmt", FORMATS)
def test_several_inputs_and_outputs(fmt, tmp_path):
    keras.utils.set_random_seed(14)
    image, extra = keras.Input((6, 6, 1), name="image"), keras.Input((3,), name="extra")
    features = layers.Flatten()(layers.Conv2D(2, 3, activation="relu")(image))
    joined = layers.Concatenate()([features, layers.Dense(4)(extra)])
    model = keras.Model([image, extra], [layers.Dense(2, name="a")(joined), layers.Dense(5, name="b")(joined)])
    xs = [_images((6, 6, 1)), _images((3,), seed=1)]
    got = export_and_run(model, xs, fmt, tmp_path)
    with tf.device("/CPU:0"):
        want = [np.asarray(t.numpy()) for t in model(xs)]
    assert len(got) == 2
    for g_, w in zip(got, want):
        assert_close(g_, w)


def activation_layers(tfjs=False):
    """The activation layers and inference-time identities not covered above (no Normalization for TF.js)."""
    keras.utils.set_random_seed(15)
    inp = keras.Input((4, 4, 3))
    x = inp
    if not tfjs:
        x = layers.Normalization(mean=[0.5, -1.0, 2.0], variance=[4.0, 0.25, 1.0])(x)
        x = layers.Normalization(mean=[0.1, 0.2, 0.3], variance=[1.5, 2.0, 0.5], invert=True)(x)
    x = layers.SpatialDropout2D(0.3)(layers.GaussianNoise(0.5)(x))
    x = layers.Conv2D(6, 1, activation="tanh" if tfjs else "exponential")(x)  # TF.js has no exponential
    branches = [layers.ELU()(x), layers.ReLU(max_value=2.5)(x), layers.ReLU()(x), layers.Activation("relu6")(x),
                layers.Softmax()(x), layers.ReLU(negative_slope=0.1)(x)]
    seq = layers.Reshape((16, 36))(layers.Concatenate()(branches))
    out = layers.Concatenate()([layers.GlobalAveragePooling1D()(seq), layers.Flatten()(seq)])
    return keras.Model(inp, out)


@pytest.mark.parametrize("fmt", FORMATS)
def test_activation_layers_and_identities(fmt, tmp_path):
    model = activation_layers(tfjs=fmt == "tfjs")
    x = _images((4, 4, 3))
    assert_close(export_and_run(model, x, fmt, tmp_path), reference(model, x))


@pytest.mark.parametrize("fmt", FORMATS)
def test_conv2d_transpose(fmt, tmp_path):
    """Conv2DTranspose with SAME and VALID padding, strides, and (ONNX/TFLite) output_padding."""
    keras.utils.set_random_seed(16)
    inp = keras.Input((5, 4, 3))
    x = layers.Conv2DTranspose(4, 3, strides=2, padding="same", activation="relu")(inp)
    x = layers.Conv2DTranspose(3, (2, 3), strides=(1, 2), padding="valid")(x)
    if fmt != "tfjs":  # TF.js's Conv2DTranspose has no output_padding
        x = layers.Conv2DTranspose(2, 3, strides=2, padding="same", output_padding=1)(x)
        x = layers.Conv2DTranspose(2, 3, strides=3, padding="valid", output_padding=(2, 1))(x)
    model = keras.Model(inp, x)
    for n in (1, 3):
        xb = _images((5, 4, 3), n=n)
        (tmp_path / str(n)).mkdir()
        assert_close(export_and_run(model, xb, fmt, tmp_path / str(n)), reference(model, xb))


def test_nested_model_called_twice_is_refused(tmp_path):
    inner = keras.Sequential([layers.Input((3,)), layers.Dense(2)], name="tower")
    a, b = keras.Input((3,)), keras.Input((3,))
    model = keras.Model([a, b], layers.Add()([inner(a), inner(b)]))
    with pytest.raises(UnsupportedLayerError, match=r"'tower' \(Sequential\): it is called more than once"):
        export(model, str(tmp_path / "m.onnx"), format="onnx")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_shared_layer_called_twice(fmt, tmp_path):
    """One Dense applied to two inputs (TF.js: one layer with two inbound nodes)."""
    keras.utils.set_random_seed(17)
    shared = layers.Dense(3, activation="tanh", name="shared")
    a, b = keras.Input((4,)), keras.Input((4,))
    model = keras.Model([a, b], layers.Concatenate()([shared(a), shared(b), layers.Dense(2)(shared(a))]))
    xs = [_images((4,)), _images((4,), seed=3)]
    got = export_and_run(model, xs, fmt, tmp_path)
    assert_close(got, reference(model, xs))
