"""A ragged tensor with one ragged dimension: what ``tf.strings.split`` and ``unicode_decode`` return.

``RaggedTensor(values, row_splits)``: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``,
as TF's ``tf.RaggedTensor.from_row_splits``. This covers the string ops' results (``to_list``,
``to_tensor``, ``row_lengths``, indexing); it is not yet the full ``tf.ragged`` API.
"""

import numpy as np

from . import dtypes
from .tensor import Tensor
from .tensor_conversion import convert_to_tensor
from .tensor_shape import TensorShape


class RaggedTensor:
    """``tf.RaggedTensor`` with one ragged dimension (``ragged_rank == 1``)."""

    __slots__ = ("_values", "_row_splits")

    def __init__(self, values, row_splits):
        self._values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        self._row_splits = convert_to_tensor(row_splits, dtype=dtypes.int64)
        s = np.asarray(self._row_splits.numpy())
        if s.ndim != 1 or s.size == 0 or s[0] != 0 or (np.diff(s) < 0).any() or s[-1] != self._values.shape[0]:
            raise ValueError(f"RaggedTensor: row_splits must start at 0, be non-decreasing and end at "
                             f"len(values)={self._values.shape[0]}; got {s.tolist()}")

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        return cls(values, row_splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        lengths = np.asarray(convert_to_tensor(row_lengths, dtype=dtypes.int64).numpy())
        return cls(values, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))

    @property
    def values(self):
        return self._values

    flat_values = values

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def ragged_rank(self):
        return 1

    @property
    def shape(self):
        return TensorShape([self.nrows_int(), None] + self._values.shape.as_list()[1:])

    def nrows_int(self):
        return int(self._row_splits.shape[0]) - 1

    def nrows(self, out_type=dtypes.int64):
        return convert_to_tensor(self.nrows_int(), dtype=out_type)

    def row_lengths(self):
        s = np.asarray(self._row_splits.numpy())
        return convert_to_tensor(np.diff(s).astype(np.int64))

    def _rows(self):
        v, s = np.asarray(self._values.numpy()), np.asarray(self._row_splits.numpy())
        return [v[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def to_list(self):
        return [r.tolist() for r in self._rows()]

    def to_tensor(self, default_value=None, name=None, shape=None):
        """Dense ``[nrows, max_len, ...]`` padded with ``default_value`` (0 or b'')."""
        rows = self._rows()
        width = max((len(r) for r in rows), default=0)
        inner = tuple(self._values.shape.as_list()[1:])
        if default_value is None:
            default_value = b"" if self.dtype is dtypes.string else 0
        np_dt = object if self.dtype is dtypes.string else self.dtype.as_numpy_dtype
        out = np.full((len(rows), width) + inner, default_value, dtype=np_dt)
        for i, r in enumerate(rows):
            out[i, :len(r)] = r
        return convert_to_tensor(out, dtype=self.dtype)

    def __getitem__(self, i):
        s = np.asarray(self._row_splits.numpy())
        n = len(s) - 1
        if not isinstance(i, int | np.integer) or not -n <= i < n:
            raise IndexError(f"RaggedTensor row index {i} out of range for {n} rows")
        i = int(i) % n
        return self._values[int(s[i]):int(s[i + 1])]

    def __len__(self):
        return self.nrows_int()

    def __repr__(self):
        return f"<tf.RaggedTensor {self.to_list()}>"
