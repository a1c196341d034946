"""The rest of ``tf.keras.metrics``: regression and hinge metrics, correlations, confusion counts,
the IoU family, F-scores, R2 and the sensitivity/specificity/precision/recall-at-constraint metrics.

Each follows Keras 3 (TF 2.21): state in non-trainable variables, ``update_state`` accumulating with
ops on the data's device, ``result`` reading the state.
"""

import numpy as np

from ..framework import dtypes
from ..ops import array_ops, math_ops, reduce_ops
from . import losses as losses_mod
from . import losses as lx
from . import metrics as metrics_mod
from .metrics import _EPS, MeanMetricWrapper, Metric, _confusion_counts, _t, _thresholds_list

__all__ = [
    "hinge", "squared_hinge", "categorical_hinge", "poisson", "huber", "logcosh", "mape", "MAPE", "msle", "MSLE",
    "mean_absolute_percentage_error", "mean_squared_logarithmic_error", "kld", "KLD", "kullback_leibler_divergence",
    "binary_focal_crossentropy", "categorical_focal_crossentropy", "pearson_correlation", "concordance_correlation",
    "cosine_similarity", "Hinge", "SquaredHinge", "CategoricalHinge", "Poisson", "LogCoshError", "KLDivergence",
    "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "CosineSimilarity", "PearsonCorrelation",
    "ConcordanceCorrelation", "TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives", "IoU", "MeanIoU",
    "BinaryIoU", "OneHotIoU", "OneHotMeanIoU", "FBetaScore", "F1Score", "R2Score", "SensitivityAtSpecificity",
    "SpecificityAtSensitivity", "PrecisionAtRecall", "RecallAtPrecision",
]

hinge = lx.hinge
squared_hinge = lx.squared_hinge
categorical_hinge = lx.categorical_hinge
poisson = lx.poisson
huber = losses_mod.huber
logcosh = lx.log_cosh
mean_absolute_percentage_error = mape = MAPE = lx.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = lx.mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = losses_mod.kl_divergence
binary_focal_crossentropy = lx.binary_focal_crossentropy
categorical_focal_crossentropy = lx.categorical_focal_crossentropy


def cosine_similarity(y_true, y_pred, axis=-1):
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`` (the metric's sign: 1 for equal directions)."""
    return math_ops.negative(lx.cosine_similarity(y_true, y_pred, axis=axis))


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


# -- mean-of-function metrics -----------------------------------------------------------------------

def _wrapper(class_name, fn, default_name, doc, **defaults):
    def __init__(self, name=default_name, dtype=None, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"{class_name}() got unexpected keyword arguments {sorted(unknown)}")
        MeanMetricWrapper.__init__(self, fn, name, dtype=dtype, **{**defaults, **kwargs})
        for k, v in {**defaults, **kwargs}.items():
            setattr(self, k, v)

    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


Hinge = _wrapper("Hinge", hinge, "hinge", "Mean of ``hinge(y_true, y_pred)``.")
SquaredHinge = _wrapper("SquaredHinge", squared_hinge, "squared_hinge", "Mean of ``squared_hinge``.")
CategoricalHinge = _wrapper("CategoricalHinge", categorical_hinge, "categorical_hinge",
                            "Mean of ``categorical_hinge``.")
Poisson = _wrapper("Poisson", poisson, "poisson", "Mean of ``poisson``.")
LogCoshError = _wrapper("LogCoshError", logcosh, "logcosh", "Mean of ``log(cosh(y_pred - y_true))``.")
KLDivergence = _wrapper("KLDivergence", kld, "kl_divergence", "Mean of ``kl_divergence``.")
MeanAbsolutePercentageError = _wrapper("MeanAbsolutePercentageError", mape, "mean_absolute_percentage_error",
                                       "Mean of ``mean_absolute_percentage_error``.")
MeanSquaredLogarithmicError = _wrapper("MeanSquaredLogarithmicError", msle, "mean_squared_logarithmic_error",
                                       "Mean of ``mean_squared_logarithmic_error``.")
CosineSimilarity = _wrapper("CosineSimilarity", cosine_similarity, "cosine_similarity",
                            "Mean cosine similarity along ``axis``.", axis=-1)
PearsonCorrelation = _wrapper("PearsonCorrelation", pearson_correlation, "pearson_correlation",
                              "Mean Pearson correlation along ``axis``.", axis=-1)
ConcordanceCorrelation = _wrapper("ConcordanceCorrelation", concordance_correlation, "concordance_correlation",
                                  "Mean concordance correlation along ``axis``.", axis=-1)


# -- confusion counts ---------------------------------------------------------------------------------

class _Count(Metric):
    _which = "tp"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds, self._scalar = _thresholds_list(thresholds, 0.5)
        self.accumulator = self.add_weight("accumulator", shape=(len(self.thresholds),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = _confusion_counts(y_true, y_pred, self.thresholds, sample_weight, want=(self._which,))
        self.accumulator.assign_add(math_ops.cast(counts[self._which], self._dtype))

    def result(self):
        value = array_ops.identity(self.accumulator.value())
        return value[0] if self._scalar else value

    def get_config(self):
        return {"thresholds": self.init_thresholds, **super().get_config()}


class TruePositives(_Count):
    """Weighted count of positives predicted positive (prediction > threshold)."""
    _which = "tp"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name=name or "true_positives", dtype=dtype)


class FalsePositives(_Count):
    """Weighted count of negatives predicted positive."""
    _which = "fp"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name=name or "false_positives", dtype=dtype)


class TrueNegatives(_Count):
    """Weighted count of negatives predicted negative."""
    _which = "tn"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name=name or "true_negatives", dtype=dtype)


class FalseNegatives(_Count):
    """Weighted count of positives predicted negative."""
    _which = "fn"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name=name or "false_negatives", dtype=dtype)


# -- IoU family -----------------------------------------------------------------------------------------

class IoU(Metric):
    """Mean over ``target_class_ids`` of ``tp / (tp + fp + fn)`` from an accumulated confusion matrix
    (classes that never occur are left out of the mean)."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(name=name or "iou", dtype=dtype)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which is "
                             f"[0, {num_classes}).")
        self.num_classes = num_classes
        self.target_class_ids = list(target_class_ids)
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_weight("total_confusion_matrix", shape=(num_classes, num_classes),
                                        dtype=dtypes.float64 if self._dtype is dtypes.float64 else dtypes.float32)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _t(y_true), _t(y_pred)
        if not self.sparse_y_true:
            y_true = reduce_ops.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = reduce_ops.argmax(y_pred, axis=self.axis)
        y_true = array_ops.reshape(math_ops.cast(y_true, dtypes.int64), (-1,))
        y_pred = array_ops.reshape(math_ops.cast(y_pred, dtypes.int64), (-1,))
        weights = None
        if sample_weight is not None:
            weights = array_ops.reshape(math_ops.cast(_t(sample_weight), self.total_cm.dtype), (-1,))
            if weights.shape[0] == 1 and y_true.shape[0] != 1:
                weights = array_ops.broadcast_to(weights, y_true.shape.as_list())
        if self.ignore_class is not None:
            keep = math_ops.not_equal(y_true, int(self.ignore_class))
            y_true = array_ops.boolean_mask(y_true, keep)
            y_pred = array_ops.boolean_mask(y_pred, keep)
            if weights is not None:
                weights = array_ops.boolean_mask(weights, keep)
        index = math_ops.add(math_ops.multiply(y_true, self.num_classes), y_pred)
        ones = array_ops.ones_like(index, dtype=self.total_cm.dtype) if weights is None else weights
        flat = reduce_ops.unsorted_segment_sum(ones, index, self.num_classes * self.num_classes)
        self.total_cm.assign_add(array_ops.reshape(flat, (self.num_classes, self.num_classes)))

    def result(self):
        cm = self.total_cm.value()
        rows = reduce_ops.reduce_sum(cm, axis=1)
        cols = reduce_ops.reduce_sum(cm, axis=0)
        diag = array_ops.gather_nd(cm, [[i, i] for i in range(self.num_classes)])
        denom = math_ops.subtract(math_ops.add(rows, cols), diag)
        ids = self.target_class_ids
        denom = array_ops.gather(denom, ids)
        diag = array_ops.gather(diag, ids)
        valid = reduce_ops.reduce_sum(math_ops.cast(math_ops.not_equal(denom, 0.0), cm.dtype))
        iou = math_ops.divide_no_nan(diag, denom)
        return math_ops.cast(math_ops.divide_no_nan(reduce_ops.reduce_sum(iou), valid), self._dtype)

    def get_config(self):
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis, **super().get_config()}


class MeanIoU(IoU):
    """IoU averaged over all ``num_classes`` classes."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True,
                 axis=-1):
        super().__init__(num_classes, list(range(num_classes)), name=name or "mean_iou", dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred,
                         axis=axis)

    def get_config(self):
        config = super().get_config()
        del config["target_class_ids"]
        return config


class BinaryIoU(IoU):
    """IoU of binary predictions (``y_pred > threshold`` is class 1) for ``target_class_ids`` among (0, 1)."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, list(target_class_ids), name=name or "binary_iou", dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = _t(y_pred)
        y_pred = math_ops.cast(math_ops.greater(math_ops.cast(y_pred, dtypes.float32), float(self.threshold)),
                               dtypes.int64)
        y_true = math_ops.cast(math_ops.greater(math_ops.cast(_t(y_true), dtypes.float32), float(self.threshold)),
                               dtypes.int64)
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold, "name": self.name,
                "dtype": self.dtype}


class OneHotIoU(IoU):
    """IoU of one-hot labels and per-class scores (both reduced with ``argmax``)."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_pred=False,
                 axis=-1):
        super().__init__(num_classes, target_class_ids, name=name or "one_hot_iou", dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """Mean IoU of one-hot labels and per-class scores."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name=name or "one_hot_mean_iou", dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        config = super().get_config()
        del config["sparse_y_true"]
        return config


# -- F-scores -----------------------------------------------------------------------------------------

class FBetaScore(Metric):
    """``(1 + beta^2) * P * R / (beta^2 * P + R)`` per class (``average=None``) or averaged ('micro', 'macro',
    'weighted'); predictions are thresholded at ``threshold`` or, with ``threshold=None``, one-hot at the argmax."""

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
                             f"'weighted'}}. Received: average={average}")
        if not isinstance(beta, float | int) or beta <= 0.0:
            raise ValueError(f"`beta` should be a float greater than 0. Received: beta={beta}")
        if threshold is not None and not (isinstance(threshold, float) and 0.0 < threshold <= 1.0):
            raise ValueError("`threshold` should be a float in the range (0, 1]. "
                             f"Received: threshold={threshold}")
        self.average = average
        self.beta = float(beta)
        self.threshold = threshold
        self._built_for = None

    def _build(self, num_classes):
        shape = () if self.average == "micro" else (num_classes,)
        self.true_positives = self.add_weight("true_positives", shape=shape)
        self.false_positives = self.add_weight("false_positives", shape=shape)
        self.false_negatives = self.add_weight("false_negatives", shape=shape)
        self.intermediate_weights = self.add_weight("intermediate_weights", shape=shape)
        self._built_for = num_classes

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = _t(y_pred, self._dtype)
        y_true = _t(y_true, self._dtype)
        if y_pred.ndim != 2 or y_true.shape.as_list() != y_pred.shape.as_list():
            raise ValueError("FBetaScore expects 2D inputs with shape (batch_size, output_dim) of the same shape. "
                             f"Received: y_true.shape={y_true.shape.as_list()}, y_pred.shape={y_pred.shape.as_list()}")
        if self._built_for is None:
            self._build(y_pred.shape[-1])
        if self.threshold is None:
            top = reduce_ops.reduce_max(y_pred, axis=-1, keepdims=True)
            y_pred = math_ops.cast(math_ops.equal(y_pred, top), self._dtype)
        else:
            y_pred = math_ops.cast(math_ops.greater(y_pred, self.threshold), self._dtype)
        if sample_weight is not None:
            sw = array_ops.expand_dims(array_ops.reshape(_t(sample_weight, self._dtype), (-1,)), 1)
            y_true_w = math_ops.multiply(y_true, sw)
            y_pred_w = math_ops.multiply(y_pred, sw)
        else:
            sw, y_true_w, y_pred_w = None, y_true, y_pred
        axis = None if self.average == "micro" else 0

        def total(x):
            return reduce_ops.reduce_sum(x, axis=axis)

        self.true_positives.assign_add(total(math_ops.multiply(y_pred_w, y_true)))
        self.false_positives.assign_add(total(math_ops.multiply(y_pred_w, math_ops.subtract(1.0, y_true))))
        self.false_negatives.assign_add(total(math_ops.multiply(math_ops.subtract(1.0, y_pred), y_true_w)))
        self.intermediate_weights.assign_add(total(y_true_w))

    def result(self):
        if self._built_for is None:
            return array_ops.zeros([], self._dtype)
        tp, fp, fn = (v.value() for v in (self.true_positives, self.false_positives, self.false_negatives))
        precision = math_ops.divide_no_nan(tp, math_ops.add(tp, fp))
        recall = math_ops.divide_no_nan(tp, math_ops.add(tp, fn))
        b2 = self.beta * self.beta
        score = math_ops.multiply(math_ops.divide_no_nan(
            math_ops.multiply(precision, recall), math_ops.add(math_ops.multiply(precision, b2), recall)), 1.0 + b2)
        if self.average == "weighted":
            w = self.intermediate_weights.value()
            return reduce_ops.reduce_sum(math_ops.multiply(score, math_ops.divide_no_nan(w, reduce_ops.reduce_sum(w))))
        if self.average is not None:
            return reduce_ops.reduce_mean(score)
        return score

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "average": self.average, "beta": self.beta,
                "threshold": self.threshold}


class F1Score(FBetaScore):
    """``FBetaScore`` with ``beta=1``: the harmonic mean of precision and recall."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config


# -- R2 ---------------------------------------------------------------------------------------------

class R2Score(Metric):
    """Coefficient of determination ``1 - SS_res / SS_tot`` per output, aggregated with ``class_aggregation``
    ('uniform_average', 'variance_weighted_average' or None) and adjusted for ``num_regressors``."""

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in ("uniform_average", "variance_weighted_average", None):
            raise ValueError("Invalid value for argument `class_aggregation`. Expected one of {None, "
                             f"'uniform_average', 'variance_weighted_average'}}. Received: "
                             f"class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError(f"Invalid value for argument `num_regressors`. Expected a value >= 0. "
                             f"Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_weight("num_samples", dtype=dtypes.int32)
        self._built_for = None

    def _build(self, num_outputs):
        for name in ("squared_sum", "sum", "total_mse", "count"):
            setattr(self, name, self.add_weight(name, shape=(num_outputs,)))
        self._built_for = num_outputs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = _t(y_true, self._dtype)
        y_pred = _t(y_pred, self._dtype)
        if y_true.ndim == 1:
            y_true = array_ops.expand_dims(y_true, 1)
        if y_pred.ndim == 1:
            y_pred = array_ops.expand_dims(y_pred, 1)
        if y_true.ndim != 2 or y_true.shape.as_list() != y_pred.shape.as_list():
            raise ValueError("R2Score expects 2D inputs with shape (num_samples, num_outputs) of the same shape. "
                             f"Received: y_true.shape={y_true.shape.as_list()}, y_pred.shape={y_pred.shape.as_list()}")
        if self._built_for is None:
            self._build(y_true.shape[-1])
        w = array_ops.ones_like(y_true) if sample_weight is None else array_ops.broadcast_to(
            array_ops.reshape(_t(sample_weight, self._dtype), (-1, 1)), y_true.shape.as_list())
        wt = math_ops.multiply(w, y_true)
        self.sum.assign_add(reduce_ops.reduce_sum(wt, axis=0))
        self.squared_sum.assign_add(reduce_ops.reduce_sum(math_ops.multiply(y_true, wt), axis=0))
        self.total_mse.assign_add(reduce_ops.reduce_sum(math_ops.multiply(w, math_ops.squared_difference(
            y_true, y_pred)), axis=0))
        self.count.assign_add(reduce_ops.reduce_sum(w, axis=0))
        self.num_samples.assign_add(np.int32(y_true.shape[0]))

    def result(self):
        mean = math_ops.divide(self.sum.value(), self.count.value())
        total = math_ops.subtract(self.squared_sum.value(), math_ops.multiply(self.sum.value(), mean))
        mse = self.total_mse.value()
        raw = math_ops.subtract(1.0, math_ops.divide_no_nan(mse, total))
        zero_total = math_ops.equal(total, 0.0)
        raw = math_ops.where(zero_total, math_ops.cast(math_ops.equal(mse, 0.0), raw.dtype), raw)
        if self.class_aggregation == "uniform_average":
            r2 = reduce_ops.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            r2 = math_ops.divide_no_nan(reduce_ops.reduce_sum(math_ops.multiply(raw, total)),
                                        reduce_ops.reduce_sum(total))
        else:
            r2 = raw
        if self.num_regressors:
            n = float(self.num_samples.numpy())
            p = float(self.num_regressors)
            if n - p - 1 > 0:
                r2 = math_ops.subtract(1.0, math_ops.multiply(math_ops.subtract(1.0, r2), (n - 1.0) / (n - p - 1.0)))
        return r2

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


# -- metrics at a constraint on a curve -------------------------------------------------------------

class _AtConstraint(Metric):
    """Counts at ``num_thresholds`` evenly spaced thresholds in [0, 1] (as AUC), then the best ``dependent``
    rate among thresholds whose ``constrained`` rate is at least ``value``."""

    _arg = "value"

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if not 0 <= value <= 1:
            raise ValueError(f"Argument `{self._arg}` must be in the range [0, 1]. Received: {self._arg}={value}")
        if num_thresholds <= 0:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 0. "
                             f"Received: num_thresholds={num_thresholds}")
        self.value = value
        self.class_id = class_id
        self.num_thresholds = num_thresholds
        if num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0 - _EPS] + inner + [1.0 + _EPS]
        for n in ("true_positives", "true_negatives", "false_positives", "false_negatives"):
            setattr(self, n, self.add_weight(n, shape=(num_thresholds,)))

    def update_state(self, y_true, y_pred, sample_weight=None):
        c = _confusion_counts(y_true, y_pred, self.thresholds, sample_weight, class_id=self.class_id,
                              want=("tp", "fp", "tn", "fn"))
        self.true_positives.assign_add(c["tp"])
        self.false_positives.assign_add(c["fp"])
        self.true_negatives.assign_add(c["tn"])
        self.false_negatives.assign_add(c["fn"])

    def _counts(self):
        return tuple(v.value() for v in (self.true_positives, self.false_positives, self.true_negatives,
                                             self.false_negatives))

    @staticmethod
    def _max_under_constraint(constrained, dependent, value):
        feasible = math_ops.greater_equal(constrained, value)
        masked = math_ops.where(feasible, dependent, array_ops.zeros_like(dependent))
        return reduce_ops.reduce_max(masked)

    def get_config(self):
        return {self._arg: self.value, "num_thresholds": self.num_thresholds, "class_id": self.class_id,
                **super().get_config()}


class SensitivityAtSpecificity(_AtConstraint):
    """Best sensitivity (recall) among thresholds whose specificity is >= ``specificity``."""

    _arg = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name=name or "sensitivity_at_specificity",
                         dtype=dtype)
        self.specificity = specificity

    def result(self):
        tp, fp, tn, fn = self._counts()
        spec = math_ops.divide_no_nan(tn, math_ops.add(tn, fp))
        sens = math_ops.divide_no_nan(tp, math_ops.add(tp, fn))
        return self._max_under_constraint(spec, sens, self.value)


class SpecificityAtSensitivity(_AtConstraint):
    """Best specificity among thresholds whose sensitivity is >= ``sensitivity``."""

    _arg = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name=name or "specificity_at_sensitivity",
                         dtype=dtype)
        self.sensitivity = sensitivity

    def result(self):
        tp, fp, tn, fn = self._counts()
        sens = math_ops.divide_no_nan(tp, math_ops.add(tp, fn))
        spec = math_ops.divide_no_nan(tn, math_ops.add(tn, fp))
        return self._max_under_constraint(sens, spec, self.value)


class PrecisionAtRecall(_AtConstraint):
    """Best precision among thresholds whose recall is >= ``recall``."""

    _arg = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name=name or "precision_at_recall", dtype=dtype)
        self.recall = recall

    def result(self):
        tp, fp, tn, fn = self._counts()
        recall = math_ops.divide_no_nan(tp, math_ops.add(tp, fn))
        precision = math_ops.divide_no_nan(tp, math_ops.add(tp, fp))
        return self._max_under_constraint(recall, precision, self.value)


class RecallAtPrecision(_AtConstraint):
    """Best recall among thresholds whose precision is >= ``precision``."""

    _arg = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name=name or "recall_at_precision", dtype=dtype)
        self.precision = precision

    def result(self):
        tp, fp, tn, fn = self._counts()
        precision = math_ops.divide_no_nan(tp, math_ops.add(tp, fp))
        recall = math_ops.divide_no_nan(tp, math_ops.add(tp, fn))
        return self._max_under_constraint(precision, recall, self.value)


CLASSES = (Hinge, SquaredHinge, CategoricalHinge, Poisson, LogCoshError, KLDivergence, MeanAbsolutePercentageError,
           MeanSquaredLogarithmicError, CosineSimilarity, PearsonCorrelation, ConcordanceCorrelation, TruePositives,
           FalsePositives, TrueNegatives, FalseNegatives, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU,
           FBetaScore, F1Score, R2Score, SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall,
           RecallAtPrecision)
FUNCTIONS = {
    "hinge": hinge, "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge, "poisson": poisson,
    "huber": huber, "logcosh": logcosh, "mape": mape, "MAPE": mape, "msle": msle, "MSLE": msle,
    "mean_absolute_percentage_error": mape, "mean_squared_logarithmic_error": msle, "kld": kld, "KLD": kld,
    "kullback_leibler_divergence": kld, "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy, "pearson_correlation": pearson_correlation,
    "concordance_correlation": concordance_correlation, "cosine_similarity": cosine_similarity,
}


def _install():
    """Publish these names in ``tf.keras.metrics`` (and its by-name lookup); ``tfcore.keras`` imports this module
    right after ``metrics``, so ``metrics`` itself needs no import of it (no import cycle)."""
    for name in __all__:
        setattr(metrics_mod, name, globals()[name])
    metrics_mod._CLASSES.update({c.__name__: c for c in CLASSES})
    metrics_mod._FUNCTIONS.update(FUNCTIONS)


_install()
