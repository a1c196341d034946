"""``tf.sparse``'s restructuring ops: concat, reshape, expand_dims, transpose, slice, split, retain,
reset_shape, fill_empty_rows, to_indicator and eye (the math on SparseTensors is in
:mod:`tfcore.ops.sparse_math_ops`, the core conversions and matmul in :mod:`tfcore.ops.sparse_ops`).

Index bookkeeping runs on the host (NumPy, as TF's CPU kernels); every output value is taken from the
inputs with registered ops (``GatherV2``, element-wise math), so gradients reach a SparseTensor's ``values``
(and ``fill_empty_rows``' ``default_value``) as in TF. Results keep TF's index order: canonical row-major
order where TF sorts (concat, transpose), the input order where TF's kernel keeps it (reshape, slice,
retain, split, expand_dims).
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor, check_sparse
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from . import array_gather_scatter_ops, array_ops


def _host(t):
    return np.asarray(t.numpy())


def _parts(sp):
    """(indices int64 [N, rank], dense shape int64 [rank]) of a SparseTensor, on the host."""
    return _host(sp.indices).astype(np.int64).reshape(-1, sp.dense_shape.shape[0]), \
        _host(sp.dense_shape).astype(np.int64)


def _take(values, order):
    """values[order] with a registered op (gradients flow back to ``values``, dense as TF's for these ops)."""
    return array_gather_scatter_ops._gather_dense_gradient(values, convert_to_tensor(np.asarray(order, np.int64)), 0)


def _linear(indices, shape):
    """Row-major positions of index rows (int64; object-free, no overflow for shapes below 2**63)."""
    if indices.shape[1] == 0:
        return np.zeros(len(indices), np.int64)
    strides = np.ones(len(shape), np.int64)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(int(shape[d + 1]), 1)
    return indices @ strides


def _sorted_order(indices, shape):
    return np.argsort(_linear(indices, shape), kind="stable")


def _check_ordered(indices, shape, what):
    lin = _linear(indices, shape)
    if len(lin) > 1 and (np.diff(lin) <= 0).any():
        i = int(np.argmax(np.diff(lin) <= 0)) + 1
        raise InvalidArgumentError(None, None, f"{what}: indices[{i}] = {indices[i].tolist()} is out of order or "
                                               "repeated; use tf.sparse.reorder first")


def _axis(axis, rank, what):
    a = int(axis)
    if not -rank <= a < rank:
        raise InvalidArgumentError(None, None, f"{what}: axis {a} is out of range for rank {rank}")
    return a % rank


# -- reshaping ---------------------------------------------------------------------------------------------
def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """``tf.sparse.concat``: concatenation along ``axis``; the result is in row-major order.

    With ``expand_nonconcat_dims`` the other dimensions grow to the largest input's; otherwise they
    must match.
    """
    if not isinstance(sp_inputs, list | tuple) or not sp_inputs:
        raise ValueError("sparse.concat: sp_inputs must be a non-empty list of SparseTensors")
    sps = [check_sparse(s, f"sp_inputs[{i}]") for i, s in enumerate(sp_inputs)]
    parts = [_parts(s) for s in sps]
    rank = len(parts[0][1])
    if any(len(p[1]) != rank for p in parts):
        raise InvalidArgumentError(None, None, f"SparseConcat: inputs must have the same rank, got "
                                               f"{[len(p[1]) for p in parts]}")
    ax = _axis(axis, rank, "SparseConcat")
    dtype = sps[0].dtype
    if any(s.dtype is not dtype for s in sps):
        raise TypeError(f"sparse.concat: inputs must have one dtype, got {[s.dtype.name for s in sps]}")
    shapes = np.stack([p[1] for p in parts])
    others = [d for d in range(rank) if d != ax]
    if expand_nonconcat_dims:
        out_shape = shapes.max(axis=0)
    else:
        for d in others:
            if (shapes[:, d] != shapes[0, d]).any():
                raise InvalidArgumentError(None, None, f"SparseConcat: input shapes must match except in the "
                                                       f"concat dimension {ax}, got {shapes.tolist()}")
        out_shape = shapes[0].copy()
    out_shape[ax] = shapes[:, ax].sum()
    offsets = np.concatenate([[0], np.cumsum(shapes[:, ax])])
    all_idx = []
    for (ind, _), off in zip(parts, offsets):
        ind = ind.copy()
        ind[:, ax] += off
        all_idx.append(ind)
    indices = np.concatenate(all_idx) if all_idx else np.zeros((0, rank), np.int64)
    values = array_ops.concat([s.values for s in sps], axis=0)
    order = _sorted_order(indices, out_shape)
    return SparseTensor(indices[order], _take(values, order), out_shape)


def reshape(sp_input, shape, name=None):
    """``tf.sparse.reshape``: the same entries in a new dense shape (one dimension may be -1)."""
    sp = check_sparse(sp_input, "sp_input")
    ind, old = _parts(sp)
    new = np.asarray(shape.numpy() if isinstance(shape, Tensor) else shape, np.int64).reshape(-1)
    size = int(np.prod(old))
    if (new == -1).sum() > 1:
        raise InvalidArgumentError(None, None, f"SparseReshape: only one output dimension may be -1, got "
                                               f"{new.tolist()}")
    if (new < -1).any():
        raise InvalidArgumentError(None, None, f"SparseReshape: size {new.tolist()} has a negative dimension")
    known = int(np.prod(new[new != -1]))
    if (new == -1).any():
        if known == 0 or size % known:
            raise InvalidArgumentError(None, None, f"SparseReshape: Input to reshape is a SparseTensor with {size} "
                                                   f"dense values, but the requested shape {new.tolist()} cannot "
                                                   "hold them")
        new = np.where(new == -1, size // known, new)
    if int(np.prod(new)) != size:
        raise InvalidArgumentError(None, None, f"SparseReshape: Input to reshape is a tensor with {size} dense "
                                               f"values, but the requested shape has {int(np.prod(new))}")
    lin = _linear(ind, old)
    new_ind = np.stack(np.unravel_index(lin, new), axis=1).astype(np.int64) if len(new) else \
        np.zeros((len(lin), 0), np.int64)
    return SparseTensor(new_ind.reshape(len(lin), len(new)), sp.values, new)


def expand_dims(sp_input, axis=None, name=None):
    """``tf.sparse.expand_dims``: a size-1 dimension inserted at ``axis`` (-1: last)."""
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    rank = len(shape)
    a = -1 if axis is None else int(axis)
    if not -rank - 1 <= a <= rank:
        raise InvalidArgumentError(None, None, f"sparse.expand_dims: axis {a} is out of range for rank {rank}")
    a = a % (rank + 1)
    new_ind = np.insert(ind, a, 0, axis=1)
    return SparseTensor(new_ind, sp.values, np.insert(shape, a, 1))


def transpose(sp_input, perm=None, name=None):
    """``tf.sparse.transpose``: dimensions permuted by ``perm`` (default: reversed); row-major order."""
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    rank = len(shape)
    perm = list(range(rank))[::-1] if perm is None else [int(p) for p in np.asarray(
        perm.numpy() if isinstance(perm, Tensor) else perm).reshape(-1)]
    if sorted(perm) != list(range(rank)):
        raise InvalidArgumentError(None, None, f"sparse.transpose: perm {perm} is not a permutation of "
                                               f"[0, {rank})")
    new_ind, new_shape = ind[:, perm], shape[perm]
    order = _sorted_order(new_ind, new_shape)
    return SparseTensor(new_ind[order], _take(sp.values, order), new_shape)


def slice(sp_input, start, size, name=None):  # noqa: A001 - TF's name
    """``tf.sparse.slice``: the entries inside ``[start, start + size)``, shifted to start at 0.

    The result's dense shape is clipped to the input's (``min(start + size, shape) - start``).
    """
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    start = np.asarray(start.numpy() if isinstance(start, Tensor) else start, np.int64).reshape(-1)
    size = np.asarray(size.numpy() if isinstance(size, Tensor) else size, np.int64).reshape(-1)
    if len(start) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError(None, None, f"SparseSlice: start {start.tolist()} and size {size.tolist()} must "
                                               f"have the input's rank {len(shape)}")
    if (start < 0).any() or (size < 0).any():
        raise InvalidArgumentError(None, None, f"SparseSlice: start {start.tolist()} and size {size.tolist()} must "
                                               "be non-negative")
    end = np.minimum(start + size, shape)
    out_shape = np.maximum(end - start, 0)
    keep = np.all((ind >= start) & (ind < end), axis=1) if len(shape) else np.ones(len(ind), bool)
    sel = np.nonzero(keep)[0]
    return SparseTensor(ind[sel] - start, _take(sp.values, sel), out_shape)


def split(sp_input=None, num_split=None, axis=None, name=None, keyword_required=None):
    """``tf.sparse.split``: ``num_split`` SparseTensors along ``axis``; the first ``size % num_split`` pieces
    are one larger."""
    if sp_input is None or num_split is None or axis is None:
        raise ValueError("sparse.split: sp_input, num_split and axis are required")
    sp = check_sparse(sp_input, "sp_input")
    _, shape = _parts(sp)
    n = int(num_split)
    if n < 1:
        raise InvalidArgumentError(None, None, f"SparseSplit: num_split must be at least 1, got {n}")
    ax = _axis(axis, len(shape), "SparseSplit")
    total = int(shape[ax])
    if n > total:
        raise InvalidArgumentError(None, None, f"SparseSplit: num_split {n} is larger than the size {total} of "
                                               f"dimension {ax}")
    sizes = [total // n + (1 if i < total % n else 0) for i in range(n)]
    out, off = [], 0
    for s in sizes:
        start = np.zeros(len(shape), np.int64)
        start[ax] = off
        size = shape.copy()
        size[ax] = s
        out.append(slice(sp, start, size))
        off += s
    return out


def retain(sp_input, to_retain):
    """``tf.sparse.retain``: the entries where the boolean vector ``to_retain`` is True (order kept)."""
    sp = check_sparse(sp_input, "sp_input")
    keep = np.asarray(to_retain.numpy() if isinstance(to_retain, Tensor) else to_retain).reshape(-1)
    if keep.dtype != np.bool_:
        raise TypeError(f"sparse.retain: to_retain must be a bool vector, got {keep.dtype}")
    ind, shape = _parts(sp)
    if keep.shape[0] != ind.shape[0]:
        raise InvalidArgumentError(None, None, f"sparse.retain: to_retain has {keep.shape[0]} entries but sp_input "
                                               f"has {ind.shape[0]} values")
    sel = np.nonzero(keep)[0]
    return SparseTensor(ind[sel], _take(sp.values, sel), shape)


def reset_shape(sp_input, new_shape=None):
    """``tf.sparse.reset_shape``: the tight shape (largest index + 1 per dimension) or ``new_shape``, which
    must be at least the current one in every dimension."""
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    if new_shape is None:
        tight = ind.max(axis=0) + 1 if len(ind) else np.zeros(len(shape), np.int64)
        return SparseTensor(ind, sp.values, tight.astype(np.int64))
    new = np.asarray(new_shape.numpy() if isinstance(new_shape, Tensor) else new_shape, np.int64).reshape(-1)
    if len(new) != len(shape):
        raise ValueError(f"sparse.reset_shape: new_shape has rank {len(new)} but sp_input has rank {len(shape)}")
    if (new < shape).any():
        raise InvalidArgumentError(None, None, f"sparse.reset_shape: new_shape {new.tolist()} must be at least the "
                                               f"current shape {shape.tolist()} in every dimension")
    return SparseTensor(ind, sp.values, new)


def fill_empty_rows(sp_input, default_value, name=None):
    """``tf.sparse.fill_empty_rows``: ``(sp_output, empty_row_indicator)``.

    Every row (first index) without entries gets one at ``[row, 0, ..., 0]`` holding ``default_value``;
    the output is grouped by row (each row's entries in input order), as TF's kernel writes it.
    """
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    if len(shape) < 1:
        raise InvalidArgumentError(None, None, "SparseFillEmptyRows: sp_input must have rank at least 1")
    dflt = convert_to_tensor(default_value, dtype=sp.dtype)
    if dflt._array.ndim != 0:
        raise InvalidArgumentError(None, None, "SparseFillEmptyRows: default_value must be a scalar")
    nrows = int(shape[0])
    rows = ind[:, 0] if len(ind) else np.zeros(0, np.int64)
    if len(rows) and ((rows < 0) | (rows >= nrows)).any():
        raise InvalidArgumentError(None, None, f"SparseFillEmptyRows: a row index is out of range [0, {nrows})")
    counts = np.bincount(rows, minlength=nrows) if nrows else np.zeros(0, np.int64)
    empty = counts == 0
    n = len(ind)
    src = []     # per output entry: input position, or n (the default value)
    out_ind = []
    by_row = np.argsort(rows, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    for r in range(nrows):
        if empty[r]:
            src.append(n)
            out_ind.append(np.concatenate([[r], np.zeros(len(shape) - 1, np.int64)]))
        else:
            for j in by_row[starts[r]:starts[r + 1]]:
                src.append(j)
                out_ind.append(ind[j])
    out_ind = np.asarray(out_ind, np.int64).reshape(-1, len(shape))
    pool = array_ops.concat([sp.values, array_ops.reshape(dflt, [1])], axis=0)
    return SparseTensor(out_ind, _take(pool, src), shape), convert_to_tensor(empty)


def to_indicator(sp_input, vocab_size, name=None):
    """``tf.sparse.to_indicator``: dense bool ``[..., vocab_size]``; ``out[..., id]`` is True when the last
    dimension's row holds the id."""
    sp = check_sparse(sp_input, "sp_input")
    if not sp.dtype.is_integer:
        raise TypeError(f"sparse.to_indicator: sp_input must hold integer ids, got {sp.dtype.name}")
    ind, shape = _parts(sp)
    v = int(vocab_size)
    ids = _host(sp.values).astype(np.int64)
    if len(ids) and ((ids < 0) | (ids >= v)).any():
        raise InvalidArgumentError(None, None, f"sparse.to_indicator: id {int(ids[(ids < 0) | (ids >= v)][0])} is "
                                               f"out of range [0, {v})")
    out = np.zeros(tuple(shape[:-1]) + (v,), np.bool_)
    if len(ids):
        out[tuple(ind[:, :-1].T) + (ids,)] = True
    return convert_to_tensor(out)


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """``tf.sparse.eye``: a SparseTensor with ones on the diagonal."""
    r = int(num_rows)
    c = r if num_columns is None else int(num_columns)
    k = min(r, c)
    ind = np.repeat(np.arange(k, dtype=np.int64)[:, None], 2, axis=1)
    return SparseTensor(ind, array_ops.ones([k], dtype=dtypes.as_dtype(dtype)), [r, c])
