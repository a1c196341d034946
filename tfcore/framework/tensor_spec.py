"""``tf.TensorSpec``: the shape and dtype a tensor is expected to have."""

from . import dtypes, type_spec
from .tensor import Tensor
from .tensor_conversion import convert_to_tensor
from .tensor_conversion_registry import is_convertible
from .tensor_shape import TensorShape, as_shape


class TensorSpec:
    """Describes a tensor: ``TensorSpec(shape, dtype=tf.float32, name=None)``."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def value_type(self):
        """The Python type of the values this spec describes (``tf.Tensor``), as TF's TypeSpec."""

        return Tensor

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_value):
        other_dtype = getattr(spec_or_value, "dtype", None)
        other_shape = getattr(spec_or_value, "shape", None)
        if other_dtype is None or other_shape is None:
            return False
        return dtypes.as_dtype(other_dtype) is self._dtype and self._shape.is_compatible_with(
            TensorShape(tuple(other_shape)) if not isinstance(other_shape, TensorShape) else other_shape)

    def most_specific_compatible_type(self, other):
        if other.dtype is not self._dtype:
            raise ValueError(f"Types are not compatible: {self} vs {other}")
        return TensorSpec(self._shape.most_specific_compatible_shape(other.shape), self._dtype)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self._shape == other._shape
                and self._dtype is other._dtype and self._name == other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


def _register():
    import numpy as np


    def is_tensor_like(v):
        return isinstance(v, Tensor | np.ndarray | np.generic | int | float | complex | str | bytes | list | tuple) \
            or is_convertible(v)

    def spec(v):
        try:
            t = v if isinstance(v, Tensor) else convert_to_tensor(v)
        except (ValueError, TypeError) as e:  # e.g. a ragged Python list
            raise TypeError(f"Could not build a TypeSpec for {v!r} with type {type(v).__name__}") from e
        return TensorSpec(t.shape, t.dtype)

    type_spec.register_spec(TensorSpec, is_tensor_like, spec)


_register()
