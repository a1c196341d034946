"""Acceptance gaps of the Keras issue: TF's layer defaults, class/sample weights in ``fit``
(against a hand-written weighted step), freezing during ``fit``, an explicit ProgbarLogger,
InputLayer, and ``tf.keras.Input``."""

import contextlib
import io

import numpy as np
import pytest

import tfcore as tf

L = tf.keras.layers

ISSUE_LAYERS = [
    "Input", "InputLayer", "Dense", "Conv2D", "Conv2DTranspose", "DepthwiseConv2D", "SeparableConv2D", "MaxPool2D",
    "MaxPooling2D", "AveragePooling2D", "GlobalAveragePooling2D", "GlobalMaxPooling2D", "Flatten", "Reshape",
    "Dropout", "BatchNormalization", "LayerNormalization", "Activation", "ReLU", "Softmax", "Embedding", "Add",
    "Concatenate", "Multiply", "ZeroPadding2D", "SimpleRNN", "LSTM", "GRU", "RNN",
]


def test_every_layer_of_the_issue_exists():
    assert [n for n in ISSUE_LAYERS if not hasattr(L, n)] == []
    assert L.MaxPool2D is L.MaxPooling2D or issubclass(L.MaxPool2D, L.MaxPooling2D)


def _cfg(layer):
    return {k: (v["class_name"] if isinstance(v, dict) and "class_name" in v else v)
            for k, v in layer.get_config().items()}


CONV_DEFAULTS = {"strides": (1, 1), "padding": "valid", "data_format": "channels_last", "use_bias": True,
                 "bias_initializer": "Zeros", "activation": "linear"}


@pytest.mark.parametrize("layer, expected", [
    (lambda: L.Dense(2), {"kernel_initializer": "GlorotUniform", "bias_initializer": "Zeros", "use_bias": True,
                          "activation": "linear"}),
    (lambda: L.Conv2D(2, 3), dict(CONV_DEFAULTS, kernel_initializer="GlorotUniform")),
    (lambda: L.Conv2DTranspose(2, 3), dict(CONV_DEFAULTS, kernel_initializer="GlorotUniform")),
    (lambda: L.DepthwiseConv2D(3), dict(CONV_DEFAULTS, depthwise_initializer="GlorotUniform")),
    (lambda: L.SeparableConv2D(2, 3), dict(CONV_DEFAULTS, depthwise_initializer="GlorotUniform",
                                           pointwise_initializer="GlorotUniform")),
    (lambda: L.MaxPooling2D(), {"pool_size": (2, 2), "strides": (2, 2), "padding": "valid",
                                "data_format": "channels_last"}),
    (lambda: L.AveragePooling2D(), {"pool_size": (2, 2), "strides": (2, 2), "padding": "valid"}),
    (lambda: L.BatchNormalization(), {"axis": -1, "momentum": 0.99, "epsilon": 1e-3, "center": True, "scale": True,
                                      "gamma_initializer": "Ones", "beta_initializer": "Zeros",
                                      "moving_mean_initializer": "Zeros", "moving_variance_initializer": "Ones"}),
    (lambda: L.LayerNormalization(), {"axis": -1, "epsilon": 1e-3}),
    (lambda: L.SimpleRNN(2), {"activation": "tanh", "kernel_initializer": "GlorotUniform",
                              "recurrent_initializer": "Orthogonal", "bias_initializer": "Zeros"}),
    (lambda: L.LSTM(2), {"recurrent_activation": "sigmoid", "unit_forget_bias": True,
                         "recurrent_initializer": "Orthogonal"}),
    (lambda: L.GRU(2), {"recurrent_activation": "sigmoid", "reset_after": True}),
    (lambda: L.Embedding(3, 2), {"embeddings_initializer": "RandomUniform"}),
])
def test_layer_defaults_match_tf(layer, expected):
    cfg = _cfg(layer())
    assert {k: cfg[k] for k in expected} == expected


def _toy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    return x, y


def _model():
    tf.keras.utils.set_random_seed(3)
    m = tf.keras.Sequential([L.Dense(3, activation="tanh", input_shape=(4,)), L.Dense(2)])
    m.compile(tf.keras.optimizers.SGD(0.1), tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return m


def test_class_weight_and_sample_weight_equal_a_hand_written_weighted_step():
    x, y = _toy()
    w = np.where(y == 0, 2.0, 0.5).astype(np.float32)
    by_class = _model()
    by_class.fit(x, y, class_weight={0: 2.0, 1: 0.5}, batch_size=8, epochs=1, verbose=0, shuffle=False)
    by_sample = _model()
    by_sample.fit(x, y, sample_weight=w, batch_size=8, epochs=1, verbose=0, shuffle=False)
    manual = _model()
    with tf.GradientTape() as tape:
        per_example = tf.keras.losses.sparse_categorical_crossentropy(y, manual(x, training=True), from_logits=True)
        loss = tf.reduce_sum(per_example * w) / 8.0          # SUM_OVER_BATCH_SIZE
    grads = tape.gradient(loss, manual.trainable_variables)
    manual.optimizer.apply_gradients(zip(grads, manual.trainable_variables))
    unweighted = _model()
    unweighted.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    for a, b, c in zip(by_class.get_weights(), by_sample.get_weights(), manual.get_weights()):
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, c, rtol=1e-5, atol=1e-6)
    assert any(not np.allclose(a, d) for a, d in zip(manual.get_weights(), unweighted.get_weights()))


def test_frozen_layer_is_not_trained_by_fit_and_summary_counts_it():
    x, y = _toy()
    model = _model()
    model.layers[0].trainable = False
    model.compile(tf.keras.optimizers.SGD(0.1), tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    frozen_before = model.layers[0].get_weights()
    head_before = model.layers[1].get_weights()
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    for a, b in zip(frozen_before, model.layers[0].get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not np.allclose(head_before[0], model.layers[1].kernel.numpy())
    buf = io.StringIO()
    model.summary(print_fn=lambda line, **kw: buf.write(line + "\n"))
    text = buf.getvalue()
    # Keras 3 counts the built optimizer's variables in the total (SGD: its iteration and learning_rate)
    assert "Trainable params: 8" in text and "Non-trainable params: 15" in text and "Total params: 25" in text
    assert "Optimizer params: 2 (12.00 B)" in text


def _fit_output(**kwargs):
    x, y = _toy()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        _model().fit(x, y, batch_size=4, **kwargs)
    return buf.getvalue()


def test_explicit_progbar_logger_is_not_duplicated_and_follows_verbose():
    out = _fit_output(epochs=2, verbose=1, callbacks=[tf.keras.callbacks.ProgbarLogger(count_mode="steps")])
    assert out.count("Epoch 1/2") == 1 and out.count("Epoch 2/2") == 1
    assert out.count("2/2 [==============================]") == 2       # one final bar per epoch
    assert _fit_output(epochs=1, verbose=0, callbacks=[tf.keras.callbacks.ProgbarLogger()]) == ""
    # TF prints the "Epoch i/n" header only when there is more than one epoch
    assert "Epoch" not in _fit_output(epochs=1, verbose=2)


def test_input_layer_and_input():
    inp = tf.keras.Input(shape=(4,), name="features")
    assert inp.shape == (None, 4) and inp.dtype == tf.float32 and inp.name == "features"
    assert tf.keras.Input(shape=(4,), batch_size=8).shape == (8, 4)
    model = tf.keras.Sequential([L.InputLayer(input_shape=(4,)), L.Dense(3, use_bias=False)])
    assert [type(lay).__name__ for lay in model.layers] == ["Dense"]      # InputLayer is not listed
    assert model.built and model.count_params() == 12
    x = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(model(x).numpy(), x @ model.layers[0].kernel.numpy(), rtol=1e-6)
    func = tf.keras.Model(inp, L.Dense(1)(inp))
    assert func.input_shape == (None, 4) and func.output_shape == (None, 1)
