"""Neural-network ops: activations, softmax/log-softmax, bias_add, dropout, normalization, embeddings.

Activations with TF kernels (Relu, Relu6, Elu, Selu, LeakyRelu, Softmax, LogSoftmax, BiasAdd) are
fused ops whose gradients are themselves ops (``ReluGrad``, ``EluGrad``, ``BiasAddGrad``, ...) with
gradients of their own, so nested tapes give higher derivatives. Functions TF writes in Python
(gelu, silu, moments, batch_normalization, l2_normalize, dropout) are compositions of ops here too.

Op attributes: ``Softmax``/``LogSoftmax`` always work on the last axis (the public functions
transpose another axis there and back, as TF); ``BiasAdd``/``BiasAddGrad`` take ``data_format``
(``'NHWC'``: channels last, ``'NCHW'``: channels at dimension 1); ``LeakyRelu``/``LeakyReluGrad``
take ``alpha``.
"""

import math

import numpy as np

from ..backend import native_cpu
from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.variables import Variable
from . import _cpu_fast, batch_norm_ops, random_ops
from ._common import accumulation_dtype, as_tensor, describe, floating_rule, host_float32, normalize_axis, numeric_rule
from .array_ops import broadcast_to, reshape, transpose, zeros_like
from .math_ops import (
    add,
    cast,
    erf,
    greater_equal,
    less,
    maximum,
    multiply,
    rsqrt,
    scalar_like,
    sigmoid,
    softplus,
    softsign,
    square,
    squared_difference,
    subtract,
    tanh,
    where,
)
from .reduce_ops import reduce_sum
from .registry import Op, execute

__all__ = [
    "relu", "relu6", "elu", "selu", "gelu", "leaky_relu", "silu", "swish", "softmax", "log_softmax",
    "bias_add", "sigmoid", "tanh", "softplus", "softsign", "dropout", "moments", "batch_normalization",
    "fused_batch_norm", "l2_normalize", "embedding_lookup", "crelu", "space_to_depth", "depth_to_space",
]

SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


@add_dispatch_support
def operand_like(value, like):
    """A tensor or variable as is (its dtype is the op rule's to check); a Python/NumPy value
    converted to ``like``'s dtype, as TF converts the second operand."""
    if hasattr(value, "_dtype") or isinstance(value, Variable):
        return as_tensor(value)
    return as_tensor(value, dtype=like.dtype)


def _zero(xp, dtype):
    return xp.zeros((), dtype=dtype)


# -- ReLU family ----------------------------------------------------------------------------

RELU = Op("Relu", rule=numeric_rule, grad=lambda c, g: [execute(RELU_GRAD, (g, c.outputs[0]))],
          output_arg="activations", cuda_expr="(({0} > T(0) || {0} != {0}) ? {0} : T(0))")  # NaN stays NaN
RELU_GRAD = Op("ReluGrad", rule=numeric_rule,
               grad=lambda c, gg: [execute(RELU_GRAD, (gg, c.inputs[1])), None], output_arg="backprops")


@RELU.kernel()
def _relu(b, x):
    return b.xp.maximum(x, _zero(b.xp, x.dtype))


@RELU.kernel("cpu")
def _relu_cpu(b, x):
    """NumPy: ``maximum`` against a same-shape zeros array takes the SIMD loop (a scalar does not)."""
    zeros = _cpu_fast.shared_zeros_like(x)
    return np.maximum(x, zeros if zeros is not None else _zero(np, x.dtype))


@RELU_GRAD.kernel()
@host_float32
def _relu_grad(b, g, y):
    """``g`` where the ReLU output (or input) is positive, else 0: ``g * (y > 0)``, TF's formula.

    A multiply by the mask is ~4x faster than ``where`` in NumPy (and, as in TF, inf * 0 is nan).
    """
    return g * (y > 0)


# Below this many values NumPy's two passes cost less than a call into the native kernel.
_NATIVE_RELU_GRAD_MIN = 1 << 16


def _native_relu_grad_applies(g, y):
    return (type(g) is np.ndarray and g.size >= _NATIVE_RELU_GRAD_MIN and g.shape == y.shape
            and native_cpu.supports(g, y))


@RELU_GRAD.kernel("cpu", supports=_native_relu_grad_applies, priority=1, name="relu_grad_native")
def _relu_grad_native(b, g, y):
    """``g * (y > 0)`` in one pass split over the op's threads (``kernels/cpu_kernels.cc``)."""
    out = np.empty_like(g)
    native_cpu.library().fn("tfc_relu_grad", g.dtype)(native_cpu.ptr(g), native_cpu.ptr(y), g.size,
                                                     native_cpu.ptr(out))
    return out


RELU6 = Op("Relu6", rule=numeric_rule, grad=lambda c, g: [execute(RELU6_GRAD, (g, c.inputs[0]))],
           output_arg="activations")
RELU6_GRAD = Op("Relu6Grad", rule=numeric_rule,
                grad=lambda c, gg: [execute(RELU6_GRAD, (gg, c.inputs[1])), None], output_arg="backprops")


@RELU6.kernel()
def _relu6(b, x):
    return b.xp.clip(x, _zero(b.xp, x.dtype), x.dtype.type(6))


@RELU6_GRAD.kernel()
def _relu6_grad(b, g, x):
    return b.xp.where((x > 0) & (x < 6), g, _zero(b.xp, g.dtype))


def _leaky_grad(c, g):
    return [execute(LEAKY_RELU_GRAD, (g, c.inputs[0]), c.attrs)]


LEAKY_RELU = Op("LeakyRelu", rule=floating_rule, grad=_leaky_grad, output_arg="activations")
LEAKY_RELU_GRAD = Op("LeakyReluGrad", rule=floating_rule,
                     grad=lambda c, gg: [execute(LEAKY_RELU_GRAD, (gg, c.inputs[1]), c.attrs), None],
                     output_arg="backprops")


@LEAKY_RELU.kernel()
def _leaky_relu(b, x, *, alpha):
    return b.xp.where(x > 0, x, x * x.dtype.type(alpha))


@LEAKY_RELU_GRAD.kernel()
def _leaky_relu_grad(b, g, x, *, alpha):
    return b.xp.where(x > 0, g, g * g.dtype.type(alpha))


def _elu_like_gradgrad(grad_op):
    """Gradient of EluGrad/SeluGrad(g, y): linear in g; d/dy is g where y < 0."""
    def grad(c, gg):
        g, y = c.inputs
        return [execute(grad_op, (gg, y)), where(less(y, zeros_like(y)), multiply(gg, g), zeros_like(y))]
    return grad


ELU = Op("Elu", rule=floating_rule, grad=lambda c, g: [execute(ELU_GRAD, (g, c.outputs[0]))],
         output_arg="activations")
ELU_GRAD = Op("EluGrad", rule=floating_rule, output_arg="backprops")
ELU_GRAD.grad = _elu_like_gradgrad(ELU_GRAD)


@ELU.kernel()
def _elu(b, x):
    xp = b.xp
    return xp.where(x > 0, x, xp.expm1(xp.minimum(x, _zero(xp, x.dtype))))


@ELU_GRAD.kernel()
def _elu_grad(b, g, y):
    """From the output: ``g`` where y > 0, else ``g * (y + 1)``."""
    return b.xp.where(y > 0, g, g * (y + y.dtype.type(1)))


SELU = Op("Selu", rule=floating_rule, grad=lambda c, g: [execute(SELU_GRAD, (g, c.outputs[0]))],
          output_arg="activations")
SELU_GRAD = Op("SeluGrad", rule=floating_rule, output_arg="backprops")
SELU_GRAD.grad = _elu_like_gradgrad(SELU_GRAD)


@SELU.kernel()
def _selu(b, x):
    xp = b.xp
    t = x.dtype.type
    neg = t(SELU_ALPHA) * xp.expm1(xp.minimum(x, _zero(xp, x.dtype)))
    return (t(SELU_SCALE) * xp.where(x > 0, x, neg)).astype(x.dtype, copy=False)


@SELU_GRAD.kernel()
def _selu_grad(b, g, y):
    t = y.dtype.type
    return b.xp.where(y > 0, g * t(SELU_SCALE), g * (y + t(SELU_SCALE * SELU_ALPHA)))


@add_dispatch_support
def relu(features, name=None):
    """``tf.nn.relu``: max(features, 0)."""
    return execute(RELU, (features,))


@add_dispatch_support
def relu6(features, name=None):
    """``tf.nn.relu6``: min(max(features, 0), 6)."""
    return execute(RELU6, (features,))


@add_dispatch_support
def leaky_relu(features, alpha=0.2, name=None):
    """``tf.nn.leaky_relu``: features where positive, else ``alpha * features`` (integers become float32)."""
    x = as_tensor(features)
    if x.dtype.is_integer:
        x = cast(x, dtypes.float32)
    return execute(LEAKY_RELU, (x,), {"alpha": float(alpha)})


@add_dispatch_support
def elu(features, name=None):
    """``tf.nn.elu``: features where positive, else exp(features) - 1."""
    return execute(ELU, (features,))


@add_dispatch_support
def selu(features, name=None):
    """``tf.nn.selu``: scale * elu with alpha (Klambauer et al. constants)."""
    return execute(SELU, (features,))


@add_dispatch_support
def gelu(features, approximate=False, name=None):
    """``tf.nn.gelu``: ``0.5 x (1 + erf(x / sqrt 2))``, or the tanh approximation."""
    x = as_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"gelu: features.dtype must be a floating point tensor, got {x.dtype.name}")
    half = scalar_like(0.5, x)
    if approximate:
        inner = multiply(scalar_like(math.sqrt(2.0 / math.pi), x),
                         add(x, multiply(scalar_like(0.044715, x), multiply(x, square(x)))))
        return multiply(multiply(half, x), add(scalar_like(1.0, x), tanh(inner)))
    return multiply(multiply(half, x), add(scalar_like(1.0, x), erf(multiply(x, scalar_like(1 / math.sqrt(2.0), x)))))


@add_dispatch_support
def silu(features, beta=1.0, name=None):
    """``tf.nn.silu`` (swish): ``features * sigmoid(beta * features)``."""
    x = as_tensor(features)
    if isinstance(beta, int | float) and beta == 1.0:
        return multiply(x, sigmoid(x))
    beta = scalar_like(beta, x) if isinstance(beta, int | float) else cast(beta, x.dtype)
    return multiply(x, sigmoid(multiply(beta, x)))


swish = silu


@add_dispatch_support
def crelu(features, axis=-1, name=None):
    """``tf.nn.crelu``: ``concat([relu(x), relu(-x)], axis)``."""
    from .array_ops import concat
    from .math_ops import negative

    x = as_tensor(features)
    return concat([relu(x), relu(negative(x))], axis=axis)


# -- softmax ----------------------------------------------------------------------------------

def _softmax_rule(op, ts, attrs):
    floating_rule(op, ts, attrs)
    if ts[0]._array.ndim < 1:
        raise InvalidArgumentError(None, None, f"{op.name}: logits must have rank >= 1, got {describe(ts)}")
    return None


def _softmax_grad(c, g):
    y = c.outputs[0]
    return [multiply(subtract(g, reduce_sum(multiply(g, y), axis=-1, keepdims=True)), y)]


def _log_softmax_grad(c, g):
    from .math_ops import exp

    return [subtract(g, multiply(exp(c.outputs[0]), reduce_sum(g, axis=-1, keepdims=True)))]


SOFTMAX = Op("Softmax", rule=_softmax_rule, grad=_softmax_grad, output_arg="softmax")
LOG_SOFTMAX = Op("LogSoftmax", rule=_softmax_rule, grad=_log_softmax_grad, output_arg="logsoftmax")


@SOFTMAX.kernel()
def _softmax(b, x):
    xp = b.xp
    if not x.size:  # an empty row axis has no maximum: nothing to normalise, as TF
        return x.copy()
    if accumulation_dtype(x.dtype) != x.dtype:  # float16/bfloat16: exp and sums in float32, one rounding
        return _softmax(b, x.astype(accumulation_dtype(x.dtype))).astype(x.dtype)
    e = xp.exp(x - x.max(axis=-1, keepdims=True))
    e /= e.sum(axis=-1, keepdims=True)
    return e


_UFUNC_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@SOFTMAX.kernel("cpu", name="softmax_ufunc")
def _softmax_cpu(b, x):
    """float32/64: the ufuncs' reduce directly (ndarray.max/sum add ~1 us of Python each); the generic code
    for everything else. The CPU's own kernel, so no dispatcher stands before it."""
    if x.dtype not in _UFUNC_FLOATS or not x.size:
        return _softmax(b, x)
    e = np.exp(x - np.maximum.reduce(x, axis=-1, keepdims=True))
    e /= np.add.reduce(e, axis=-1, keepdims=True)
    return e


@LOG_SOFTMAX.kernel()
def _log_softmax(b, x):
    xp = b.xp
    if not x.size:  # an empty row axis has no maximum: nothing to normalise, as TF
        return x.copy()
    if accumulation_dtype(x.dtype) != x.dtype:
        return _log_softmax(b, x.astype(accumulation_dtype(x.dtype))).astype(x.dtype)
    s = x - x.max(axis=-1, keepdims=True)
    return s - xp.log(xp.exp(s).sum(axis=-1, keepdims=True))


def _last_axis(op, logits, axis):
    x = as_tensor(logits)
    nd = x._array.ndim
    if axis is None or nd == 0:
        return execute(op, (x,))
    (a,) = normalize_axis(axis, nd, op.name)
    if a == nd - 1:
        return execute(op, (x,))
    perm = list(range(nd))
    perm[a], perm[-1] = perm[-1], perm[a]
    return transpose(execute(op, (transpose(x, perm),)), perm)


@add_dispatch_support
def softmax(logits, axis=None, name=None):
    """``tf.nn.softmax`` along ``axis`` (default -1)."""
    return _last_axis(SOFTMAX, logits, axis)


@add_dispatch_support
def log_softmax(logits, axis=None, name=None):
    """``tf.nn.log_softmax`` along ``axis`` (default -1)."""
    return _last_axis(LOG_SOFTMAX, logits, axis)


# -- bias_add ---------------------------------------------------------------------------------

def _channel_axis(ndim, data_format):
    return 1 if data_format.startswith("NC") else ndim - 1


def _bias_add_rule(op, ts, attrs):
    v, bias = ts
    if v._dtype is not bias._dtype or v._dtype.is_bool or v._dtype.name == "string":
        raise InvalidArgumentError(None, None, f"{op.name}: value and bias must have one numeric dtype, got "
                                   f"{describe(ts)}")
    if v._array.ndim < 2 or bias._array.ndim != 1:
        raise InvalidArgumentError(None, None, f"{op.name}: value must have rank >= 2 and bias rank 1, got "
                                   f"{describe(ts)}")
    c = v._array.shape[_channel_axis(v._array.ndim, attrs["data_format"])]
    if bias._array.shape[0] != c:
        raise InvalidArgumentError(
            None, None, f"{op.name}: must provide as many biases as the channel dimension of the input tensor "
            f"({bias._array.shape[0]} vs {c}; data_format {attrs['data_format']}): {describe(ts)}")
    return None


BIAS_ADD = Op("BiasAdd", rule=_bias_add_rule,
              grad=lambda c, g: [g, execute(BIAS_ADD_GRAD, (g,), c.attrs)])


def _bias_add_grad_grad(c, gg):
    g = c.inputs[0]
    nd = g._array.ndim
    shape = [1] * nd
    shape[_channel_axis(nd, c.attrs["data_format"])] = -1
    return [broadcast_to(reshape(gg, shape), g._array.shape)]


BIAS_ADD_GRAD = Op("BiasAddGrad", rule=numeric_rule, grad=_bias_add_grad_grad)


@BIAS_ADD.kernel()
def _bias_add(b, v, bias, *, data_format):
    if data_format.startswith("NC"):
        bias = bias.reshape((-1,) + (1,) * (v.ndim - 2))
    return v + bias


@BIAS_ADD_GRAD.kernel()
def _bias_add_grad(b, g, *, data_format):
    ch = _channel_axis(g.ndim, data_format)
    axes = tuple(i for i in range(g.ndim) if i != ch)
    acc = accumulation_dtype(g.dtype)
    if acc != g.dtype:  # float16/bfloat16: float32 sums, one rounding
        with np.errstate(over="ignore"):
            return g.sum(axis=axes, dtype=acc).astype(g.dtype)
    return g.sum(axis=axes, dtype=g.dtype)


@BIAS_ADD_GRAD.kernel("cpu")
def _bias_add_grad_cpu(b, g, *, data_format):
    """Channels last: column sums of [rows, C] through BLAS."""
    if _channel_axis(g.ndim, data_format) == g.ndim - 1 and accumulation_dtype(g.dtype) == g.dtype:
        return _cpu_fast.column_sums(g.reshape(-1, g.shape[-1]))
    return _bias_add_grad(b, g, data_format=data_format)


@add_dispatch_support
def bias_add(value, bias, data_format=None, name=None):
    """``tf.nn.bias_add``: adds a 1-D bias along the channel dimension (last unless ``data_format`` is NC...)."""
    data_format = data_format or "NHWC"
    if not (data_format.startswith("N") and (data_format.endswith("C") or data_format.startswith("NC"))):
        raise ValueError(f"bias_add: data_format must be like 'NHWC' or 'NCHW', got {data_format!r}")
    v = as_tensor(value)
    bias = operand_like(bias, v)
    fmt = "NCHW" if data_format.startswith("NC") else "NHWC"
    return execute(BIAS_ADD, (v, bias), {"data_format": fmt})


# -- dropout ------------------------------------------------------------------------------------

@add_dispatch_support
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """``tf.nn.dropout``: zero each element with probability ``rate``, scale the rest by ``1 / (1 - rate)``.

    ``noise_shape`` (broadcastable to ``x``'s shape; None entries take ``x``'s size) shares one
    keep/drop decision across broadcast dimensions.
    """
    x = as_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. Got a "
                         f"{x.dtype.name} tensor instead.")
    if hasattr(rate, "numpy"):
        rate = rate.numpy()
    rate = float(rate)
    if not 0 <= rate < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {rate:g}")
    if rate == 0:
        return x
    shape = tuple(x._array.shape)
    if noise_shape is not None:
        ns = noise_shape.numpy().tolist() if hasattr(noise_shape, "numpy") else list(noise_shape)
        ns = [shape[i] if d is None else int(d) for i, d in enumerate(ns)] if len(ns) == len(shape) else ns
        try:
            np.broadcast_shapes(tuple(ns), shape)
        except ValueError:
            raise InvalidArgumentError(None, None, f"dropout: noise_shape {ns} is not broadcastable to the "
                                       f"shape of x {describe([x])}") from None
        shape = tuple(int(d) for d in ns)
    noise = random_ops.uniform(shape, minval=0, maxval=1, dtype=x.dtype, seed=seed)
    keep = cast(greater_equal(noise, scalar_like(rate, noise)), x.dtype)
    return multiply(x, multiply(keep, scalar_like(1.0 / (1.0 - rate), x)))


# -- normalization --------------------------------------------------------------------------------

def _mean(x, axes, keepdims):
    n = 1
    for a in axes:
        n *= x._array.shape[a]
    return multiply(reduce_sum(x, axis=list(axes), keepdims=keepdims), scalar_like(1.0 / max(n, 1), x))


@add_dispatch_support
def moments(x, axes, shift=None, keepdims=False, name=None):
    """``tf.nn.moments``: ``(mean, variance)`` over ``axes`` (float16 is accumulated in float32, as TF)."""
    x = as_tensor(x)
    axes = normalize_axis(axes, x._array.ndim, "moments")
    y = cast(x, dtypes.float32) if x.dtype in (dtypes.float16, dtypes.bfloat16) else x
    mean = _mean(y, axes, True)
    variance = _mean(squared_difference(y, mean), axes, True)
    if not keepdims:
        out_shape = [d for i, d in enumerate(x._array.shape) if i not in axes]
        mean, variance = reshape(mean, out_shape), reshape(variance, out_shape)
    if y is not x:
        mean, variance = cast(mean, x.dtype), cast(variance, x.dtype)
    return mean, variance


@add_dispatch_support
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``tf.nn.batch_normalization``: ``scale * (x - mean) / sqrt(variance + eps) + offset``."""
    x = as_tensor(x)
    mean, variance = as_tensor(mean), as_tensor(variance)
    inv = rsqrt(add(variance, scalar_like(variance_epsilon, variance)))
    if scale is not None:
        inv = multiply(inv, scale)
    mean_inv = multiply(mean, inv)
    shift = subtract(offset, mean_inv) if offset is not None else multiply(mean_inv, scalar_like(-1, mean_inv))
    return add(multiply(x, cast(inv, x.dtype)), cast(shift, x.dtype))


@add_dispatch_support
def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """``tf.compat.v1.nn.fused_batch_norm``: ``(y, batch_mean, batch_variance)`` of one ``FusedBatchNormV3`` op
    (``tfcore/ops/batch_norm_ops.py``) on a 4-D (or, with ``NDHWC``/``NCDHW``, 5-D) input.

    Training: normalizes with the batch statistics; the returned variance is the unbiased
    (Bessel-corrected) one, and with ``exponential_avg_factor`` < 1 both statistics are blended
    into ``mean``/``variance`` as TF does. Inference: normalizes with ``mean``/``variance``.
    ``epsilon`` is raised to at least 1.001e-5, as TF does for cuDNN.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
                         f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` {variance!r}")
    x = as_tensor(x)
    scale, offset = as_tensor(scale), as_tensor(offset)
    empty = None
    if mean is None or variance is None:
        empty = convert_to_tensor(np.zeros((0,), scale.dtype.as_numpy_dtype))
    mean = empty if mean is None else mean
    variance = empty if variance is None else variance
    epsilon = max(float(epsilon), 1.001e-5)
    out = batch_norm_ops.fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=epsilon,
                                             exponential_avg_factor=exponential_avg_factor,
                                             data_format=data_format, is_training=is_training)
    return out.y, out.batch_mean, out.batch_variance


@add_dispatch_support
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``tf.math.l2_normalize``: ``x / sqrt(max(sum(x**2, axis), epsilon))``."""
    x = as_tensor(x)
    axis = dim if axis is None else axis
    sq = reduce_sum(square(x), axis=axis, keepdims=True)
    return multiply(x, rsqrt(maximum(sq, scalar_like(epsilon, sq))))


# -- embeddings -----------------------------------------------------------------------------------

@add_dispatch_support
def embedding_lookup(params, ids, max_norm=None, name=None):
    """``tf.nn.embedding_lookup``: rows of ``params`` (a tensor, variable, or list sharded "mod") by ``ids``.

    ``max_norm`` clips each looked-up embedding to that L2 norm.
    """
    from . import array_ops

    if isinstance(params, list | tuple):
        if len(params) != 1:
            return _sharded_lookup(params, ids, max_norm)
        params = params[0]
    out = array_ops.gather(params, ids)
    if max_norm is not None:
        out = _clip_rows(out, as_tensor(ids)._array.ndim, max_norm)
    return out


def _clip_rows(emb, ids_rank, max_norm):
    from .math_ops import minimum

    axes = list(range(ids_rank, emb._array.ndim))
    norm2 = reduce_sum(square(emb), axis=axes, keepdims=True)
    mn = scalar_like(max_norm, norm2)
    factor = multiply(mn, rsqrt(maximum(norm2, square(mn))))
    return multiply(emb, minimum(factor, scalar_like(1.0, factor)))


def _sharded_lookup(params, ids, max_norm):
    """The "mod" partition strategy: id ``i`` lives in shard ``i % n`` at row ``i // n``."""
    from . import array_ops

    n = len(params)
    ids_t = as_tensor(ids)
    ids_np = ids_t.numpy()
    flat = ids_np.reshape(-1)
    parts, positions = [], []
    for s in range(n):
        pos = np.nonzero(flat % n == s)[0]
        if pos.size:
            parts.append(array_ops.gather(params[s], convert_to_tensor((flat[pos] // n).astype(ids_np.dtype))))
            positions.append(pos)
    order = np.argsort(np.concatenate(positions), kind="stable")
    out = array_ops.gather(array_ops.concat(parts, axis=0), convert_to_tensor(order.astype(np.int64)))
    out = reshape(out, list(ids_np.shape) + list(out._array.shape[1:]))
    if max_norm is not None:
        out = _clip_rows(out, ids_np.ndim, max_norm)
    return out


# -- space/depth rearrangement ----------------------------------------------------------------------

def _block_args(op_name, input, block_size, data_format):  # noqa: A002
    x = as_tensor(input)
    if x.shape.rank != 4:
        raise InvalidArgumentError(None, None, f"{op_name}: input must be 4-dimensional, got {describe([x])}")
    if int(block_size) < 2:
        raise InvalidArgumentError(None, None, f"{op_name}: block_size must be at least 2, got {block_size}")
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{op_name}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    return (transpose(x, (0, 2, 3, 1)) if data_format == "NCHW" else x), int(block_size)


@add_dispatch_support
def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.space_to_depth``: ``[N, H, W, C]`` -> ``[N, H/b, W/b, b*b*C]`` (TF's channel order)."""
    x, bs = _block_args("SpaceToDepth", input, block_size, data_format)
    n, h, w, c = x._array.shape
    if h % bs or w % bs:
        raise InvalidArgumentError(None, None, f"SpaceToDepth: height and width of {describe([x])} must be "
                                   f"divisible by block_size {bs}")
    y = transpose(reshape(x, (n, h // bs, bs, w // bs, bs, c)), (0, 1, 3, 2, 4, 5))
    y = reshape(y, (n, h // bs, w // bs, bs * bs * c))
    return transpose(y, (0, 3, 1, 2)) if data_format == "NCHW" else y


@add_dispatch_support
def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.depth_to_space``: ``[N, H, W, b*b*C]`` -> ``[N, H*b, W*b, C]`` (inverse of space_to_depth)."""
    x, bs = _block_args("DepthToSpace", input, block_size, data_format)
    n, h, w, c = x._array.shape
    if c % (bs * bs):
        raise InvalidArgumentError(None, None, f"DepthToSpace: depth of {describe([x])} must be divisible by "
                                   f"block_size * block_size = {bs * bs}")
    y = transpose(reshape(x, (n, h, w, bs, bs, c // (bs * bs))), (0, 1, 3, 2, 4, 5))
    y = reshape(y, (n, h * bs, w * bs, c // (bs * bs)))
    return transpose(y, (0, 3, 1, 2)) if data_format == "NCHW" else y
