"""``tf.IndexedSlices``: a sparse set of slices (rows) of a dense tensor, as TF's gradients of ``gather``.

``values[i]`` is the slice at row ``indices[i]`` of a tensor of shape ``dense_shape``; repeated
indices add up when it is made dense (``tf.convert_to_tensor``, registered by
:mod:`tfcore.ops.sparse_math_ops`, which owns the ops that do it).
"""

from . import dtypes
from .tensor import Tensor
from .tensor_conversion import convert_to_tensor
from .tensor_shape import TensorShape


class IndexedSlices:
    """``tf.IndexedSlices(values, indices, dense_shape=None)``."""

    __slots__ = ("_values", "_indices", "_dense_shape", "__weakref__")

    def __init__(self, values, indices, dense_shape=None):
        self._values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        self._indices = indices if isinstance(indices, Tensor) else convert_to_tensor(indices)
        if not self._indices.dtype.is_integer:
            raise TypeError(f"IndexedSlices: indices must be int32 or int64, got {self._indices.dtype.name}")
        if self._indices._array.ndim != 1:
            raise ValueError(f"IndexedSlices: indices must be a vector, got shape {list(self._indices._array.shape)}")
        if self._values._array.ndim < 1 or self._values._array.shape[0] != self._indices._array.shape[0]:
            raise ValueError(f"IndexedSlices: values' first dimension must match indices' length "
                             f"{self._indices._array.shape[0]}, got shape {list(self._values._array.shape)}")
        self._dense_shape = None if dense_shape is None else (
            dense_shape if isinstance(dense_shape, Tensor) else convert_to_tensor(dense_shape, dtype=dtypes.int64))

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def device(self):
        return self._values.device

    @property
    def shape(self):
        """The dense shape (unknown first dimension when ``dense_shape`` is None)."""
        if self._dense_shape is None:
            return TensorShape([None] + list(self._values._array.shape[1:]))
        return TensorShape([int(d) for d in self._dense_shape.numpy()])

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self):
        return (f"IndexedSlices(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")
