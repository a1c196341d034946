"""tf.nn 3-D/N-D convolutions and pooling, transposed convolutions, pooling with argmax, LRN, morphology,
CTC loss and moment helpers against NumPy float64 references."""

import itertools

import numpy as np
import pytest

import tfcore as tf

rng = np.random.default_rng(3)


def _conv3d_reference(x, w, strides, padding):
    n, d, h, wd, c = x.shape
    kd, kh, kw, _, o = w.shape
    if padding == "SAME":
        pads = []
        for size, k, s in zip((d, h, wd), (kd, kh, kw), strides):
            out = -(-size // s)
            total = max((out - 1) * s + k - size, 0)
            pads.append((total // 2, total - total // 2))
        x = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    outs = [(x.shape[i + 1] - k) // s + 1 for i, (k, s) in enumerate(zip((kd, kh, kw), strides))]
    y = np.zeros((n, *outs, o))
    for i, j, k in itertools.product(*[range(v) for v in outs]):
        win = x[:, i * strides[0]:i * strides[0] + kd, j * strides[1]:j * strides[1] + kh,
                k * strides[2]:k * strides[2] + kw]
        y[:, i, j, k] = np.einsum("ndhwc,dhwco->no", win, w)
    return y


@pytest.mark.parametrize("padding, strides", [("SAME", (1, 2, 1)), ("VALID", (2, 1, 2))])
def test_conv3d_and_its_transpose(padding, strides):
    x = rng.standard_normal((2, 4, 5, 6, 2))
    w = rng.standard_normal((2, 3, 2, 2, 3))
    y = tf.nn.conv3d(x, w, [1, *strides, 1], padding)
    np.testing.assert_allclose(y.numpy(), _conv3d_reference(x, w, strides, padding), rtol=1e-10, atol=1e-12)
    dy = rng.standard_normal(y.shape)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        out = tf.nn.conv3d(xt, w, list(strides), padding)
    want = tape.gradient(out, xt, output_gradients=tf.constant(dy)).numpy()
    np.testing.assert_allclose(tf.nn.conv3d_transpose(dy, w, x.shape, list(strides), padding).numpy(), want,
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tf.nn.conv_transpose(dy, w, x.shape, list(strides), padding).numpy(), want,
                               rtol=1e-10, atol=1e-12)
    ncdhw = tf.nn.conv3d(np.moveaxis(x, -1, 1), w, [1, 1, *strides], padding, data_format="NCDHW")
    np.testing.assert_allclose(np.moveaxis(ncdhw.numpy(), 1, -1), y.numpy(), rtol=1e-12)


def test_conv1d_transpose_and_atrous():
    x = rng.standard_normal((2, 7, 3))
    w = rng.standard_normal((3, 4, 3))  # [kw, out, in]
    y = tf.nn.conv1d_transpose(x, w, [2, 14, 4], 2, "SAME")
    z = tf.constant(np.zeros((2, 14, 4)))
    with tf.GradientTape() as tape:
        tape.watch(z)
        fwd = tf.nn.conv1d(z, w, 2, "SAME")
    np.testing.assert_allclose(y.numpy(), tape.gradient(fwd, z, output_gradients=tf.constant(x)).numpy(), rtol=1e-10)
    img = rng.standard_normal((1, 7, 7, 2))
    f = rng.standard_normal((3, 3, 2, 2))
    np.testing.assert_allclose(tf.nn.atrous_conv2d(img, f, 2, "SAME").numpy(),
                               tf.nn.conv2d(img, f, 1, "SAME", dilations=2).numpy())
    assert tf.nn.atrous_conv2d_transpose(img, f, [1, 7, 7, 2], 2, "SAME").shape == (1, 7, 7, 2)


def test_pool3d_and_pool():
    x = rng.standard_normal((2, 5, 4, 3, 2))
    mx = tf.nn.max_pool3d(x, 2, 2, "VALID").numpy()
    ref = x[:, :4, :4, :2].reshape(2, 2, 2, 2, 2, 1, 2, 2).max(axis=(2, 4, 6))
    np.testing.assert_allclose(mx, ref)
    same = tf.nn.avg_pool3d(x, 2, 2, "SAME").numpy()
    assert same.shape == (2, 3, 2, 2, 2)
    np.testing.assert_allclose(same[:, 2, 0, 1], x[:, 4, 0:2, 2].mean(axis=1))  # edge window: 2 valid elements
    np.testing.assert_allclose(tf.nn.pool(x, [2, 2, 2], "MAX", strides=[2, 2, 2]).numpy(), mx)
    img = rng.standard_normal((1, 6, 6, 2))
    np.testing.assert_allclose(tf.nn.pool(img, [2, 2], "AVG", strides=[2, 2]).numpy(),
                               tf.nn.avg_pool2d(img, 2, 2, "VALID").numpy())
    dil = tf.nn.pool(img, [2, 2], "MAX", dilations=[2, 2]).numpy()
    np.testing.assert_allclose(dil[0, 0, 0], img[0, [0, 0, 2, 2], [0, 2, 0, 2]].max(axis=0))


def test_max_pool_with_argmax():
    x = rng.standard_normal((2, 4, 4, 3)).astype(np.float32)
    out, idx = tf.nn.max_pool_with_argmax(x, 2, 2, "VALID")
    np.testing.assert_allclose(out.numpy(), tf.nn.max_pool2d(x, 2, 2, "VALID").numpy())
    flat = x.reshape(2, -1)
    for b in range(2):
        np.testing.assert_array_equal(flat[b][idx.numpy()[b].reshape(-1)], out.numpy()[b].reshape(-1))
    _, with_batch = tf.nn.max_pool_with_argmax(x, 2, 2, "VALID", include_batch_in_index=True)
    np.testing.assert_array_equal(with_batch.numpy()[1] - idx.numpy()[1], 48)
    assert idx.dtype == tf.int64


def test_lrn_and_morphology():
    x = rng.standard_normal((1, 2, 3, 7))
    r, bias, alpha, beta = 2, 1.5, 0.3, 0.75
    sq = np.pad(x ** 2, [(0, 0), (0, 0), (0, 0), (r, r)])
    sums = sum(sq[..., k:k + 7] for k in range(2 * r + 1))
    np.testing.assert_allclose(tf.nn.lrn(x, r, bias, alpha, beta).numpy(), x / (bias + alpha * sums) ** beta)
    np.testing.assert_allclose(tf.nn.local_response_normalization(x).numpy(),
                               x / (1 + sum(np.pad(x ** 2, [(0, 0)] * 3 + [(5, 5)])[..., k:k + 7]
                                            for k in range(11))) ** 0.5)
    img = rng.standard_normal((1, 5, 5, 2))
    f = rng.standard_normal((2, 2, 2))
    dil = tf.nn.dilation2d(img, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]).numpy()
    ref = np.max([img[:, i:i + 4, j:j + 4] + f[i, j] for i in range(2) for j in range(2)], axis=0)
    np.testing.assert_allclose(dil, ref)
    ero = tf.nn.erosion2d(img, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]).numpy()
    ref_e = np.min([img[:, i:i + 4, j:j + 4] - f[1 - i, 1 - j] for i in range(2) for j in range(2)], axis=0)
    np.testing.assert_allclose(ero, ref_e)


def _ctc_brute_force(logits, label):
    """-log of the summed probability of every frame labelling that collapses to ``label`` (blank 0)."""
    t, k = logits.shape
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    total = 0.0
    for path in itertools.product(range(k), repeat=t):
        collapsed = [p for i, p in enumerate(path) if p != 0 and (i == 0 or p != path[i - 1])]
        if collapsed == list(label):
            total += np.exp(sum(logp[i, p] for i, p in enumerate(path)))
    return -np.log(total)


def test_ctc_loss_matches_brute_force_and_differentiates():
    logits = rng.standard_normal((5, 2, 3))  # time-major [T, B, K]
    labels = np.array([[1, 2], [1, 1]])
    got = tf.nn.ctc_loss(labels, logits, [2, 2], [5, 4]).numpy()
    np.testing.assert_allclose(got[0], _ctc_brute_force(logits[:, 0], [1, 2]), rtol=1e-10)
    np.testing.assert_allclose(got[1], _ctc_brute_force(logits[:4, 1], [1, 1]), rtol=1e-10)
    short = tf.nn.ctc_loss([[2, 0]], logits[:, :1], [1], [5]).numpy()
    np.testing.assert_allclose(short[0], _ctc_brute_force(logits[:, 0], [2]), rtol=1e-10)
    batch_major = tf.nn.ctc_loss(labels, np.transpose(logits, (1, 0, 2)), [2, 2], [5, 4], logits_time_major=False)
    np.testing.assert_allclose(batch_major.numpy(), got)
    blank_last = tf.nn.ctc_loss(labels - 1, np.roll(logits, -1, axis=-1), [2, 2], [5, 4], blank_index=-1)
    np.testing.assert_allclose(blank_last.numpy(), got, rtol=1e-10)
    v = tf.Variable(logits)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.ctc_loss(labels, v, [2, 2], [5, 4]))
    g = tape.gradient(loss, v).numpy()
    eps = 1e-6
    bumped = logits.copy()
    bumped[2, 0, 1] += eps
    fd = (tf.reduce_sum(tf.nn.ctc_loss(labels, bumped, [2, 2], [5, 4])).numpy() - loss.numpy()) / eps
    np.testing.assert_allclose(g[2, 0, 1], fd, rtol=1e-4)
    np.testing.assert_allclose(g[4, 1], 0.0)  # frame past the second sequence's length
    # keras.losses.CTC: batch-major logits, 0 is the blank and the padding
    keras_loss = tf.keras.losses.CTC(reduction="none")(np.array([[1, 2, 0]]), np.transpose(logits[:, :1], (1, 0, 2)))
    np.testing.assert_allclose(keras_loss.numpy(), [_ctc_brute_force(logits[:, 0], [1, 2])], rtol=1e-10)
    np.testing.assert_allclose(tf.keras.losses.ctc(np.array([[1, 2, 0]]), np.transpose(logits[:, :1], (1, 0, 2)))
                               .numpy(), keras_loss.numpy())


def test_moment_helpers():
    x = rng.standard_normal((4, 3))
    count, mss, vss, shift = tf.nn.sufficient_statistics(x, [0])
    mean, var = tf.nn.normalize_moments(count, mss, vss, shift)
    np.testing.assert_allclose(mean.numpy(), x.mean(0))
    np.testing.assert_allclose(var.numpy(), x.var(0))
    w = np.array([[1.0], [2.0], [0.0], [1.0]])
    m, v = tf.nn.weighted_moments(x, [0], w)
    ref_m = (x * w).sum(0) / w.sum()
    np.testing.assert_allclose(m.numpy(), ref_m)
    np.testing.assert_allclose(v.numpy(), ((x - ref_m) ** 2 * w).sum(0) / w.sum())
    bn = tf.nn.batch_norm_with_global_normalization(x, x.mean(0), x.var(0), np.ones(3), 2 * np.ones(3), 1e-3, True)
    np.testing.assert_allclose(bn.numpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3) * 2 + 1)
    col, n = tf.nn.collapse_repeated([[1, 1, 2, 2, 3], [4, 4, 4, 0, 0]], [5, 3])
    assert col.numpy().tolist() == [[1, 2, 3], [4, 0, 0]] and n.numpy().tolist() == [3, 1]
    assert tf.nn.zero_fraction([0.0, 1.0]).numpy() == 0.5
    assert tf.nn.approx_max_k([[1.0, 3.0, 2.0]], 1)[0].numpy().tolist() == [[3.0]]
    assert tf.nn.approx_min_k([[1.0, 3.0, 2.0]], 1)[0].numpy().tolist() == [[1.0]]
    assert tf.nn.space_to_batch(np.ones((1, 2, 2, 1)), [2, 2], [[0, 0], [0, 0]]).shape == (4, 1, 1, 1)
