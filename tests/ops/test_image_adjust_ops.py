"""tf.image colour spaces, adjustments, quality measures, crop_and_resize, resize_with_pad, random crops and
non-max suppression: TF's documented examples and NumPy float64 references."""

import colorsys

import numpy as np
import pytest

import tfcore as tf

X = np.arange(1.0, 13.0).reshape(2, 2, 3)  # the image of TF's docstring examples
rng = np.random.default_rng(5)
IMGS = rng.uniform(size=(2, 6, 7, 3))


def test_documented_adjustments():
    np.testing.assert_allclose(tf.image.adjust_contrast(X, 2.0).numpy(),
                               [[[-3.5, -2.5, -1.5], [2.5, 3.5, 4.5]], [[8.5, 9.5, 10.5], [14.5, 15.5, 16.5]]])
    np.testing.assert_allclose(tf.image.adjust_hue(X, 0.2).numpy(),
                               [[[2.4, 1.0, 3.0], [5.4, 4.0, 6.0]], [[8.4, 7.0, 9.0], [11.4, 10.0, 12.0]]], rtol=1e-6)
    np.testing.assert_allclose(tf.image.adjust_saturation(X, 0.5).numpy(),
                               [[[2.0, 2.5, 3.0], [5.0, 5.5, 6.0]], [[8.0, 8.5, 9.0], [11.0, 11.5, 12.0]]], rtol=1e-6)
    np.testing.assert_allclose(tf.image.adjust_gamma(X, 0.2).numpy(), X ** 0.2)
    np.testing.assert_allclose(tf.image.adjust_gamma(X, 2.0, gain=0.5).numpy(), 0.5 * X ** 2)
    np.testing.assert_allclose(tf.image.rgb_to_yiq([1.0, 2.0, 3.0]).numpy(), [1.815, -0.91724455, 0.09962624],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Gamma"):
        tf.image.adjust_gamma(X, -1.0)
    u8 = (IMGS[0] * 255).astype(np.uint8)
    out = tf.image.adjust_contrast(u8, 3.0)
    assert out.dtype == tf.uint8  # integer images come back in their dtype, saturated


def test_colour_spaces_match_colorsys():
    hsv = tf.image.rgb_to_hsv(IMGS).numpy()
    ref = np.array([colorsys.rgb_to_hsv(*p) for p in IMGS.reshape(-1, 3)]).reshape(IMGS.shape)
    np.testing.assert_allclose(hsv, ref, atol=1e-12)
    np.testing.assert_allclose(tf.image.hsv_to_rgb(hsv).numpy(), IMGS, atol=1e-12)
    np.testing.assert_allclose(tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(IMGS)).numpy(), IMGS, atol=1e-12)
    yuv = tf.image.rgb_to_yuv(IMGS).numpy()
    np.testing.assert_allclose(yuv[..., 0], IMGS @ np.array([0.299, 0.587, 0.114]), atol=1e-12)
    np.testing.assert_allclose(tf.image.yuv_to_rgb(yuv).numpy(), IMGS, atol=1e-12)
    gray = np.full((1, 1, 3), 0.5)
    np.testing.assert_allclose(tf.image.rgb_to_hsv(gray).numpy(), [[[0.0, 0.0, 0.5]]])


def test_random_and_stateless_adjustments():
    x = tf.constant(IMGS.astype(np.float32))
    d = (tf.image.random_brightness(x, 0.2, seed=3) - x).numpy()
    assert np.ptp(d) < 1e-6 and abs(d.flat[0]) <= 0.2
    c = tf.image.random_contrast(x, 0.5, 1.5, seed=4).numpy()
    mean = IMGS.mean(axis=(1, 2), keepdims=True)
    factor = (c - mean) / (IMGS - mean)
    assert 0.5 <= np.median(factor) < 1.5
    assert tf.image.random_hue(x, 0.1, seed=1).shape == x.shape
    assert tf.image.random_saturation(x, 0.2, 0.8, seed=2).shape == x.shape
    for fn, args in [(tf.image.stateless_random_brightness, (0.3,)), (tf.image.stateless_random_contrast, (0.2, 0.9)),
                     (tf.image.stateless_random_hue, (0.2,)), (tf.image.stateless_random_saturation, (0.2, 0.9)),
                     (tf.image.stateless_random_flip_left_right, ()), (tf.image.stateless_random_flip_up_down, ())]:
        a = fn(x, *args, seed=(1, 2)).numpy()
        b = fn(x, *args, seed=(1, 2)).numpy()
        np.testing.assert_array_equal(a, b)
    flips = tf.image.stateless_random_flip_left_right(x, seed=(3, 4)).numpy()
    for i in range(2):
        assert np.array_equal(flips[i], IMGS[i].astype(np.float32)) or \
            np.array_equal(flips[i], IMGS[i, :, ::-1].astype(np.float32))
    assert tf.image.random_flip_up_down(x, seed=5).shape == x.shape
    crop = tf.image.random_crop(x, [2, 3, 4, 3], seed=6).numpy()
    hits = [(i, j) for i in range(4) for j in range(4) if np.array_equal(crop, IMGS[:, i:i + 3, j:j + 4]
                                                                         .astype(np.float32))]
    assert len(hits) == 1
    np.testing.assert_array_equal(tf.image.stateless_random_crop(x, [1, 2, 2, 3], seed=(7, 8)).numpy(),
                                  tf.image.stateless_random_crop(x, [1, 2, 2, 3], seed=(7, 8)).numpy())
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.random_contrast(x, 1.0, 0.5)
    with pytest.raises(ValueError, match="max_delta"):
        tf.image.random_hue(x, 0.7)
    with pytest.raises(tf.errors.InvalidArgumentError, match="random_crop"):
        tf.image.random_crop(x, [3, 3, 3, 3])


def test_gradients_edges_variation_transpose():
    img = np.arange(25.0).reshape(1, 5, 5, 1)
    dy, dx = tf.image.image_gradients(img)
    assert np.all(dy.numpy()[0, :4] == 5) and np.all(dy.numpy()[0, 4] == 0)
    assert np.all(dx.numpy()[0, :, :4] == 1) and np.all(dx.numpy()[0, :, 4] == 0)
    edges = tf.image.sobel_edges(IMGS).numpy()
    padded = np.pad(IMGS, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], float)
    ref = np.zeros(IMGS.shape + (2,))
    for i in range(6):
        for j in range(7):
            win = padded[:, i:i + 3, j:j + 3, :]
            ref[:, i, j, :, 0] = np.einsum("bhwc,hw->bc", win, ky)
            ref[:, i, j, :, 1] = np.einsum("bhwc,hw->bc", win, ky.T)
    np.testing.assert_allclose(edges, ref, atol=1e-12)
    tv = np.abs(np.diff(IMGS, axis=1)).sum((1, 2, 3)) + np.abs(np.diff(IMGS, axis=2)).sum((1, 2, 3))
    np.testing.assert_allclose(tf.image.total_variation(IMGS).numpy(), tv)
    np.testing.assert_allclose(tf.image.total_variation(IMGS[0]).numpy(), tv[0])
    np.testing.assert_array_equal(tf.image.transpose(IMGS).numpy(), IMGS.transpose(0, 2, 1, 3))


def _ssim_reference(a, b, max_val, size, sigma=1.5, k1=0.01, k2=0.03):
    coords = np.arange(size) - (size - 1) / 2
    g = np.exp(-0.5 * (coords / sigma) ** 2)
    g /= g.sum()
    w = np.outer(g, g)
    h, wd = a.shape[1] - size + 1, a.shape[2] - size + 1

    def filt(z):
        out = np.zeros((z.shape[0], h, wd, z.shape[3]))
        for i in range(h):
            for j in range(wd):
                out[:, i, j] = np.einsum("bhwc,hw->bc", z[:, i:i + size, j:j + size], w)
        return out

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    ma, mb = filt(a), filt(b)
    lum = (2 * ma * mb + c1) / (ma ** 2 + mb ** 2 + c1)
    cs = (2 * filt(a * b) - 2 * ma * mb + c2) / (filt(a * a + b * b) - ma ** 2 - mb ** 2 + c2)
    return (lum * cs).mean(axis=(1, 2, 3))


def test_psnr_and_ssim_match_numpy():
    other = np.clip(IMGS + rng.normal(0, 0.1, IMGS.shape), 0, 1)
    mse = ((IMGS - other) ** 2).mean(axis=(1, 2, 3))
    np.testing.assert_allclose(tf.image.psnr(IMGS, other, 1.0).numpy(), 10 * np.log10(1.0 / mse), rtol=1e-10)
    np.testing.assert_allclose(tf.image.ssim(IMGS, other, 1.0, filter_size=3).numpy(),
                               _ssim_reference(IMGS, other, 1.0, 3), rtol=1e-9)
    np.testing.assert_allclose(tf.image.ssim(IMGS, IMGS, 1.0).numpy(), [1.0, 1.0], rtol=1e-9)
    assert tf.image.ssim(IMGS, other, 1.0, filter_size=3, return_index_map=True).shape == (2, 4, 5)
    big = rng.uniform(size=(1, 48, 48, 1))
    np.testing.assert_allclose(tf.image.ssim_multiscale(big, big, 1.0, filter_size=3).numpy(), [1.0], rtol=1e-9)
    noisy = np.clip(big + rng.normal(0, 0.2, big.shape), 0, 1)
    assert 0.0 < tf.image.ssim_multiscale(big, noisy, 1.0, filter_size=3).numpy()[0] < 1.0


def _crop_and_resize_reference(image, boxes, idx, size, extrapolation=0.0):
    n = len(boxes)
    ch, cw = size
    _, h, w, c = image.shape
    out = np.zeros((n, ch, cw, c))
    for k, ((y1, x1, y2, x2), b) in enumerate(zip(boxes, idx)):
        for i in range(ch):
            y = y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1) if ch > 1 else 0.5 * (y1 + y2) * (h - 1)
            for j in range(cw):
                x = x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1) if cw > 1 else 0.5 * (x1 + x2) * (w - 1)
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[k, i, j] = extrapolation
                    continue
                y0, x0, y1_, x1_ = int(np.floor(y)), int(np.floor(x)), int(np.ceil(y)), int(np.ceil(x))
                ly, lx = y - y0, x - x0
                top = image[b, y0, x0] + (image[b, y0, x1_] - image[b, y0, x0]) * lx
                bot = image[b, y1_, x0] + (image[b, y1_, x1_] - image[b, y1_, x0]) * lx
                out[k, i, j] = top + (bot - top) * ly
    return out


def test_crop_and_resize_matches_reference_and_differentiates():
    boxes = np.array([[0.0, 0.0, 1.0, 1.0], [0.1, 0.2, 0.7, 0.9], [-0.2, 0.5, 0.5, 1.3]])
    idx = [0, 1, 1]
    got = tf.image.crop_and_resize(IMGS, boxes, idx, [4, 3], extrapolation_value=-1.0).numpy()
    np.testing.assert_allclose(got, _crop_and_resize_reference(IMGS, boxes, idx, (4, 3), -1.0), atol=1e-12)
    near = tf.image.crop_and_resize(IMGS, boxes[:1], [0], [6, 7], method="nearest").numpy()
    np.testing.assert_allclose(near, IMGS[:1])
    image = tf.Variable(IMGS)
    bx = tf.Variable(boxes[:2])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.image.crop_and_resize(image, bx, idx[:2], [3, 3]) ** 2)
    gi, gb = tape.gradient(loss, [image, bx])
    assert gi.shape == IMGS.shape and np.any(gb.numpy() != 0)


def test_resize_with_pad():
    img = rng.uniform(size=(4, 2, 1))
    out = tf.image.resize_with_pad(img, 4, 4).numpy()
    assert out.shape == (4, 4, 1)
    np.testing.assert_allclose(out[:, 1:3], img.astype(np.float32), rtol=1e-6)
    assert np.all(out[:, 0] == 0) and np.all(out[:, 3] == 0)
    assert tf.image.resize_with_pad(IMGS, 10, 10).shape == (2, 10, 10, 3)


def test_non_max_suppression():
    boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]]
    scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]
    np.testing.assert_array_equal(tf.image.non_max_suppression(boxes, scores, 3, 0.5).numpy(), [3, 0, 5])
    np.testing.assert_array_equal(tf.image.non_max_suppression(boxes, scores, 10, 0.5, score_threshold=0.4)
                                  .numpy(), [3, 0])
    idx, sc = tf.image.non_max_suppression_with_scores(boxes, scores, 6, 1.0, soft_nms_sigma=0.5)
    assert idx.numpy()[0] == 3 and len(idx.numpy()) == 6 and sc.numpy()[0] == pytest.approx(0.95)
    assert np.all(np.diff(sc.numpy()) <= 1e-7)
    padded, valid = tf.image.non_max_suppression_padded(boxes, scores, 5, 0.5, pad_to_max_output_size=True)
    np.testing.assert_array_equal(padded.numpy(), [3, 0, 5, 0, 0])
    assert int(valid.numpy()) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="iou_threshold"):
        tf.image.non_max_suppression(boxes, scores, 3, 1.5)


def test_extract_patches_draw_boxes_combined_nms():
    x = rng.standard_normal((2, 5, 6, 3))
    p = tf.image.extract_patches(x, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID").numpy()
    assert p.shape == (2, 2, 2, 18)
    np.testing.assert_array_equal(p[1, 1, 0], x[1, 2:4, 0:3].reshape(-1))
    same = tf.image.extract_patches(x, [1, 3, 3, 1], [1, 1, 1, 1], [1, 2, 2, 1], "SAME").numpy()
    padded = np.pad(x, [(0, 0), (2, 2), (2, 2), (0, 0)])
    np.testing.assert_array_equal(same[0, 0, 0], padded[0, 0:5:2, 0:5:2].reshape(-1))
    canvas = tf.image.draw_bounding_boxes(np.zeros((1, 5, 5, 1), np.float32), [[[0.0, 0.0, 0.5, 0.5]]], [[1.0]])
    np.testing.assert_array_equal(canvas.numpy()[0, :3, :3, 0], [[1, 1, 1], [1, 0, 1], [1, 1, 1]])
    assert canvas.numpy()[0, 3:, :, 0].sum() == 0
    boxes = np.array([[[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]], [[0, 10, 1, 11]]]], np.float32)
    scores = np.array([[[0.9, 0.1], [0.8, 0.7], [0.3, 0.95]]], np.float32)
    nb, ns, nc, valid = tf.image.combined_non_max_suppression(boxes, scores, 2, 4, 0.5, 0.0, clip_boxes=False)
    np.testing.assert_allclose(ns.numpy(), [[0.95, 0.9, 0.7, 0.3]])
    np.testing.assert_array_equal(nc.numpy(), [[1, 0, 1, 0]])
    np.testing.assert_array_equal(nb.numpy()[0, 0], [0, 10, 1, 11])
    assert valid.numpy().tolist() == [4]
    clipped = tf.image.combined_non_max_suppression(boxes, scores, 2, 2, 0.5, 0.0)[0].numpy()
    assert clipped.max() <= 1.0 and clipped.shape == (1, 2, 4)
