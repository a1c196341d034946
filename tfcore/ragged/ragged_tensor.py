"""``tf.RaggedTensor``: rows of different lengths as ``values`` plus ``row_splits`` (TF's encoding).

A ragged tensor of ragged rank ``r`` is a flat-values tensor wrapped ``r`` times in row partitions:
``rt.values`` is a Tensor (rank 1) or a RaggedTensor, ``rt.row_splits[i]:rt.row_splits[i + 1]`` are
row ``i``'s rows of ``values``. Element-wise ops work through :func:`map_flat_values`; ``to_tensor``
pads to the bounding shape, ``from_tensor`` strips padding. Values are tensors, so gradients flow
through ``from_row_splits`` / ``to_tensor`` / ``map_flat_values`` to the flat values.
"""

import numpy as np

from ..framework import dtypes, type_spec
from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ops import array_ops as _a
from ..ops import math_ops as _m
from ..ops.misc_ops import searchsorted as _searchsorted

__all__ = ["RaggedTensor", "RaggedTensorSpec", "constant", "map_flat_values", "range", "row_splits_to_segment_ids",
           "segment_ids_to_row_splits", "stack", "boolean_mask"]

_range = __builtins__["range"] if isinstance(__builtins__, dict) else __builtins__.range


def _splits(x, dtype=dtypes.int64):
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(f"row partition tensors must be int32 or int64, got {t.dtype.name}")
    return t if t.dtype is dtype else _m.cast(t, dtype)


def _host(t):
    return np.asarray(t.numpy())


class RaggedTensor:
    """A tensor whose dimension 1 (and further ragged dimensions) has rows of different lengths."""

    __slots__ = ("_values", "_row_splits", "_uniform_row_length")

    def __init__(self, values, row_splits, internal=False, uniform_row_length=None):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; use a factory method such as "
                             "tf.RaggedTensor.from_row_splits() or tf.ragged.constant().")
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length  # an int: every row has that length (a dense dimension)

    # -- factories --------------------------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``."""
        values = values if isinstance(values, RaggedTensor) else convert_to_tensor(values)
        splits = _splits(row_splits)
        if validate:
            s = _host(splits)
            nvals = values.nrows() if isinstance(values, RaggedTensor) else values.shape[0]
            if isinstance(nvals, Tensor):
                nvals = int(nvals.numpy())
            if s.ndim != 1 or s.size < 1 or s[0] != 0 or np.any(np.diff(s) < 0) or s[-1] != nvals:
                raise InvalidArgumentError(None, None, f"Arguments to from_row_splits do not form a valid "
                                                       f"RaggedTensor: row_splits {s.tolist()} for {nvals} values")
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of the given lengths, in order."""
        lengths = _host(_splits(row_lengths))
        if validate and np.any(lengths < 0):
            raise InvalidArgumentError(None, None, "Arguments to from_row_lengths do not form a valid RaggedTensor: "
                                                   "negative row length")
        return cls.from_row_splits(values, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                                   validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Row ``i`` holds the values whose ``value_rowids`` entry is ``i`` (sorted ids)."""
        ids = _host(_splits(value_rowids))
        n = int(ids[-1]) + 1 if nrows is None and ids.size else int(nrows or 0)
        if validate and ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0 or ids[-1] >= n):
            raise InvalidArgumentError(None, None, "Arguments to from_value_rowids do not form a valid RaggedTensor")
        return cls.from_row_lengths(values, np.bincount(ids, minlength=n), validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Rows starting at ``row_starts`` (the last runs to the end of ``values``)."""
        starts = _host(_splits(row_starts))
        nvals = values.nrows() if isinstance(values, RaggedTensor) else convert_to_tensor(values).shape[0]
        nvals = int(nvals.numpy()) if isinstance(nvals, Tensor) else nvals
        return cls.from_row_splits(values, np.concatenate([starts, [nvals]]).astype(np.int64), validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Rows ending at ``row_limits``."""
        limits = _host(_splits(row_limits))
        return cls.from_row_splits(values, np.concatenate([[0], limits]).astype(np.int64), validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        """Rows of ``uniform_row_length`` values each: a partitioned dimension of static size (the shape says
        ``uniform_row_length`` there, not None), as TF's."""
        values = values if isinstance(values, RaggedTensor) else convert_to_tensor(values)
        width = int(_host(convert_to_tensor(uniform_row_length)).reshape(-1)[0])
        nvals = values.nrows_int() if isinstance(values, RaggedTensor) else int(values.shape[0])
        if width < 0:
            raise InvalidArgumentError(None, None, f"from_uniform_row_length: uniform_row_length must be >= 0, "
                                                   f"got {width}")
        rows = int(_host(convert_to_tensor(nrows)).reshape(-1)[0]) if nrows is not None else (
            nvals // width if width else 0)
        if validate and rows * width != nvals:  # TF: ValueError (its static shape check)
            raise ValueError(f"from_uniform_row_length: {nvals} values do not make {rows} rows of length {width}")
        splits = convert_to_tensor(np.arange(rows + 1, dtype=np.int64) * width)
        return cls(values, splits, internal=True, uniform_row_length=width)

    @property
    def uniform_row_length(self):
        """The length of every row as a scalar tensor when the rows were built uniform, else None."""
        if self._uniform_row_length is None:
            return None
        return convert_to_tensor(np.asarray(self._uniform_row_length, self._row_splits.dtype.as_numpy_dtype))

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=dtypes.int64):
        """A ragged tensor from a dense one: rows cut to ``lengths``, or trailing ``padding`` values stripped
        (``ragged_rank`` > 1 makes further dimensions ragged too)."""
        t = convert_to_tensor(tensor)
        if t.ndim < ragged_rank + 1:
            raise ValueError(f"ragged_rank must be less than the tensor's rank {t.ndim}, got {ragged_rank}")
        if lengths is not None and padding is not None:
            raise ValueError("Specify lengths or padding, but not both")
        rows, width = t.shape[0], t.shape[1]
        if lengths is not None:
            lens = _host(_splits(lengths)).reshape(-1)
        elif padding is not None:
            pad = convert_to_tensor(padding, dtype=t.dtype).numpy()
            host = t.numpy()
            is_pad = np.all((host == pad).reshape(rows, width, -1), axis=-1)
            keep = ~is_pad[:, ::-1]
            lens = np.where(keep.any(axis=1), width - np.argmax(keep, axis=1), 0)
        else:
            lens = np.full(rows, width, np.int64)
        lens = np.minimum(lens, width)
        mask = np.arange(width)[None, :] < lens[:, None]
        values = _a.boolean_mask(t, convert_to_tensor(mask))
        if ragged_rank > 1:
            inner_shape = [int(lens.sum())] + t.shape.as_list()[2:]
            values = cls.from_tensor(_a.reshape(values, inner_shape), ragged_rank=ragged_rank - 1)
        return cls.from_row_lengths(values, lens)

    # -- structure ----------------------------------------------------------------------------------------------
    @property
    def values(self):
        return self._values

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_splits)
            rt = rt.values
        return tuple(out)

    @property
    def ragged_rank(self):
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        return self._row_splits.dtype

    @property
    def shape(self):
        inner = self._values.shape.as_list()[1:]
        return TensorShape([self.nrows_int(), self._uniform_row_length] + inner)

    @property
    def ndim(self):
        return self.shape.rank

    def nrows_int(self):
        return int(self._row_splits.shape[0]) - 1

    def nrows(self, out_type=None, name=None):
        n = convert_to_tensor(np.int64(self.nrows_int()))
        return n if out_type is None else _m.cast(n, out_type)

    def row_lengths(self, axis=1, name=None):
        """Lengths of the rows (``axis=1``) or of a deeper ragged dimension."""
        if axis == 1:
            return _m.subtract(self._row_splits[1:], self._row_splits[:-1])
        if not isinstance(self._values, RaggedTensor):
            raise ValueError(f"axis={axis} is not a ragged dimension")
        return self.with_values(self._values.row_lengths(axis - 1))

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def value_rowids(self, name=None):
        """The row of each value, computed from ``row_splits`` with tensor ops (a traced function records them:
        the row partition stays a graph input rather than a value read on the host)."""
        splits = self._row_splits
        return _searchsorted(splits[1:], self._value_positions(), side="right", out_type=splits.dtype)

    def _value_positions(self):
        """``[0, 1, ..., nvals - 1]`` in the row-splits dtype. From the values themselves where an op can (a
        graph then has no static number of values in it: a reloaded SavedModel runs other row lengths), else a
        range of the static size."""
        splits = self._row_splits
        vals = self._values
        if isinstance(vals, RaggedTensor):
            ref = vals.row_splits[1:]
        elif vals.shape.rank == 1 and (vals.dtype.is_integer or vals.dtype.is_floating or vals.dtype.is_bool):
            ref = vals
        else:
            return _a.range(0, int(vals.shape[0]), dtype=splits.dtype)
        return _m.cumsum(_m.cast(_a.ones_like(ref), splits.dtype), exclusive=True)

    def nested_row_lengths(self, name=None):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt.values
        return tuple(out)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape that holds every row."""
        lens = _host(self.row_lengths())
        inner = self._values.bounding_shape().numpy().tolist()[1:] if isinstance(self._values, RaggedTensor) \
            else self._values.shape.as_list()[1:]
        shape = np.asarray([self.nrows_int(), int(lens.max()) if lens.size else 0] + inner, np.int64)
        out = convert_to_tensor(shape if axis is None else shape[axis])
        return out if out_type is None else _m.cast(out, out_type)

    def with_values(self, new_values):
        return RaggedTensor(new_values, self._row_splits, internal=True, uniform_row_length=self._uniform_row_length)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(convert_to_tensor(new_values))

    def with_row_splits_dtype(self, dtype):
        dt = dtypes.as_dtype(dtype)
        vals = self._values.with_row_splits_dtype(dt) if isinstance(self._values, RaggedTensor) else self._values
        return RaggedTensor(vals, _m.cast(self._row_splits, dt), internal=True,
                            uniform_row_length=self._uniform_row_length)

    # -- conversion ---------------------------------------------------------------------------------------------
    def to_tensor(self, default_value=None, name=None, shape=None):
        """Pad every row (``default_value``, zeros by default) to the bounding shape (or to ``shape``)."""
        vals = self._values.to_tensor(default_value) if isinstance(self._values, RaggedTensor) else self._values
        lens = _host(self.row_lengths())
        n = self.nrows_int()
        width = int(lens.max()) if lens.size else 0
        if shape is not None:
            want = TensorShape(shape).as_list()
            if want[1] is not None:
                width = want[1]
        inner = vals.shape.as_list()[1:]
        if shape is not None:
            inner = [w if w is not None else d for w, d in zip(want[2:], inner)] if len(want) > 2 else inner
            if vals.shape.as_list()[1:] != inner:
                vals = _pad_or_crop(vals, inner, default_value)
        starts = _host(self._row_splits)[:-1]
        pos = np.arange(width)[None, :]
        inside = pos < lens[:, None]
        index = np.where(inside, starts[:, None] + pos, 0).reshape(-1)
        if vals.shape[0] == 0:
            vals = _a.zeros([1] + inner, dtype=vals.dtype)
        gathered = _a.reshape(_a.gather(vals, convert_to_tensor(index)), [n, width] + inner)
        fill = _a.zeros_like(gathered) if default_value is None else \
            _a.broadcast_to(convert_to_tensor(default_value, dtype=gathered.dtype), gathered.shape.as_list())
        mask = convert_to_tensor(inside.reshape([n, width] + [1] * len(inner)))
        return _m.where(_a.broadcast_to(mask, gathered.shape.as_list()), gathered, fill)

    def to_sparse(self, name=None):
        """A ``tf.SparseTensor`` with one entry per value, at its (row, position, ...) index; the dense shape
        is the bounding shape."""

        flat = self.flat_values
        index = np.zeros((int(flat.shape[0]), 0), np.int64)
        for splits in reversed(self.nested_row_splits):  # innermost partition first
            splits = _host(splits)
            lens = np.diff(splits)
            row = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
            pos = np.arange(splits[-1], dtype=np.int64) - np.repeat(splits[:-1], lens)
            outer = np.stack([row, pos], axis=1)
            index = np.concatenate([np.repeat(outer, _counts(index, splits[-1]), axis=0), index[:, 1:]], axis=1) \
                if index.shape[1] else outer
        dense_dims = flat.shape.as_list()[1:]
        if dense_dims:
            inner = np.stack(np.unravel_index(np.arange(int(np.prod(dense_dims))), dense_dims), axis=1)
            index = np.concatenate([np.repeat(index, inner.shape[0], axis=0),
                                    np.tile(inner, (index.shape[0], 1))], axis=1).astype(np.int64)
            flat = _a.reshape(flat, [-1])
        return SparseTensor(index, flat, _host(self.bounding_shape()).astype(np.int64))

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
        """Rows from a 2-D ``tf.SparseTensor`` in row-major order (values packed to the left, as TF)."""
        idx = _host(st_input.indices)
        shape = _host(st_input.dense_shape)
        if shape.size != 2:
            raise ValueError(f"from_sparse: only rank-2 SparseTensors are supported, got dense_shape {shape.tolist()}")
        lens = np.bincount(idx[:, 0], minlength=int(shape[0])).astype(np.int64)
        return cls.from_row_lengths(st_input.values, lens, validate=False)

    def to_list(self):
        """Nested Python lists of the values."""
        splits = _host(self._row_splits)
        inner = self._values.to_list() if isinstance(self._values, RaggedTensor) else self._values.numpy().tolist()
        return [inner[splits[i]:splits[i + 1]] for i in _range(len(splits) - 1)]

    def numpy(self):
        """TF's eager ``RaggedTensor.numpy()``: rows of different lengths make a 1-D object array of NumPy
        rows; rows of one length combine into one array of rank ``row rank + 1``."""
        splits = _host(self._row_splits)
        vals = self._values.numpy()
        rows = [vals[splits[i]:splits[i + 1]] for i in _range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + vals.shape[1:], dtype=vals.dtype)
        if any(len(row) != len(rows[0]) for row in rows):
            out = np.empty(len(rows), dtype=object)
            for i, row in enumerate(rows):
                out[i] = row
            return out
        return np.array(rows)

    # -- tf.function: traced by its components (TF's ``RaggedTensorSpec._to_components``) --------------------------
    def __tf_flatten__(self):
        """TF's composite protocol: ``(metadata, components)``, the components being the flat values and then the
        row splits of every ragged dimension, outermost first. A traced function gets a placeholder for each,
        so the row partitions are graph inputs (a call with other row lengths replays the same graph)."""
        return ("RaggedTensor", self.ragged_rank, self._uniform_lengths()), (self.flat_values,) + self.nested_row_splits

    def _uniform_lengths(self):
        """Each ragged dimension's uniform row length (None where rows differ), outermost first."""
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._uniform_row_length)
            rt = rt.values
        return tuple(out)

    @classmethod
    def __tf_unflatten__(cls, metadata, components):
        rt = cls.from_nested_row_splits(components[0], components[1:], validate=False)
        level = rt
        for width in (metadata[2] if len(metadata) > 2 else ()):
            level._uniform_row_length = width
            level = level.values
        return rt

    @classmethod
    def __tf_component_key__(cls, keys):
        """The trace key of a ragged argument from its components' ``("T", dtype, shape)`` keys: the number of
        rows as ``RaggedTensorSpec.from_value`` gives it; how many values there are and where the rows split
        are not part of it (TF traces once per RaggedTensorSpec)."""
        flat, outer, *inner = keys
        return ((flat[0], flat[1], (None,) + tuple(flat[2][1:])), outer) + tuple(
            (k[0], k[1], (None,)) for k in inner)

    @classmethod
    def __tf_spec__(cls, metadata, component_specs):
        """The ``RaggedTensorSpec`` of a trace key's component specs (``ConcreteFunction`` signatures)."""
        flat, outer, *_ = component_specs
        rows = outer.shape.as_list()[0]
        rr = metadata[1]
        uniform = list(metadata[2]) if len(metadata) > 2 else [None] * rr
        return RaggedTensorSpec([None if rows is None else rows - 1] + uniform + flat.shape.as_list()[1:],
                                flat.dtype, rr, outer.dtype)

    # -- python protocol -----------------------------------------------------------------------------------------
    def __getitem__(self, key):
        if isinstance(key, int | np.integer):
            n = self.nrows_int()
            if not -n <= key < n:
                raise IndexError(f"row index {key} out of range for {n} rows")
            key %= n
            s = _host(self._row_splits)
            return self._values[int(s[key]):int(s[key + 1])]
        if isinstance(key, slice):
            rows = np.arange(self.nrows_int())[key]
            s = _host(self._row_splits)
            lens = s[rows + 1] - s[rows]
            parts = [self._values[int(s[r]):int(s[r + 1])] for r in rows]
            if isinstance(self._values, RaggedTensor):
                vals = _concat_ragged(parts) if parts else self._values[0:0]
            else:
                vals = _a.concat(parts, axis=0) if parts else self._values[0:0]
            return RaggedTensor.from_row_lengths(vals, lens.astype(np.int64), validate=False)
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], int | np.integer):
            return self[key[0]][key[1]]
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], slice) and isinstance(key[1], slice):
            return self[key[0]]._slice_rows(key[1])
        raise TypeError(f"RaggedTensor indices must be an int, a slice, or (int, index); got {key!r}")

    def _slice_rows(self, inner):
        """``rt[:, start:stop:step]``: the same Python slice cut from every row (rows stay ragged)."""
        splits = _host(self._row_splits)
        index, lens = [], []
        for i in _range(self.nrows_int()):
            pos = np.arange(splits[i], splits[i + 1])[inner]
            index.append(pos)
            lens.append(pos.size)
        index = np.concatenate(index).astype(np.int64) if index else np.zeros(0, np.int64)
        values = self._values
        if isinstance(values, RaggedTensor):
            picked = _concat_ragged([values[int(j):int(j) + 1] for j in index]) if index.size else values[0:0]
        else:
            picked = _a.gather(values, convert_to_tensor(index))
        return RaggedTensor.from_row_lengths(picked, np.asarray(lens, np.int64), validate=False)

    def __iter__(self):
        for i in _range(self.nrows_int()):
            yield self[i]

    def __len__(self):
        return self.nrows_int()

    def __repr__(self):
        # TF's eager repr: the NumPy value printed with ", " separators (rows of one length print as a
        # multi-line array, as np.array2string does)
        with np.printoptions(formatter={"all": _formatter}):
            value_text = _formatter(self.numpy())
        return f"<tf.RaggedTensor {value_text}>"

    # Operators call the public ops, which dispatch on RaggedTensor (ragged_dispatch.py): shared row partitions,
    # scalars and broadcastable dense operands all take the same path as ``tf.add(rt, x)``.
    def __add__(self, other):
        return _m.add(self, other)

    def __radd__(self, other):
        return _m.add(other, self)

    def __sub__(self, other):
        return _m.subtract(self, other)

    def __rsub__(self, other):
        return _m.subtract(other, self)

    def __mul__(self, other):
        return _m.multiply(self, other)

    def __rmul__(self, other):
        return _m.multiply(other, self)

    def __truediv__(self, other):
        return _m.truediv(self, other)

    def __rtruediv__(self, other):
        return _m.truediv(other, self)

    def __floordiv__(self, other):
        return _m.floordiv(self, other)

    def __rfloordiv__(self, other):
        return _m.floordiv(other, self)

    def __mod__(self, other):
        return _m.floormod(self, other)

    def __rmod__(self, other):
        return _m.floormod(other, self)

    def __pow__(self, other):
        return _m.pow(self, other)

    def __rpow__(self, other):
        return _m.pow(other, self)

    def __and__(self, other):
        return _m.logical_and(self, other)

    def __rand__(self, other):
        return _m.logical_and(other, self)

    def __or__(self, other):
        return _m.logical_or(self, other)

    def __ror__(self, other):
        return _m.logical_or(other, self)

    def __xor__(self, other):
        return _m.logical_xor(self, other)

    def __rxor__(self, other):
        return _m.logical_xor(other, self)

    def __lt__(self, other):
        return _m.less(self, other)

    def __le__(self, other):
        return _m.less_equal(self, other)

    def __gt__(self, other):
        return _m.greater(self, other)

    def __ge__(self, other):
        return _m.greater_equal(self, other)

    def __eq__(self, other):
        return _m.equal(self, other)

    def __ne__(self, other):
        return _m.not_equal(self, other)

    def __neg__(self):
        return _m.negative(self)

    def __abs__(self):
        return _m.abs(self)

    def __invert__(self):
        return _m.logical_not(self)

    __hash__ = object.__hash__


def _formatter(x):
    """TF's ``ragged_tensor._formatter``: NumPy arrays with comma separators."""
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


def _counts(inner_index, n):
    """How many rows of an inner sparse index belong to each of the ``n`` values of the next level."""
    return np.bincount(inner_index[:, 0], minlength=n) if inner_index.size else np.zeros(n, np.int64)


def _pad_or_crop(vals, inner, default_value):
    cur = vals.shape.as_list()[1:]
    sl = [slice(None)] + [slice(0, min(c, w)) for c, w in zip(cur, inner)]
    vals = vals[tuple(sl)]
    pads = [[0, 0]] + [[0, max(w - c, 0)] for c, w in zip(cur, inner)]
    return _a.pad(vals, pads, constant_values=0 if default_value is None else default_value)


def _concat_ragged(parts):
    lens = np.concatenate([_host(p.row_lengths()) for p in parts])
    if isinstance(parts[0].values, RaggedTensor):
        vals = _concat_ragged([p.values for p in parts])
    else:
        vals = _a.concat([p.values for p in parts], axis=0)
    return RaggedTensor.from_row_lengths(vals, lens.astype(np.int64), validate=False)


class RaggedTensorSpec:
    """``tf.RaggedTensorSpec``: the type of a RaggedTensor (shape with None ragged dims, dtype, ragged_rank)."""

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None, row_splits_dtype=dtypes.int64,
                 flat_values_spec=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        rank = self._shape.rank
        self._ragged_rank = ragged_rank if ragged_rank is not None else (rank - 1 if rank is not None else 1)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)

    @property
    def value_type(self):
        return RaggedTensor

    # -- tf.function: the specs of the components RaggedTensor.__tf_flatten__ gives ----------------------------
    def _tf_metadata(self):
        dims = self._shape.as_list() if self._shape.rank is not None else [None] * (self._ragged_rank + 1)
        return ("RaggedTensor", self._ragged_rank, tuple(dims[1:self._ragged_rank + 1]))

    def _tf_component_specs(self):
        """TensorSpecs of the flat values and of each row-splits tensor (TF's ``_component_specs``)."""

        dims = self._shape.as_list() if self._shape.rank is not None else [None] * (self._ragged_rank + 1)
        rows = dims[0]
        flat = TensorSpec([None] + dims[self._ragged_rank + 1:], self._dtype)
        outer = TensorSpec([None if rows is None else rows + 1], self._row_splits_dtype)
        return [flat, outer] + [TensorSpec([None], self._row_splits_dtype) for _ in _range(self._ragged_rank - 1)]

    def _tf_sample_value(self):
        """A value of this spec to trace ``get_concrete_function(spec)`` with: unknown dimensions are 1 (every
        ragged row holds one value), uniform ones keep their length; zeros."""
        dims = self._shape.as_list() if self._shape.rank is not None else [None] * (self._ragged_rank + 1)
        rows = 1 if dims[0] is None else dims[0]
        np_splits = self._row_splits_dtype.as_numpy_dtype
        splits, widths = [], dims[1:self._ragged_rank + 1]
        for width in widths:
            w = 1 if width is None else width
            splits.append(np.arange(rows + 1, dtype=np_splits) * w)
            rows *= w
        inner = [1 if d is None else d for d in dims[self._ragged_rank + 1:]]
        fill = b"" if self._dtype is dtypes.string else 0
        values = convert_to_tensor(np.full([rows] + inner, fill, self._dtype.as_numpy_dtype), dtype=self._dtype)
        return RaggedTensor.__tf_unflatten__(self._tf_metadata(), [values] + [convert_to_tensor(s) for s in splits])

    def is_compatible_with(self, other):
        if isinstance(other, RaggedTensor):
            other = RaggedTensorSpec.from_value(other)
        return isinstance(other, RaggedTensorSpec) and other.dtype is self.dtype and \
            self._shape.is_compatible_with(other.shape) and other.ragged_rank == self.ragged_rank

    def __eq__(self, other):
        return isinstance(other, RaggedTensorSpec) and self.shape.as_list() == other.shape.as_list() and \
            self.dtype is other.dtype and self.ragged_rank == other.ragged_rank

    __hash__ = object.__hash__

    def __repr__(self):
        return f"RaggedTensorSpec(TensorShape({self.shape.as_list()}), tf.{self.dtype.name}, {self.ragged_rank}, " \
               f"tf.{self.row_splits_dtype.name})"


# -- tf.ragged ------------------------------------------------------------------------------------------------------

def _depth(x):
    return 1 + max((_depth(v) for v in x), default=0) if isinstance(x, list | tuple) else 0


def _scan_scalars(x, depth, depths, kinds):
    """The nesting depths of the scalars in ``x`` and whether they are strings or numbers."""
    if isinstance(x, list | tuple):
        for v in x:
            _scan_scalars(v, depth + 1, depths, kinds)
        return
    if isinstance(x, np.ndarray) and x.ndim:
        depths.add(depth + x.ndim)
        kinds.add("str" if x.dtype.kind in "SUO" else "num")
        return
    depths.add(depth)
    kinds.add("str" if isinstance(x, str | bytes | np.str_ | np.bytes_) else "num")


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=dtypes.int64):
    """``tf.ragged.constant``: a RaggedTensor from nested Python lists of varying lengths (uniform innermost
    dimensions beyond ``ragged_rank`` become dense dimensions of the flat values)."""
    depth = _depth(pylist)
    if depth == 0:
        raise ValueError("tf.ragged.constant needs a (nested) list")
    depths, kinds = set(), set()
    _scan_scalars(pylist, 0, depths, kinds)
    if len(depths) > 1:  # TF's messages (ragged_factory_ops._find_scalar_and_max_depth, then the conversion)
        raise ValueError("all scalar values must have the same nesting depth")
    if len(kinds) > 1:
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    rr = depth - 1 if ragged_rank is None else int(ragged_rank)
    if inner_shape is not None and ragged_rank is None:
        rr = depth - 1 - len(inner_shape)
    if rr < 1:
        raise ValueError(f"ragged_rank must be at least 1, got {rr}")
    level = list(pylist)
    splits = []
    for _ in _range(rr):
        lens = [len(row) for row in level]
        splits.append(np.concatenate([[0], np.cumsum(lens)]).astype(row_splits_dtype.as_numpy_dtype
                                                                     if hasattr(row_splits_dtype, "as_numpy_dtype")
                                                                     else np.int64))
        level = [v for row in level for v in row]
    arr = np.asarray(level, dtype=None if dtype is None else dtypes.as_dtype(dtype).as_numpy_dtype)
    if dtype is None and arr.dtype == np.float64:
        arr = arr.astype(np.float32)  # Python floats -> float32, ints -> int32, as tf.constant
    if dtype is None and arr.dtype == np.int64:
        arr = arr.astype(np.int32)
    if arr.size == 0 and arr.ndim == 1 and dtype is None:
        arr = arr.astype(np.float32)
    values = convert_to_tensor(arr) if dtype is None else convert_to_tensor(arr, dtype=dtypes.as_dtype(dtype))
    if inner_shape is not None:
        values = _a.reshape(values, [-1] + list(inner_shape))
    return RaggedTensor.from_nested_row_splits(values, splits, validate=False)


def map_flat_values(op, *args, **kwargs):
    """``tf.ragged.map_flat_values``: ``op`` applied to the flat values of the ragged arguments (which must
    share row partitions); the result keeps their partitions."""
    ragged = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    first = ragged[0]
    for r in ragged[1:]:
        if r.ragged_rank != first.ragged_rank or not all(
                np.array_equal(_host(a), _host(b)) for a, b in zip(r.nested_row_splits, first.nested_row_splits)):
            raise ValueError("Inputs must have identical ragged splits")

    def flat(a):
        return a.flat_values if isinstance(a, RaggedTensor) else a

    out = op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()})
    return first.with_flat_values(out)


def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=dtypes.int64):  # noqa: A001
    """``tf.ragged.range``: row ``i`` is ``range(starts[i], limits[i], deltas[i])``."""
    if limits is None:
        starts, limits = 0, starts
    s, lim, d = (np.atleast_1d(np.asarray(v.numpy() if hasattr(v, "numpy") else v)) for v in (starts, limits, deltas))
    s, lim, d = np.broadcast_arrays(s, lim, d)
    rows = [np.arange(a, b, c) for a, b, c in zip(s, lim, d)]
    out_dt = dtype or (dtypes.int32 if all(np.issubdtype(np.asarray(v).dtype, np.integer) for v in (s, lim, d))
                       else dtypes.float32)
    flat = np.concatenate(rows) if rows else np.zeros(0)
    return RaggedTensor.from_row_lengths(convert_to_tensor(flat.astype(dtypes.as_dtype(out_dt).as_numpy_dtype)),
                                         np.asarray([len(r) for r in rows], np.int64))


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """``tf.ragged.row_splits_to_segment_ids``."""
    s = _host(_splits(splits))
    ids = np.repeat(np.arange(len(s) - 1), np.diff(s)).astype(np.int64)
    out = convert_to_tensor(ids)
    return out if out_type is None else _m.cast(out, out_type)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """``tf.ragged.segment_ids_to_row_splits``."""
    ids = _host(_splits(segment_ids))
    n = int(ids.max()) + 1 if num_segments is None and ids.size else int(num_segments or 0)
    splits = np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=n))]).astype(np.int64)
    out = convert_to_tensor(splits)
    return out if out_type is None else _m.cast(out, out_type)


def stack(values, axis=0, name=None):
    """``tf.ragged.stack`` along axis 0: each input (dense or ragged) becomes one row."""
    if axis != 0:
        raise ValueError("tf.ragged.stack: only axis=0 is supported by tfcore")
    rows = [v if isinstance(v, RaggedTensor) else convert_to_tensor(v) for v in values]
    if all(isinstance(r, Tensor) for r in rows):
        lens = [r.shape[0] for r in rows]
        return RaggedTensor.from_row_lengths(_a.concat(rows, axis=0), np.asarray(lens, np.int64))
    parts = [r if isinstance(r, RaggedTensor) else RaggedTensor.from_tensor(r) for r in rows]
    inner = _concat_ragged(parts)
    return RaggedTensor.from_row_lengths(inner, np.asarray([p.nrows_int() for p in parts], np.int64))


def boolean_mask(data, mask, name=None):
    """``tf.ragged.boolean_mask``: keep ``data[i][j]`` where ``mask[i][j]``; rows become ragged."""
    d = data if isinstance(data, RaggedTensor) else convert_to_tensor(data)
    m = mask if isinstance(mask, RaggedTensor) else convert_to_tensor(mask)
    if isinstance(d, RaggedTensor):
        keep = m.flat_values if isinstance(m, RaggedTensor) else m
        lens = [int(np.sum(_host(row))) for row in (m if isinstance(m, RaggedTensor) else [keep])]
        return RaggedTensor.from_row_lengths(_a.boolean_mask(d.flat_values, keep), np.asarray(lens, np.int64))
    host = _host(m)
    return RaggedTensor.from_row_lengths(_a.boolean_mask(d, m), host.reshape(host.shape[0], -1).sum(axis=1))


def _register():
    type_spec.register_spec(RaggedTensorSpec, lambda v: isinstance(v, RaggedTensor), RaggedTensorSpec.from_value)


_register()
