"""``tf.keras.regularizers``: penalties on weights (or activations) added to ``layer.losses``."""

from ..ops import array_ops, math_ops, reduce_ops
from . import _serialization

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2", "get", "serialize"]


class Regularizer:
    """Base class: ``regularizer(x)`` returns a scalar penalty."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x):
        loss = None
        if self.l1:
            loss = self.l1 * reduce_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            term = self.l2 * reduce_ops.reduce_sum(math_ops.square(x))
            loss = term if loss is None else loss + term
        return loss if loss is not None else array_ops.constant(0.0, dtype=x.dtype)

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    def __init__(self, l1=0.01, **kwargs):
        super().__init__(l1=kwargs.pop("l", l1))

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    def __init__(self, l2=0.01, **kwargs):
        super().__init__(l2=kwargs.pop("l", l2))

    def get_config(self):
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Penalises non-orthogonal rows (or columns) of a 2-D kernel: ``factor * mean(|off-diagonal of N N^T|)``."""

    def __init__(self, factor=0.01, mode="rows"):
        self.factor, self.mode = factor, mode

    def __call__(self, x):
        if self.mode == "columns":
            x = array_ops.transpose(x)
        norm = math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(x), axis=1, keepdims=True)) + 1e-12
        n = x / norm
        prod = math_ops.matmul(n, n, transpose_b=True)
        size = int(x.shape[0])
        off = prod * (1.0 - array_ops.eye(size, dtype=x.dtype))
        return self.factor * reduce_ops.reduce_sum(math_ops.abs(off)) / (size * (size - 1))

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


def l1(l1=0.01):
    return L1(l1)


def l2(l2=0.01):
    return L2(l2)


def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1, l2)


_TABLE = {"l1": L1, "L1": L1, "l2": L2, "L2": L2, "l1_l2": l1_l2, "L1L2": L1L2,
          "orthogonal_regularizer": OrthogonalRegularizer, "OrthogonalRegularizer": OrthogonalRegularizer}


def get(identifier):
    if identifier is None:
        return None
    return _serialization.lookup(identifier, _TABLE, "regularizer")


def serialize(regularizer):
    return _serialization.serialize(regularizer)


def deserialize(config, custom_objects=None):
    return get(config)
