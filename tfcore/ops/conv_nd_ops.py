"""``tf.nn``'s 3-D (and N-D) convolutions and transposed convolutions, ``conv1d_transpose`` and the atrous
convolutions, with the window helpers that :mod:`tfcore.ops.pool_nd_ops` and the image patch ops share.

They compose registered ops (strided slices, pads, tensordots), so they run on every device and
differentiate through those ops. An N-D convolution is a sum over kernel offsets of
``tensordot(strided window, filter tap)``; its transpose places each tap's product on a zero-upsampled
grid. (2-D convolutions with our kernels are in :mod:`tfcore.ops.conv_ops`.)
"""

import numpy as np

from ..framework.errors import InvalidArgumentError
from . import array_ops as _a
from . import math_ops as _m
from ._common import as_tensor, describe
from .conv_ops import conv2d, conv2d_transpose

__all__ = ["conv3d", "conv3d_transpose", "conv1d_transpose", "conv_transpose", "atrous_conv2d",
           "atrous_conv2d_transpose"]


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
