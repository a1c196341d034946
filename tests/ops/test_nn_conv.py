"""tf.nn convolutions against a loop-based NumPy reference, hand-checked SAME padding, gradients, errors."""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

RNG = np.random.default_rng(42)


def _same_pads(size, k, s, d):
    """TF's SAME arithmetic, written out independently of the implementation."""
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def ref_conv2d(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    """Direct NHWC convolution with a Python loop over output pixels (small shapes only)."""
    kh, kw, _, co = w.shape
    (sh, sw), (dh, dw) = strides, dilations
    if padding == "SAME":
        pads = (_same_pads(x.shape[1], kh, sh, dh), _same_pads(x.shape[2], kw, sw, dw))
    elif padding == "VALID":
        pads = ((0, 0), (0, 0))
    else:
        pads = (tuple(padding[1]), tuple(padding[2]))
    xp = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)))
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((x.shape[0], oh, ow, co))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def ref_depthwise(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    c, m = w.shape[2], w.shape[3]
    outs = [ref_conv2d(x[..., ci:ci + 1], w[:, :, ci:ci + 1, :], strides, padding, dilations) for ci in range(c)]
    return np.stack(outs, axis=3).reshape(outs[0].shape[:3] + (c * m,))


CASES = [
    # (input shape, filter hw, strides, padding, dilations)
    ((2, 5, 7, 3), (3, 3), (1, 1), "SAME", (1, 1)),
    ((2, 5, 7, 3), (3, 3), (1, 1), "VALID", (1, 1)),
    ((1, 7, 6, 2), (3, 2), (2, 2), "SAME", (1, 1)),
    ((1, 7, 6, 2), (3, 2), (2, 3), "VALID", (1, 1)),
    ((1, 8, 9, 2), (3, 3), (1, 1), "SAME", (2, 2)),
    ((1, 8, 9, 2), (2, 3), (1, 1), "VALID", (2, 1)),
    ((1, 9, 8, 2), (3, 2), (2, 2), "SAME", (2, 3)),
    ((2, 5, 5, 2), (3, 3), (2, 2), [[0, 0], [1, 2], [0, 1], [0, 0]], (1, 1)),
    ((1, 4, 4, 3), (1, 1), (1, 1), "VALID", (1, 1)),
]


@pytest.mark.parametrize("shape,k,strides,padding,dil", CASES)
def test_conv2d_matches_reference(shape, k, strides, padding, dil):
    x = RNG.standard_normal(shape)
    w = RNG.standard_normal(k + (shape[3], 4))
    got = tf.nn.conv2d(tf.constant(x), tf.constant(w), list(strides), padding, dilations=list(dil))
    np.testing.assert_allclose(got.numpy(), ref_conv2d(x, w, strides, padding, dil), rtol=1e-10, atol=1e-10)


def test_conv2d_float32_and_stride_forms():
    x = RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 3, 5)).astype(np.float32)
    ref = ref_conv2d(x.astype(np.float64), w.astype(np.float64), (2, 2), "SAME")
    for strides in (2, [2], [2, 2], [1, 2, 2, 1]):
        got = tf.nn.conv2d(x, w, strides, "SAME")
        assert got.dtype == tf.float32
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-4, atol=1e-4)


def test_conv2d_float16_computes():
    x = RNG.standard_normal((1, 5, 5, 2)).astype(np.float16)
    w = RNG.standard_normal((3, 3, 2, 2)).astype(np.float16)
    got = tf.nn.conv2d(x, w, 1, "SAME")
    assert got.dtype == tf.float16
    ref = ref_conv2d(x.astype(np.float64), w.astype(np.float64), (1, 1), "SAME")
    np.testing.assert_allclose(got.numpy().astype(np.float64), ref, rtol=2e-2, atol=2e-2)


def test_conv2d_same_stride2_pads_extra_pixel_at_end():
    # 4x4 input, 3x3 kernel, stride 2: out 2x2, pad_total 1 -> top 0, bottom 1 (left 0, right 1)
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    w = np.ones((3, 3, 1, 1), np.float32)
    got = tf.nn.conv2d(x, w, 2, "SAME").numpy()[0, :, :, 0]
    np.testing.assert_array_equal(got, [[45, 39], [66, 50]])


def test_conv2d_same_odd_size_stride2():
    # 5x5 of ones, 2x2 kernel, stride 2: out 3x3, the single padded row/column is at the end
    got = tf.nn.conv2d(np.ones((1, 5, 5, 1), np.float32), np.ones((2, 2, 1, 1), np.float32), 2, "SAME")
    np.testing.assert_array_equal(got.numpy()[0, :, :, 0], [[4, 4, 2], [4, 4, 2], [2, 2, 1]])
    got = tf.nn.conv2d(np.ones((1, 5, 5, 1), np.float32), np.ones((2, 2, 1, 1), np.float32), 2, "VALID")
    assert got.shape == (1, 2, 2, 1)


def test_conv2d_nchw():
    x = RNG.standard_normal((2, 3, 5, 6))
    w = RNG.standard_normal((3, 3, 3, 4))
    got = tf.nn.conv2d(x, w, [1, 1, 2, 2], "SAME", data_format="NCHW")
    ref = ref_conv2d(x.transpose(0, 2, 3, 1), w, (2, 2), "SAME").transpose(0, 3, 1, 2)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-10)


def test_conv2d_large_batch_is_chunked(monkeypatch):
    from tfcore.ops import conv_ops

    monkeypatch.setattr(conv_ops, "_COLS_LIMIT", 200)  # forces one im2col chunk per example
    x = RNG.standard_normal((5, 6, 6, 2))
    w = RNG.standard_normal((3, 3, 2, 3))
    np.testing.assert_allclose(tf.nn.conv2d(x, w, 1, "SAME").numpy(), ref_conv2d(x, w, (1, 1), "SAME"),
                               rtol=1e-10, atol=1e-10)
    dy = RNG.standard_normal((5, 6, 6, 3))
    with tf.GradientTape() as tape:
        wt = tf.constant(w)
        tape.watch(wt)
        y = tf.nn.conv2d(x, wt, 1, "SAME")
    gw = tape.gradient(y, wt, output_gradients=tf.constant(dy))
    ref = np.einsum("nhwijc,nhwo->ijco", _patches(x, 3, 3), dy)
    np.testing.assert_allclose(gw.numpy(), ref, rtol=1e-9, atol=1e-9)


def _patches(x, kh, kw):
    """[N, H, W, kh, kw, C] SAME stride-1 patches (reference for the filter gradient)."""
    pt, pl = (kh - 1) // 2, (kw - 1) // 2
    xp = np.pad(x, ((0, 0), (pt, kh - 1 - pt), (pl, kw - 1 - pl), (0, 0)))
    n, h, w, c = x.shape
    out = np.zeros((n, h, w, kh, kw, c))
    for i in range(kh):
        for j in range(kw):
            out[:, :, :, i, j, :] = xp[:, i:i + h, j:j + w, :]
    return out


@pytest.mark.parametrize("shape,k,strides,padding,dil", [
    ((1, 5, 5, 2), (3, 3), (1, 1), "SAME", (1, 1)),
    ((2, 5, 4, 2), (3, 2), (1, 1), "VALID", (1, 1)),
    ((1, 5, 7, 2), (3, 3), (2, 2), "SAME", (1, 1)),
    ((1, 6, 5, 1), (2, 3), (2, 2), "VALID", (1, 1)),
    ((1, 7, 7, 2), (3, 3), (1, 1), "SAME", (2, 2)),
    ((1, 7, 6, 1), (2, 2), (2, 2), "VALID", (2, 2)),
    ((1, 5, 5, 1), (2, 2), (2, 1), [[0, 0], [2, 1], [1, 0], [0, 0]], (1, 1)),
])
def test_conv2d_gradients(shape, k, strides, padding, dil):
    x = RNG.standard_normal(shape)
    w = RNG.standard_normal(k + (shape[3], 3))
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, list(strides), padding, dilations=list(dil)), x, w)


def test_conv2d_backprop_ops_are_the_gradients():
    x = RNG.standard_normal((2, 6, 5, 3))
    w = RNG.standard_normal((3, 3, 3, 4))
    dy = RNG.standard_normal((2, 3, 3, 4))
    with tf.GradientTape(persistent=True) as tape:
        xt, wt = tf.constant(x), tf.constant(w)
        tape.watch([xt, wt])
        y = tf.nn.conv2d(xt, wt, 2, "SAME")
    gx, gw = tape.gradient(y, [xt, wt], output_gradients=tf.constant(dy))
    bi = tf.nn.conv2d_backprop_input([2, 6, 5, 3], w, dy, 2, "SAME")
    bf = tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, 2, "SAME")
    np.testing.assert_allclose(bi.numpy(), gx.numpy(), rtol=1e-12)
    np.testing.assert_allclose(bf.numpy(), gw.numpy(), rtol=1e-12)
    # the adjoint identity <conv(x), dy> == <x, backprop_input(dy)> pins the input gradient down
    lhs = np.sum(ref_conv2d(x, w, (2, 2), "SAME") * dy)
    np.testing.assert_allclose(lhs, np.sum(x * gx.numpy()), rtol=1e-10)


def test_conv2d_transpose_is_adjoint_of_conv2d():
    # filters [kh, kw, out_channels, in_channels] as TF; output_shape is the conv input shape
    w = RNG.standard_normal((3, 3, 2, 4))
    x = RNG.standard_normal((1, 3, 3, 4))
    y = tf.nn.conv2d_transpose(x, w, [1, 6, 6, 2], 2, "SAME")
    assert y.shape == (1, 6, 6, 2)
    probe = RNG.standard_normal((1, 6, 6, 2))
    np.testing.assert_allclose(np.sum(y.numpy() * probe), np.sum(x * ref_conv2d(probe, w, (2, 2), "SAME")),
                               rtol=1e-10)
    check_gradients(lambda a, b: tf.nn.conv2d_transpose(a, b, [1, 5, 5, 2], 2, "SAME"),
                    RNG.standard_normal((1, 3, 3, 4)), w)


def test_conv2d_transpose_known_values():
    # 1x1 input of 1 through a 2x2 filter, stride 2, VALID -> the filter itself
    w = np.arange(4, dtype=np.float32).reshape(2, 2, 1, 1)
    y = tf.nn.conv2d_transpose(np.ones((1, 1, 1, 1), np.float32), w, [1, 2, 2, 1], 2, "VALID")
    np.testing.assert_array_equal(y.numpy()[0, :, :, 0], [[0, 1], [2, 3]])


def test_conv1d():
    x = RNG.standard_normal((2, 9, 3))
    w = RNG.standard_normal((3, 3, 4))
    got = tf.nn.conv1d(x, w, 2, "SAME")
    ref = ref_conv2d(x[:, None], w[None], (1, 2), "SAME")[:, 0]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-10)
    got = tf.nn.conv1d(x.transpose(0, 2, 1), w, 1, "VALID", data_format="NCW")
    np.testing.assert_allclose(got.numpy(), ref_conv2d(x[:, None], w[None])[:, 0].transpose(0, 2, 1), rtol=1e-10)
    check_gradients(lambda a, b: tf.nn.conv1d(a, b, 1, "SAME", dilations=2), x[:1, :6], w[:, :, :2])


@pytest.mark.parametrize("shape,k,mult,strides,padding,dil", [
    ((2, 5, 6, 3), (3, 3), 2, (1, 1), "SAME", (1, 1)),
    ((1, 7, 6, 2), (3, 2), 1, (2, 2), "SAME", (1, 1)),
    ((1, 6, 6, 2), (2, 2), 3, (1, 1), "VALID", (2, 2)),
    ((2, 9, 8, 4), (4, 4), 1, (1, 1), "SAME", (1, 1)),   # multiplier 1 (its own path): asymmetric pads
    ((1, 9, 9, 3), (3, 3), 1, (1, 2), "VALID", (2, 2)),
])
def test_depthwise_conv2d(shape, k, mult, strides, padding, dil):
    x = RNG.standard_normal(shape)
    w = RNG.standard_normal(k + (shape[3], mult))
    got = tf.nn.depthwise_conv2d(x, w, [1, *strides, 1], padding, dilations=list(dil))
    np.testing.assert_allclose(got.numpy(), ref_depthwise(x, w, strides, padding, dil), rtol=1e-10, atol=1e-10)
    small_x = x[:1]
    check_gradients(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, *strides, 1], padding, dilations=list(dil)),
                    small_x, w)


def test_depthwise_channel_order_is_c_times_multiplier_plus_m():
    x = np.zeros((1, 1, 1, 2))
    x[..., 1] = 1.0
    w = np.arange(6, dtype=np.float64).reshape(1, 1, 2, 3)  # channel 1 has multipliers 3, 4, 5
    got = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID").numpy().ravel()
    np.testing.assert_array_equal(got, [0, 0, 0, 3, 4, 5])


def test_separable_conv2d():
    x = RNG.standard_normal((1, 5, 5, 2))
    dw = RNG.standard_normal((3, 3, 2, 2))
    pw = RNG.standard_normal((1, 1, 4, 3))
    got = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME")
    ref = ref_conv2d(ref_depthwise(x, dw, (1, 1), "SAME"), pw)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-10)


def test_conv_errors_name_op_shapes_dtypes():
    x = tf.zeros([1, 5, 5, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Conv2D.*float32\[5, 5, 3\]"):
        tf.nn.conv2d(tf.zeros([5, 5, 3]), tf.zeros([3, 3, 3, 2]), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Conv2D.*depth 3.*in_channels 4.*float32\[3, 3, 4, 2\]"):
        tf.nn.conv2d(x, tf.zeros([3, 3, 4, 2]), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Conv2D.*float32\[1, 5, 5, 3\].*float64"):
        tf.nn.conv2d(x, tf.zeros([3, 3, 3, 2], tf.float64), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Conv2D.*negative"):
        tf.nn.conv2d(x, tf.zeros([7, 7, 3, 2]), 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="DepthwiseConv2dNative"):
        tf.nn.depthwise_conv2d(x, tf.zeros([3, 3, 2, 1]), [1, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Conv2DBackpropInput"):
        tf.nn.conv2d_transpose(tf.zeros([1, 3, 3, 2]), tf.zeros([3, 3, 4, 2]), [1, 9, 9, 4], 2, "SAME")
    with pytest.raises(ValueError):
        tf.nn.conv2d(x, tf.zeros([3, 3, 3, 2]), [1, 1, 1], "SAME")
    with pytest.raises(ValueError):
        tf.nn.conv2d(x, tf.zeros([3, 3, 3, 2]), 1, "FULL")
