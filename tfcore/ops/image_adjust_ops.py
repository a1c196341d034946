"""``tf.image`` colour spaces, adjustments (contrast, gamma, hue, saturation), their random and stateless
variants, quality measures (PSNR, SSIM, total variation), gradients/Sobel edges, ``crop_and_resize``,
``resize_with_pad``, ``random_crop`` and non-max suppression.

Everything but non-max suppression is a composition of registered ops, written after TF's
``image_ops_impl.py`` formulas, so it runs on every device and is differentiable where TF is.
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import array_ops as _a
from . import math_ops as _m
from . import random_ops, stateless_random_ops
from . import reduce_ops as _r
from ._common import as_tensor, describe
from .conv_nd_ops import _ints, _pads, _windows
from .conv_ops import depthwise_conv2d
from .image_ops import ResizeMethod, _check_image, adjust_brightness, convert_image_dtype, pad_to_bounding_box, resize
from .nn_ops import relu
from .pool_ops import avg_pool2d
from .registry import Op, execute

__all__ = [
    "rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "adjust_contrast",
    "adjust_gamma", "adjust_hue", "adjust_saturation", "random_brightness", "random_contrast", "random_hue",
    "random_saturation", "random_crop", "stateless_random_brightness", "stateless_random_contrast",
    "stateless_random_hue", "stateless_random_saturation", "stateless_random_crop",
    "stateless_random_flip_left_right", "stateless_random_flip_up_down", "image_gradients", "sobel_edges",
    "total_variation", "transpose", "psnr", "ssim", "ssim_multiscale", "crop_and_resize", "resize_with_pad",
    "non_max_suppression", "non_max_suppression_with_scores", "non_max_suppression_padded", "extract_patches",
    "draw_bounding_boxes", "combined_non_max_suppression",
]


def _to_float(image):
    t = as_tensor(image)
    return t, (t if t.dtype.is_floating else convert_image_dtype(t, dtypes.float32))


def _back(orig, out):
    return out if orig.dtype.is_floating else convert_image_dtype(out, orig.dtype, saturate=True)


def _channels3(t, op_name):
    if t.shape.ndims is None or t.shape[-1] != 3:
        raise ValueError(f"{op_name}: the last dimension must be 3 (RGB), got shape {t.shape.as_list()}")


# -- colour spaces ---------------------------------------------------------------------------------------

def rgb_to_hsv(images, name=None):
    """``tf.image.rgb_to_hsv``: float RGB in [0, 1] -> hue, saturation, value in [0, 1]."""
    x = as_tensor(images)
    _channels3(x, "rgb_to_hsv")
    r, g, b = _a.unstack(x, axis=-1)
    value = _r.reduce_max(x, axis=-1)
    delta = _m.subtract(value, _r.reduce_min(x, axis=-1))
    sat = _m.divide_no_nan(delta, value)
    safe = _m.where(_m.greater(delta, 0.0), delta, _a.ones_like(delta))
    hue_r = _m.divide(_m.subtract(g, b), safe)
    hue_g = _m.add(_m.divide(_m.subtract(b, r), safe), 2.0)
    hue_b = _m.add(_m.divide(_m.subtract(r, g), safe), 4.0)
    hue = _m.where(_m.equal(value, r), hue_r, _m.where(_m.equal(value, g), hue_g, hue_b))
    hue = _m.floormod(_m.divide(hue, 6.0), 1.0)
    hue = _m.where(_m.greater(delta, 0.0), hue, _a.zeros_like(hue))
    return _a.stack([hue, sat, value], axis=-1)


def hsv_to_rgb(images, name=None):
    """``tf.image.hsv_to_rgb``: the inverse of :func:`rgb_to_hsv` (TF's piecewise-linear formula)."""
    x = as_tensor(images)
    _channels3(x, "hsv_to_rgb")
    h, s, v = _a.unstack(x, axis=-1)
    dh = _m.multiply(h, 6.0)
    dr = _m.clip_by_value(_m.subtract(_m.abs(_m.subtract(dh, 3.0)), 1.0), 0.0, 1.0)
    dg = _m.clip_by_value(_m.subtract(2.0, _m.abs(_m.subtract(dh, 2.0))), 0.0, 1.0)
    db = _m.clip_by_value(_m.subtract(2.0, _m.abs(_m.subtract(dh, 4.0))), 0.0, 1.0)
    one_minus_s = _m.subtract(1.0, s)
    return _a.stack([_m.multiply(_m.add(one_minus_s, _m.multiply(s, c)), v) for c in (dr, dg, db)], axis=-1)


_YIQ = np.array([[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]])
_YUV = np.array([[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
                 [0.114, 0.43601035, -0.10001026]])


def _mix(images, kernel, op_name):
    x = as_tensor(images)
    _channels3(x, op_name)
    k = _convert(kernel.astype(x.dtype.as_numpy_dtype), device=x._device)
    return _m.tensordot(x, k, axes=[[x.ndim - 1], [0]])


def rgb_to_yiq(images):
    """``tf.image.rgb_to_yiq``."""
    return _mix(images, _YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    """``tf.image.yiq_to_rgb``."""
    return _mix(images, np.linalg.inv(_YIQ), "yiq_to_rgb")


def rgb_to_yuv(images):
    """``tf.image.rgb_to_yuv``."""
    return _mix(images, _YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    """``tf.image.yuv_to_rgb``."""
    return _mix(images, np.linalg.inv(_YUV), "yuv_to_rgb")


# -- adjustments -----------------------------------------------------------------------------------------

def _adjust_contrast_rule(op, ts, attrs):
    images, factor = ts
    if not images._dtype.is_floating or factor._array.ndim != 0:
        raise InvalidArgumentError(None, None, f"AdjustContrastv2: images must be floating point and "
                                               f"contrast_factor a scalar, got {describe(ts)}")
    return images._dtype


def _no_gradient_defined(call, *dys):
    # TF registers no gradient for AdjustContrastv2: a tape that reaches it raises LookupError (the autodiff
    # guide shows it); tfcore's composition would have differentiated silently
    name = call.op.name
    raise LookupError(f"gradient registry has no entry for: {name}")  # TF 2.21's eager message, one line


_no_gradient_defined.raises_lookup_error = True  # recorded by tapes so that reaching it raises, not differentiable
ADJUST_CONTRAST = Op("AdjustContrastv2", rule=_adjust_contrast_rule, grad=_no_gradient_defined)


@ADJUST_CONTRAST.kernel()
def _adjust_contrast(b, images, factor):
    mean = images.mean(axis=(-3, -2), keepdims=True, dtype=np.float64 if images.dtype == np.float64
                       else np.float32).astype(images.dtype)
    out = images - mean
    out *= factor.astype(images.dtype)
    out += mean
    return out


def adjust_contrast(images, contrast_factor):
    """``tf.image.adjust_contrast``: ``(x - mean) * contrast_factor + mean`` per image and channel (the mean
    over height and width). One op, ``AdjustContrastv2``, with no gradient, as in TF."""
    orig, x = _to_float(images)
    if x.ndim < 3:
        raise ValueError(f"adjust_contrast: images must be at least 3-D, got shape {x.shape.as_list()}")
    factor = _m.cast(as_tensor(contrast_factor), x.dtype)
    return _back(orig, execute(ADJUST_CONTRAST, (x, factor), {}))


def adjust_gamma(image, gamma=1, gain=1):
    """``tf.image.adjust_gamma``: ``gain * image ** gamma`` (in [0, 1] float space for integer images)."""
    orig, x = _to_float(image)
    if isinstance(gamma, int | float) and gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    out = _m.multiply(_m.pow(x, _m.cast(as_tensor(gamma), x.dtype)), _m.cast(as_tensor(gain), x.dtype))
    return _back(orig, out)


def adjust_hue(image, delta, name=None):
    """``tf.image.adjust_hue``: rotate the hue by ``delta`` (a fraction of the colour circle, in [-1, 1])."""
    orig, x = _to_float(image)
    if isinstance(delta, int | float) and not -1.0 <= delta <= 1.0:
        raise InvalidArgumentError(None, None, f"AdjustHue: delta must be in the interval [-1, 1], got {delta}")
    h, s, v = _a.unstack(rgb_to_hsv(x), axis=-1)
    h = _m.floormod(_m.add(h, _m.cast(as_tensor(delta), x.dtype)), 1.0)
    return _back(orig, hsv_to_rgb(_a.stack([h, s, v], axis=-1)))


def adjust_saturation(image, saturation_factor, name=None):
    """``tf.image.adjust_saturation``: scale the HSV saturation (clipped to [0, 1])."""
    orig, x = _to_float(image)
    h, s, v = _a.unstack(rgb_to_hsv(x), axis=-1)
    s = _m.clip_by_value(_m.multiply(s, _m.cast(as_tensor(saturation_factor), x.dtype)), 0.0, 1.0)
    return _back(orig, hsv_to_rgb(_a.stack([h, s, v], axis=-1)))


def _uniform(lo, hi, seed, stateless):
    if stateless:
        return float(stateless_random_ops.stateless_uniform([], seed=seed, minval=lo, maxval=hi).numpy())
    return float(random_ops.uniform([], minval=lo, maxval=hi, seed=seed).numpy())


def _check_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def _check_hue_delta(max_delta):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def random_brightness(image, max_delta, seed=None):
    """``tf.image.random_brightness``: add a delta drawn from ``[-max_delta, max_delta)``."""

    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform(-max_delta, max_delta, seed, False))


def random_contrast(image, lower, upper, seed=None):
    """``tf.image.random_contrast``: contrast factor drawn from ``[lower, upper)``."""
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform(lower, upper, seed, False))


def random_saturation(image, lower, upper, seed=None):
    """``tf.image.random_saturation``: saturation factor drawn from ``[lower, upper)``."""
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform(lower, upper, seed, False))


def random_hue(image, max_delta, seed=None):
    """``tf.image.random_hue``: hue delta drawn from ``[-max_delta, max_delta)`` (``max_delta <= 0.5``)."""
    _check_hue_delta(max_delta)
    return adjust_hue(image, _uniform(-max_delta, max_delta, seed, False))


def stateless_random_brightness(image, max_delta, seed):
    """``tf.image.stateless_random_brightness``: the same ``seed`` (shape [2]) gives the same delta."""

    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform(-max_delta, max_delta, seed, True))


def stateless_random_contrast(image, lower, upper, seed):
    """``tf.image.stateless_random_contrast``."""
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform(lower, upper, seed, True))


def stateless_random_saturation(image, lower, upper, seed=None):
    """``tf.image.stateless_random_saturation``."""
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform(lower, upper, seed, True))


def stateless_random_hue(image, max_delta, seed):
    """``tf.image.stateless_random_hue``."""
    _check_hue_delta(max_delta)
    return adjust_hue(image, _uniform(-max_delta, max_delta, seed, True))


def _flip_with(image, coins, axis_from_end):
    t = _check_image(image, "stateless_random_flip")
    axis = t.ndim - axis_from_end
    flipped = _a.reverse(t, [axis])
    if t.ndim == 3:
        return flipped if coins[0] < 0.5 else t
    mask = _convert((coins < 0.5).reshape((-1, 1, 1, 1)), device=t._device)
    return _m.where(mask, flipped, t)


def stateless_random_flip_left_right(image, seed):
    """``tf.image.stateless_random_flip_left_right``: each image flipped with probability 1/2, per ``seed``."""
    t = _check_image(image, "stateless_random_flip_left_right")
    n = 1 if t.ndim == 3 else t.shape[0]
    return _flip_with(t, stateless_random_ops.stateless_uniform([n], seed=seed).numpy(), 2)


def stateless_random_flip_up_down(image, seed):
    """``tf.image.stateless_random_flip_up_down``."""
    t = _check_image(image, "stateless_random_flip_up_down")
    n = 1 if t.ndim == 3 else t.shape[0]
    return _flip_with(t, stateless_random_ops.stateless_uniform([n], seed=seed).numpy(), 3)


def _crop_at(value, size, unit):
    t = as_tensor(value)
    shape = t.shape.as_list()
    size = [int(s) for s in (size.numpy() if hasattr(size, "numpy") else size)]
    if len(size) != len(shape) or any(s > d for s, d in zip(size, shape)):
        raise InvalidArgumentError(None, None, f"random_crop: need value.shape >= size, got {shape} and {size}")
    offsets = [int(u * (d - s + 1)) for u, d, s in zip(unit, shape, size)]
    return _a.slice(t, offsets, size)


def random_crop(value, size, seed=None, name=None):
    """``tf.image.random_crop``: a slice of shape ``size`` at a uniformly random offset."""
    n = len(as_tensor(value).shape.as_list())
    return _crop_at(value, size, random_ops.uniform([n], seed=seed).numpy() * 0.999999)


def stateless_random_crop(value, size, seed, name=None):
    """``tf.image.stateless_random_crop``: :func:`random_crop` driven by a ``[2]`` seed."""
    n = len(as_tensor(value).shape.as_list())
    return _crop_at(value, size, stateless_random_ops.stateless_uniform([n], seed=seed).numpy() * 0.999999)


# -- gradients, edges, variation ------------------------------------------------------------------------------

def image_gradients(image):
    """``tf.image.image_gradients``: ``(dy, dx)`` forward differences, zero in the last row/column."""
    t = as_tensor(image)
    if t.ndim != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {t.shape.as_list()}.")
    dy = _m.subtract(t[:, 1:], t[:, :-1])
    dx = _m.subtract(t[:, :, 1:], t[:, :, :-1])
    dy = _a.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = _a.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


def sobel_edges(image):
    """``tf.image.sobel_edges``: ``[batch, h, w, d, 2]`` Sobel responses (dy, dx) with REFLECT padding."""
    t = as_tensor(image)
    if not t.dtype.is_floating:
        t = _m.cast(t, dtypes.float32)
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    kernels = np.stack([ky, ky.T], axis=-1)  # [3, 3, 2]
    d = t.shape[-1]
    filt = np.tile(kernels[:, :, None, :], (1, 1, d, 1)).astype(t.dtype.as_numpy_dtype)
    padded = _a.pad(t, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = depthwise_conv2d(padded, _convert(filt, device=t._device), strides=[1, 1, 1, 1], padding="VALID")
    shape = t.shape.as_list()
    return _a.reshape(out, shape + [2])


def total_variation(images, name=None):
    """``tf.image.total_variation``: sum of absolute neighbour differences (per image for a batch)."""
    t = as_tensor(images)
    if t.ndim == 3:
        dh = _m.subtract(t[1:], t[:-1])
        dw = _m.subtract(t[:, 1:], t[:, :-1])
        return _m.add(_r.reduce_sum(_m.abs(dh)), _r.reduce_sum(_m.abs(dw)))
    if t.ndim == 4:
        dh = _m.subtract(t[:, 1:], t[:, :-1])
        dw = _m.subtract(t[:, :, 1:], t[:, :, :-1])
        return _m.add(_r.reduce_sum(_m.abs(dh), axis=[1, 2, 3]), _r.reduce_sum(_m.abs(dw), axis=[1, 2, 3]))
    raise ValueError("'images' must be either 3 or 4-dimensional.")


def transpose(image, name=None):
    """``tf.image.transpose``: swap height and width."""
    t = _check_image(image, "transpose")
    return _a.transpose(t, [1, 0, 2] if t.ndim == 3 else [0, 2, 1, 3])


# -- quality --------------------------------------------------------------------------------------------------

def _float_pair(a, b):
    a, b = as_tensor(a), as_tensor(b)
    if not a.dtype.is_floating:
        a, b = convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32)
    elif b.dtype is not a.dtype:
        b = _m.cast(b, a.dtype)
    if a.shape.as_list()[-3:] != b.shape.as_list()[-3:]:
        raise ValueError(f"Shapes must be compatible, got {a.shape.as_list()} and {b.shape.as_list()}")
    return a, b


def psnr(a, b, max_val, name=None):
    """``tf.image.psnr``: ``20 log10(max_val) - 10 log10(mse)`` over the last three axes."""
    x, y = _float_pair(a, b)
    mse = _r.reduce_mean(_m.squared_difference(x, y), axis=[-3, -2, -1])
    mv = _m.cast(as_tensor(max_val), x.dtype)
    return _m.subtract(_m.divide(_m.multiply(_m.log(mv), 20.0), float(np.log(10.0))),
                       _m.multiply(_m.log(mse), float(10.0 / np.log(10.0))))


def _gaussian(size, sigma, dtype):
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-0.5 * (coords / sigma) ** 2)
    g /= g.sum()
    return np.outer(g, g).astype(dtype)


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2):
    h, w, c = x.shape.as_list()[-3:]
    size = min(filter_size, h, w)
    kernel = np.tile(_gaussian(size, filter_sigma, x.dtype.as_numpy_dtype)[:, :, None, None], (1, 1, c, 1))
    k = _convert(kernel, device=x._device)
    batch_shape = x.shape.as_list()[:-3]
    x4 = _a.reshape(x, [-1, h, w, c])
    y4 = _a.reshape(y, [-1, h, w, c])

    def reduce(z):
        return depthwise_conv2d(z, k, strides=[1, 1, 1, 1], padding="VALID")

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reduce(x4), reduce(y4)
    num0 = _m.multiply(_m.multiply(mean0, mean1), 2.0)
    den0 = _m.add(_m.square(mean0), _m.square(mean1))
    luminance = _m.divide(_m.add(num0, c1), _m.add(den0, c1))
    num1 = _m.multiply(reduce(_m.multiply(x4, y4)), 2.0)
    den1 = reduce(_m.add(_m.square(x4), _m.square(y4)))
    cs = _m.divide(_m.add(_m.subtract(num1, num0), c2), _m.add(_m.subtract(den1, den0), c2))
    ssim_map = _m.multiply(luminance, cs)
    out_shape = batch_shape + ssim_map.shape.as_list()[1:]
    ssim_val = _r.reduce_mean(_a.reshape(ssim_map, out_shape), axis=[-3, -2])
    cs_val = _r.reduce_mean(_a.reshape(cs, out_shape), axis=[-3, -2])
    return ssim_val, cs_val, _a.reshape(ssim_map, out_shape)


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """``tf.image.ssim``: structural similarity with an 11x11 Gaussian window (sigma 1.5), averaged over
    positions and channels (the map of positions with ``return_index_map``)."""
    x, y = _float_pair(img1, img2)
    mv = float(max_val)
    ssim_c, _, ssim_map = _ssim_per_channel(x, y, mv, filter_size, filter_sigma, k1, k2)
    if return_index_map:
        return _r.reduce_mean(ssim_map, axis=-1)
    return _r.reduce_mean(ssim_c, axis=-1)


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """``tf.image.ssim_multiscale``: contrast-structure terms at each scale (2x2 average-pool between scales)
    and the SSIM at the coarsest, combined with ``power_factors``."""

    x, y = _float_pair(img1, img2)
    mv = float(max_val)
    batch_shape = x.shape.as_list()[:-3]
    h, w, c = x.shape.as_list()[-3:]
    x, y = _a.reshape(x, [-1, h, w, c]), _a.reshape(y, [-1, h, w, c])
    values = []
    for i in range(len(power_factors)):
        ssim_c, cs_c, _ = _ssim_per_channel(x, y, mv, filter_size, filter_sigma, k1, k2)
        values.append(relu(cs_c) if i < len(power_factors) - 1 else relu(ssim_c))
        if i < len(power_factors) - 1:
            hh, ww = x.shape[1], x.shape[2]
            pads = [[0, 0], [0, hh % 2], [0, ww % 2], [0, 0]]
            x = avg_pool2d(_a.pad(x, pads, mode="SYMMETRIC"), 2, 2, "VALID")
            y = avg_pool2d(_a.pad(y, pads, mode="SYMMETRIC"), 2, 2, "VALID")
    stacked = _a.stack(values, axis=-1)  # [n, c, scales]
    weights = _convert(np.asarray(power_factors, x.dtype.as_numpy_dtype), device=x._device)
    ms = _r.reduce_prod(_m.pow(stacked, weights), axis=-1)
    return _a.reshape(_r.reduce_mean(ms, axis=-1), batch_shape)


# -- crops and resizing ------------------------------------------------------------------------------------------

def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """``tf.image.crop_and_resize``: crops at normalised ``boxes`` ``[y1, x1, y2, x2]`` of images
    ``box_indices``, sampled to ``crop_size`` (bilinear or nearest); samples outside the image get
    ``extrapolation_value``. Differentiable with respect to the image and the boxes (bilinear)."""
    img = as_tensor(image)
    if img.ndim != 4:
        raise InvalidArgumentError(None, None, f"CropAndResize: input image must be 4-D, got {describe((img,))}")
    if not img.dtype.is_floating:
        img = _m.cast(img, dtypes.float32)
    bx = as_tensor(boxes, img.dtype) if not hasattr(boxes, "dtype") else _m.cast(as_tensor(boxes), img.dtype)
    idx = _m.cast(as_tensor(box_indices), dtypes.int32)
    if bx.ndim != 2 or bx.shape[-1] != 4 or idx.shape.as_list() != [bx.shape[0]]:
        raise InvalidArgumentError(None, None, f"CropAndResize: boxes must be [num_boxes, 4] and box_indices "
                                               f"[num_boxes], got {describe((bx, idx))}")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    ch, cw = (int(v) for v in (crop_size.numpy() if hasattr(crop_size, "numpy") else crop_size))
    _, h, w, _ = img.shape.as_list()
    y1, x1, y2, x2 = _a.unstack(bx, axis=1)

    def coords(lo, hi, n, size):
        if n > 1:
            steps = _convert(np.arange(n, dtype=img.dtype.as_numpy_dtype), device=img._device)
            scale = _m.multiply(_m.subtract(hi, lo), (size - 1) / (n - 1))
            return _m.add(_a.expand_dims(_m.multiply(lo, float(size - 1)), 1),
                          _m.multiply(_a.expand_dims(scale, 1), steps))
        return _a.expand_dims(_m.multiply(_m.add(lo, hi), 0.5 * (size - 1)), 1)

    ys, xs = coords(y1, y2, ch, h), coords(x1, x2, cw, w)  # [n, ch], [n, cw]
    valid = _m.logical_and(
        _a.expand_dims(_m.logical_and(_m.greater_equal(ys, 0.0), _m.less_equal(ys, float(h - 1))), 2),
        _a.expand_dims(_m.logical_and(_m.greater_equal(xs, 0.0), _m.less_equal(xs, float(w - 1))), 1))
    per_box = _a.gather(img, idx)  # [n, h, w, c]

    def take(yi, xi):
        yi = _m.cast(_m.clip_by_value(yi, 0.0, float(h - 1)), dtypes.int32)
        xi = _m.cast(_m.clip_by_value(xi, 0.0, float(w - 1)), dtypes.int32)
        rows = _a.gather(per_box, yi, axis=1, batch_dims=1)  # [n, ch, w, c]
        return _a.gather(rows, xi, axis=2, batch_dims=1)  # [n, ch, cw, c]

    if method == "nearest":
        out = take(_m.round(ys), _m.round(xs))
    else:
        y0, x0 = _m.floor(ys), _m.floor(xs)
        ly = _a.expand_dims(_a.expand_dims(_m.subtract(ys, y0), 2), 3)
        lx = _a.expand_dims(_a.expand_dims(_m.subtract(xs, x0), 1), 3)
        y_hi, x_hi = _m.ceil(ys), _m.ceil(xs)
        top = _m.add(take(y0, x0), _m.multiply(_m.subtract(take(y0, x_hi), take(y0, x0)), lx))
        bottom = _m.add(take(y_hi, x0), _m.multiply(_m.subtract(take(y_hi, x_hi), take(y_hi, x0)), lx))
        out = _m.add(top, _m.multiply(_m.subtract(bottom, top), ly))
    fill = _m.cast(_a.fill(out.shape.as_list(), float(extrapolation_value)), out.dtype)
    return _m.where(_a.broadcast_to(_a.expand_dims(valid, 3), out.shape.as_list()), out, fill)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, antialias=False):
    """``tf.image.resize_with_pad``: resize keeping the aspect ratio, then zero-pad to the target size."""
    t = _check_image(image, "resize_with_pad")
    h, w = t.shape[-3], t.shape[-2]
    th, tw = int(target_height), int(target_width)
    if th <= 0 or tw <= 0:
        raise ValueError("target_height and target_width must be > 0")
    ratio = max(w / tw, h / th)
    rh, rw = h / ratio, w / ratio
    resized = resize(t, [int(np.floor(rh)), int(np.floor(rw))], method=method, antialias=antialias)
    ph = max(0, int(np.floor((th - rh) / 2)))
    pw = max(0, int(np.floor((tw - rw) / 2)))
    return pad_to_bounding_box(resized, ph, pw, th, tw)


# -- non-max suppression ----------------------------------------------------------------------------------------

def _nms_rule(op, ts, attrs):
    boxes, scores = ts
    if boxes._array.ndim != 2 or boxes._array.shape[-1] != 4 or scores._array.shape != boxes._array.shape[:1]:
        raise InvalidArgumentError(None, None, f"{op.name}: boxes must be [num_boxes, 4] and scores [num_boxes], "
                                               f"got {describe(ts)}")
    return dtypes.int32, scores._dtype


NON_MAX_SUPPRESSION = Op("NonMaxSuppressionV5", rule=_nms_rule, multi_output=True)


@NON_MAX_SUPPRESSION.kernel()
def _nms(b, boxes, scores, *, max_output_size, iou_threshold, score_threshold, soft_nms_sigma):
    """Greedy selection (TF's algorithm); with ``soft_nms_sigma > 0`` overlapping scores decay by
    ``exp(-iou^2 / sigma)`` instead of being removed (Bodla et al.). Host loop: boxes are few."""
    host_boxes = np.asarray(b.to_numpy(boxes), np.float64)
    host_scores = np.asarray(b.to_numpy(scores), np.float64).copy()
    y1 = np.minimum(host_boxes[:, 0], host_boxes[:, 2])
    y2 = np.maximum(host_boxes[:, 0], host_boxes[:, 2])
    x1 = np.minimum(host_boxes[:, 1], host_boxes[:, 3])
    x2 = np.maximum(host_boxes[:, 1], host_boxes[:, 3])
    area = (y2 - y1) * (x2 - x1)
    selected, sel_scores = [], []
    active = host_scores > score_threshold
    while len(selected) < max_output_size and active.any():
        cand = np.where(active)[0]
        i = cand[np.argmax(host_scores[cand])]
        if host_scores[i] <= score_threshold:
            break
        selected.append(int(i))
        sel_scores.append(host_scores[i])
        active[i] = False
        iy1, ix1 = np.maximum(y1[i], y1), np.maximum(x1[i], x1)
        iy2, ix2 = np.minimum(y2[i], y2), np.minimum(x2[i], x2)
        inter = np.maximum(iy2 - iy1, 0) * np.maximum(ix2 - ix1, 0)
        union = area[i] + area - inter
        iou = np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)
        if soft_nms_sigma > 0:
            host_scores = np.where(active, host_scores * np.exp(-(iou * iou) / soft_nms_sigma), host_scores)
            active &= host_scores > score_threshold
        else:
            active &= ~(iou > iou_threshold)
    return b.asarray(np.asarray(selected, np.int32)), b.asarray(np.asarray(sel_scores, scores.dtype))


def _nms_call(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma):
    boxes = as_tensor(boxes)
    scores = as_tensor(scores)
    if not 0.0 <= float(iou_threshold) <= 1.0:
        raise InvalidArgumentError(None, None, f"NonMaxSuppressionV5: iou_threshold must be in [0, 1], "
                                               f"got {iou_threshold}")
    return execute(NON_MAX_SUPPRESSION, (boxes, scores), {
        "max_output_size": int(max_output_size), "iou_threshold": float(iou_threshold),
        "score_threshold": float(score_threshold), "soft_nms_sigma": float(soft_nms_sigma)})


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """``tf.image.non_max_suppression``: indices of the kept boxes, by decreasing score."""
    return _nms_call(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0)[0]


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """``tf.image.non_max_suppression_with_scores``: ``(indices, scores)``; Soft-NMS when ``soft_nms_sigma > 0``."""
    return _nms_call(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma)


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """``tf.image.non_max_suppression_padded``: ``(indices, valid_outputs)``, indices zero-padded to
    ``max_output_size`` with ``pad_to_max_output_size``."""
    idx = non_max_suppression(boxes, scores, max_output_size, iou_threshold, score_threshold)
    n = idx.shape[0]
    if pad_to_max_output_size:
        idx = _a.pad(idx, [[0, int(max_output_size) - n]])
    return idx, _convert(np.int32(n), device=idx._device)


# -- patches, boxes ------------------------------------------------------------------------------------------------

def extract_patches(images, sizes, strides, rates, padding, name=None):
    """``tf.image.extract_patches``: ``[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]`` patches
    (rows, then columns, then depth inside each patch), sampled every ``strides`` with dilation ``rates``."""

    x = as_tensor(images)
    if x.ndim != 4:
        raise ValueError(f"extract_patches: images must be 4-D, got shape {x.shape.as_list()}")
    ks, st, rt = _ints(sizes, 2, "sizes"), _ints(strides, 2, "strides"), _ints(rates, 2, "rates")
    pads = _pads(x.shape.as_list()[1:3], ks, st, rt, padding, "ExtractImagePatches")
    if any(p != (0, 0) for p in pads):
        x = _a.pad(x, [[0, 0]] + [list(p) for p in pads] + [[0, 0]])
    wins = [w for _, w in _windows(x, ks, st, rt)]  # kernel offsets in row-major order
    return _a.concat(wins, axis=-1)


def draw_bounding_boxes(images, boxes, colors, name=None):
    """``tf.image.draw_bounding_boxes``: a copy of float ``images`` with 1-pixel box outlines (boxes
    ``[batch, n, 4]`` normalised ``y_min, x_min, y_max, x_max``; box ``i`` uses ``colors[i % len(colors)]``)."""
    img = as_tensor(images)
    if img.ndim != 4:
        raise ValueError(f"draw_bounding_boxes: images must be 4-D, got shape {img.shape.as_list()}")
    host = img.numpy().copy()
    bx = np.asarray(as_tensor(boxes).numpy(), np.float64)
    cols = np.asarray(as_tensor(colors).numpy(), host.dtype)
    _, h, w, c = host.shape
    for b in range(host.shape[0]):
        for i, (y0, x0, y1, x1) in enumerate(bx[b]):
            color = cols[i % len(cols)][:c]
            top, bottom = int(np.floor(y0 * (h - 1))), int(np.floor(y1 * (h - 1)))
            left, right = int(np.floor(x0 * (w - 1))), int(np.floor(x1 * (w - 1)))
            if top > bottom or left > right or bottom < 0 or right < 0 or top >= h or left >= w:
                continue
            t, btm = max(top, 0), min(bottom, h - 1)
            lft, rgt = max(left, 0), min(right, w - 1)
            for row in (top, bottom):
                if 0 <= row < h:
                    host[b, row, lft:rgt + 1] = color
            for col in (left, right):
                if 0 <= col < w:
                    host[b, t:btm + 1, col] = color
    return _convert(host, device=img._device)


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """``tf.image.combined_non_max_suppression``: per-class NMS over a batch, then the best ``max_total_size``
    detections. Boxes ``[batch, n, q, 4]`` (``q`` 1 or num_classes), scores ``[batch, n, num_classes]``.
    Returns ``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``, zero-padded."""
    bx = np.asarray(as_tensor(boxes).numpy(), np.float32)
    sc = np.asarray(as_tensor(scores).numpy(), np.float32)
    batch, n, q, _ = bx.shape
    classes = sc.shape[-1]
    total = int(max_total_size)
    if pad_per_class:
        total = min(total, int(max_output_size_per_class) * classes)
    out_b = np.zeros((batch, total, 4), np.float32)
    out_s = np.zeros((batch, total), np.float32)
    out_c = np.zeros((batch, total), np.float32)
    valid = np.zeros(batch, np.int32)
    for i in range(batch):
        found = []
        for k in range(classes):
            cls_boxes = bx[i, :, 0 if q == 1 else k]
            idx, kept = non_max_suppression_with_scores(cls_boxes, sc[i, :, k], max_output_size_per_class,
                                                        iou_threshold, score_threshold)
            found += [(s, k, cls_boxes[j]) for j, s in zip(idx.numpy(), kept.numpy())]
        found.sort(key=lambda t: -t[0])
        found = found[:total]
        valid[i] = len(found)
        for j, (s, k, box) in enumerate(found):
            out_b[i, j] = np.clip(box, 0.0, 1.0) if clip_boxes else box
            out_s[i, j], out_c[i, j] = s, k
    return tuple(_convert(a) for a in (out_b, out_s, out_c, valid))
