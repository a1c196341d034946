"""Keras' loss functions and their classes (``tf.keras.losses``), in Keras 3's layout
(``keras/src/losses/losses.py``): regression losses, cross-entropies (which use the cached logits
(``_keras_logits``) of Keras' softmax/sigmoid outputs, as TF Keras does: exact values and gradients,
and far fewer ops per training step), the hinge family, Poisson, log-cosh, cosine similarity,
percentage and logarithmic errors, focal cross-entropies, Dice/Tversky, Circle, generalized
cross-entropy and CTC.

Formulas follow Keras 3 (TF 2.21's ``tf.keras``): every function returns per-sample values (the mean
or sum over ``axis``), and every class wraps its function in a ``LossFunctionWrapper`` so weighting,
reduction and ``get_config`` work alike.
"""

import math
import warnings

from ...framework import dtypes
from ...ops import array_ops, ctc_ops, loss_ops, math_ops, nn_ops, reduce_ops
from .loss import (
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

__all__ = ["mean_squared_error", "mean_absolute_error", "huber", "kl_divergence", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy", "mse", "MSE", "mae", "MAE", "kld", "KLD",
           "kullback_leibler_divergence", "MeanSquaredError", "MeanAbsoluteError", "Huber", "KLDivergence",
           "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "hinge",
           "squared_hinge", "categorical_hinge", "poisson", "log_cosh", "logcosh", "cosine_similarity",
           "mean_absolute_percentage_error", "mape", "MAPE", "mean_squared_logarithmic_error", "msle", "MSLE",
           "binary_focal_crossentropy", "categorical_focal_crossentropy", "dice", "tversky", "circle",
           "categorical_generalized_cross_entropy", "ctc", "Hinge", "SquaredHinge", "CategoricalHinge", "Poisson",
           "LogCosh", "CosineSimilarity", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
           "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy", "Dice", "Tversky",
           "CategoricalGeneralizedCrossEntropy", "CTC", "Circle"]

# -- function forms ------------------------------------------------------------------------

def mean_squared_error(y_true, y_pred):
    """``mean(square(y_pred - y_true), axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    return _mean(math_ops.squared_difference(y_pred, y_true))


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_pred - y_true), axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    return _mean(math_ops.abs(math_ops.subtract(y_pred, y_true)))


def huber(y_true, y_pred, delta=1.0):
    """``mean(0.5 * e**2 if |e| <= delta else delta * |e| - 0.5 * delta**2, axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    err = math_ops.abs(math_ops.subtract(y_pred, y_true))
    quadratic = math_ops.multiply(math_ops.square(err), 0.5)
    linear = math_ops.subtract(math_ops.multiply(err, float(delta)), 0.5 * delta * delta)
    return _mean(math_ops.where(math_ops.less_equal(err, float(delta)), quadratic, linear))


def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)`` with both clipped to ``[epsilon, 1]``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    t = math_ops.clip_by_value(y_true, EPSILON, 1.0)
    p = math_ops.clip_by_value(y_pred, EPSILON, 1.0)
    return reduce_ops.reduce_sum(math_ops.multiply(t, math_ops.log(math_ops.divide(t, p))), axis=-1)


def _get_logits(output, from_logits, activation, fn_name):
    """``(tensor, from_logits)``: the logits a Keras ``activation`` cached on ``output``, if any (Keras'
    ``_get_logits``; it warns when ``from_logits=True`` was passed for such an output)."""
    logits = getattr(output, "_keras_logits", None)
    if logits is None or logits._array.shape != output._array.shape or logits._dtype is not output._dtype:
        return output, from_logits
    if from_logits:
        warnings.warn(f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced by a '
                      f'{activation} activation and thus does not represent logits. Was this intended?',
                      stacklevel=3)
    return logits, True


def _smooth(y_true, label_smoothing, num_classes):
    if not label_smoothing:
        return y_true
    ls = float(label_smoothing)
    return math_ops.add(math_ops.multiply(y_true, 1.0 - ls), ls / num_classes)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Mean over ``axis`` of ``-(y log p + (1-y) log(1-p))``; labels smoothed towards 0.5."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true = _smooth(y_true, label_smoothing, 2)
    y_pred, from_logits = _get_logits(y_pred, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        per = loss_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        bce = math_ops.add(math_ops.multiply(y_true, math_ops.log(math_ops.add(p, EPSILON))),
                           math_ops.multiply(math_ops.subtract(1.0, y_true),
                                             math_ops.log(math_ops.add(math_ops.subtract(1.0, p), EPSILON))))
        per = math_ops.negative(bce)
    return _mean(per, axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``-sum(y_true * log(p), axis)`` with ``p`` renormalised and clipped (or ``log_softmax`` of logits)."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true = _smooth(y_true, label_smoothing, y_pred.shape[axis])
    if axis in (-1, y_pred.ndim - 1):
        y_pred, from_logits = _get_logits(y_pred, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return loss_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = math_ops.divide(y_pred, reduce_ops.reduce_sum(y_pred, axis=axis, keepdims=True))
    p = math_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return math_ops.negative(reduce_ops.reduce_sum(math_ops.multiply(y_true, math_ops.log(p)), axis=axis))


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    """Cross-entropy with integer labels; probabilities are clipped and logged (unless a softmax
    activation cached its logits), then the fused ``SparseSoftmaxCrossEntropyWithLogits`` op runs
    (as Keras' backend does)."""
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    if axis in (-1, y_pred.ndim - 1):
        y_pred, from_logits = _get_logits(y_pred, from_logits, "Softmax", "sparse_categorical_crossentropy")
    else:
        perm = [i for i in range(y_pred.ndim) if i != axis % y_pred.ndim] + [axis % y_pred.ndim]
        y_pred = array_ops.transpose(y_pred, perm)
    if y_pred.dtype.size < 4:  # float16/bfloat16 logits or probabilities: the loss in float32
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    # clip with maximum/minimum: same values and gradient as clip_by_value, fewer ops in the backward pass
    logits = y_pred if from_logits else math_ops.log(math_ops.minimum(math_ops.maximum(y_pred, EPSILON),
                                                                      1.0 - EPSILON))
    labels = _tensor(y_true)
    if labels.dtype is not dtypes.int64 and labels.dtype is not dtypes.int32:
        labels = math_ops.cast(labels, dtypes.int64)
    out_shape = logits._array.shape[:-1]
    if labels._array.shape != out_shape:
        labels = array_ops.reshape(labels, out_shape)
    valid = None
    if ignore_class is not None:
        valid = math_ops.not_equal(labels, int(ignore_class))
        labels = math_ops.where(valid, labels, array_ops.zeros_like(labels))
    flat_logits = logits if logits.ndim == 2 else array_ops.reshape(logits, (-1, logits.shape[-1]))
    flat_labels = labels if labels.ndim == 1 else array_ops.reshape(labels, (-1,))
    loss = loss_ops.sparse_softmax_cross_entropy_with_logits(labels=flat_labels, logits=flat_logits)
    if loss._array.shape != out_shape:
        loss = array_ops.reshape(loss, out_shape)
    if valid is not None:
        loss = math_ops.multiply(loss, math_ops.cast(valid, loss.dtype))
    return loss


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
kld = KLD = kullback_leibler_divergence = kl_divergence


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_squared_error"):
        super().__init__(mean_squared_error, reduction=reduction, name=name)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_absolute_error"):
        super().__init__(mean_absolute_error, reduction=reduction, name=name)


class Huber(LossFunctionWrapper):
    def __init__(self, delta=1.0, reduction=Reduction.AUTO, name="huber_loss"):
        super().__init__(huber, reduction=reduction, name=name, delta=delta)


class KLDivergence(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="kl_divergence"):
        super().__init__(kl_divergence, reduction=reduction, name=name)


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=Reduction.AUTO,
                 name="binary_crossentropy"):
        super().__init__(binary_crossentropy, reduction=reduction, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=Reduction.AUTO,
                 name="categorical_crossentropy"):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    _fix_ranks = False  # the function reshapes labels to the logits' batch shape itself

    def __init__(self, from_logits=False, ignore_class=None, reduction=Reduction.AUTO,
                 name="sparse_categorical_crossentropy"):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits = from_logits


# -- the rest of Keras 3's losses ------------------------------------------------------------

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
    return ctc_ops.ctc_loss(labels, y_pred, label_length, logit_length, logits_time_major=False,
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


# -- what ``tf.keras.losses`` publishes and looks up by name ------------------------------------

CLASSES = (MeanSquaredError, MeanAbsoluteError, Huber, KLDivergence, BinaryCrossentropy, CategoricalCrossentropy,
           SparseCategoricalCrossentropy, Hinge, SquaredHinge, CategoricalHinge, Poisson, LogCosh,
           CosineSimilarity, MeanAbsolutePercentageError, MeanSquaredLogarithmicError, BinaryFocalCrossentropy,
           CategoricalFocalCrossentropy, Dice, Tversky, CategoricalGeneralizedCrossEntropy, CTC, Circle)
FUNCTIONS = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error, "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "huber": huber, "huber_loss": huber,
    "kl_divergence": kl_divergence, "kld": kl_divergence, "KLD": kl_divergence,
    "kullback_leibler_divergence": kl_divergence,
    "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "hinge": hinge, "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge, "poisson": poisson,
    "log_cosh": log_cosh, "logcosh": log_cosh, "cosine_similarity": cosine_similarity,
    "mean_absolute_percentage_error": mean_absolute_percentage_error, "mape": mape, "MAPE": mape,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error, "msle": msle, "MSLE": msle,
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy, "dice": dice, "tversky": tversky,
    "circle": circle, "categorical_generalized_cross_entropy": categorical_generalized_cross_entropy, "ctc": ctc,
}
