"""``tf.nn``'s windowed reductions beyond 1-D/2-D pooling (:mod:`tfcore.ops.pool_ops`): 3-D and N-D pooling
(``pool``), pooling with argmax, local response normalisation and morphological dilation/erosion.

They compose registered ops over the strided windows of :mod:`tfcore.ops.conv_nd_ops`, so they run on
every device and differentiate through those ops: pooling reduces the windows with ``maximum`` or a sum
divided by the count of non-padding elements (TF's SAME averaging).
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import array_ops as _a
from . import math_ops as _m
from ._common import as_tensor, describe
from .conv_nd_ops import _from_channels_last, _ints, _pads, _to_channels_last, _windows
from .pool_ops import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

__all__ = ["max_pool3d", "avg_pool3d", "pool", "max_pool_with_argmax", "local_response_normalization", "lrn",
           "dilation2d", "erosion2d"]


def _lowest(dtype):
    np_dt = dtype.as_numpy_dtype
    return -np.inf if dtype.is_floating else np.iinfo(np_dt).min


def _pool_nd(x, ksize, strides, padding, kind, op_name, dilations=None, channels_first=False):
    rank = x.ndim - 2
    ks = _ints(ksize, rank, "ksize", channels_first)
    st = _ints(strides, rank, "strides", channels_first)
    dl = _ints(dilations or 1, rank, "dilations", channels_first)
    pads = _pads(x.shape.as_list()[1:-1], ks, st, dl, padding, op_name)
    padded = any(p != (0, 0) for p in pads)
    full_pads = [[0, 0]] + [list(p) for p in pads] + [[0, 0]]
    if kind == "max":
        xp = _a.pad(x, full_pads, constant_values=_lowest(x.dtype)) if padded else x
        out = None
        for _, win in _windows(xp, ks, st, dl):
            out = win if out is None else _m.maximum(out, win)
        return out
    xp = _a.pad(x, full_pads) if padded else x
    total = None
    for _, win in _windows(xp, ks, st, dl):
        total = win if total is None else _m.add(total, win)
    if not padded:
        return _m.divide(total, float(np.prod(ks)))
    ones = np.pad(np.ones([1] + x.shape.as_list()[1:-1] + [1], x.dtype.as_numpy_dtype), full_pads)
    count = sum(np.asarray(win) for _, win in _windows_np(ones, ks, st, dl))
    return _m.divide(total, _convert(count.astype(x.dtype.as_numpy_dtype), device=x._device))


def _windows_np(a, ks, strides, dilations):
    spatial = a.shape[1:-1]
    outs = [(n - (k - 1) * d - 1) // s + 1 for n, k, s, d in zip(spatial, ks, strides, dilations)]
    for offset in np.ndindex(*ks):
        sl = [slice(None)] + [slice(o * d, o * d + (n - 1) * s + 1, s)
                              for o, d, s, n in zip(offset, dilations, strides, outs)] + [slice(None)]
        yield offset, a[tuple(sl)]


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """``tf.nn.max_pool3d``: input ``[N, D, H, W, C]``."""
    x = as_tensor(input)
    if x.ndim != 5:
        raise InvalidArgumentError(None, None, f"MaxPool3D: input must be 5-dimensional, got {describe((x,))}")
    x, moved = _to_channels_last(x, data_format, 3)
    return _from_channels_last(_pool_nd(x, ksize, strides, padding, "max", "MaxPool3D", channels_first=moved), moved, 3)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """``tf.nn.avg_pool3d``: SAME windows average over their non-padding elements."""
    x = as_tensor(input)
    if x.ndim != 5:
        raise InvalidArgumentError(None, None, f"AvgPool3D: input must be 5-dimensional, got {describe((x,))}")
    x, moved = _to_channels_last(x, data_format, 3)
    return _from_channels_last(_pool_nd(x, ksize, strides, padding, "avg", "AvgPool3D", channels_first=moved), moved, 3)


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """``tf.nn.pool``: N-D max or average pooling (with dilations)."""
    x = as_tensor(input)
    rank = x.ndim - 2
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    strides = strides or [1] * rank
    if (dilations is None or all(d == 1 for d in _ints(dilations, rank, "dilations"))) and rank in (1, 2):
        fn = {(1, "MAX"): max_pool1d, (1, "AVG"): avg_pool1d, (2, "MAX"): max_pool2d, (2, "AVG"): avg_pool2d}
        return fn[(rank, pooling_type)](x, list(window_shape), list(strides), padding)
    x, moved = _to_channels_last(x, data_format, rank)
    out = _pool_nd(x, list(window_shape), list(strides), padding, "max" if pooling_type == "MAX" else "avg", "Pool",
                   dilations)
    return _from_channels_last(out, moved, rank)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", output_dtype=dtypes.int64,  # noqa: A002
                         include_batch_in_index=False, name=None):
    """``tf.nn.max_pool_with_argmax``: ``(output, argmax)``, argmax the flat index ``(y * W + x) * C + c``
    (plus ``b * H * W * C`` with ``include_batch_in_index``); the first maximum in scan order wins."""
    x = as_tensor(input)
    if x.ndim != 4 or data_format != "NHWC":
        raise InvalidArgumentError(None, None, f"MaxPoolWithArgmax: NHWC 4-D input expected, got {describe((x,))}")
    n, h, w, c = x.shape.as_list()
    ks, st, dl = _ints(ksize, 2, "ksize"), _ints(strides, 2, "strides"), [1, 1]
    pads = _pads([h, w], ks, st, dl, padding, "MaxPoolWithArgmax")
    full = [[0, 0]] + [list(p) for p in pads] + [[0, 0]]
    xp = _a.pad(x, full, constant_values=_lowest(x.dtype))
    flat = np.arange(n * h * w * c, dtype=np.int64).reshape(n, h, w, c)
    if not include_batch_in_index:
        flat = flat - (np.arange(n) * h * w * c).reshape(n, 1, 1, 1)
    flat = np.pad(flat, full, constant_values=-1)
    best = best_idx = None
    wins = _windows(xp, ks, st, dl)
    for (_, win), (_, idx) in zip(wins, _windows_np(flat, ks, st, dl)):
        idx_t = _convert(np.ascontiguousarray(idx), device=x._device)
        if best is None:
            best, best_idx = win, idx_t
        else:
            better = _m.greater(win, best)
            best = _m.where(better, win, best)
            best_idx = _m.where(better, idx_t, best_idx)
    return best, _m.cast(best_idx, dtypes.as_dtype(output_dtype))


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002
    """``tf.nn.local_response_normalization``: ``x / (bias + alpha * sum(x^2 over +-depth_radius channels))^beta``."""
    x = as_tensor(input)
    if x.ndim != 4:
        raise InvalidArgumentError(None, None, f"LRN: input must be 4-dimensional, got {describe((x,))}")
    r = int(depth_radius)
    c = x.shape[-1]
    sq = _a.pad(_m.square(x), [[0, 0], [0, 0], [0, 0], [r, r]])
    total = None
    for k in range(2 * r + 1):
        part = sq[..., k:k + c]
        total = part if total is None else _m.add(total, part)
    denom = _m.pow(_m.add(_m.multiply(total, float(alpha)), float(bias)), _m.cast(_convert(float(beta)), x.dtype))
    return _m.divide(x, denom)


lrn = local_response_normalization


def dilation2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """``tf.nn.dilation2d``: grayscale morphological dilation, ``max over the window of x + filters``
    (filters ``[kh, kw, C]``)."""
    x, f = as_tensor(input), as_tensor(filters)
    if x.ndim != 4 or f.ndim != 3 or f.shape[-1] != x.shape[-1]:
        raise InvalidArgumentError(None, None, f"Dilation2D: input [N, H, W, C] and filters [kh, kw, C] expected, "
                                               f"got {describe((x, f))}")
    ks = f.shape.as_list()[:2]
    st, dl = _ints(strides, 2, "strides"), _ints(dilations or 1, 2, "dilations")
    pads = _pads(x.shape.as_list()[1:3], ks, st, dl, padding, "Dilation2D")
    xp = _a.pad(x, [[0, 0]] + [list(p) for p in pads] + [[0, 0]], constant_values=_lowest(x.dtype))
    out = None
    for offset, win in _windows(xp, ks, st, dl):
        v = _m.add(win, f[offset])
        out = v if out is None else _m.maximum(out, v)
    return out


def erosion2d(value, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """``tf.nn.erosion2d``: ``min over the window of x - filters`` (the dual of :func:`dilation2d`)."""
    f = as_tensor(filters)
    return _m.negative(dilation2d(_m.negative(as_tensor(value)), _a.reverse(f, [0, 1]), strides, padding,
                                  dilations=dilations))
