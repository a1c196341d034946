"""The layers of issue #17 item 4 against NumPy float64 references: Conv1DTranspose, Conv3D(Transpose),
SeparableConv1D, DepthwiseConv1D, 3-D pooling, Cropping, ZeroPadding/UpSampling, Permute, RepeatVector, Dot,
PReLU, the noise/dropout layers, ActivityRegularization, Identity, UnitNormalization, ConvLSTM2D and
StackedRNNCells; get_config round trips and use in models."""

import numpy as np
import pytest

import tfcore as tf

L = tf.keras.layers
rng = np.random.default_rng(17)


def _conv_ref(x, w, stride=1, padding="valid"):
    """N-D cross-correlation, channels last, float64."""
    rank = x.ndim - 2
    ks = w.shape[:rank]
    if padding == "same":
        pads = []
        for n, k in zip(x.shape[1:-1], ks):
            out = -(-n // stride)
            total = max((out - 1) * stride + k - n, 0)
            pads.append((total // 2, total - total // 2))
        x = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    outs = [(n - k) // stride + 1 for n, k in zip(x.shape[1:-1], ks)]
    y = np.zeros((x.shape[0], *outs, w.shape[-1]))
    for pos in np.ndindex(*outs):
        win = x[(slice(None),) + tuple(slice(p * stride, p * stride + k) for p, k in zip(pos, ks))]
        y[(slice(None),) + pos] = np.tensordot(win, w, axes=(list(range(1, rank + 2)), list(range(rank + 1))))
    return y


def _round_trip(layer, x):
    y = layer(x)
    config = layer.get_config()
    clone = type(layer).from_config(config)
    clone(x)
    if layer.weights:
        clone.set_weights(layer.get_weights())
        np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=1e-6)
    assert clone.get_config() == config
    again = L.deserialize(L.serialize(layer))
    assert type(again) is type(layer)
    return y


def test_conv3d_and_transposes():
    x = rng.standard_normal((2, 4, 5, 6, 3))
    conv = L.Conv3D(4, (2, 3, 2), padding="same", dtype="float64")
    y = _round_trip(conv, x)
    k, b = conv.get_weights()
    assert k.shape == (2, 3, 2, 3, 4)
    np.testing.assert_allclose(y.numpy(), _conv_ref(x, k, padding="same") + b, rtol=1e-10, atol=1e-12)
    strided = L.Conv3D(2, 3, strides=2, dtype="float64")
    np.testing.assert_allclose(strided(x).numpy(), _conv_ref(x, strided.get_weights()[0], 2) +
                               strided.get_weights()[1], rtol=1e-10, atol=1e-12)
    tconv = L.Conv3DTranspose(2, 2, strides=2, dtype="float64", use_bias=False)
    yt = _round_trip(tconv, x)
    assert yt.shape == (2, 8, 10, 12, 2) and tconv.get_weights()[0].shape == (2, 2, 2, 2, 3)
    # stride 2, kernel 2, valid: every output voxel gets exactly one input voxel times one tap
    w = tconv.get_weights()[0]
    np.testing.assert_allclose(yt.numpy()[:, 1::2, 0::2, 1::2], np.einsum("bdhwc,oc->bdhwo", x, w[1, 0, 1]),
                               rtol=1e-10)
    x1 = rng.standard_normal((2, 5, 3))
    t1 = L.Conv1DTranspose(4, 3, strides=2, padding="same", dtype="float64")
    y1 = _round_trip(t1, x1)
    assert y1.shape == (2, 10, 4) and t1.get_weights()[0].shape == (3, 4, 3)
    z = tf.constant(np.zeros((2, 10, 4)))
    k1 = t1.get_weights()[0]
    with tf.GradientTape() as tape:
        tape.watch(z)
        fwd = tf.nn.conv1d(z, k1, 2, "SAME")
    want = tape.gradient(fwd, z, output_gradients=tf.constant(x1)).numpy() + t1.get_weights()[1]
    np.testing.assert_allclose(y1.numpy(), want, rtol=1e-10)


def test_depthwise_and_separable_conv1d():
    x = rng.standard_normal((2, 7, 3))
    dw = L.DepthwiseConv1D(3, depth_multiplier=2, dtype="float64")
    y = _round_trip(dw, x)
    k, b = dw.get_weights()
    assert k.shape == (3, 3, 2)
    ref = np.zeros((2, 5, 6))
    for c in range(3):
        for m in range(2):
            ref[..., c * 2 + m] = _conv_ref(x[..., c:c + 1], k[:, c:c + 1, m:m + 1])[..., 0]
    np.testing.assert_allclose(y.numpy(), ref + b, rtol=1e-10)
    sep = L.SeparableConv1D(4, 3, depth_multiplier=2, dtype="float64")
    ys = _round_trip(sep, x)
    dk, pk, sb = sep.get_weights()
    assert pk.shape == (1, 6, 4)
    ref_dw = np.zeros((2, 5, 6))
    for c in range(3):
        for m in range(2):
            ref_dw[..., c * 2 + m] = _conv_ref(x[..., c:c + 1], dk[:, c:c + 1, m:m + 1])[..., 0]
    np.testing.assert_allclose(ys.numpy(), ref_dw @ pk[0] + sb, rtol=1e-10)
    causal = L.DepthwiseConv1D(3, padding="causal", dtype="float64")
    assert causal(x).shape == (2, 7, 3)


def test_pooling_3d():
    x = rng.standard_normal((2, 4, 4, 6, 3))
    np.testing.assert_allclose(_round_trip(L.MaxPooling3D(2), x).numpy(),
                               x.reshape(2, 2, 2, 2, 2, 3, 2, 3).max(axis=(2, 4, 6)))
    np.testing.assert_allclose(L.AveragePooling3D((2, 2, 3))(x).numpy(),
                               x.reshape(2, 2, 2, 2, 2, 2, 3, 3).mean(axis=(2, 4, 6)), atol=1e-6)
    np.testing.assert_allclose(_round_trip(L.GlobalMaxPooling3D(), x).numpy(), x.max(axis=(1, 2, 3)))
    np.testing.assert_allclose(L.GlobalAveragePooling3D(keepdims=True)(x).numpy(),
                               x.mean(axis=(1, 2, 3), keepdims=True), atol=1e-6)
    cf = np.moveaxis(x, -1, 1)
    np.testing.assert_allclose(L.GlobalAvgPool3D(data_format="channels_first")(cf).numpy(), x.mean(axis=(1, 2, 3)),
                               atol=1e-6)
    assert L.MaxPool3D is L.MaxPooling3D and L.AvgPool3D is L.AveragePooling3D
    assert L.GlobalMaxPool3D is L.GlobalMaxPooling3D


def test_cropping_padding_upsampling():
    x1 = rng.standard_normal((2, 6, 3)).astype(np.float32)
    np.testing.assert_array_equal(_round_trip(L.Cropping1D((1, 2)), x1).numpy(), x1[:, 1:4])
    x2 = rng.standard_normal((2, 6, 5, 3)).astype(np.float32)
    np.testing.assert_array_equal(_round_trip(L.Cropping2D(((1, 0), (2, 1))), x2).numpy(), x2[:, 1:, 2:4])
    np.testing.assert_array_equal(L.Cropping2D(1, data_format="channels_first")(x2).numpy(), x2[:, :, 1:4, 1:2])
    x3 = rng.standard_normal((1, 4, 5, 6, 2)).astype(np.float32)
    np.testing.assert_array_equal(_round_trip(L.Cropping3D(((1, 1), (0, 2), (1, 0))), x3).numpy(),
                                  x3[:, 1:3, 0:3, 1:])
    np.testing.assert_array_equal(_round_trip(L.ZeroPadding1D((1, 2)), x1).numpy(),
                                  np.pad(x1, [(0, 0), (1, 2), (0, 0)]))
    np.testing.assert_array_equal(_round_trip(L.ZeroPadding3D(1), x3).numpy(), np.pad(x3, [(0, 0)] + [(1, 1)] * 3 +
                                                                                        [(0, 0)]))
    np.testing.assert_array_equal(_round_trip(L.UpSampling1D(2), x1).numpy(), np.repeat(x1, 2, axis=1))
    np.testing.assert_array_equal(_round_trip(L.UpSampling2D((2, 3)), x2).numpy(),
                                  np.repeat(np.repeat(x2, 2, axis=1), 3, axis=2))
    np.testing.assert_array_equal(_round_trip(L.UpSampling3D(2), x3).numpy(),
                                  np.repeat(np.repeat(np.repeat(x3, 2, axis=1), 2, axis=2), 2, axis=3))
    assert L.UpSampling2D(2, interpolation="bilinear")(x2.astype(np.float32)).shape == (2, 12, 10, 3)
    with pytest.raises(ValueError, match="cropping"):
        L.Cropping2D((1, 2, 3))


def test_permute_repeat_dot():
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(_round_trip(L.Permute((2, 1)), x).numpy(), x.transpose(0, 2, 1))
    v = rng.standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_array_equal(_round_trip(L.RepeatVector(3), v).numpy(), np.repeat(v[:, None], 3, axis=1))
    a, b = rng.standard_normal((2, 5)).astype(np.float32), rng.standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_allclose(L.Dot(axes=1)([a, b]).numpy(), (a * b).sum(1, keepdims=True), rtol=1e-5)
    cos = L.Dot(axes=1, normalize=True)([a, b]).numpy()
    np.testing.assert_allclose(cos[:, 0], (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1),
                               rtol=1e-5)
    m1, m2 = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 5, 4)).astype(np.float32)
    np.testing.assert_allclose(L.Dot(axes=(2, 2))([m1, m2]).numpy(), np.einsum("bik,bjk->bij", m1, m2), rtol=1e-5)
    np.testing.assert_allclose(L.dot([m1, m2], axes=2).numpy(), np.einsum("bik,bjk->bij", m1, m2), rtol=1e-5)
    dot = L.Dot(axes=(1, 1), normalize=True)
    assert L.Dot.from_config(dot.get_config()).get_config() == dot.get_config()
    with pytest.raises(ValueError, match="dims"):
        L.Permute((1, 3))
    inp1, inp2 = tf.keras.Input((3, 4)), tf.keras.Input((5, 4))
    model = tf.keras.Model([inp1, inp2], L.Dot(axes=2)([inp1, inp2]))
    assert model.output_shape == (None, 3, 5)


def test_prelu_and_unit_normalization():
    x = rng.standard_normal((2, 3, 4))
    prelu = L.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.25), shared_axes=[1], dtype="float64")
    y = _round_trip(prelu, x)
    assert prelu.get_weights()[0].shape == (1, 4)
    np.testing.assert_allclose(y.numpy(), np.where(x > 0, x, 0.25 * x))
    alpha = rng.standard_normal((1, 4))
    prelu.set_weights([alpha])
    np.testing.assert_allclose(prelu(x).numpy(), np.where(x > 0, x, alpha * x))
    np.testing.assert_allclose(_round_trip(L.UnitNormalization(), x).numpy(),
                               x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-6)


def test_noise_layers_act_only_in_training():
    x = np.ones((200, 50), np.float32)
    for layer in (L.GaussianNoise(0.5, seed=1), L.GaussianDropout(0.3, seed=2), L.AlphaDropout(0.3, seed=3),
                  L.SpatialDropout1D(0.5, seed=4), L.SpatialDropout2D(0.5, seed=5), L.SpatialDropout3D(0.5, seed=6)):
        xi = x.reshape((200, 50) if layer.input_spec is None or layer.input_spec.ndim is None
                       else {3: (20, 10, 50), 4: (20, 5, 2, 50), 5: (10, 2, 5, 2, 50)}[layer.input_spec.ndim])
        np.testing.assert_array_equal(layer(xi).numpy(), xi)
        np.testing.assert_array_equal(layer(xi, training=False).numpy(), xi)
        assert not np.array_equal(layer(xi, training=True).numpy(), xi), type(layer).__name__
        again = type(layer).from_config(layer.get_config())
        assert again.get_config() == layer.get_config()
    noisy = L.GaussianNoise(0.5, seed=1)(x, training=True).numpy()
    assert abs(noisy.std() - 0.5) < 0.02 and abs(noisy.mean() - 1.0) < 0.02
    gd = L.GaussianDropout(0.3, seed=2)(x, training=True).numpy()
    assert abs(gd.mean() - 1.0) < 0.02 and abs(gd.std() - np.sqrt(0.3 / 0.7)) < 0.02
    z = rng.standard_normal((400, 100)).astype(np.float32)
    ad = L.AlphaDropout(0.2, seed=3)(z, training=True).numpy()
    assert abs(ad.mean()) < 0.05 and abs(ad.std() - 1.0) < 0.05  # self-normalising: moments kept
    sd = L.SpatialDropout1D(0.5, seed=4)(np.ones((4, 6, 8), np.float32), training=True).numpy()
    assert np.all((sd == 0).all(axis=1) | (sd == 2).all(axis=1))  # whole channels dropped, the rest scaled
    sd2 = L.SpatialDropout2D(0.5, data_format="channels_first", seed=5)(np.ones((4, 8, 3, 3), np.float32),
                                                                        training=True).numpy()
    assert np.all((sd2 == 0).all(axis=(2, 3)) | (sd2 == 2).all(axis=(2, 3)))


def test_activity_regularization_and_identity():
    layer = L.ActivityRegularization(l1=0.1, l2=0.01)
    x = np.array([[1.0, -2.0]], np.float32)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    assert np.isclose(float(layer.losses[0].numpy()), 0.1 * 3 + 0.01 * 5)
    assert L.ActivityRegularization.from_config(layer.get_config()).get_config() == layer.get_config()
    assert L.Identity()(x) is not None and np.array_equal(L.Identity()(x).numpy(), x)
    model = tf.keras.Sequential([tf.keras.Input((2,)), L.Dense(2), L.ActivityRegularization(l2=1.0), L.Identity()])
    model.compile("sgd", "mse")
    model.fit(x, x, verbose=0)
    assert len(model.losses) == 1


def _lstm_step(x, h, c, k, rk, b):
    z = x @ k + h @ rk + b
    u = h.shape[-1]
    sig = 1 / (1 + np.exp(-z))
    i, f, o = sig[:, :u], sig[:, u:2 * u], sig[:, 3 * u:]
    c = f * c + i * np.tanh(z[:, 2 * u:3 * u])
    return o * np.tanh(c), c


def test_stacked_rnn_cells_match_numpy():
    x = rng.standard_normal((2, 4, 3))
    cells = [L.LSTMCell(5, dtype="float64"), L.LSTMCell(2, dtype="float64")]
    rnn = L.RNN(L.StackedRNNCells(cells), return_sequences=True, return_state=True, dtype="float64")
    seq, *states = rnn(x)
    (k1, rk1, b1), (k2, rk2, b2) = cells[0].get_weights(), cells[1].get_weights()
    h1 = c1 = np.zeros((2, 5))
    h2 = c2 = np.zeros((2, 2))
    outs = []
    for t in range(4):
        h1, c1 = _lstm_step(x[:, t], h1, c1, k1, rk1, b1)
        h2, c2 = _lstm_step(h1, h2, c2, k2, rk2, b2)
        outs.append(h2)
    np.testing.assert_allclose(seq.numpy(), np.stack(outs, 1), rtol=1e-10)
    assert len(states) == 4
    np.testing.assert_allclose(states[2].numpy(), h2, rtol=1e-10)
    stacked = L.StackedRNNCells([L.GRUCell(3), L.SimpleRNNCell(2)])
    again = L.StackedRNNCells.from_config(stacked.get_config())
    assert [type(c) for c in again.cells] == [L.GRUCell, L.SimpleRNNCell]
    assert stacked.state_size == [3, 2] and stacked.output_size == 2


def test_conv_lstm2d_matches_numpy():
    x = rng.standard_normal((2, 3, 4, 4, 2))
    layer = L.ConvLSTM2D(3, 3, padding="same", return_sequences=True, dtype="float64")
    y = layer(x)
    k, rk, b = layer.get_weights()
    assert k.shape == (3, 3, 2, 12) and rk.shape == (3, 3, 3, 12) and b.shape == (12,)
    np.testing.assert_array_equal(b[3:6], 1.0)  # unit_forget_bias
    h = c = np.zeros((2, 4, 4, 3))
    outs = []
    for t in range(3):
        z = _conv_ref(x[:, t], k, padding="same") + b + _conv_ref(h, rk, padding="same")
        sig = 1 / (1 + np.exp(-z))
        c = sig[..., 3:6] * c + sig[..., 0:3] * np.tanh(z[..., 6:9])
        h = sig[..., 9:12] * np.tanh(c)
        outs.append(h)
    np.testing.assert_allclose(y.numpy(), np.stack(outs, 1), rtol=1e-9, atol=1e-12)
    last = L.ConvLSTM2D(3, 3, dtype="float64", return_state=True)
    out, hs, cs = last(x)
    assert out.shape == (2, 2, 2, 3) and cs.shape == (2, 2, 2, 3)
    config = layer.get_config()
    clone = L.ConvLSTM2D.from_config(config)
    assert clone.get_config() == config and clone.filters == 3
    assert L.ConvLSTM1D(2, 2)(np.ones((1, 3, 5, 2), np.float32)).shape == (1, 4, 2)
    model = tf.keras.Sequential([tf.keras.Input((3, 4, 4, 2)), L.ConvLSTM2D(2, 3, padding="same"),
                                 L.GlobalAveragePooling2D(), L.Dense(1)])
    model.compile("adam", "mse")
    hist = model.fit(x.astype(np.float32), np.ones((2, 1), np.float32), epochs=2, verbose=0)
    assert np.isfinite(hist.history["loss"][-1])


def test_layers_train_in_a_model():
    tf.keras.utils.set_random_seed(0)  # fixed weights: with some draws a path gets no gradient in 4 steps
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 6, 6, 6, 1)).astype(np.float32)
    y = (x.mean(axis=(1, 2, 3, 4)) > 0).astype(np.float32)[:, None]
    model = tf.keras.Sequential([
        tf.keras.Input((6, 6, 6, 1)), L.Conv3D(2, 3, padding="same"), L.PReLU(), L.SpatialDropout3D(0.1),
        L.MaxPooling3D(2), L.Conv3DTranspose(2, 2, strides=2), L.Cropping3D(1), L.GlobalAveragePooling3D(),
        L.GaussianNoise(0.01), L.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy")
    before = [w.copy() for w in model.get_weights()]
    hist = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert all(np.isfinite(hist.history["loss"]))
    assert all(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))  # every weight trained
    seq_model = tf.keras.Sequential([tf.keras.Input((8, 3)), L.SeparableConv1D(4, 3), L.DepthwiseConv1D(3),
                                     L.Conv1DTranspose(2, 3), L.Permute((2, 1)), L.Flatten(), L.RepeatVector(2),
                                     L.Flatten(), L.AlphaDropout(0.1), L.Dense(1)])
    seq_model.compile("sgd", "mse")
    seq_model.fit(rng.standard_normal((8, 8, 3)).astype(np.float32), np.ones((8, 1), np.float32), verbose=0)
    assert seq_model.output_shape == (None, 1)


def _adaptive_ref(x, out, axis, fn):
    n = x.shape[axis]
    parts = [fn(np.take(x, range((i * n) // out, -(-((i + 1) * n) // out)), axis=axis), axis=axis, keepdims=True)
             for i in range(out)]
    return np.concatenate(parts, axis=axis)


def test_adaptive_pooling_thresholded_relu_spectral_normalization():
    x = rng.standard_normal((2, 7, 5, 3))
    ref = _adaptive_ref(_adaptive_ref(x, 3, 1, np.mean), 2, 2, np.mean)
    np.testing.assert_allclose(_round_trip(L.AdaptiveAveragePooling2D((3, 2), dtype="float64"), x).numpy(), ref,
                               rtol=1e-12)
    refm = _adaptive_ref(_adaptive_ref(x, 3, 1, np.max), 2, 2, np.max)
    np.testing.assert_allclose(L.AdaptiveMaxPooling2D((3, 2), dtype="float64")(x).numpy(), refm)
    x1 = rng.standard_normal((2, 7, 3))
    np.testing.assert_allclose(L.AdaptiveAveragePooling1D(4, dtype="float64")(x1).numpy(),
                               _adaptive_ref(x1, 4, 1, np.mean), rtol=1e-12)
    np.testing.assert_allclose(L.AdaptiveMaxPooling1D(4, dtype="float64")(x1).numpy(), _adaptive_ref(x1, 4, 1, np.max))
    x3 = rng.standard_normal((1, 5, 4, 3, 2))
    assert L.AdaptiveAveragePooling3D(2)(x3).shape == (1, 2, 2, 2, 2)
    assert L.AdaptiveMaxPooling3D((1, 2, 3))(x3).shape == (1, 1, 2, 3, 2)
    np.testing.assert_array_equal(L.ThresholdedReLU(1.0)(np.array([0.5, 1.0, 1.5], np.float32)).numpy(),
                                  [0.0, 0.0, 1.5])
    assert L.ThresholdedReLU.from_config(L.ThresholdedReLU(0.3).get_config()).theta == pytest.approx(0.3)
    sn = L.SpectralNormalization(L.Dense(4, dtype="float64"), power_iterations=2, dtype="float64")
    inp = rng.standard_normal((2, 3))
    sn(inp)  # builds; inference does not move u
    sn.layer.set_weights([np.array([[3.0, 0.2, 0.0, 0.1], [0.0, 1.0, 0.3, 0.0], [0.1, 0.0, 0.5, 0.2]]), np.ones(4)])
    u, k = sn.vector_u.numpy(), sn.layer.kernel.numpy()
    for _ in range(2):  # Keras' power iteration, in NumPy
        v = u @ k.T
        v /= np.linalg.norm(v)
        u = v @ k
        u /= np.linalg.norm(u)
    w = k / (v @ k @ u.T)
    np.testing.assert_allclose(sn(inp, training=True).numpy(), inp @ w + sn.layer.bias.numpy(), rtol=1e-10)
    np.testing.assert_allclose(sn.vector_u.numpy(), u, rtol=1e-10)  # training updates u
    for _ in range(200):
        sn(inp, training=True)
    np.testing.assert_allclose(np.linalg.svd(sn._normalized(False).numpy(), compute_uv=False)[0], 1.0, rtol=1e-3)
    assert len(sn.layer.trainable_weights) == 2  # kernel and bias stay the layer's variables
    again = L.SpectralNormalization.from_config(sn.get_config())
    assert type(again.layer) is L.Dense and again.power_iterations == 2
    assert issubclass(L.SpectralNormalization, L.Wrapper)
    with pytest.raises(ValueError, match="power_iterations"):
        L.SpectralNormalization(L.Dense(2), power_iterations=0)
