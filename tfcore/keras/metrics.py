"""``tf.keras.metrics``: stateful metrics (``Metric`` is a ``Layer`` holding non-trainable state).

``update_state`` accumulates into variables with ops on the data's device,
``result()`` reads them, ``reset_state()`` (alias ``reset_states``) zeroes them and
calling a metric updates it and returns the result, as in Keras. The function
forms (``sparse_categorical_accuracy`` ...) return per-sample values.
"""

import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.variables import Variable, VariableAggregation, VariableSynchronization
from ..ops import array_ops, math_ops, reduce_ops
from ..ops._common import _float_scalar
from . import backend
from . import losses as losses_mod
from .engine.base_layer import Layer

_EPS = 1e-7


def _t(x, dtype=None):
    """A tensor for ``x`` (variables read; ``dtype`` casts)."""
    if isinstance(x, Variable):
        x = x.value()
    if isinstance(x, Tensor):
        return x if dtype is None or x._dtype is dtype else math_ops.cast(x, dtype)
    return convert_to_tensor(x, dtype=dtype) if dtype is None or not isinstance(x, np.ndarray | np.generic) \
        else convert_to_tensor(np.asarray(x).astype(dtype.as_numpy_dtype))


_ZEROS = {}  # (shape, numpy dtype) -> read-only zeros shared by resets (each assign gets its own Tensor)
_ctx.on_reset(_ZEROS.clear)


def _zeros_for(v):
    """Zeros to assign to ``v``: a fresh Tensor over a cached read-only array for plain variables
    (``reset_state`` runs after every ``train_on_batch``), a NumPy array otherwise."""
    value = getattr(v, "_value", None)
    if type(value) is not Tensor:
        return np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype)
    a = value._array
    if not isinstance(a, np.ndarray):
        return np.zeros(a.shape, a.dtype)
    key = (a.shape, a.dtype)
    z = _ZEROS.get(key)
    if z is None:
        if len(_ZEROS) > 64:
            _ZEROS.clear()
        z = _ZEROS[key] = np.zeros(a.shape, a.dtype)
        z.flags.writeable = False
    return Tensor(z, value._dtype, value._device)


def _argmax(x):
    return reduce_ops.argmax(x, axis=-1)


class Metric(Layer):
    """Base class: ``update_state``, ``result``, ``reset_state``; state created with ``add_weight``."""

    def __init__(self, name=None, dtype=None, **kwargs):
        # floatx, not the global mixed-precision policy: metrics accumulate in float32 (as Keras)
        super().__init__(name=name, dtype=dtype if dtype is not None else backend.floatx(), **kwargs)
        self.stateful = True
        self.built = True

    def __call__(self, *args, **kwargs):
        """Update the state with these values and return the new result."""
        self.update_state(*args, **kwargs)
        return self.result()

    def add_weight(self, name, shape=(), aggregation=VariableAggregation.SUM,
                   synchronization=VariableSynchronization.ON_READ, initializer=None, dtype=None, **kwargs):
        """A non-trainable state variable (zeros unless ``initializer``)."""
        return super().add_weight(name=name, shape=shape, dtype=dtype or self._dtype,
                                  initializer=initializer if initializer is not None else "zeros",
                                  trainable=False, synchronization=synchronization, aggregation=aggregation)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self):
        raise NotImplementedError("Must be implemented in subclasses.")

    def reset_state(self):
        """Set every state variable to zero."""
        for v in self.variables:
            v.assign(_zeros_for(v))

    def reset_states(self):
        """Deprecated alias of ``reset_state``."""
        return self.reset_state()

    def merge_state(self, metrics):
        """Add the states of other metrics of the same kind into this one."""
        for m in metrics:
            for mine, theirs in zip(self.variables, m.variables):
                mine.assign_add(theirs.value())

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @property
    def dtype(self):
        return self._dtype.name


# -- reductions ------------------------------------------------------------------------------

class Reduce(Metric):
    """Sum or weighted mean of all values seen (``reduction``: 'sum' or 'weighted_mean')."""

    def __init__(self, reduction, name, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total")
        if reduction != "sum":
            self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        values = _t(values, self._dtype)
        if values._array.ndim == 0 and (sample_weight is None or type(sample_weight) in (float, int)) \
                and self._dtype.is_floating:
            return self._update_scalar(values, sample_weight)
        if sample_weight is not None:
            sw = _t(sample_weight, self._dtype)
            values, _, sw = losses_mod.squeeze_or_expand_dimensions(values, None, sw)
            if sw.shape.as_list() != values.shape.as_list():
                if sw.ndim > values.ndim:  # Keras reduces values' extra dimensions... here weights' extra ones
                    sw = reduce_ops.reduce_mean(sw, axis=list(range(values.ndim, sw.ndim)))
                sw = array_ops.broadcast_to(sw, values.shape.as_list())
            values = math_ops.multiply(values, sw)
        self.total.assign_add(reduce_ops.reduce_sum(values))
        if self.reduction == "sum":
            return
        if sample_weight is None:
            n = 1
            for d in values.shape.as_list():
                n *= d
            self.count.assign_add(np.asarray(n, self._dtype.as_numpy_dtype))
        else:
            self.count.assign_add(reduce_ops.reduce_sum(sw))

    def _update_scalar(self, value, weight):
        """One scalar value with a Python weight (the compiled loss tracker, every step): the same
        sums as the general path (a scalar's sum is itself) in at most three ops instead of five."""
        w = _float_scalar(1.0 if weight is None else weight, self._dtype)
        if weight is not None:
            value = math_ops.multiply(value, w)
        self.total.assign_add(value)
        if self.reduction != "sum":
            self.count.assign_add(w)

    def result(self):
        if self.reduction == "sum":
            return array_ops.identity(self.total.value())
        return math_ops.divide_no_nan(self.total.value(), self.count.value())


class Sum(Reduce):
    """Running (weighted) sum of the values."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name=name, dtype=dtype)


class Mean(Reduce):
    """Running (weighted) mean of the values."""

    def __init__(self, name="mean", dtype=None):
        super().__init__("weighted_mean", name=name, dtype=dtype)


class MeanMetricWrapper(Mean):
    """Mean over batches of ``fn(y_true, y_pred, **kwargs)`` (per-sample values)."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _t(y_true), _t(y_pred)
        if y_pred.dtype.is_floating and y_true.dtype.is_floating and y_true.dtype is not y_pred.dtype:
            y_true = math_ops.cast(y_true, y_pred.dtype)
        y_pred, y_true, _ = losses_mod.squeeze_or_expand_dimensions(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(matches, sample_weight=sample_weight)

    def get_config(self):
        config = dict(self._fn_kwargs)
        config.update(super().get_config())
        return config


# -- accuracy functions ------------------------------------------------------------------------

def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred`` exactly."""
    y_true, y_pred = _t(y_true), _t(y_pred)
    if y_true.dtype is not y_pred.dtype:
        y_true = math_ops.cast(y_true, y_pred.dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), dtypes.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """``y_true == (y_pred > threshold)`` element-wise as float32 (Keras 3: no mean over the last axis).

    Labels ``(B,)`` against predictions ``(B, 1)`` are first brought to one rank (Keras 3's
    ``squeeze_or_expand_to_same_rank``), so a metric counts one value per sample: a short last batch
    weighs by its size, not as much as a full one.
    """
    y_pred = _t(y_pred)
    y_true = _t(y_true, y_pred.dtype)
    rt, rp = y_true.ndim, y_pred.ndim
    if rp == rt + 1 and y_pred.shape[-1] == 1:
        y_true = array_ops.expand_dims(y_true, -1) if rt == 1 else y_true
        y_pred = y_pred if rt == 1 else array_ops.squeeze(y_pred, [-1])
    elif rt == rp + 1 and y_true.shape[-1] == 1:
        y_pred = array_ops.expand_dims(y_pred, -1) if rp == 1 else y_pred
        y_true = y_true if rp == 1 else array_ops.squeeze(y_true, [-1])
    pred = math_ops.cast(math_ops.greater(y_pred, float(threshold)), y_pred.dtype)
    return math_ops.cast(math_ops.equal(y_true, pred), dtypes.float32)


def categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_true) == argmax(y_pred)`` (one-hot labels)."""
    return math_ops.cast(math_ops.equal(_argmax(_t(y_true)), _argmax(_t(y_pred))), dtypes.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals ``argmax(y_pred)``."""
    y_true, y_pred = _t(y_true), _t(y_pred)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = array_ops.squeeze(y_true, [-1])
    pred = _argmax(y_pred)
    if pred.dtype is not y_true.dtype:
        pred = math_ops.cast(pred, y_true.dtype)
    return math_ops.cast(math_ops.equal(y_true, pred), dtypes.float32)


def _in_top_k(targets, predictions, k):
    """1.0 where the target class is among the ``k`` largest predictions (``tf.math.in_top_k``; ties count)."""
    shape = predictions.shape.as_list()
    preds = predictions if len(shape) == 2 else array_ops.reshape(predictions, (-1, shape[-1]))
    targets = math_ops.cast(array_ops.reshape(targets, (-1,)), dtypes.int64)
    hits = math_ops.cast(reduce_ops.in_top_k(targets, preds, k), dtypes.float32)
    return hits if len(shape) == 2 else array_ops.reshape(hits, shape[:-1])


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot label's class is in the top ``k`` predictions."""
    return _in_top_k(_argmax(_t(y_true)), _t(y_pred), k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is in the top ``k`` predictions."""
    y_true, y_pred = _t(y_true), _t(y_pred)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = array_ops.squeeze(y_true, [-1])
    return _in_top_k(y_true, y_pred, k)


def mean_squared_error(y_true, y_pred):
    return losses_mod.mean_squared_error(y_true, y_pred)


def mean_absolute_error(y_true, y_pred):
    return losses_mod.mean_absolute_error(y_true, y_pred)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
binary_crossentropy = losses_mod.binary_crossentropy
categorical_crossentropy = losses_mod.categorical_crossentropy
sparse_categorical_crossentropy = losses_mod.sparse_categorical_crossentropy
kl_divergence = losses_mod.kl_divergence


# -- metric classes -----------------------------------------------------------------------------

class Accuracy(MeanMetricWrapper):
    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name, dtype=dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name, dtype=dtype)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name, dtype=dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype=dtype, k=k)


class MeanSquaredError(MeanMetricWrapper):
    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name, dtype=dtype)


class RootMeanSquaredError(Mean):
    """``sqrt`` of the running mean of squared errors."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = _t(y_pred, self._dtype)
        y_true = _t(y_true, self._dtype)
        y_pred, y_true, _ = losses_mod.squeeze_or_expand_dimensions(y_pred, y_true)
        return super().update_state(math_ops.squared_difference(y_pred, y_true), sample_weight=sample_weight)

    def result(self):
        return math_ops.sqrt(math_ops.divide_no_nan(self.total.value(), self.count.value()))


class BinaryCrossentropy(MeanMetricWrapper):
    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(losses_mod.binary_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


class CategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(losses_mod.categorical_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, axis=-1):
        super().__init__(losses_mod.sparse_categorical_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         axis=axis)


# -- confusion-matrix metrics --------------------------------------------------------------------

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


# -- lookup ---------------------------------------------------------------------------------------

_CLASSES = {c.__name__: c for c in (
    Metric, Mean, Sum, MeanMetricWrapper, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanSquaredError, MeanAbsoluteError,
    RootMeanSquaredError, BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, Precision,
    Recall, AUC)}
_FUNCTIONS = {
    "accuracy": accuracy, "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error, "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy, "kl_divergence": kl_divergence,
}


def serialize(metric):
    if isinstance(metric, Metric):
        return {"class_name": type(metric).__name__, "config": metric.get_config()}
    return metric.__name__


def deserialize(config, custom_objects=None):
    from .utils.object_registration import with_custom_objects
    custom_objects = with_custom_objects(config, custom_objects)
    if isinstance(config, dict):
        cls = {**_CLASSES, **(custom_objects or {})}.get(config["class_name"])
        if cls is None:
            raise ValueError(f"Unknown metric function: '{config['class_name']}'.")
        return cls.from_config(config["config"])
    table = {**_FUNCTIONS, **_CLASSES, **(custom_objects or {})}
    if config not in table:
        raise ValueError(f"Unknown metric function: '{config}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in the scope.")
    obj = table[config]
    return obj() if isinstance(obj, type) else obj


def get(identifier):
    """A metric function or object from a name ('accuracy', 'mse', 'AUC', ...), a dict or a callable."""
    if isinstance(identifier, str | dict):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
