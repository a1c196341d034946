"""float64 NumPy references for the CUDA kernels in kernels/*.cu, for ``tfcore selftest``.

The tests use these same definitions (the kernel tests, and the op-info table's references of the ops that
launch these kernels); they live in the package because the self-test runs from an install, without tests/.
Written directly from the math, independently of the kernels and of the op code, in float64.
Convolution and pooling take explicit paddings ``(top, bottom, left, right)``; :func:`conv_pads` derives
them with TF's SAME/VALID rule written out here, independently of ``tfcore.ops.conv_ops``.
"""

import math

import numpy as np

_erf = np.vectorize(math.erf, otypes=[np.float64])


def matmul_ref(a, b, transpose_a=False, transpose_b=False):
    """op(a) @ op(b) with broadcasting batch dims, accumulated in float64, returned in a's dtype."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if transpose_a:
        a64 = np.swapaxes(a64, -1, -2)
    if transpose_b:
        b64 = np.swapaxes(b64, -1, -2)
    return np.matmul(a64, b64).astype(a.dtype)


def tf_padding(size, k, stride, dilation=1, padding="VALID"):
    """(out, pad_before, pad_after) of one spatial dim by TF's rule.

    VALID: out = ceil((size - (k - 1) * dilation) / stride), no padding. SAME: out = ceil(size / stride),
    pad_total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0), pad_before = pad_total // 2
    (the extra pixel of an odd total goes after).
    """
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        return max(-(-(size - eff + 1) // stride), 0), 0, 0
    raise ValueError(f"tf_padding: padding {padding!r} (explicit paddings are given directly)")


def tf_pads_2d(x_shape, k, strides, padding, dilations=(1, 1)):
    """((oh, ow), (top, bottom, left, right)) of an NHWC input for window ``k`` = (kh, kw)."""
    oh, pt, pb = tf_padding(x_shape[1], k[0], strides[0], dilations[0], padding)
    ow, pl, pr = tf_padding(x_shape[2], k[1], strides[1], dilations[1], padding)
    return (oh, ow), (pt, pb, pl, pr)


def conv_pads(x_shape, ksize, strides, dilations, padding, explicit=()):
    """``(top, bottom, left, right)`` for an NHWC ``x_shape``, ``ksize`` (kh, kw), 2-tuples ``strides`` and
    ``dilations``, ``padding`` "SAME" / "VALID" / "EXPLICIT" (``explicit`` in TF's 8-value NHWC form)."""
    if padding == "EXPLICIT":
        return tuple(explicit[2:6])
    return tf_pads_2d(x_shape, ksize, strides, padding, dilations)[1]


def _out_size(size, k, stride, dilation, pad_before, pad_after):
    return (size + pad_before + pad_after - ((k - 1) * dilation + 1)) // stride + 1


def _tap(xpad, i, j, oh, ow, strides, dilations):
    sh, sw = strides
    dh, dw = dilations
    return xpad[:, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw, :]


def _pad(x, pads, value=0.0):
    pt, pb, pl, pr = pads
    return np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=value)


def conv2d_ref(x, w, strides=(1, 1), dilations=(1, 1), pads=(0, 0, 0, 0)):
    """NHWC x, HWIO w: y[n,oh,ow,co] = sum x[n, oh*sh - pt + i*dh, ow*sw - pl + j*dw, ci] w[i,j,ci,co]."""
    n, h, wd, c = x.shape
    kh, kw, _, co = w.shape
    oh = _out_size(h, kh, strides[0], dilations[0], pads[0], pads[1])
    ow = _out_size(wd, kw, strides[1], dilations[1], pads[2], pads[3])
    xpad = _pad(x.astype(np.float64), pads)
    y = np.zeros((n, oh, ow, co))
    for i in range(kh):
        for j in range(kw):
            y += _tap(xpad, i, j, oh, ow, strides, dilations) @ w[i, j].astype(np.float64)
    return y.astype(x.dtype)


def conv2d_input_grad_ref(w, dy, input_shape, strides=(1, 1), dilations=(1, 1), pads=(0, 0, 0, 0)):
    """Adjoint of :func:`conv2d_ref` in x."""
    n, h, wd, c = input_shape
    kh, kw = w.shape[:2]
    oh, ow = dy.shape[1:3]
    dxpad = np.zeros((n, h + pads[0] + pads[1], wd + pads[2] + pads[3], c))
    for i in range(kh):
        for j in range(kw):
            _tap(dxpad, i, j, oh, ow, strides, dilations)[...] += dy.astype(np.float64) @ w[i, j].T.astype(np.float64)
    return dxpad[:, pads[0]:pads[0] + h, pads[2]:pads[2] + wd, :].astype(dy.dtype)


def conv2d_filter_grad_ref(x, dy, filter_shape, strides=(1, 1), dilations=(1, 1), pads=(0, 0, 0, 0)):
    """Adjoint of :func:`conv2d_ref` in w."""
    kh, kw, c, co = filter_shape
    oh, ow = dy.shape[1:3]
    xpad = _pad(x.astype(np.float64), pads)
    d = dy.astype(np.float64).reshape(-1, co)
    dw = np.zeros(filter_shape)
    for i in range(kh):
        for j in range(kw):
            dw[i, j] = _tap(xpad, i, j, oh, ow, strides, dilations).reshape(-1, c).T @ d
    return dw.astype(x.dtype)


def depthwise_forward_ref(x, w, strides=(1, 1), dilations=(1, 1), pads=(0, 0, 0, 0)):
    """y[n,oh,ow,c*Q+q] = sum x[n, ih, iw, c] w[i, j, c, q]."""
    n, h, wd, c = x.shape
    kh, kw, _, q = w.shape
    oh = _out_size(h, kh, strides[0], dilations[0], pads[0], pads[1])
    ow = _out_size(wd, kw, strides[1], dilations[1], pads[2], pads[3])
    xpad = _pad(x.astype(np.float64), pads)
    y = np.zeros((n, oh, ow, c, q))
    for i in range(kh):
        for j in range(kw):
            y += _tap(xpad, i, j, oh, ow, strides, dilations)[..., None] * w[i, j].astype(np.float64)
    return y.reshape(n, oh, ow, c * q).astype(x.dtype)


def depthwise_input_grad_ref(w, dy, input_shape, strides=(1, 1), dilations=(1, 1), pads=(0, 0, 0, 0)):
    n, h, wd, c = input_shape
    kh, kw, _, q = w.shape
    oh, ow = dy.shape[1:3]
    d = dy.astype(np.float64).reshape(n, oh, ow, c, q)
    dxpad = np.zeros((n, h + pads[0] + pads[1], wd + pads[2] + pads[3], c))
    for i in range(kh):
        for j in range(kw):
            _tap(dxpad, i, j, oh, ow, strides, dilations)[...] += (d * w[i, j].astype(np.float64)).sum(-1)
    return dxpad[:, pads[0]:pads[0] + h, pads[2]:pads[2] + wd, :].astype(dy.dtype)


def depthwise_filter_grad_ref(x, dy, filter_shape, strides=(1, 1), dilations=(1, 1), pads=(0, 0, 0, 0)):
    kh, kw, c, q = filter_shape
    n, oh, ow = dy.shape[:3]
    xpad = _pad(x.astype(np.float64), pads)
    d = dy.astype(np.float64).reshape(n, oh, ow, c, q)
    dw = np.zeros(filter_shape)
    for i in range(kh):
        for j in range(kw):
            dw[i, j] = (_tap(xpad, i, j, oh, ow, strides, dilations)[..., None] * d).sum(axis=(0, 1, 2))
    return dw.astype(x.dtype)


def _windows(h, w, k, s, pads):
    """Per output position: (h0, h1, w0, w1) clipped to the input."""
    oh = _out_size(h, k[0], s[0], 1, pads[0], pads[1])
    ow = _out_size(w, k[1], s[1], 1, pads[2], pads[3])
    for a in range(oh):
        for b in range(ow):
            h0, w0 = a * s[0] - pads[0], b * s[1] - pads[2]
            yield a, b, max(h0, 0), min(h0 + k[0], h), max(w0, 0), min(w0 + k[1], w)


def _pool_out_shape(x_shape, k, s, pads):
    n, h, w, c = x_shape
    return n, _out_size(h, k[0], s[0], 1, pads[0], pads[1]), _out_size(w, k[1], s[1], 1, pads[2], pads[3]), c


def max_pool_ref(x, ksize, strides, pads=(0, 0, 0, 0)):
    y = np.empty(_pool_out_shape(x.shape, ksize, strides, pads), dtype=x.dtype)
    for a, b, h0, h1, w0, w1 in _windows(x.shape[1], x.shape[2], ksize, strides, pads):
        y[:, a, b, :] = x[:, h0:h1, w0:w1, :].max(axis=(1, 2))
    return y


def avg_pool_ref(x, ksize, strides, pads=(0, 0, 0, 0)):
    """Mean over the in-bounds part of each window (TF: padding is not counted)."""
    y = np.empty(_pool_out_shape(x.shape, ksize, strides, pads), dtype=x.dtype)
    for a, b, h0, h1, w0, w1 in _windows(x.shape[1], x.shape[2], ksize, strides, pads):
        y[:, a, b, :] = x[:, h0:h1, w0:w1, :].astype(np.float64).mean(axis=(1, 2))
    return y


def max_pool_grad_ref(x, dy, ksize, strides, pads=(0, 0, 0, 0)):
    """dY of each window goes to its FIRST maximum in row-major order (TF)."""
    n, h, w, c = x.shape
    dx = np.zeros(x.shape)
    ni, ci = np.meshgrid(np.arange(n), np.arange(c), indexing="ij")
    for a, b, h0, h1, w0, w1 in _windows(h, w, ksize, strides, pads):
        win = x[:, h0:h1, w0:w1, :].reshape(n, -1, c)
        first = win.argmax(axis=1)                       # first occurrence of the max
        dh, dw_ = np.divmod(first, w1 - w0)
        np.add.at(dx, (ni, h0 + dh, w0 + dw_, ci), dy[:, a, b, :].astype(np.float64))
    return dx.astype(dy.dtype)


def avg_pool_grad_ref(dy, input_shape, ksize, strides, pads=(0, 0, 0, 0)):
    dx = np.zeros(input_shape)
    for a, b, h0, h1, w0, w1 in _windows(input_shape[1], input_shape[2], ksize, strides, pads):
        dx[:, h0:h1, w0:w1, :] += dy[:, a, b, None, None, :].astype(np.float64) / ((h1 - h0) * (w1 - w0))
    return dx.astype(dy.dtype)


_REDUCERS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}


def reduce_ref(x, axes, op, keepdims=False):
    """sum / mean / max / min / prod over ``axes`` in float64."""
    return _REDUCERS[op](x.astype(np.float64), axis=tuple(axes), keepdims=keepdims).astype(x.dtype)


def argreduce_ref(x, axis, is_min=False):
    return (np.argmin if is_min else np.argmax)(x, axis=axis).astype(np.int64)


def softmax_ref(x, log=False):
    x64 = x.astype(np.float64)
    s = x64 - x64.max(axis=-1, keepdims=True)
    lse = np.log(np.exp(s).sum(axis=-1, keepdims=True))
    return (s - lse if log else np.exp(s - lse)).astype(x.dtype)


def sparse_xent_ref(logits, labels):
    """(loss, dlogits) of softmax cross-entropy with integer labels; NaN rows for bad labels."""
    x = logits.astype(np.float64)
    rows, classes = x.shape
    logp = softmax_ref(x, log=True)  # not log(softmax): exp underflows to 0 for logits ~1e3 apart
    loss = np.full(rows, np.nan)
    grad = np.full(x.shape, np.nan)
    for r in range(rows):
        if 0 <= labels[r] < classes:
            loss[r] = -logp[r, labels[r]]
            grad[r] = np.exp(logp[r])
            grad[r, labels[r]] -= 1.0
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


_ACTS = {
    None: lambda v: v,
    "relu": lambda v: np.maximum(v, 0.0),
    "gelu": lambda v: 0.5 * v * (1.0 + _erf(v / math.sqrt(2.0))),
    "sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v)),
    "tanh": np.tanh,
    "gelu_tanh": lambda v: 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3))),
}


def bias_add_ref(x, bias, activation=None, data_format="NHWC"):
    v = x.astype(np.float64)
    shape = [1] * x.ndim
    shape[1 if data_format.startswith("NC") else -1] = -1
    v = v + bias.astype(np.float64).reshape(shape)
    return _ACTS[activation](v).astype(x.dtype)


def segment_prod_ref(data, ids, num_segments):
    """``out[s] = prod(data[j] for ids[j] == s)`` in float64 (returned in data's dtype): an empty segment
    holds 1, negative ids are dropped; ``ids`` is a prefix of data's shape (any rank, any order). A plain
    loop over the rows, independent of NumPy's ``multiply.at`` that the CPU kernel uses. Integer data is
    multiplied in Python integers and wrapped to the dtype's width, as TF's integer products wrap."""
    rest = data.shape[ids.ndim:]
    flat_ids = ids.reshape(-1)
    rows = data.reshape((flat_ids.size,) + rest)
    integer = np.issubdtype(data.dtype, np.integer)
    out = np.ones((num_segments,) + rest, dtype=object if integer else np.float64)
    for j, s in enumerate(flat_ids):
        if s >= 0:
            out[s] = out[s] * (rows[j].astype(object) if integer else rows[j].astype(np.float64))
    if integer:
        info = np.iinfo(data.dtype)
        span = 1 << info.bits
        wrap = np.vectorize(lambda v: (int(v) - info.min) % span + info.min, otypes=[object])
        return wrap(out).astype(data.dtype) if out.size else out.astype(data.dtype)
    return out.astype(data.dtype)


def _batch_norm_axes(x, data_format):
    """The reduced axes of ``x`` and the shape a per-channel vector broadcasts with."""
    ch = 1 if data_format.startswith("NC") else x.ndim - 1
    shape = [1] * x.ndim
    shape[ch] = -1
    return tuple(i for i in range(x.ndim) if i != ch), shape


def batch_norm_ref(x, scale, offset, mean=None, variance=None, epsilon=1e-3, factor=1.0, data_format="NHWC",
                   training=True):
    """FusedBatchNormV3 in float64: ``(y, out_mean, out_var, save_mean, save_var)``. Training normalises with
    the batch mean and biased variance and reports the unbiased one (or the ``factor`` blend with the given
    ``mean``/``variance``); inference normalises with ``mean``/``variance``."""
    axes, shape = _batch_norm_axes(x, data_format)
    v = x.astype(np.float64)
    if training:
        n = v.size // v.shape[shape.index(-1)]
        m = v.mean(axis=axes)
        var = ((v - m.reshape(shape)) ** 2).mean(axis=axes)
        unbiased = var * n / (n - 1) if n > 1 else np.zeros_like(var)
        out_m, out_v = m, unbiased
        if factor != 1.0:
            out_m = mean - (mean - m) * factor
            out_v = variance - (variance - unbiased) * factor
    else:
        m, var = mean.astype(np.float64), variance.astype(np.float64)
        out_m, out_v = m, var
    y = (v - m.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon) * scale.reshape(shape) + offset.reshape(shape)
    return y, out_m, out_v, m, var


def batch_norm_grad_ref(dy, x, scale, mean, variance, epsilon=1e-3, data_format="NHWC", training=True):
    """FusedBatchNormGradV3 in float64: ``(dx, scale_backprop, offset_backprop)`` for x normalised with
    ``mean``/``variance`` (in training the batch's own: they depend on x, which adds two terms to dx)."""
    axes, shape = _batch_norm_axes(x, data_format)
    g, v = dy.astype(np.float64), x.astype(np.float64)
    c = v - mean.astype(np.float64).reshape(shape)
    inv = 1.0 / np.sqrt(variance.astype(np.float64) + epsilon)
    doffset = g.sum(axis=axes)
    dscale = (g * c).sum(axis=axes) * inv
    k = (scale * inv).reshape(shape)
    if training:
        n = g.size // g.shape[shape.index(-1)]
        dx = k * (g - (doffset / n).reshape(shape) - c * (inv ** 2 * (g * c).sum(axis=axes) / n).reshape(shape))
    else:
        dx = k * g
    return dx, dscale, doffset
