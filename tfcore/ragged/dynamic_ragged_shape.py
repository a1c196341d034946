"""``tf.experimental.RowPartition`` and ``tf.experimental.DynamicRaggedShape``: the shape of a RaggedTensor.

A ``DynamicRaggedShape`` is a list of row partitions (one per ragged dimension, outermost first) and an
``inner_shape`` (the shape of the flat values: how many values, then the dense inner dimensions). Its
*lengths* are TF's: an int for a uniform dimension, a tuple of row lengths for a ragged one
(``[4, (1, 3, 0, 2)]``). ``tf.shape(rt)`` returns one; ``tf.zeros/ones/fill/reshape`` take one and build a
RaggedTensor of that shape (``ragged_dispatch.py`` registers those handlers).
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..ops import array_ops as _a
from ..ops import math_ops as _m
from .ragged_tensor import RaggedTensor

__all__ = ["RowPartition", "DynamicRaggedShape"]


def _host_ints(x):
    return np.asarray(x.numpy() if isinstance(x, Tensor) else x, np.int64).reshape(-1)


class RowPartition:
    """How a flat run of values is cut into rows (TF's ``RowPartition``): ``row_splits`` of length ``nrows + 1``."""

    __slots__ = ("_row_splits", "_uniform_row_length")

    def __init__(self, row_splits, internal=False, uniform_row_length=None):
        if not internal:
            raise ValueError("RowPartition constructor is private; use a factory method such as "
                             "tf.experimental.RowPartition.from_row_lengths().")
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length  # set when built uniform (a shape prints it as an int)

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        splits = convert_to_tensor(row_splits, dtype=dtype or dtype_hint or dtypes.int64)
        if validate:
            s = _host_ints(splits)
            if s.size < 1 or s[0] != 0 or np.any(np.diff(s) < 0):
                raise ValueError(f"RowPartition.from_row_splits: row_splits must start at 0 and not decrease, "
                                 f"got {s.tolist()}")
        return cls(splits, internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        lengths = _host_ints(row_lengths)
        if validate and np.any(lengths < 0):
            raise InvalidArgumentError(None, None, "Arguments to from_row_lengths do not form a valid RowPartition: "
                                                   f"row lengths must be >= 0, got {lengths.tolist()}")
        dt = dtypes.as_dtype(dtype or dtype_hint or dtypes.int64)
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(dt.as_numpy_dtype)
        return cls(convert_to_tensor(splits), internal=True)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None, validate=True, dtype=None,
                                dtype_hint=None):
        width = int(_host_ints(uniform_row_length)[0])
        if nrows is None:
            nrows = int(_host_ints(nvals)[0]) // width if width else 0
        p = cls.from_row_lengths([width] * int(_host_ints(nrows)[0]), validate=validate, dtype=dtype,
                                 dtype_hint=dtype_hint)
        p._uniform_row_length = width
        return p

    @property
    def dtype(self):
        return self._row_splits.dtype

    def row_splits(self):
        return self._row_splits

    def row_lengths(self):
        return _m.subtract(self._row_splits[1:], self._row_splits[:-1])

    def nrows(self):
        return convert_to_tensor(np.asarray(int(self._row_splits.shape[0]) - 1, self.dtype.as_numpy_dtype))

    def nvals(self):
        return self._row_splits[-1]

    def static_nrows(self):
        return int(self._row_splits.shape[0]) - 1

    def with_dtype(self, dtype):
        return RowPartition(_m.cast(self._row_splits, dtype), internal=True,
                            uniform_row_length=self._uniform_row_length)

    def is_uniform(self):
        return self._uniform_row_length is not None

    def __repr__(self):
        return f"tf.RowPartition(row_splits={self._row_splits.numpy()})"


class DynamicRaggedShape:
    """The shape of a (ragged) tensor: row partitions plus the shape of the flat values (``inner_shape``)."""

    __slots__ = ("_row_partitions", "_inner_shape")

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=True, static_inner_shape=None):
        parts = tuple(row_partitions)
        inner = convert_to_tensor(_host_ints(inner_shape), dtype=dtype or (parts[0].dtype if parts else dtypes.int64))
        if dtype is not None:
            parts = tuple(p.with_dtype(dtype) if p.dtype is not dtypes.as_dtype(dtype) else p for p in parts)
        if validate and parts:
            for outer, nxt in zip(parts, parts[1:]):
                if int(_host_ints(outer.nvals())[0]) != nxt.static_nrows():
                    raise ValueError("DynamicRaggedShape: each row partition's number of values must be the next "
                                     f"one's number of rows, got {outer!r} then {nxt!r}")
            inner_host = _host_ints(inner)
            if inner_host.size == 0 or int(_host_ints(parts[-1].nvals())[0]) != int(inner_host[0]):
                raise ValueError(f"DynamicRaggedShape: inner_shape {inner_host.tolist()} must start with the last "
                                 f"row partition's number of values ({int(_host_ints(parts[-1].nvals())[0])})")
        self._row_partitions = parts
        self._inner_shape = inner

    # -- factories -----------------------------------------------------------------------------------------
    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=dtypes.int64):
        """From TF's lengths: ints for uniform dimensions, tuples of row lengths for ragged ones."""
        lengths = list(lengths)
        if not lengths:
            return cls([], [], dtype=dtype)
        ragged = [i for i, d in enumerate(lengths) if isinstance(d, list | tuple)]
        if ragged and ragged[0] == 0:
            raise ValueError("DynamicRaggedShape.from_lengths: the first dimension must be uniform (an int)")
        n_parts = num_row_partitions if num_row_partitions is not None else (ragged[-1] if ragged else 0)
        parts, nvals = [], int(lengths[0])
        for d in lengths[1:n_parts + 1]:
            if isinstance(d, list | tuple):
                if len(d) != nvals:
                    raise ValueError(f"DynamicRaggedShape.from_lengths: {len(d)} row lengths for {nvals} rows in "
                                     f"{lengths}")
                p = RowPartition.from_row_lengths(list(d), dtype=dtype)
            else:
                p = RowPartition.from_uniform_row_length(int(d), nrows=nvals, dtype=dtype)
            parts.append(p)
            nvals = int(_host_ints(p.nvals())[0])
        inner = [nvals] + [int(d) for d in lengths[n_parts + 1:]]
        return cls(parts, inner, dtype=dtype)

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of a Tensor or RaggedTensor."""

        dt = dtypes.as_dtype(dtype) if dtype is not None else None
        if isinstance(t, RaggedTensor):
            splits_dt = dt or t.row_splits_dtype
            parts, level = [], t
            while isinstance(level, RaggedTensor):
                s = level.row_splits
                parts.append(RowPartition(s if s.dtype is splits_dt else _m.cast(s, splits_dt), internal=True,
                                          uniform_row_length=level._uniform_row_length))
                level = level.values
            return cls(parts, t.flat_values.shape.as_list(), dtype=splits_dt, validate=False)
        t = convert_to_tensor(t)
        return cls([], t.shape.as_list(), dtype=dt or dtypes.int64, validate=False)

    # -- structure -----------------------------------------------------------------------------------------
    @property
    def row_partitions(self):
        return self._row_partitions

    @property
    def inner_shape(self):
        return self._inner_shape

    @property
    def num_row_partitions(self):
        return len(self._row_partitions)

    @property
    def rank(self):
        return len(self._row_partitions) + int(self._inner_shape.shape[0])

    @property
    def dtype(self):
        return self._inner_shape.dtype

    def _lengths(self):
        """TF's lengths: ``[nrows, (row lengths) or int, ..., inner dims]``."""
        inner = [int(d) for d in _host_ints(self._inner_shape)]
        if not self._row_partitions:
            return inner
        out = [self._row_partitions[0].static_nrows()]
        for p in self._row_partitions:
            out.append(p._uniform_row_length if p.is_uniform() else tuple(int(v) for v in _host_ints(p.row_lengths())))
        return out + inner[1:]

    def static_lengths(self, ragged_lengths=True):
        lengths = self._lengths()
        return lengths if ragged_lengths else [None if isinstance(d, tuple) else d for d in lengths]

    def is_uniform(self, axis):
        return not isinstance(self._lengths()[axis], tuple)

    def __getitem__(self, index):
        lengths = self._lengths()
        if isinstance(index, slice):
            if index.step not in (None, 1) or (index.start or 0) != 0:
                raise ValueError("DynamicRaggedShape: only slices [:k] of the outer dimensions are supported")
            stop = len(lengths) if index.stop is None else index.stop
            return DynamicRaggedShape.from_lengths(lengths[:stop], dtype=self.dtype)
        i = int(index)
        if i < 0:
            i += len(lengths)
        if not 0 <= i < len(lengths):
            raise IndexError(f"Index {index} out of range for a shape of rank {len(lengths)}")
        if isinstance(lengths[i], tuple):
            raise ValueError(f"Index {index} is not uniform")
        return convert_to_tensor(np.asarray(lengths[i], self.dtype.as_numpy_dtype))

    def __len__(self):
        return self.rank

    def __repr__(self):
        lengths = ", ".join(str(d) if not isinstance(d, tuple) else "(" + ", ".join(str(v) for v in d) + ")"
                            for d in self._lengths())
        return f"<DynamicRaggedShape lengths=[{lengths}] num_row_partitions={self.num_row_partitions}>"

    # -- building values of this shape ---------------------------------------------------------------------
    def _wrap(self, flat_values):
        if not self._row_partitions:
            return flat_values
        return RaggedTensor.from_nested_row_splits(flat_values, [p.row_splits() for p in self._row_partitions],
                                                   validate=False)

    def _inner_dims(self):
        return [int(d) for d in _host_ints(self._inner_shape)]


def zeros(shape, dtype=dtypes.float32, name=None):
    """``tf.zeros(DynamicRaggedShape)``: a RaggedTensor of zeros."""
    return shape._wrap(_a.zeros(shape._inner_dims(), dtype=dtype))


def ones(shape, dtype=dtypes.float32, name=None):
    """``tf.ones(DynamicRaggedShape)``: a RaggedTensor of ones."""
    return shape._wrap(_a.ones(shape._inner_dims(), dtype=dtype))


def fill(dims, value, name=None):
    """``tf.fill(DynamicRaggedShape, value)``."""
    return dims._wrap(_a.fill(dims._inner_dims(), value))


def reshape(tensor, shape, name=None):
    """``tf.reshape(dense, DynamicRaggedShape)``: the values of ``tensor`` in row-major order, cut into the
    shape's rows."""

    if isinstance(tensor, RaggedTensor):
        tensor = tensor.flat_values
    return shape._wrap(_a.reshape(tensor, shape._inner_dims()))
