"""F-beta and F1 scores (Keras 3's ``f_score_metrics.py``)."""


from ...ops import array_ops, math_ops, reduce_ops
from .metric import Metric, _t


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
