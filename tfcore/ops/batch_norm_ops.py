"""Fused batch normalisation: ``FusedBatchNormV3`` (forward) and ``FusedBatchNormGradV3`` (its gradient).

One op normalises a whole activation (and one op computes all three gradients) instead of the ~40
element-wise ops of the composite ``moments`` + ``batch_normalization``: a training step of a Keras
ResNet runs a few ops per BatchNormalization layer, and each pass reads the activation ~3 times where
the composite makes ~15 passes.

TF's op definitions (``tensorflow/core/ops/nn_ops.cc``), as ``tf.raw_ops`` spells them:

- ``FusedBatchNormV3(x: T, scale: U, offset: U, mean: U, variance: U) -> (y: T, batch_mean: U,
  batch_variance: U, reserve_space_1: U, reserve_space_2: U, reserve_space_3: U)``, attrs ``epsilon``
  (0.0001), ``exponential_avg_factor`` (1.0), ``data_format`` (``NHWC``, ``NCHW``, ``NDHWC``, ``NCDHW``),
  ``is_training`` (True). ``T`` is float16, bfloat16 or float32 with ``U`` float32; tfcore also takes
  float64 ``x`` with float64 ``U`` (TF's op refuses doubles).
- training: ``y`` uses the batch mean and the biased batch variance; ``batch_variance`` is the unbiased
  (Bessel-corrected, ``n / (n - 1)``) one. With ``exponential_avg_factor`` f < 1 both statistics come out
  blended into the ``mean``/``variance`` inputs, ``old - (old - batch) * f`` (TF: ``(1 - f) * old + f *
  batch``, equal up to rounding; this form is the Keras layer's update); with f == 1 ``mean`` and
  ``variance`` may be empty. ``reserve_space_1``/``_2`` hold the batch mean and the biased batch variance
  (TF's CPU choice; TF's GPU kernel keeps ``1/sqrt(var + eps)`` instead), ``reserve_space_3`` is empty.
  The same values on every device keep the gradient op device-independent.
- inference (``is_training=False``): ``y`` uses the ``mean``/``variance`` inputs, which are also returned.
- ``FusedBatchNormGradV3(y_backprop: T, x: T, scale: float32, reserve_space_1: U, reserve_space_2: U,
  reserve_space_3: U) -> (x_backprop: T, scale_backprop: U, offset_backprop: U, reserve_space_4: U,
  reserve_space_5: U)`` (the last two 0-d zeros, as TF's CPU kernel) with the forward's epsilon,
  data_format and is_training; ``reserve_space_1``/``_2`` are the mean and variance the forward normalised
  with (batch statistics in training, the population ones in inference, as
  ``nn_grad._BaseFusedBatchNormGrad`` passes them).

One ``backend.xp`` implementation serves NumPy (CPU), CuPy (GPU) and the emulated GPU. Statistics are
accumulated in float32 (float64 for float64 ``x``) and the variance is computed in two passes (the mean
first, then the mean squared deviation), never as ``E[x^2] - E[x]^2``.
"""

import collections

import numpy as np

from ..backend import native_cpu
from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from . import array_ops as _a
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor, describe
from .registry import Op, execute

__all__ = ["fused_batch_norm_v3", "fused_batch_norm_grad_v3", "FusedBatchNormV3", "FusedBatchNormGradV3"]

FusedBatchNormV3 = collections.namedtuple(
    "FusedBatchNormV3",
    ["y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2", "reserve_space_3"])
FusedBatchNormGradV3 = collections.namedtuple(
    "FusedBatchNormGradV3", ["x_backprop", "scale_backprop", "offset_backprop", "reserve_space_4", "reserve_space_5"])

_DATA_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")
_HALF = (dtypes.float16, dtypes.bfloat16)


def _data_format(data_format, op_name):
    fmt = data_format.decode() if isinstance(data_format, bytes) else data_format
    if fmt not in _DATA_FORMATS:
        raise InvalidArgumentError(None, None, f"{op_name}: data_format must be one of {', '.join(_DATA_FORMATS)}, "
                                               f"got {data_format!r}")
    return fmt


def _channels_first(fmt):
    return fmt.startswith("NC")


def _stat_dtype(x_dtype):
    """``U`` for an ``x`` of dtype ``T``: float32, or float64 for float64 ``x``."""
    return dtypes.float64 if x_dtype is dtypes.float64 else dtypes.float32


def _check_x(op_name, x, fmt, ts):
    rank = 5 if fmt in ("NDHWC", "NCDHW") else 4
    if x._array.ndim != rank:
        raise InvalidArgumentError(None, None, f"{op_name}: input must be {rank}-dimensional for data_format "
                                               f"{fmt}, got {describe(ts)}")
    if x._dtype not in _HALF and x._dtype not in (dtypes.float32, dtypes.float64):
        raise InvalidArgumentError(None, None, f"{op_name}: x must be float16, bfloat16, float32 or float64, "
                                               f"got {describe(ts)}")
    return x._array.shape[1 if _channels_first(fmt) else -1]


def _check_params(op_name, ts, first, names, want, channels, may_be_empty=()):
    """``ts[first:]`` (named ``names``) are 1-D ``want`` tensors of ``channels`` elements (or empty, for the
    names in ``may_be_empty``); errors describe every input."""
    x_dtype = ts[1 if op_name == "FusedBatchNormGradV3" else 0]._dtype
    for t, name in zip(ts[first:], names):
        if t._dtype is not want:
            raise InvalidArgumentError(None, None, f"{op_name}: {name} must be {want.name} for x of "
                                                   f"{x_dtype.name}, got {name} {t._dtype.name} "
                                                   f"(inputs: {describe(ts)})")
        shape = t._array.shape
        if name in may_be_empty and shape == (0,):
            continue
        if len(shape) != 1 or shape[0] != channels:
            raise InvalidArgumentError(None, None, f"{op_name}: {name} must be 1-dimensional with the {channels} "
                                                   f"channels of x, got shape {list(shape)} (inputs: "
                                                   f"{describe(ts)})")


def _forward_rule(op, ts, attrs):
    x = ts[0]
    fmt = _data_format(attrs["data_format"], op.name)
    channels = _check_x(op.name, x, fmt, ts)
    u = _stat_dtype(x._dtype)
    empty_ok = ("mean", "variance") if attrs["is_training"] and attrs["exponential_avg_factor"] == 1.0 else ()
    _check_params(op.name, ts, 1, ("scale", "offset", "mean", "variance"), u, channels, empty_ok)
    return (x._dtype, u, u, u, u, u)


def _grad_rule(op, ts, attrs):
    dy, x = ts[0], ts[1]
    fmt = _data_format(attrs["data_format"], op.name)
    channels = _check_x(op.name, x, fmt, ts)
    if dy._dtype is not x._dtype or dy._array.shape != x._array.shape:
        raise InvalidArgumentError(None, None, f"{op.name}: y_backprop must have the shape and dtype of x, got "
                                               f"{describe(ts)}")
    u = _stat_dtype(x._dtype)
    _check_params(op.name, ts, 2, ("scale", "reserve_space_1", "reserve_space_2"), u, channels)
    return (x._dtype, u, u, u, u)


def _views(xp, a, fmt):
    """``a`` as a 2-D ``(rows, C)`` view (channels last) or a 3-D ``(N, C, spatial)`` view (channels first),
    and the axes its statistics reduce over. Reshapes of contiguous arrays: no copies."""
    shape = a.shape
    if _channels_first(fmt):
        return a.reshape(shape[0], shape[1], -1), (0, 2), (1, -1, 1)
    return a.reshape(-1, shape[-1]), (0,), (1, -1)


def _acc(a, acc):
    return a if a.dtype == acc else a.astype(acc)


def _sum_of_products(xp, a, b, fmt):
    """Per-channel ``sum(a * b)`` of two views from :func:`_views`, without the product array."""
    return xp.einsum("nc,nc->c" if a.ndim == 2 else "ncs,ncs->c", a, b)


def _count(shape, fmt):
    c = shape[1] if _channels_first(fmt) else shape[-1]
    total = int(np.prod(shape, dtype=np.int64))
    return total // c if c else 0


def _fused_batch_norm_v3(b, x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor, data_format,
                         is_training):
    xp = b.xp
    fmt = _data_format(data_format, "FusedBatchNormV3")
    acc = scale.dtype
    x2, axes, bshape = _views(xp, x, fmt)
    n = _count(x.shape, fmt)
    centered = None
    if is_training:
        xa = _acc(x2, acc)
        if n:
            batch_mean = xp.sum(xa, axis=axes, dtype=acc) / acc.type(n)
            centered = xa - batch_mean.reshape(bshape)  # a new array: becomes y below
            var = _sum_of_products(xp, centered, centered, fmt) / acc.type(n)
        else:  # TF: an empty batch has mean 0 and variance NaN
            batch_mean = xp.zeros(scale.shape, acc)
            var = xp.full(scale.shape, np.nan, acc)
        unbiased = var * acc.type(n / (n - 1)) if n > 1 else xp.full(var.shape, np.nan if n == 0 else 0.0, acc)
        norm_mean, norm_var = batch_mean, var
        f = float(exponential_avg_factor)
        out_mean, out_var = batch_mean, unbiased
        if f != 1.0:
            f = acc.type(f)
            out_mean = mean - (mean - batch_mean) * f
            out_var = variance - (variance - unbiased) * f
    else:
        norm_mean, norm_var = mean, variance
        out_mean, out_var = mean, variance
    k = scale / xp.sqrt(norm_var + acc.type(epsilon))
    if centered is not None:  # y = (x - mean) * k + offset, in the centred array's memory
        centered *= k.reshape(bshape)
        centered += offset.reshape(bshape)
        y = centered.reshape(x.shape)
    elif x.size:
        y = _acc(x2, acc) * k.reshape(bshape)
        y += (offset - norm_mean * k).reshape(bshape)
        y = y.reshape(x.shape)
    else:
        y = xp.zeros(x.shape, acc)
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    empty = xp.zeros((0,), acc)
    # every output its own array (no output aliases an input or another output): C values each
    if not is_training:
        out_mean, out_var, norm_mean, norm_var = mean.copy(), variance.copy(), mean.copy(), variance.copy()
    elif out_mean is norm_mean:
        norm_mean = norm_mean.copy()
    return y, out_mean, out_var, norm_mean, norm_var, empty


def _fused_batch_norm_grad_v3(b, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, *,
                              epsilon, data_format, is_training):
    xp = b.xp
    fmt = _data_format(data_format, "FusedBatchNormGradV3")
    acc = scale.dtype
    n = _count(x.shape, fmt)
    dy2, axes, bshape = _views(xp, y_backprop, fmt)
    x2 = _views(xp, x, fmt)[0]
    mean = reserve_space_1.reshape(bshape)
    inv = 1.0 / xp.sqrt(reserve_space_2 + acc.type(epsilon))
    dya = _acc(dy2, acc)
    offset_backprop = xp.sum(dya, axis=axes, dtype=acc)
    centered = _acc(x2, acc) - mean  # a new array: reused in place below
    scale_backprop = _sum_of_products(xp, dya, centered, fmt) * inv
    k1 = scale * inv
    dx = dya * k1.reshape(bshape)
    if is_training and n:
        # dx = scale*inv * (dy - mean(dy) - (x - mean) * inv * scale_backprop / n): the batch statistics
        # depend on x, so two more terms join the inference-mode dy * scale * inv
        k2 = -(k1 * inv * scale_backprop) / acc.type(n)
        k3 = -(k1 * offset_backprop) / acc.type(n)
        centered *= k2.reshape(bshape)
        dx += centered
        dx += k3.reshape(bshape)
    dx = dx.reshape(x.shape)
    if dx.dtype != x.dtype:
        dx = dx.astype(x.dtype)
    placeholder = xp.zeros((), acc)  # TF's CPU kernel returns 0-d zeros for reserve_space_4/5
    return dx, scale_backprop, offset_backprop, placeholder, placeholder


def _forward_grad(call, dy, *_unused):
    """TF's ``_FusedBatchNormV3Grad``: one ``FusedBatchNormGradV3`` with the forward's reserve spaces (the
    statistics ``y`` was normalised with); the statistics outputs and the mean/variance inputs get none."""
    if dy is None:
        return [None] * 5
    x, scale = call.inputs[0], call.inputs[1]
    a = call.attrs
    outs = call.outputs
    dx, dscale, doffset = execute(_GRAD_OP, (dy, x, scale, outs[3], outs[4], outs[5]),
                                  {"epsilon": a["epsilon"], "data_format": a["data_format"],
                                   "is_training": a["is_training"]})[:3]
    return [dx, dscale, doffset, None, None]


def _grad_grad(call, g_dx, g_dscale, g_doffset, *_unused):
    """The gradient of ``FusedBatchNormGradV3`` with respect to ``y_backprop``, ``x`` and ``scale`` (TF's
    ``_FusedBatchNormGradGradV3``), written with differentiable ops: PyTorch's closed form
    (``batchnorm_double_backward``). In training the statistics are functions of ``x``; in inference they are
    constants. Computed in ``U`` (float32 for 16-bit ``x``)."""
    dy, x, scale, mean, variance = call.inputs[:5]
    a = call.attrs
    fmt = _data_format(a["data_format"], call.op.name)
    u = scale.dtype
    rank = x._array.ndim
    ch = 1 if _channels_first(fmt) else rank - 1
    axes = [i for i in range(rank) if i != ch]
    kshape = [x._array.shape[i] if i == ch else 1 for i in range(rank)]
    n = float(_count(x._array.shape, fmt))
    training = a["is_training"] and n > 0

    def csum(t):
        return _r.reduce_sum(t, axis=axes, keepdims=True)

    def up(t):
        return _m.cast(t, u) if t._dtype is not u else t

    def per_channel(v):
        return _a.reshape(v, kshape)

    dyu, xu = up(dy), up(x)
    gamma = per_channel(scale)
    if training:  # the batch statistics recomputed from x (as TF's _BatchNormGrad): higher orders see x in them
        mu = _m.multiply(csum(xu), _m.scalar_like(1.0 / n, xu))
        c = _m.subtract(xu, mu)
        var = _m.multiply(csum(_m.multiply(c, c)), _m.scalar_like(1.0 / n, xu))
    else:
        mu, var = per_channel(mean), per_channel(variance)
        c = _m.subtract(xu, mu)
    inv = _m.rsqrt(_m.add(var, _m.scalar_like(a["epsilon"], var)))
    inv2 = _m.multiply(inv, inv)
    inv3 = _m.multiply(inv2, inv)
    gg_x = up(g_dx) if g_dx is not None else None
    gg_scale = per_channel(g_dscale) if g_dscale is not None else None

    def k(v):
        return _m.scalar_like(v, inv)

    def first_backward(g, gam):  # the training dx of upstream g
        h1 = _m.subtract(_m.subtract(_m.multiply(g, k(n)), csum(g)),
                         _m.multiply(_m.multiply(c, inv2), csum(_m.multiply(g, c))))
        return _m.multiply(_m.multiply(gam, _m.multiply(inv, k(1.0 / n))), h1)

    gi = g_gamma = g_dy = None
    if training:
        gdy_sum, gdyc_sum = csum(dyu), csum(_m.multiply(dyu, c))
        if gg_x is not None:
            ggx_sum, ggxc_sum = csum(gg_x), csum(_m.multiply(gg_x, c))
            all_sub = _m.add(_m.subtract(_m.multiply(_m.multiply(ggx_sum, gdy_sum), k(1.0 / n)),
                                         csum(_m.multiply(dyu, gg_x))),
                             _m.multiply(_m.multiply(_m.multiply(inv2, gdyc_sum), ggxc_sum), k(3.0 / n)))
            t0 = _m.multiply(_m.multiply(c, inv3), _m.multiply(all_sub, k(1.0 / n)))
            t1 = _m.multiply(_m.multiply(_m.multiply(ggxc_sum, inv3), k(1.0 / n)),
                             _m.subtract(_m.multiply(gdy_sum, k(1.0 / n)), dyu))
            t2 = _m.multiply(_m.multiply(_m.multiply(gdyc_sum, inv3), k(1.0 / n)),
                             _m.subtract(_m.multiply(ggx_sum, k(1.0 / n)), gg_x))
            gi = _m.multiply(gamma, _m.add(_m.add(t0, t1), t2))
            g_gamma = csum(_m.multiply(gg_x, first_backward(dyu, k(1.0))))
            g_dy = first_backward(gg_x, gamma)
        if gg_scale is not None:
            term = _m.subtract(_m.subtract(_m.multiply(dyu, inv), _m.multiply(_m.multiply(inv, gdy_sum), k(1.0 / n))),
                               _m.multiply(_m.multiply(c, inv3), _m.multiply(gdyc_sum, k(1.0 / n))))
            term = _m.multiply(gg_scale, term)
            gi = term if gi is None else _m.add(gi, term)
    else:
        if gg_x is not None:
            g_gamma = csum(_m.multiply(_m.multiply(gg_x, dyu), inv))
            g_dy = _m.multiply(_m.multiply(gg_x, inv), gamma)
        if gg_scale is not None:
            gi = _m.multiply(_m.multiply(gg_scale, inv), dyu)
    if gg_scale is not None:
        term = _m.multiply(_m.multiply(gg_scale, c), inv)
        g_dy = term if g_dy is None else _m.add(g_dy, term)
    if g_doffset is not None:
        term = _m.add(_a.zeros_like(c), per_channel(g_doffset))
        g_dy = term if g_dy is None else _m.add(g_dy, term)
    if g_dy is not None and g_dy._dtype is not dy._dtype:
        g_dy = _m.cast(g_dy, dy._dtype)
    if gi is not None and gi._dtype is not x._dtype:
        gi = _m.cast(gi, x._dtype)
    if g_gamma is not None:
        g_gamma = _a.reshape(g_gamma, scale._array.shape)
    return [g_dy, gi, g_gamma, None, None, None]


_FWD_ATTRS = {"epsilon": "epsilon", "exponential_avg_factor": "exponential_avg_factor",
              "data_format": "data_format", "is_training": "is_training"}

_FORWARD_OP = Op("FusedBatchNormV3", rule=_forward_rule, grad=_forward_grad, multi_output=True, grad_takes_none=True,
                 output_arg=FusedBatchNormV3._fields, tf_input_types=("T", "U", "U", "U", "U"))
_GRAD_OP = Op("FusedBatchNormGradV3", rule=_grad_rule, grad=_grad_grad, multi_output=True, grad_takes_none=True,
              output_arg=FusedBatchNormGradV3._fields, tf_input_types=("T", "T", None, "U", "U", "U"))
_FORWARD_OP.kernel()(_fused_batch_norm_v3)
_GRAD_OP.kernel()(_fused_batch_norm_grad_v3)

# -- native CPU candidates (kernels/cpu_kernels.cc): channels-last float32/float64, three passes forward and two
# backward on one thread (memory-bound: see the kernels' comment), where the NumPy candidates make about seven and
# eight

_NATIVE_MIN = 1 << 15  # below this many values NumPy's passes cost less than the call


def _native_applies(x, fmt, *others):
    return (type(x) is np.ndarray and x.size >= _NATIVE_MIN and not _channels_first(fmt)
            and native_cpu.supports(x, *others))


def _native_forward_applies(x, scale, offset, mean, variance, *, data_format, is_training, **_):
    return is_training and _native_applies(x, data_format, scale, offset)


def _native_grad_applies(dy, x, scale, r1, r2, r3, *, data_format, **_):
    return _native_applies(x, data_format, dy, scale, r1, r2)


@_FORWARD_OP.kernel("cpu", supports=_native_forward_applies, priority=1, name="fused_batch_norm_native")
def _fused_batch_norm_v3_native(b, x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
                                data_format, is_training):
    """The training forward in one C++ call (``tfc_batch_norm_train``); the statistics' tails in NumPy."""
    c = x.shape[-1]
    n = x.size // c
    y = np.empty_like(x)
    batch_mean, var = np.empty(c, x.dtype), np.empty(c, x.dtype)
    native_cpu.library().fn("tfc_batch_norm_train", x.dtype)(
        native_cpu.ptr(x), n, c, native_cpu.ptr(scale), native_cpu.ptr(offset), float(epsilon), native_cpu.ptr(y),
        native_cpu.ptr(batch_mean), native_cpu.ptr(var))
    t = x.dtype.type
    unbiased = var * t(n / (n - 1)) if n > 1 else np.zeros_like(var)
    out_mean, out_var = batch_mean, unbiased
    if exponential_avg_factor != 1.0:
        f = t(exponential_avg_factor)
        out_mean = mean - (mean - batch_mean) * f
        out_var = variance - (variance - unbiased) * f
    if out_mean is batch_mean:
        batch_mean = batch_mean.copy()
    return y, out_mean, out_var, batch_mean, var, np.zeros((0,), x.dtype)


@_GRAD_OP.kernel("cpu", supports=_native_grad_applies, priority=1, name="fused_batch_norm_grad_native")
def _fused_batch_norm_grad_v3_native(b, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, *,
                                     epsilon, data_format, is_training):
    """All three gradients in one C++ call (``tfc_batch_norm_grad``)."""
    c = x.shape[-1]
    dx = np.empty_like(x)
    dscale, doffset = np.empty(c, x.dtype), np.empty(c, x.dtype)
    native_cpu.library().fn("tfc_batch_norm_grad", x.dtype)(
        native_cpu.ptr(y_backprop), native_cpu.ptr(x), x.size // c, c, native_cpu.ptr(scale),
        native_cpu.ptr(reserve_space_1), native_cpu.ptr(reserve_space_2), float(epsilon), int(bool(is_training)),
        native_cpu.ptr(dx), native_cpu.ptr(dscale), native_cpu.ptr(doffset))
    placeholder = np.zeros((), x.dtype)
    return dx, dscale, doffset, placeholder, placeholder


def _attrs(epsilon, data_format, is_training):
    return {"epsilon": float(epsilon), "data_format": data_format.decode() if isinstance(data_format, bytes)
            else str(data_format), "is_training": bool(is_training)}


def fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=0.0001, exponential_avg_factor=1.0,
                        data_format="NHWC", is_training=True, name=None):
    """``tf.raw_ops.FusedBatchNormV3``: the named tuple ``(y, batch_mean, batch_variance, reserve_space_1,
    reserve_space_2, reserve_space_3)`` (see the module docstring for what each holds)."""
    attrs = _attrs(epsilon, data_format, is_training)
    attrs["exponential_avg_factor"] = float(exponential_avg_factor)
    ts = tuple(as_tensor(t) for t in (x, scale, offset, mean, variance))
    return FusedBatchNormV3(*execute(_FORWARD_OP, ts, attrs))


def fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
                             epsilon=0.0001, data_format="NHWC", is_training=True, name=None):
    """``tf.raw_ops.FusedBatchNormGradV3``: ``(x_backprop, scale_backprop, offset_backprop, reserve_space_4,
    reserve_space_5)``."""
    ts = tuple(as_tensor(t) for t in (y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3))
    return FusedBatchNormGradV3(*execute(_GRAD_OP, ts, _attrs(epsilon, data_format, is_training)))
