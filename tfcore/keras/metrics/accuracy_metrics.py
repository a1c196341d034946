"""Accuracy metrics and their per-sample functions (Keras 3's ``accuracy_metrics.py``)."""


from ...framework import dtypes
from ...ops import array_ops, math_ops, reduce_ops
from .metric import _argmax, _t
from .reduction_metrics import MeanMetricWrapper


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
