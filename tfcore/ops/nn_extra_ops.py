"""The rest of ``tf.nn``: 3-D (and N-D) convolutions, transposed convolutions and pooling, pooling with
argmax, local response normalisation, morphological dilation/erosion, CTC loss and moment helpers.

They compose registered ops (strided slices, pads, tensordots, maxima), so they run on every device
and differentiate through those ops. An N-D convolution is a sum over kernel offsets of
``tensordot(strided window, filter tap)``; its transpose places each tap's product on a zero-upsampled
grid; pooling reduces the strided windows with ``maximum`` or a sum divided by the count of
non-padding elements (TF's SAME averaging).
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import array_ops as _a
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor, describe
from .conv_ops import conv2d, conv2d_transpose
from .math_reduction_ops import approx_max_k, approx_min_k, zero_fraction
from .misc_ops import space_to_batch
from .pool_ops import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

__all__ = [
    "conv3d", "conv3d_transpose", "conv1d_transpose", "conv_transpose", "atrous_conv2d", "atrous_conv2d_transpose",
    "max_pool3d", "avg_pool3d", "pool", "max_pool_with_argmax", "local_response_normalization", "lrn",
    "dilation2d", "erosion2d", "ctc_loss", "collapse_repeated", "normalize_moments", "sufficient_statistics",
    "weighted_moments", "batch_norm_with_global_normalization", "zero_fraction", "approx_max_k", "approx_min_k",
    "space_to_batch",
]


def _ints(v, n, what, channels_first=False):
    if isinstance(v, int):
        return [v] * n
    v = [int(x) for x in v]
    if len(v) == n:
        return v
    if len(v) == n + 2:
        return v[2:] if channels_first else v[1:-1]
    if len(v) == 1:
        return v * n
    raise ValueError(f"{what} must be an int or a list of {n} or {n + 2} ints, got {v}")


def _same_pad(size, k, s, d):
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def _pads(shape, ks, strides, dilations, padding, op_name):
    if isinstance(padding, str):
        padding = padding.upper()
        if padding == "VALID":
            return [(0, 0)] * len(ks)
        if padding == "SAME":
            return [_same_pad(n, k, s, d) for n, k, s, d in zip(shape, ks, strides, dilations)]
        raise ValueError(f"{op_name}: padding must be 'SAME' or 'VALID', got {padding!r}")
    raise ValueError(f"{op_name}: padding must be 'SAME' or 'VALID', got {padding!r}")


def _windows(x, ks, strides, dilations):
    """Yield ``(offset, window)``: for each kernel offset the strided view ``[N, *out, C]`` of padded ``x``."""
    spatial = x.shape.as_list()[1:-1]
    outs = [(n - (k - 1) * d - 1) // s + 1 for n, k, s, d in zip(spatial, ks, strides, dilations)]
    if min(outs) <= 0:
        raise InvalidArgumentError(None, None, f"the window {ks} (dilations {dilations}) does not fit the "
                                               f"padded input {spatial}")
    for offset in np.ndindex(*ks):
        sl = [slice(None)]
        for o, d, s, n in zip(offset, dilations, strides, outs):
            start = o * d
            sl.append(slice(start, start + (n - 1) * s + 1, s))
        sl.append(slice(None))
        yield offset, x[tuple(sl)]


def _to_channels_last(x, data_format, rank):
    if data_format is not None and data_format.startswith("NC"):
        return _a.transpose(x, [0] + list(range(2, rank + 2)) + [1]), True
    return x, False


def _from_channels_last(x, moved, rank):
    return _a.transpose(x, [0, rank + 1] + list(range(1, rank + 1))) if moved else x


def _conv_nd(x, w, strides, padding, dilations, op_name):
    rank = x.ndim - 2
    ks = w.shape.as_list()[:rank]
    if w.ndim != rank + 2 or w.shape[-2] != x.shape[-1]:
        raise InvalidArgumentError(None, None, f"{op_name}: filters must be [*kernel, in_channels={x.shape[-1]}, "
                                               f"out_channels], got {describe((x, w))}")
    pads = _pads(x.shape.as_list()[1:-1], ks, strides, dilations, padding, op_name)
    if any(p != (0, 0) for p in pads):
        x = _a.pad(x, [[0, 0]] + [list(p) for p in pads] + [[0, 0]])
    out = None
    for offset, win in _windows(x, ks, strides, dilations):
        term = _m.tensordot(win, w[offset], axes=[[rank + 1], [0]])
        out = term if out is None else _m.add(out, term)
    return out


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """``tf.nn.conv3d``: input ``[N, D, H, W, C]``, filters ``[kd, kh, kw, in, out]``."""
    x, f = as_tensor(input), as_tensor(filters)
    if x.ndim != 5:
        raise InvalidArgumentError(None, None, f"Conv3D: input must be 5-dimensional, got {describe((x,))}")
    x, moved = _to_channels_last(x, data_format, 3)
    out = _conv_nd(x, f, _ints(strides, 3, "strides", moved), padding, _ints(dilations or 1, 3, "dilations", moved),
                   "Conv3D")
    return _from_channels_last(out, moved, 3)


def _upsample(x, axis, s):
    """Insert ``s - 1`` zeros between elements along ``axis`` (length ``(n - 1) * s + 1``)."""
    if s == 1:
        return x
    shape = x.shape.as_list()
    n = shape[axis]
    y = _a.expand_dims(x, axis + 1)
    pads = [[0, 0]] * y.ndim
    pads[axis + 1] = [0, s - 1]
    y = _a.pad(y, pads)
    y = _a.reshape(y, shape[:axis] + [n * s] + shape[axis + 1:])
    sl = [slice(None)] * y.ndim
    sl[axis] = slice(0, (n - 1) * s + 1)
    return y[tuple(sl)]


def _conv_transpose_nd(x, w, output_shape, strides, padding, dilations, op_name):
    """The input-gradient of :func:`_conv_nd` for an input of ``output_shape``: filters ``[*k, out, in]``."""
    rank = x.ndim - 2
    ks = w.shape.as_list()[:rank]
    out_spatial = list(output_shape[1:-1])
    if w.shape[-1] != x.shape[-1] or w.shape[-2] != output_shape[-1]:
        raise InvalidArgumentError(None, None, f"{op_name}: filters must be [*kernel, out_channels="
                                               f"{output_shape[-1]}, in_channels={x.shape[-1]}], got "
                                               f"{describe((x, w))}")
    pads = _pads(out_spatial, ks, strides, dilations, padding, op_name)
    ins = x.shape.as_list()[1:-1]
    for n, size, k, s, d, p in zip(ins, out_spatial, ks, strides, dilations, pads):
        if (size + p[0] + p[1] - (k - 1) * d - 1) // s + 1 != n:
            raise InvalidArgumentError(None, None, f"{op_name}: output_shape {list(output_shape)} does not match "
                                                   f"the input {x.shape.as_list()} for these strides/padding")
    up = x
    for i, s in enumerate(strides):
        up = _upsample(up, 1 + i, s)
    up_sizes = up.shape.as_list()[1:-1]
    full = [(u - 1) + (k - 1) * d + 1 for u, k, d in zip(up_sizes, ks, dilations)]
    out = None
    for offset in np.ndindex(*ks):
        term = _m.tensordot(up, w[offset], axes=[[rank + 1], [1]])  # [N, *up, out]
        pad = [[0, 0]] + [[o * d, f - o * d - u] for o, d, f, u in zip(offset, dilations, full, up_sizes)] + [[0, 0]]
        term = _a.pad(term, pad)
        out = term if out is None else _m.add(out, term)
    sl = [slice(None)]
    extra = [[0, 0]]
    for f, size, p in zip(full, out_spatial, pads):
        stop = min(f, p[0] + size)
        sl.append(slice(p[0], stop))
        extra.append([0, p[0] + size - stop])
    sl.append(slice(None))
    out = out[tuple(sl)]
    extra.append([0, 0])
    if any(e[1] for e in extra):
        out = _a.pad(out, extra)
    return out


def _output_shape(output_shape):
    return [int(v) for v in (output_shape.numpy() if hasattr(output_shape, "numpy") else output_shape)]


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """``tf.nn.conv3d_transpose``: filters ``[kd, kh, kw, out_channels, in_channels]``."""
    x, f = as_tensor(input), as_tensor(filters)
    x, moved = _to_channels_last(x, data_format, 3)
    shape = _output_shape(output_shape)
    if moved:
        shape = [shape[0]] + shape[2:] + [shape[1]]
    out = _conv_transpose_nd(x, f, shape, _ints(strides, 3, "strides", moved), padding,
                             _ints(dilations or 1, 3, "dilations", moved), "Conv3DBackpropInputV2")
    return _from_channels_last(out, moved, 3)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """``tf.nn.conv1d_transpose``: input ``[N, W, C]``, filters ``[kw, out_channels, in_channels]``."""
    x, f = as_tensor(input), as_tensor(filters)
    x, moved = _to_channels_last(x, data_format, 1)
    shape = _output_shape(output_shape)
    if moved:
        shape = [shape[0], shape[2], shape[1]]
    s = _ints(strides, 1, "strides")[0]
    d = _ints(dilations or 1, 1, "dilations")[0]
    out = conv2d_transpose(_a.expand_dims(x, 1), _a.expand_dims(f, 0), [shape[0], 1, shape[1], shape[2]],
                           strides=[1, s], padding=padding, dilations=[1, d] if d != 1 else None)
    return _from_channels_last(_a.squeeze(out, [1]), moved, 1)


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """``tf.nn.conv_transpose``: 1-D, 2-D or 3-D by the input's rank."""
    rank = as_tensor(input).ndim - 2
    if rank == 1:
        return conv1d_transpose(input, filters, output_shape, strides, padding, data_format or "NWC", dilations)
    if rank == 2:
        return conv2d_transpose(input, filters, output_shape, strides, padding, data_format or "NHWC", dilations)
    if rank == 3:
        return conv3d_transpose(input, filters, output_shape, strides, padding, data_format or "NDHWC", dilations)
    raise ValueError(f"conv_transpose: input must have rank 3, 4 or 5, got {rank + 2}")


def atrous_conv2d(value, filters, rate, padding, name=None):
    """``tf.nn.atrous_conv2d``: a 2-D convolution with dilation ``rate``."""
    return conv2d(value, filters, strides=1, padding=padding, dilations=int(rate))


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """``tf.nn.atrous_conv2d_transpose``: the transpose of :func:`atrous_conv2d`."""
    return conv2d_transpose(value, filters, output_shape, strides=1, padding=padding, dilations=int(rate))


# -- pooling ----------------------------------------------------------------------------------------------------

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


# -- CTC --------------------------------------------------------------------------------------------------------

_NEG = -1e30


def _logsumexp(*terms):
    m = terms[0]
    for t in terms[1:]:
        m = _m.maximum(m, t)
    m = _a.stop_gradient(m)
    total = None
    for t in terms:
        e = _m.exp(_m.subtract(t, m))
        total = e if total is None else _m.add(total, e)
    return _m.add(_m.log(total), m)


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
             name=None):
    """``tf.nn.ctc_loss`` (dense labels): per-sequence negative log-likelihood of ``labels`` ``[B, L]`` given
    unnormalised ``logits`` (``[T, B, K]``, or ``[B, T, K]`` with ``logits_time_major=False``), via the CTC
    forward algorithm in log space. ``blank_index`` defaults to 0 (negative values count from the end)."""
    lg = as_tensor(logits)
    if not lg.dtype.is_floating:
        lg = _m.cast(lg, dtypes.float32)
    if not logits_time_major:
        lg = _a.transpose(lg, [1, 0, 2])
    t_max, batch, k = lg.shape.as_list()
    blank = 0 if blank_index is None else int(blank_index) % k
    lab = np.asarray(as_tensor(labels).numpy(), np.int64)
    lab_len = np.asarray(as_tensor(label_length).numpy(), np.int64).reshape(-1)
    log_len = np.asarray(as_tensor(logit_length).numpy(), np.int64).reshape(-1)
    if lab.ndim != 2 or lab.shape[0] != batch or lab_len.shape[0] != batch or log_len.shape[0] != batch:
        raise InvalidArgumentError(None, None, f"CTCLoss: labels [batch, max_label_length], label_length [batch] "
                                               f"and logit_length [batch] must match logits' batch {batch}")
    s = 2 * lab.shape[1] + 1
    ext = np.full((batch, s), blank, np.int64)  # blank, l1, blank, l2, ..., blank
    ext[:, 1::2] = lab
    valid = np.arange(s)[None, :] < (2 * lab_len[:, None] + 1)
    skip = np.zeros((batch, s), bool)  # a transition from s-2 is allowed to a label that differs from s-2's
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    logp = _m.subtract(lg, _r.reduce_logsumexp(lg, axis=-1, keepdims=True))  # [T, B, K]
    dev = lg._device
    dt = lg.dtype.as_numpy_dtype
    gather_idx = _convert(ext, device=dev)
    neg = _convert(np.full((batch, s), _NEG, dt), device=dev)
    valid_t = _convert(valid, device=dev)
    skip_t = _convert(skip, device=dev)
    init = np.full((batch, s), False)
    init[:, 0] = True
    init[:, 1] = lab_len > 0
    emit0 = _a.gather(logp[0], gather_idx, axis=1, batch_dims=1)
    alpha = _m.where(_convert(init & valid, device=dev), emit0, neg)
    for t in range(1, t_max):
        emit = _a.gather(logp[t], gather_idx, axis=1, batch_dims=1)
        prev1 = _a.pad(alpha[:, :-1], [[0, 0], [1, 0]], constant_values=_NEG)
        prev2 = _m.where(skip_t, _a.pad(alpha[:, :-2], [[0, 0], [2, 0]], constant_values=_NEG), neg)
        new = _m.add(_logsumexp(alpha, prev1, prev2), emit)
        new = _m.where(valid_t, new, neg)
        active = _convert((t < log_len)[:, None].repeat(s, axis=1), device=dev)
        alpha = _m.where(active, new, alpha)
    last = _convert(np.stack([2 * lab_len, np.maximum(2 * lab_len - 1, 0)], axis=1), device=dev)
    ends = _a.gather(alpha, last, axis=1, batch_dims=1)
    e0, e1 = _a.unstack(ends, axis=1)
    e1 = _m.where(_convert(lab_len > 0, device=dev), e1, _convert(np.full(batch, _NEG, dt), device=dev))
    return _m.negative(_logsumexp(e0, e1))


def collapse_repeated(labels, seq_length, name=None):
    """``tf.nn.collapse_repeated``: merge repeated labels in each row; ``(collapsed, new_seq_length)``."""
    lab = np.asarray(as_tensor(labels).numpy())
    lens = np.asarray(as_tensor(seq_length).numpy()).reshape(-1)
    rows = []
    for row, n in zip(lab, lens):
        kept = [v for i, v in enumerate(row[:n]) if i == 0 or v != row[i - 1]]
        rows.append(kept)
    width = max((len(r) for r in rows), default=0)
    out = np.zeros((len(rows), width), lab.dtype)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return _convert(out), _convert(np.asarray([len(r) for r in rows], lens.dtype))


# -- moments ------------------------------------------------------------------------------------------------------

def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """``tf.nn.sufficient_statistics``: ``(count, sum(x - shift), sum((x - shift)^2), shift)`` over ``axes``."""
    t = as_tensor(x)
    axes = [a % t.ndim for a in ([axes] if isinstance(axes, int) else axes)]
    count = float(np.prod([t.shape[a] for a in axes]))
    y = t if shift is None else _m.subtract(t, as_tensor(shift, t.dtype))
    mean_ss = _r.reduce_sum(y, axis=axes, keepdims=keepdims)
    var_ss = _r.reduce_sum(_m.square(y), axis=axes, keepdims=keepdims)
    return _convert(np.asarray(count, t.dtype.as_numpy_dtype)), mean_ss, var_ss, \
        (None if shift is None else as_tensor(shift, t.dtype))


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """``tf.nn.normalize_moments``: ``(mean, variance)`` from sufficient statistics."""
    c = as_tensor(counts)
    shifted_mean = _m.divide(as_tensor(mean_ss), c)
    mean = shifted_mean if shift is None else _m.add(shifted_mean, as_tensor(shift, shifted_mean.dtype))
    variance = _m.subtract(_m.divide(as_tensor(variance_ss), c), _m.square(shifted_mean))
    return mean, variance


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """``tf.nn.weighted_moments``: frequency-weighted ``(mean, variance)`` over ``axes``."""
    t = as_tensor(x)
    w = _m.cast(as_tensor(frequency_weights), t.dtype)
    w = _m.add(w, _a.zeros_like(t))
    total = _r.reduce_sum(w, axis=axes, keepdims=True)
    mean = _m.divide_no_nan(_r.reduce_sum(_m.multiply(t, w), axis=axes, keepdims=True), total)
    var = _m.divide_no_nan(_r.reduce_sum(_m.multiply(_m.squared_difference(t, mean), w), axis=axes, keepdims=True),
                           total)
    if not keepdims:
        mean = _a.squeeze(mean, axes)
        var = _a.squeeze(var, axes)
    return mean, var


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None, mean=None,  # noqa: A002
                                         variance=None):
    """``tf.nn.batch_norm_with_global_normalization``: ``(t - m) / sqrt(v + eps) * gamma + beta``
    (``gamma`` only with ``scale_after_normalization``)."""
    t = as_tensor(input if t is None else t)
    m = as_tensor(mean if m is None else m, t.dtype)
    v = as_tensor(variance if v is None else v, t.dtype)
    inv = _m.rsqrt(_m.add(v, float(variance_epsilon)))
    if scale_after_normalization:
        inv = _m.multiply(inv, as_tensor(gamma, t.dtype))
    return _m.add(_m.multiply(_m.subtract(t, m), inv), as_tensor(beta, t.dtype))
