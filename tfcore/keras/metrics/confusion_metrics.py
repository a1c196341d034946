"""Metrics from confusion counts over thresholds: true/false positives/negatives, precision, recall,
AUC and the sensitivity/specificity/precision/recall-at-a-constraint family (Keras 3's
``confusion_metrics.py``)."""

import numpy as np

from ...framework import dtypes
from ...framework.tensor_conversion import convert_to_tensor
from ...ops import array_ops, math_ops, reduce_ops
from .. import losses as losses_mod
from .metric import _EPS, Metric, _t


def _thresholds_list(thresholds, default):
    if thresholds is None:
        return [default], True
    if isinstance(thresholds, list | tuple):
        return [float(t) for t in thresholds], False
    return [float(thresholds)], True


def _confusion_counts(y_true, y_pred, thresholds, sample_weight, class_id=None, top_k=None, want=("tp",)):
    """Weighted ``{tp, fp, tn, fn}`` per threshold (prediction > threshold counts as positive)."""
    y_pred = _t(y_pred, dtypes.float32)
    y_true = _t(y_true)
    y_pred, y_true, _ = losses_mod.squeeze_or_expand_dimensions(y_pred, y_true)
    if top_k is not None:
        k = min(int(top_k), y_pred.shape[-1])
        kth = reduce_ops.top_k(y_pred, k)[0][..., k - 1:k]
        y_pred = math_ops.where(math_ops.greater_equal(y_pred, kth), y_pred,
                                array_ops.fill(y_pred.shape.as_list(), np.float32(-np.inf)))
    if class_id is not None:
        y_true = y_true[..., class_id]
        y_pred = y_pred[..., class_id]
    label = math_ops.cast(y_true, dtypes.bool) if y_true.dtype is not dtypes.bool else y_true
    label = array_ops.reshape(label, (-1, 1))
    pred = array_ops.reshape(y_pred, (-1, 1))
    thr = convert_to_tensor(np.asarray(thresholds, np.float32).reshape(1, -1))
    pred_pos = math_ops.greater(pred, thr)
    weight = None
    if sample_weight is not None:
        sw = _t(sample_weight, dtypes.float32)
        _, _, sw = losses_mod.squeeze_or_expand_dimensions(y_pred, None, sw)
        weight = array_ops.reshape(array_ops.broadcast_to(sw, y_pred.shape.as_list()), (-1, 1))
    out = {}
    label_neg = math_ops.logical_not(label)
    pred_neg = math_ops.logical_not(pred_pos)
    cases = {"tp": (label, pred_pos), "fp": (label_neg, pred_pos), "tn": (label_neg, pred_neg),
             "fn": (label, pred_neg)}
    for name in want:
        lab, pr = cases[name]
        hits = math_ops.cast(math_ops.logical_and(lab, pr), dtypes.float32)
        if weight is not None:
            hits = math_ops.multiply(hits, weight)
        out[name] = reduce_ops.reduce_sum(hits, axis=0)
    return out


_COUNT_NAMES = {"tp": "true_positives", "fp": "false_positives", "fn": "false_negatives"}


class _ConfusionMetric(Metric):
    _counts = ()

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None, default=0.5):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = -1e-7 if top_k is not None and thresholds is None else default
        self.thresholds, self._scalar = _thresholds_list(thresholds, default)
        for c in self._counts:
            name = _COUNT_NAMES[c]
            setattr(self, name, self.add_weight(name, shape=(len(self.thresholds),)))

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = _confusion_counts(y_true, y_pred, self.thresholds, sample_weight, self.class_id, self.top_k,
                                   self._counts)
        self.true_positives.assign_add(counts["tp"])
        if "fp" in counts:
            self.false_positives.assign_add(counts["fp"])
        if "fn" in counts:
            self.false_negatives.assign_add(counts["fn"])

    def _finish(self, value):
        return value[0] if self._scalar else value

    def get_config(self):
        config = {"thresholds": self.init_thresholds, "top_k": self.top_k, "class_id": self.class_id}
        config.update(super().get_config())
        return config


class Precision(_ConfusionMetric):
    """``tp / (tp + fp)`` at ``thresholds`` (default 0.5; a list gives one value per threshold)."""

    _counts = ("tp", "fp")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(thresholds, top_k, class_id, name=name or "precision", dtype=dtype)

    def result(self):
        tp = self.true_positives.value()
        return self._finish(math_ops.divide_no_nan(tp, math_ops.add(tp, self.false_positives.value())))


class Recall(_ConfusionMetric):
    """``tp / (tp + fn)`` at ``thresholds`` (default 0.5)."""

    _counts = ("tp", "fn")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(thresholds, top_k, class_id, name=name or "recall", dtype=dtype)

    def result(self):
        tp = self.true_positives.value()
        return self._finish(math_ops.divide_no_nan(tp, math_ops.add(tp, self.false_negatives.value())))


class AUC(Metric):
    """Area under the ROC or PR curve from confusion counts at ``num_thresholds`` thresholds (Keras' method:
    Riemann sums with 'interpolation' (PR: Davis & Goadrich interpolation), 'minoring' or 'majoring')."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        super().__init__(name=name or "auc", dtype=dtype)
        curve, summation_method = curve.upper(), summation_method.lower()
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["ROC", "PR"]')
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". Expected values are '
                             '["interpolation", "majoring", "minoring"]')
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(f"Argument `num_thresholds` must be an integer > 1. Received: "
                                 f"num_thresholds={num_thresholds}")
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds = num_thresholds
        self.thresholds = [0.0 - _EPS] + inner + [1.0 + _EPS]
        self.curve = curve
        self.summation_method = summation_method
        self.multi_label = multi_label
        self.from_logits = from_logits
        self.label_weights = label_weights
        self.num_labels = num_labels
        self._counts_built = False
        if not multi_label or num_labels is not None:
            self._build_counts(num_labels)

    def _build_counts(self, num_labels):
        """Counts per threshold (and per label with ``multi_label``: shape ``(num_thresholds, num_labels)``)."""
        shape = (self.num_thresholds, num_labels) if self.multi_label else (self.num_thresholds,)
        self.num_labels = num_labels
        for name in ("true_positives", "true_negatives", "false_positives", "false_negatives"):
            setattr(self, name, self.add_weight(name, shape=shape))
        self._counts_built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = _t(y_pred, dtypes.float32)
        if self.from_logits:
            y_pred = math_ops.sigmoid(y_pred)
        if self.multi_label:
            if not self._counts_built:
                self._build_counts(y_pred.shape[-1])
            c = _per_label_counts(y_true, y_pred, self.thresholds, sample_weight)
        else:
            if self.label_weights is not None:
                lw = _t(self.label_weights, dtypes.float32)
                sw = lw if sample_weight is None else math_ops.multiply(_t(sample_weight, dtypes.float32), lw)
                sample_weight = array_ops.broadcast_to(sw, y_pred.shape.as_list()) if sample_weight is None else sw
            c = _confusion_counts(y_true, y_pred, self.thresholds, sample_weight, want=("tp", "fp", "tn", "fn"))
        self.true_positives.assign_add(c["tp"])
        self.false_positives.assign_add(c["fp"])
        self.true_negatives.assign_add(c["tn"])
        self.false_negatives.assign_add(c["fn"])

    def _interpolate_pr_auc(self, tp, fp, fn):
        n = self.num_thresholds
        if tp.ndim == 2:
            per_label = [self._interpolate_pr_auc(tp[:, i], fp[:, i], fn[:, i]) for i in range(tp.shape[1])]
            return self._average_labels(array_ops.stack(per_label))
        dtp = math_ops.subtract(tp[: n - 1], tp[1:])
        p = math_ops.add(tp, fp)
        dp = math_ops.subtract(p[: n - 1], p[1:])
        slope = math_ops.divide_no_nan(dtp, math_ops.maximum(dp, 0.0))
        intercept = math_ops.subtract(tp[1:], math_ops.multiply(slope, p[1:]))
        both = math_ops.logical_and(math_ops.greater(p[: n - 1], 0.0), math_ops.greater(p[1:], 0.0))
        ratio = math_ops.where(both, math_ops.divide_no_nan(p[: n - 1], math_ops.maximum(p[1:], 0.0)),
                               array_ops.ones_like(p[1:]))
        inc = math_ops.divide_no_nan(
            math_ops.multiply(slope, math_ops.add(dtp, math_ops.multiply(intercept, math_ops.log(ratio)))),
            math_ops.maximum(math_ops.add(tp[1:], fn[1:]), 0.0))
        return reduce_ops.reduce_sum(inc)

    def _average_labels(self, per_label):
        """Mean of per-label AUCs (weighted by ``label_weights`` when given)."""
        if self.label_weights is None:
            return reduce_ops.reduce_mean(per_label)
        w = _t(self.label_weights, dtypes.float32)
        return math_ops.divide_no_nan(reduce_ops.reduce_sum(math_ops.multiply(per_label, w)), reduce_ops.reduce_sum(w))

    def result(self):
        if not self._counts_built:
            return array_ops.zeros([], dtypes.float32)
        tp, fp = self.true_positives.value(), self.false_positives.value()
        tn, fn = self.true_negatives.value(), self.false_negatives.value()
        if self.multi_label and not (self.curve == "PR" and self.summation_method == "interpolation"):
            return self._average_labels(array_ops.stack([
                self._riemann(tp[:, i], fp[:, i], tn[:, i], fn[:, i]) for i in range(tp.shape[1])]))
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc(tp, fp, fn)
        return self._riemann(tp, fp, tn, fn)

    def _riemann(self, tp, fp, tn, fn):
        recall = math_ops.divide_no_nan(tp, math_ops.add(tp, fn))
        if self.curve == "ROC":
            x, y = math_ops.divide_no_nan(fp, math_ops.add(fp, tn)), recall
        else:
            x, y = recall, math_ops.divide_no_nan(tp, math_ops.add(tp, fp))
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = math_ops.multiply(math_ops.add(y[: n - 1], y[1:]), 0.5)
        elif self.summation_method == "minoring":
            heights = math_ops.minimum(y[: n - 1], y[1:])
        else:
            heights = math_ops.maximum(y[: n - 1], y[1:])
        return reduce_ops.reduce_sum(math_ops.multiply(math_ops.subtract(x[: n - 1], x[1:]), heights))

    def get_config(self):
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method, "multi_label": self.multi_label,
                  "num_labels": self.num_labels, "label_weights": self.label_weights, "from_logits": self.from_logits}
        config.update(super().get_config())
        return config


def _per_label_counts(y_true, y_pred, thresholds, sample_weight):
    """``{tp, fp, tn, fn}`` of shape ``(thresholds, labels)`` for ``(batch, labels)`` inputs (multi-label AUC)."""
    labels = y_pred.shape[-1]
    pred = array_ops.reshape(y_pred, (-1, 1, labels))
    truth = math_ops.cast(array_ops.reshape(_t(y_true, dtypes.float32), (-1, 1, labels)), dtypes.bool)
    thr = convert_to_tensor(np.asarray(thresholds, np.float32).reshape(1, -1, 1))
    pred_pos = math_ops.greater(pred, thr)
    weight = None
    if sample_weight is not None:
        sw = _t(sample_weight, dtypes.float32)
        if sw.ndim == 1:
            sw = array_ops.expand_dims(sw, -1)
        weight = array_ops.reshape(array_ops.broadcast_to(sw, y_pred.shape.as_list()), (-1, 1, labels))
    cases = {"tp": (truth, pred_pos), "fp": (math_ops.logical_not(truth), pred_pos),
             "tn": (math_ops.logical_not(truth), math_ops.logical_not(pred_pos)),
             "fn": (truth, math_ops.logical_not(pred_pos))}
    out = {}
    for name, (lab, pr) in cases.items():
        hits = math_ops.cast(math_ops.logical_and(lab, pr), dtypes.float32)
        if weight is not None:
            hits = math_ops.multiply(hits, weight)
        out[name] = reduce_ops.reduce_sum(hits, axis=0)
    return out


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
