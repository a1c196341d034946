"""The rest of ``tf.keras.losses``: hinge family, Poisson, log-cosh, cosine similarity, percentage and
logarithmic errors, focal cross-entropies, Dice/Tversky, Circle, generalized cross-entropy and CTC.

Formulas follow Keras 3 (TF 2.21's ``tf.keras``): every function returns per-sample values (the mean
or sum over ``axis``), and every class wraps its function in a ``LossFunctionWrapper`` so weighting,
reduction and ``get_config`` work as for the classic losses. Probabilities are clipped to
``[epsilon, 1 - epsilon]`` with ``epsilon = 1e-7`` as Keras does.
"""

import math

from ..framework import dtypes
from ..ops import array_ops, math_ops, nn_extra_ops, nn_ops, reduce_ops
from . import losses as losses_mod
from .losses import (
    EPSILON,
    Loss,
    LossFunctionWrapper,
    Reduction,
    _mean,
    _pred_and_true,
    _tensor,
    compute_weighted_loss,
    squeeze_or_expand_dimensions,
)

__all__ = ["hinge", "squared_hinge", "categorical_hinge", "poisson", "log_cosh", "logcosh", "cosine_similarity",
           "mean_absolute_percentage_error", "mape", "MAPE", "mean_squared_logarithmic_error", "msle", "MSLE",
           "binary_focal_crossentropy", "categorical_focal_crossentropy", "dice", "tversky", "circle",
           "categorical_generalized_cross_entropy", "ctc", "Hinge", "SquaredHinge", "CategoricalHinge", "Poisson",
           "LogCosh", "CosineSimilarity", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
           "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy", "Dice", "Tversky",
           "CategoricalGeneralizedCrossEntropy", "CTC", "Circle"]


def _to_hinge_labels(y_true):
    """Labels in {0, 1} become {-1, 1} (Keras converts only when every label is 0 or 1)."""
    binary = reduce_ops.reduce_all(math_ops.logical_or(math_ops.equal(y_true, 0.0), math_ops.equal(y_true, 1.0)))
    return math_ops.where(binary, math_ops.subtract(math_ops.multiply(y_true, 2.0), 1.0), y_true)


def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``; labels 0/1 are read as -1/1."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true = _to_hinge_labels(y_true)
    return _mean(math_ops.maximum(math_ops.subtract(1.0, math_ops.multiply(y_true, y_pred)), 0.0))


def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``; labels 0/1 are read as -1/1."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true = _to_hinge_labels(y_true)
    return _mean(math_ops.square(math_ops.maximum(math_ops.subtract(1.0, math_ops.multiply(y_true, y_pred)), 0.0)))


def categorical_hinge(y_true, y_pred):
    """``maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)``, ``neg = max((1 - y_true) * y_pred)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    pos = reduce_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=-1)
    neg = reduce_ops.reduce_max(math_ops.multiply(math_ops.subtract(1.0, y_true), y_pred), axis=-1)
    return math_ops.maximum(math_ops.add(math_ops.subtract(neg, pos), 1.0), 0.0)


def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    return _mean(math_ops.subtract(y_pred, math_ops.multiply(y_true, math_ops.log(math_ops.add(y_pred, EPSILON)))))


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as ``x + softplus(-2x) - log 2`` (no overflow)."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    x = math_ops.subtract(y_pred, y_true)
    return _mean(math_ops.subtract(math_ops.add(x, math_ops.softplus(math_ops.multiply(x, -2.0))), math.log(2.0)))


def _l2_normalize(x, axis):
    sq = reduce_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
    return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(sq, 1e-12)))


def cosine_similarity(y_true, y_pred, axis=-1):
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: -1 for identical directions."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    return math_ops.negative(reduce_ops.reduce_sum(
        math_ops.multiply(_l2_normalize(y_true, axis), _l2_normalize(y_pred, axis)), axis=axis))


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(|y_true - y_pred| / maximum(|y_true|, epsilon), axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    diff = math_ops.divide(math_ops.abs(math_ops.subtract(y_true, y_pred)),
                           math_ops.maximum(math_ops.abs(y_true), EPSILON))
    return math_ops.multiply(_mean(diff), 100.0)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    first = math_ops.log(math_ops.add(math_ops.maximum(y_pred, EPSILON), 1.0))
    second = math_ops.log(math_ops.add(math_ops.maximum(y_true, EPSILON), 1.0))
    return _mean(math_ops.squared_difference(first, second))


def _bce_elementwise(y_true, p):
    p = math_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return math_ops.negative(math_ops.add(
        math_ops.multiply(y_true, math_ops.log(p)),
        math_ops.multiply(math_ops.subtract(1.0, y_true), math_ops.log(math_ops.subtract(1.0, p)))))


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0,
                              from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy scaled by ``(1 - p_t) ** gamma`` (and by ``alpha``/``1 - alpha`` for classes 1/0 with
    ``apply_class_balancing``), averaged over ``axis`` (Lin et al., 2018)."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    if label_smoothing:
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    if from_logits:
        y_pred = math_ops.sigmoid(y_pred)
    bce = _bce_elementwise(y_true, y_pred)
    p_t = math_ops.add(math_ops.multiply(y_true, y_pred),
                       math_ops.multiply(math_ops.subtract(1.0, y_true), math_ops.subtract(1.0, y_pred)))
    focal = math_ops.multiply(math_ops.pow(math_ops.subtract(1.0, p_t), float(gamma)), bce)
    if apply_class_balancing:
        weight = math_ops.add(math_ops.multiply(y_true, float(alpha)),
                              math_ops.multiply(math_ops.subtract(1.0, y_true), 1.0 - alpha))
        focal = math_ops.multiply(weight, focal)
    return _mean(focal, axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                                   axis=-1):
    """``sum(-alpha * (1 - p) ** gamma * y_true * log(p), axis)`` with ``p`` renormalised and clipped."""
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    if label_smoothing:
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - label_smoothing),
                              label_smoothing / y_true.shape[-1])
    if from_logits:
        y_pred = nn_ops.softmax(y_pred, axis=axis)
    p = math_ops.divide(y_pred, reduce_ops.reduce_sum(y_pred, axis=axis, keepdims=True))
    p = math_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    cce = math_ops.negative(math_ops.multiply(y_true, math_ops.log(p)))
    weighting = math_ops.multiply(math_ops.pow(math_ops.subtract(1.0, p), float(gamma)), float(alpha))
    return reduce_ops.reduce_sum(math_ops.multiply(weighting, cce), axis=axis)


def dice(y_true, y_pred, axis=None):
    """``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`` over ``axis`` (all by default)."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    inter = reduce_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=axis)
    denom = math_ops.add(math_ops.add(reduce_ops.reduce_sum(y_true, axis=axis),
                                      reduce_ops.reduce_sum(y_pred, axis=axis)), EPSILON)
    return math_ops.subtract(1.0, math_ops.divide(math_ops.multiply(inter, 2.0), denom))


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """``1 - tp / (tp + alpha * fp + beta * fn + epsilon)`` with soft counts over ``axis`` (Salehi et al., 2017)."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    tp = reduce_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=axis)
    fp = reduce_ops.reduce_sum(math_ops.multiply(math_ops.subtract(1.0, y_pred), y_true), axis=axis)
    fn = reduce_ops.reduce_sum(math_ops.multiply(y_pred, math_ops.subtract(1.0, y_true)), axis=axis)
    denom = math_ops.add(math_ops.add(math_ops.add(tp, math_ops.multiply(fp, float(alpha))),
                                      math_ops.multiply(fn, float(beta))), EPSILON)
    return math_ops.subtract(1.0, math_ops.divide(tp, denom))


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True, gamma=80, margin=0.4):
    """Circle loss (Sun et al., 2020) of L2-normalised embeddings ``y_pred`` with integer labels ``y_true``
    against reference embeddings/labels (default: the batch itself); one value per embedding."""
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    labels = math_ops.cast(_tensor(y_true), dtypes.int32)
    if labels.ndim == 2 and labels.shape[-1] == 1:
        labels = array_ops.squeeze(labels, [-1])
    ref = y_pred if ref_embeddings is None else _tensor(ref_embeddings, y_pred.dtype)
    ref_labels = labels if ref_labels is None else math_ops.cast(_tensor(ref_labels), dtypes.int32)
    dist = math_ops.maximum(math_ops.subtract(1.0, math_ops.matmul(y_pred, ref, transpose_b=True)), 0.0)
    same = math_ops.equal(array_ops.expand_dims(labels, 1), array_ops.expand_dims(ref_labels, 0))
    positive = same
    if remove_diagonal:
        eye = math_ops.cast(array_ops.eye(dist.shape[0], dist.shape[1]), dtypes.bool)
        positive = math_ops.logical_and(same, math_ops.logical_not(eye))
    negative = math_ops.logical_not(same)
    pos_f, neg_f = math_ops.cast(positive, dist.dtype), math_ops.cast(negative, dist.dtype)
    pos_w = math_ops.maximum(math_ops.multiply(math_ops.add(dist, float(margin)), pos_f), 0.0)
    neg_w = math_ops.maximum(math_ops.multiply(math_ops.subtract(1.0 + margin, dist), neg_f), 0.0)
    pos_logits = math_ops.multiply(math_ops.multiply(pos_w, math_ops.subtract(float(margin), dist)), -float(gamma))
    neg_logits = math_ops.multiply(math_ops.multiply(neg_w, math_ops.subtract(1.0 - margin, dist)), float(gamma))
    ninf = array_ops.fill(dist.shape.as_list(), float("-inf"))
    if dist.dtype is not dtypes.float32:
        ninf = math_ops.cast(ninf, dist.dtype)
    p_loss = reduce_ops.reduce_logsumexp(math_ops.where(positive, pos_logits, ninf), axis=1)
    n_loss = reduce_ops.reduce_logsumexp(math_ops.where(negative, neg_logits, ninf), axis=1)
    return math_ops.softplus(math_ops.add(p_loss, n_loss))


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """``(1 - p ** q) / q`` where ``p`` is the probability ``y_pred`` gives the integer label ``y_true``."""
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    labels = math_ops.cast(_tensor(y_true), dtypes.int32)
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = array_ops.squeeze(labels, [-1])
    onehot = array_ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
    p = reduce_ops.reduce_sum(math_ops.multiply(y_pred, onehot), axis=-1)
    return math_ops.divide(math_ops.subtract(1.0, math_ops.pow(p, float(q))), float(q))


def ctc(y_true, y_pred):
    """CTC loss of integer label rows ``y_true`` ``(batch, max_label_length)`` (0 is the blank/padding)
    given logits ``y_pred`` ``(batch, max_length, num_classes)``; one value per sequence."""
    y_true, y_pred = _tensor(y_true), _tensor(y_pred)
    if y_true.ndim != 2:
        raise ValueError("Targets `y_true` are expected to be a tensor of shape `(batch_size, max_length)` in "
                         f"integer format. Received: y_true.shape={tuple(y_true.shape.as_list())}")
    if y_pred.ndim != 3:
        raise ValueError("Logits `y_pred` are expected to be a tensor of shape `(batch_size, max_length, "
                         f"num_classes)`. Received: y_pred.shape={tuple(y_pred.shape.as_list())}")
    labels = math_ops.cast(y_true, dtypes.int32)
    label_length = reduce_ops.reduce_sum(math_ops.cast(math_ops.not_equal(labels, 0), dtypes.int32), axis=-1)
    batch, steps = y_pred.shape[0], y_pred.shape[1]
    logit_length = array_ops.fill([batch], steps)
    return nn_extra_ops.ctc_loss(labels, y_pred, label_length, logit_length, logits_time_major=False,
                                 blank_index=0)


mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
logcosh = log_cosh


# -- classes ---------------------------------------------------------------------------------------

class Hinge(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="hinge"):
        super().__init__(hinge, reduction=reduction, name=name)


class SquaredHinge(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="squared_hinge"):
        super().__init__(squared_hinge, reduction=reduction, name=name)


class CategoricalHinge(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="categorical_hinge"):
        super().__init__(categorical_hinge, reduction=reduction, name=name)


class Poisson(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="poisson"):
        super().__init__(poisson, reduction=reduction, name=name)


class LogCosh(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="log_cosh"):
        super().__init__(log_cosh, reduction=reduction, name=name)


class CosineSimilarity(LossFunctionWrapper):
    def __init__(self, axis=-1, reduction=Reduction.AUTO, name="cosine_similarity"):
        super().__init__(cosine_similarity, reduction=reduction, name=name, axis=axis)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_absolute_percentage_error"):
        super().__init__(mean_absolute_percentage_error, reduction=reduction, name=name)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_squared_logarithmic_error"):
        super().__init__(mean_squared_logarithmic_error, reduction=reduction, name=name)


class BinaryFocalCrossentropy(LossFunctionWrapper):
    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                 axis=-1, reduction=Reduction.AUTO, name="binary_focal_crossentropy"):
        super().__init__(binary_focal_crossentropy, reduction=reduction, name=name,
                         apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction=Reduction.AUTO, name="categorical_focal_crossentropy"):
        super().__init__(categorical_focal_crossentropy, reduction=reduction, name=name, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class Dice(LossFunctionWrapper):
    _fix_ranks = False

    def __init__(self, reduction=Reduction.AUTO, name="dice", axis=None):
        super().__init__(dice, reduction=reduction, name=name, axis=axis)


class Tversky(LossFunctionWrapper):
    _fix_ranks = False

    def __init__(self, alpha=0.5, beta=0.5, reduction=Reduction.AUTO, name="tversky", axis=None):
        super().__init__(tversky, reduction=reduction, name=name, alpha=alpha, beta=beta, axis=axis)


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    _fix_ranks = False

    def __init__(self, q=0.5, reduction=Reduction.AUTO, name="categorical_generalized_cross_entropy"):
        if not 0 < q < 1:
            raise ValueError(f"q must be in the interval (0, 1). Received: q={q}")
        super().__init__(categorical_generalized_cross_entropy, reduction=reduction, name=name, q=q)


class CTC(LossFunctionWrapper):
    _fix_ranks = False

    def __init__(self, reduction=Reduction.AUTO, name="ctc"):
        super().__init__(ctc, reduction=reduction, name=name)


class Circle(Loss):
    """Circle loss over a batch of embeddings; with the default reduction the mean is taken over the
    embeddings whose loss is positive (Keras masks the zero ones)."""

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True, reduction=Reduction.AUTO, name="circle"):
        super().__init__(reduction=reduction, name=name)
        self.gamma = gamma
        self.margin = margin
        self.remove_diagonal = remove_diagonal

    def call(self, y_true, y_pred):
        return circle(y_true, y_pred, remove_diagonal=self.remove_diagonal, gamma=self.gamma, margin=self.margin)

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(y_true, y_pred)
        reduction = self._get_reduction()
        if reduction == Reduction.SUM_OVER_BATCH_SIZE:
            mask = math_ops.cast(math_ops.greater(losses, 0.0), losses.dtype)
            scale = math_ops.divide_no_nan(_tensor(float(losses.shape[0]), losses.dtype), reduce_ops.reduce_sum(mask))
            weight = math_ops.multiply(mask, scale)
            if sample_weight is not None:
                sw = _tensor(sample_weight, losses.dtype)
                _, _, sw = squeeze_or_expand_dimensions(losses, None, sw)
                weight = math_ops.multiply(weight, sw)
            return compute_weighted_loss(losses, weight, reduction)
        return compute_weighted_loss(losses, sample_weight, reduction)

    def get_config(self):
        config = super().get_config()
        config.update(gamma=self.gamma, margin=self.margin, remove_diagonal=self.remove_diagonal)
        return config


CLASSES = (Hinge, SquaredHinge, CategoricalHinge, Poisson, LogCosh, CosineSimilarity, MeanAbsolutePercentageError,
           MeanSquaredLogarithmicError, BinaryFocalCrossentropy, CategoricalFocalCrossentropy, Dice, Tversky,
           CategoricalGeneralizedCrossEntropy, CTC, Circle)
FUNCTIONS = {
    "hinge": hinge, "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge, "poisson": poisson,
    "log_cosh": log_cosh, "logcosh": log_cosh, "cosine_similarity": cosine_similarity,
    "mean_absolute_percentage_error": mean_absolute_percentage_error, "mape": mape, "MAPE": mape,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error, "msle": msle, "MSLE": msle,
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy, "dice": dice, "tversky": tversky,
    "circle": circle, "categorical_generalized_cross_entropy": categorical_generalized_cross_entropy, "ctc": ctc,
}


def _install():
    """Publish these names in ``tf.keras.losses`` (and its by-name lookup); ``tfcore.keras`` imports this module
    right after ``losses``, so ``losses`` itself needs no import of it (no import cycle)."""
    for name in __all__:
        setattr(losses_mod, name, globals()[name])
    losses_mod._CLASSES.update({c.__name__: c for c in CLASSES})
    losses_mod._FUNCTIONS.update(FUNCTIONS)


_install()
