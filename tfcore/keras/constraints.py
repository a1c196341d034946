"""``tf.keras.constraints``: projections applied to a weight after each optimizer update."""

from ..ops import math_ops, reduce_ops
from . import _serialization

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "get", "serialize"]


class Constraint:
    """Base class: ``constraint(w)`` returns the projected weight."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _norms(w, axis):
    return math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescale slices along ``axis`` whose L2 norm exceeds ``max_value``."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = math_ops.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (1e-7 + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class MinMaxNorm(Constraint):
    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = self.rate * math_ops.clip_by_value(norms, float(self.min_value), float(self.max_value)) \
            + (1 - self.rate) * norms
        return w * (desired / (1e-7 + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


class NonNeg(Constraint):
    """Zero out negative weights."""

    def __call__(self, w):
        return w * math_ops.cast(math_ops.greater_equal(w, 0.0), w.dtype)


class UnitNorm(Constraint):
    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (1e-7 + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm

_TABLE = {"max_norm": MaxNorm, "MaxNorm": MaxNorm, "min_max_norm": MinMaxNorm, "MinMaxNorm": MinMaxNorm,
          "non_neg": NonNeg, "NonNeg": NonNeg, "unit_norm": UnitNorm, "UnitNorm": UnitNorm}


def get(identifier):
    if identifier is None:
        return None
    return _serialization.lookup(identifier, _TABLE, "constraint")


def serialize(constraint):
    return _serialization.serialize(constraint)


def deserialize(config, custom_objects=None):
    return get(config)
