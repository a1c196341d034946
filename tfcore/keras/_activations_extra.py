"""The rest of ``tf.keras.activations`` (Keras 3): celu, glu, hard_shrink, hard_silu/hard_swish, hard_tanh,
log_sigmoid, soft_shrink, sparse_plus, sparse_sigmoid, sparsemax, squareplus, tanh_shrink, threshold;
and the initializer aliases Keras 3 adds (IdentityInitializer, OrthogonalInitializer, identity,
variance_scaling).

Published into ``keras.activations`` / ``keras.initializers`` (and their by-name lookups) when
``tfcore.keras`` imports this module.
"""

from ..framework.tensor_conversion import convert_to_tensor
from ..ops import array_ops, math_ops, nn_ops, reduce_ops
from . import activations as activations_mod
from . import initializers as initializers_mod

__all__ = ["celu", "glu", "hard_shrink", "hard_silu", "hard_swish", "hard_tanh", "log_sigmoid", "soft_shrink",
           "sparse_plus", "sparse_sigmoid", "sparsemax", "squareplus", "tanh_shrink", "threshold"]


def _t(x):
    x = convert_to_tensor(x)
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


_INITIALIZER_ALIASES = {"IdentityInitializer": "Identity", "OrthogonalInitializer": "Orthogonal",
                        "identity": "Identity", "variance_scaling": "VarianceScaling"}


def _install():
    for name in __all__:
        setattr(activations_mod, name, globals()[name])
        activations_mod._TABLE[name] = globals()[name]
    for alias, target in _INITIALIZER_ALIASES.items():
        setattr(initializers_mod, alias, getattr(initializers_mod, target))


_install()
