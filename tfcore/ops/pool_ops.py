"""2-D max and average pooling (NHWC) with their gradients, and the public ``tf.nn`` pooling functions.

Vectorised as one whole-array operation per window tap (``kh * kw`` of them, never per pixel); with the
native CPU kernels built (``backend/native_cpu``), float32/float64 MaxPool and MaxPoolGrad run as one C
loop each instead: MaxPool saves each window's argmax byte (a residual on the tape's record, or a residual
edge in a graph) and MaxPoolGrad reads it instead of the whole input. ``_FusedMaxPoolGrad`` is
``ReluGrad(MaxPoolGrad(x, y, dy), x)`` in one pass for non-overlapping windows; tf.function plans use it
(``function/remapper.py``).
TF semantics: SAME padding never contributes to a maximum (padded with -inf) and an average
divides by the number of valid (unpadded) elements in its window; the max-pool gradient goes to
the first maximum of each window in row-major order, as TF's CPU kernel.

Op attributes (TF names; CUDA kernels read the same ones): ``ksize`` and ``strides`` as NHWC
4-tuples ``(1, kh, kw, 1)``, ``padding`` (``'SAME'``, ``'VALID'``, or ``'EXPLICIT'`` for MaxPool with
``explicit_paddings`` as in Conv2D), ``data_format`` (always ``'NHWC'`` at op level), and for
AvgPoolGrad ``orig_input_shape`` (a 4-tuple attribute; TF passes it as a tensor).
Inputs: ``MaxPool(x)``, ``MaxPoolGrad(orig_input, orig_output, grad)``,
``MaxPoolGradGrad(orig_input, orig_output, grad)``, ``AvgPool(x)``, ``AvgPoolGrad(grad)``.
"""

import numpy as np

from ..backend import native_cpu
from ..framework.errors import InvalidArgumentError
from ._common import as_tensor, describe, host_float32
from .array_ops import reshape, transpose
from .conv_ops import (
    _check_format,
    _from_nhwc,
    _to_nhwc,
    conv_geometry,
    normalize_hw,
    normalize_padding,
    pad_spatial,
    tap_slice,
)
from .nn_ops import RELU_GRAD
from .registry import Op, Residuals, execute

__all__ = ["max_pool2d", "avg_pool2d", "max_pool", "avg_pool", "max_pool1d", "avg_pool1d"]

_UNIT = (1, 1, 1, 1)


def pool_geometry(shape, ksize, strides, padding, explicit_paddings=()):
    """``(oh, ow, (top, bottom), (left, right))`` of a pooling window (TF arithmetic)."""
    return conv_geometry(shape, ksize[1], ksize[2], strides, _UNIT, padding, explicit_paddings)


def _lowest(xp, dtype):
    dt = np.dtype(dtype)
    if dt.kind in "fV":  # "V": ml_dtypes bfloat16
        return -np.inf
    return np.iinfo(dt).min


def _pool_rule(op, ts, attrs):
    x = ts[0]
    if x._array.ndim != 4:
        raise InvalidArgumentError(None, None, f"{op.name}: input must be 4-dimensional, got {describe(ts)}")
    d = x._dtype
    if d.is_bool or d.is_complex or d.name == "string" or (op is AVG_POOL and not d.is_floating):
        raise InvalidArgumentError(None, None, f"{op.name}: unsupported dtype, got {describe(ts)}")
    oh, ow, _, _ = pool_geometry(x._array.shape, attrs["ksize"], attrs["strides"], attrs["padding"],
                                 attrs.get("explicit_paddings", ()))
    if oh <= 0 or ow <= 0:
        raise InvalidArgumentError(
            None, None, f"{op.name}: computed output size would be negative or zero ({oh}x{ow}) for input "
            f"{describe(ts)} with ksize {list(attrs['ksize'])}, strides {list(attrs['strides'])}, "
            f"padding {attrs['padding']}")
    return None


def _grad_rule(op, ts, attrs):
    x, y, g = ts
    if any(t._dtype is not x._dtype for t in ts) or x._array.ndim != 4:
        raise InvalidArgumentError(None, None, f"{op.name}: expected three 4-D tensors of one dtype, got "
                                   f"{describe(ts)}")
    oh, ow, _, _ = pool_geometry(x._array.shape, attrs["ksize"], attrs["strides"], attrs["padding"],
                                 attrs.get("explicit_paddings", ()))
    expect_g = y._array.shape if op is MAX_POOL_GRAD or op is FUSED_MAX_POOL_GRAD else x._array.shape
    if y._array.shape != (x._array.shape[0], oh, ow, x._array.shape[3]) or g._array.shape != expect_g:
        raise InvalidArgumentError(None, None, f"{op.name}: shapes do not match the pooling geometry: "
                                   f"{describe(ts)}")
    return None


def _pool_attrs(attrs):
    return {k: attrs[k] for k in ("ksize", "strides", "padding", "explicit_paddings", "data_format")}


# -- MaxPool -----------------------------------------------------------------------------------

def _max_pool_grad_fn(call, g):
    """MaxPoolGrad of the recorded call, handed the forward kernel's argmax bytes when it saved them."""
    attrs = call.attrs if not call.residuals else {**call.attrs, **call.residuals}
    return [execute(MAX_POOL_GRAD, (call.inputs[0], call.outputs[0], g), attrs)]


MAX_POOL = Op("MaxPool", rule=_pool_rule, grad=_max_pool_grad_fn, saves_residuals=True)


@MAX_POOL.kernel()
def _max_pool(b, x, *, ksize, strides, padding, explicit_paddings, data_format):
    xp = b.xp
    oh, ow, ph, pw = pool_geometry(x.shape, ksize, strides, padding, explicit_paddings)
    xpad = pad_spatial(xp, x, ph, pw, _lowest(xp, x.dtype))
    out = None
    for i in range(ksize[1]):
        for j in range(ksize[2]):
            s = xpad[tap_slice(i, j, oh, ow, strides, _UNIT)]
            out = s.copy() if out is None else xp.maximum(out, s, out=out)
    return out


_FLOATS = (np.float32, np.float64)


def _tiles(x, ksize, strides, padding, explicit_paddings=(), **_):
    """The windows tile ``x`` exactly: stride = window, no padding, sizes multiples of the window (the usual
    2x2/2 pooling, SAME or VALID). Those pools have CPU candidates working on whole rows."""
    kh, kw = ksize[1], ksize[2]
    if (strides[1], strides[2]) != (kh, kw) or x.ndim != 4:
        return False
    oh, ow, ph, pw = pool_geometry(x.shape, ksize, strides, padding, explicit_paddings)
    return not any(ph + pw) and (x.shape[1], x.shape[2]) == (oh * kh, ow * kw)


_ROW_MAX_CHANNELS = 16  # more channels: the per-tap passes over strided views run long enough already


def _tiles_few_channels(x, **attrs):
    return x.ndim == 4 and x.shape[3] <= _ROW_MAX_CHANNELS and _tiles(x, **attrs)


@MAX_POOL.kernel("cpu", dtypes=_FLOATS, supports=_tiles_few_channels, priority=1, name="max_pool_tiled")
def _max_pool_tiled(b, x, *, ksize, strides, padding, explicit_paddings, data_format):
    """Tiled MaxPool on the CPU: the maximum over the window's rows first (whole contiguous rows of
    ``W * C`` values, one long-run SIMD loop per row tap), then over the column taps of that
    ``[N, OH, W, C]`` result (runs of C values, on 1/KH of the data): ~1.6x faster than a maximum
    per tap over strided views. The same values (maxima are exact; NaN propagates either way)."""
    n, h, w, c = x.shape
    kh, kw = ksize[1], ksize[2]
    oh, ow = h // kh, w // kw
    rows = x.reshape(n * oh, kh, w * c)
    m = rows[:, 0]
    for i in range(1, kh):
        m = np.maximum(m, rows[:, i]) if i == 1 else np.maximum(m, rows[:, i], out=m)
    cols = m.reshape(n * oh * ow, kw, c)
    out = cols[:, 0]
    for j in range(1, kw):
        out = np.maximum(out, cols[:, j]) if j == 1 else np.maximum(out, cols[:, j], out=out)
    return np.array(out, copy=kh == 1 and kw == 1).reshape(n, oh, ow, c)


def _native_pool(x, *arrays, ksize, strides, padding, explicit_paddings=(), **_):
    return x.ndim == 4 and native_cpu.supports(x, *arrays)


def _native_geometry(x, ksize, strides, padding, explicit_paddings):
    n, h, w, c = x.shape
    oh, ow, ph, pw = pool_geometry(x.shape, ksize, strides, padding, explicit_paddings)
    return (n, h, w, c, ksize[1], ksize[2], strides[1], strides[2], ph[0], pw[0], oh, ow)


# Windows of at most this many taps get MaxPool's argmax residual (one byte per output value; 255 is
# the kernel's "nowhere").
_MAX_ARGMAX_TAPS = 255


@MAX_POOL.kernel("cpu", dtypes=_FLOATS, supports=_native_pool, priority=2, name="max_pool_native")
def _max_pool_native(b, x, *, ksize, strides, padding, explicit_paddings, data_format):
    """MaxPool as one C loop (``kernels/cpu_kernels.cc``): any window, stride and padding; the same
    values as the NumPy candidates (padding never wins, NaN propagates).

    Returns :class:`Residuals` with ``argmax``: per output value (uint8, y's shape) the window tap
    (``i * kw + j``) that MaxPoolGrad's rule gives its gradient to (255: none), written from the taps the
    loop just read. The gradient then reads those bytes instead of the whole input (TF's CPU MaxPoolGrad
    re-reads it): a quarter of its memory traffic for float32 2x2 pooling."""
    geo = _native_geometry(x, ksize, strides, padding, explicit_paddings)
    y = np.empty((geo[0], geo[-2], geo[-1], geo[3]), dtype=x.dtype)
    argmax = np.empty(y.shape, np.uint8) if ksize[1] * ksize[2] <= _MAX_ARGMAX_TAPS else None
    native_cpu.library().fn("tfc_max_pool", x.dtype)(native_cpu.ptr(x), *geo, native_cpu.ptr(y),
                                                     None if argmax is None else native_cpu.ptr(argmax))
    return y if argmax is None else Residuals(y, argmax=argmax)


def _max_pool_grad_grad(call, gg):
    x, y, _ = call.inputs
    return [None, None, execute(MAX_POOL_GRAD_GRAD, (x, y, gg), _pool_attrs(call.attrs))]


MAX_POOL_GRAD = Op("MaxPoolGrad", rule=_grad_rule, grad=_max_pool_grad_grad, residual_attrs=("argmax",))


@MAX_POOL_GRAD.kernel()
@host_float32
def _max_pool_grad(b, x, y, dy, *, ksize, strides, padding, explicit_paddings, data_format, argmax=None):
    """Each output gradient goes to the first maximum of its window (row-major tap order)."""
    xp = b.xp
    oh, ow, ph, pw = pool_geometry(x.shape, ksize, strides, padding, explicit_paddings)
    # dy * hit equals where(hit, dy, 0) for finite dy and is ~3x cheaper in NumPy (no host check on GPUs)
    finite = b.host_memory and bool(xp.isfinite(dy).all())
    xpad = pad_spatial(xp, x, ph, pw, _lowest(xp, x.dtype))
    dxpad = xp.zeros(xpad.shape, dtype=dy.dtype)
    found = xp.zeros(y.shape, dtype=bool)
    zero = xp.zeros((), dtype=dy.dtype)
    for i in range(ksize[1]):
        for j in range(ksize[2]):
            sl = tap_slice(i, j, oh, ow, strides, _UNIT)
            hit = (xpad[sl] == y) & ~found
            dxpad[sl] += dy * hit if finite else xp.where(hit, dy, zero)
            found |= hit
    h, w = x.shape[1], x.shape[2]
    return xp.ascontiguousarray(dxpad[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w, :])


def _tiles_finite(x, y, dy, **attrs):
    return _tiles(x, **attrs) and bool(np.isfinite(dy).all())


@MAX_POOL_GRAD.kernel("cpu", dtypes=_FLOATS, supports=_tiles_finite, priority=1,
                       name="max_pool_grad_tiled")
def _max_pool_grad_tiled(b, x, y, dy, *, ksize, strides, padding, explicit_paddings, data_format, argmax=None):
    """MaxPoolGrad when the windows tile the input (see :func:`_tiles`) and ``dy`` is finite.

    With few channels (runs of C values are short) it works on whole rows of ``W * C`` values: ``y``
    and ``dy`` are repeated along W to the input's width (``np.repeat`` copies runs of C values with
    memcpy) and ``eq = x[row tap i] == y`` marks the maxima; when the matches number the non-NaN
    windows (no ties: the usual case with real-valued inputs) each match is its window's first and
    ``dx[row i] = dy * eq`` (~2x faster than a pass per tap). With ties (e.g. ReLU zeros) or many
    channels: one pass per tap over strided views, each tap's gradient written once into its view of
    ``dx`` (no zero fill, no accumulation). Both give TF's first maximum in row-major tap order (a NaN
    window matches nowhere: zero gradient); ``dy * hit`` equals ``where(hit, dy, 0)`` as ``dy`` is finite."""
    n, h, w, c = x.shape
    kh, kw = ksize[1], ksize[2]
    oh, ow = h // kh, w // kw
    if c <= _ROW_MAX_CHANNELS:
        r, length = n * oh, w * c
        rows = x.reshape(r, kh, length)
        if kw == 1:
            yw, dyw = y.reshape(r, length), dy.reshape(r, length)
        else:
            yw = np.repeat(y.reshape(r * ow, 1, c), kw, axis=1).reshape(r, length)
            dyw = np.repeat(dy.reshape(r * ow, 1, c), kw, axis=1).reshape(r, length)
        eqs = [rows[:, i] == yw for i in range(kh)]
        if sum(np.count_nonzero(eq) for eq in eqs) == np.count_nonzero(y == y):
            # One match per window (no ties; a NaN window has none): every match is its window's first.
            dx = np.empty((r, kh, length), dtype=dy.dtype)
            for i in range(kh):
                np.multiply(dyw, eqs[i], out=dx[:, i])
            return dx.reshape(n, h, w, c)
    # Ties (or many channels): one pass per tap over strided views, in row-major tap order.
    xr = x.reshape(n, oh, kh, ow, kw, c)
    dx = np.empty((n, oh, kh, ow, kw, c), dtype=dy.dtype)
    found = None
    for i in range(kh):
        for j in range(kw):
            hit = xr[:, :, i, :, j] == y
            if found is None:
                found = hit
            else:
                hit &= ~found
                if i != kh - 1 or j != kw - 1:
                    found = found | hit
            np.multiply(dy, hit, out=dx[:, :, i, :, j])
    return dx.reshape(n, h, w, c)


def _usable_argmax(argmax, y):
    """MaxPool's argmax residual when it fits ``y`` (a replay without one passes None)."""
    if type(argmax) is np.ndarray and argmax.dtype == np.uint8 and argmax.shape == y.shape \
            and argmax.flags.c_contiguous:
        return argmax
    return None


def _native_max_pool_grad(x, y, dy, ksize, strides, padding, explicit_paddings, argmax, relu):
    geo = _native_geometry(x, ksize, strides, padding, explicit_paddings)
    argmax = _usable_argmax(argmax, y)
    dx = np.empty(x.shape, dtype=dy.dtype)
    native_cpu.library().fn("tfc_max_pool_grad", x.dtype)(
        native_cpu.ptr(x), native_cpu.ptr(y), native_cpu.ptr(dy), *geo,
        None if argmax is None else native_cpu.ptr(argmax), int(relu), native_cpu.ptr(dx))
    return dx


@MAX_POOL_GRAD.kernel("cpu", dtypes=_FLOATS, supports=_native_pool, priority=2, name="max_pool_grad_native")
def _max_pool_grad_native(b, x, y, dy, *, ksize, strides, padding, explicit_paddings, data_format, argmax=None):
    """MaxPoolGrad as one C loop: each gradient goes to its window's first maximum in row-major tap
    order, as the NumPy candidates (any window, overlap, padding, ties, NaN and non-finite ``dy``). With
    MaxPool's ``argmax`` residual the taps are picked by index and ``x`` is not read."""
    return _native_max_pool_grad(x, y, dy, ksize, strides, padding, explicit_paddings, argmax, False)


# -- _FusedMaxPoolGrad: MaxPoolGrad with the ReluGrad of its input folded in ------------------------------

def _disjoint(ksize, strides, **_):
    """Windows that never overlap (strides >= window, MaxPooling2D's default): each input value takes at
    most one window's gradient."""
    return strides[1] >= ksize[1] and strides[2] >= ksize[2]


def _fused_max_pool_grad_rule(op, ts, attrs):
    if tuple(attrs.get("fused_ops", ())) != FUSED_MAX_POOL_GRAD_OPS:
        raise InvalidArgumentError(None, None, f"{op.name}: fused_ops must be {list(FUSED_MAX_POOL_GRAD_OPS)}, "
                                   f"got {attrs.get('fused_ops')}")
    if not _disjoint(**attrs):
        raise InvalidArgumentError(None, None, f"{op.name}: windows must not overlap (strides >= ksize), got "
                                   f"ksize {list(attrs['ksize'])} and strides {list(attrs['strides'])}")
    return _grad_rule(op, ts, attrs)


def _fused_max_pool_grad_grad(call, gg):
    """The adjoint of dy -> (x > 0) * MaxPoolGrad(x, y, dy): MaxPoolGradGrad of the masked ``gg``."""
    x, y, _ = call.inputs
    return [None, None, execute(MAX_POOL_GRAD_GRAD, (x, y, execute(RELU_GRAD, (gg, x))), _pool_attrs(call.attrs))]


FUSED_MAX_POOL_GRAD_OPS = ("ReluGrad",)
# ReluGrad(MaxPoolGrad(x, y, dy), x) as one op: the graph remapper (function/remapper.py) makes it from the
# gradient of MaxPool(Relu(...)) (or of a ReLU-fused convolution followed by MaxPool) when the windows are
# disjoint. Inputs and attrs of MaxPoolGrad, plus ``fused_ops=("ReluGrad",)``.
FUSED_MAX_POOL_GRAD = Op("_FusedMaxPoolGrad", rule=_fused_max_pool_grad_rule, grad=_fused_max_pool_grad_grad,
                         residual_attrs=("argmax",))


def _max_pool_grad_attrs(attrs):
    return {k: v for k, v in attrs.items() if k != "fused_ops"}


@FUSED_MAX_POOL_GRAD.kernel()
def _fused_max_pool_grad(b, x, y, dy, **attrs):
    """The two ops' kernels one after the other (any device and dtype): the reference of the fused one."""
    dx = MAX_POOL_GRAD.run_kernel(b, (x, y, dy), _max_pool_grad_attrs(attrs))
    return RELU_GRAD.run_kernel(b, (dx, x))


@FUSED_MAX_POOL_GRAD.kernel("cpu", dtypes=_FLOATS, supports=_native_pool, priority=1, name="fused_max_pool_grad_native")
def _fused_max_pool_grad_native(b, x, y, dy, *, ksize, strides, padding, explicit_paddings, data_format,
                                fused_ops, argmax=None):
    """One pass: each window's ``dy * (y > 0)`` (TF's ReluGrad formula on the pooled values) goes to its
    first maximum, which is the input's ReluGrad of MaxPoolGrad's result to the bit for disjoint windows (an
    input value takes one window's gradient, at a tap whose x equals that window's y, or zero). The
    ReluGrad pass over the whole input (two reads and a write) goes away."""
    return _native_max_pool_grad(x, y, dy, ksize, strides, padding, explicit_paddings, argmax, True)


MAX_POOL_GRAD_GRAD = Op("MaxPoolGradGrad", rule=_grad_rule, grad=lambda call, g: [
    None, None, execute(MAX_POOL_GRAD, (call.inputs[0], call.inputs[1], g), _pool_attrs(call.attrs))])


@MAX_POOL_GRAD_GRAD.kernel()
def _max_pool_grad_grad_impl(b, x, y, gg, *, ksize, strides, padding, explicit_paddings, data_format):
    """Gathers ``gg`` (shaped like the pool input) at each window's first maximum."""
    xp = b.xp
    oh, ow, ph, pw = pool_geometry(x.shape, ksize, strides, padding, explicit_paddings)
    xpad = pad_spatial(xp, x, ph, pw, _lowest(xp, x.dtype))
    ggpad = pad_spatial(xp, gg, ph, pw, 0)
    out = xp.zeros(y.shape, dtype=gg.dtype)
    found = xp.zeros(y.shape, dtype=bool)
    for i in range(ksize[1]):
        for j in range(ksize[2]):
            sl = tap_slice(i, j, oh, ow, strides, _UNIT)
            hit = (xpad[sl] == y) & ~found
            out = xp.where(hit, ggpad[sl], out)
            found |= hit
    return out


# -- AvgPool -----------------------------------------------------------------------------------

def valid_counts(xp, shape, ksize, strides, padding, dtype):
    """``[1, OH, OW, 1]`` number of unpadded input elements in each window (TF's SAME divisor).

    Computed with ``xp`` on the device (integer counts, exact): no host-to-device copy, so the op
    can be captured in a CUDA graph."""
    oh, ow, ph, pw = pool_geometry(shape, ksize, strides, padding)

    def per_axis(n_out, stride, pad, k, size):
        start = xp.arange(n_out, dtype=np.int64) * stride - pad
        return xp.minimum(start + k, size) - xp.maximum(start, 0)

    ch = per_axis(oh, strides[1], ph[0], ksize[1], shape[1])
    cw = per_axis(ow, strides[2], pw[0], ksize[2], shape[2])
    return (ch[:, None] * cw[None, :]).astype(dtype)[None, :, :, None]


AVG_POOL = Op("AvgPool", rule=_pool_rule, grad=lambda call, g: [
    execute(AVG_POOL_GRAD, (g,), {**call.attrs, "orig_input_shape": tuple(call.inputs[0]._array.shape)})])


@AVG_POOL.kernel()
def _avg_pool(b, x, *, ksize, strides, padding, data_format, explicit_paddings=()):
    xp = b.xp
    oh, ow, ph, pw = pool_geometry(x.shape, ksize, strides, padding)
    xpad = pad_spatial(xp, x, ph, pw, 0)
    out = xp.zeros((x.shape[0], oh, ow, x.shape[3]), dtype=x.dtype)
    for i in range(ksize[1]):
        for j in range(ksize[2]):
            out += xpad[tap_slice(i, j, oh, ow, strides, _UNIT)]
    if padding == "VALID":
        out /= x.dtype.type(ksize[1] * ksize[2])
        return out
    return (out / valid_counts(xp, x.shape, ksize, strides, padding, x.dtype)).astype(x.dtype, copy=False)


def _avg_pool_grad_rule(op, ts, attrs):
    (g,) = ts
    shape = attrs["orig_input_shape"]
    oh, ow, _, _ = pool_geometry(shape, attrs["ksize"], attrs["strides"], attrs["padding"])
    if len(shape) != 4 or g._array.shape != (shape[0], oh, ow, shape[3]) or not g._dtype.is_floating:
        raise InvalidArgumentError(None, None, f"{op.name}: grad {describe(ts)} does not match the pooled "
                                   f"output [{shape[0]}, {oh}, {ow}, {shape[3]}] of orig_input_shape {list(shape)}")
    return None


AVG_POOL_GRAD = Op("AvgPoolGrad", rule=_avg_pool_grad_rule, grad=lambda call, g: [
    execute(AVG_POOL, (g,), {k: v for k, v in call.attrs.items() if k != "orig_input_shape"})])


@AVG_POOL_GRAD.kernel()
def _avg_pool_grad(b, dy, *, orig_input_shape, ksize, strides, padding, data_format, explicit_paddings=()):
    xp = b.xp
    n, h, w, c = orig_input_shape
    oh, ow, ph, pw = pool_geometry(orig_input_shape, ksize, strides, padding)
    g = (dy / valid_counts(xp, orig_input_shape, ksize, strides, padding, dy.dtype)).astype(dy.dtype, copy=False)
    dxpad = xp.zeros((n, h + ph[0] + ph[1], w + pw[0] + pw[1], c), dtype=dy.dtype)
    for i in range(ksize[1]):
        for j in range(ksize[2]):
            dxpad[tap_slice(i, j, oh, ow, strides, _UNIT)] += g
    return xp.ascontiguousarray(dxpad[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w, :])


# -- public API --------------------------------------------------------------------------------

def _pool(op, input, ksize, strides, padding, data_format, op_name):  # noqa: A002
    data_format = data_format or "NHWC"
    _check_format(data_format, op_name)
    pad, explicit = normalize_padding(padding, op_name, data_format)
    if pad == "EXPLICIT" and op is AVG_POOL:
        raise ValueError(f"{op_name}: explicit padding is not supported for average pooling")
    attrs = {"ksize": normalize_hw(ksize, "ksize", op_name, data_format),
             "strides": normalize_hw(strides, "strides", op_name, data_format),
             "padding": pad, "explicit_paddings": explicit, "data_format": "NHWC"}
    x = _to_nhwc(as_tensor(input), data_format)
    return _from_nhwc(execute(op, (x,), attrs), data_format)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.max_pool2d``: ksize/strides an int or a list of 1, 2 or 4 ints; padding SAME/VALID/explicit."""
    return _pool(MAX_POOL, input, ksize, strides, padding, data_format, "MaxPool")


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.avg_pool2d``: SAME windows average over their valid (unpadded) elements only."""
    return _pool(AVG_POOL, input, ksize, strides, padding, data_format, "AvgPool")


def _pool1d(fn, input, ksize, strides, padding, data_format):  # noqa: A002
    x = as_tensor(input)
    if x.shape.rank != 3:
        raise InvalidArgumentError(None, None, f"Pool1D: input must be 3-dimensional, got {describe([x])}")
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"pool1d: data_format must be 'NWC' or 'NCW', got {data_format!r}")
    if data_format == "NCW":
        x = transpose(x, (0, 2, 1))

    def one(v):
        if isinstance(v, int | np.integer):
            return int(v)
        v = list(v)
        return int(v[0]) if len(v) == 1 else int(v[2] if data_format == "NCW" else v[1])

    n, w, c = x._array.shape
    y = fn(reshape(x, (n, 1, w, c)), [1, one(ksize)], [1, one(strides)], padding)
    y = reshape(y, (n, y._array.shape[2], c))
    return transpose(y, (0, 2, 1)) if data_format == "NCW" else y


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """``tf.nn.max_pool1d`` on ``[N, W, C]`` (runs as a 2-D pool with height 1)."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """``tf.nn.avg_pool1d`` on ``[N, W, C]``."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format)


def _pool_nd(fn1, fn2, input, ksize, strides, padding, data_format):  # noqa: A002
    rank = as_tensor(input).shape.rank
    if rank == 3:
        return fn1(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return fn2(input, ksize, strides, padding, data_format or "NHWC")
    raise InvalidArgumentError(None, None, f"Pool: only 1-D and 2-D pooling (input rank 3 or 4) is supported, "
                               f"got rank {rank}")


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``tf.nn.max_pool`` (rank 3 or 4 input)."""
    return _pool_nd(max_pool1d, max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``tf.nn.avg_pool`` (rank 3 or 4 input)."""
    return _pool_nd(avg_pool1d, avg_pool2d, input, ksize, strides, padding, data_format)
