"""Image ops (NHWC): resize (TF2 half-pixel centers), flips, rot90, dtype conversion, crops.

Resizing is separable: along each spatial axis an output pixel is a fixed
linear combination of input pixels. Bilinear and nearest run as gather kernels;
their gradients (and the bicubic and area methods) apply the per-axis weight
matrices with batched matmuls, which are public ops, so everything is
differentiable to any order.
"""

import enum

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import math_ops as _m
from . import random_ops, reduce_ops
from ._array_common import _host_ints
from ._common import as_tensor, describe
from .array_ops import concat, pad, reshape, reverse, transpose
from .registry import Op, execute

__all__ = [
    "ResizeMethod", "resize", "flip_left_right", "flip_up_down", "rot90", "convert_image_dtype",
    "random_flip_left_right", "random_flip_up_down", "crop_to_bounding_box", "pad_to_bounding_box",
    "central_crop", "resize_with_crop_or_pad", "per_image_standardization", "grayscale_to_rgb",
    "rgb_to_grayscale", "adjust_brightness",
]


class ResizeMethod(enum.StrEnum):
    """``tf.image.ResizeMethod``; members compare equal to TF's method strings."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# -- per-axis interpolation (host-side, tiny) -------------------------------------------------

def _bilinear_taps(in_size, out_size):
    """TF's half-pixel bilinear taps: lower/upper source index and the upper weight per output."""
    scale = np.float32(in_size / out_size)
    src = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    fl = np.floor(src)
    lo = np.maximum(fl, 0).astype(np.int64)
    hi = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    return lo, hi, (src - fl).astype(np.float32)


def _nearest_taps(in_size, out_size):
    scale = np.float32(in_size / out_size)
    src = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale)
    return np.clip(src, 0, in_size - 1).astype(np.int64)


def _bilinear_matrix(in_size, out_size):
    lo, hi, lerp = _bilinear_taps(in_size, out_size)
    w = np.zeros((out_size, in_size), np.float32)
    rows = np.arange(out_size)
    np.add.at(w, (rows, lo), 1 - lerp)
    np.add.at(w, (rows, hi), lerp)
    return w


def _nearest_matrix(in_size, out_size):
    w = np.zeros((out_size, in_size), np.float32)
    w[np.arange(out_size), _nearest_taps(in_size, out_size)] = 1
    return w


_CUBIC_TABLE = 1024


def _bicubic_matrix(in_size, out_size):
    """TF's ResizeBicubic (half-pixel, Keys a=-0.5, tabulated weights, out-of-range taps dropped)."""
    a = -0.5
    scale = np.float32(in_size / out_size)
    src = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    base = np.floor(src).astype(np.int64)
    offset = np.rint((src - base) * _CUBIC_TABLE).astype(np.int64)

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    t = offset / _CUBIC_TABLE
    tc = (_CUBIC_TABLE - offset) / _CUBIC_TABLE
    weights = np.stack([far(t + 1), near(t), near(tc), far(tc + 1)], axis=1).astype(np.float32)
    idx = base[:, None] + np.arange(-1, 3)[None, :]
    weights[(idx < 0) | (idx >= in_size)] = 0
    total = weights.sum(axis=1, keepdims=True)
    weights = np.where(np.abs(total) >= 1000 * np.finfo(np.float32).tiny, weights / total, weights)
    w = np.zeros((out_size, in_size), np.float32)
    np.add.at(w, (np.repeat(np.arange(out_size), 4), np.clip(idx, 0, in_size - 1).reshape(-1)), weights.reshape(-1))
    return w


def _area_matrix(in_size, out_size):
    """TF's ResizeArea: each output pixel averages the input span it covers (fractional overlaps)."""
    scale = in_size / out_size
    w = np.zeros((out_size, in_size), np.float64)
    for i in range(out_size):
        y0, y1 = i * scale, (i + 1) * scale
        for j in range(int(np.floor(y0)), min(int(np.ceil(y1)), in_size)):
            w[i, j] = min(j + 1, y1) - max(j, y0)
    return (w / scale).astype(np.float32)


_MATRIX = {"bilinear": _bilinear_matrix, "nearest": _nearest_matrix, "bicubic": _bicubic_matrix,
           "area": _area_matrix}


def _apply_separable(x4, wy, wx):
    """out[n,i,j,c] = sum_{h,w} wy[i,h] x[n,h,w,c] wx[j,w], with batched matmuls (public ops)."""
    n, h, w, c = x4._array.shape
    oy, ox = wy.shape[0], wx.shape[0]
    dev = x4._device
    wy_t = _convert(wy[None].astype(x4.dtype.as_numpy_dtype), device=dev)
    wx_t = _convert(wx[None].astype(x4.dtype.as_numpy_dtype), device=dev)
    t = _m.matmul(wy_t, reshape(x4, (n, h, w * c)))            # [n, oy, w*c]
    t = _m.matmul(wx_t, reshape(t, (n * oy, w, c)))            # [n*oy, ox, c]
    return reshape(t, (n, oy, ox, c))


def _resize_grad(call, g):
    x = call.inputs[0]
    _, h, w, _ = x._array.shape
    oy, ox = call.attrs["size"]
    build = _MATRIX[call.attrs["method"]]
    gx = _apply_separable(g, build(h, oy).T.copy(), build(w, ox).T.copy())
    return [_m.cast(gx, x.dtype) if gx.dtype is not x.dtype else gx]


def _resize_rule(op, ts, attrs):
    x = ts[0]
    if x._array.ndim != 4:
        raise InvalidArgumentError(None, None, f"{op.name}: input must be 4-dimensional, got {describe(ts)}")
    if x._dtype is dtypes.bool or x._dtype is dtypes.string:
        raise InvalidArgumentError(None, None, f"{op.name}: unsupported dtype, got {describe(ts)}")
    return dtypes.float32 if attrs["method"] == "bilinear" else x._dtype


_RESIZE_BILINEAR = Op("ResizeBilinear", rule=_resize_rule, grad=_resize_grad, output_arg="resized_images")
_RESIZE_NEAREST = Op("ResizeNearestNeighbor", rule=_resize_rule, grad=_resize_grad, output_arg="resized_images")


@_RESIZE_BILINEAR.kernel()
def _resize_bilinear(b, x, *, size, method):
    xp = b.xp
    _, h, w, _ = x.shape
    # host-computed taps: b.asarray refuses them inside a CUDA-graph capture (cuda_graph.HOST_STAGING_OPS)
    ylo, yhi, ly = (b.asarray(a) for a in _bilinear_taps(h, size[0]))
    xlo, xhi, lx = (b.asarray(a) for a in _bilinear_taps(w, size[1]))
    x = x.astype(xp.float32, copy=False)
    top, bottom = x[:, ylo], x[:, yhi]
    lx = lx[None, None, :, None]
    t = top[:, :, xlo] + (top[:, :, xhi] - top[:, :, xlo]) * lx
    bt = bottom[:, :, xlo] + (bottom[:, :, xhi] - bottom[:, :, xlo]) * lx
    return t + (bt - t) * ly[None, :, None, None]


@_RESIZE_NEAREST.kernel()
def _resize_nearest(b, x, *, size, method):
    _, h, w, _ = x.shape
    iy = b.asarray(_nearest_taps(h, size[0]))
    ix = b.asarray(_nearest_taps(w, size[1]))
    return x[:, iy][:, :, ix]


def _as_batch(images):
    t = as_tensor(images)
    if t._array.ndim not in (3, 4):
        raise ValueError(f"'images' must have either 3 or 4 dimensions, got shape {list(t.shape)}")
    return (reshape(t, (1,) + t._array.shape), True) if t._array.ndim == 3 else (t, False)


def _unbatch(t, was_single):
    return reshape(t, t._array.shape[1:]) if was_single else t


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """``tf.image.resize`` (TF2): float32 output except for nearest, which keeps the dtype.

    Methods: bilinear, nearest, bicubic, area (``antialias`` only changes nothing when upsampling;
    downsampling with ``antialias=True`` is not implemented).
    """
    x, single = _as_batch(images)
    size = _host_ints(size, "resize", "size")
    if len(size) != 2 or min(size) <= 0:
        raise ValueError(f"'size' must be a 1-D Tensor of 2 positive elements: new_height, new_width; got {size}")
    method = ResizeMethod(method.value if isinstance(method, ResizeMethod) else str(method).lower()).value
    _, h, w, _ = x._array.shape
    if preserve_aspect_ratio:
        scale = min(size[0] / h, size[1] / w)
        size = [int(np.round(scale * h)), int(np.round(scale * w))]
    if antialias and (size[0] < h or size[1] < w) and method != "nearest":
        raise NotImplementedError("tf.image.resize: antialias=True when downsampling is not implemented")
    attrs = {"size": tuple(size), "method": method}
    if method == "bilinear":
        out = execute(_RESIZE_BILINEAR, (x,), attrs)
    elif method == "nearest":
        out = execute(_RESIZE_NEAREST, (x,), attrs)
    elif method in ("bicubic", "area"):
        xf = x if x.dtype is dtypes.float32 else _m.cast(x, dtypes.float32)
        out = _apply_separable(xf, _MATRIX[method](h, size[0]), _MATRIX[method](w, size[1]))
    else:
        raise NotImplementedError(f"tf.image.resize: method {method!r} is not implemented")
    return _unbatch(out, single)


# -- flips, rotations ------------------------------------------------------------------------

def _check_image(image, op_name):
    t = as_tensor(image)
    if t._array.ndim not in (3, 4):
        raise ValueError(f"{op_name}: 'image' must have either 3 or 4 dimensions, got shape {list(t.shape)}")
    return t


def flip_left_right(image):
    """``tf.image.flip_left_right``: reverse the width dimension."""
    t = _check_image(image, "flip_left_right")
    return reverse(t, [t._array.ndim - 2])


def flip_up_down(image):
    """``tf.image.flip_up_down``: reverse the height dimension."""
    t = _check_image(image, "flip_up_down")
    return reverse(t, [t._array.ndim - 3])


def rot90(image, k=1, name=None):
    """``tf.image.rot90``: rotate counter-clockwise by ``k`` quarter turns."""
    t = _check_image(image, "rot90")
    k = int(k.numpy()) if hasattr(k, "numpy") else int(k)
    k %= 4
    h_ax = t._array.ndim - 3
    perm = list(range(t._array.ndim))
    perm[h_ax], perm[h_ax + 1] = perm[h_ax + 1], perm[h_ax]
    if k == 0:
        return t
    if k == 1:
        return transpose(reverse(t, [h_ax + 1]), perm)
    if k == 2:
        return reverse(t, [h_ax, h_ax + 1])
    return reverse(transpose(t, perm), [h_ax + 1])


def _random_flip(image, seed, axis_from_end, op_name):
    t = _check_image(image, op_name)
    nd = t._array.ndim
    axis = nd - axis_from_end
    if nd == 3:
        coin = bool(random_ops.uniform([], seed=seed).numpy() < 0.5)
        return reverse(t, [axis]) if coin else t
    n = t._array.shape[0]
    flips = random_ops.uniform([n], seed=seed).numpy() < 0.5
    mask = _convert(flips.reshape((n, 1, 1, 1)), device=t._device)
    return _m.where(mask, reverse(t, [axis]), t)


def random_flip_left_right(image, seed=None):
    """``tf.image.random_flip_left_right``: each image flipped with probability 1/2."""
    return _random_flip(image, seed, 2, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """``tf.image.random_flip_up_down``."""
    return _random_flip(image, seed, 3, "random_flip_up_down")


# -- dtype conversion and simple pixel ops -------------------------------------------------------

def convert_image_dtype(image, dtype, saturate=False, name=None):
    """``tf.image.convert_image_dtype``: rescale between integer ranges and [0, 1) floats."""
    t = as_tensor(image)
    dt = dtypes.as_dtype(dtype)
    src = t.dtype
    if src is dt:
        return t
    if not (src.is_integer or src.is_floating) or not (dt.is_integer or dt.is_floating):
        raise AttributeError(f"Image dtypes must be integers or floats, got {src.name} -> {dt.name}")
    if src.is_integer and dt.is_integer:
        smax, dmax = int(src.max), int(dt.max)
        if smax > dmax:
            return _m.cast(_m.floordiv(t, _m.scalar_like((smax + 1) // (dmax + 1), t)), dt)
        scaled = _m.cast(t, dt)
        return _m.multiply(scaled, _m.scalar_like((dmax + 1) // (smax + 1), scaled))
    if src.is_floating and dt.is_floating:
        return _m.cast(t, dt)
    if src.is_integer:
        out = _m.cast(t, dt)
        return _m.multiply(out, _m.scalar_like(1.0 / int(src.max), out))
    scaled = _m.multiply(t, _m.scalar_like(float(dt.max) + 0.5, t))
    return _m.saturate_cast(scaled, dt) if saturate else _m.cast(scaled, dt)


def adjust_brightness(image, delta):
    """``tf.image.adjust_brightness``: add ``delta`` in float space."""
    t = as_tensor(image)
    f = convert_image_dtype(t, dtypes.float32) if not t.dtype.is_floating else t
    out = _m.add(f, _m.scalar_like(delta, f))
    return convert_image_dtype(out, t.dtype, saturate=True) if not t.dtype.is_floating else out


def per_image_standardization(image):
    """``tf.image.per_image_standardization``: zero mean, unit variance per image (stddev floored)."""

    t = as_tensor(image)
    if t._array.ndim not in (3, 4):
        raise ValueError(f"'image' must have either 3 or 4 dimensions, got shape {list(t.shape)}")
    x = t if t.dtype.is_floating else _m.cast(t, dtypes.float32)
    axes = [-1, -2, -3]
    n = int(np.prod(t._array.shape[-3:]))
    mean = reduce_ops.reduce_mean(x, axes, keepdims=True)
    std = reduce_ops.reduce_std(x, axes, keepdims=True)
    floor = _m.scalar_like(1.0 / np.sqrt(max(n, 1)), x)
    return _m.divide(_m.subtract(x, mean), _m.maximum(std, floor))


def rgb_to_grayscale(images, name=None):
    """``tf.image.rgb_to_grayscale`` (ITU-R 601 weights), keeping a size-1 channel."""
    t = as_tensor(images)
    f = convert_image_dtype(t, dtypes.float32)
    w = _convert(np.array([0.2989, 0.5870, 0.1140], np.float32), device=f._device)

    gray = reduce_ops.reduce_sum(_m.multiply(f, w), -1, keepdims=True)
    return convert_image_dtype(gray, t.dtype)


def grayscale_to_rgb(images, name=None):
    """``tf.image.grayscale_to_rgb``: repeat the single channel three times."""
    t = as_tensor(images)
    if t._array.shape[-1] != 1:
        raise ValueError(f"Last dimension of a grayscale image should be size 1, got {list(t.shape)}")
    return concat([t, t, t], axis=-1)


# -- crops and pads ----------------------------------------------------------------------------

def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``tf.image.crop_to_bounding_box``."""
    t = _check_image(image, "crop_to_bounding_box")
    h, w = t._array.shape[-3], t._array.shape[-2]
    oh, ow, th, tw = (int(v) for v in (offset_height, offset_width, target_height, target_width))
    if oh < 0 or ow < 0 or th <= 0 or tw <= 0 or oh + th > h or ow + tw > w:
        raise ValueError(f"crop_to_bounding_box: box ({oh}, {ow}, {th}, {tw}) does not fit image {list(t.shape)}")
    return t[..., oh:oh + th, ow:ow + tw, :]


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``tf.image.pad_to_bounding_box``: zero-pad to the target size with the image at the offset."""
    t = _check_image(image, "pad_to_bounding_box")
    h, w = t._array.shape[-3], t._array.shape[-2]
    oh, ow, th, tw = (int(v) for v in (offset_height, offset_width, target_height, target_width))
    after_h, after_w = th - oh - h, tw - ow - w
    if oh < 0 or ow < 0 or after_h < 0 or after_w < 0:
        raise ValueError(f"pad_to_bounding_box: target ({th}, {tw}) at offset ({oh}, {ow}) is smaller than "
                         f"image {list(t.shape)}")
    pads = [[oh, after_h], [ow, after_w], [0, 0]]
    if t._array.ndim == 4:
        pads = [[0, 0]] + pads
    return pad(t, pads)


def resize_with_crop_or_pad(image, target_height, target_width):
    """``tf.image.resize_with_crop_or_pad``: centre crop and/or zero-pad to the target size."""
    t = _check_image(image, "resize_with_crop_or_pad")
    h, w = t._array.shape[-3], t._array.shape[-2]
    th, tw = int(target_height), int(target_width)
    crop_h, crop_w = max(h - th, 0), max(w - tw, 0)
    t = crop_to_bounding_box(t, crop_h // 2, crop_w // 2, min(h, th), min(w, tw))
    pad_h, pad_w = max(th - h, 0), max(tw - w, 0)
    return pad_to_bounding_box(t, pad_h // 2, pad_w // 2, th, tw)


def central_crop(image, central_fraction):
    """``tf.image.central_crop``: keep the central ``central_fraction`` of height and width."""
    t = _check_image(image, "central_crop")
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return t
    h, w = t._array.shape[-3], t._array.shape[-2]
    oh = int((h - h * central_fraction) / 2)
    ow = int((w - w * central_fraction) / 2)
    return crop_to_bounding_box(t, oh, ow, h - 2 * oh, w - 2 * ow)
