"""Regression metrics: mean squared/absolute (percentage, logarithmic) errors, RMSE, log-cosh, cosine
similarity and R2 (Keras 3's ``regression_metrics.py``)."""

import numpy as np

from ...framework import dtypes
from ...ops import array_ops, math_ops, reduce_ops
from .. import losses as losses_mod
from .metric import Metric, _t
from .reduction_metrics import Mean, MeanMetricWrapper, _wrapper


def mean_squared_error(y_true, y_pred):
    return losses_mod.mean_squared_error(y_true, y_pred)


def mean_absolute_error(y_true, y_pred):
    return losses_mod.mean_absolute_error(y_true, y_pred)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
logcosh = losses_mod.log_cosh
mean_absolute_percentage_error = mape = MAPE = losses_mod.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = losses_mod.mean_squared_logarithmic_error


def cosine_similarity(y_true, y_pred, axis=-1):
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`` (the metric's sign: 1 for equal directions)."""
    return math_ops.negative(losses_mod.cosine_similarity(y_true, y_pred, axis=axis))


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


LogCoshError = _wrapper("LogCoshError", logcosh, "logcosh", "Mean of ``log(cosh(y_pred - y_true))``.", __name__)
MeanAbsolutePercentageError = _wrapper("MeanAbsolutePercentageError", mape, "mean_absolute_percentage_error",
                                       "Mean of ``mean_absolute_percentage_error``.", __name__)
MeanSquaredLogarithmicError = _wrapper("MeanSquaredLogarithmicError", msle, "mean_squared_logarithmic_error",
                                       "Mean of ``mean_squared_logarithmic_error``.", __name__)
CosineSimilarity = _wrapper("CosineSimilarity", cosine_similarity, "cosine_similarity",
                            "Mean cosine similarity along ``axis``.", __name__, axis=-1)


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
