"""``tf.sparse.SparseTensor``: a tensor given by the indices and values of its non-default entries.

``indices`` is an int64 ``[N, rank]`` tensor, ``values`` a ``[N]`` tensor of any dtype and
``dense_shape`` an int64 ``[rank]`` tensor, as in TF. Entries not listed are zero (or the
``default_value`` given to ``tf.sparse.to_dense``).
"""

import numpy as np

from . import dtypes, type_spec
from .errors import InvalidArgumentError
from .tensor import Tensor
from .tensor_conversion import convert_to_tensor
from .tensor_shape import TensorShape


class SparseTensor:
    """``tf.sparse.SparseTensor(indices, values, dense_shape)``."""

    __slots__ = ("_indices", "_values", "_dense_shape", "__weakref__")

    def __init__(self, indices, values, dense_shape):
        ind = convert_to_tensor(indices, dtype=dtypes.int64)
        val = values if isinstance(values, Tensor) else convert_to_tensor(values)
        shp = convert_to_tensor(dense_shape, dtype=dtypes.int64)
        if shp._array.ndim != 1:
            raise ValueError(f"SparseTensor: dense_shape must be a vector, got shape {list(shp._array.shape)}")
        if ind._array.ndim != 2 or ind._array.shape[1] != shp._array.shape[0]:
            raise ValueError(f"SparseTensor: indices must have shape [N, {shp._array.shape[0]}] for a rank "
                             f"{shp._array.shape[0]} dense_shape, got {list(ind._array.shape)}")
        if val._array.ndim != 1 or val._array.shape[0] != ind._array.shape[0]:
            raise ValueError(f"SparseTensor: values must have shape [{ind._array.shape[0]}] to match indices "
                             f"{list(ind._array.shape)}, got {list(val._array.shape)}")
        self._indices, self._values, self._dense_shape = ind, val, shp

    @classmethod
    def from_value(cls, value):
        if isinstance(value, SparseTensor):
            return value
        if hasattr(value, "indices") and hasattr(value, "values") and hasattr(value, "dense_shape"):
            return cls(value.indices, value.values, value.dense_shape)
        raise TypeError(f"SparseTensor.from_value: expected a SparseTensor or SparseTensorValue, got {type(value)}")

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values._dtype

    @property
    def shape(self):
        return TensorShape([int(d) for d in np.asarray(self._dense_shape.numpy())])

    def get_shape(self):
        return self.shape

    @property
    def device(self):
        return self._values.device

    def with_values(self, new_values):
        """A SparseTensor with the same indices and shape and ``new_values``."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def __repr__(self):
        """TF's: the components printed as ``tf.Tensor(...)`` (their ``str``), the same for ``str`` and ``repr``."""
        return f"SparseTensor(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"


def check_sparse(value, what):
    """``value`` as a SparseTensor or a TypeError naming the argument."""
    if isinstance(value, SparseTensor):
        return value
    raise TypeError(f"{what} must be a SparseTensor, got {type(value).__name__}")


def dense_index_check(indices, shape, what):
    """InvalidArgumentError when an index row lies outside ``shape`` (NumPy arrays)."""
    if indices.size and ((indices < 0).any() or (indices >= np.asarray(shape)[None, :]).any()):
        bad = indices[((indices < 0) | (indices >= np.asarray(shape)[None, :])).any(axis=1)][0]
        raise InvalidArgumentError(None, None, f"{what}: indices {bad.tolist()} is out of bounds for dense shape "
                                               f"{np.asarray(shape).tolist()}")


class SparseTensorSpec:
    """``tf.SparseTensorSpec(shape, dtype)``: the type of a SparseTensor (e.g. in a dataset's element_spec)."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def value_type(self):
        """The Python type of the values this spec describes (``tf.SparseTensor``), as TF's TypeSpec."""
        return SparseTensor

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype)

    def __eq__(self, other):
        return isinstance(other, SparseTensorSpec) and self._dtype is other._dtype and \
            self._shape.as_list() == other._shape.as_list() if self._shape.rank is not None else \
            isinstance(other, SparseTensorSpec) and self._dtype is other._dtype and other._shape.rank is None

    def __hash__(self):
        return hash(("SparseTensorSpec", self._dtype))

    def __repr__(self):
        return f"SparseTensorSpec(TensorShape({self._shape.as_list() if self._shape.rank is not None else None}), " \
               f"{self._dtype!r})"


def stack_sparse(items):
    """A batch of SparseTensors (host arrays): rank + 1, dense shape the element-wise maximum."""
    idx = [np.asarray(s._indices._array) for s in items]
    ranks = {i.shape[1] for i in idx}
    if len(ranks) != 1:
        raise InvalidArgumentError(None, None, f"Cannot batch SparseTensors of different ranks {sorted(ranks)}")
    rank = ranks.pop()
    shape = np.max(np.stack([np.asarray(s._dense_shape._array) for s in items]), axis=0) if rank else \
        np.zeros(0, np.int64)
    batch_col = np.concatenate([np.full((len(i), 1), b, np.int64) for b, i in enumerate(idx)])
    indices = np.concatenate([batch_col, np.concatenate(idx).reshape(-1, rank)], axis=1)
    values = np.concatenate([np.asarray(s._values._array) for s in items])
    return SparseTensor(indices, Tensor(values, items[0]._values._dtype, items[0]._values._device),
                        np.concatenate([[len(items)], shape]).astype(np.int64))


def _register():
    type_spec.register_spec(SparseTensorSpec, lambda v: isinstance(v, SparseTensor), SparseTensorSpec.from_value)


_register()
