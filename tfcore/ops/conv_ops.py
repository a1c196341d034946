"""2-D convolutions (NHWC): Conv2D and its two backprops, depthwise convolution, and the public
``tf.nn.conv2d``/``conv1d``/``conv2d_transpose``/``depthwise_conv2d``/``separable_conv2d`` wrappers.

CPU implementation: im2col through a strided *view* of the padded input (no Python loop over
pixels), copied once into a ``[N*OH*OW, KH*KW*C]`` matrix and multiplied with the flattened
filter by one BLAS matmul (chunked over the batch to bound memory). The filter backprop is the
transposed product with the same columns (the forward pass hands its columns to the gradient as a
residual on the tape's call record: ``Residuals``); the stride-1 input backprop is one product of the
padded ``dy``'s columns with the flipped filter, other strides do one matmul per kernel tap and
slice-add it into the padded input gradient (loops over taps, never over pixels). Everything is
written against ``b.xp``: the same code is the generic candidate on CuPy, after our CUDA kernels.

When the native CPU kernels are built (``backend/native_cpu``, ``kernels/cpu_kernels.cc``), NumPy
float32/float64 convolutions with 4 or a multiple of 8 output channels (up to 256 terms per sum above
16 channels, see ``_DIRECT_MAX_TERMS``) run a direct convolution instead -- forward, input gradient (any
channel count and stride: per stride phase a stride-1 correlation of the compact ``dy`` with the taps that
reach it, no zero terms) and filter gradient -- with no im2col matrix and no padded copy of the input (the kernels
pad one image at a time into a thread's cache-resident buffer), split over ``tf.config.threading``'s
intra-op threads, and the remaining im2col copies run in C. On AVX-512 builds, output-channel counts
that are multiples of 32 (float32) run the wide direct kernels at any sum length. Depthwise convolutions
with multiplier 1 and their two gradients run native kernels too (any channel count, stride, dilation
and padding).

Each native path is a registered ``cpu`` candidate with its ``supports=`` predicate (``tfcore info --ops
Conv2D`` lists them), ahead of the generic xp code; the CPU's generic candidates use the native im2col,
other kinds ``xp``'s. float16/bfloat16 on the CPU run as float32 (a candidate that casts and dispatches
again, so the native kernels serve them too, as before).

Op attributes (TF names; the CUDA kernels read the same ones):
  ``strides``, ``dilations``: 4-tuples in NHWC order, ``(1, sh, sw, 1)``.
  ``padding``: ``'SAME'``, ``'VALID'`` or ``'EXPLICIT'``.
  ``explicit_paddings``: 8-tuple ``(0, 0, top, bottom, left, right, 0, 0)`` for ``'EXPLICIT'``, else ``()``.
  ``data_format``: always ``'NHWC'`` at op level (the public wrappers transpose NCHW).
  ``input_sizes`` (Conv2DBackpropInput), ``filter_sizes`` (Conv2DBackpropFilter): 4-tuples of ints
  (TF passes them as tensors; here they are attributes so kernels need no host read).
Use :func:`conv_geometry` to get output sizes and paddings with TF's exact arithmetic.
"""


import functools

import numpy as np

from ..backend import blas_threads, native_cpu, xp_compat
from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from . import conv_winograd
from ._common import as_tensor, describe
from .array_ops import reshape, transpose
from .registry import Op, Residuals, execute

__all__ = [
    "conv2d", "conv1d", "conv2d_transpose", "conv2d_backprop_input", "conv2d_backprop_filter",
    "depthwise_conv2d", "depthwise_conv2d_backprop_input", "depthwise_conv2d_backprop_filter",
    "separable_conv2d", "convolution",
]

_COLS_LIMIT = 1 << 24  # elements of one im2col chunk (64 MiB in float32)


# -- geometry shared by convolution and pooling ------------------------------------------

def spatial_padding(in_size, k, stride, dilation, padding, explicit=(0, 0)):
    """``(out_size, pad_before, pad_after)`` for one spatial dimension, with TF's arithmetic.

    SAME: ``out = ceil(in / stride)``, ``pad_total = max((out - 1) * stride + eff_k - in, 0)``,
    ``pad_before = pad_total // 2`` (the extra pixel goes at the end). VALID:
    ``out = (in - eff_k) // stride + 1``. EXPLICIT: like VALID on the explicitly padded input.
    ``out`` may be <= 0; callers report it.
    """
    eff_k = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-in_size // stride)
        total = max((out - 1) * stride + eff_k - in_size, 0)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        return (in_size - eff_k) // stride + 1 if in_size >= eff_k else in_size - eff_k + 1, 0, 0
    before, after = explicit
    padded = in_size + before + after
    return (padded - eff_k) // stride + 1 if padded >= eff_k else padded - eff_k + 1, before, after


def conv_geometry(in_shape, kh, kw, strides, dilations, padding, explicit_paddings):
    """``(oh, ow, (top, bottom), (left, right))`` for an NHWC input of ``in_shape``.

    Computed once per geometry: an op's rule, its candidates' ``supports=`` and the chosen kernel all ask
    for it, and get the cached value (keyed by the values, hashable tuples; lists are computed each time)."""
    try:
        return _cached_geometry(in_shape, kh, kw, strides, dilations, padding, explicit_paddings)
    except TypeError:  # an unhashable argument (a list)
        return _geometry(in_shape, kh, kw, strides, dilations, padding, explicit_paddings)


def _geometry(in_shape, kh, kw, strides, dilations, padding, explicit_paddings):
    ex = explicit_paddings or (0,) * 8
    oh, pt, pb = spatial_padding(in_shape[1], kh, strides[1], dilations[1], padding, (ex[2], ex[3]))
    ow, pl, pr = spatial_padding(in_shape[2], kw, strides[2], dilations[2], padding, (ex[4], ex[5]))
    return oh, ow, (pt, pb), (pl, pr)


_cached_geometry = functools.lru_cache(maxsize=1024)(_geometry)


def _check_geometry(op_name, ts, oh, ow):
    if oh <= 0 or ow <= 0:
        raise InvalidArgumentError(
            None, None, f"{op_name}: computed output size would be negative or zero ({oh}x{ow}) "
            f"for inputs {describe(ts)}")


def pad_spatial(xp, x, ph, pw, value=0):
    """Pad the H and W axes of an NHWC array (no copy when there is no padding)."""
    if not (ph[0] or ph[1] or pw[0] or pw[1]):
        return x
    # A filled buffer plus one slice copy: ~7x faster than xp.pad's generic Python path on small inputs.
    n, h, w, c = x.shape
    shape = (n, h + ph[0] + ph[1], w + pw[0] + pw[1], c)
    out = xp.zeros(shape, dtype=x.dtype) if value == 0 else xp.full(shape, value, dtype=x.dtype)
    out[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w, :] = x
    return out


def tap_slice(i, j, oh, ow, strides, dilations):
    """Index of the ``[N, OH, OW, C]`` slice of the padded input seen by kernel tap ``(i, j)``."""
    sh, sw, dh, dw = strides[1], strides[2], dilations[1], dilations[2]
    return (slice(None), slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
            slice(j * dw, j * dw + sw * (ow - 1) + 1, sw), slice(None))


def windows(xp, xpad, oh, ow, kh, kw, strides, dilations):
    """A strided view ``[N, OH, OW, KH, KW, C]`` of the padded input (no copy)."""
    s0, s1, s2, s3 = xpad.strides
    shape = (xpad.shape[0], oh, ow, kh, kw, xpad.shape[3])
    st = (s0, s1 * strides[1], s2 * strides[2], s1 * dilations[1], s2 * dilations[2], s3)
    return xp_compat.as_strided(xp, xpad, shape, st)


_HALF_DTYPES = tuple(d for d in (dtypes.float16, dtypes.bfloat16) if d is not None)


def _register_half_in_float32(op, impl=None):
    """Register ``op``'s ``cpu`` candidate for float16/bfloat16: NumPy has no fast half-precision BLAS, so
    both operands are cast to float32, ``impl`` runs on them (None: the float32 candidates, the native
    kernels among them) and the result is cast back; float32 arrays saved for the gradient (im2col
    columns) are kept as they are."""

    def half_in_float32(b, a, c, **attrs):
        a32, c32 = a.astype(np.float32), c.astype(np.float32)
        out = op.run_kernel(b, (a32, c32), attrs) if impl is None else impl(b, a32, c32, **attrs)
        if type(out) is Residuals:
            return Residuals(out.output.astype(a.dtype), **out.saved)
        return out.astype(a.dtype)

    op.kernel("cpu", dtypes=_HALF_DTYPES, priority=2, name=f"{op.name}[float16/bfloat16 in float32]")(half_in_float32)


def _padded_zeros(xp, shape, ph, pw, dtype):
    """Zeros for an NHWC array of ``shape`` padded by ``ph``/``pw`` (accumulates a col2im sum)."""
    n, h, w, c = shape
    return xp.zeros((n, h + ph[0] + ph[1], w + pw[0] + pw[1], c), dtype=dtype)


def unpad_spatial(xp, xpad, ph, pw):
    """The inverse of :func:`pad_spatial`: the unpadded H x W part of ``xpad`` (C-contiguous)."""
    if not (ph[0] or ph[1] or pw[0] or pw[1]):
        return xpad
    h, w = xpad.shape[1] - ph[0] - ph[1], xpad.shape[2] - pw[0] - pw[1]
    return xp.ascontiguousarray(xpad[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w, :])


def _batch_chunks(n, per_example):
    step = max(1, _COLS_LIMIT // max(per_example, 1))
    return [(s, min(n, s + step)) for s in range(0, n, step)]


# -- attribute normalization (public wrappers) ---------------------------------------------

def normalize_hw(value, name, op_name, data_format="NHWC", allow_len=(1, 2, 4)):
    """An int or a list of 1, 2 or 4 ints -> ``(1, h, w, 1)`` (NHWC order)."""
    if value is None:
        return (1, 1, 1, 1)
    if hasattr(value, "numpy"):
        value = value.numpy().tolist()
    vals = [int(value)] if isinstance(value, int | np.integer) else [int(v) for v in value]
    if len(vals) not in allow_len:
        raise ValueError(f"{op_name}: {name} should be of length {' or '.join(map(str, allow_len))}, got {vals}")
    if len(vals) == 1:
        vals = vals * 2
    if len(vals) == 2:
        return (1, vals[0], vals[1], 1)
    if data_format.startswith("NC"):
        n, c, h, w = vals
    else:
        n, h, w, c = vals
    if n != 1 or c != 1:
        raise InvalidArgumentError(
            None, None, f"{op_name}: {name} in the batch and depth dimensions must be 1, got {vals}")
    if h < 1 or w < 1:
        raise InvalidArgumentError(None, None, f"{op_name}: {name} must be positive, got {vals}")
    return (1, h, w, 1)


def normalize_padding(padding, op_name, data_format="NHWC"):
    """``'SAME'``/``'VALID'`` or an explicit ``[[0,0],[t,b],[l,r],[0,0]]`` -> (padding, explicit 8-tuple)."""
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"{op_name}: padding must be 'SAME', 'VALID' or a list of pairs, got {padding!r}")
        return p, ()
    pairs = [tuple(int(v) for v in pair) for pair in padding]
    if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"{op_name}: explicit padding must be 4 pairs [[0,0],[t,b],[l,r],[0,0]], got {padding}")
    if data_format.startswith("NC"):
        pairs = [pairs[0], pairs[2], pairs[3], pairs[1]]
    if pairs[0] != (0, 0) or pairs[3] != (0, 0):
        raise ValueError(f"{op_name}: explicit padding in the batch and depth dimensions must be 0, got {padding}")
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"{op_name}: explicit paddings must be non-negative, got {padding}")
    return "EXPLICIT", tuple(v for p in pairs for v in p)


def _to_nhwc(t, data_format):
    return transpose(t, (0, 2, 3, 1)) if data_format.startswith("NC") else t


def _from_nhwc(t, data_format):
    return transpose(t, (0, 3, 1, 2)) if data_format.startswith("NC") else t


def _check_format(data_format, op_name):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{op_name}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")


# -- Conv2D ----------------------------------------------------------------------------------

def _float_same(op_name, ts):
    d = ts[0]._dtype
    if any(t._dtype is not d for t in ts) or not d.is_floating:
        raise InvalidArgumentError(
            None, None, f"{op_name}: inputs must be floating point tensors of one dtype, got {describe(ts)}")


def _check_rank4(op_name, ts, names):
    for t, nm in zip(ts, names):
        if t._array.ndim != 4:
            raise InvalidArgumentError(
                None, None, f"{op_name}: {nm} must be 4-dimensional, got {describe([t])} (inputs: {describe(ts)})")


def _conv2d_rule(op, ts, attrs):
    x, w = ts
    _check_rank4(op.name, ts, ("input", "filter"))
    _float_same(op.name, ts)
    if x._array.shape[3] != w._array.shape[2]:
        raise InvalidArgumentError(
            None, None, f"{op.name}: input depth {x._array.shape[3]} must equal filter in_channels "
            f"{w._array.shape[2]} (input {describe([x])}, filter {describe([w])})")
    oh, ow, _, _ = conv_geometry(x._array.shape, w._array.shape[0], w._array.shape[1], attrs["strides"],
                                 attrs["dilations"], attrs["padding"], attrs["explicit_paddings"])
    _check_geometry(op.name, ts, oh, ow)
    return None


def _conv_attrs(attrs):
    return {k: attrs[k] for k in ("strides", "padding", "explicit_paddings", "data_format", "dilations")}


def _set_grads(fwd, backprop_input, backprop_filter):
    """Gradients of a convolution family (Conv2D or DepthwiseConv2dNative and its two backprops).

    ``y = fwd(x, w)``, ``dx = backprop_input(w, dy)`` and ``dw = backprop_filter(x, dy)`` are all
    bilinear and adjoint to each other, so each op's gradient is made of the other two: the same
    three formulas serve the dense and the depthwise family. Second derivatives come for free.
    """

    def fwd_grad(call, g):
        x, w = call.inputs
        a = _conv_attrs(call.attrs)
        # The first layer's input (the images) is rarely differentiated: skip that col2im when unused.
        return [execute(backprop_input, (w, g), {**a, "input_sizes": tuple(x._array.shape)})
                if call.needs_grad(0) else None,
                execute(backprop_filter, (x, g), {**a, "filter_sizes": tuple(w._array.shape),
                                                  **(call.residuals or {})})  # e.g. Conv2D's im2col columns
                if call.needs_grad(1) else None]

    def input_grad(call, g):
        w, dy = call.inputs
        a = _conv_attrs(call.attrs)
        return [execute(backprop_filter, (g, dy), {**a, "filter_sizes": tuple(w._array.shape)}),
                execute(fwd, (g, w), a)]

    def filter_grad(call, g):
        x, dy = call.inputs
        a = _conv_attrs(call.attrs)
        return [execute(backprop_input, (g, dy), {**a, "input_sizes": tuple(x._array.shape)}),
                execute(fwd, (x, g), a)]

    fwd.gradient(fwd_grad)
    backprop_input.gradient(input_grad)
    backprop_filter.gradient(filter_grad)


CONV2D = Op("Conv2D", rule=_conv2d_rule, saves_residuals=True)


def _im2col(xp, xpad, oh, ow, kh, kw, strides, dilations):
    n, c = xpad.shape[0], xpad.shape[3]
    if c == 1:
        # One channel (grey images): a copy per tap into a tap-major [KH*KW, N*OH*OW] buffer (each tap's
        # rows are contiguous runs: ~3.5x faster than writing every KH*KW-th value or copying the 6-D
        # view), returned transposed: a Fortran-ordered [N*OH*OW, KH*KW] view, which BLAS reads as is.
        cols = xp.empty((kh * kw, n, oh, ow), dtype=xpad.dtype)
        for i in range(kh):
            for j in range(kw):
                cols[i * kw + j] = xpad[tap_slice(i, j, oh, ow, strides, dilations)][..., 0]
        return cols.reshape(kh * kw, n * oh * ow).T
    return windows(xp, xpad, oh, ow, kh, kw, strides, dilations).reshape(n * oh * ow, kh * kw * c)


def _columns(xp, x, oh, ow, kh, kw, strides, dilations, ph, pw):
    """im2col ``[N*OH*OW, KH*KW*C]`` of the unpadded NHWC input ``x`` with paddings ``ph``/``pw`` folded in:
    :func:`_im2col` of the padded input (any backend's arrays)."""
    return _im2col(xp, pad_spatial(xp, x, ph, pw), oh, ow, kh, kw, strides, dilations)


def _host_columns(xp, x, oh, ow, kh, kw, strides, dilations, ph, pw):
    """:func:`_columns` for the CPU's generic candidates: the native kernel (one pass, no padded copy) when
    it can take ``x``, else :func:`_im2col` of the padded input. Both give the same matrix; only the native
    one is always C-ordered."""
    if x.shape[3] > 1 and native_cpu.supports(x):  # one channel: _im2col's tap-major copy is faster
        n, h, w, c = x.shape
        out = np.empty((n * oh * ow, kh * kw * c), dtype=x.dtype)
        native_cpu.library().fn("tfc_im2col", x.dtype)(
            native_cpu.ptr(x), n, h, w, c, kh, kw, strides[1], strides[2], dilations[1], dilations[2], ph[0],
            pw[0], oh, ow, native_cpu.ptr(out))
        return out
    return _im2col(xp, pad_spatial(xp, x, ph, pw), oh, ow, kh, kw, strides, dilations)


# The direct kernels' reach (measured on one core against im2col + OpenBLAS): any output-channel count
# of 4 or a multiple of 8 while a pixel's sum has at most this many (tap, input channel) terms; with 16
# or fewer output channels always (skinny GEMMs are where BLAS is weakest); and at any sum length for the
# output-channel counts of the wide kernels (several SIMD vectors per pixel, AVX-512 builds: 32 or more
# float32 channels at ~110 GFLOP/s a core against ~60 for BLAS on 3x3 32->64).
_DIRECT_MAX_TERMS = 256


def _direct_ready(co, terms, *arrays, contiguous=True):
    """Whether the native direct convolution kernels take these NumPy arrays: ``co`` output channels
    (4 or a multiple of 8, in chunks of one or more SIMD vectors) and ``terms`` (tap, input channel) pairs
    per sum (see ``_DIRECT_MAX_TERMS``)."""
    if not (co == 4 or co % 8 == 0):
        return False
    if not native_cpu.supports(*arrays, contiguous=contiguous):
        return False
    if co > 16 and terms > _DIRECT_MAX_TERMS:
        wide = native_cpu.library().wide_direct_channels(arrays[0].dtype)
        return wide > 0 and co % wide == 0
    return True


def direct_conv2d_applies(x, w, bias=None, strides=None, dilations=None):
    """Whether :func:`direct_conv2d` takes these arrays (a kernel-candidate predicate: no copies made): the
    direct kernels do, or (given Conv2D's ``strides`` and ``dilations``) the Winograd kernel does."""
    arrays = (x, w) if bias is None else (x, w, bias)
    if w.ndim != 4:
        return False
    if _direct_ready(w.shape[3], w.shape[0] * w.shape[1] * w.shape[2], *arrays, contiguous=False):
        return True
    return strides is not None and conv_winograd.winograd_applies(x, w, strides, dilations) and (
        bias is None or native_cpu.supports(x, bias, contiguous=False))


def direct_conv2d(x, w, bias, *, strides, padding, explicit_paddings, dilations, relu=False, **_):
    """``conv2d(x, w) + bias`` (``bias`` may be None), then ``max(., 0)`` when ``relu``, by the native kernels,
    the bias added to the finished sums (Conv2D + BiasAdd's rounding) and the ReLU applied before the store
    (NaN kept, as ``np.maximum``); Conv2D's attrs. A stride-1 convolution with enough of its taps on the
    padding runs the input gradient's phase kernel with the flipped filter (:func:`_phase_correlation`: it
    sums only the taps inside the input, so the padding costs no multiply-adds), the others the direct
    kernel; a stride-1 3x3 or 5x5 float32 convolution of 16 or more channels runs the Winograd kernel
    (:mod:`conv_winograd`) first where few of its taps fall on the padding (:func:`_winograd_pays`). Call only
    where :func:`direct_conv2d_applies`."""
    kh, kw = w.shape[0], w.shape[1]
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, dilations, padding, explicit_paddings)
    if conv_winograd.winograd_applies(x, w, strides, dilations) and (
            _winograd_pays(x.shape, kh, ph[0], pw[0], oh, ow) or not _direct_applies(x, w)):
        out = conv_winograd.winograd_conv2d(x, w, oh, ow, ph, pw, bias, relu)
        if out is not None:
            return out
        if not _direct_applies(x, w):  # a non-finite value: the exact sums of im2col + GEMM
            out = _im2col_conv2d(np, x, w, oh, ow, strides, dilations, ph, pw, _host_columns)[0]
            out = out if bias is None else out + bias
            return np.maximum(out, 0) if relu else out
    if not _phase_forward_pays(x.shape, kh, kw, strides, dilations, ph, pw, oh, ow):
        return _direct(x, w, oh, ow, strides, dilations, ph, pw, bias, relu)
    top, left = (kh - 1) * dilations[1] - ph[0], (kw - 1) * dilations[2] - pw[0]
    return _phase_correlation(x, w[::-1, ::-1], _UNIT_STRIDES, dilations, top, left, oh, ow, bias, relu)


def _kernel_channels(co):
    """The output-channel count the direct kernels run ``co`` channels as: ``co`` when they take it (4 or a
    multiple of 8), else the next such count; the added filters are zeros and their outputs are dropped. A
    few wasted sums cost far less than im2col for the 1-3 channels of a last layer or a first layer's input
    gradient (256x28x28, 16 -> 1 channel, 3x3: 25 ms through im2col, 3 ms direct, one core)."""
    return co if co == 4 or co % 8 == 0 else (4 if co < 4 else -(-co // 8) * 8)


def _zero_padded_channels(a, count):
    """``a`` with its last axis zero-padded to ``count`` (``a`` itself when it has that many)."""
    if a is None or a.shape[-1] == count:
        return a
    out = np.zeros(a.shape[:-1] + (count,), dtype=a.dtype)
    out[..., :a.shape[-1]] = a
    return out


def _direct_applies(x, w):
    """Whether :func:`_direct` takes NHWC ``x`` and a filter ``w`` ``[KH, KW, C, CO]`` (decided before any
    copy: the im2col path does not need contiguous inputs)."""
    return _direct_ready(_kernel_channels(w.shape[3]), w.shape[0] * w.shape[1] * w.shape[2], x, w, contiguous=False)


def _direct(x, w, oh, ow, strides, dilations, ph, pw, bias=None, relu=False):
    """Conv2D of NHWC ``x`` with ``w`` ``[KH, KW, C, CO]`` (plus ``bias``, then ReLU when ``relu``) by the native
    direct kernel (no im2col matrix: for the few channels of small CNNs its memory traffic costs more than the
    product). Call only where :func:`_direct_applies`."""
    co = w.shape[3]
    run_co = _kernel_channels(co)
    out = _run_direct(x, _zero_padded_channels(w, run_co), oh, ow, strides, dilations, ph, pw,
                      _zero_padded_channels(bias, run_co), relu)
    return out if run_co == co else np.ascontiguousarray(out[..., :co])


def _run_direct(x, w, oh, ow, strides, dilations, ph, pw, bias, relu=False):
    """:func:`_direct` once its arrays are known to fit the kernel."""
    w = np.ascontiguousarray(w)
    bias = None if bias is None else np.ascontiguousarray(bias)
    x = np.ascontiguousarray(x)  # the kernel pads it itself, an image at a time in cache (no padded copy here)
    n, h, wd, c = x.shape
    kh, kw, _, co = w.shape
    out = np.empty((n, oh, ow, co), dtype=x.dtype)
    offsets = np.empty(kh * kw * c, np.int64)  # kernel scratch; a named reference keeps it alive during the call
    native_cpu.library().fn("tfc_conv2d_direct", x.dtype)(
        native_cpu.ptr(x), n, h, wd, c, ph[0], ph[1], pw[0], pw[1], native_cpu.ptr(w), kh, kw, co, strides[1],
        strides[2], dilations[1], dilations[2], oh, ow, None if bias is None else native_cpu.ptr(bias), int(relu),
        native_cpu.ptr(out), native_cpu.ptr(offsets))
    return out


def _direct_filter_grad(x, dy, kh, kw, strides, dilations, ph, pw):
    """Conv2DBackpropFilter ``[KH, KW, C, CO]`` by the native kernel (one pass over ``x`` and ``dy`` per
    block of filter rows, no im2col matrix). Call only where :func:`_direct_filter_grad_applies`."""
    co = dy.shape[3]
    run_co = _kernel_channels(co)
    dy = np.ascontiguousarray(_zero_padded_channels(dy, run_co))
    x = np.ascontiguousarray(x)  # padded by the kernel, an image at a time in cache
    n, h, wd, c = x.shape
    _, oh, ow, _ = dy.shape
    out = np.empty((kh, kw, c, run_co), dtype=x.dtype)
    offsets = np.empty(kh * kw * c, np.int64)
    native_cpu.library().fn("tfc_conv2d_wgrad_direct", x.dtype)(
        native_cpu.ptr(x), n, h, wd, c, ph[0], ph[1], pw[0], pw[1], native_cpu.ptr(dy), kh, kw, run_co, strides[1],
        strides[2], dilations[1], dilations[2], oh, ow, native_cpu.ptr(out), native_cpu.ptr(offsets))
    return out if run_co == co else np.ascontiguousarray(out[..., :co])


# im2col matrices larger than this are not kept for the filter gradient (memory over speed).
MAX_SAVED_COLUMNS_BYTES = 8 << 20


def _register_generic(op, impl):
    """Register ``impl(b, *arrays, columns=..., **attrs)`` as ``op``'s generic (last) candidate: on the CPU
    with :func:`_host_columns` (native im2col where it applies), on other kinds with :func:`_columns`."""
    op.kernel("cpu", name=f"{impl.__name__}[host im2col]")(functools.partial(impl, columns=_host_columns))
    op.kernel("cuda", name=impl.__name__)(functools.partial(impl, columns=_columns))


def _conv2d(b, x, w, *, strides, padding, explicit_paddings, data_format, dilations, columns):
    """Conv2D by im2col and one BLAS product (chunked over the batch), the columns kept for the filter
    gradient when they are small; ``columns``: the im2col function of the backend kind."""
    oh, ow, ph, pw = conv_geometry(x.shape, w.shape[0], w.shape[1], strides, dilations, padding, explicit_paddings)
    out, cols = _im2col_conv2d(b.xp, x, w, oh, ow, strides, dilations, ph, pw, columns)
    if cols is not None and cols.nbytes <= MAX_SAVED_COLUMNS_BYTES:  # the filter gradient needs exactly these
        return Residuals(out, im2col=cols)
    return out


def _im2col_conv2d(xp, x, w, oh, ow, strides, dilations, ph, pw, columns):
    """``(out, cols)``: Conv2D of NHWC ``x`` with ``w`` by im2col (``columns``) and BLAS products, chunked over the
    batch (``cols``: the one chunk's columns, None when there were several). :func:`_conv2d`, and the
    non-finite fallback of a Winograd convolution the direct kernels do not take (:func:`direct_conv2d`: the
    bits of Winograd off)."""
    n, _, _, c = x.shape
    kh, kw, _, co = w.shape
    wmat = w.reshape(kh * kw * c, co)
    chunks = _batch_chunks(n, oh * ow * kh * kw * c)
    if len(chunks) == 1:
        cols = columns(xp, x, oh, ow, kh, kw, strides, dilations, ph, pw)
        return blas_threads.matmul(cols, wmat).reshape(n, oh, ow, co), cols
    out = xp.empty((n * oh * ow, co), dtype=x.dtype)
    for s, e in chunks:
        out[s * oh * ow:e * oh * ow] = blas_threads.matmul(
            columns(xp, x[s:e], oh, ow, kh, kw, strides, dilations, ph, pw), wmat)
    return out.reshape(n, oh, ow, co), None


_register_generic(CONV2D, _conv2d)
_register_half_in_float32(CONV2D)


def _conv2d_direct_applies(x, w, *, strides, dilations, **_):
    """``supports=`` of :func:`_conv2d_direct_native`: the direct (:func:`_direct_applies`) or the Winograd
    kernel takes the arrays."""
    return _direct_applies(x, w) or conv_winograd.winograd_applies(x, w, strides, dilations)


# Stride-1 forward convolutions whose taps fall on the padding at least this often (a share of all the
# multiply-adds), with at least this many (tap, input channel) terms per sum, run the input gradient's
# kernel, which skips those taps (one core: 3x3 64->128 on 8x8 (16% padding) -13%, 4x4 SAME 8->16 on 14x14
# (14%) -12%, 5x5 8->16 on 28x28 (8%) -10%); with less padding (3x3 on 28x28: 5%) or shorter sums (3x3
# 1->8: 9 terms) its per-row bookkeeping costs about what it saves.
_PHASE_MIN_PADDING = 0.075
_PHASE_MIN_TERMS = 64


def _inside_share(size, k, dilation, pad_before, out):
    """The share of a stride-1 convolution's (output, tap) pairs along one axis whose input lies inside it."""
    inside = sum(max(0, min(out, size + pad_before - i * dilation) - max(0, pad_before - i * dilation))
                 for i in range(k))
    return inside / (out * k) if out else 1.0


@CONV2D.kernel("cpu", supports=_conv2d_direct_applies, priority=1, name="conv2d_direct_native")
def _conv2d_direct_native(b, x, w, *, strides, padding, explicit_paddings, data_format, dilations):
    """Conv2D by the native kernels (:func:`direct_conv2d`)."""
    return direct_conv2d(x, w, None, strides=strides, padding=padding, explicit_paddings=explicit_paddings,
                         dilations=dilations)


# Stride-1 convolutions with more of their taps on the padding than this run the phase kernel, which skips
# them, rather than Winograd, which multiplies them (a 5x5 VALID input gradient on 12x12 dy, 44% padding:
# 2.65 ms Winograd, 2.45 phase, 2 cores; 5x5 SAME on 16x16, 14%: 2.6 against 3.45).
_WINOGRAD_MAX_PADDING = 0.25


def _winograd_pays(x_shape, k, top, left, oh, ow):
    """Whether a stride-1 k x k convolution of ``x_shape`` (NHWC) padded by ``top``/``left`` (and to ``oh x ow``
    outputs) has few enough taps on the padding for Winograd to beat the phase kernel."""
    return (_inside_share(x_shape[1], k, 1, top, oh) * _inside_share(x_shape[2], k, 1, left, ow)
            > 1 - _WINOGRAD_MAX_PADDING)


def _phase_forward_pays(x_shape, kh, kw, strides, dilations, ph, pw, oh, ow):
    """Whether a forward convolution runs the input gradient's phase kernel: stride 1, sums of at least
    ``_PHASE_MIN_TERMS`` terms, at least ``_PHASE_MIN_PADDING`` of the taps on the padding."""
    return (strides[1] == 1 and strides[2] == 1 and kh * kw * x_shape[3] >= _PHASE_MIN_TERMS
            and _inside_share(x_shape[1], kh, dilations[1], ph[0], oh)
            * _inside_share(x_shape[2], kw, dilations[2], pw[0], ow) <= 1 - _PHASE_MIN_PADDING)


# -- Conv2DBackpropInput ---------------------------------------------------------------------

def _backprop_input_rule(op, ts, attrs):
    w, dy = ts
    _check_rank4(op.name, ts, ("filter", "out_backprop"))
    _float_same(op.name, ts)
    sizes = attrs["input_sizes"]
    if len(sizes) != 4:
        raise InvalidArgumentError(None, None, f"{op.name}: input_sizes must have 4 elements, got {list(sizes)}")
    kh, kw, ci, co = w._array.shape
    depth_ok = sizes[3] == ci
    out_c = ci * co if op is DEPTHWISE_CONV2D_BACKPROP_INPUT else co
    oh, ow, _, _ = conv_geometry(sizes, kh, kw, attrs["strides"], attrs["dilations"], attrs["padding"],
                                 attrs["explicit_paddings"])
    if (not depth_ok or dy._array.shape != (sizes[0], oh, ow, out_c)):
        raise InvalidArgumentError(
            None, None, f"{op.name}: out_backprop {describe([dy])} does not match the output "
            f"[{sizes[0]}, {oh}, {ow}, {out_c}] of input_sizes {list(sizes)} with filter {describe([w])} "
            f"(strides {list(attrs['strides'])}, padding {attrs['padding']})")
    return None


CONV2D_BACKPROP_INPUT = Op("Conv2DBackpropInput", rule=_backprop_input_rule)


def _conv2d_backprop_input(b, w, dy, *, input_sizes, strides, padding, explicit_paddings, data_format,
                           dilations, columns):
    """Conv2DBackpropInput: at stride 1 one im2col product of the padded ``dy`` with the flipped filter
    (where the forward padding allows it), else one product per kernel tap slice-added into the padded
    input gradient; ``columns``: the im2col function of the backend kind."""
    kh, kw, c, co = w.shape
    oh, ow, ph, pw = conv_geometry(input_sizes, kh, kw, strides, dilations, padding, explicit_paddings)
    n = input_sizes[0]
    if strides[1] == 1 and strides[2] == 1 and _flipped_pads(w.shape, ph, pw, dilations) is not None:
        return _backprop_input_stride1(b.xp, w, dy, input_sizes, ph, pw, dilations, columns)
    dy2 = dy.reshape(n * oh * ow, co)
    # col2im: one [N*OH*OW, C] product per kernel tap, slice-added into the padded input gradient
    # (half the time of one big product followed by strided scatters, and no [.., KH*KW*C] buffer)
    dxpad = _padded_zeros(b.xp, input_sizes, ph, pw, dy.dtype)
    for i in range(kh):
        for j in range(kw):
            tap = blas_threads.matmul(dy2, w[i, j].T).reshape(n, oh, ow, c)
            dxpad[tap_slice(i, j, oh, ow, strides, dilations)] += tap
    return unpad_spatial(b.xp, dxpad, ph, pw)


def _flipped_pads(w_shape, ph, pw, dilations):
    """``((top, bottom), (left, right))`` padding of ``dy`` for the stride-1 flipped-filter correlation (the
    kernel extent minus the forward padding), or None when a forward padding exceeds the kernel extent (the
    padding would be negative; the per-tap path runs)."""
    kh, kw = w_shape[0], w_shape[1]
    dh, dw = dilations[1], dilations[2]
    top, bottom = (kh - 1) * dh - ph[0], (kh - 1) * dh - ph[1]
    left, right = (kw - 1) * dw - pw[0], (kw - 1) * dw - pw[1]
    if min(top, bottom, left, right) < 0:
        return None
    return (top, bottom), (left, right)


def _flipped_filter(xp, w):
    """The spatially flipped, in/out-transposed filter ``[KH, KW, CO, C]`` of the input gradient."""
    return xp.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))


def _backprop_input_stride1(xp, w, dy, input_sizes, ph, pw, dilations, columns):
    """Stride-1 input gradient as ONE im2col product: the correlation of ``dy`` (padded by the
    kernel extent minus the forward padding) with the spatially flipped, in/out-transposed filter.
    ~20% faster than a product per tap plus slice-adds. Call only where :func:`_flipped_pads` is not None."""
    kh, kw, c, co = w.shape
    n, h, wd, _ = input_sizes
    pads = _flipped_pads(w.shape, ph, pw, dilations)
    wflip = _flipped_filter(xp, w).reshape(kh * kw * co, c)
    chunks = _batch_chunks(n, h * wd * kh * kw * co)
    if len(chunks) == 1:
        dx = blas_threads.matmul(columns(xp, dy, h, wd, kh, kw, _UNIT_STRIDES, dilations, *pads), wflip)
    else:
        dx = xp.empty((n * h * wd, c), dtype=dy.dtype)
        for s, e in chunks:
            dx[s * h * wd:e * h * wd] = blas_threads.matmul(
                columns(xp, dy[s:e], h, wd, kh, kw, _UNIT_STRIDES, dilations, *pads), wflip)
    return dx.reshape(n, h, wd, c)


def _backprop_input_direct_applies(w, dy, *, input_sizes, strides, **attrs):
    """``supports=`` of :func:`_conv2d_backprop_input_direct_native`: the direct kernel takes the arrays, the
    input channels run as :func:`_kernel_channels` (any count, any stride, dilation and padding: the kernel
    sums each stride phase's own taps, so no stride multiplies zeros; :func:`_dgrad_direct_ready`), or the
    Winograd kernel does (:func:`_winograd_input_grad_pads`, only asked when the direct kernel declines)."""
    return _dgrad_direct_ready(w, dy, strides) or _winograd_input_grad_pads(
        w, dy, input_sizes=input_sizes, strides=strides, **attrs) is not None


def _dgrad_direct_ready(w, dy, strides):
    """Whether the direct (phase) kernel takes the input gradient of ``w`` and ``dy``: the input channels run
    as :func:`_kernel_channels`, the sum length is one stride phase's."""
    kh, kw, c, co = w.shape
    terms = -(-kh // strides[1]) * -(-kw // strides[2]) * co
    return _direct_ready(_kernel_channels(c), terms, dy, w, contiguous=False)


def _winograd_input_grad_pads(w, dy, *, input_sizes, strides, dilations, padding, explicit_paddings, **_):
    """The (top, bottom), (left, right) pads of the stride-1 input gradient as a Winograd Conv2D of ``dy`` with
    the flipped filter (the forward pads mirrored), or None where the Winograd kernel does not take it (a
    forward pad wider than the kernel, or see :func:`conv_winograd.winograd_applies`) or where the phase kernel
    is faster (most of the taps on the mirrored padding: :func:`_winograd_pays`)."""
    if not conv_winograd.winograd_applies(dy, w, strides, dilations):
        return None
    kh, kw = w.shape[0], w.shape[1]
    _, _, ph, pw = conv_geometry(input_sizes, kh, kw, strides, dilations, padding, explicit_paddings)
    pads = (kh - 1 - ph[0], kh - 1 - ph[1]), (kw - 1 - pw[0], kw - 1 - pw[1])
    if min(pads[0] + pads[1]) < 0:
        return None
    pays = _winograd_pays(dy.shape, kh, pads[0][0], pads[1][0], input_sizes[1], input_sizes[2])
    return pads if pays or not _dgrad_direct_ready(w, dy, strides) else None


@CONV2D_BACKPROP_INPUT.kernel("cpu", supports=_backprop_input_direct_applies, priority=1,
                              name="conv2d_backprop_input_direct_native")
def _conv2d_backprop_input_direct_native(b, w, dy, *, input_sizes, strides, padding, explicit_paddings,
                                         data_format, dilations):
    """Input gradient by the native kernel ``tfc_conv2d_dgrad_direct`` (``kernels/cpu_kernels.cc``): per stride
    phase (the dx pixels ``(y mod sh, x mod sw)``) a stride-1 correlation of the compact ``dy`` with the taps
    that reach that phase, each dx row summing only the taps whose dy row exists and the pixels near a row's
    ends skipping the columns outside ``dy``: no zero-spread or zero-padded ``dy`` (a 7x7 stride-2 input
    gradient multiplied 4x its useful work by zeros that way, a 5x5 VALID one on 16x16 inputs 1.8x). Stride-1 3x3
    and 5x5 float32 input gradients of 16 or more channels run the Winograd kernel (:mod:`conv_winograd`)."""
    kh, kw = w.shape[0], w.shape[1]
    _, h, wd, _ = input_sizes
    _, _, ph, pw = conv_geometry(input_sizes, kh, kw, strides, dilations, padding, explicit_paddings)
    attrs = dict(strides=strides, padding=padding, explicit_paddings=explicit_paddings, dilations=dilations)
    pads = _winograd_input_grad_pads(w, dy, input_sizes=input_sizes, **attrs)
    if pads is not None:
        # a stride-1 input gradient is Conv2D of dy with the flipped filter [kh, kw, co, c] (the padding mirrored)
        dx = conv_winograd.winograd_conv2d(dy, w[::-1, ::-1].transpose(0, 1, 3, 2), h, wd, *pads)
        if dx is not None:
            return dx
        if not _dgrad_direct_ready(w, dy, strides):  # a non-finite value: the exact sums of im2col + GEMM
            return _conv2d_backprop_input(b, w, dy, input_sizes=input_sizes, data_format=data_format,
                                          columns=_host_columns, **attrs)
    return _phase_correlation(dy, w.transpose(0, 1, 3, 2), strides, dilations, ph[0], pw[0], h, wd)


def _phase_correlation(src, wt, strides, dilations, top, left, h, w, bias=None, relu=False):
    """``out[b, y, x, :] = sum of src[b, oy, ox, k] * wt[i, j, k, :]`` over the taps (i, j) and channels k with
    ``oy = (y + top - i*dh) / sh``, ``ox = (x + left - j*dw) / sw`` whole and inside ``src``: the native
    ``tfc_conv2d_dgrad_direct`` (Conv2DBackpropInput with ``wt`` = the filter as ``[KH, KW, CO, C]``; at unit
    strides also Conv2D with the flipped filter, then plus ``bias`` and the ReLU when ``relu``, as the direct
    kernel), ``h x w`` output pixels, any output-channel count (:func:`_kernel_channels`). Call only where
    :func:`_direct_ready` takes the arrays."""
    kh, kw, k, c = wt.shape
    run_c = _kernel_channels(c)
    wt = np.ascontiguousarray(_zero_padded_channels(wt, run_c))
    bias = None if bias is None else np.ascontiguousarray(_zero_padded_channels(bias, run_c))
    src = np.ascontiguousarray(src)
    n = src.shape[0]
    out = np.empty((n, h, w, run_c), dtype=src.dtype)
    native_cpu.library().fn("tfc_conv2d_dgrad_direct", src.dtype)(
        native_cpu.ptr(src), n, src.shape[1], src.shape[2], k, native_cpu.ptr(wt), kh, kw, run_c, strides[1],
        strides[2], dilations[1], dilations[2], top, left, h, w, None if bias is None else native_cpu.ptr(bias),
        int(relu), native_cpu.ptr(out))
    return out if run_c == c else np.ascontiguousarray(out[..., :c])


_UNIT_STRIDES = (1, 1, 1, 1)
_register_generic(CONV2D_BACKPROP_INPUT, _conv2d_backprop_input)
_register_half_in_float32(CONV2D_BACKPROP_INPUT)


# -- Conv2DBackpropFilter --------------------------------------------------------------------

def _backprop_filter_rule(op, ts, attrs):
    x, dy = ts
    _check_rank4(op.name, ts, ("input", "out_backprop"))
    _float_same(op.name, ts)
    fs = attrs["filter_sizes"]
    if len(fs) != 4:
        raise InvalidArgumentError(None, None, f"{op.name}: filter_sizes must have 4 elements, got {list(fs)}")
    depthwise = op is DEPTHWISE_CONV2D_BACKPROP_FILTER
    out_c = fs[2] * fs[3] if depthwise else fs[3]
    oh, ow, _, _ = conv_geometry(x._array.shape, fs[0], fs[1], attrs["strides"], attrs["dilations"],
                                 attrs["padding"], attrs["explicit_paddings"])
    if fs[2] != x._array.shape[3] or dy._array.shape != (x._array.shape[0], oh, ow, out_c):
        raise InvalidArgumentError(
            None, None, f"{op.name}: out_backprop {describe([dy])} does not match the output "
            f"[{x._array.shape[0]}, {oh}, {ow}, {out_c}] of input {describe([x])} with filter_sizes {list(fs)}")
    return None


CONV2D_BACKPROP_FILTER = Op("Conv2DBackpropFilter", rule=_backprop_filter_rule, residual_attrs=("im2col",))
_set_grads(CONV2D, CONV2D_BACKPROP_INPUT, CONV2D_BACKPROP_FILTER)


def _conv2d_backprop_filter(b, x, dy, *, filter_sizes, strides, padding, explicit_paddings, data_format,
                            dilations, columns, im2col=None):
    """dW by im2col products; ``im2col``: the forward pass's columns of ``x`` (Conv2D's residual), when the
    gradient has them; ``columns``: the im2col function of the backend kind."""
    xp = b.xp
    kh, kw, c, co = filter_sizes
    n = x.shape[0]
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, dilations, padding, explicit_paddings)
    if im2col is not None and im2col.dtype == x.dtype:
        dw = blas_threads.matmul(im2col.T, dy.reshape(n * oh * ow, co))
        return dw.reshape(kh, kw, c, co)
    dw = None
    for s, e in _batch_chunks(n, oh * ow * kh * kw * c):
        cols = columns(xp, x[s:e], oh, ow, kh, kw, strides, dilations, ph, pw)
        part = blas_threads.matmul(cols.T, dy[s:e].reshape((e - s) * oh * ow, co))
        dw = part if dw is None else dw + part
    return dw.reshape(kh, kw, c, co)


def _direct_filter_grad_applies(x, dy, *, filter_sizes, im2col=None, **_):
    """``supports=`` of :func:`_conv2d_backprop_filter_direct_native`: no usable im2col residual (that
    product is cheaper) and the direct kernel takes the arrays."""
    if im2col is not None and im2col.dtype == x.dtype:
        return False
    kh, kw, c, _ = filter_sizes
    return _direct_ready(_kernel_channels(dy.shape[3]), kh * kw * c, x, dy, contiguous=False)


_register_generic(CONV2D_BACKPROP_FILTER, _conv2d_backprop_filter)
_register_half_in_float32(CONV2D_BACKPROP_FILTER)


@CONV2D_BACKPROP_FILTER.kernel("cpu", supports=_direct_filter_grad_applies, priority=1,
                               name="conv2d_backprop_filter_direct_native")
def _conv2d_backprop_filter_direct_native(b, x, dy, *, filter_sizes, strides, padding, explicit_paddings,
                                          data_format, dilations, im2col=None):
    """dW by the native direct kernel (see :func:`_direct_filter_grad`)."""
    kh, kw = filter_sizes[0], filter_sizes[1]
    _, _, ph, pw = conv_geometry(x.shape, kh, kw, strides, dilations, padding, explicit_paddings)
    return _direct_filter_grad(x, dy, kh, kw, strides, dilations, ph, pw)


# -- depthwise convolution -------------------------------------------------------------------

def _native_depthwise_applies(a, b, **_):
    """``supports=`` of the native depthwise candidates: NumPy float32/float64 arrays of one dtype and a
    channel multiplier of 1 (the filter, or the filter-sized output, is ``[kh, kw, c, 1]``)."""
    return type(a) is np.ndarray and native_cpu.supports(a, b, contiguous=False)


def _depthwise_args(strides, dilations):
    return strides[1], strides[2], dilations[1], dilations[2]


DEPTHWISE_CONV2D = Op("DepthwiseConv2dNative", rule=_conv2d_rule)


@DEPTHWISE_CONV2D.kernel()
def _depthwise_conv2d(b, x, w, *, strides, padding, explicit_paddings, data_format, dilations):
    """Output channel ``c * multiplier + m`` = sum over taps of ``x[..., c] * w[i, j, c, m]`` (TF's order)."""
    xp = b.xp
    n, _, _, c = x.shape
    kh, kw, _, m = w.shape
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, dilations, padding, explicit_paddings)
    xpad = pad_spatial(xp, x, ph, pw)
    if m == 1:  # the common case: 4-D products into one reused buffer (no 5-D broadcast temporaries)
        out = xp.zeros((n, oh, ow, c), dtype=x.dtype)
        tmp = xp.empty_like(out)
        for i in range(kh):
            for j in range(kw):
                xp.multiply(xpad[tap_slice(i, j, oh, ow, strides, dilations)], w[i, j, :, 0], out=tmp)
                out += tmp
        return out
    out = xp.zeros((n, oh, ow, c, m), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            out += xpad[tap_slice(i, j, oh, ow, strides, dilations)][..., None] * w[i, j]
    return out.reshape(n, oh, ow, c * m)


_register_half_in_float32(DEPTHWISE_CONV2D, _depthwise_conv2d)


@DEPTHWISE_CONV2D.kernel("cpu", supports=lambda x, w, **_: w.shape[3] == 1 and _native_depthwise_applies(x, w),
                          priority=1, name="depthwise_conv2d_native")
def _depthwise_conv2d_native(b, x, w, *, strides, padding, explicit_paddings, data_format, dilations):
    """Multiplier 1 by the native kernel (``kernels/cpu_kernels.cc``: one pass, split over the threads, the
    padding done in the kernel image by image)."""
    n, h, wd, c = x.shape
    kh, kw = w.shape[:2]
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, dilations, padding, explicit_paddings)
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    out = np.empty((n, oh, ow, c), dtype=x.dtype)
    native_cpu.library().fn("tfc_depthwise_fwd", x.dtype)(
        native_cpu.ptr(x), n, h, wd, c, *ph, *pw, native_cpu.ptr(w), kh, kw, *_depthwise_args(strides, dilations),
        oh, ow, native_cpu.ptr(out))
    return out


DEPTHWISE_CONV2D_BACKPROP_INPUT = Op("DepthwiseConv2dNativeBackpropInput", rule=_backprop_input_rule)


@DEPTHWISE_CONV2D_BACKPROP_INPUT.kernel()
def _depthwise_backprop_input(b, w, dy, *, input_sizes, strides, padding, explicit_paddings, data_format,
                              dilations):
    xp = b.xp
    n, _, _, c = input_sizes
    kh, kw, _, m = w.shape
    oh, ow, ph, pw = conv_geometry(input_sizes, kh, kw, strides, dilations, padding, explicit_paddings)
    dxpad = _padded_zeros(xp, input_sizes, ph, pw, dy.dtype)
    if m == 1:  # one multiplier: no sum over it, products into one reused buffer
        tmp = xp.empty_like(dy)
        for i in range(kh):
            for j in range(kw):
                dxpad[tap_slice(i, j, oh, ow, strides, dilations)] += xp.multiply(dy, w[i, j, :, 0], out=tmp)
        return unpad_spatial(xp, dxpad, ph, pw)
    dy = dy.reshape(n, oh, ow, c, m)
    for i in range(kh):
        for j in range(kw):
            dxpad[tap_slice(i, j, oh, ow, strides, dilations)] += (dy * w[i, j]).sum(axis=-1)
    return unpad_spatial(xp, dxpad, ph, pw)


_register_half_in_float32(DEPTHWISE_CONV2D_BACKPROP_INPUT, _depthwise_backprop_input)


@DEPTHWISE_CONV2D_BACKPROP_INPUT.kernel("cpu", supports=lambda w, dy, **_: w.shape[3] == 1 and
                                        _native_depthwise_applies(dy, w), priority=1,
                                        name="depthwise_backprop_input_native")
def _depthwise_backprop_input_native(b, w, dy, *, input_sizes, strides, padding, explicit_paddings, data_format,
                                     dilations):
    """Multiplier 1 by the native kernels: stride 1 as the forward kernel over padded dy with the flipped
    filter, other strides by the gather kernel (each dx pixel sums the dy pixels whose windows cover it)."""
    n, _, _, c = input_sizes
    kh, kw = w.shape[:2]
    oh, ow, ph, pw = conv_geometry(input_sizes, kh, kw, strides, dilations, padding, explicit_paddings)
    dy, w = np.ascontiguousarray(dy), np.ascontiguousarray(w)
    pads = (kh - 1) * dilations[1] - ph[0], (kh - 1) * dilations[1] - ph[1], \
        (kw - 1) * dilations[2] - pw[0], (kw - 1) * dilations[2] - pw[1]
    if strides[1] == strides[2] == 1 and min(pads) >= 0:
        # stride 1: the forward kernel over dy padded (in the kernel) by the kernel extent minus the forward
        # padding, with the flipped filter (a gather per output, no read-modify-write of dx per tap)
        wflip = np.ascontiguousarray(w[::-1, ::-1])
        dx = np.empty((n, input_sizes[1], input_sizes[2], c), dtype=dy.dtype)
        native_cpu.library().fn("tfc_depthwise_fwd", dy.dtype)(
            native_cpu.ptr(dy), n, oh, ow, c, *pads, native_cpu.ptr(wflip), kh, kw,
            *_depthwise_args(strides, dilations), input_sizes[1], input_sizes[2], native_cpu.ptr(dx))
        return dx
    # other strides: each dx pixel gathers the dy pixels whose windows cover it (written once, unpadded)
    dx = np.empty((n, input_sizes[1], input_sizes[2], c), dtype=dy.dtype)
    native_cpu.library().fn("tfc_depthwise_dgrad", dy.dtype)(
        native_cpu.ptr(dy), n, oh, ow, c, ph[0], pw[0], native_cpu.ptr(w), kh, kw,
        *_depthwise_args(strides, dilations), input_sizes[1], input_sizes[2], native_cpu.ptr(dx))
    return dx


DEPTHWISE_CONV2D_BACKPROP_FILTER = Op("DepthwiseConv2dNativeBackpropFilter", rule=_backprop_filter_rule)
_set_grads(DEPTHWISE_CONV2D, DEPTHWISE_CONV2D_BACKPROP_INPUT, DEPTHWISE_CONV2D_BACKPROP_FILTER)


@DEPTHWISE_CONV2D_BACKPROP_FILTER.kernel()
def _depthwise_backprop_filter(b, x, dy, *, filter_sizes, strides, padding, explicit_paddings, data_format,
                               dilations):
    xp = b.xp
    kh, kw, c, m = filter_sizes
    n = x.shape[0]
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, dilations, padding, explicit_paddings)
    xpad = pad_spatial(xp, x, ph, pw)
    dw = xp.empty((kh, kw, c, m), dtype=x.dtype)
    if m == 1:  # per channel a dot product over the pixels: one product buffer, summed over the pixels
        tmp = xp.empty_like(dy)
        for i in range(kh):
            for j in range(kw):
                xp.multiply(xpad[tap_slice(i, j, oh, ow, strides, dilations)], dy, out=tmp)
                dw[i, j, :, 0] = tmp.reshape(-1, c).sum(axis=0)
        return dw
    dy = dy.reshape(n * oh * ow, c, m).transpose(1, 0, 2)           # [C, P, M]
    for i in range(kh):
        for j in range(kw):
            xs = xpad[tap_slice(i, j, oh, ow, strides, dilations)].reshape(n * oh * ow, c).T  # [C, P]
            dw[i, j] = (xs[:, None, :] @ dy)[:, 0, :]
    return dw


_register_half_in_float32(DEPTHWISE_CONV2D_BACKPROP_FILTER, _depthwise_backprop_filter)


@DEPTHWISE_CONV2D_BACKPROP_FILTER.kernel("cpu", supports=lambda x, dy, *, filter_sizes, **_: filter_sizes[3] == 1
                                         and _native_depthwise_applies(x, dy), priority=1,
                                         name="depthwise_backprop_filter_native")
def _depthwise_backprop_filter_native(b, x, dy, *, filter_sizes, strides, padding, explicit_paddings, data_format,
                                      dilations):
    """Multiplier 1 by the native kernel (images split over the threads, each padded in the kernel, partial
    sums added in order)."""
    kh, kw, c, _ = filter_sizes
    n, h, wd, _ = x.shape
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, dilations, padding, explicit_paddings)
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    dw = np.empty((kh, kw, c, 1), dtype=x.dtype)
    native_cpu.library().fn("tfc_depthwise_wgrad", x.dtype)(
        native_cpu.ptr(x), n, h, wd, c, *ph, *pw, native_cpu.ptr(dy), kh, kw, *_depthwise_args(strides, dilations),
        oh, ow, native_cpu.ptr(dw))
    return dw


# -- public API ------------------------------------------------------------------------------

def _conv_call(op_name, strides, padding, data_format, dilations):
    """Normalized (data_format, op attrs) for a public convolution call."""
    data_format = data_format or "NHWC"
    _check_format(data_format, op_name)
    pad, explicit = normalize_padding(padding, op_name, data_format)
    attrs = {"strides": normalize_hw(strides, "strides", op_name, data_format),
             "padding": pad, "explicit_paddings": explicit, "data_format": "NHWC",
             "dilations": normalize_hw(dilations, "dilations", op_name, data_format)}
    return data_format, attrs


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """``tf.nn.conv2d``: NHWC input, filters ``[kh, kw, in, out]``.

    ``strides``/``dilations``: an int or a list of 1, 2 or 4 ints; ``padding``: ``'SAME'``,
    ``'VALID'`` or explicit ``[[0, 0], [top, bottom], [left, right], [0, 0]]``. NCHW inputs are
    transposed to NHWC and back.
    """
    fmt, attrs = _conv_call("Conv2D", strides, padding, data_format, dilations)
    x = _to_nhwc(as_tensor(input), fmt)
    return _from_nhwc(execute(CONV2D, (x, filters), attrs), fmt)


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """``tf.nn.convolution`` for 1-D (rank 3) and 2-D (rank 4) inputs."""
    rank = as_tensor(input).shape.rank
    if rank == 3:
        return conv1d(input, filters, strides or 1, padding, data_format or "NWC", dilations)
    if rank == 4:
        return conv2d(input, filters, strides or 1, padding, data_format or "NHWC", dilations)
    raise InvalidArgumentError(None, None, f"Conv: only 1-D and 2-D convolutions are supported, got an input "
                               f"of rank {rank}")


def conv2d_backprop_input(input_sizes, filters, out_backprop, strides, padding, data_format="NHWC",
                          dilations=None, name=None):
    """Gradient of ``conv2d`` w.r.t. its input (``tf.raw_ops.Conv2DBackpropInput``)."""
    fmt, attrs = _conv_call("Conv2DBackpropInput", strides, padding, data_format, dilations)
    sizes = _sizes(input_sizes, fmt)
    dy = _to_nhwc(as_tensor(out_backprop), fmt)
    return _from_nhwc(execute(CONV2D_BACKPROP_INPUT, (filters, dy), {**attrs, "input_sizes": sizes}), fmt)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NHWC",  # noqa: A002
                           dilations=None, name=None):
    """Gradient of ``conv2d`` w.r.t. its filter (``tf.raw_ops.Conv2DBackpropFilter``)."""
    fmt, attrs = _conv_call("Conv2DBackpropFilter", strides, padding, data_format, dilations)
    x = _to_nhwc(as_tensor(input), fmt)
    dy = _to_nhwc(as_tensor(out_backprop), fmt)
    return execute(CONV2D_BACKPROP_FILTER, (x, dy), {**attrs, "filter_sizes": _int_tuple(filter_sizes)})


def _int_tuple(v):
    """A shape given as a list or a tensor -> a tuple of ints (an op attribute)."""
    return tuple(int(i) for i in (v.numpy() if hasattr(v, "numpy") else v))


def _sizes(sizes, fmt):
    """An input or output shape in ``fmt`` -> NHWC ints."""
    sizes = _int_tuple(sizes)
    if len(sizes) == 4 and fmt.startswith("NC"):
        sizes = (sizes[0], sizes[2], sizes[3], sizes[1])
    return sizes


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """``tf.nn.conv2d_transpose``: filters ``[kh, kw, out_channels, in_channels]``, as TF."""
    fmt, attrs = _conv_call("conv2d_transpose", strides, padding, data_format, dilations)
    sizes = _sizes(output_shape, fmt)
    dy = _to_nhwc(as_tensor(input), fmt)
    return _from_nhwc(execute(CONV2D_BACKPROP_INPUT, (filters, dy), {**attrs, "input_sizes": sizes}), fmt)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """``tf.nn.conv1d``: input ``[N, W, C]`` (or ``NCW``), filters ``[kw, in, out]``; runs as a 2-D conv."""
    x = as_tensor(input)
    f = as_tensor(filters)
    if x.shape.rank != 3 or f.shape.rank != 3:
        raise InvalidArgumentError(None, None, f"Conv1D: input and filters must be 3-dimensional, got "
                                   f"{describe([x, f])}")
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"conv1d: data_format must be 'NWC' or 'NCW', got {data_format!r}")
    if data_format == "NCW":
        x = transpose(x, (0, 2, 1))
    n, w, c = x._array.shape

    def one_d(v):
        if v is None:
            return 1
        if isinstance(v, int | np.integer):
            return int(v)
        v = list(v)
        return int(v[0]) if len(v) == 1 else int(v[2] if data_format == "NCW" else v[1])

    if not isinstance(padding, str):
        raise ValueError(f"conv1d: padding must be 'SAME' or 'VALID', got {padding!r}")
    y = conv2d(reshape(x, (n, 1, w, c)), reshape(f, (1,) + tuple(f._array.shape)), [1, one_d(stride)],
               padding, "NHWC", [1, one_d(dilations)])
    y = reshape(y, (n, y._array.shape[2], y._array.shape[3]))
    return transpose(y, (0, 2, 1)) if data_format == "NCW" else y


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """``tf.nn.depthwise_conv2d``: filter ``[kh, kw, in, multiplier]``; output channel ``c*mult + m``."""
    fmt, attrs = _conv_call("DepthwiseConv2dNative", strides, padding, data_format, dilations)
    x = _to_nhwc(as_tensor(input), fmt)
    return _from_nhwc(execute(DEPTHWISE_CONV2D, (x, filter), attrs), fmt)


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                    data_format="NHWC", dilations=None, name=None):
    fmt, attrs = _conv_call("DepthwiseConv2dNativeBackpropInput", strides, padding, data_format,
                            dilations)
    dy = _to_nhwc(as_tensor(out_backprop), fmt)
    out = execute(DEPTHWISE_CONV2D_BACKPROP_INPUT, (filter, dy), {**attrs, "input_sizes": _sizes(input_sizes, fmt)})
    return _from_nhwc(out, fmt)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                     data_format="NHWC", dilations=None, name=None):
    fmt, attrs = _conv_call("DepthwiseConv2dNativeBackpropFilter", strides, padding, data_format,
                            dilations)
    x = _to_nhwc(as_tensor(input), fmt)
    dy = _to_nhwc(as_tensor(out_backprop), fmt)
    return execute(DEPTHWISE_CONV2D_BACKPROP_FILTER, (x, dy), {**attrs, "filter_sizes": _int_tuple(filter_sizes)})


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """``tf.nn.separable_conv2d``: depthwise conv, then a 1x1 conv with ``pointwise_filter``."""
    y = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(y, pointwise_filter, 1, "VALID", data_format or "NHWC")
