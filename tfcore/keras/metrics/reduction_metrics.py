"""Reducing metrics: ``Sum``, ``Mean`` and ``MeanMetricWrapper`` (the mean of a per-sample function),
as Keras 3's ``reduction_metrics.py``."""

import numpy as np

from ...ops import array_ops, math_ops, reduce_ops
from ...ops._common import _float_scalar
from .. import losses as losses_mod
from .metric import Metric, _t


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


def _wrapper(class_name, fn, default_name, doc, module, **defaults):
    """A ``MeanMetricWrapper`` subclass named ``class_name`` (defined in ``module``) averaging ``fn``."""
    def __init__(self, name=default_name, dtype=None, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"{class_name}() got unexpected keyword arguments {sorted(unknown)}")
        MeanMetricWrapper.__init__(self, fn, name, dtype=dtype, **{**defaults, **kwargs})
        for k, v in {**defaults, **kwargs}.items():
            setattr(self, k, v)

    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc, "__module__": module})
