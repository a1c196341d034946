"""Every Keras layer's forward pass against a NumPy reference, plus parameter counts and shapes."""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

L = tf.keras.layers
RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# -- NumPy references -----------------------------------------------------------------------------------
def np_conv2d(x, k, stride=1, padding="valid", dilation=1):
    n, h, w, c = x.shape
    kh, kw, _, o = k.shape
    ekh, ekw = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    if padding == "same":
        oh, ow = -(-h // stride), -(-w // stride)
        ph = max((oh - 1) * stride + ekh - h, 0)
        pw = max((ow - 1) * stride + ekw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    oh = (x.shape[1] - ekh) // stride + 1
    ow = (x.shape[2] - ekw) // stride + 1
    out = np.zeros((n, oh, ow, o), np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dilation:i * dilation + (oh - 1) * stride + 1:stride,
                      j * dilation:j * dilation + (ow - 1) * stride + 1:stride, :]
            out += patch @ k[i, j]
    return out


def np_depthwise(x, k, stride=1, padding="valid"):
    c, m = k.shape[2], k.shape[3]
    outs = []
    for ch in range(c):
        for mm in range(m):
            outs.append(np_conv2d(x[..., ch:ch + 1], k[:, :, ch:ch + 1, mm:mm + 1], stride, padding))
    return np.concatenate(outs, axis=-1)


def np_conv2d_transpose(x, k, stride, out_hw, padding):
    """Scatter each input pixel times the kernel (kernel (kh, kw, out, in)), then crop for 'same'."""
    n, h, w, _ = x.shape
    kh, kw, o, _ = k.shape
    full_h, full_w = (h - 1) * stride + kh, (w - 1) * stride + kw
    full = np.zeros((n, full_h, full_w, o))
    for i in range(h):
        for j in range(w):
            full[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :] += np.einsum(
                "nc,abpc->nabp", x[:, i, j, :], k)
    oh, ow = out_hw
    if padding == "valid":
        return full[:, :oh, :ow]
    ph, pw = max(full_h - oh, 0), max(full_w - ow, 0)
    return full[:, ph // 2:ph // 2 + oh, pw // 2:pw // 2 + ow]


def np_pool(x, k, s, fn):
    n, h, w, c = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            out[:, i, j, :] = fn(x[:, i * s:i * s + k, j * s:j * s + k, :], axis=(1, 2))
    return out


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# -- core --------------------------------------------------------------------------------------------------
def test_dense_forward_and_param_count():
    layer = L.Dense(4, input_shape=(10,), activation="relu")
    x = rand(3, 10)
    y = layer(x)
    k, b = layer.get_weights()
    assert k.shape == (10, 4) and b.shape == (4,)
    assert not b.any()  # zero bias by default
    close(y, np.maximum(x @ k, 0))
    assert layer.count_params() == 44
    limit = np.sqrt(6.0 / (10 + 4))  # glorot_uniform bound
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.3 * limit


def test_dense_on_3d_inputs_uses_last_axis():
    layer = L.Dense(2, bias_initializer="ones")
    x = rand(2, 3, 5)
    close(layer(x), x @ layer.kernel.numpy() + 1.0)
    assert layer.compute_output_shape((None, 3, 5)) == tf.TensorShape([None, 3, 2])


def test_dense_rejects_wrong_last_dimension():
    layer = L.Dense(2)
    layer(rand(1, 3))
    with pytest.raises(ValueError, match="axis -1 of input shape to have value 3"):
        layer(rand(1, 4))


def test_activation_relu_softmax_layers():
    x = rand(4, 6)
    close(L.Activation("tanh")(x), np.tanh(x))
    close(L.ReLU()(x), np.maximum(x, 0))
    close(L.ReLU(max_value=0.5, negative_slope=0.1)(x), np.where(x > 0, np.minimum(x, 0.5), 0.1 * x))
    e = np.exp(x - x.max(-1, keepdims=True))
    close(L.Softmax()(x), e / e.sum(-1, keepdims=True))
    close(L.LeakyReLU(0.2)(x), np.where(x > 0, x, 0.2 * x))


def test_flatten_reshape():
    x = rand(2, 3, 4, 5)
    close(L.Flatten()(x), x.reshape(2, -1))
    close(L.Reshape((5, -1))(x), x.reshape(2, 5, 12))
    assert L.Reshape((5, -1)).compute_output_shape((None, 3, 4, 5)) == tf.TensorShape([None, 5, 12])
    with pytest.raises(ValueError, match="Total size"):
        L.Reshape((7,)).compute_output_shape((None, 3, 4))


def test_dropout_only_when_training():
    layer = L.Dropout(0.5)
    x = np.ones((200, 50), np.float32)
    close(layer(x), x)
    close(layer(x, training=False), x)
    y = layer(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.4 < (y == 0).mean() < 0.6


def test_embedding_lookup():
    layer = L.Embedding(10, 3)
    ids = np.array([[1, 2], [9, 0]])
    y = layer(ids)
    table = layer.embeddings.numpy()
    close(y, table[ids])
    assert y.shape == (2, 2, 3) and y.dtype == tf.float32
    assert layer.count_params() == 30


def test_lambda_layer():
    layer = L.Lambda(lambda t: t * 2.0 + 1.0)
    x = rand(2, 3)
    close(layer(x), x * 2 + 1)


# -- convolution and pooling -----------------------------------------------------------------------------------
@pytest.mark.parametrize("padding,stride", [("valid", 1), ("same", 1), ("same", 2), ("valid", 2)])
def test_conv2d_forward(padding, stride):
    layer = L.Conv2D(4, 3, strides=stride, padding=padding, bias_initializer="ones")
    x = rand(2, 7, 6, 3)
    y = layer(x)
    close(y, np_conv2d(x, layer.kernel.numpy(), stride, padding) + 1.0, 1e-4)
    assert tuple(layer.compute_output_shape(x.shape)) == y.shape


def test_conv2d_params_and_dilation():
    layer = L.Conv2D(8, (3, 3), input_shape=(28, 28, 1))
    tf.keras.Sequential([layer])
    assert layer.count_params() == 80  # 3*3*1*8 + 8
    dil = L.Conv2D(2, 3, dilation_rate=2, use_bias=False)
    x = rand(1, 9, 9, 2)
    close(dil(x), np_conv2d(x, dil.kernel.numpy(), 1, "valid", dilation=2), 1e-4)
    assert dil.count_params() == 36


def test_conv2d_channels_first():
    layer = L.Conv2D(3, 2, data_format="channels_first")
    x = rand(2, 4, 5, 5)
    y = layer(x)
    ref = np_conv2d(x.transpose(0, 2, 3, 1), layer.kernel.numpy()) + layer.bias.numpy()
    close(y, ref.transpose(0, 3, 1, 2), 1e-4)


@pytest.mark.parametrize("padding,stride", [("valid", 2), ("same", 2), ("valid", 1)])
def test_conv2d_transpose_forward(padding, stride):
    layer = L.Conv2DTranspose(3, 3, strides=stride, padding=padding)
    x = rand(2, 4, 5, 2)
    y = layer(x)
    assert layer.kernel.shape == (3, 3, 3, 2)
    ref = np_conv2d_transpose(x, layer.kernel.numpy(), stride, y.shape[1:3], padding)
    close(y, ref, 1e-4)
    expected = (4 * stride + max(3 - stride, 0)) if padding == "valid" else 4 * stride
    assert y.shape[1] == expected
    assert layer.count_params() == 3 * 3 * 3 * 2 + 3


def test_depthwise_and_separable_conv():
    dw = L.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
    x = rand(2, 5, 5, 3)
    y = dw(x)
    assert dw.depthwise_kernel.shape == (3, 3, 3, 2)
    close(y, np_depthwise(x, dw.depthwise_kernel.numpy(), 1, "same"), 1e-4)
    assert dw.count_params() == 3 * 3 * 3 * 2 + 6
    sep = L.SeparableConv2D(4, 3)
    y = sep(x)
    ref = np_depthwise(x, sep.depthwise_kernel.numpy()) @ sep.pointwise_kernel.numpy()[0, 0]
    close(y, ref, 1e-4)
    assert sep.count_params() == 27 + 3 * 4 + 4


def test_zero_padding2d():
    x = rand(1, 2, 3, 1)
    close(L.ZeroPadding2D(1)(x), np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))))
    close(L.ZeroPadding2D(((1, 0), (2, 3)))(x), np.pad(x, ((0, 0), (1, 0), (2, 3), (0, 0))))


def test_pooling_layers():
    x = rand(2, 6, 7, 3)
    close(L.MaxPooling2D()(x), np_pool(x, 2, 2, np.max))
    close(L.MaxPool2D(3, strides=1)(x), np_pool(x, 3, 1, np.max))
    close(L.AveragePooling2D()(x), np_pool(x, 2, 2, np.mean), 1e-5)
    close(L.GlobalAveragePooling2D()(x), x.mean(axis=(1, 2)), 1e-5)
    close(L.GlobalMaxPooling2D()(x), x.max(axis=(1, 2)))
    assert L.GlobalAveragePooling2D(keepdims=True)(x).shape == (2, 1, 1, 3)
    assert L.MaxPooling2D(padding="same")(x).shape == (2, 3, 4, 3)


# -- merging ---------------------------------------------------------------------------------------------------
def test_merge_layers():
    a, b, c = rand(2, 3), rand(2, 3), rand(2, 3)
    close(L.Add()([a, b, c]), a + b + c)
    close(L.Multiply()([a, b]), a * b)
    close(L.Subtract()([a, b]), a - b)
    close(L.Average()([a, b]), (a + b) / 2)
    close(L.Maximum()([a, b]), np.maximum(a, b))
    close(L.Concatenate()([a, b]), np.concatenate([a, b], -1))
    close(L.Concatenate(axis=0)([a, c]), np.concatenate([a, c], 0))
    with pytest.raises(ValueError, match="matching shapes"):
        L.Concatenate()([rand(2, 3), rand(3, 3)])


# -- normalization -----------------------------------------------------------------------------------------------
def test_batch_normalization_training_vs_inference():
    bn = L.BatchNormalization()
    x = rand(16, 4) * 3.0 + 2.0
    y_inf = bn(x)  # moving stats are 0 / 1: y = x / sqrt(1 + eps)
    close(y_inf, x / np.sqrt(1 + 1e-3), 1e-5)
    close(bn.moving_mean, np.zeros(4))
    y_train = bn(x, training=True)
    mean, var = x.mean(0), x.var(0)
    close(y_train, (x - mean) / np.sqrt(var + 1e-3), 1e-4)
    close(bn.moving_mean, 0.01 * mean, 1e-5)          # momentum 0.99
    close(bn.moving_variance, 0.99 + 0.01 * var, 1e-5)  # biased variance for non-4D inputs
    assert [w.name for w in bn.weights] == ["gamma", "beta", "moving_mean", "moving_variance"]  # Keras 3's names
    assert len(bn.trainable_weights) == 2 and len(bn.non_trainable_weights) == 2


def test_batch_normalization_4d_uses_biased_moving_variance_and_frozen_runs_inference():
    bn = L.BatchNormalization(momentum=0.5)
    x = rand(2, 3, 3, 2)
    bn(x, training=True)
    close(bn.moving_variance, 0.5 + 0.5 * x.var(axis=(0, 1, 2)), 1e-5)  # Keras 3 (TF 2.21): the biased one
    bn.trainable = False
    before = bn.moving_mean.numpy()
    y = bn(x, training=True)  # frozen BN runs in inference mode (TF2)
    close(bn.moving_mean, before)
    close(y, (x - before) / np.sqrt(bn.moving_variance.numpy() + 1e-3), 1e-5)


def test_layer_normalization():
    ln = L.LayerNormalization()
    x = rand(3, 5)
    y = ln(x)
    close(y, (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3), 1e-4)
    assert ln.count_params() == 10
    ln2 = L.LayerNormalization(axis=[1, 2], epsilon=1e-5)
    x3 = rand(2, 3, 4)
    close(ln2(x3), (x3 - x3.mean((1, 2), keepdims=True)) / np.sqrt(x3.var((1, 2), keepdims=True) + 1e-5), 1e-4)


# -- recurrent ------------------------------------------------------------------------------------------------------
def np_simple_rnn(x, k, rk, b):
    h = np.zeros((x.shape[0], k.shape[1]))
    seq = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ k + h @ rk + b)
        seq.append(h)
    return np.stack(seq, 1), h


def np_lstm(x, k, rk, b):
    u = rk.shape[0]
    h = c = np.zeros((x.shape[0], u))
    seq = []
    for t in range(x.shape[1]):
        z = x[:, t] @ k + h @ rk + b
        i, f, g, o = sigmoid(z[:, :u]), sigmoid(z[:, u:2 * u]), np.tanh(z[:, 2 * u:3 * u]), sigmoid(z[:, 3 * u:])
        c = f * c + i * g
        h = o * np.tanh(c)
        seq.append(h)
    return np.stack(seq, 1), h, c


def np_gru(x, k, rk, b):
    u = rk.shape[0]
    h = np.zeros((x.shape[0], u))
    seq = []
    for t in range(x.shape[1]):
        mx = x[:, t] @ k + b[0]
        mh = h @ rk + b[1]
        z = sigmoid(mx[:, :u] + mh[:, :u])
        r = sigmoid(mx[:, u:2 * u] + mh[:, u:2 * u])
        hh = np.tanh(mx[:, 2 * u:] + r * mh[:, 2 * u:])
        h = z * h + (1 - z) * hh
        seq.append(h)
    return np.stack(seq, 1), h


def _randomize(layer):
    layer.set_weights([RNG.standard_normal(w.shape) * 0.5 for w in layer.get_weights()])


def test_simple_rnn_against_numpy():
    x = rand(2, 5, 3)
    layer = L.SimpleRNN(4, return_sequences=True, return_state=True)
    layer(x)
    _randomize(layer)
    seq, h = layer(x)
    k, rk, b = layer.get_weights()
    ref_seq, ref_h = np_simple_rnn(x, k, rk, b)
    close(seq, ref_seq, 1e-4)
    close(h, ref_h, 1e-4)
    assert layer.count_params() == 3 * 4 + 4 * 4 + 4


def test_lstm_against_numpy_and_defaults():
    x = rand(3, 4, 2)
    layer = L.LSTM(5, return_state=True)
    out, h, c = layer(x)
    k, rk, b = layer.get_weights()
    assert k.shape == (2, 20) and rk.shape == (5, 20) and b.shape == (20,)
    close(b, np.r_[np.zeros(5), np.ones(5), np.zeros(10)])  # unit_forget_bias
    close(rk @ rk.T, np.eye(5), 1e-4)  # orthogonal (row-orthonormal) recurrent kernel
    _randomize(layer)
    out, h, c = layer(x)
    ref_seq, ref_h, ref_c = np_lstm(x, *layer.get_weights())
    close(out, ref_h, 1e-4)
    close(h, ref_h, 1e-4)
    close(c, ref_c, 1e-4)
    assert layer.count_params() == 4 * 5 * (2 + 5) + 20


def test_gru_reset_after_against_numpy():
    x = rand(2, 6, 3)
    layer = L.GRU(4, return_sequences=True)
    layer(x)
    assert layer.cell.bias.shape == (2, 12)
    assert layer.count_params() == 3 * 4 * (3 + 4) + 2 * 12
    _randomize(layer)
    ref_seq, _ = np_gru(x, *layer.get_weights())
    close(layer(x), ref_seq, 1e-4)


def test_rnn_wrapper_initial_state_and_go_backwards():
    cell = L.SimpleRNNCell(3)
    layer = L.RNN(cell, go_backwards=True)
    x = rand(2, 4, 2)
    layer(x)
    _randomize(layer)
    k, rk, b = layer.get_weights()
    h0 = rand(2, 3)
    y = layer(x, initial_state=[h0])
    h = h0
    for t in reversed(range(4)):
        h = np.tanh(x[:, t] @ k + h @ rk + b)
    close(y, h, 1e-4)


def test_rnn_output_shapes_symbolic():
    inp = tf.keras.Input((None, 3))
    seq, h, c = L.LSTM(4, return_sequences=True, return_state=True)(inp)
    assert seq.shape.as_list() == [None, None, 4]
    assert h.shape.as_list() == [None, 4] and c.shape.as_list() == [None, 4]


# -- gradients through layers (float64 layers, finite differences) -----------------------------------------------
@pytest.mark.parametrize("make,shape", [
    (lambda: L.LSTM(3, dtype="float64"), (2, 4, 2)),
    (lambda: L.GRU(3, dtype="float64", return_sequences=True), (2, 3, 2)),
    (lambda: L.Conv2D(2, 3, padding="same", dtype="float64"), (1, 4, 4, 2)),
    (lambda: L.SeparableConv2D(2, 2, dtype="float64"), (1, 4, 4, 2)),
    (lambda: L.LayerNormalization(dtype="float64"), (3, 4)),
])
def test_layer_input_gradients(make, shape):
    layer = make()
    x = np.random.default_rng(3).standard_normal(shape)
    layer(x)
    check_gradients(lambda t: layer(t), x, rtol=1e-4, atol=1e-6)


def test_batch_norm_training_gradient():
    bn = L.BatchNormalization(dtype="float64")
    x = np.random.default_rng(4).standard_normal((6, 3))
    bn(x)
    check_gradients(lambda t: bn(t, training=True), x, rtol=1e-4, atol=1e-6)


# -- wrappers and preprocessing -----------------------------------------------------------------------------------
def test_bidirectional_concat_matches_forward_and_reversed_backward():
    layer = L.Bidirectional(L.SimpleRNN(3, return_sequences=True))
    x = rand(2, 4, 2)
    layer(x)
    _randomize(layer)
    y = layer(x).numpy()
    fk, frk, fb = layer.forward_layer.get_weights()
    bk, brk, bb = layer.backward_layer.get_weights()
    fw_seq, _ = np_simple_rnn(x, fk, frk, fb)
    bw_seq, _ = np_simple_rnn(x[:, ::-1], bk, brk, bb)
    close(y, np.concatenate([fw_seq, bw_seq[:, ::-1]], -1), 1e-4)
    assert layer.count_params() == 2 * (2 * 3 + 3 * 3 + 3)
    summed = L.Bidirectional(L.LSTM(2), merge_mode="sum")
    assert summed(x).shape == (2, 2)


def test_time_distributed_and_rescaling():
    td = L.TimeDistributed(L.Dense(3))
    x = rand(2, 5, 4)
    y = td(x)
    close(y, x @ td.layer.kernel.numpy() + td.layer.bias.numpy(), 1e-5)
    assert td.compute_output_shape((None, 5, 4)) == tf.TensorShape([None, 5, 3])
    img = np.arange(6, dtype=np.uint8).reshape(1, 6)
    close(L.Rescaling(1.0 / 255, offset=-1.0)(img), img / 255.0 - 1.0)
