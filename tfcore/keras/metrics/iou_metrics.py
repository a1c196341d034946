"""Intersection-over-union metrics (Keras 3's ``iou_metrics.py``)."""


from ...framework import dtypes
from ...ops import array_ops, math_ops, reduce_ops
from .metric import Metric, _t


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
