"""``tf.keras.activations``: element-wise activation functions (Keras 3's set, celu to threshold included),
looked up by name with :func:`get`."""

from tfcore.framework.tensor import Tensor

from .. import nn
from ..framework.tensor_conversion import convert_to_tensor as _convert_to_tensor
from ..ops import array_ops, math_ops, nn_ops, reduce_ops
from .saving import safe_mode
from .utils.object_registration import lookup_custom_object

__all__ = [
    "relu", "sigmoid", "tanh", "softmax", "log_softmax", "softplus", "softsign", "elu", "selu", "gelu", "swish",
    "silu", "exponential", "hard_sigmoid", "linear", "leaky_relu", "relu6", "mish", "get", "serialize",
    "deserialize", "celu", "glu", "hard_shrink", "hard_silu", "hard_swish", "hard_tanh", "log_sigmoid", "soft_shrink",
    "sparse_plus", "sparse_sigmoid", "sparsemax", "squareplus", "tanh_shrink", "threshold",
]


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """max(x, 0) with Keras's options: leaky slope ``alpha``, cap ``max_value``, ``threshold``."""
    if alpha == 0.0 and max_value is None and threshold == 0.0:
        return nn.relu(x)
    x = array_ops.convert_to_tensor(x)
    if threshold != 0.0:
        below = array_ops.zeros_like(x) if alpha == 0.0 else alpha * (x - threshold)
        out = math_ops.where(math_ops.greater(x, threshold), x, below)
    elif alpha != 0.0:
        out = math_ops.where(math_ops.greater(x, 0.0), x, alpha * x)
    else:
        out = nn.relu(x)
    if max_value is not None:
        out = math_ops.minimum(out, math_ops.cast(max_value, out.dtype))
    return out


def _cache_logits(output, x):
    """Remember ``x`` on ``output`` (Keras' ``_keras_logits``): cross-entropy losses then work from the
    logits (exact, no clipping at ``epsilon``), as TF Keras does for softmax and sigmoid activations."""
    if isinstance(x, Tensor) and isinstance(output, Tensor):
        output._keras_logits = x
    return output


def sigmoid(x):
    return _cache_logits(math_ops.sigmoid(x), x)


def tanh(x):
    return math_ops.tanh(x)


def softmax(x, axis=-1):
    """Softmax along ``axis`` (the last by default); the logits are cached for the losses (last axis only)."""
    out = nn.softmax(x, axis=axis)
    return _cache_logits(out, x) if axis == -1 or (isinstance(x, Tensor) and axis == x.ndim - 1) else out


def log_softmax(x, axis=-1):
    return nn.log_softmax(x, axis=axis)


def softplus(x):
    return nn.softplus(x)


def softsign(x):
    return nn.softsign(x)


def elu(x, alpha=1.0):
    out = nn.elu(x)
    if alpha == 1.0:
        return out
    return math_ops.where(math_ops.greater(x, 0.0), out, alpha * out)


def selu(x):
    return nn.selu(x)


def gelu(x, approximate=False):
    return nn.gelu(x, approximate=approximate)


def swish(x):
    return x * math_ops.sigmoid(x)


silu = swish


def mish(x):
    return x * math_ops.tanh(nn.softplus(x))


def exponential(x):
    return math_ops.exp(x)


def hard_sigmoid(x):
    """TF2's piecewise-linear sigmoid: clip(x / 6 + 0.5, 0, 1) (Keras >= 2.11)."""
    return math_ops.clip_by_value(x / 6.0 + 0.5, 0.0, 1.0)


def linear(x):
    return x


def leaky_relu(x, alpha=0.2):
    return nn.leaky_relu(x, alpha=alpha)


def relu6(x):
    return nn.relu6(x)


def _t(x):
    x = _convert_to_tensor(x)
    return x if x.dtype.is_floating else math_ops.cast(x, "float32")


def celu(x, alpha=1.0):
    """``x`` for ``x >= 0``, ``alpha * (exp(x / alpha) - 1)`` below."""
    x = _t(x)
    return math_ops.where(math_ops.greater_equal(x, 0.0), x,
                          math_ops.multiply(math_ops.expm1(math_ops.divide(x, float(alpha))), float(alpha)))


def glu(x, axis=-1):
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``x`` along ``axis``."""
    x = _t(x)
    if x.shape[axis] % 2:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={x.shape.as_list()} with axis={axis}")
    a, b = array_ops.split(x, 2, axis=axis)
    return math_ops.multiply(a, math_ops.sigmoid(b))


def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, 0 elsewhere."""
    x = _t(x)
    return math_ops.where(math_ops.greater(math_ops.abs(x), float(threshold)), x, array_ops.zeros_like(x))


def hard_silu(x):
    """``x * relu6(x + 3) / 6`` (hard swish)."""
    x = _t(x)
    return math_ops.multiply(x, math_ops.divide(nn_ops.relu6(math_ops.add(x, 3.0)), 6.0))


hard_swish = hard_silu


def hard_tanh(x):
    """``clip(x, -1, 1)``."""
    return math_ops.clip_by_value(_t(x), -1.0, 1.0)


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``."""
    return math_ops.negative(math_ops.softplus(math_ops.negative(_t(x))))


def soft_shrink(x, threshold=0.5):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, 0 between."""
    x = _t(x)
    t = float(threshold)
    return math_ops.where(math_ops.greater(x, t), math_ops.subtract(x, t),
                          math_ops.where(math_ops.less(x, -t), math_ops.add(x, t), array_ops.zeros_like(x)))


def sparse_plus(x):
    """0 for ``x <= -1``, ``(x + 1)^2 / 4`` on (-1, 1), ``x`` for ``x >= 1``."""
    x = _t(x)
    mid = math_ops.divide(math_ops.square(math_ops.add(x, 1.0)), 4.0)
    return math_ops.where(math_ops.less_equal(x, -1.0), array_ops.zeros_like(x),
                          math_ops.where(math_ops.greater_equal(x, 1.0), x, mid))


def sparse_sigmoid(x):
    """0 for ``x <= -1``, ``(x + 1) / 2`` on (-1, 1), 1 for ``x >= 1``."""
    return math_ops.clip_by_value(math_ops.divide(math_ops.add(_t(x), 1.0), 2.0), 0.0, 1.0)


def sparsemax(x, axis=-1):
    """Euclidean projection of ``x`` onto the probability simplex along ``axis`` (Martins & Astudillo, 2016)."""
    x = _t(x)
    nd = x.ndim
    axis = axis % nd
    perm = [i for i in range(nd) if i != axis] + [axis]
    back = [perm.index(i) for i in range(nd)]
    z = array_ops.transpose(x, perm)
    n = z.shape[-1]
    z_sorted = array_ops.sort(z, axis=-1, direction="DESCENDING")
    cums = math_ops.cumsum(z_sorted, axis=-1)
    k = math_ops.cast(array_ops.range(1, n + 1), z.dtype)
    support = math_ops.cast(math_ops.greater(math_ops.add(math_ops.multiply(k, z_sorted), 1.0), cums), z.dtype)
    k_z = reduce_ops.reduce_sum(support, axis=-1, keepdims=True)
    sum_support = reduce_ops.reduce_sum(math_ops.multiply(support, z_sorted), axis=-1, keepdims=True)
    tau = math_ops.divide(math_ops.subtract(sum_support, 1.0), k_z)
    out = nn_ops.relu(math_ops.subtract(z, tau))
    return array_ops.transpose(out, back)


def squareplus(x, b=4):
    """``(x + sqrt(x^2 + b)) / 2``."""
    x = _t(x)
    return math_ops.divide(math_ops.add(x, math_ops.sqrt(math_ops.add(math_ops.square(x), float(b)))), 2.0)


def tanh_shrink(x):
    """``x - tanh(x)``."""
    x = _t(x)
    return math_ops.subtract(x, math_ops.tanh(x))


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, ``default_value`` elsewhere."""
    x = _t(x)
    return math_ops.where(math_ops.greater(x, float(threshold)), x,
                          math_ops.add(array_ops.zeros_like(x), float(default_value)))


_TABLE = {f: globals()[f] for f in __all__ if f not in {"get", "serialize", "deserialize"}}


def get(identifier):
    """The activation function for a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        fn = _TABLE.get(identifier)
        if fn is None:
            fn = lookup_custom_object(identifier)
        if fn is None:
            raise ValueError(f"Unknown activation function: '{identifier}'. Please ensure you are using a "
                             "`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return fn
    if isinstance(identifier, dict):
        return _from_config(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier!r}")


def _from_config(config):
    """The activation a serialized dict names; an object nobody registered is an error, never ``linear``.

    Forms (Keras 3): ``{"class_name": "function", "config": "relu", "registered_name": ...}`` for
    functions, ``{"class_name": "__lambda__", ...}`` for lambdas (refused in safe mode),
    ``{"class_name": "MyActivation", "config": {...}, "registered_name": "Custom>MyActivation"}`` for
    registered callable classes.
    """

    class_name = config.get("class_name")
    inner = config.get("config")
    registered = config.get("registered_name")
    if safe_mode.is_lambda_config(config):
        return safe_mode.load_lambda(config)
    if class_name == "function":
        fn = None
        for key in (registered, inner):
            if isinstance(key, str) and fn is None:
                fn = lookup_custom_object(key) or _TABLE.get(key)
        if callable(fn):
            return fn
        raise TypeError(f"Could not locate function '{inner}'. Make sure custom classes are decorated with "
                        f"`@keras.saving.register_keras_serializable()`. Full object config: {config}")
    if not isinstance(class_name, str):
        raise ValueError(f"Could not interpret activation function identifier: {config}")
    if class_name in _TABLE and not isinstance(inner, dict | type(None)):
        return _TABLE[class_name]
    obj = lookup_custom_object(registered) if isinstance(registered, str) else None
    obj = obj or lookup_custom_object(class_name)
    if obj is None and class_name in _TABLE:
        return _TABLE[class_name]
    if isinstance(obj, type):
        kwargs = inner if isinstance(inner, dict) else {}
        obj = obj.from_config(kwargs) if hasattr(obj, "from_config") else obj(**kwargs)
    if callable(obj):
        return obj
    raise TypeError(f"Could not locate class '{class_name}'. Make sure custom classes are decorated with "
                    f"`@keras.saving.register_keras_serializable()`. Full object config: {config}")


def serialize(activation):
    name = getattr(activation, "__name__", None)
    if name in _TABLE and _TABLE[name] is activation:
        return name
    if name == "<lambda>":
        return {"class_name": "__lambda__", "config": {"value": list(safe_mode.func_dump(activation))}}
    if hasattr(activation, "get_config"):
        return {"class_name": type(activation).__name__, "config": activation.get_config()}
    return name


def deserialize(name, custom_objects=None):
    return get(name)
