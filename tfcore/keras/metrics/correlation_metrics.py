"""Pearson and concordance correlation metrics (Keras 3's ``correlation_metrics.py``)."""

from ...framework import dtypes
from ...ops import math_ops, reduce_ops
from .. import losses as losses_mod
from .metric import _EPS, _t
from .reduction_metrics import _wrapper


def _same_rank_floats(y_true, y_pred):
    y_pred = _t(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    y_true = _t(y_true, y_pred.dtype)
    y_pred, y_true, _ = losses_mod.squeeze_or_expand_dimensions(y_pred, y_true)
    return y_true, y_pred


def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson's correlation of ``y_true`` and ``y_pred`` along ``axis`` (Keras' formula, epsilon-guarded)."""
    y_true, y_pred = _same_rank_floats(y_true, y_pred)
    t = math_ops.subtract(y_true, reduce_ops.reduce_mean(y_true, axis=axis, keepdims=True))
    p = math_ops.subtract(y_pred, reduce_ops.reduce_mean(y_pred, axis=axis, keepdims=True))
    t = math_ops.divide(t, math_ops.add(reduce_ops.reduce_std(t, axis=axis, keepdims=True), _EPS))
    p = math_ops.divide(p, math_ops.add(reduce_ops.reduce_std(p, axis=axis, keepdims=True), _EPS))
    return reduce_ops.reduce_mean(math_ops.multiply(t, p), axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance coefficient along ``axis``, exactly as Keras computes it."""
    y_true, y_pred = _same_rank_floats(y_true, y_pred)
    mt = reduce_ops.reduce_mean(y_true, axis=axis, keepdims=True)
    mp = reduce_ops.reduce_mean(y_pred, axis=axis, keepdims=True)
    vt = reduce_ops.reduce_variance(math_ops.subtract(y_true, mt), axis=axis, keepdims=True)
    vp = reduce_ops.reduce_variance(math_ops.subtract(y_pred, mp), axis=axis, keepdims=True)
    covar = math_ops.multiply(math_ops.subtract(y_true, mp), math_ops.subtract(y_pred, mp))
    norm = math_ops.add(math_ops.add(vt, vp), math_ops.square(math_ops.subtract(mt, mp)))
    return reduce_ops.reduce_mean(math_ops.divide(math_ops.multiply(covar, 2.0), math_ops.add(norm, _EPS)),
                                  axis=axis)


PearsonCorrelation = _wrapper("PearsonCorrelation", pearson_correlation, "pearson_correlation",
                              "Mean Pearson correlation along ``axis``.", __name__, axis=-1)
ConcordanceCorrelation = _wrapper("ConcordanceCorrelation", concordance_correlation, "concordance_correlation",
                                  "Mean concordance correlation along ``axis``.", __name__, axis=-1)
