"""``tf.nn``'s moment helpers beside :func:`tfcore.ops.nn_ops.moments`: sufficient statistics, normalising
them, frequency-weighted moments and ``batch_norm_with_global_normalization``; compositions of registered
ops."""

import numpy as np

from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import array_ops as _a
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor

__all__ = ["sufficient_statistics", "normalize_moments", "weighted_moments", "batch_norm_with_global_normalization"]


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
